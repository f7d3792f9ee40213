// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: constructed nodes on a private core, no peer: every event
 * type releases its reference, and events keep their order per node.
 */
#include "irdma_test.h"

/* ---- constructed nodes: no peer ---------------------------------------- */

static void traces_resume(struct kunit_resource *res)
{
	trace_set_clr_event("cmkit_irdma", NULL, 1);
}

/*
 * The constructed-node cases make some 20,000 trace events.  When
 * cmkit_irdma's events are on (make run), they would push every other
 * handler's out of the ring buffer: pause them for the test.
 */
void quiet_traces(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_EVENT_TRACING) ||
	    !trace_cmkit_irdma_create_event_enabled())
		return;
	trace_set_clr_event("cmkit_irdma", NULL, 0);
	if (!kunit_alloc_resource(test, ul_res_init, traces_resume, GFP_KERNEL, NULL))
		trace_set_clr_event("cmkit_irdma", NULL, 1);
}

static void core_res_free(struct kunit_resource *res)
{
	struct irdma_cm_core *core = res->data;

	if (core->event_wq)	/* the test ended before its own cleanup */
		cmkit_irdma_cleanup_cm_core(core);
	kfree(core);
}

/* A core of the test's own, cleaned up (if the test did not) at its end. */
struct irdma_cm_core *private_core(struct kunit *test)
{
	struct irdma_cm_core *core = kzalloc_obj(*core, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, core);
	if (cmkit_irdma_setup_cm_core(core)) {
		kfree(core);
		KUNIT_ASSERT_TRUE_MSG(test, false, "cmkit_irdma_setup_cm_core failed");
	}
	if (!kunit_alloc_resource(test, ul_res_init, core_res_free, GFP_KERNEL, core)) {
		cmkit_irdma_cleanup_cm_core(core);
		kfree(core);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	return core;
}

static const struct event_case event_cases[] = {
	{ IRDMA_CM_EVENT_UNKNOWN, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE },
	{ IRDMA_CM_EVENT_MPA_CONNECT, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE },
	{ IRDMA_CM_EVENT_MPA_ACCEPT, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE },
	{ IRDMA_CM_EVENT_MPA_ESTABLISHED, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE },
	{ 0x7f, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE },
	{ IRDMA_CM_EVENT_CONNECTED, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE, false,
	  IW_CM_EVENT_CONNECT_REPLY, 0, 0 },
	{ IRDMA_CM_EVENT_MPA_REJECT, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE, true,
	  IW_CM_EVENT_CONNECT_REPLY, 0, -ECONNREFUSED },
	{ IRDMA_CM_EVENT_ABORTED, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE, true,
	  IW_CM_EVENT_CONNECT_REPLY, 0, -ECONNRESET },
	{ IRDMA_CM_EVENT_RESET, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE, true,
	  IW_CM_EVENT_DISCONNECT, IW_CM_EVENT_CLOSE, -ECONNRESET, true },
	{ IRDMA_CM_EVENT_DISCONN, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE, true,
	  IW_CM_EVENT_DISCONNECT, IW_CM_EVENT_CLOSE, 0, true },
	{ IRDMA_CM_EVENT_ABORTED, IRDMA_CM_UL_CONN_SENT, UL_ACTIVE, true,
	  IW_CM_EVENT_DISCONNECT, IW_CM_EVENT_CLOSE, -ECONNRESET, true },
	{ IRDMA_CM_EVENT_ESTABLISHED, IRDMA_CM_UL_ACCEPTED, UL_PASSIVE, false,
	  IW_CM_EVENT_ESTABLISHED, 0, 0 },
	/* Upper layer in the wrong state: no upcall, reference still dropped. */
	{ IRDMA_CM_EVENT_CONNECTED, IRDMA_CM_UL_NONE, UL_ACTIVE },
	{ IRDMA_CM_EVENT_ESTABLISHED, IRDMA_CM_UL_NONE, UL_PASSIVE },
	/*
	 * An end after the last upcall: nothing more to say, and the base
	 * reference goes (if anything still held it).  An end in a state no
	 * producer posts one in (the upper layer never heard of a connection)
	 * WARNs, which the test kernels' panic_on_warn makes untestable here.
	 */
	{ IRDMA_CM_EVENT_RESET, IRDMA_CM_UL_CLOSED, UL_ACTIVE, true },
	{ IRDMA_CM_EVENT_ABORTED, IRDMA_CM_UL_CLOSED, UL_ACTIVE, true },
	{ IRDMA_CM_EVENT_DISCONN, IRDMA_CM_UL_CLOSED, UL_PASSIVE, true },
	{ IRDMA_CM_EVENT_MPA_REQ, IRDMA_CM_UL_NONE, UL_LISTEN, false,
	  IW_CM_EVENT_CONNECT_REQUEST, 0, 0 },
};

void irdma_every_event_type_releases_its_reference(struct kunit *test)
{
	const enum irdma_cm_event_type connected = IRDMA_CM_EVENT_CONNECTED;
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = {};
	unsigned int i;

	quiet_traces(test);
	for (i = 0; i < ARRAY_SIZE(event_cases); i++) {
		const struct event_case *c = &event_cases[i];
		struct irdma_cm_node *node;
		struct ul *ul;
		struct iw_cm_id child = {};
		unsigned int first;

		ul = ul_create(test, "constructed", c->role, NULL, NULL);
		ul->accepted = c->ul_state == IRDMA_CM_UL_ACCEPTED;
		node = cmkit_irdma_make_cm_node(core, &ul->id, &info);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, node);
		node->ul_state = c->ul_state;
		node->passive = c->role == UL_LISTEN;	/* a listener's node */
		cmkit_irdma_add_ref_cm_node(node);	/* keep it to look at */
		if (c->connected)
			KUNIT_ASSERT_NOT_NULL(test, cmkit_irdma_create_event(node, connected));
		KUNIT_ASSERT_NOT_NULL(test, cmkit_irdma_create_event(node, c->type));
		/*
		 * Not flush_workqueue(): when the work already runs the
		 * CONNECTED when c->type is posted, it queues itself again
		 * for it, and a flush does not wait for chained work.
		 */
		drain_workqueue(core->event_wq);
		first = c->connected ? 1 : 0;

		KUNIT_EXPECT_EQ_MSG(test, refcount_read(&node->refcnt), c->ends ? 1 : 2,
				    "case %u (%s)", i, cmkit_irdma_cm_event_name(c->type));
		KUNIT_EXPECT_EQ_MSG(test, test_bit(IRDMA_CM_NODE_BASE_PUT, &node->flags),
				    c->ends, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, ul->nr,
				    first + (c->up1 ? 1U : 0U) + (c->up2 ? 1U : 0U),
				    "case %u (%s)", i, cmkit_irdma_cm_event_name(c->type));
		if (c->connected) {
			KUNIT_EXPECT_EQ(test, ul->rec[0].event, IW_CM_EVENT_CONNECT_REPLY);
			KUNIT_EXPECT_EQ(test, ul->rec[0].status, 0);
		}
		if (c->up1) {
			KUNIT_EXPECT_EQ(test, ul->rec[first].event, c->up1);
			KUNIT_EXPECT_EQ(test, ul->rec[first].status, c->status1);
		}
		if (c->up2) {
			KUNIT_EXPECT_EQ(test, ul->rec[first + 1].event, c->up2);
			KUNIT_EXPECT_EQ(test, ul->rec[first + 1].status, 0);
		}
		if (c->up1 == IW_CM_EVENT_CONNECT_REQUEST) {
			KUNIT_EXPECT_PTR_EQ(test, ul->rec[0].provider_data, (void *)node);
			child.provider_data = ul->rec[0].provider_data;
			KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child, NULL, 0), 0);
		}
		KUNIT_EXPECT_EQ_MSG(test, ul->violations, 0U, "%s", ul->why);
		cmkit_irdma_cm_node_put_base(node);
		cmkit_irdma_rem_ref_cm_node(node);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_posted),
			atomic_read(&core->stats.events_handled));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), (int)i);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_freed), (int)i);
	cmkit_irdma_cleanup_cm_core(core);
}

/* Event @k of @events on one node: CONNECTED, ignored types, DISCONN last. */
static enum irdma_cm_event_type ordered_event_type(int k, int events)
{
	if (k == 0)
		return IRDMA_CM_EVENT_CONNECTED;
	if (k == events - 1)
		return IRDMA_CM_EVENT_DISCONN;
	return IRDMA_CM_EVENT_MPA_CONNECT;
}

/*
 * Interleave 100 events on each of 100 nodes: CONNECTED first, DISCONN
 * last, ignored types between.  Out of order, an upper layer would see
 * DISCONNECT before CONNECT_REPLY (a rule violation) and the handler's
 * sequence check would count it.
 */
void irdma_10000_events_keep_per_node_order(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = {};
	struct irdma_cm_node **nodes;
	struct ul **uls;
	long freed;
	int i, k;

	quiet_traces(test);
	nodes = kunit_kcalloc(test, ORDER_NODES, sizeof(*nodes), GFP_KERNEL);
	uls = kunit_kcalloc(test, ORDER_NODES, sizeof(*uls), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nodes);
	KUNIT_ASSERT_NOT_NULL(test, uls);
	for (i = 0; i < ORDER_NODES; i++) {
		uls[i] = ul_create(test, "ordered", UL_ACTIVE, NULL, NULL);
		nodes[i] = cmkit_irdma_make_cm_node(core, &uls[i]->id, &info);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nodes[i]);
		nodes[i]->ul_state = IRDMA_CM_UL_CONN_SENT;
	}
	for (k = 0; k < ORDER_EVENTS; k++) {
		enum irdma_cm_event_type type = ordered_event_type(k, ORDER_EVENTS);

		for (i = 0; i < ORDER_NODES; i++)
			KUNIT_ASSERT_NOT_NULL(test, cmkit_irdma_create_event(nodes[i], type));
	}
	/* The DISCONN of each node drops its base reference: all are freed. */
	freed = wait_event_timeout(core->wait,
				   atomic_read(&core->stats.nodes_freed) == ORDER_NODES,
				   cmkit_test_timeout());
	KUNIT_EXPECT_NE(test, freed, 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_handled),
			ORDER_NODES * ORDER_EVENTS);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_misordered), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), ORDER_NODES);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_freed), ORDER_NODES);
	for (i = 0; i < ORDER_NODES; i++) {
		struct ul *ul = uls[i];

		KUNIT_EXPECT_EQ_MSG(test, ul->violations, 0U, "%s", ul->why);
		KUNIT_EXPECT_EQ(test, ul->nr, 3U);
		KUNIT_EXPECT_EQ(test, ul->rec[0].event, IW_CM_EVENT_CONNECT_REPLY);
		KUNIT_EXPECT_EQ(test, ul->rec[1].event, IW_CM_EVENT_DISCONNECT);
		KUNIT_EXPECT_EQ(test, ul->rec[2].event, IW_CM_EVENT_CLOSE);
	}
	cmkit_irdma_cleanup_cm_core(core);
}

static void batch_blocker(struct work_struct *work)
{
	struct batch_rec *rec = container_of(work, struct batch_rec, blocker);

	wait_for_completion_timeout(&rec->release, cmkit_test_timeout());
}

/* On the event workqueue, one event at a time: no lock. */
static void batch_hook(struct irdma_cm_core *core, enum irdma_cm_hook where, void *arg)
{
	struct batch_rec *rec = core->test_data;
	struct irdma_cm_event *event = arg;

	if (where != IRDMA_HOOK_EVENT || rec->n >= ARRAY_SIZE(rec->node))
		return;
	rec->node[rec->n] = event->cm_node;
	rec->seq[rec->n++] = event->seq;
}

static void batch_post(struct kunit *test, struct irdma_cm_node *node, int events)
{
	int k;

	for (k = 0; k < events; k++) {
		enum irdma_cm_event_type type = ordered_event_type(k, events);

		KUNIT_EXPECT_NOT_NULL(test, cmkit_irdma_create_event(node, type));
	}
}

void irdma_batches_keep_node_order_and_yield_after_the_bound(struct kunit *test)
{
	/* node (0: A, 1: B) and sequence number of each event, in handling order */
	static const u8 want_node[] = { 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 };
	static const u8 want_seq[] = { 0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = {};
	struct irdma_cm_node *nodes[2];
	struct batch_rec *rec;
	struct ul *uls[2];
	unsigned int i;
	long freed;

	BUILD_BUG_ON(ARRAY_SIZE(want_node) != BATCH_A + BATCH_B);
	quiet_traces(test);
	rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	init_completion(&rec->release);
	INIT_WORK(&rec->blocker, batch_blocker);
	for (i = 0; i < 2; i++) {
		uls[i] = ul_create(test, i ? "batch B" : "batch A", UL_ACTIVE, NULL, NULL);
		nodes[i] = cmkit_irdma_make_cm_node(core, &uls[i]->id, &info);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nodes[i]);
		nodes[i]->ul_state = IRDMA_CM_UL_CONN_SENT;
	}
	core->event_batch = BATCH_BOUND;
	core->test_data = rec;
	WRITE_ONCE(core->test_hook, batch_hook);

	queue_work(core->event_wq, &rec->blocker);
	batch_post(test, nodes[0], BATCH_A);
	batch_post(test, nodes[1], BATCH_B);
	complete_all(&rec->release);

	freed = wait_event_timeout(core->wait, atomic_read(&core->stats.nodes_freed) == 2,
				   cmkit_test_timeout());
	KUNIT_EXPECT_NE(test, freed, 0L);
	WRITE_ONCE(core->test_hook, NULL);
	KUNIT_EXPECT_EQ(test, rec->n, (unsigned int)(BATCH_A + BATCH_B));
	for (i = 0; i < rec->n; i++) {
		KUNIT_EXPECT_PTR_EQ_MSG(test, rec->node[i], nodes[want_node[i]],
					"event %u handled: node %c's, not node %c's", i,
					rec->node[i] == nodes[0] ? 'A' : 'B',
					want_node[i] ? 'B' : 'A');
		KUNIT_EXPECT_EQ_MSG(test, rec->seq[i], (u32)want_seq[i], "event %u", i);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_misordered), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ_MSG(test, uls[i]->violations, 0U, "%s", uls[i]->why);
		KUNIT_EXPECT_EQ(test, uls[i]->nr, 3U);
	}
	cmkit_irdma_cleanup_cm_core(core);
}
