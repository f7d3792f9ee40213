// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_rpcrdma: rpcrdma_cm_event_handler() on rxe0 and siw0.
 *
 * Every case that a device can produce is driven for real against an
 * in-kernel listener (kunit/cm_peer.c).  What neither device produces within
 * seconds (ADDR_CHANGE, UNREACHABLE, CONNECT_ERROR, ROUTE_ERROR, events the
 * handler ignores) is driven by calling the handler with a constructed event
 * on a real id and a real ep, under the id's handler mutex as rdma_cm would;
 * those cases say "constructed" in their names.
 *
 * The handler's decisions are read from its own tracepoint
 * (cmkit_rpcrdma:rpcrdma_cm_event: event, old and new connect status,
 * return value); object lifetimes from cmkit's counters: at the end of each
 * case every ep allocated was freed once and every id created was destroyed
 * once, either by cmkit or by rdma_cm after the handler returned 1.
 */
#include <linux/kthread.h>
#include <linux/slab.h>
#include <kunit/resource.h>
#include <rdma/ib_cm.h>

#include "cmkit_test.h"
#include "../rpcrdma.h"
#include "../rpcrdma_trace.h"

#define RT_INLINE	4096U
#define RT_LOG_MAX	64

/* ---- what the handler decided, from its tracepoint ------------------- */

struct rt_decision {
	const void *id;
	enum rdma_cm_event_type event;
	int old_status;
	int new_status;
	int rc;
};

static struct {
	spinlock_t lock;	/* the probe runs in any context */
	wait_queue_head_t wait;
	unsigned int nr;
	struct rt_decision d[RT_LOG_MAX];
} rt_log;

static void rt_probe(void *data, u32 xid, const struct rdma_cm_id *id,
		     const struct rdma_cm_event *event, int old_status,
		     int new_status, int rc)
{
	unsigned long flags;

	spin_lock_irqsave(&rt_log.lock, flags);
	if (rt_log.nr < RT_LOG_MAX)
		rt_log.d[rt_log.nr++] = (struct rt_decision){
			.id = id, .event = event->event, .old_status = old_status,
			.new_status = new_status, .rc = rc,
		};
	spin_unlock_irqrestore(&rt_log.lock, flags);
	wake_up_all(&rt_log.wait);
}

static bool rt_find(enum rdma_cm_event_type event, struct rt_decision *out)
{
	unsigned long flags;
	bool found = false;
	unsigned int i;

	spin_lock_irqsave(&rt_log.lock, flags);
	for (i = 0; i < rt_log.nr && !found; i++) {
		if (rt_log.d[i].event == event) {
			*out = rt_log.d[i];
			found = true;
		}
	}
	spin_unlock_irqrestore(&rt_log.lock, flags);
	return found;
}

static unsigned int rt_count(enum rdma_cm_event_type event)
{
	unsigned long flags;
	unsigned int i, n = 0;

	spin_lock_irqsave(&rt_log.lock, flags);
	for (i = 0; i < rt_log.nr; i++)
		n += rt_log.d[i].event == event;
	spin_unlock_irqrestore(&rt_log.lock, flags);
	return n;
}

/* Wait until the handler has decided on @event; fail the test if it never does. */
static struct rt_decision rt_wait_decision(struct kunit *test, enum rdma_cm_event_type event)
{
	struct rt_decision d = { };

	KUNIT_ASSERT_TRUE_MSG(test, wait_event_timeout(rt_log.wait, rt_find(event, &d),
						       cmkit_test_timeout()),
			      "the handler never saw %s", rdma_event_msg(event));
	return d;
}

/* ---- object counts ------------------------------------------------------ */

struct rt_counts {
	int eps_created, eps_freed, ids_created, ids_destroyed, ids_returned;
};

static struct rt_counts rt_counts_now(void)
{
	return (struct rt_counts){
		.eps_created = atomic_read(&rpcrdma_stats.eps_created),
		.eps_freed = atomic_read(&rpcrdma_stats.eps_freed),
		.ids_created = atomic_read(&rpcrdma_stats.ids_created),
		.ids_destroyed = atomic_read(&rpcrdma_stats.ids_destroyed),
		.ids_returned = atomic_read(&rpcrdma_stats.ids_returned),
	};
}

struct rt_ctx {
	struct kunit *test;
	const struct cmkit_dev_param *param;
	struct cmkit_peer *srv;
	struct sockaddr_in addr;
	struct rpcrdma_xprt *xprt;
	struct rt_counts base;
};

static bool rt_all_released(const struct rt_ctx *c)
{
	struct rt_counts now = rt_counts_now();

	return now.eps_created - c->base.eps_created == now.eps_freed - c->base.eps_freed &&
	       now.ids_created - c->base.ids_created ==
	       (now.ids_destroyed - c->base.ids_destroyed) +
	       (now.ids_returned - c->base.ids_returned);
}

/* Every ep freed once, every id destroyed once: by cmkit or by rdma_cm. */
static void rt_expect_all_released(struct rt_ctx *c)
{
	struct kunit *test = c->test;
	struct rt_counts now;

	KUNIT_ASSERT_TRUE_MSG(test, wait_var_event_timeout(&rpcrdma_stats,
							   rt_all_released(c),
							   cmkit_test_timeout()),
			      "an ep was never freed or an id never destroyed");
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, now.eps_created - c->base.eps_created,
			now.eps_freed - c->base.eps_freed);
	KUNIT_EXPECT_EQ(test, now.ids_created - c->base.ids_created,
			(now.ids_destroyed - c->base.ids_destroyed) +
			(now.ids_returned - c->base.ids_returned));
}

static int rt_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void rt_xprt_free(struct kunit_resource *res)
{
	cmkit_rpcrdma_xprt_destroy(res->data);
}

static struct rpcrdma_xprt *rt_xprt(struct rt_ctx *c, const struct sockaddr_in *dst)
{
	struct rpcrdma_xprt *x;

	x = cmkit_rpcrdma_xprt_create((const struct sockaddr *)dst, RT_INLINE, RT_INLINE);
	KUNIT_ASSERT_NOT_NULL(c->test, x);
	if (!kunit_alloc_resource(c->test, rt_res_init, rt_xprt_free, GFP_KERNEL, x)) {
		cmkit_rpcrdma_xprt_destroy(x);
		KUNIT_ASSERT_TRUE_MSG(c->test, false, "cannot track the transport");
	}
	return x;
}

/* A listener on the device under test and a transport aimed at it. */
static void rt_setup(struct kunit *test, struct rt_ctx *c, bool listen)
{
	memset(c, 0, sizeof(*c));
	c->test = test;
	c->param = test->param_value;
	cmkit_test_require_device(test, c->param);
	cmkit_test_addr(c->param, cmkit_test_port(), &c->addr);
	c->base = rt_counts_now();
	c->srv = cmkit_peer_create(test, "server");
	if (listen)
		KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c->srv, &c->addr), 0);
	c->xprt = rt_xprt(c, &c->addr);
}

static u8 rt_server_cmp[CMKIT_RPCRDMA_CMP_LEN];

/* ---- connection cases ---------------------------------------------------- */

/*
 * The client is ESTABLISHED on the REP, the server only on the RTU: until
 * then the server cannot send a DREQ (rdma_disconnect() sends nothing).
 */
static void rt_server_established(struct rt_ctx *c)
{
	struct cmkit_cm_record r;

	KUNIT_ASSERT_EQ(c->test, cmkit_peer_wait(c->srv, RDMA_CM_EVENT_ESTABLISHED, &r), 0);
}

static void rt_remote_disconnect_and_check(struct rt_ctx *c)
{
	struct kunit *test = c->test;
	struct rt_decision d;

	rt_server_established(c);
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(c->srv), 0);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.new_status, -ECONNABORTED);
	rt_expect_all_released(c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->xprt->rx_force_count), 1);
	KUNIT_EXPECT_PTR_EQ(test, c->xprt->rx_ep, NULL);
	/* 1 exactly when the handler's put was the last one. */
	KUNIT_EXPECT_EQ(test, d.rc, atomic_read(&rpcrdma_stats.ids_returned) -
				    c->base.ids_returned);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

static void connect_with_rfc8797_data_lowers_sizes_then_remote_disconnect(struct kunit *test)
{
	struct cmkit_rpcrdma_cmp ours;
	struct cmkit_cm_record r;
	struct rpcrdma_ep *ep;
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup(test, &c, false);
	/* The server sends at most 2 KiB and receives 3 KiB. */
	cmkit_rpcrdma_cmp_encode(rt_server_cmp, 0, 2048, 3072);
	c.srv->accept_pdata = rt_server_cmp;
	c.srv->accept_pdata_len = sizeof(rt_server_cmp);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);

	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	ep = c.xprt->rx_ep;
	KUNIT_ASSERT_NOT_NULL(test, ep);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), 1);
	KUNIT_EXPECT_EQ(test, ep->re_async_rc, 0);
	KUNIT_EXPECT_TRUE(test, ep->re_peer_cmp);
	KUNIT_EXPECT_EQ(test, ep->re_inline_recv, 2048U);
	KUNIT_EXPECT_EQ(test, ep->re_inline_send, 3072U);
	d = rt_wait_decision(test, RDMA_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, d.old_status, 0);
	KUNIT_EXPECT_EQ(test, d.new_status, 1);
	KUNIT_EXPECT_EQ(test, d.rc, 0);

	/* What we sent: our sizes and the Send With Invalidate flag. */
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(c.srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r), 0);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_cmp_decode(r.pdata, r.pdata_len, &ours), 1);
	KUNIT_EXPECT_EQ(test, ours.send_size, RT_INLINE);
	KUNIT_EXPECT_EQ(test, ours.recv_size, RT_INLINE);
	KUNIT_EXPECT_EQ(test, ours.flags, CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK);

	rt_remote_disconnect_and_check(&c);
}

static void connect_without_private_data_keeps_defaults_then_remote_disconnect(struct kunit *test)
{
	struct rpcrdma_ep *ep;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	ep = c.xprt->rx_ep;
	KUNIT_ASSERT_NOT_NULL(test, ep);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), 1);
	KUNIT_EXPECT_FALSE(test, ep->re_peer_cmp);
	KUNIT_EXPECT_EQ(test, ep->re_inline_recv, CMKIT_RPCRDMA_DEFAULT_INLINE);
	KUNIT_EXPECT_EQ(test, ep->re_inline_send, CMKIT_RPCRDMA_DEFAULT_INLINE);
	rt_remote_disconnect_and_check(&c);
}

static void local_disconnect_while_connected_releases_once(struct kunit *test)
{
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.new_status, -ECONNABORTED);
	rt_expect_all_released(&c);
	/* The gate was shut before rdma_disconnect(): no second close. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 0);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

/* A connect or disconnect on a work item, so the test can act meanwhile. */
struct rt_async {
	struct work_struct work;
	struct rpcrdma_xprt *xprt;
	struct completion done;
	int rc;
};

static void rt_connect_work(struct work_struct *work)
{
	struct rt_async *a = container_of(work, struct rt_async, work);

	a->rc = cmkit_rpcrdma_xprt_connect(a->xprt);
	complete(&a->done);
}

static void rt_disconnect_work(struct work_struct *work)
{
	struct rt_async *a = container_of(work, struct rt_async, work);

	cmkit_rpcrdma_xprt_disconnect(a->xprt);
	complete(&a->done);
}

static struct rt_async *rt_async_start(struct kunit *test, struct rpcrdma_xprt *x,
				       work_func_t fn)
{
	struct rt_async *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->xprt = x;
	init_completion(&a->done);
	INIT_WORK(&a->work, fn);
	queue_work(system_unbound_wq, &a->work);
	return a;
}

static int rt_async_wait(struct kunit *test, struct rt_async *a)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&a->done,
								cmkit_test_timeout()),
			      "connect or disconnect did not return");
	return a->rc;
}

static void remote_then_local_disconnect_race(struct kunit *test)
{
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_server_established(&c);
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(c.srv), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_LE(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_LE(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

static void local_then_remote_disconnect_race(struct kunit *test)
{
	struct rt_async *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_server_established(&c);
	a = rt_async_start(test, c.xprt, rt_disconnect_work);
	cmkit_peer_disconnect(c.srv);	/* may find the connection gone: fine */
	rt_async_wait(test, a);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	KUNIT_EXPECT_LE(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_LE(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

static void completion_error_forces_one_disconnect(struct kunit *test)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct rpcrdma_ep *ep;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	ep = c.xprt->rx_ep;
	rt_server_established(&c);
	/* Every posted Receive flushes: the first flush asks for the close. */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(ep->re_id->qp, &attr, IB_QP_STATE), 0);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
}

static void rt_expect_refused(struct rt_ctx *c, int want)
{
	struct kunit *test = c->test;
	struct rt_decision d;

	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_connect(c->xprt), want);
	KUNIT_EXPECT_PTR_EQ(test, c->xprt->rx_ep, NULL);
	d = rt_wait_decision(test, RDMA_CM_EVENT_REJECTED);
	KUNIT_EXPECT_EQ(test, d.old_status, 0);
	KUNIT_EXPECT_EQ(test, d.new_status, want);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_expect_all_released(c);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_ESTABLISHED), 0U);
}

static void listener_rejects_sets_econnrefused(struct kunit *test)
{
	struct rt_ctx c;

	rt_setup(test, &c, false);
	c.srv->reject = true;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	rt_expect_refused(&c, -ECONNREFUSED);
}

static void rejected_stale_conn_sets_enotconn_on_roce_only(struct kunit *test)
{
	struct rt_ctx c;

	rt_setup(test, &c, false);
	c.srv->reject = true;
	c.srv->reject_reason = IB_CM_REJ_STALE_CONN;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	/* iWARP carries no IB reject reason: its status is -ECONNREFUSED. */
	rt_expect_refused(&c, c.param->transport == CMKIT_RXE ? -ENOTCONN : -ECONNREFUSED);
}

static void no_listener_is_refused(struct kunit *test)
{
	struct rt_ctx c;

	rt_setup(test, &c, false);
	if (c.param->transport == CMKIT_RXE) {
		/* ib_cm answers the REQ with a REJ (invalid service id). */
		rt_expect_refused(&c, -ECONNREFUSED);
		return;
	}
	/* siw connects its TCP socket inside rdma_connect(): no event at all. */
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), -ECONNREFUSED);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_REJECTED), 0U);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_ESTABLISHED), 0U);
}

static void address_without_rdma_device_sets_eproto(struct kunit *test)
{
	struct rt_decision d;
	struct sockaddr_in dst;
	struct rt_ctx c;

	rt_setup(test, &c, false);
	cmkit_test_nodev_addr(cmkit_test_port(), &dst);
	c.xprt = rt_xprt(&c, &dst);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), -EPROTO);
	d = rt_wait_decision(test, RDMA_CM_EVENT_ADDR_ERROR);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	rt_expect_all_released(&c);
}

/* ---- device removal ----------------------------------------------------- */

/* Start removing the device when the handler sees a given event. */
struct rt_trigger {
	struct kunit *test;
	const struct cmkit_dev_param *param;
	enum rdma_cm_event_type on;
	struct cmkit_removal *removal;
	struct completion fired;
};

static void rt_remove_on_event(struct rpcrdma_xprt *x, struct rdma_cm_id *id,
			       const struct rdma_cm_event *event)
{
	struct rt_trigger *t = x->rx_private;

	if (event->event != t->on || completion_done(&t->fired))
		return;
	/* Runs under the id's handler mutex: the removal waits for it. */
	t->removal = cmkit_test_remove_device(t->test, t->param);
	complete(&t->fired);
}

static const struct rpcrdma_xprt_ops rt_remove_ops = {
	.cm_event = rt_remove_on_event,
};

static void rt_expect_removed(struct rt_ctx *c, struct cmkit_removal *removal)
{
	struct kunit *test = c->test;

	KUNIT_ASSERT_NOT_NULL(test, removal);
	KUNIT_EXPECT_EQ_MSG(test, cmkit_test_wait_removed(removal), 0,
			    "the device removal hung: a CM id was never destroyed");
	rt_expect_all_released(c);
	KUNIT_EXPECT_PTR_EQ(test, c->xprt->rx_ep, NULL);
	KUNIT_EXPECT_LE(test, rt_count(RDMA_CM_EVENT_DEVICE_REMOVAL), 1U);
}

/* Seen once on 7.3.4; the connecting and connected cases still cover siw. */
static const char rt_siw_resolving_removal_skip[] =
	"siw: a removal overtaking the MPA exchange hung iw_cm/siw teardown";

static void device_removal_started_while_resolving_releases_the_id(struct kunit *test)
{
	struct rt_trigger t = { .test = test, .on = RDMA_CM_EVENT_ADDR_RESOLVED };
	struct rt_decision d;
	struct rt_ctx c;
	int rc;

	if (((const struct cmkit_dev_param *)test->param_value)->transport == CMKIT_SIW)
		cmkit_skip(test, "%s", rt_siw_resolving_removal_skip);
	rt_setup(test, &c, true);
	t.param = c.param;
	init_completion(&t.fired);
	c.xprt->rx_ops = &rt_remove_ops;
	c.xprt->rx_private = &t;
	rc = cmkit_rpcrdma_xprt_connect(c.xprt);
	KUNIT_ASSERT_TRUE(test, completion_done(&t.fired));
	/*
	 * The removal starts once the address resolved; how far the connect
	 * gets before rdma_cm delivers DEVICE_REMOVAL depends on the kernel
	 * (6.12 fails the route step, 6.1 may even connect first, siw may see
	 * ESTABLISHED and the removal before connect reads the status).  Either
	 * way the id must be released exactly once and the removal finish.
	 */
	if (rc == 0) {
		d = rt_wait_decision(test, RDMA_CM_EVENT_DEVICE_REMOVAL);
		KUNIT_EXPECT_EQ(test, d.old_status, 1);
		KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	}
	rt_expect_removed(&c, t.removal);
}

static void device_removal_while_connecting_wakes_the_connect(struct kunit *test)
{
	struct cmkit_removal *removal;
	struct cmkit_cm_record r;
	struct rt_decision d;
	struct rt_async *a;
	struct rt_ctx c;

	rt_setup(test, &c, false);
	c.srv->hold_requests = true;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	a = rt_async_start(test, c.xprt, rt_connect_work);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(c.srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r), 0);
	removal = cmkit_test_remove_device(test, c.param);
	KUNIT_EXPECT_EQ(test, rt_async_wait(test, a), -ENODEV);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, d.old_status, 0);
	KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_expect_removed(&c, removal);
}

static void device_removal_while_connected_releases_the_id(struct kunit *test)
{
	struct cmkit_removal *removal;
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	removal = cmkit_test_remove_device(test, c.param);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	rt_expect_removed(&c, removal);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	/* 1 exactly when the handler's put was the last one. */
	KUNIT_EXPECT_EQ(test, d.rc, atomic_read(&rpcrdma_stats.ids_returned) -
				    c.base.ids_returned);
}

/* ---- constructed events on a real id and a real ep ----------------------- */

static int rt_inject(struct rdma_cm_id *id, enum rdma_cm_event_type type, int status)
{
	struct rdma_cm_event ev = { .event = type, .status = status };
	int rc;

	rdma_lock_handler(id);
	rc = rpcrdma_cm_event_handler(id, &ev);
	rdma_unlock_handler(id);
	return rc;
}

/* A thread asleep on the ep's connect wait queue, as cmkit_rpcrdma_xprt_connect() is. */
struct rt_waiter {
	struct work_struct work;
	struct rpcrdma_ep *ep;
	struct completion woke;
};

static void rt_waiter_work(struct work_struct *work)
{
	struct rt_waiter *w = container_of(work, struct rt_waiter, work);

	if (wait_event_timeout(w->ep->re_connect_wait,
			       READ_ONCE(w->ep->re_connect_status) != 0,
			       cmkit_test_timeout()))
		complete(&w->woke);
}

static struct rt_waiter *rt_waiter_start(struct kunit *test, struct rpcrdma_ep *ep)
{
	struct rt_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned long deadline = jiffies + cmkit_test_timeout();

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->ep = ep;
	init_completion(&w->woke);
	INIT_WORK(&w->work, rt_waiter_work);
	queue_work(system_unbound_wq, &w->work);
	/* Only a waiter already on the queue shows that the handler wakes it. */
	while (!wq_has_sleeper(&ep->re_connect_wait)) {
		KUNIT_ASSERT_TRUE_MSG(test, time_before(jiffies, deadline),
				      "the waiter never went to sleep");
		schedule_timeout_uninterruptible(1);
	}
	return w;
}

static void rt_waiter_expect_woken(struct kunit *test, struct rt_waiter *w)
{
	KUNIT_EXPECT_TRUE_MSG(test, wait_for_completion_timeout(&w->woke,
								cmkit_test_timeout()),
			      "the handler did not wake the connect waiter");
	flush_work(&w->work);
}

/* A resolved, unconnected endpoint: the state in which connect waits. */
static struct rpcrdma_ep *rt_connecting_ep(struct rt_ctx *c)
{
	KUNIT_ASSERT_EQ(c->test, rpcrdma_ep_create(c->xprt), 0);
	KUNIT_ASSERT_NOT_NULL(c->test, c->xprt->rx_ep);
	return c->xprt->rx_ep;
}

static void rt_constructed_connecting_case(struct kunit *test,
					   enum rdma_cm_event_type type, int want)
{
	struct rt_waiter *w;
	struct rpcrdma_ep *ep;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	ep = rt_connecting_ep(&c);
	w = rt_waiter_start(test, ep);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, type, 0), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), want);
	rt_waiter_expect_woken(test, w);
	KUNIT_EXPECT_EQ(test, kref_read(&ep->re_kref), 1U);	/* nothing dropped */
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

static void constructed_addr_change_before_established_wakes_without_put(struct kunit *test)
{
	rt_constructed_connecting_case(test, RDMA_CM_EVENT_ADDR_CHANGE, -ENODEV);
}

static void constructed_unreachable_sets_enetunreach(struct kunit *test)
{
	rt_constructed_connecting_case(test, RDMA_CM_EVENT_UNREACHABLE, -ENETUNREACH);
}

static void constructed_connect_error_sets_enotconn(struct kunit *test)
{
	rt_constructed_connecting_case(test, RDMA_CM_EVENT_CONNECT_ERROR, -ENOTCONN);
}

static void constructed_addr_change_when_connected_forces_once_without_put(struct kunit *test)
{
	struct rpcrdma_ep *ep;
	unsigned int refs;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	ep = c.xprt->rx_ep;
	/* Hold the transport's lock so the forced close cannot free ep yet. */
	mutex_lock(&c.xprt->rx_lock);
	refs = kref_read(&ep->re_kref);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, RDMA_CM_EVENT_ADDR_CHANGE, 0), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&ep->re_kref), refs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), -ENODEV);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, RDMA_CM_EVENT_ADDR_CHANGE, 0), 0);
	mutex_unlock(&c.xprt->rx_lock);
	/* The forced close ends in a real DISCONNECTED, which drops ESTABLISHED's. */
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
}

static void constructed_route_error_sets_async_rc(struct kunit *test)
{
	struct rpcrdma_ep *ep;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	ep = rt_connecting_ep(&c);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, RDMA_CM_EVENT_ROUTE_ERROR, -ETIMEDOUT), 0);
	KUNIT_EXPECT_EQ(test, ep->re_async_rc, -ENETUNREACH);
	KUNIT_EXPECT_TRUE(test, completion_done(&ep->re_done));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

static void constructed_other_events_are_ignored(struct kunit *test)
{
	/* Includes the four 7.x additions by value: they must hit default. */
	static const int ignored[] = {
		RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_RESPONSE,
		RDMA_CM_EVENT_MULTICAST_JOIN, RDMA_CM_EVENT_MULTICAST_ERROR,
		RDMA_CM_EVENT_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT + 1,
		RDMA_CM_EVENT_TIMEWAIT_EXIT + 2, RDMA_CM_EVENT_TIMEWAIT_EXIT + 3,
		RDMA_CM_EVENT_TIMEWAIT_EXIT + 4,
	};
	struct rpcrdma_ep *ep;
	struct rt_ctx c;
	int i;

	rt_setup(test, &c, true);
	ep = rt_connecting_ep(&c);
	for (i = 0; i < ARRAY_SIZE(ignored); i++) {
		KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, ignored[i], 0), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), 0);
		KUNIT_EXPECT_EQ(test, kref_read(&ep->re_kref), 1U);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/* ---- the handler runs under the id's handler mutex ------------------------ */

struct rt_blocker {
	struct completion entered;
	struct completion release;
	atomic_t seq;
	int handler_left;	/* seq when the blocked handler went on */
	int locker_got;		/* seq when the other thread got the mutex */
	struct rdma_cm_id *id;
	struct completion locking;
	struct completion locked;
	struct work_struct locker;
};

static void rt_block_established(struct rpcrdma_xprt *x, struct rdma_cm_id *id,
				 const struct rdma_cm_event *event)
{
	struct rt_blocker *b = x->rx_private;

	if (event->event != RDMA_CM_EVENT_ESTABLISHED)
		return;
	complete(&b->entered);
	wait_for_completion_timeout(&b->release, cmkit_test_timeout());
	b->handler_left = atomic_inc_return(&b->seq);
}

static const struct rpcrdma_xprt_ops rt_block_ops = {
	.cm_event = rt_block_established,
};

static void rt_locker_work(struct work_struct *work)
{
	struct rt_blocker *b = container_of(work, struct rt_blocker, locker);

	complete(&b->locking);
	rdma_lock_handler(b->id);
	b->locker_got = atomic_inc_return(&b->seq);
	rdma_unlock_handler(b->id);
	complete(&b->locked);
}

static void handler_runs_under_the_id_handler_mutex(struct kunit *test)
{
	struct rt_blocker *b;
	struct rt_async *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	init_completion(&b->entered);
	init_completion(&b->release);
	init_completion(&b->locking);
	init_completion(&b->locked);
	INIT_WORK(&b->locker, rt_locker_work);
	c.xprt->rx_ops = &rt_block_ops;
	c.xprt->rx_private = b;

	a = rt_async_start(test, c.xprt, rt_connect_work);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&b->entered,
							    cmkit_test_timeout()));
	b->id = c.xprt->rx_ep->re_id;	/* the ep lives: it is connecting */
	queue_work(system_unbound_wq, &b->locker);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&b->locking,
							    cmkit_test_timeout()));
	/* A window for a broken contract to show: the locker must not get in. */
	KUNIT_EXPECT_FALSE(test, wait_for_completion_timeout(&b->locked,
							     msecs_to_jiffies(500)));
	complete(&b->release);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&b->locked,
							    cmkit_test_timeout()));
	flush_work(&b->locker);
	KUNIT_EXPECT_GT(test, b->locker_got, b->handler_left);
	KUNIT_EXPECT_EQ(test, rt_async_wait(test, a), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/* ---- module unload --------------------------------------------------------- */

static void unload_tears_down_live_endpoints(struct kunit *test)
{
	struct cmkit_peer *srv2;
	struct rpcrdma_xprt *x2;
	struct sockaddr_in addr2;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	cmkit_test_addr(c.param, cmkit_test_port(), &addr2);
	srv2 = cmkit_peer_create(test, "server2");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv2, &addr2), 0);
	x2 = rt_xprt(&c, &addr2);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(x2), 0);

	/* What cmkit's module exit runs. */
	rpcrdma_teardown_all();
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	KUNIT_EXPECT_PTR_EQ(test, x2->rx_ep, NULL);
	KUNIT_EXPECT_TRUE(test, rt_all_released(&c));
	rt_expect_all_released(&c);
}

/* ---- suite ----------------------------------------------------------------- */

static int rt_init(struct kunit *test)
{
	unsigned long flags;

	spin_lock_irqsave(&rt_log.lock, flags);
	rt_log.nr = 0;
	spin_unlock_irqrestore(&rt_log.lock, flags);
	return 0;
}

static int rt_suite_init(struct kunit_suite *suite)
{
	spin_lock_init(&rt_log.lock);
	init_waitqueue_head(&rt_log.wait);
	return register_trace_rpcrdma_cm_event(rt_probe, NULL);
}

static void rt_suite_exit(struct kunit_suite *suite)
{
	unregister_trace_rpcrdma_cm_event(rt_probe, NULL);
	tracepoint_synchronize_unregister();
}

KUNIT_ARRAY_PARAM(rt_dev, cmkit_dev_params, cmkit_dev_param_desc);

#define RT_CASE(fn) KUNIT_CASE_PARAM(fn, rt_dev_gen_params)

static struct kunit_case rt_cases[] = {
	RT_CASE(connect_with_rfc8797_data_lowers_sizes_then_remote_disconnect),
	RT_CASE(connect_without_private_data_keeps_defaults_then_remote_disconnect),
	RT_CASE(local_disconnect_while_connected_releases_once),
	RT_CASE(remote_then_local_disconnect_race),
	RT_CASE(local_then_remote_disconnect_race),
	RT_CASE(completion_error_forces_one_disconnect),
	RT_CASE(listener_rejects_sets_econnrefused),
	RT_CASE(rejected_stale_conn_sets_enotconn_on_roce_only),
	RT_CASE(no_listener_is_refused),
	RT_CASE(address_without_rdma_device_sets_eproto),
	RT_CASE(constructed_addr_change_before_established_wakes_without_put),
	RT_CASE(constructed_addr_change_when_connected_forces_once_without_put),
	RT_CASE(constructed_unreachable_sets_enetunreach),
	RT_CASE(constructed_connect_error_sets_enotconn),
	RT_CASE(constructed_route_error_sets_async_rc),
	RT_CASE(constructed_other_events_are_ignored),
	RT_CASE(handler_runs_under_the_id_handler_mutex),
	RT_CASE(unload_tears_down_live_endpoints),
	RT_CASE(device_removal_started_while_resolving_releases_the_id),
	RT_CASE(device_removal_while_connecting_wakes_the_connect),
	RT_CASE(device_removal_while_connected_releases_the_id),
	{}
};

struct kunit_suite cmkit_rpcrdma_suite = {
	.name = "cmkit_rpcrdma",
	.init = rt_init,
	.suite_init = rt_suite_init,
	.suite_exit = rt_suite_exit,
	.test_cases = rt_cases,
};
