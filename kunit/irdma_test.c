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
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/trace_events.h>
#include <net/sock.h>

#include "cmkit_test.h"
#include "irdma_cm.h"
#include "irdma_trace.h"

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
	struct sockaddr_in local;
	struct sockaddr_in remote;
};

/**
 * struct ul - a recording upper layer
 * @id: the iw_cm_id handed to cmkit
 * @role: listener, connecting id, or accepted id
 * @name: label for messages
 * @lock: protects everything below
 * @wait: woken on every upcall and reference drop
 * @refs: add_ref() minus rem_ref()
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
	return 0;
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
		irdma_cleanup_cm_core(core);
	kfree(core);
}

/* A core of the test's own, cleaned up (if the test did not) at its end. */
static struct irdma_cm_core *private_core(struct kunit *test)
{
	struct irdma_cm_core *core = kzalloc_obj(*core, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, core);
	if (irdma_setup_cm_core(core)) {
		kfree(core);
		KUNIT_ASSERT_TRUE_MSG(test, false, "irdma_setup_cm_core failed");
	}
	if (!kunit_alloc_resource(test, ul_res_init, core_res_free, GFP_KERNEL, core)) {
		irdma_cleanup_cm_core(core);
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
	{ IRDMA_CM_EVENT_ABORTED, IRDMA_CM_UL_NONE, UL_ACTIVE },
	{ IRDMA_CM_EVENT_RESET, IRDMA_CM_UL_CLOSED, UL_ACTIVE },
	{ IRDMA_CM_EVENT_MPA_REQ, IRDMA_CM_UL_NONE, UL_LISTEN, false,
	  IW_CM_EVENT_CONNECT_REQUEST, 0, 0 },
};

static void irdma_every_event_type_releases_its_reference(struct kunit *test)
{
	const enum irdma_cm_event_type connected = IRDMA_CM_EVENT_CONNECTED;
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = { .loc_addr = 1, .rem_addr = 2 };
	unsigned int i;

	quiet_traces(test);
	for (i = 0; i < ARRAY_SIZE(event_cases); i++) {
		const struct event_case *c = &event_cases[i];
		struct irdma_cm_node *node;
		struct ul_rec r;
		struct ul *ul;
		struct iw_cm_id child = {};
		unsigned int first;

		ul = ul_create(test, "constructed", c->role, NULL, NULL);
		ul->accepted = c->ul_state == IRDMA_CM_UL_ACCEPTED;
		node = irdma_make_cm_node(core, &ul->id, &info);
		KUNIT_ASSERT_NOT_NULL(test, node);
		node->ul_state = c->ul_state;
		irdma_add_ref_cm_node(node);	/* keep it to look at */
		if (c->connected)
			KUNIT_ASSERT_NOT_NULL(test, irdma_create_event(node, connected));
		KUNIT_ASSERT_NOT_NULL(test, irdma_create_event(node, c->type));
		flush_workqueue(core->event_wq);
		first = c->connected ? 1 : 0;

		KUNIT_EXPECT_EQ_MSG(test, refcount_read(&node->refcnt), c->ends ? 1 : 2,
				    "case %u (%s)", i, irdma_cm_event_name(c->type));
		KUNIT_EXPECT_EQ_MSG(test, test_bit(IRDMA_CM_NODE_BASE_PUT, &node->flags),
				    c->ends, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, ul->nr,
				    first + (c->up1 ? 1U : 0U) + (c->up2 ? 1U : 0U),
				    "case %u (%s)", i, irdma_cm_event_name(c->type));
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
			KUNIT_ASSERT_EQ(test, ul_wait(ul, c->up1, &r), 0);
			child.provider_data = r.provider_data;
			KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child, NULL, 0), 0);
		}
		KUNIT_EXPECT_EQ_MSG(test, ul->violations, 0U, "%s", ul->why);
		irdma_cm_node_put_base(node);
		irdma_rem_ref_cm_node(node);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_posted),
			atomic_read(&core->stats.events_handled));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), (int)i);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_freed), (int)i);
	irdma_cleanup_cm_core(core);
}

#define ORDER_NODES	100
#define ORDER_EVENTS	100

/*
 * Interleave 100 events on each of 100 nodes: CONNECTED first, DISCONN
 * last, ignored types between.  Out of order, an upper layer would see
 * DISCONNECT before CONNECT_REPLY (a rule violation) and the handler's
 * sequence check would count it.
 */
static void irdma_10000_events_keep_per_node_order(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = { .loc_addr = 1, .rem_addr = 2 };
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
		nodes[i] = irdma_make_cm_node(core, &uls[i]->id, &info);
		KUNIT_ASSERT_NOT_NULL(test, nodes[i]);
		nodes[i]->ul_state = IRDMA_CM_UL_CONN_SENT;
	}
	for (k = 0; k < ORDER_EVENTS; k++) {
		enum irdma_cm_event_type type = IRDMA_CM_EVENT_MPA_CONNECT;

		if (k == 0)
			type = IRDMA_CM_EVENT_CONNECTED;
		else if (k == ORDER_EVENTS - 1)
			type = IRDMA_CM_EVENT_DISCONN;
		for (i = 0; i < ORDER_NODES; i++)
			KUNIT_ASSERT_NOT_NULL(test, irdma_create_event(nodes[i], type));
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
	irdma_cleanup_cm_core(core);
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

static void conn_param_init(struct iw_cm_conn_param *p, const char *pdata, u32 ird,
			    u32 ord)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = pdata ? strlen(pdata) + 1 : 0;
	p->ird = ird;
	p->ord = ord;
}

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
	/* We asked for 4/4; siw (IRD 4, relaxed) leaves both as they are. */
	KUNIT_EXPECT_EQ(test, r.ird, 4);
	KUNIT_EXPECT_EQ(test, r.ord, 4);
	KUNIT_EXPECT_EQ(test, ntohs(r.remote.sin_port), ntohs(addr.sin_port));
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
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
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
}

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
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	/* Not our own request's private data handed back as the peer's. */
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
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
	/* cm_peer's responder_resources: siw's enhanced request says IRD 1. */
	KUNIT_EXPECT_EQ(test, req->ird, 1);
	KUNIT_EXPECT_EQ(test, req->ord, 0);
	KUNIT_EXPECT_EQ(test, ntohs(req->local.sin_port), ntohs(addr->sin_port));
	KUNIT_EXPECT_EQ(test, ntohl(req->remote.sin_addr.s_addr),
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
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(cli, CMKIT_ERROR_EVENTS), 0U);
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
}

/* ---- misbehaving peers: plain kernel TCP sockets ------------------------ */

struct raw_peer {
	struct socket *lsock;
	struct socket *sock;
};

static void raw_res_free(struct kunit_resource *res)
{
	struct raw_peer *raw = res->data;

	if (raw->sock)
		sock_release(raw->sock);
	if (raw->lsock)
		sock_release(raw->lsock);
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
	KUNIT_ASSERT_EQ(test, kernel_bind(raw->lsock, CMKIT_SA(addr), sizeof(*addr)), 0);
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
	KUNIT_ASSERT_EQ(test, kernel_connect(raw->sock, CMKIT_SA(addr), sizeof(*addr), 0), 0);
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

/* Receive cmkit's MPA request and check it with the shared parser. */
static void raw_recv_request(struct kunit *test, struct raw_peer *raw)
{
	u8 buf[CMKIT_MPA_MAX_FRAME];
	struct cmkit_mpa_frame f;
	int n;

	n = raw_recv(raw, buf, CMKIT_MPA_HDR_LEN);
	KUNIT_ASSERT_EQ(test, n, CMKIT_MPA_HDR_LEN);
	KUNIT_ASSERT_EQ(test, irdma_parse_mpa(buf, n, CMKIT_MPA_REQUEST, &f), 0);
	n += raw_recv(raw, buf + n, cmkit_get_be16(buf + 18));
	KUNIT_ASSERT_EQ(test, irdma_parse_mpa(buf, n, CMKIT_MPA_REQUEST, &f), n);
	KUNIT_EXPECT_TRUE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.ird, 4);
	KUNIT_EXPECT_EQ(test, f.ord, 4);
	KUNIT_EXPECT_EQ(test, f.ird_ctrl, 0);	/* no peer-to-peer mode */
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_req));
	KUNIT_EXPECT_EQ(test, memcmp(f.pdata, cmkit_req, sizeof(cmkit_req)), 0);
}

static void raw_reset(struct raw_peer *raw)
{
	sock_no_linger(raw->sock->sk);
	sock_release(raw->sock);
	raw->sock = NULL;
}

static const char raw_rep[] = "raw-accepts";

/* cmkit connects to @raw, which accepts with IRD/ORD 2/2: @r is the reply. */
static struct ul *raw_peer_accepts(struct kunit *test, struct irdma_cm_core *core,
				   struct raw_peer *raw, struct sockaddr_in *addr,
				   struct ul_rec *r)
{
	u8 buf[CMKIT_MPA_MAX_FRAME];
	struct ul *ul;
	int n;

	raw_listen(test, raw, addr);
	ul = cmkit_connect(test, core, addr, CMKIT_MPA_REV2);
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	n = irdma_build_mpa_v2(buf, sizeof(buf), CMKIT_MPA_REPLY, 0, 2, 2, 0, 0,
			       raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
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
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_peer_accepts(test, core, raw, &addr, &r);
	expect_pdata(test, &r, raw_rep);
	KUNIT_EXPECT_EQ(test, r.ird, 4);
	KUNIT_EXPECT_EQ(test, r.ord, 2);	/* lowered to the peer's IRD */

	/* RDMA traffic from the peer is dropped, not mistaken for a frame. */
	KUNIT_ASSERT_EQ(test, raw_send(raw, "0123456789", 10), 10);
	raw_reset(raw);
	expect_ended_by_reset(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
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
	u8 byte;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, CMKIT_MPA_KEY_REQ, 8), 8);	/* half a key */
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(core->wait,
						     atomic_read(&core->stats.nodes_made) > made0,
						     cmkit_test_timeout()), 0,
			    "the listener made no node for the connection");

	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_EXPECT_LE(test, raw_recv(raw, &byte, 1), 0);
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
	u8 buf[CMKIT_MPA_MAX_FRAME];
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;
	int n;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	raw_listen(test, raw, &addr);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	n = irdma_build_mpa_v2(buf, sizeof(buf), CMKIT_MPA_REPLY, 0, 2, 2, 0, 0,
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
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;
	u8 byte;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	raw_listen(test, raw, &addr);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	KUNIT_ASSERT_EQ(test, raw_send(raw, g->bytes, g->len), g->len);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	/* cmkit reset the connection: the peer reads no more than that. */
	KUNIT_EXPECT_LE(test, raw_recv(raw, &byte, 1), 0);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
}

enum bad_request {
	BAD_HTTP,		/* not MPA at all */
	BAD_REPLY_KEY,		/* a reply where a request belongs */
	BAD_HALF_THEN_FIN,	/* the peer goes away mid-request */
	BAD_PDATA_300,		/* valid MPA, more than an upcall carries */
};

static const char * const bad_request_names[] = {
	[BAD_HTTP] = "HTTP",
	[BAD_REPLY_KEY] = "reply key in a request",
	[BAD_HALF_THEN_FIN] = "half a request, then FIN",
	[BAD_PDATA_300] = "300 bytes of private data",
};

static const enum bad_request bad_requests[] = {
	BAD_HTTP, BAD_REPLY_KEY, BAD_HALF_THEN_FIN, BAD_PDATA_300,
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
	static u8 pdata[300];
	struct sockaddr_in addr;
	struct ul *lul;
	int n = 0;
	u8 *buf;

	buf = kunit_kzalloc(test, CMKIT_MPA_MAX_FRAME, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
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
	case BAD_PDATA_300:
		n = irdma_build_mpa_v1(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REQUEST, 0,
				       pdata, sizeof(pdata));
		break;
	}
	KUNIT_ASSERT_GT(test, n, 0);

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	if (*bad == BAD_HALF_THEN_FIN)
		kernel_sock_shutdown(raw->sock, SHUT_WR);
	/* cmkit resets the connection; nothing comes back. */
	KUNIT_EXPECT_LE(test, raw_recv(raw, buf, 1), 0);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
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
	raw_listen(test, raw, &raw_addr);
	pending = cmkit_connect(test, core, &raw_addr, CMKIT_MPA_REV2);
	raw_accept(test, raw);
	raw_recv_request(test, raw);

	irdma_cleanup_cm_core(core);
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

static struct kunit_case irdma_cases[] = {
	KUNIT_CASE(irdma_every_event_type_releases_its_reference),
	KUNIT_CASE(irdma_10000_events_keep_per_node_order),
	KUNIT_CASE_PARAM(irdma_connects_siw_accepts_then_cmkit_closes,
			 irdma_mpa_gen_params),
	KUNIT_CASE(irdma_connects_siw_accepts_then_cmkit_resets),
	KUNIT_CASE_PARAM(irdma_connects_siw_rejects_with_private_data,
			 irdma_mpa_gen_params),
	KUNIT_CASE(irdma_connect_without_listener_is_refused_once),
	KUNIT_CASE(siw_connects_cmkit_accepts_then_siw_closes),
	KUNIT_CASE(siw_connects_cmkit_rejects),
	KUNIT_CASE(irdma_established_peer_resets),
	KUNIT_CASE(irdma_reset_ends_a_close_the_peer_ignores),
	KUNIT_CASE(irdma_destroy_listen_resets_a_peer_without_request),
	KUNIT_CASE(irdma_peer_goes_away_mid_mpa),
	KUNIT_CASE_PARAM(irdma_garbage_instead_of_mpa_reply_aborts,
			 irdma_garbage_gen_params),
	KUNIT_CASE_PARAM(irdma_bad_request_to_listener_aborts_silently,
			 irdma_bad_request_gen_params),
	KUNIT_CASE(irdma_cleanup_tears_down_live_connections),
	{}
};

struct kunit_suite cmkit_irdma_suite = {
	.name = "cmkit_irdma",
	.test_cases = irdma_cases,
};
