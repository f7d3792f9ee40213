// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: cmkit's irdma-style iWARP connection manager against siw.
 *
 * The upper layer is a recording iw_cm_id this file owns: it enforces
 * iw_cm's rules (one CONNECT_REPLY per connect, ESTABLISHED only after an
 * accept, DISCONNECT then CLOSE, CLOSE once, nothing after CLOSE) and a
 * violation fails the test instead of crashing the kernel.  siw's side of
 * each connection is an in-kernel rdma_cm id on siw0 (kunit/cm_peer.c);
 * peers that misbehave on purpose are plain kernel TCP sockets.  Without a
 * peer, constructed nodes on a private core check the event references and
 * per-node ordering.
 */
#include <linux/debug_locks.h>
#include <linux/kmsg_dump.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/trace_events.h>
#include <linux/umh.h>
#include <net/sock.h>

#include <cmkit/mpa_fpdu.h>
#include "cmkit_test.h"
#include "irdma/irdma.h"
#include "irdma/trace.h"

static const struct cmkit_dev_param *siw_param = &cmkit_dev_params[CMKIT_SIW];

/* ---- the recording upper layer ----------------------------------------- */

enum ul_role {
	UL_LISTEN,
	UL_ACTIVE,
	UL_PASSIVE,
};

#define UL_MAX_REC	8

struct ul_rec {
	enum iw_cm_event_type event;
	int status;
	void *provider_data;
	u8 ird;
	u8 ord;
	u8 pdata_len;
	u8 pdata[CMKIT_PEER_PDATA_MAX];
	struct sockaddr_in6 local;	/* IPv4 or IPv6 */
	struct sockaddr_in6 remote;
};

/**
 * struct ul - a recording upper layer
 * @id: the iw_cm_id handed to cmkit
 * @role: listener, connecting id, or accepted id
 * @name: label for messages
 * @lock: protects everything below
 * @wait: woken on every upcall and reference drop
 * @refs: add_ref() minus rem_ref()
 * @req_rc: what the handler answers a CONNECT_REQUEST (0: take it)
 * @accepted: cmkit_irdma_accept() was called on @id
 * @n: upcalls per iw_cm event type
 * @nr: upcalls recorded in @rec
 * @rec: the first UL_MAX_REC upcalls
 * @violations: broken rules
 * @why: the first broken rule
 */
struct ul {
	struct iw_cm_id id;
	enum ul_role role;
	const char *name;
	spinlock_t lock;	/* everything below */
	wait_queue_head_t wait;
	int refs;
	int req_rc;
	bool accepted;
	unsigned int n[IW_CM_EVENT_CLOSE + 1];
	unsigned int nr;
	struct ul_rec rec[UL_MAX_REC];
	unsigned int violations;
	char why[96];
};

static void ul_violation(struct ul *ul, const char *what, int event)
{
	ul->violations++;
	if (ul->violations == 1)
		snprintf(ul->why, sizeof(ul->why), "%s: %s (iw event %d)", ul->name,
			 what, event);
	pr_err("cmkit_test: irdma %s: rule broken: %s (iw event %d)\n", ul->name,
	       what, event);
}

/* iw_cm's process_event() rules, as checks instead of BUG()s. */
static void ul_check(struct ul *ul, const struct iw_cm_event *ev)
{
	unsigned int reply = ul->n[IW_CM_EVENT_CONNECT_REPLY];
	unsigned int est = ul->n[IW_CM_EVENT_ESTABLISHED];
	unsigned int disc = ul->n[IW_CM_EVENT_DISCONNECT];

	if (ul->n[IW_CM_EVENT_CLOSE]) {
		ul_violation(ul, "event after CLOSE", ev->event);
		return;
	}
	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		if (ul->role != UL_LISTEN)
			ul_violation(ul, "CONNECT_REQUEST on a non-listening id", ev->event);
		else if (ev->status)
			ul_violation(ul, "CONNECT_REQUEST with a status", ev->event);
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		if (ul->role != UL_ACTIVE)
			ul_violation(ul, "CONNECT_REPLY without a connect", ev->event);
		else if (reply)
			ul_violation(ul, "second CONNECT_REPLY", ev->event);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		if (ul->role != UL_PASSIVE || !ul->accepted)
			ul_violation(ul, "ESTABLISHED without an accept", ev->event);
		else if (est)
			ul_violation(ul, "second ESTABLISHED", ev->event);
		break;
	case IW_CM_EVENT_DISCONNECT:
		if (disc)
			ul_violation(ul, "second DISCONNECT", ev->event);
		else if (!(ul->role == UL_ACTIVE && reply && ul->rec[0].status == 0) &&
			 !(ul->role == UL_PASSIVE && est))
			ul_violation(ul, "DISCONNECT before the connection was up", ev->event);
		break;
	case IW_CM_EVENT_CLOSE:
		if (!disc)
			ul_violation(ul, "CLOSE before DISCONNECT", ev->event);
		break;
	default:
		ul_violation(ul, "unknown event", ev->event);
		return;
	}
	if (ul->role == UL_ACTIVE && reply && ul->rec[0].status &&
	    ev->event != IW_CM_EVENT_CONNECT_REPLY)
		ul_violation(ul, "event after a failed CONNECT_REPLY", ev->event);
}

static int ul_event_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct ul *ul = container_of(id, struct ul, id);
	struct ul_rec *r;

	spin_lock(&ul->lock);
	ul_check(ul, ev);
	if (ev->event <= IW_CM_EVENT_CLOSE)
		ul->n[ev->event]++;
	if (ul->nr < UL_MAX_REC) {
		r = &ul->rec[ul->nr++];
		r->event = ev->event;
		r->status = ev->status;
		r->provider_data = ev->provider_data;
		r->ird = ev->ird;
		r->ord = ev->ord;
		r->pdata_len = ev->private_data ? ev->private_data_len : 0;
		memcpy(r->pdata, ev->private_data,
		       min_t(u8, r->pdata_len, CMKIT_PEER_PDATA_MAX));
		memcpy(&r->local, &ev->local_addr, sizeof(r->local));
		memcpy(&r->remote, &ev->remote_addr, sizeof(r->remote));
	}
	spin_unlock(&ul->lock);
	wake_up_all(&ul->wait);
	return ev->event == IW_CM_EVENT_CONNECT_REQUEST ? ul->req_rc : 0;
}

static void ul_add_ref(struct iw_cm_id *id)
{
	struct ul *ul = container_of(id, struct ul, id);

	spin_lock(&ul->lock);
	ul->refs++;
	spin_unlock(&ul->lock);
}

static void ul_rem_ref(struct iw_cm_id *id)
{
	struct ul *ul = container_of(id, struct ul, id);

	spin_lock(&ul->lock);
	if (ul->refs-- <= 0)
		ul_violation(ul, "rem_ref without add_ref", 0);
	spin_unlock(&ul->lock);
	wake_up_all(&ul->wait);
}

static int ul_refs(struct ul *ul)
{
	int refs;

	spin_lock(&ul->lock);
	refs = ul->refs;
	spin_unlock(&ul->lock);
	return refs;
}

static unsigned int ul_count(struct ul *ul, enum iw_cm_event_type event)
{
	unsigned int n;

	spin_lock(&ul->lock);
	n = ul->n[event];
	spin_unlock(&ul->lock);
	return n;
}

/* Wait for the @nth upcall of type @event; copy its record if kept. */
static int ul_wait(struct ul *ul, enum iw_cm_event_type event, struct ul_rec *out)
{
	unsigned int i;

	if (!wait_event_timeout(ul->wait, ul_count(ul, event) > 0, cmkit_test_timeout())) {
		pr_warn("cmkit_test: irdma %s: no iw event %d in time\n", ul->name, event);
		return -ETIMEDOUT;
	}
	spin_lock(&ul->lock);
	for (i = 0; i < ul->nr; i++) {
		if (ul->rec[i].event == event) {
			*out = ul->rec[i];
			break;
		}
	}
	spin_unlock(&ul->lock);
	return 0;
}

static int ul_wait_released(struct ul *ul)
{
	return wait_event_timeout(ul->wait, ul_refs(ul) == 0, cmkit_test_timeout()) ?
	       0 : -ETIMEDOUT;
}

static int ul_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

/* Free only what cmkit no longer holds: a leak beats a use after free. */
static void ul_res_free(struct kunit_resource *res)
{
	struct ul *ul = res->data;

	if (ul->role == UL_LISTEN && ul->id.provider_data)
		cmkit_irdma_destroy_listen(&ul->id);
	if (ul_wait_released(ul)) {
		pr_err("cmkit_test: irdma %s: still referenced at the end: leaked\n",
		       ul->name);
		return;
	}
	kfree(ul);
}

static struct ul *ul_create(struct kunit *test, const char *name, enum ul_role role,
			    const struct sockaddr_in *local,
			    const struct sockaddr_in *remote)
{
	struct ul *ul;

	ul = kzalloc_obj(*ul, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ul);
	ul->name = name;
	ul->role = role;
	spin_lock_init(&ul->lock);
	init_waitqueue_head(&ul->wait);
	ul->id.event_handler = ul_event_handler;
	ul->id.add_ref = ul_add_ref;
	ul->id.rem_ref = ul_rem_ref;
	ul->id.context = ul;
	if (local) {
		memcpy(&ul->id.local_addr, local, sizeof(*local));
		memcpy(&ul->id.m_local_addr, local, sizeof(*local));
	}
	if (remote) {
		memcpy(&ul->id.remote_addr, remote, sizeof(*remote));
		memcpy(&ul->id.m_remote_addr, remote, sizeof(*remote));
	}
	if (!kunit_alloc_resource(test, ul_res_init, ul_res_free, GFP_KERNEL, ul)) {
		kfree(ul);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	return ul;
}

static void ul_expect_clean(struct kunit *test, struct ul *ul)
{
	KUNIT_EXPECT_EQ(test, ul_wait_released(ul), 0);
	KUNIT_EXPECT_EQ_MSG(test, ul->violations, 0U, "%s", ul->why);
}

/* @ul's connection ends in a reset: DISCONNECT(-ECONNRESET), CLOSE, no more. */
static void expect_ended_by_reset(struct kunit *test, struct ul *ul)
{
	struct ul_rec r;

	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, ul->nr, 3U);
	ul_expect_clean(test, ul);
}

/* Every node the test made is freed, exactly once (refcount_t catches twice). */
static void expect_nodes_freed(struct kunit *test, struct irdma_cm_core *core,
			       int made0, int freed0)
{
	struct irdma_cm_stats *s = &core->stats;

	wait_event_timeout(core->wait, atomic_read(&s->nodes_made) - made0 ==
			   atomic_read(&s->nodes_freed) - freed0, cmkit_test_timeout());
	KUNIT_EXPECT_EQ(test, atomic_read(&s->nodes_made) - made0,
			atomic_read(&s->nodes_freed) - freed0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->events_misordered), 0);
}

static void expect_pdata(struct kunit *test, const struct ul_rec *r, const char *want)
{
	size_t len = strlen(want) + 1;

	KUNIT_ASSERT_EQ(test, (size_t)r->pdata_len, len);
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, want, len), 0);
}

static void conn_param_init(struct iw_cm_conn_param *p, const char *pdata, u32 ird,
			    u32 ord)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = pdata ? strlen(pdata) + 1 : 0;
	p->ird = ird;
	p->ord = ord;
}

/*
 * After its last upcall (CLOSE, a failed CONNECT_REPLY) or its answer (a
 * reject), an id names no node, and the consumer API refuses it rather than
 * touching the node, which is gone.
 */
static void expect_id_released(struct kunit *test, struct ul *ul)
{
	struct iw_cm_conn_param param;
	unsigned int nr = ul->nr;

	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), -EINVAL);
	conn_param_init(&param, NULL, 1, 1);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_accept(&ul->id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&ul->id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, ul->id.provider_data);
	KUNIT_EXPECT_EQ(test, ul->nr, nr);
}

/* ---- what cmkit's irdma writes to the kernel log ------------------------ */

/*
 * A remote peer must not be able to fill the log: nothing cmkit's irdma
 * does for a peer, good or bad, logs a line (it traces).  log_mark() puts a
 * numbered line in the log; log_lines_since() counts cmkit irdma lines after
 * it, reading the log buffer back as kmsg_dump does.
 */
#define LOG_LINE_MAX	512

static int log_mark(void)
{
	static atomic_t next = ATOMIC_INIT(0);
	int n = atomic_inc_return(&next);

	pr_info("cmkit_test: irdma log mark %d\n", n);
	return n;
}

static int log_lines_since(struct kunit *test, int mark)
{
	char *line = kunit_kzalloc(test, LOG_LINE_MAX, GFP_KERNEL);
	struct kmsg_dump_iter iter;
	char want[48];
	int count = 0;
	bool seen = false;
	size_t len;

	if (!line)
		return -ENOMEM;
	snprintf(want, sizeof(want), "cmkit_test: irdma log mark %d\n", mark);
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, LOG_LINE_MAX - 1, &len)) {
		line[len] = '\0';
		if (!seen) {
			seen = strstr(line, want);
			continue;
		}
		if (strstr(line, "cmkit: irdma: ")) {
			if (!count)
				kunit_info(test, "logged: %s", line);
			count++;
		}
	}
	return seen ? count : -ENOENT;
}

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
static void quiet_traces(struct kunit *test)
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
static struct irdma_cm_core *private_core(struct kunit *test)
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

/*
 * One event on a fresh node whose upper layer is in @ul_state (for
 * @connected, a CONNECTED event first takes it from CONN_SENT to
 * established, with its CONNECT_REPLY recorded before the ones expected).
 */
struct event_case {
	enum irdma_cm_event_type type;
	enum irdma_cm_ul_state ul_state;
	enum ul_role role;
	bool ends;			/* drops the base reference */
	enum iw_cm_event_type up1, up2;	/* expected upcalls (0: none) */
	int status1;
	bool connected;
};

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

static void irdma_every_event_type_releases_its_reference(struct kunit *test)
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

#define ORDER_NODES	100
#define ORDER_EVENTS	100

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
static void irdma_10000_events_keep_per_node_order(struct kunit *test)
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

/*
 * A node's events are handled in batches of at most cm_core->event_batch:
 * with the event workqueue held up, node A gets 10 events, then node B 3;
 * with a bound of 3 the handler must take A's first 3, yield to B's work
 * (queued behind A's), take B's 3, then A's rest, 3 at a time, each node
 * in posting order.
 */
#define BATCH_BOUND	3
#define BATCH_A		10
#define BATCH_B		3

struct batch_rec {
	struct completion release;	/* lets the event workqueue go */
	struct work_struct blocker;
	unsigned int n;
	struct irdma_cm_node *node[BATCH_A + BATCH_B];
	u32 seq[BATCH_A + BATCH_B];
};

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

static void irdma_batches_keep_node_order_and_yield_after_the_bound(struct kunit *test)
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

/* ---- cmkit connects to siw ---------------------------------------------- */

static const char cmkit_req[] = "cmkit-irdma-request";
static const char siw_rep[] = "siw-accepts";
static const char siw_rej[] = "siw-rejects";

struct connect_param {
	u8 mpa_version;
};

static const struct connect_param connect_params[] = {
	{ CMKIT_MPA_REV2 },
	{ CMKIT_MPA_REV1 },
};

static void connect_param_desc(const struct connect_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "MPA v%u", p->mpa_version);
}

KUNIT_ARRAY_PARAM(irdma_mpa, connect_params, connect_param_desc);

/* Connect @ul (created here) from siw0's address to @dst with @version. */
static struct ul *cmkit_connect(struct kunit *test, struct irdma_cm_core *core,
				const struct sockaddr_in *dst, u8 version)
{
	struct iw_cm_conn_param param;
	struct sockaddr_in src;
	u8 saved = core->mpa_version;
	struct ul *ul;
	int rc;

	cmkit_test_addr(siw_param, 0, &src);
	ul = ul_create(test, "cmkit client", UL_ACTIVE, &src, dst);
	conn_param_init(&param, cmkit_req, 4, 4);
	core->mpa_version = version;
	rc = cmkit_irdma_connect(core, &ul->id, &param);
	core->mpa_version = saved;
	KUNIT_ASSERT_EQ(test, rc, 0);
	return ul;
}

static void irdma_connects_siw_accepts_then_cmkit_closes(struct kunit *test)
{
	const struct connect_param *cp = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int mark = log_mark();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	srv->accept_pdata = siw_rep;
	srv->accept_pdata_len = sizeof(siw_rep);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);

	ul = cmkit_connect(test, core, &addr, cp->mpa_version);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	KUNIT_EXPECT_EQ(test, pr.pdata_len, (u8)sizeof(cmkit_req));
	KUNIT_EXPECT_EQ(test, memcmp(pr.pdata, cmkit_req, sizeof(cmkit_req)), 0);

	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	expect_pdata(test, &r, siw_rep);
	/*
	 * We asked for 4/4.  Revision 2: siw's reply (IRD 4, relaxed; ORD 1,
	 * cm_peer's initiator_depth) leaves our ORD and lowers our IRD to its
	 * ORD, the most reads it will issue.  Revision 1 negotiates nothing.
	 */
	KUNIT_EXPECT_EQ(test, r.ird, cp->mpa_version == 2 ? 1 : 4);
	KUNIT_EXPECT_EQ(test, r.ord, 4);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&r.remote)->sin_port),
			ntohs(addr.sin_port));
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_EXPECT_TRUE(test, pr.child);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_CLOSE), 1U);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, ul);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

static void irdma_connects_siw_accepts_then_cmkit_resets(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
	expect_ended_by_reset(test, ul);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	expect_nodes_freed(test, core, made0, freed0);
}

static void irdma_connects_siw_rejects_with_private_data(struct kunit *test)
{
	const struct connect_param *cp = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	srv->reject = true;
	srv->reject_pdata = siw_rej;
	srv->reject_pdata_len = sizeof(siw_rej);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);

	ul = cmkit_connect(test, core, &addr, cp->mpa_version);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNREFUSED);
	expect_pdata(test, &r, siw_rej);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, ul);
}

/* TCP refuses the connection (RST to our SYN): the cause reaches the upper layer. */
static void irdma_connect_without_listener_is_refused_once(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNREFUSED);
	/* Not our own request's private data handed back as the peer's. */
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, ul);
}

/* ---- siw connects to cmkit ----------------------------------------------- */

static const char siw_req[] = "siw-requests";
static const char cmkit_rep[] = "cmkit-accepts";
static const char cmkit_rej[] = "cmkit-rejects";

static struct ul *cmkit_listen(struct kunit *test, struct irdma_cm_core *core,
			       const struct sockaddr_in *addr)
{
	struct ul *lul = ul_create(test, "cmkit listener", UL_LISTEN, addr, NULL);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	return lul;
}

/* siw's client connects to @addr; the listener gets the request. */
static struct cmkit_peer *siw_client_connects(struct kunit *test, struct ul *lul,
					      const struct sockaddr_in *addr,
					      struct ul_rec *req)
{
	struct cmkit_peer *cli = cmkit_peer_create(test, "siw client");
	struct sockaddr_in dst = *addr;

	KUNIT_ASSERT_EQ(test, cmkit_peer_resolve(cli, &dst), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_connect(cli, siw_req, sizeof(siw_req)), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, req), 0);
	KUNIT_EXPECT_EQ(test, req->status, 0);
	expect_pdata(test, req, siw_req);
	/*
	 * cm_peer's responder_resources and initiator_depth: siw's enhanced
	 * request says IRD 1 and ORD 1, and both reach the upper layer (as
	 * siw's CONNECT_REQUEST carries them).
	 */
	KUNIT_EXPECT_EQ(test, req->ird, 1);
	KUNIT_EXPECT_EQ(test, req->ord, 1);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&req->local)->sin_port),
			ntohs(addr->sin_port));
	KUNIT_EXPECT_EQ(test, ntohl(((struct sockaddr_in *)&req->remote)->sin_addr.s_addr),
			ntohl(addr->sin_addr.s_addr));
	KUNIT_EXPECT_NOT_NULL(test, req->provider_data);
	return cli;
}

static struct ul *cmkit_accept(struct kunit *test, const struct ul_rec *req)
{
	struct ul *child = ul_create(test, "cmkit child", UL_PASSIVE, NULL, NULL);
	struct iw_cm_conn_param param;

	conn_param_init(&param, cmkit_rep, 16, 16);
	child->id.provider_data = req->provider_data;
	child->accepted = true;
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	return child;
}

static void siw_connects_cmkit_accepts_then_siw_closes(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int mark = log_mark();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct cmkit_peer *cli;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req, r;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	cli = siw_client_connects(test, lul, &addr, &req);
	child = cmkit_accept(test, &req);

	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	/* Our ORD 16 lowered to siw's IRD 1; our IRD stays 16. */
	KUNIT_EXPECT_EQ(test, r.ird, 16);
	KUNIT_EXPECT_EQ(test, r.ord, 1);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_EXPECT_EQ(test, pr.pdata_len, (u8)sizeof(cmkit_rep));
	KUNIT_EXPECT_EQ(test, memcmp(pr.pdata, cmkit_rep, sizeof(cmkit_rep)), 0);

	KUNIT_ASSERT_EQ(test, rdma_disconnect(cli->id), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_CLOSE), 1U);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	ul_expect_clean(test, child);

	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, ul_count(lul, IW_CM_EVENT_CONNECT_REQUEST), 1U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, child);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(cli, CMKIT_ERROR_EVENTS), 0U);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

static void siw_connects_cmkit_rejects(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct cmkit_peer *cli;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	cli = siw_client_connects(test, lul, &addr, &req);
	child = ul_create(test, "cmkit rejected child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, cmkit_rej, sizeof(cmkit_rej)), 0);

	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_REJECTED, &pr), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(cli, BIT(RDMA_CM_EVENT_ESTABLISHED)), 0U);
	KUNIT_EXPECT_EQ(test, child->nr, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, child);
}

/* ---- misbehaving peers: plain kernel TCP sockets ------------------------ */

struct raw_peer {
	struct socket *lsock;
	struct socket *sock;
};

/*
 * A listener is released with nothing left in its accept queue.  Releasing
 * it with children there makes TCP take each child's sk_callback_lock under
 * the child's (kernel socket) spinlock (inet_csk_listen_stop() ->
 * inet_child_forget()), and lockdep holds that order against siw, which
 * reads the same lock class with softirqs on: the report of KI-2 (docs/known-issues.md),
 * seen on 6.1 whenever this suite and cmkit_userspace shared a boot.
 */
static void raw_release_listener(struct socket *lsock)
{
	struct socket *child;

	while (!kernel_accept(lsock, &child, O_NONBLOCK))
		sock_release(child);
	sock_release(lsock);
}

static void raw_res_free(struct kunit_resource *res)
{
	struct raw_peer *raw = res->data;

	if (raw->sock)
		sock_release(raw->sock);
	if (raw->lsock)
		raw_release_listener(raw->lsock);
	kfree(raw);
}

static struct raw_peer *raw_create(struct kunit *test)
{
	struct raw_peer *raw = kzalloc_obj(*raw, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, raw);
	if (!kunit_alloc_resource(test, ul_res_init, raw_res_free, GFP_KERNEL, raw)) {
		kfree(raw);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	return raw;
}

static void raw_timeouts(struct socket *sock)
{
	sock->sk->sk_rcvtimeo = cmkit_test_timeout();
	sock->sk->sk_sndtimeo = cmkit_test_timeout();
}

static void raw_listen(struct kunit *test, struct raw_peer *raw, struct sockaddr_in *addr)
{
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw->lsock), 0);
	sock_set_reuseaddr(raw->lsock->sk);
	raw_timeouts(raw->lsock);
	KUNIT_ASSERT_EQ(test, kernel_bind(raw->lsock, CMKIT_KSOCKADDR(addr), sizeof(*addr)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(raw->lsock, 4), 0);
}

static void raw_accept(struct kunit *test, struct raw_peer *raw)
{
	KUNIT_ASSERT_EQ(test, kernel_accept(raw->lsock, &raw->sock, 0), 0);
	raw_timeouts(raw->sock);
}

static void raw_connect(struct kunit *test, struct raw_peer *raw, struct sockaddr_in *addr)
{
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw->sock), 0);
	raw_timeouts(raw->sock);
	KUNIT_ASSERT_EQ(test, kernel_connect(raw->sock, CMKIT_KSOCKADDR(addr), sizeof(*addr), 0),
			0);
}

static int raw_send(struct raw_peer *raw, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_sendmsg(raw->sock, &msg, &iov, 1, len);
}

/* Read until @len bytes, EOF or error; returns bytes read or the error. */
static int raw_recv(struct raw_peer *raw, u8 *buf, size_t len)
{
	struct msghdr msg = {};
	size_t got = 0;
	struct kvec iov;
	int rc;

	while (got < len) {
		iov.iov_base = buf + got;
		iov.iov_len = len - got;
		rc = kernel_recvmsg(raw->sock, &msg, &iov, 1, len - got, 0);
		if (rc <= 0)
			return got ? got : rc;
		got += rc;
	}
	return got;
}

/* Receive one whole MPA frame of @kind into @buf and decode it into @f. */
static void raw_recv_frame(struct kunit *test, struct raw_peer *raw,
			   enum cmkit_mpa_kind kind, u8 *buf, struct cmkit_mpa_frame *f)
{
	int n;

	n = raw_recv(raw, buf, CMKIT_MPA_HDR_LEN);
	KUNIT_ASSERT_EQ(test, n, CMKIT_MPA_HDR_LEN);
	KUNIT_ASSERT_EQ(test, irdma_parse_mpa(buf, n, kind, f), 0);
	n += raw_recv(raw, buf + n, cmkit_get_be16(buf + 18));
	KUNIT_ASSERT_EQ(test, irdma_parse_mpa(buf, n, kind, f), n);
}

static u8 *raw_frame_buf(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, CMKIT_MPA_MAX_FRAME, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return buf;
}

/* Receive cmkit's MPA request and check it with the shared parser. */
static void raw_recv_request(struct kunit *test, struct raw_peer *raw)
{
	u8 *buf = raw_frame_buf(test);
	struct cmkit_mpa_frame f;

	raw_recv_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_TRUE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.ird, 4);
	KUNIT_EXPECT_EQ(test, f.ord, 4);
	KUNIT_EXPECT_EQ(test, f.ird_ctrl, 0);	/* no peer-to-peer mode */
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_req));
	KUNIT_EXPECT_EQ(test, memcmp(f.pdata, cmkit_req, sizeof(cmkit_req)), 0);
}

/* Send an enhanced MPA frame of @kind (IRD/ORD 2/2), a reject if @reject. */
static void raw_send_mpa(struct kunit *test, struct raw_peer *raw, enum cmkit_mpa_kind kind,
			 bool reject, const void *pdata, u16 pdata_len)
{
	u8 *buf = raw_frame_buf(test);
	int n;

	n = irdma_build_mpa_v2(buf, CMKIT_MPA_MAX_FRAME, kind, reject, 2, 2, 0, 0,
			       pdata, pdata_len);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
}

/* cmkit reset the connection: the peer reads the reset, and nothing before it. */
static void raw_expect_reset(struct kunit *test, struct raw_peer *raw)
{
	u8 byte;

	KUNIT_EXPECT_EQ(test, raw_recv(raw, &byte, 1), -ECONNRESET);
}

/*
 * A connect the listener answers with a reset at once: the reset may reach
 * the socket before the connect returns (-ECONNRESET there), or after.
 */
static void raw_connect_expect_reset(struct kunit *test, struct raw_peer *raw,
				     struct sockaddr_in *addr)
{
	int rc;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw->sock), 0);
	raw_timeouts(raw->sock);
	rc = kernel_connect(raw->sock, CMKIT_KSOCKADDR(addr), sizeof(*addr), 0);
	if (rc != -ECONNRESET) {
		KUNIT_ASSERT_EQ(test, rc, 0);
		raw_expect_reset(test, raw);
	}
}

static void raw_reset(struct raw_peer *raw)
{
	sock_no_linger(raw->sock->sk);
	sock_release(raw->sock);
	raw->sock = NULL;
}

/* cmkit connects to @raw, listening on @addr, which accepts and reads the request. */
static struct ul *raw_server_gets_request(struct kunit *test, struct irdma_cm_core *core,
					  struct raw_peer *raw, struct sockaddr_in *addr)
{
	struct ul *ul;

	raw_listen(test, raw, addr);
	ul = cmkit_connect(test, core, addr, CMKIT_MPA_REV2);
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	return ul;
}

static const char raw_rep[] = "raw-accepts";
static const char raw_req[] = "raw-requests";

/* cmkit connects to @raw, which accepts with IRD/ORD 2/2: @r is the reply. */
static struct ul *raw_peer_accepts(struct kunit *test, struct irdma_cm_core *core,
				   struct raw_peer *raw, struct sockaddr_in *addr,
				   struct ul_rec *r)
{
	struct ul *ul = raw_server_gets_request(test, core, raw, addr);

	raw_send_mpa(test, raw, CMKIT_MPA_REPLY, false, raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, r), 0);
	KUNIT_ASSERT_EQ(test, r->status, 0);
	return ul;
}

static void irdma_established_peer_resets(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	int mark = log_mark();
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_peer_accepts(test, core, raw, &addr, &r);
	expect_pdata(test, &r, raw_rep);
	KUNIT_EXPECT_EQ(test, r.ird, 2);	/* lowered to the peer's ORD */
	KUNIT_EXPECT_EQ(test, r.ord, 2);	/* lowered to the peer's IRD */

	/* RDMA traffic from the peer is dropped, not mistaken for a frame. */
	KUNIT_ASSERT_EQ(test, raw_send(raw, "0123456789", 10), 10);
	raw_reset(raw);
	expect_ended_by_reset(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/* An orderly close the peer never answers with its FIN ends with a reset. */
static void irdma_reset_ends_a_close_the_peer_ignores(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;
	u8 byte;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_peer_accepts(test, core, raw, &addr, &r);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	/* Our FIN arrives; the peer keeps its half open. */
	KUNIT_EXPECT_EQ(test, raw_recv(raw, &byte, 1), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_DISCONNECT), 0U);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
	expect_ended_by_reset(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
}

/* Wait until cmkit's listener has made a node for a peer's connection. */
static void wait_node_made(struct kunit *test, struct irdma_cm_core *core, int made0)
{
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(core->wait,
						     atomic_read(&core->stats.nodes_made) > made0,
						     cmkit_test_timeout()), 0,
			    "the listener made no node for the connection");
}

/*
 * A peer that connected but never finished its request does not keep a
 * destroyed listener (and its id) alive: it is reset.
 */
static void irdma_destroy_listen_resets_a_peer_without_request(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	struct sockaddr_in addr;
	struct ul *lul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, CMKIT_MPA_KEY_REQ, 8), 8);	/* half a key */
	wait_node_made(test, core, made0);

	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	raw_expect_reset(test, raw);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	expect_nodes_freed(test, core, made0, freed0);
}

static void irdma_peer_goes_away_mid_mpa(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;
	int n;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_server_gets_request(test, core, raw, &addr);
	n = irdma_build_mpa_v2(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REPLY, 0, 2, 2, 0, 0,
			       raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n - 5), n - 5);	/* then FIN */
	sock_release(raw->sock);
	raw->sock = NULL;
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
}

struct garbage_param {
	const char *desc;
	u8 bytes[32];
	int len;
};

static const struct garbage_param garbage_params[] = {
	{ "HTTP", "HTTP/1.1 200 OK\r\nX: y\r\n", 24 },
	{ "request key in a reply", "MPA ID Req Frame\x00\x01\x00\x00", 20 },
	{ "revision 3", "MPA ID Rep Frame\x00\x03\x00\x00", 20 },
	{ "private data 65535", "MPA ID Rep Frame\x00\x02\xff\xff", 20 },
	{ "markers", "MPA ID Rep Frame\x80\x01\x00\x00", 20 },
	{ "enhanced without IRD/ORD", "MPA ID Rep Frame\x10\x02\x00\x02xy", 22 },
	{ "revision 1 to an enhanced request", "MPA ID Rep Frame\x00\x01\x00\x00", 20 },
	/* A valid frame, but our IRD 4 cannot serve the peer's ORD 8. */
	{ "ORD above our IRD",
	  "MPA ID Rep Frame\x10\x02\x00\x04\x00\x08\x00\x08", 24 },
};

static void garbage_param_desc(const struct garbage_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_garbage, garbage_params, garbage_param_desc);

static void irdma_garbage_instead_of_mpa_reply_aborts(struct kunit *test)
{
	const struct garbage_param *g = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	int mark = log_mark();
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_server_gets_request(test, core, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, g->bytes, g->len), g->len);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	raw_expect_reset(test, raw);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

enum bad_request {
	BAD_HTTP,		/* not MPA at all */
	BAD_REPLY_KEY,		/* a reply where a request belongs */
	BAD_HALF_THEN_FIN,	/* the peer goes away mid-request */
};

static const char * const bad_request_names[] = {
	[BAD_HTTP] = "HTTP",
	[BAD_REPLY_KEY] = "reply key in a request",
	[BAD_HALF_THEN_FIN] = "half a request, then FIN",
};

static const enum bad_request bad_requests[] = {
	BAD_HTTP, BAD_REPLY_KEY, BAD_HALF_THEN_FIN,
};

static void bad_request_desc(const enum bad_request *p, char *desc)
{
	strscpy(desc, bad_request_names[*p], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_bad_request, bad_requests, bad_request_desc);

/* What a misbehaving initiator sends cmkit's listener: no upcall, no node left. */
static void irdma_bad_request_to_listener_aborts_silently(struct kunit *test)
{
	const enum bad_request *bad = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	static const char junk[] = "GET / HTTP/1.0\r\nHost: cmkit\r\n\r\n";
	u8 *buf = raw_frame_buf(test);
	int mark = log_mark();
	struct sockaddr_in addr;
	struct ul *lul;
	int n = 0;

	switch (*bad) {
	case BAD_HTTP:
		n = sizeof(junk);
		memcpy(buf, junk, n);
		break;
	case BAD_REPLY_KEY:
		n = irdma_build_mpa_v1(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REPLY, 0, NULL, 0);
		break;
	case BAD_HALF_THEN_FIN:
		n = irdma_build_mpa_v2(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REQUEST, 0, 1, 1,
				       0, 0, siw_req, sizeof(siw_req)) - 5;
		break;
	}
	KUNIT_ASSERT_GT(test, n, 0);

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	if (*bad == BAD_HALF_THEN_FIN)
		kernel_sock_shutdown(raw->sock, SHUT_WR);
	raw_expect_reset(test, raw);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/* ---- private data: 255 bytes, what one upcall carries, both ways -------- */

struct pdata_param {
	const char *desc;
	bool reply;		/* in a reply to cmkit's connect (else a request) */
	bool reject;		/* the reply rejects */
	u16 len;
};

static const struct pdata_param pdata_params[] = {
	{ "request of 255 bytes", false, false, 255 },
	{ "reply of 255 bytes", true, false, 255 },
	{ "reply of 256 bytes", true, false, 256 },
	{ "reject of 256 bytes", true, true, 256 },
	{ "reply of 300 bytes", true, false, 300 },
};

static void pdata_param_desc(const struct pdata_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_pdata, pdata_params, pdata_param_desc);

/*
 * Up to 255 bytes of the peer's private data reach the upper layer whole;
 * more than that ends the connection, in a request (no upcall) and in a
 * reply alike (CONNECT_REPLY(-ECONNRESET), no private data): nothing is cut.
 */
static void irdma_peer_private_data_whole_or_refused(struct kunit *test)
{
	const struct pdata_param *p = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *pdata = raw_frame_buf(test);
	struct sockaddr_in addr;
	struct ul *lul, *ul;
	struct ul_rec r;
	int i;

	for (i = 0; i < p->len; i++)
		pdata[i] = i;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	if (!p->reply) {
		lul = cmkit_listen(test, core, &addr);
		raw_connect(test, raw, &addr);
		raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, pdata, p->len);
		KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &r), 0);
		KUNIT_EXPECT_EQ(test, r.pdata_len, (u8)p->len);
		KUNIT_EXPECT_EQ(test, memcmp(r.pdata, pdata, CMKIT_PEER_PDATA_MAX), 0);
		ul = ul_create(test, "rejected child", UL_PASSIVE, NULL, NULL);
		ul->id.provider_data = r.provider_data;
		KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&ul->id, NULL, 0), 0);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		ul_expect_clean(test, lul);
		expect_nodes_freed(test, core, made0, freed0);
		return;
	}

	ul = raw_server_gets_request(test, core, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REPLY, p->reject, pdata, p->len);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	if (p->len <= U8_MAX) {
		KUNIT_EXPECT_EQ(test, r.status, 0);
		KUNIT_EXPECT_EQ(test, r.pdata_len, (u8)p->len);
		KUNIT_EXPECT_EQ(test, memcmp(r.pdata, pdata, CMKIT_PEER_PDATA_MAX), 0);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
		expect_ended_by_reset(test, ul);
	} else {
		KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
		KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
		if (!r.status) {	/* cut short and taken: end it */
			KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
			expect_ended_by_reset(test, ul);
			return;
		}
		raw_expect_reset(test, raw);
		KUNIT_EXPECT_EQ(test, ul->nr, 1U);
		ul_expect_clean(test, ul);
	}
	expect_nodes_freed(test, core, made0, freed0);
}

/* What cmkit sends is held to the same limit: more than 255 bytes is refused. */
static void irdma_private_data_over_255_not_sent(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *pdata = raw_frame_buf(test);
	struct sockaddr_in addr, src, nobody;
	struct iw_cm_conn_param param;
	struct ul *ul, *lul, *child;
	struct ul_rec req;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, cmkit_test_port(), &nobody);
	cmkit_test_addr(siw_param, 0, &src);
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = U8_MAX + 1;

	/* A connect: refused before anything is made. */
	ul = ul_create(test, "oversized connect", UL_ACTIVE, &src, &nobody);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), made0);

	/* An accept: refused, and the request still needs its answer. */
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "oversized accept", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), -EINVAL);
	param.private_data_len = U8_MAX;
	child->accepted = true;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &req), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&child->id, true), 0);
	expect_ended_by_reset(test, child);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
}

/* ---- a CONNECT_REQUEST the upper layer refuses --------------------------- */

/*
 * iw_cm's contract: a non-zero answer to CONNECT_REQUEST does not consume
 * the request; the consumer then rejects it (iw_cm's cm_conn_req_handler()
 * calls iw_cm_reject() on the child and destroys it).  So the node must
 * outlive the upcall until that reject, and the peer gets an MPA reject
 * frame, not a reset.
 */
static void irdma_refused_request_is_rejected_by_the_consumer(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	lul->req_rc = -EBUSY;
	raw_connect(test, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	/* The upcall has returned -EBUSY: the node awaits the consumer's answer. */
	flush_workqueue(core->event_wq);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&core->stats.nodes_freed), freed0,
			    "the refused request's node was freed before its answer");

	child = ul_create(test, "refusing child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, cmkit_rej, sizeof(cmkit_rej)), 0);
	raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
	KUNIT_EXPECT_TRUE(test, f.flags & CMKIT_MPA_FLAG_REJECT);
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_rej));
	KUNIT_EXPECT_EQ(test, memcmp(f.pdata, cmkit_rej, sizeof(cmkit_rej)), 0);
	KUNIT_EXPECT_EQ(test, raw_recv(raw, buf, 1), 0);	/* then our FIN */
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	KUNIT_EXPECT_EQ(test, child->nr, 0U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, child);
}

/* ---- a SYN nobody answers ------------------------------------------------ */

static void syn_retries_restore(struct kunit_resource *res)
{
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_syn_retries, (u8)(uintptr_t)res->data);
}

/*
 * TCP gives up on a SYN nobody answers (an address on a dummy interface,
 * where packets vanish): the upper layer learns -ETIMEDOUT, not a reset.
 * One SYN retry (as net.ipv4.tcp_syn_retries=1) makes that about 3 s.
 */
static void irdma_connect_syn_timeout_reports_etimedout(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	u8 saved = READ_ONCE(init_net.ipv4.sysctl_tcp_syn_retries);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, ul_res_init,
							 syn_retries_restore, GFP_KERNEL,
							 (void *)(uintptr_t)saved));
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_syn_retries, 1);
	/* The no-RDMA dummy's subnet, an address nobody has. */
	cmkit_test_nodev_addr(cmkit_test_port(), &addr);
	addr.sin_addr.s_addr = htonl(ntohl(addr.sin_addr.s_addr) + 1);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
}

/* ---- races pinned by hooks (private cores) ------------------------------- */

/**
 * struct pin - stop a private core at one hook point and run something there
 * @test: the test
 * @at: where to stop (the first time only)
 * @fired: @at was reached
 * @cleanup: cleanup runs on @work, started at @at
 * @work: runs cmkit_irdma_cleanup_cm_core() for @cleanup
 * @settled: cleanup reached a wait for live objects, or returned
 * @done: cleanup returned
 * @core: the core
 * @ul: an upper layer whose references cleanup's return is checked against
 * @refs_at_return: @ul's references when cleanup returned
 * @freed_at_return: nodes freed when cleanup returned
 * @run: called at @at instead of starting cleanup (may be NULL)
 * @data: for @run
 * @arg: the hook point's argument, for @run
 */
struct pin {
	struct kunit *test;
	enum irdma_cm_hook at;
	bool fired;
	bool cleanup;
	struct work_struct work;
	struct completion settled;
	struct completion done;
	struct irdma_cm_core *core;
	struct ul *ul;
	int refs_at_return;
	int freed_at_return;
	void (*run)(struct pin *pin);
	void *data;
	void *arg;
};

static void pin_cleanup_work(struct work_struct *work)
{
	struct pin *pin = container_of(work, struct pin, work);

	cmkit_irdma_cleanup_cm_core(pin->core);
	pin->refs_at_return = pin->ul ? ul_refs(pin->ul) : 0;
	pin->freed_at_return = atomic_read(&pin->core->stats.nodes_freed);
	complete_all(&pin->settled);
	complete_all(&pin->done);
}

static void pin_hook(struct irdma_cm_core *core, enum irdma_cm_hook where, void *arg)
{
	struct pin *pin = core->test_data;

	if (where == IRDMA_HOOK_CLEANUP_WAITS) {
		complete_all(&pin->settled);
		return;
	}
	if (where != pin->at || pin->fired)
		return;
	pin->fired = true;
	pin->arg = arg;
	if (pin->run) {
		pin->run(pin);
		return;
	}
	/* Cleanup runs as far as it can while this path stands still here. */
	queue_work(system_unbound_wq, &pin->work);
	KUNIT_EXPECT_NE_MSG(pin->test, wait_for_completion_timeout(&pin->settled,
								   cmkit_test_timeout()), 0,
			    "cleanup neither returned nor waited");
}

static void pin_res_free(struct kunit_resource *res)
{
	struct pin *pin = res->data;

	WRITE_ONCE(pin->core->test_hook, NULL);
	if (pin->cleanup && pin->fired)
		wait_for_completion(&pin->done);
	kfree(pin);
}

/* Pin @core at @at: cleanup starts there (or @run runs there). */
static struct pin *pin_core(struct kunit *test, struct irdma_cm_core *core,
			    enum irdma_cm_hook at, void (*run)(struct pin *pin))
{
	struct pin *pin = kzalloc_obj(*pin, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pin);
	pin->test = test;
	pin->at = at;
	pin->core = core;
	pin->run = run;
	pin->cleanup = !run;
	INIT_WORK(&pin->work, pin_cleanup_work);
	init_completion(&pin->settled);
	init_completion(&pin->done);
	if (!kunit_alloc_resource(test, ul_res_init, pin_res_free, GFP_KERNEL, pin)) {
		kfree(pin);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	core->test_data = pin;
	WRITE_ONCE(core->test_hook, pin_hook);
	return pin;
}

static void pin_wait_cleanup(struct kunit *test, struct pin *pin)
{
	KUNIT_ASSERT_TRUE(test, pin->fired);
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&pin->done,
							      cmkit_test_timeout()), 0,
			    "cleanup did not return");
}

/*
 * Cleanup while a connect has made its node but has no socket yet: the
 * connect fails (-ENODEV), nothing is upcalled, and cleanup returns with
 * nothing left.  (Before: the connect went on after cleanup had reaped the
 * node, and a peer that never replied would have left cleanup waiting.)
 */
static void irdma_cleanup_while_connect_has_no_socket(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct pin *pin;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_CONNECT_NODE_MADE, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);	/* nobody listens */
	cmkit_test_addr(siw_param, 0, &src);
	ul = ul_create(test, "connect vs cleanup", UL_ACTIVE, &src, &addr);
	pin->ul = ul;
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), -ENODEV);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, ul->nr, 0U);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_EQ(test, pin->freed_at_return, atomic_read(&core->stats.nodes_made));
	KUNIT_EXPECT_NULL(test, ul->id.provider_data);
	ul_expect_clean(test, ul);
}

/*
 * Cleanup once the connect is issued, before cmkit_irdma_connect() returns:
 * the connect succeeded, so the upper layer gets its one CONNECT_REPLY
 * (-ECONNRESET), delivered before cleanup returns.
 */
static void irdma_cleanup_after_connect_issued(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct ul_rec r;
	struct pin *pin;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_CONNECT_ISSUED, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, 0, &src);
	raw_listen(test, raw, &addr);	/* accepts, never replies */
	ul = ul_create(test, "issued connect vs cleanup", UL_ACTIVE, &src, &addr);
	pin->ul = ul;
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), 0);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
}

/* Cleanup before a new listener is published: the listen fails, nothing is held. */
static void irdma_cleanup_before_listener_published(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct sockaddr_in addr;
	struct pin *pin;
	struct ul *lul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_LISTEN_READY, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "listener vs cleanup", UL_LISTEN, &addr, NULL);
	pin->ul = lul;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), -ENODEV);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_NULL(test, lul->id.provider_data);
	ul_expect_clean(test, lul);
}

/*
 * Cleanup right after a listener is published: it was whole when published
 * (callbacks, references, provider_data), so cleanup stops it cleanly and
 * create_listen still succeeds.  (Before: published first, then completed,
 * so cleanup released a reference never taken and freed the listener that
 * create_listen went on to fill in.)
 */
static void irdma_cleanup_right_after_listener_published(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct sockaddr_in addr;
	struct pin *pin;
	struct ul *lul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_LISTEN_PUBLISHED, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "published listener vs cleanup", UL_LISTEN, &addr, NULL);
	pin->ul = lul;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_NULL(test, lul->id.provider_data);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	ul_expect_clean(test, lul);
}

/*
 * Cleanup while a node's last reference is being dropped (off the list, not
 * yet destroyed): cleanup returns only after the node let go of its upper
 * layer.  (Before: an empty list counted as done.)
 */
static void irdma_cleanup_waits_for_a_node_being_destroyed(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = {};
	struct irdma_cm_node *node;
	struct pin *pin;
	struct ul *ul;

	ul = ul_create(test, "node vs cleanup", UL_ACTIVE, NULL, NULL);
	node = cmkit_irdma_make_cm_node(core, &ul->id, &info);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, node);
	ul->id.add_ref(&ul->id);	/* as a connect does */
	set_bit(IRDMA_CM_NODE_ID_HELD, &node->flags);
	pin = pin_core(test, core, IRDMA_HOOK_NODE_UNLISTED, NULL);
	pin->ul = ul;
	cmkit_irdma_cm_node_put_base(node);	/* the last reference */
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_EQ(test, pin->freed_at_return, 1);
	ul_expect_clean(test, ul);
}

/* An established cmkit -> siw connection on @core; @srv is siw's side. */
static struct ul *established_to_siw(struct kunit *test, struct irdma_cm_core *core,
				     struct cmkit_peer **srv)
{
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	*srv = cmkit_peer_create(test, "siw server");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(*srv, &addr), 0);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(*srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	return ul;
}

/* The test thread's side of a pinned race: @run runs there. */
struct pin_thread {
	struct completion at_hook;
	struct completion go_on;
	int rc;
};

/* At the last upcall (event workqueue): let the test thread act, then go on. */
static void pin_last_upcall(struct pin *pin)
{
	struct pin_thread *t = pin->data;

	complete(&t->at_hook);
	KUNIT_EXPECT_NE(pin->test, wait_for_completion_timeout(&t->go_on,
							       cmkit_test_timeout()), 0);
}

/*
 * The consumer closes while the handler is about to make the last upcall:
 * the id already names no node, so the close is refused (-EINVAL) without
 * touching it, and the upper layer still gets DISCONNECT and CLOSE once.
 */
static void irdma_close_during_last_upcall_is_refused(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct pin_thread t = {};
	struct cmkit_peer *srv;
	struct pin *pin;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	init_completion(&t.at_hook);
	init_completion(&t.go_on);
	ul = established_to_siw(test, core, &srv);
	pin = pin_core(test, core, IRDMA_HOOK_LAST_UPCALL, pin_last_upcall);
	pin->ul = ul;
	pin->data = &t;
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(srv), 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&t.at_hook, cmkit_test_timeout()), 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_CLOSE), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), -EINVAL);
	complete(&t.go_on);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_DISCONNECT), 1U);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 3U);
}

/* In the consumer's close, node held: the connection ends meanwhile. */
static void pin_close_holds_node(struct pin *pin)
{
	struct kunit *test = pin->test;
	struct cmkit_peer *srv = pin->data;
	struct ul_rec r;
	int freed = atomic_read(&pin->core->stats.nodes_freed);

	KUNIT_EXPECT_EQ(test, cmkit_peer_disconnect(srv), 0);
	KUNIT_EXPECT_EQ(test, ul_wait(pin->ul, IW_CM_EVENT_CLOSE, &r), 0);
	flush_workqueue(pin->core->event_wq);
	/* The close's reference keeps the node until it returns. */
	KUNIT_EXPECT_EQ(test, atomic_read(&pin->core->stats.nodes_freed), freed);
}

/*
 * The consumer's close holds the node when the connection's last upcall is
 * made: the close finds it closed (-ENOTCONN), and its reference keeps the
 * node until it returns.
 */
static void irdma_close_holding_node_across_last_upcall(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct cmkit_peer *srv;
	struct pin *pin;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	ul = established_to_siw(test, core, &srv);
	pin = pin_core(test, core, IRDMA_HOOK_API_NODE_HELD, pin_close_holds_node);
	pin->ul = ul;
	pin->data = srv;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), -ENOTCONN);
	KUNIT_EXPECT_TRUE(test, pin->fired);
	/* Freed once the close, and socket work still queued, let go. */
	expect_nodes_freed(test, core, 0, 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_CLOSE), 1U);
	ul_expect_clean(test, ul);
	expect_id_released(test, ul);
}

/* ---- failures injected at each step (the kernel's fault framework) ------ */

/* Everything @core made is gone, and every event it posted was handled. */
static void expect_core_idle(struct kunit *test, struct irdma_cm_core *core)
{
	KUNIT_EXPECT_NE_MSG(test, wait_var_event_timeout(&core->live, !atomic_read(&core->live),
							 cmkit_test_timeout()), 0,
			    "%d nodes and listeners still alive", atomic_read(&core->live));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_posted),
			atomic_read(&core->stats.events_handled));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_misordered), 0);
}

enum fault_role {
	FAULT_CORE,	/* cmkit_irdma_setup_cm_core() */
	FAULT_CONNECT,	/* cmkit_irdma_connect() and what follows, to a raw peer */
	FAULT_ACCEPT,	/* create_listen, a raw peer's request, cmkit_irdma_accept() */
};

/**
 * struct fault_param - one failure injected
 * @role: the path
 * @step: the step that fails
 * @skip: passes of the step that succeed first
 * @rc: what the call that fails returns (0: it succeeds, and the failure
 *	comes as an upcall or as a reset of the peer)
 * @what: which pass of the step, for the case's name
 */
struct fault_param {
	enum fault_role role;
	enum irdma_fault step;
	int skip;
	int rc;
	const char *what;
};

static const struct fault_param fault_params[] = {
	{ FAULT_CORE, IRDMA_FAULT_EVENT_WQ, 0, -ENOMEM, "" },
	{ FAULT_CORE, IRDMA_FAULT_SOCK_WQ, 0, -ENOMEM, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_NODE_ALLOC, 0, -ENOMEM, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_SOCK_CREATE, 0, -ENOMEM, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_BIND, 0, -EADDRINUSE, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_CONNECT, 0, -ENETUNREACH, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_MPA_ALLOC, 0, 0, "request" },
	{ FAULT_CONNECT, IRDMA_FAULT_SENDMSG, 0, 0, "request" },
	{ FAULT_CONNECT, IRDMA_FAULT_EVENT_ALLOC, 0, 0, "CONNECTED" },
	{ FAULT_ACCEPT, IRDMA_FAULT_LISTENER_ALLOC, 0, -ENOMEM, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_SOCK_CREATE, 0, -ENOMEM, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_BIND, 0, -EADDRINUSE, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_LISTEN, 0, -EADDRINUSE, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_ACCEPT, 0, 0, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_NODE_ALLOC, 0, 0, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_EVENT_ALLOC, 0, 0, "MPA_REQ" },
	{ FAULT_ACCEPT, IRDMA_FAULT_EVENT_ALLOC, 1, -ENOMEM, "ESTABLISHED" },
	{ FAULT_ACCEPT, IRDMA_FAULT_MPA_ALLOC, 0, -ENOMEM, "reply" },
	{ FAULT_ACCEPT, IRDMA_FAULT_SENDMSG, 0, -EAGAIN, "reply" },
};

static void fault_param_desc(const struct fault_param *p, char *desc)
{
	static const char * const roles[] = { "core", "connect", "accept" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s %s", roles[p->role],
		 cmkit_irdma_fault_points.steps[p->step], p->what);
}

KUNIT_ARRAY_PARAM(irdma_fault, fault_params, fault_param_desc);

/* Fail @step once, after @skip passes that succeed. */
static void fault_arm(const struct fault_param *p)
{
	cmkit_fault_arm(&cmkit_irdma_fault_points, BIT(p->step), 1);
#ifdef CONFIG_FAULT_INJECTION
	atomic_set(&cmkit_irdma_fault_points.attr.space, p->skip ? p->skip + 1 : 0);
#endif
}

static void fault_connect(struct kunit *test, const struct fault_param *p,
			  struct irdma_cm_core *core)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, 0, &src);
	raw_listen(test, raw, &addr);
	ul = ul_create(test, "faulty connect", UL_ACTIVE, &src, &addr);
	conn_param_init(&param, cmkit_req, 4, 4);
	fault_arm(p);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), p->rc);
	if (p->rc) {
		/* A connect that fails says so, and nothing else. */
		KUNIT_EXPECT_EQ(test, ul->nr, 0U);
		ul_expect_clean(test, ul);
		return;
	}
	raw_accept(test, raw);
	if (p->step == IRDMA_FAULT_EVENT_ALLOC) {
		/* The reply arrives, its CONNECTED cannot be posted: a reset. */
		raw_recv_request(test, raw);
		raw_send_mpa(test, raw, CMKIT_MPA_REPLY, false, raw_rep, sizeof(raw_rep));
	}
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	raw_expect_reset(test, raw);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	ul_expect_clean(test, ul);
}

static void fault_accept(struct kunit *test, const struct fault_param *p,
			 struct irdma_cm_core *core)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;
	int rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "faulty listener", UL_LISTEN, &addr, NULL);
	if (p->step == IRDMA_FAULT_LISTENER_ALLOC || p->step == IRDMA_FAULT_SOCK_CREATE ||
	    p->step == IRDMA_FAULT_BIND || p->step == IRDMA_FAULT_LISTEN) {
		fault_arm(p);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), p->rc);
		KUNIT_EXPECT_NULL(test, lul->id.provider_data);
		ul_expect_clean(test, lul);
		return;
	}
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	fault_arm(p);
	if (p->step == IRDMA_FAULT_ACCEPT || p->step == IRDMA_FAULT_NODE_ALLOC) {
		/* Refused as soon as the TCP connection is accepted: no request. */
		raw_connect_expect_reset(test, raw, &addr);
	} else {
		raw_connect(test, raw, &addr);
		raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
		/* MPA_REQ's event cannot be posted: a reset. */
		if (p->step == IRDMA_FAULT_EVENT_ALLOC && !p->skip)
			raw_expect_reset(test, raw);
	}
	if (p->step == IRDMA_FAULT_ACCEPT || p->step == IRDMA_FAULT_NODE_ALLOC ||
	    (p->step == IRDMA_FAULT_EVENT_ALLOC && !p->skip)) {
		/* Refused before any upcall: the peer is reset, nobody told. */
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		KUNIT_EXPECT_EQ(test, lul->nr, 0U);
		ul_expect_clean(test, lul);
		return;
	}
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "faulty child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	child->accepted = true;
	conn_param_init(&param, cmkit_rep, 4, 4);
	rc = cmkit_irdma_accept(&child->id, &param);
	KUNIT_EXPECT_EQ(test, rc, p->rc);
	/* A failed accept: no upcall on the child, the peer reset, the id empty. */
	raw_expect_reset(test, raw);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	KUNIT_EXPECT_EQ(test, child->nr, 0U);
	expect_id_released(test, child);
}

/*
 * A failure injected at each step of connect, listen and accept, through
 * the kernel's fault framework (cmkit_irdma_fault_points): the caller gets a clean
 * error, or the upper layer exactly the upcalls iw_cm allows (one failed
 * CONNECT_REPLY for a connect; none, or CONNECT_REQUEST and no more, for an
 * accept); the peer is reset; nothing is left.
 */
static void irdma_failure_injected(struct kunit *test)
{
	const struct fault_param *p = test->param_value;
	int fired = atomic_read(&cmkit_irdma_fault_points.fired);
	struct irdma_cm_core *core, *bad;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION))
		kunit_skip(test, "the kernel has no CONFIG_FAULT_INJECTION");
	if (p->role == FAULT_CORE) {
		bad = kunit_kzalloc(test, sizeof(*bad), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bad);
		fault_arm(p);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_setup_cm_core(bad), p->rc);
		KUNIT_EXPECT_NULL(test, bad->event_wq);
		KUNIT_EXPECT_NULL(test, bad->sock_wq);
		KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_irdma_fault_points.fired), fired + 1);
		return;
	}
	cmkit_test_device(test, siw_param);
	core = private_core(test);
	if (p->role == FAULT_CONNECT)
		fault_connect(test, p, core);
	else
		fault_accept(test, p, core);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_irdma_fault_points.fired), fired + 1);
	cmkit_fault_disarm(&cmkit_irdma_fault_points);
	cmkit_irdma_cleanup_cm_core(core);
	expect_core_idle(test, core);
}

/* ---- failslab's fail-nth over a whole connection ------------------------- */

/*
 * failslab (mm/failslab.c) with the task filter: current->fail_nth = N fails
 * the N-th slab allocation of this thread (what /proc/<pid>/fail-nth sets).
 * Only what the test thread runs counts: the consumer API (connect, listen,
 * accept, close, destroy) is called here, while the socket work and the
 * events run on cmkit's workqueues, whose failures the fault steps above
 * inject.  failslab skips allocations that may sleep unless ignore-gfp-wait
 * is N, and dumps a stack per failure unless verbose is 0: both are set for
 * the case and restored after it.
 */
#define FAILSLAB_DIR	"/sys/kernel/debug/failslab"
#define FAILSLAB_SAVED	"/tmp/cmkit-irdma-failslab"

/*
 * Run a shell line in the guest, as root: debugfs' bool files have no
 * read_iter/write_iter, so kernel_read()/kernel_write() cannot reach them.
 */
static void failslab_restore(struct kunit_resource *res)
{
	cmkit_test_sh("cd " FAILSLAB_DIR " && cat " FAILSLAB_SAVED ".gfp > ignore-gfp-wait && "
		    "cat " FAILSLAB_SAVED ".verbose > verbose");
}

static void failslab_every_gfp(struct kunit *test)
{
	int rc;

	rc = cmkit_test_sh("cd " FAILSLAB_DIR " && cat ignore-gfp-wait > " FAILSLAB_SAVED ".gfp && "
			 "cat verbose > " FAILSLAB_SAVED ".verbose && "
			 "echo N > ignore-gfp-wait && echo 0 > verbose");
	if (rc)
		kunit_skip(test, "cannot set " FAILSLAB_DIR "/ignore-gfp-wait (CONFIG_FAILSLAB): %d",
			   rc);
	/* kunit_alloc_resource() returns the resource's data: give it some. */
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, ul_res_init, failslab_restore,
							 GFP_KERNEL, test));
}

/* The N-th allocation of the consumer calls fails; the peer's are not counted. */
struct nth {
	unsigned int left;
	bool hit;
};

static void nth_on(struct nth *t)
{
#ifdef CONFIG_FAULT_INJECTION
	if (!t->hit)
		current->fail_nth = t->left;
#endif
}

static void nth_off(struct nth *t)
{
#ifdef CONFIG_FAULT_INJECTION
	unsigned int left = current->fail_nth;

	current->fail_nth = 0;
	if (t->hit)
		return;
	if (left)
		t->left = left;
	else
		t->hit = true;
#endif
}

/* cmkit connects to a raw peer, which accepts; cmkit resets. */
static bool nth_connect_close(struct kunit *test, struct irdma_cm_core *core,
			      unsigned int n)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct nth t = { .left = n };
	struct ul_rec r;
	struct ul *ul;
	bool hit;
	int rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, 0, &src);
	raw_listen(test, raw, &addr);
	ul = ul_create(test, "fail-nth connect", UL_ACTIVE, &src, &addr);
	conn_param_init(&param, cmkit_req, 4, 4);
	nth_on(&t);
	rc = cmkit_irdma_connect(core, &ul->id, &param);
	nth_off(&t);
	if (rc) {
		KUNIT_EXPECT_TRUE_MSG(test, t.hit, "connect failed by itself: %d", rc);
		KUNIT_EXPECT_EQ(test, ul->nr, 0U);
		ul_expect_clean(test, ul);
		return t.hit;
	}
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	raw_send_mpa(test, raw, CMKIT_MPA_REPLY, false, raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	hit = t.hit;
	nth_on(&t);
	rc = cmkit_irdma_cm_close(&ul->id, true);
	nth_off(&t);
	KUNIT_EXPECT_EQ(test, rc, 0);	/* a reset's RESET has the node's spare */
	expect_ended_by_reset(test, ul);
	if (t.hit == hit)	/* else the RST itself may be what failed */
		raw_expect_reset(test, raw);
	return t.hit;
}

/* A raw peer connects to cmkit's listener; cmkit accepts, then resets. */
static bool nth_accept_close(struct kunit *test, struct irdma_cm_core *core,
			     unsigned int n)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct nth t = { .left = n };
	u8 *buf = raw_frame_buf(test);
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;
	bool hit;
	int rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "fail-nth listener", UL_LISTEN, &addr, NULL);
	nth_on(&t);
	rc = cmkit_irdma_create_listen(core, &lul->id, 4);
	nth_off(&t);
	if (rc) {
		KUNIT_EXPECT_TRUE_MSG(test, t.hit, "listen failed by itself: %d", rc);
		ul_expect_clean(test, lul);
		return t.hit;
	}
	raw_connect(test, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "fail-nth child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	child->accepted = true;
	conn_param_init(&param, cmkit_rep, 4, 4);
	nth_on(&t);
	rc = cmkit_irdma_accept(&child->id, &param);
	nth_off(&t);
	if (rc) {
		KUNIT_EXPECT_TRUE_MSG(test, t.hit, "accept failed by itself: %d", rc);
		raw_expect_reset(test, raw);
		KUNIT_EXPECT_EQ(test, child->nr, 0U);
	} else {
		raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
		KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &req), 0);
		hit = t.hit;
		nth_on(&t);
		rc = cmkit_irdma_cm_close(&child->id, true);
		nth_off(&t);
		KUNIT_EXPECT_EQ(test, rc, 0);
		expect_ended_by_reset(test, child);
		if (t.hit == hit)	/* else the RST itself may be what failed */
			raw_expect_reset(test, raw);
	}
	nth_on(&t);
	rc = cmkit_irdma_destroy_listen(&lul->id);
	nth_off(&t);
	KUNIT_EXPECT_EQ(test, rc, 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	return t.hit;
}

static const enum fault_role nth_roles[] = { FAULT_CONNECT, FAULT_ACCEPT };

static void nth_role_desc(const enum fault_role *role, char *desc)
{
	strscpy(desc, *role == FAULT_CONNECT ? "connect, reset" : "listen, accept, reset",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_nth, nth_roles, nth_role_desc);

#define NTH_MAX	400

/*
 * For N = 1, 2, ...: fail the N-th allocation of the consumer's calls over
 * a whole connection, until one runs with fewer than N.  Each N ends in a
 * clean error or a whole connection, and nothing is left.
 */
static void irdma_failslab_nth_over_a_connection(struct kunit *test)
{
	const enum fault_role *role = test->param_value;
	struct irdma_cm_core *core;
	unsigned int n, hits = 0;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION))
		kunit_skip(test, "the kernel has no CONFIG_FAULT_INJECTION");
	cmkit_test_device(test, siw_param);
	failslab_every_gfp(test);
	core = private_core(test);
	quiet_traces(test);
	for (n = 1; n < NTH_MAX; n++) {
		bool hit = *role == FAULT_CONNECT ? nth_connect_close(test, core, n) :
			   nth_accept_close(test, core, n);

		if (!hit)
			break;
		hits++;
		/* The id is let go before its node is counted freed: wait for that. */
		wait_event_timeout(core->wait, atomic_read(&core->stats.nodes_made) ==
				   atomic_read(&core->stats.nodes_freed), cmkit_test_timeout());
		KUNIT_ASSERT_EQ_MSG(test, atomic_read(&core->stats.nodes_made),
				    atomic_read(&core->stats.nodes_freed),
				    "a node left after failing allocation %u", n);
	}
	kunit_info(test, "%u allocations failed in turn, then a clean run\n", hits);
	KUNIT_EXPECT_LT(test, n, (unsigned int)NTH_MAX);
	KUNIT_EXPECT_GT(test, hits, 0U);
	cmkit_irdma_cleanup_cm_core(core);
	expect_core_idle(test, core);
}

/* ---- teardown with live connections (what unloading cmkit does) -------- */

static void irdma_cleanup_tears_down_live_connections(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct sockaddr_in siw_srv_addr, lis_addr, raw_addr;
	struct raw_peer *raw = raw_create(test);
	struct ul *active, *pending, *lul, *child;
	struct cmkit_peer *srv, *cli;
	struct cmkit_cm_record pr;
	struct ul_rec r, req;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &siw_srv_addr);
	cmkit_test_addr(siw_param, cmkit_test_port(), &lis_addr);
	cmkit_test_addr(siw_param, cmkit_test_port(), &raw_addr);

	/* cmkit -> siw, established */
	srv = cmkit_peer_create(test, "siw server");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &siw_srv_addr), 0);
	active = cmkit_connect(test, core, &siw_srv_addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(active, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);

	/* siw -> cmkit, accepted, and the listener stays */
	lul = cmkit_listen(test, core, &lis_addr);
	cli = siw_client_connects(test, lul, &lis_addr, &req);
	child = cmkit_accept(test, &req);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);

	/* cmkit -> a peer that never answers the MPA request */
	pending = raw_server_gets_request(test, core, raw, &raw_addr);

	cmkit_irdma_cleanup_cm_core(core);
	KUNIT_EXPECT_NULL(test, lul->id.provider_data);	/* the listener is gone */

	KUNIT_EXPECT_EQ(test, ul_count(active, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(active, IW_CM_EVENT_CLOSE), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_CLOSE), 1U);
	KUNIT_ASSERT_EQ(test, ul_wait(pending, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, pending->nr, 1U);
	ul_expect_clean(test, active);
	ul_expect_clean(test, child);
	ul_expect_clean(test, pending);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
	/* siw saw both of its connections go. */
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
}

/* ---- RFC 6581: P2P, CRC, reasoned rejects, fallback, timers, backlog ---- */

/* A private core's end: every node and listener gone, every event handled. */
static void end_core(struct kunit *test, struct irdma_cm_core *core)
{
	cmkit_irdma_cleanup_cm_core(core);
	expect_core_idle(test, core);
}

/* Stop @lul on @core (its requests answered), then end the core. */
static void end_listener_and_core(struct kunit *test, struct ul *lul,
				  struct irdma_cm_core *core)
{
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	end_core(test, core);
}

/* Receive a whole MPA frame of @kind, decoded as the deciders take it. */
static void raw_recv_any_frame(struct kunit *test, struct raw_peer *raw,
			       enum cmkit_mpa_kind kind, u8 *buf, struct cmkit_mpa_frame *f)
{
	int n = raw_recv(raw, buf, CMKIT_MPA_HDR_LEN);

	KUNIT_ASSERT_EQ(test, n, CMKIT_MPA_HDR_LEN);
	n += raw_recv(raw, buf + n, cmkit_get_be16(buf + 18));
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, kind, f), n);
}

static struct cmkit_mpa_offer mpa_offer(u8 rev, u8 p2p, u8 rtr, u8 crc)
{
	struct cmkit_mpa_offer o = {
		.rev = rev, .p2p = p2p, .rtr = rtr, .crc = crc,
		.ird = CMKIT_MPA_V2_NO_IRD_ORD, .ord = CMKIT_MPA_V2_NO_IRD_ORD,
	};

	return o;
}

static const char *rtr_name(u8 rtr)
{
	return rtr == CMKIT_MPA_RTR_WRITE ? "Write" : rtr == CMKIT_MPA_RTR_READ ? "Read" :
	       rtr == CMKIT_MPA_RTR_SEND ? "Send" : "none";
}

/* What cmkit settled for @ul's connection. */
static struct cmkit_irdma_mpa_info ul_mpa(struct kunit *test, struct ul *ul)
{
	struct cmkit_irdma_mpa_info info = {};

	KUNIT_EXPECT_EQ(test, cmkit_irdma_mpa_info(&ul->id, &info), 0);
	return info;
}

/* Is TCP keepalive on for @ul's connection's socket? */
static bool ul_keepalive(struct ul *ul)
{
	struct irdma_cm_node *node = cmkit_irdma_cm_id_get_node(&ul->id);
	bool on = false;

	if (!node)
		return false;
	mutex_lock(&node->lock);
	if (node->sock)
		on = sock_flag(node->sock->sk, SOCK_KEEPOPEN);
	mutex_unlock(&node->lock);
	cmkit_irdma_rem_ref_cm_node(node);
	return on;
}

/* Connect @ul (made here) from siw0's address to @dst with @offer, on @core. */
static struct ul *cmkit_connect_mpa(struct kunit *test, struct irdma_cm_core *core,
				    const struct sockaddr_in *dst,
				    const struct cmkit_mpa_offer *offer)
{
	struct iw_cm_conn_param param;
	struct sockaddr_in src;
	struct ul *ul;

	cmkit_test_addr(siw_param, 0, &src);
	ul = ul_create(test, "cmkit client", UL_ACTIVE, &src, dst);
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect_mpa(core, &ul->id, &param, offer), 0);
	return ul;
}

static struct ul *cmkit_listen_mpa(struct kunit *test, struct irdma_cm_core *core,
				   const struct sockaddr_in *addr, int backlog,
				   const struct cmkit_mpa_offer *offer)
{
	struct ul *lul = ul_create(test, "cmkit listener", UL_LISTEN, addr, NULL);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen_mpa(core, &lul->id, backlog, offer), 0);
	return lul;
}

static struct ul *child_of(struct kunit *test, const struct ul_rec *req)
{
	struct ul *child = ul_create(test, "cmkit child", UL_PASSIVE, NULL, NULL);

	child->id.provider_data = req->provider_data;
	child->accepted = true;
	return child;
}

/*
 * An accept on a work item, as the cases had it when a P2P accept waited
 * for the RTR: it no longer does, so the accept's return value comes first.
 */
struct accept_async {
	struct work_struct work;
	struct ul *child;
	struct iw_cm_conn_param param;
	int rc;
	struct completion done;
};

static void accept_async_fn(struct work_struct *work)
{
	struct accept_async *a = container_of(work, struct accept_async, work);

	a->rc = cmkit_irdma_accept(&a->child->id, &a->param);
	complete_all(&a->done);
}

static void accept_async_free(struct kunit_resource *res)
{
	struct accept_async *a = res->data;

	/* The accept is bounded by the core's RTR timer. */
	if (!wait_for_completion_timeout(&a->done, cmkit_test_timeout())) {
		pr_err("cmkit_test: irdma: an accept never returned: leaked\n");
		return;
	}
	kfree(a);
}

static struct accept_async *accept_start(struct kunit *test, struct ul *child, u32 ird)
{
	struct accept_async *a = kzalloc_obj(*a, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->child = child;
	conn_param_init(&a->param, cmkit_rep, ird, 4);
	init_completion(&a->done);
	INIT_WORK(&a->work, accept_async_fn);
	if (!kunit_alloc_resource(test, ul_res_init, accept_async_free, GFP_KERNEL, a)) {
		kfree(a);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	queue_work(system_unbound_wq, &a->work);
	return a;
}

static int accept_wait(struct accept_async *a)
{
	if (!wait_for_completion_timeout(&a->done, cmkit_test_timeout()))
		return -ETIMEDOUT;
	return a->rc;
}

/* @a and @b end with an orderly close from @b: DISCONNECT(0) and CLOSE each. */
static void expect_orderly_close(struct kunit *test, struct ul *a, struct ul *b)
{
	struct ul_rec r;

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&b->id, false), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(a, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(a, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, ul_wait(b, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(b, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	ul_expect_clean(test, a);
	ul_expect_clean(test, b);
}

/* @crc: 0 none, 1 the initiator asks for CRC, 2 the responder does */
struct p2p_param {
	u8 rtr;
	u8 crc;
};

static const struct p2p_param p2p_params[] = {
	{ CMKIT_MPA_RTR_WRITE, 0 }, { CMKIT_MPA_RTR_WRITE, 1 },
	{ CMKIT_MPA_RTR_READ, 0 }, { CMKIT_MPA_RTR_READ, 1 },
	{ CMKIT_MPA_RTR_SEND, 0 }, { CMKIT_MPA_RTR_SEND, 1 },
	{ CMKIT_MPA_RTR_WRITE, 2 },
};

static void p2p_param_desc(const struct p2p_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s RTR%s", rtr_name(p->rtr),
		 p->crc == 2 ? ", CRC asked by the responder" : p->crc ? ", CRC" : "");
}

KUNIT_ARRAY_PARAM(irdma_p2p, p2p_params, p2p_param_desc);

/*
 * cmkit to cmkit, an active and a passive core: P2P with each RTR type,
 * with and without CRC (asked by either side: both use it).  The
 * initiator's CONNECT_REPLY and the responder's ESTABLISHED come once the
 * RTR went through (a Read RTR's Read Response too: the responder's close
 * after it reaches the initiator in order, so a Read Response it refused
 * would have reset the connection), both sides say what was negotiated,
 * and keepalive is on.
 */
static void irdma_p2p_cmkit_to_cmkit(struct kunit *test)
{
	const struct p2p_param *p = test->param_value;
	struct irdma_cm_core *acore, *pcore;
	struct cmkit_mpa_offer offer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED, p->rtr,
						 p->crc == 1);
	struct cmkit_irdma_mpa_info ai, pi;
	struct iw_cm_conn_param param;
	struct cmkit_mpa_offer loffer;
	struct ul *lul, *ul, *child;
	struct sockaddr_in addr;
	struct ul_rec req, r;

	cmkit_test_device(test, siw_param);
	acore = private_core(test);
	pcore = private_core(test);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	/* The default listener (any RTR type), asking for CRC when the case says. */
	cmkit_irdma_cm_default_offer(pcore, true, &loffer);
	loffer.crc = p->crc == 2;
	lul = cmkit_listen_mpa(test, pcore, &addr, 4, &loffer);
	ul = cmkit_connect_mpa(test, acore, &addr, &offer);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = child_of(test, &req);
	conn_param_init(&param, cmkit_rep, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, cmkit_rep);

	ai = ul_mpa(test, ul);
	pi = ul_mpa(test, child);
	KUNIT_EXPECT_EQ(test, ai.rev, 2);
	KUNIT_EXPECT_TRUE(test, ai.p2p);
	KUNIT_EXPECT_EQ(test, ai.rtr, p->rtr);
	KUNIT_EXPECT_EQ(test, ai.crc, !!p->crc);
	KUNIT_EXPECT_TRUE(test, pi.p2p);
	KUNIT_EXPECT_EQ(test, pi.rtr, p->rtr);
	KUNIT_EXPECT_EQ(test, pi.crc, !!p->crc);
	KUNIT_EXPECT_TRUE(test, ul_keepalive(ul));
	KUNIT_EXPECT_TRUE(test, ul_keepalive(child));

	expect_orderly_close(test, ul, child);
	KUNIT_EXPECT_EQ(test, atomic_read(&acore->stats.aborts), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pcore->stats.aborts), 0);
	end_listener_and_core(test, lul, pcore);
	end_core(test, acore);
}

/* Receive the RTR (of type @rtr) a P2P initiator sends, whole, into @buf. */
static void raw_recv_rtr(struct kunit *test, struct raw_peer *raw, u8 rtr, u8 crc,
			 u8 *buf, struct cmkit_fpdu *f)
{
	struct cmkit_iwarp_hdr h;
	int len;

	KUNIT_ASSERT_EQ(test, cmkit_rtr_hdr(rtr, &h), 0);
	len = cmkit_fpdu_total_len(cmkit_iwarp_hdr_len(h.opcode));
	KUNIT_ASSERT_EQ(test, raw_recv(raw, buf, len), len);
	KUNIT_EXPECT_EQ(test, cmkit_rtr_check(buf, len, rtr, crc, f), len);
}

/* Send @buf in three segments (TCP_NODELAY): 1 byte, 4, the rest. */
static void raw_send_split(struct kunit *test, struct raw_peer *raw, const u8 *buf, int n)
{
	tcp_sock_set_nodelay(raw->sock->sk);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, 1), 1);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf + 1, 4), 4);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf + 5, n - 5), n - 5);
}

/*
 * A strict RFC 6581 responder on a raw socket, as irdma is: P2P required,
 * one RTR type demanded (@want), CRC as asked; anything else is rejected
 * with the reason.  It checks cmkit's RTR and answers a Read with its Read
 * Response, split over several segments.
 */
struct strict_resp_param {
	const char *desc;
	u8 cmkit_p2p;		/* cmkit's offer */
	u8 cmkit_rtr;
	u8 crc;
	u8 want;		/* the RTR type the peer demands (0: P2P off) */
	int status;		/* cmkit's CONNECT_REPLY */
	enum cmkit_mpa_reject_reason reason;
};

static const struct strict_resp_param strict_resp_params[] = {
	{ "Write RTR", CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE, 0, CMKIT_MPA_RTR_WRITE, 0 },
	{ "Read RTR, CRC", CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 1, CMKIT_MPA_RTR_READ, 0 },
	{ "Send RTR", CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_SEND, 0, CMKIT_MPA_RTR_SEND, 0 },
	{ "any RTR offered, Read demanded", CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 1,
	  CMKIT_MPA_RTR_READ, 0 },
	{ "no P2P: rejected", CMKIT_MPA_P2P_OFF, 0, 0, CMKIT_MPA_RTR_WRITE, -ECONNREFUSED,
	  CMKIT_MPA_REJ_P2P_REQUIRED },
	{ "Write offered, Read demanded: rejected", CMKIT_MPA_P2P_REQUIRED,
	  CMKIT_MPA_RTR_WRITE, 0, CMKIT_MPA_RTR_READ, -ECONNREFUSED, CMKIT_MPA_REJ_NO_RTR },
	{ "P2P required, accepted without it: reset", CMKIT_MPA_P2P_REQUIRED,
	  CMKIT_MPA_RTR_WRITE, 0, 0, -ECONNRESET },
};

static void strict_resp_desc(const struct strict_resp_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_strict_resp, strict_resp_params, strict_resp_desc);

static void irdma_p2p_connect_to_strict_responder(struct kunit *test)
{
	const struct strict_resp_param *p = test->param_value;
	struct cmkit_mpa_offer offer = mpa_offer(2, p->cmkit_p2p, p->cmkit_rtr, p->crc);
	struct cmkit_mpa_offer peer = mpa_offer(2, p->want ? CMKIT_MPA_P2P_REQUIRED :
						CMKIT_MPA_P2P_OFF, p->want, 0);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct cmkit_irdma_mpa_info info;
	struct cmkit_mpa_result res;
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct cmkit_fpdu fpdu;
	struct ul_rec r;
	struct ul *ul;
	int n, rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	raw_listen(test, raw, &addr);
	ul = cmkit_connect_mpa(test, core, &addr, &offer);
	raw_accept(test, raw);
	raw_recv_any_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_EQ(test, !!(f.flags & CMKIT_MPA_FLAG_CRC), !!p->crc);
	rc = cmkit_mpa_respond(&peer, &f, &res);
	if (!p->want) {
		/*
		 * A responder without P2P must refuse a request with A set (RFC
		 * 6581, 9.2), and the decider does; this peer accepts without
		 * it, as siw once did (zrlio/softiwarp#18).
		 */
		KUNIT_EXPECT_EQ(test, rc, (int)CMKIT_MPA_REJ_NO_RTR);
		res.accept = 1;
		res.reason = CMKIT_MPA_REJ_NONE;
		res.p2p = 0;
		res.rtr = 0;
		rc = 0;
	}
	KUNIT_EXPECT_EQ(test, rc, (int)p->reason);
	n = cmkit_mpa_build_reply(buf, CMKIT_MPA_MAX_FRAME, &res, rc ? NULL : raw_rep,
				  rc ? 0 : sizeof(raw_rep));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	if (rc) {
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, p->status);
		KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_get(r.pdata, r.pdata_len),
				p->reason);
		goto out;
	}
	if (p->status) {	/* a reply without the P2P cmkit requires */
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, p->status);
		raw_expect_reset(test, raw);
		goto out;
	}
	raw_recv_rtr(test, raw, p->want, res.crc, buf, &fpdu);
	if (p->want == CMKIT_MPA_RTR_READ) {
		n = cmkit_rtr_build_read_resp(buf, CMKIT_MPA_MAX_FRAME, &fpdu.hdr, res.crc);
		KUNIT_ASSERT_GT(test, n, 0);
		raw_send_split(test, raw, buf, n);
	}
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, raw_rep);
	info = ul_mpa(test, ul);
	KUNIT_EXPECT_TRUE(test, info.p2p);
	KUNIT_EXPECT_EQ(test, info.rtr, p->want);
	KUNIT_EXPECT_EQ(test, info.crc, !!p->crc);
	/* The peer's FIN after its Read Response: an orderly close, no reset. */
	kernel_sock_shutdown(raw->sock, SHUT_WR);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
out:
	ul_expect_clean(test, ul);
	end_core(test, core);
}

/*
 * A strict RFC 6581 initiator on a raw socket: P2P with one RTR type, CRC
 * as the case says; it checks cmkit's reply with the initiator's decider
 * and sends its RTR split over several segments (or a wrong one).
 */
enum strict_init_bad {
	INIT_GOOD,
	INIT_BAD_CRC,		/* the RTR's CRC is wrong */
	INIT_WRONG_RTR,		/* a Write RTR where the reply chose Send */
	INIT_NO_RTR,		/* a FIN instead of the RTR */
};

struct strict_init_param {
	const char *desc;
	u8 rtr;
	u8 crc;
	enum strict_init_bad bad;
};

static const struct strict_init_param strict_init_params[] = {
	{ "Write RTR", CMKIT_MPA_RTR_WRITE, 0, INIT_GOOD },
	{ "Write RTR, CRC", CMKIT_MPA_RTR_WRITE, 1, INIT_GOOD },
	{ "Read RTR", CMKIT_MPA_RTR_READ, 0, INIT_GOOD },
	{ "Read RTR, CRC", CMKIT_MPA_RTR_READ, 1, INIT_GOOD },
	{ "Send RTR", CMKIT_MPA_RTR_SEND, 0, INIT_GOOD },
	{ "Send RTR, CRC", CMKIT_MPA_RTR_SEND, 1, INIT_GOOD },
	{ "RTR with a bad CRC", CMKIT_MPA_RTR_WRITE, 1, INIT_BAD_CRC },
	{ "RTR of another type", CMKIT_MPA_RTR_SEND, 0, INIT_WRONG_RTR },
	{ "FIN instead of the RTR", CMKIT_MPA_RTR_WRITE, 0, INIT_NO_RTR },
};

static void strict_init_desc(const struct strict_init_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_strict_init, strict_init_params, strict_init_desc);

static void irdma_p2p_strict_initiator_connects(struct kunit *test)
{
	const struct strict_init_param *p = test->param_value;
	struct cmkit_mpa_offer peer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED, p->rtr, p->crc);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	int mark = log_mark();
	u8 *buf = raw_frame_buf(test);
	struct cmkit_iwarp_hdr rreq;
	struct cmkit_mpa_result res;
	struct cmkit_mpa_frame f;
	struct accept_async *acc;
	struct sockaddr_in addr;
	struct cmkit_fpdu fpdu;
	struct ul *lul, *child;
	struct ul_rec req, r;
	int n;

	peer.ird = 4;
	peer.ord = 4;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 4, NULL);
	raw_connect(test, raw, &addr);
	n = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &peer, 2, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = child_of(test, &req);
	acc = accept_start(test, child, 4);

	raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_initiate(&peer, 2, &f, &res), 0);
	KUNIT_EXPECT_EQ(test, res.rtr, p->rtr);
	KUNIT_EXPECT_EQ(test, res.crc, p->crc);
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_rep));
	switch (p->bad) {
	case INIT_NO_RTR:
		kernel_sock_shutdown(raw->sock, SHUT_WR);
		n = 0;
		break;
	case INIT_WRONG_RTR:
		n = cmkit_rtr_build(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_RTR_WRITE, res.crc);
		break;
	default:
		n = cmkit_rtr_build(buf, CMKIT_MPA_MAX_FRAME, res.rtr, res.crc);
		if (p->bad == INIT_BAD_CRC)
			buf[n - 1] ^= 0x5a;
		break;
	}
	if (n)
		raw_send_split(test, raw, buf, n);
	if (p->bad) {
		/*
		 * The accept returned at once; the peer is reset, and the
		 * accepted id hears ESTABLISHED, DISCONNECT(-ECONNRESET), CLOSE
		 * (iw_cm cannot take a CLOSE before ESTABLISHED).
		 */
		KUNIT_EXPECT_EQ(test, accept_wait(acc), 0);
		raw_expect_reset(test, raw);
		expect_ended_by_reset(test, child);
		expect_id_released(test, child);
		goto out;
	}
	if (p->rtr == CMKIT_MPA_RTR_READ) {
		cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &rreq);
		n = cmkit_fpdu_total_len(CMKIT_DDP_TAGGED_HDR_LEN);
		KUNIT_ASSERT_EQ(test, raw_recv(raw, buf, n), n);
		KUNIT_EXPECT_EQ(test, cmkit_rtr_check_read_resp(buf, n, &rreq, res.crc, &fpdu), n);
	}
	KUNIT_ASSERT_EQ(test, accept_wait(acc), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_EXPECT_EQ(test, ul_mpa(test, child).rtr, p->rtr);
	kernel_sock_shutdown(raw->sock, SHUT_WR);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
out:
	ul_expect_clean(test, child);
	end_listener_and_core(test, lul, core);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/*
 * What cmkit's listener refuses for what a request asks: an MPA reject
 * frame with the reason in its private data, then a FIN, never a reset;
 * no upcall.
 */
struct refuse_param {
	const char *desc;
	struct cmkit_mpa_offer listener;
	struct cmkit_mpa_offer peer;
	u8 flags;			/* forced into byte 16 of the request */
	u8 rev;				/* forced into byte 17 (0: as built) */
	enum cmkit_mpa_reject_reason reason;
	u16 pdata_len;			/* of zeroes (0: raw_req) */
};

static const struct refuse_param refuse_params[] = {
	{ "markers", { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, CMKIT_MPA_FLAG_MARKERS, 0, CMKIT_MPA_REJ_MARKERS },
	{ "revision 3", { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, 0, 3, CMKIT_MPA_REJ_REVISION },
	{ "revision 2 to a revision 1 listener",
	  { 1, 0, CMKIT_MPA_P2P_OFF, 0, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, 0, 0, CMKIT_MPA_REJ_REVISION },
	{ "no P2P to a P2P listener",
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, 0, 0, CMKIT_MPA_REJ_P2P_REQUIRED },
	{ "P2P to a listener without P2P (RFC 6581 9.2: no reply without A)",
	  { 2, 0, CMKIT_MPA_P2P_OFF, 0, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 4, 4 },
	  0, 0, CMKIT_MPA_REJ_NO_RTR },
	{ "no RTR type in common",
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE | CMKIT_MPA_RTR_SEND, 0, 0, 4, 4 },
	  0, 0, CMKIT_MPA_REJ_NO_RTR },
	{ "Read RTR to a listener without read resources",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 1, 0, 0x3fff },
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 0, 0, 4, 0 },
	  0, 0, CMKIT_MPA_REJ_NO_RTR },
	{ "ORD above a strict listener's IRD",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 1, 2, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 8 }, 0, 0, CMKIT_MPA_REJ_IRD },
	{ "256 bytes of private data (more than an upcall carries)",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 1, 1 }, 0, 0, CMKIT_MPA_REJ_PDATA, 256 },
	{ "300 bytes of private data, revision 1",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 1, 0, 0, 0, 0, 0, 0x3fff, 0x3fff }, 0, 0, CMKIT_MPA_REJ_PDATA, 300 },
};

static void refuse_desc(const struct refuse_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_refuse, refuse_params, refuse_desc);

static void irdma_listener_refuses_with_a_reason(struct kunit *test)
{
	const struct refuse_param *p = test->param_value;
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	int mark = log_mark();
	static const u8 zeroes[300];
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul;
	int n;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 4, &p->listener);
	raw_connect(test, raw, &addr);
	n = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &p->peer, p->peer.rev,
				    p->pdata_len ? (const void *)zeroes : raw_req,
				    p->pdata_len ?: sizeof(raw_req));
	KUNIT_ASSERT_GT(test, n, 0);
	buf[16] |= p->flags;
	if (p->rev)
		buf[17] = p->rev;
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	raw_recv_any_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
	KUNIT_EXPECT_TRUE(test, f.flags & CMKIT_MPA_FLAG_REJECT);
	KUNIT_EXPECT_EQ(test, f.rev, p->listener.rev < p->peer.rev || p->rev ?
			p->listener.rev : p->peer.rev);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_get(f.pdata, f.pdata_len), p->reason);
	KUNIT_EXPECT_EQ(test, raw_recv(raw, buf, 1), 0);	/* then our FIN */
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	ul_expect_clean(test, lul);
	end_core(test, core);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/*
 * Revisions 1 and 2, cmkit to cmkit: a revision 1 listener refuses a
 * revision 2 request with a REVISION reject (in revision 1), which an
 * initiator configured to fall back answers with a revision 1 request; a
 * revision 2 listener answers a revision 1 request in revision 1.
 */
struct rev_param {
	const char *desc;
	u8 listener_rev;
	u8 connect_rev;
	u8 fallback;
	int status;
	u8 rev;			/* of the connection */
};

static const struct rev_param rev_params[] = {
	{ "v2 to v1, no fallback: refused", 1, 2, 0, -ECONNREFUSED, 0 },
	{ "v2 to v1, fallback: v1", 1, 2, 1, 0, 1 },
	{ "v1 to v2: v1", 2, 1, 0, 0, 1 },
	{ "v2 to v2, fallback unused: v2", 2, 2, 1, 0, 2 },
};

static void rev_desc(const struct rev_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_rev, rev_params, rev_desc);

static void irdma_revision_1_and_2_with_and_without_fallback(struct kunit *test)
{
	const struct rev_param *p = test->param_value;
	struct cmkit_mpa_offer loffer = mpa_offer(p->listener_rev, CMKIT_MPA_P2P_ON,
						  CMKIT_MPA_RTR_ALL, 0);
	struct cmkit_mpa_offer coffer = mpa_offer(p->connect_rev, CMKIT_MPA_P2P_OFF, 0, 0);
	struct irdma_cm_core *core = private_core(test);
	struct cmkit_irdma_mpa_info info;
	struct iw_cm_conn_param param;
	struct ul *lul, *ul, *child;
	struct sockaddr_in addr;
	struct ul_rec req, r;

	coffer.rev1_fallback = p->fallback;
	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 4, &loffer);
	ul = cmkit_connect_mpa(test, core, &addr, &coffer);
	if (p->status) {
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, p->status);
		KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_get(r.pdata, r.pdata_len),
				CMKIT_MPA_REJ_REVISION);
		KUNIT_EXPECT_EQ(test, lul->nr, 0U);
		ul_expect_clean(test, ul);
		goto out;
	}
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = child_of(test, &req);
	conn_param_init(&param, cmkit_rep, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, cmkit_rep);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	info = ul_mpa(test, ul);
	KUNIT_EXPECT_EQ(test, info.rev, p->rev);
	KUNIT_EXPECT_EQ(test, info.enhanced, p->rev == 2);
	KUNIT_EXPECT_EQ(test, info.fallback, p->fallback && p->listener_rev == 1);
	KUNIT_EXPECT_EQ(test, ul_mpa(test, child).rev, p->rev);
	expect_orderly_close(test, child, ul);
out:
	end_listener_and_core(test, lul, core);
}

/*
 * cxgb4's way: a responder that does not speak revision 2 resets the
 * connection instead of rejecting.  An initiator configured to fall back
 * reconnects with a revision 1 request; one that is not says -ECONNRESET.
 */
static void irdma_fallback_after_a_reset(struct kunit *test)
{
	const struct rev_param *p = test->param_value;
	struct cmkit_mpa_offer offer = mpa_offer(2, CMKIT_MPA_P2P_OFF, 0, 0);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct sockaddr_in addr, second;
	struct cmkit_mpa_frame f;
	struct ul_rec r;
	struct ul *ul;
	int n;

	offer.rev1_fallback = p->fallback;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	raw_listen(test, raw, &addr);
	ul = cmkit_connect_mpa(test, core, &addr, &offer);
	raw_accept(test, raw);
	raw_recv_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_EQ(test, f.rev, 2);
	raw_reset(raw);
	if (!p->fallback) {
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
		goto out;
	}
	raw_accept(test, raw);
	KUNIT_ASSERT_GE(test, kernel_getpeername(raw->sock, (struct sockaddr *)&second), 0);
	raw_recv_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_EQ(test, f.rev, 1);
	KUNIT_EXPECT_FALSE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_req));
	n = irdma_build_mpa_v1(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REPLY, 0, raw_rep,
			       sizeof(raw_rep));
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	/* The connection's local port: the second socket's, not the first's. */
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&r.local)->sin_port),
			ntohs(second.sin_port));
	KUNIT_EXPECT_EQ(test, ul_mpa(test, ul).rev, 1);
	KUNIT_EXPECT_TRUE(test, ul_mpa(test, ul).fallback);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
	expect_ended_by_reset(test, ul);
out:
	ul_expect_clean(test, ul);
	end_core(test, core);
}

static const struct rev_param reset_fallback_params[] = {
	{ "no fallback: reset", 1, 2, 0 },
	{ "fallback: revision 1", 1, 2, 1 },
};

KUNIT_ARRAY_PARAM(irdma_reset_fallback, reset_fallback_params, rev_desc);

/* ---- the MPA timers (a private core's, shortened) -------------------------- */

enum mpa_timer_case {
	TIMER_REQUEST,		/* a peer connects and sends nothing */
	TIMER_REPLY,		/* cmkit connects, the peer never replies */
	TIMER_RTR,		/* a P2P peer never sends its RTR */
};

static const enum mpa_timer_case mpa_timer_cases[] = {
	TIMER_REQUEST, TIMER_REPLY, TIMER_RTR,
};

static void mpa_timer_desc(const enum mpa_timer_case *c, char *desc)
{
	static const char * const names[] = {
		[TIMER_REQUEST] = "MPA request: reset, no upcall",
		[TIMER_REPLY] = "MPA reply: CONNECT_REPLY(-ETIMEDOUT)",
		[TIMER_RTR] = "RTR: the accepted id is reset",
	};

	strscpy(desc, names[*c], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_mpa_timer, mpa_timer_cases, mpa_timer_desc);

static void irdma_mpa_timer_expires(struct kunit *test)
{
	const enum mpa_timer_case *c = test->param_value;
	struct cmkit_mpa_offer peer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED,
						CMKIT_MPA_RTR_WRITE, 0);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	int mark = log_mark();
	struct accept_async *acc;
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul, *ul, *child;
	struct ul_rec req, r;
	int n;

	core->mpa_req_timeout = 1000;
	core->mpa_rep_timeout = 1000;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	switch (*c) {
	case TIMER_REQUEST:
		lul = cmkit_listen_mpa(test, core, &addr, 4, NULL);
		raw_connect(test, raw, &addr);
		raw_expect_reset(test, raw);
		KUNIT_EXPECT_EQ(test, lul->nr, 0U);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		ul_expect_clean(test, lul);
		break;
	case TIMER_REPLY:
		ul = raw_server_gets_request(test, core, raw, &addr);
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, -ETIMEDOUT);
		KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
		raw_expect_reset(test, raw);
		ul_expect_clean(test, ul);
		KUNIT_EXPECT_EQ(test, ul->nr, 1U);
		break;
	case TIMER_RTR:
		lul = cmkit_listen_mpa(test, core, &addr, 4, NULL);
		raw_connect(test, raw, &addr);
		n = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &peer, 2, NULL, 0);
		KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
		KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
		child = child_of(test, &req);
		acc = accept_start(test, child, 4);
		raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
		KUNIT_EXPECT_EQ(test, accept_wait(acc), 0);
		raw_expect_reset(test, raw);
		expect_ended_by_reset(test, child);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		ul_expect_clean(test, lul);
		break;
	}
	end_core(test, core);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/*
 * A listener's backlog bounds the requests pending at once: a connection
 * beyond it is reset before it has a node; an answered request makes room.
 */
static void irdma_backlog_limits_pending_requests(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *first = raw_create(test), *second = raw_create(test);
	struct raw_peer *third = raw_create(test);
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;
	int made0;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 1, NULL);
	made0 = atomic_read(&core->stats.nodes_made);
	raw_connect(test, first, &addr);
	wait_node_made(test, core, made0);
	raw_connect_expect_reset(test, second, &addr);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), made0 + 1);

	raw_send_mpa(test, first, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "rejected child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, NULL, 0), 0);

	/* Answered: the next one is taken. */
	raw_connect(test, third, &addr);
	raw_send_mpa(test, third, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_NE(test, wait_event_timeout(lul->wait,
						 ul_count(lul, IW_CM_EVENT_CONNECT_REQUEST) == 2,
						 cmkit_test_timeout()), 0);
	child = ul_create(test, "rejected child", UL_PASSIVE, NULL, NULL);
	spin_lock(&lul->lock);
	child->id.provider_data = lul->rec[1].provider_data;
	spin_unlock(&lul->lock);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, NULL, 0), 0);
	end_listener_and_core(test, lul, core);
}

/* ---- siw: P2P with it, and IPv6 both ways ----------------------------------- */

/*
 * Seen on 6.12.118 (the code is the same in 6.1 and 7.3): an upstream siw
 * locking bug that only a P2P initiator reaches, and none but cmkit is one
 * to siw here.  siw_rtr_data_ready(), a socket callback run in softirq,
 * calls siw_qp_socket_assoc(), which takes sk_callback_lock for writing;
 * siw_qp_llp_data_ready() takes it for reading with softirqs on when TCP
 * runs a socket's backlog in process context.  Lockdep reports the
 * inconsistent lock state at the next siw traffic of the boot (in
 * cmkit_userspace), failing the run.
 */
static const char irdma_siw_p2p_lockdep_skip[] =
	"siw: its RTR handler takes sk_callback_lock for writing in softirq, its data path for reading with softirqs on (lockdep)";

/*
 * siw as a responder grants P2P to an initiator that asks and picks Write
 * (else Read) among the offered types: cmkit's RTR gets it established.
 * Skipped under lockdep (see irdma_siw_p2p_lockdep_skip).
 */
static void irdma_p2p_connects_siw(struct kunit *test)
{
	const struct p2p_param *p = test->param_value;
	struct cmkit_mpa_offer offer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED, p->rtr, 0);
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_irdma_mpa_info info;
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	/* Only while lockdep watches: the case runs wherever it would not report. */
	if (IS_ENABLED(CONFIG_PROVE_LOCKING) && READ_ONCE(debug_locks))
		cmkit_skip(test, "%s", irdma_siw_p2p_lockdep_skip);
	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	srv->accept_pdata = siw_rep;
	srv->accept_pdata_len = sizeof(siw_rep);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);
	ul = cmkit_connect_mpa(test, core, &addr, &offer);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, siw_rep);
	info = ul_mpa(test, ul);
	KUNIT_EXPECT_TRUE(test, info.p2p);
	KUNIT_EXPECT_EQ(test, info.rtr, p->rtr);
	/* siw indicates ESTABLISHED once our RTR came in. */
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
}

static const struct p2p_param siw_p2p_params[] = {
	{ CMKIT_MPA_RTR_WRITE, 0 }, { CMKIT_MPA_RTR_READ, 0 },
};

KUNIT_ARRAY_PARAM(irdma_siw_p2p, siw_p2p_params, p2p_param_desc);

static void irdma_ipv6_connects_siw(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct sockaddr_in6 addr, src;
	struct iw_cm_conn_param param;
	struct cmkit_cm_record pr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr6(cmkit_test_port(), &addr);
	cmkit_test_addr6(0, &src);
	srv = cmkit_peer_create(test, "siw server (IPv6)");
	srv->accept_pdata = siw_rep;
	srv->accept_pdata_len = sizeof(siw_rep);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen_sa(srv, (struct sockaddr *)&addr), 0);
	ul = ul_create(test, "cmkit client (IPv6)", UL_ACTIVE, NULL, NULL);
	memcpy(&ul->id.m_local_addr, &src, sizeof(src));
	memcpy(&ul->id.local_addr, &src, sizeof(src));
	memcpy(&ul->id.m_remote_addr, &addr, sizeof(addr));
	memcpy(&ul->id.remote_addr, &addr, sizeof(addr));
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	KUNIT_EXPECT_EQ(test, pr.pdata_len, (u8)sizeof(cmkit_req));
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, siw_rep);
	KUNIT_EXPECT_EQ(test, r.remote.sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, ul->id.local_addr.ss_family, AF_INET6);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
}

static void siw_ipv6_connects_cmkit(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct cmkit_peer *cli;
	struct sockaddr_in6 addr;
	struct ul *lul, *child;
	struct ul_rec req, r;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr6(cmkit_test_port(), &addr);
	lul = ul_create(test, "cmkit listener (IPv6)", UL_LISTEN, NULL, NULL);
	memcpy(&lul->id.m_local_addr, &addr, sizeof(addr));
	memcpy(&lul->id.local_addr, &addr, sizeof(addr));
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	cli = cmkit_peer_create(test, "siw client (IPv6)");
	KUNIT_ASSERT_EQ(test, cmkit_peer_resolve_sa(cli, (struct sockaddr *)&addr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_connect(cli, siw_req, sizeof(siw_req)), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	expect_pdata(test, &req, siw_req);
	KUNIT_EXPECT_EQ(test, req.local.sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, req.remote.sin6_family, AF_INET6);
	child = cmkit_accept(test, &req);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_EXPECT_EQ(test, memcmp(pr.pdata, cmkit_rep, sizeof(cmkit_rep)), 0);
	KUNIT_ASSERT_EQ(test, rdma_disconnect(cli->id), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_CLOSE, &r), 0);
	ul_expect_clean(test, child);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	expect_nodes_freed(test, core, made0, freed0);
}

static struct kunit_case irdma_cases[] = {
	KUNIT_CASE(irdma_every_event_type_releases_its_reference),
	KUNIT_CASE(irdma_10000_events_keep_per_node_order),
	KUNIT_CASE(irdma_batches_keep_node_order_and_yield_after_the_bound),
	KUNIT_CASE_PARAM(irdma_connects_siw_accepts_then_cmkit_closes,
			 irdma_mpa_gen_params),
	KUNIT_CASE(irdma_connects_siw_accepts_then_cmkit_resets),
	KUNIT_CASE_PARAM(irdma_connects_siw_rejects_with_private_data,
			 irdma_mpa_gen_params),
	KUNIT_CASE(irdma_connect_without_listener_is_refused_once),
	KUNIT_CASE(irdma_connect_syn_timeout_reports_etimedout),
	KUNIT_CASE(siw_connects_cmkit_accepts_then_siw_closes),
	KUNIT_CASE(siw_connects_cmkit_rejects),
	KUNIT_CASE(irdma_refused_request_is_rejected_by_the_consumer),
	KUNIT_CASE(irdma_established_peer_resets),
	KUNIT_CASE(irdma_reset_ends_a_close_the_peer_ignores),
	KUNIT_CASE(irdma_destroy_listen_resets_a_peer_without_request),
	KUNIT_CASE(irdma_peer_goes_away_mid_mpa),
	KUNIT_CASE_PARAM(irdma_garbage_instead_of_mpa_reply_aborts,
			 irdma_garbage_gen_params),
	KUNIT_CASE_PARAM(irdma_bad_request_to_listener_aborts_silently,
			 irdma_bad_request_gen_params),
	KUNIT_CASE_PARAM(irdma_peer_private_data_whole_or_refused, irdma_pdata_gen_params),
	KUNIT_CASE(irdma_private_data_over_255_not_sent),
	KUNIT_CASE(irdma_close_during_last_upcall_is_refused),
	KUNIT_CASE(irdma_close_holding_node_across_last_upcall),
	KUNIT_CASE(irdma_cleanup_while_connect_has_no_socket),
	KUNIT_CASE(irdma_cleanup_after_connect_issued),
	KUNIT_CASE(irdma_cleanup_before_listener_published),
	KUNIT_CASE(irdma_cleanup_right_after_listener_published),
	KUNIT_CASE(irdma_cleanup_waits_for_a_node_being_destroyed),
	KUNIT_CASE(irdma_cleanup_tears_down_live_connections),
	KUNIT_CASE_PARAM(irdma_failure_injected, irdma_fault_gen_params),
	KUNIT_CASE_PARAM(irdma_failslab_nth_over_a_connection, irdma_nth_gen_params),
	KUNIT_CASE_PARAM(irdma_p2p_cmkit_to_cmkit, irdma_p2p_gen_params),
	KUNIT_CASE_PARAM(irdma_p2p_connect_to_strict_responder, irdma_strict_resp_gen_params),
	KUNIT_CASE_PARAM(irdma_p2p_strict_initiator_connects, irdma_strict_init_gen_params),
	KUNIT_CASE_PARAM(irdma_listener_refuses_with_a_reason, irdma_refuse_gen_params),
	KUNIT_CASE_PARAM(irdma_revision_1_and_2_with_and_without_fallback, irdma_rev_gen_params),
	KUNIT_CASE_PARAM(irdma_fallback_after_a_reset, irdma_reset_fallback_gen_params),
	KUNIT_CASE_PARAM(irdma_mpa_timer_expires, irdma_mpa_timer_gen_params),
	KUNIT_CASE(irdma_backlog_limits_pending_requests),
	KUNIT_CASE_PARAM(irdma_p2p_connects_siw, irdma_siw_p2p_gen_params),
	KUNIT_CASE(irdma_ipv6_connects_siw),
	KUNIT_CASE(siw_ipv6_connects_cmkit),
	{}
};

/* No fault a case armed outlives it, whether or not it fired. */
static void irdma_case_exit(struct kunit *test)
{
	cmkit_fault_disarm(&cmkit_irdma_fault_points);
}

struct kunit_suite cmkit_irdma_suite = {
	.name = "cmkit_irdma",
	.exit = irdma_case_exit,
	.test_cases = irdma_cases,
};
