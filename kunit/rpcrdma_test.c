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
 * (cmkit_rpcrdma:cmkit_rpcrdma_cm_event: event, old and new connect status,
 * return value); object lifetimes from cmkit's counters: at the end of each
 * case every ep allocated was freed once, every id created was destroyed
 * once, either by cmkit or by rdma_cm after the handler returned 1, every
 * req, rep and send context lent was returned, every DMA mapping undone,
 * every Receive posted completed exactly once, and cmkit's module
 * reference count is back where it was.
 *
 * The listener is an RPC-over-RDMA server (kunit/rpc_server.c): every
 * connection that reaches ESTABLISHED carries NULL calls and checks their
 * accepted replies, and the cases under traffic hold the server's replies
 * so that they know which calls are in flight when the handler acts.
 *
 * Races are pinned, one case per order: the force-disconnect work is held
 * in its hook (rpcrdma_xprt_ops.force_work), the transport's lock or the
 * server's answer to a DREQ is held, and the case releases them in the
 * order it names.
 */
#include <linux/file.h>
#include <linux/fs_struct.h>
#include <linux/highmem.h>
#include <linux/iopoll.h>
#include <linux/kthread.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/umh.h>
#include <linux/utsname.h>
#include <kunit/resource.h>
#include <rdma/ib_cm.h>
#include <rdma/restrack.h>

#include "cmkit_test.h"
#include <cmkit/crc32c.h>
#include <cmkit/rpc_testprog.h>
#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

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

/* ---- the transport's decisions, from its tracepoints ---------------------- */

static struct {
	atomic_t flush_disconnects;	/* cmkit_rpcrdma_flush_disconnect asked for a close */
	atomic_t credit_waits;		/* a call waited for a credit */
	atomic_t drains;		/* a disconnect began its drain */
	/* A call waited for a req, its batch holding calls, the oldest in flight: */
	atomic_t req_waits_many;	/* RT_REQ_WAIT_MANY calls or more */
	atomic_t req_waits_few;		/* fewer */
	wait_queue_head_t wait;
} rt_xp;

static void rt_flush_probe(void *data, u32 xid, int rc)
{
	atomic_inc(&rt_xp.flush_disconnects);
	wake_up_all(&rt_xp.wait);
	wake_up_all(&rt_log.wait);	/* rt_broken()'s waiters */
}

static void rt_credit_wait_probe(void *data, u32 xprt, u32 outstanding, u32 credits,
				 u32 receives)
{
	atomic_inc(&rt_xp.credit_waits);
	wake_up_all(&rt_xp.wait);
}

#define RT_REQ_WAIT_MANY	16

static void rt_req_wait_probe(void *data, u32 xprt, u32 unreaped, bool head_done)
{
	if (unreaped && !head_done)
		atomic_inc(unreaped >= RT_REQ_WAIT_MANY ? &rt_xp.req_waits_many :
			   &rt_xp.req_waits_few);
	wake_up_all(&rt_xp.wait);
}

static void rt_drain_probe(void *data, u32 xid, int rc)
{
	atomic_inc(&rt_xp.drains);
	wake_up_all(&rt_xp.wait);
}

/* Wait until @counter reaches @n; fail the test if it never does. */
static void rt_wait_xp(struct kunit *test, atomic_t *counter, int n, const char *what)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_event_timeout(rt_xp.wait, atomic_read(counter) >= n,
						       cmkit_test_timeout()),
			      "never saw %s", what);
}

/* ---- object counts ------------------------------------------------------ */

struct rt_counts {
	int eps_created, eps_freed, ids_created, ids_destroyed, ids_returned;
	int reqs_got, reqs_put, reps_got, reps_put, dma_maps, dma_unmaps;
	int sendctx_got, sendctx_put, recvs_posted, recvs_done, recvs_flushed, recvs_twice;
	int sends_posted, sends_signaled, unknown_xid, replies_short, replies_bad_vers;
	int credit_waits, call_timeouts;
	int mrs_created, mrs_freed, mrs_got, mrs_put, mrs_remote_inv;
	unsigned int module_refs;
};

static struct rt_counts rt_counts_now(void)
{
	struct cmkit_rpcrdma_stats *s = &cmkit_rpcrdma_stats;

	return (struct rt_counts){
		.eps_created = atomic_read(&s->eps_created),
		.eps_freed = atomic_read(&s->eps_freed),
		.ids_created = atomic_read(&s->ids_created),
		.ids_destroyed = atomic_read(&s->ids_destroyed),
		.ids_returned = atomic_read(&s->ids_returned),
		.reqs_got = atomic_read(&s->reqs_got),
		.reqs_put = atomic_read(&s->reqs_put),
		.reps_got = atomic_read(&s->reps_got),
		.reps_put = atomic_read(&s->reps_put),
		.dma_maps = atomic_read(&s->dma_maps),
		.dma_unmaps = atomic_read(&s->dma_unmaps),
		.sendctx_got = atomic_read(&s->sendctx_got),
		.sendctx_put = atomic_read(&s->sendctx_put),
		.recvs_posted = atomic_read(&s->recvs_posted),
		.recvs_done = atomic_read(&s->recvs_done),
		.recvs_flushed = atomic_read(&s->recvs_flushed),
		.recvs_twice = atomic_read(&s->recvs_twice),
		.sends_posted = atomic_read(&s->sends_posted),
		.sends_signaled = atomic_read(&s->sends_signaled),
		.credit_waits = atomic_read(&s->credit_waits),
		.call_timeouts = atomic_read(&s->call_timeouts),
		.replies_short = atomic_read(&s->replies_short),
		.replies_bad_vers = atomic_read(&s->replies_bad_vers),
		.unknown_xid = atomic_read(&s->replies_unknown_xid),
		.mrs_created = atomic_read(&s->mrs_created),
		.mrs_freed = atomic_read(&s->mrs_freed),
		.mrs_got = atomic_read(&s->mrs_got),
		.mrs_put = atomic_read(&s->mrs_put),
		.mrs_remote_inv = atomic_read(&s->mrs_remote_inv),
		.module_refs = cmkit_rpcrdma_module_refs(),
	};
}

struct rt_ctx {
	struct kunit *test;
	const struct cmkit_dev_param *param;
	struct cmkit_peer *srv;
	struct cmkit_rpc_srv *rpc;
	struct sockaddr_in addr;
	struct rpcrdma_xprt *xprt;
	struct rt_counts base;
};

/* Since the case began: the change of the counter at @off in struct rt_counts. */
static int rt_delta(const struct rt_counts *now, const struct rt_ctx *c, size_t off)
{
	return *(const int *)((const char *)now + off) -
	       *(const int *)((const char *)&c->base + off);
}

#define RT_DELTA(now, c, field) rt_delta(&(now), (c), offsetof(struct rt_counts, field))

/*
 * Nothing the case made is alive: eps, ids and module references, and
 * everything a connection lends: reqs and reps back in their pools, send
 * contexts released, DMA mappings undone, each Receive completed once.
 */
static bool rt_all_released(const struct rt_ctx *c)
{
	struct rt_counts now = rt_counts_now();

	return RT_DELTA(now, c, eps_created) == RT_DELTA(now, c, eps_freed) &&
	       RT_DELTA(now, c, ids_created) ==
	       RT_DELTA(now, c, ids_destroyed) + RT_DELTA(now, c, ids_returned) &&
	       now.module_refs == c->base.module_refs &&
	       RT_DELTA(now, c, reqs_got) == RT_DELTA(now, c, reqs_put) &&
	       RT_DELTA(now, c, reps_got) == RT_DELTA(now, c, reps_put) &&
	       RT_DELTA(now, c, dma_maps) == RT_DELTA(now, c, dma_unmaps) &&
	       RT_DELTA(now, c, sendctx_got) == RT_DELTA(now, c, sendctx_put) &&
	       RT_DELTA(now, c, mrs_created) == RT_DELTA(now, c, mrs_freed) &&
	       RT_DELTA(now, c, mrs_got) == RT_DELTA(now, c, mrs_put) &&
	       RT_DELTA(now, c, recvs_posted) ==
	       RT_DELTA(now, c, recvs_done) + RT_DELTA(now, c, recvs_flushed);
}

/* Every ep freed once, every id destroyed once (by cmkit or by rdma_cm), and the rest. */
static void rt_expect_all_released(struct rt_ctx *c)
{
	struct kunit *test = c->test;
	struct rt_counts now;

	KUNIT_EXPECT_TRUE_MSG(test, wait_var_event_timeout(&cmkit_rpcrdma_stats,
							   rt_all_released(c),
							   cmkit_test_timeout()),
			      "something the case made was never released");
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, c, eps_created), RT_DELTA(now, c, eps_freed));
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, c, ids_created),
			RT_DELTA(now, c, ids_destroyed) + RT_DELTA(now, c, ids_returned));
	KUNIT_EXPECT_EQ(test, now.module_refs, c->base.module_refs);
	KUNIT_EXPECT_EQ_MSG(test, RT_DELTA(now, c, reqs_got), RT_DELTA(now, c, reqs_put),
			    "a req was never returned");
	KUNIT_EXPECT_EQ_MSG(test, RT_DELTA(now, c, reps_got), RT_DELTA(now, c, reps_put),
			    "a rep was never returned");
	KUNIT_EXPECT_EQ_MSG(test, RT_DELTA(now, c, dma_maps), RT_DELTA(now, c, dma_unmaps),
			    "a DMA mapping was never undone");
	KUNIT_EXPECT_EQ_MSG(test, RT_DELTA(now, c, sendctx_got), RT_DELTA(now, c, sendctx_put),
			    "a send context was never released");
	KUNIT_EXPECT_EQ_MSG(test, RT_DELTA(now, c, recvs_posted),
			    RT_DELTA(now, c, recvs_done) + RT_DELTA(now, c, recvs_flushed),
			    "a Receive never completed");
	KUNIT_EXPECT_EQ_MSG(test, RT_DELTA(now, c, recvs_twice), 0,
			    "a Receive completed twice");
	/* The transport's own view: nothing posted, nothing outstanding. */
	if (c->xprt) {
		KUNIT_EXPECT_EQ(test, READ_ONCE(c->xprt->rx_buf.rb_receive_count), 0U);
		KUNIT_EXPECT_EQ(test, READ_ONCE(c->xprt->rx_buf.rb_outstanding), 0U);
	}
}

/* Who destroyed the ids since the case began: cmkit, or rdma_cm on a return of 1. */
static void rt_expect_destroyed_by(struct rt_ctx *c, int by_cmkit, int by_rdma_cm)
{
	struct rt_counts now = rt_counts_now();

	KUNIT_EXPECT_EQ(c->test, now.ids_destroyed - c->base.ids_destroyed, by_cmkit);
	KUNIT_EXPECT_EQ(c->test, now.ids_returned - c->base.ids_returned, by_rdma_cm);
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

/* A listener on @param's device and a transport aimed at it. */
static void rt_setup_dev(struct kunit *test, struct rt_ctx *c,
			 const struct cmkit_dev_param *param, bool listen)
{
	memset(c, 0, sizeof(*c));
	c->test = test;
	c->param = param;
	cmkit_test_require_device(test, c->param);
	cmkit_test_addr(c->param, cmkit_test_port(), &c->addr);
	c->base = rt_counts_now();
	c->srv = cmkit_peer_create(test, "server");
	c->rpc = cmkit_rpc_srv_attach(test, c->srv);
	if (listen)
		KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c->srv, &c->addr), 0);
	c->xprt = rt_xprt(c, &c->addr);
}

/* The same on the device the case is parameterised with. */
static void rt_setup(struct kunit *test, struct rt_ctx *c, bool listen)
{
	rt_setup_dev(test, c, test->param_value, listen);
}

static const struct cmkit_dev_param *rt_rxe = &cmkit_dev_params[CMKIT_RXE];

static u8 rt_server_cmp[CMKIT_RPCRDMA_CMP_LEN];

/* ---- NULL calls ------------------------------------------------------------ */

#define RT_PROG		CMKIT_RPC_PROG_NFS
#define RT_VERS		3

/* A listening RPC server of its own on the case's device, at a new port. */
static struct cmkit_peer *rt_rpc_listener(struct rt_ctx *c, const char *name,
					  struct sockaddr_in *addr, struct cmkit_rpc_srv **rpc)
{
	struct cmkit_peer *srv = cmkit_peer_create(c->test, name);
	struct cmkit_rpc_srv *s = cmkit_rpc_srv_attach(c->test, srv);

	cmkit_test_addr(c->param, cmkit_test_port(), addr);
	KUNIT_ASSERT_EQ(c->test, cmkit_peer_listen(srv, addr), 0);
	if (rpc)
		*rpc = s;
	return srv;
}

/*
 * @count NULL calls on @x, each answered MSG_ACCEPTED SUCCESS by @rpc, which
 * saw them as sent: our program and version, asking for the whole ring of
 * credits, and never more calls outstanding than it granted.
 */
static void rt_expect_calls_ok(struct kunit *test, struct rpcrdma_xprt *x,
			       struct cmkit_rpc_srv *rpc, u32 count)
{
	struct cmkit_rpc_counts before = cmkit_rpc_srv_counts(rpc), after;
	struct cmkit_rpcrdma_calls res = { };

	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_call(x, RT_PROG, RT_VERS, count, &res), 0);
	KUNIT_EXPECT_EQ(test, res.sent, count);
	KUNIT_EXPECT_EQ(test, res.accepted, count);
	KUNIT_EXPECT_EQ(test, res.results[0], count);
	KUNIT_EXPECT_EQ(test, res.rejected + res.malformed + res.timedout + res.aborted, 0U);
	after = cmkit_rpc_srv_counts(rpc);
	KUNIT_EXPECT_EQ(test, after.calls - before.calls, count);
	KUNIT_EXPECT_EQ(test, after.last_prog, (u32)RT_PROG);
	KUNIT_EXPECT_EQ(test, after.last_vers, (u32)RT_VERS);
	KUNIT_EXPECT_EQ(test, after.last_credit, x->rx_buf.rb_max_requests);
	KUNIT_EXPECT_EQ_MSG(test, after.overruns - before.overruns, 0U,
			    "more calls outstanding than the server granted");
}

/* The case's own transport and server. */
static void rt_calls_ok(struct rt_ctx *c, u32 count)
{
	rt_expect_calls_ok(c->test, c->xprt, c->rpc, count);
}

/* Calls on a work item, so the case can act while they are in flight. */
struct rt_calls {
	struct work_struct work;
	struct rpcrdma_xprt *xprt;
	u32 prog, vers, count;
	struct cmkit_rpcrdma_calls res;
	struct completion done;
	int rc;
};

static void rt_calls_work(struct work_struct *work)
{
	struct rt_calls *a = container_of(work, struct rt_calls, work);

	a->rc = cmkit_rpcrdma_xprt_call(a->xprt, a->prog, a->vers, a->count, &a->res);
	/* For good: the case's wait and the resource's free both wait for it. */
	complete_all(&a->done);
}

static void rt_calls_free(struct kunit_resource *res)
{
	struct rt_calls *a = res->data;

	/* A case that failed before waiting must not free what the work uses. */
	wait_for_completion(&a->done);
	kfree(a);
}

static struct rt_calls *rt_calls_start(struct kunit *test, struct rpcrdma_xprt *x, u32 count)
{
	struct rt_calls *a = kzalloc(sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->xprt = x;
	a->prog = RT_PROG;
	a->vers = RT_VERS;
	a->count = count;
	init_completion(&a->done);
	INIT_WORK(&a->work, rt_calls_work);
	if (!kunit_alloc_resource(test, rt_res_init, rt_calls_free, GFP_KERNEL, a)) {
		kfree(a);
		KUNIT_ASSERT_TRUE_MSG(test, false, "cannot track the calls");
	}
	queue_work(system_unbound_wq, &a->work);
	return a;
}

static int rt_calls_wait(struct kunit *test, struct rt_calls *a)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&a->done, cmkit_test_timeout()),
			      "the calls did not return");
	return a->rc;
}

/*
 * Connected, one call answered (the server's grant is in force), then
 * @n calls in flight: sent, their replies held by the server.
 */
static struct rt_calls *rt_calls_in_flight(struct rt_ctx *c, u32 n)
{
	struct kunit *test = c->test;
	struct rt_calls *a;

	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c->xprt), 0);
	rt_calls_ok(c, 1);
	cmkit_rpc_srv_hold(c->rpc);
	a = rt_calls_start(test, c->xprt, n);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_rpc_srv_wait_held(c->rpc, n), 0,
			    "the server never held %u calls", n);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c->xprt->rx_buf.rb_outstanding), n);
	return a;
}

/* Every call in flight ended with -ECONNABORTED when its connection did. */
static void rt_expect_calls_aborted(struct rt_ctx *c, struct rt_calls *a, u32 n)
{
	struct kunit *test = c->test;

	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, a->res.sent, n);
	KUNIT_EXPECT_EQ(test, a->res.aborted, n);
	KUNIT_EXPECT_EQ(test, a->res.accepted, 0U);
}

/*
 * Reconnecting off: the calls end with their connection, as these cases
 * say (with it on, they wait for the next: connection_lost_* below).
 */
static void rt_no_reconnect(struct rt_ctx *c)
{
	c->xprt->rx_reconnect = false;
}

/* Reconnecting on for the case's transport (off in this suite: rt_suite_init()). */
static void rt_reconnect(struct rt_ctx *c)
{
	c->xprt->rx_reconnect = true;
}

/* ---- the force-disconnect work, held in its hook --------------------------- */

struct rt_hold {
	struct completion entered;	/* the work reached its hook */
	struct completion release;	/* the case lets it go on */
	struct completion left;		/* the work left the hook */
};

static struct rt_hold *rt_hold_get(struct rpcrdma_xprt *x)
{
	return x->rx_private;
}

static void rt_hold_force_work(struct rpcrdma_xprt *x)
{
	struct rt_hold *h = rt_hold_get(x);

	complete(&h->entered);
	wait_for_completion_timeout(&h->release, cmkit_test_timeout());
	complete(&h->left);
}

static const struct rpcrdma_xprt_ops rt_hold_ops = {
	.force_work = rt_hold_force_work,
};

/* Every force-disconnect work of @c's transport waits until rt_release(). */
static struct rt_hold *rt_hold_force(struct rt_ctx *c)
{
	struct rt_hold *h = kunit_kzalloc(c->test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(c->test, h);
	init_completion(&h->entered);
	init_completion(&h->release);
	init_completion(&h->left);
	c->xprt->rx_private = h;
	c->xprt->rx_ops = &rt_hold_ops;
	return h;
}

static void rt_wait_held(struct rt_ctx *c, struct rt_hold *h)
{
	KUNIT_ASSERT_TRUE_MSG(c->test, wait_for_completion_timeout(&h->entered,
								   cmkit_test_timeout()),
			      "no force-disconnect work was queued");
}

/* Let every held work go on, and wait until the work has run to its end. */
static void rt_release(struct rt_ctx *c, struct rt_hold *h)
{
	complete_all(&h->release);
	flush_work(&c->xprt->rx_force_work);
}

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

/*
 * The server disconnects.  The force-disconnect work DISCONNECTED queues is
 * held until the handler has decided, so the transport still holds the ep:
 * the handler's put cannot be the last and it returns 0; the work's
 * disconnect then frees the ep and cmkit destroys the id.
 */
static void rt_remote_disconnect_and_check(struct rt_ctx *c)
{
	struct kunit *test = c->test;
	struct rt_decision d;
	struct rt_hold *h;

	h = rt_hold_force(c);
	rt_server_established(c);
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(c->srv), 0);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.new_status, -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_wait_held(c, h);
	KUNIT_EXPECT_NOT_NULL(test, c->xprt->rx_ep);
	rt_release(c, h);
	rt_expect_all_released(c);
	rt_expect_destroyed_by(c, 1, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->xprt->rx_force_count), 1);
	KUNIT_EXPECT_PTR_EQ(test, c->xprt->rx_ep, NULL);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

/* A server that accepts with RFC 8797 data: it sends at most 2 KiB, receives 3 KiB. */
static void rt_setup_cmp_server(struct kunit *test, struct rt_ctx *c)
{
	rt_setup(test, c, false);
	cmkit_rpcrdma_cmp_encode(rt_server_cmp, 0, 2048, 3072);
	c->srv->accept_pdata = rt_server_cmp;
	c->srv->accept_pdata_len = sizeof(rt_server_cmp);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c->srv, &c->addr), 0);
}

static void connect_with_rfc8797_data_lowers_sizes_then_remote_disconnect(struct kunit *test)
{
	struct cmkit_rpcrdma_cmp ours;
	struct cmkit_cm_record r;
	struct rpcrdma_ep *ep;
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup_cmp_server(test, &c);

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

	/*
	 * What we sent, byte for byte: version 1, our sizes (4 KiB: 3 in 1 KiB
	 * units minus one), and RFC 8797's Remote Invalidation bit: cmkit
	 * registers the memory of its chunks with FRWR and takes a Send With
	 * Invalidate of one of them (rpcrdma/proc.c), as xprtrdma does.
	 */
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(c.srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r), 0);
	KUNIT_ASSERT_GE(test, r.pdata_len, (u8)CMKIT_RPCRDMA_CMP_LEN);
	KUNIT_EXPECT_EQ(test, r.pdata[4], 1);
	KUNIT_EXPECT_EQ_MSG(test, r.pdata[5], CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK,
			    "flags byte: remote invalidation not advertised");
	KUNIT_EXPECT_EQ(test, r.pdata[6], 3);
	KUNIT_EXPECT_EQ(test, r.pdata[7], 3);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_cmp_decode(r.pdata, r.pdata_len, &ours), 1);
	KUNIT_EXPECT_EQ(test, ours.send_size, RT_INLINE);
	KUNIT_EXPECT_EQ(test, ours.recv_size, RT_INLINE);
	KUNIT_EXPECT_EQ(test, ours.flags, CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK);

	rt_calls_ok(&c, 1);
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
	rt_calls_ok(&c, 1);
	rt_remote_disconnect_and_check(&c);
}

/* ---- ESTABLISHED publishes "connected" only after the negotiation --------- */

static struct {
	struct rpcrdma_ep *ep;		/* set by the cm_event hook on ESTABLISHED */
	int status_at_negotiation;	/* re_connect_status when sizes were final */
	bool negotiated;
} rt_pub;

static void rt_pub_established(struct rpcrdma_xprt *x, struct rdma_cm_id *id,
			       const struct rdma_cm_event *event)
{
	if (event->event == RDMA_CM_EVENT_ESTABLISHED)
		WRITE_ONCE(rt_pub.ep, id->context);
}

static const struct rpcrdma_xprt_ops rt_pub_ops = {
	.cm_event = rt_pub_established,
};

/* cmkit_rpcrdma_inline_thresh fires inside the handler once the sizes are final. */
static void rt_pub_probe(void *data, u32 xid, bool peer_valid, u32 send, u32 recv)
{
	struct rpcrdma_ep *ep = READ_ONCE(rt_pub.ep);

	if (!ep)
		return;
	rt_pub.status_at_negotiation = READ_ONCE(ep->re_connect_status);
	rt_pub.negotiated = true;
}

static void established_publishes_connected_only_after_negotiating(struct kunit *test)
{
	struct rt_ctx c;

	rt_setup_cmp_server(test, &c);
	memset(&rt_pub, 0, sizeof(rt_pub));
	rt_pub.status_at_negotiation = -1000;
	c.xprt->rx_ops = &rt_pub_ops;
	KUNIT_ASSERT_EQ(test, register_trace_cmkit_rpcrdma_inline_thresh(rt_pub_probe, NULL), 0);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	unregister_trace_cmkit_rpcrdma_inline_thresh(rt_pub_probe, NULL);
	tracepoint_synchronize_unregister();

	/* A waiter that saw 1 must find the negotiated sizes: 1 comes after. */
	KUNIT_EXPECT_TRUE(test, rt_pub.negotiated);
	KUNIT_EXPECT_EQ_MSG(test, rt_pub.status_at_negotiation, 0,
			    "connected was published before the inline sizes were final");
	KUNIT_ASSERT_NOT_NULL(test, c.xprt->rx_ep);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_ep->re_inline_send, 3072U);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_ep->re_inline_recv, 2048U);
	rt_calls_ok(&c, 1);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/* ---- disconnects, and their races ----------------------------------------- */

static void local_disconnect_while_connected_releases_once(struct kunit *test)
{
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.new_status, -ECONNABORTED);
	rt_expect_all_released(&c);
	/* The gate was shut before rdma_disconnect(): no second close. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 0);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

/*
 * Connected, then the server disconnects: the handler's DISCONNECTED queues
 * the force-disconnect work, which is held in its hook when this returns.
 */
static struct rt_hold *rt_connected_then_remote_disconnect(struct kunit *test,
							   struct rt_ctx *c)
{
	struct rt_hold *h;

	rt_setup(test, c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c->xprt), 0);
	rt_calls_ok(c, 1);
	h = rt_hold_force(c);
	rt_server_established(c);
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(c->srv), 0);
	rt_wait_held(c, h);
	return h;
}

/*
 * Order 1 of a remote and a local disconnect: the handler has handled the
 * server's DISCONNECTED (its put is not the last), then the transport
 * disconnects: its final put frees the ep and cmkit destroys the id.  The
 * force-disconnect work DISCONNECTED queued is held until both are done,
 * and then finds nothing to do.
 */
static void disconnect_race_remote_handled_then_local_frees(struct kunit *test)
{
	struct rt_decision d;
	struct rt_hold *h;
	struct rt_ctx c;

	h = rt_connected_then_remote_disconnect(test, &c);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	rt_expect_all_released(&c);
	rt_expect_destroyed_by(&c, 1, 0);
	rt_release(&c, h);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

/*
 * Order 2: the transport disconnects first (its DREQ goes out; the server
 * holds its DREP), so its final put leaves the ep to the ESTABLISHED
 * reference; the DISCONNECTED that the DREP then brings frees the ep in the
 * handler, which returns 1 and rdma_cm destroys the id.  IB only: an iWARP
 * peer's stack closes its side of the connection by itself.
 */
static u32 rt_cm_ids(struct ib_device *dev)
{
	return rdma_restrack_count(dev, RDMA_RESTRACK_CM_ID, false);
}

static void disconnect_race_local_first_then_remote_dreq_frees_in_handler(struct kunit *test)
{
	struct cmkit_cm_record r;
	struct ib_device *dev;
	struct rt_counts now;
	struct rt_decision d;
	struct rt_ctx c;
	u32 ids, n;
	int rc;

	rt_setup_dev(test, &c, rt_rxe, false);
	c.srv->hold_disconnect = true;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	rt_server_established(&c);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	/* The server got our DREQ and holds its DREP: the ep is still alive. */
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(c.srv, RDMA_CM_EVENT_DISCONNECTED, &r), 0);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, now.eps_created - c.base.eps_created, 1);
	KUNIT_EXPECT_EQ(test, now.eps_freed - c.base.eps_freed, 0);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 0U);

	/* The client's id, the server's listener and child, and the rest. */
	dev = cmkit_test_device(test, c.param);
	ids = rt_cm_ids(dev);
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(c.srv), 0);	/* the DREP */
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.rc, 1);
	/*
	 * What the handler returned, not what it traced: rdma_cm destroys the
	 * id (it leaves the device's restrack) only on a return of 1.  No
	 * event says so; rdma_cm's work does it right after the handler.
	 */
	rc = read_poll_timeout(rt_cm_ids, n, n == ids - 1, USEC_PER_MSEC,
			       jiffies_to_usecs(cmkit_test_timeout()), false, dev);
	KUNIT_EXPECT_EQ_MSG(test, rc, 0,
			    "rdma_cm did not destroy the id: %u of %u rdma_cm ids left", n, ids);
	rt_expect_all_released(&c);
	rt_expect_destroyed_by(&c, 0, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 0);
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
	rt_calls_ok(&c, 1);
	/* Every posted Receive flushes: the first flush asks for the close. */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(ep->re_id->qp, &attr, IB_QP_STATE), 0);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
}

/* ---- a force-disconnect work and a reconnect of its transport ------------- */

/* A second server, and the transport aimed at it for its next connect. */
static struct cmkit_peer *rt_retarget(struct rt_ctx *c, struct cmkit_rpc_srv **rpc)
{
	struct sockaddr_in addr2;
	struct cmkit_peer *srv2 = rt_rpc_listener(c, "server2", &addr2, rpc);

	memcpy(&c->xprt->rx_dst, &addr2, sizeof(addr2));
	return srv2;
}

/*
 * Order 1: the work the server's DISCONNECTED queued runs before the
 * transport reconnects: it closes the old ep, and the new one is left alone.
 */
static void force_work_before_reconnect_closes_the_old_ep(struct kunit *test)
{
	struct cmkit_rpc_srv *rpc2;
	struct cmkit_cm_record r;
	struct cmkit_peer *srv2;
	struct rt_hold *h;
	struct rt_ctx c;

	h = rt_connected_then_remote_disconnect(test, &c);
	rt_release(&c, h);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);

	srv2 = rt_retarget(&c, &rpc2);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv2, RDMA_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_NOT_NULL(test, c.xprt->rx_ep);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_ep->re_connect_status), 1);
	rt_expect_calls_ok(test, c.xprt, rpc2, 1);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv2, BIT(RDMA_CM_EVENT_DISCONNECTED)), 0U);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
}

/*
 * Order 2: the transport is disconnected and reconnected while the work the
 * old ep's DISCONNECTED queued is held; released afterwards, the work must
 * not tear down the new ep.
 */
static void force_work_after_reconnect_leaves_the_new_ep(struct kunit *test)
{
	struct cmkit_rpc_srv *rpc2;
	struct cmkit_cm_record r;
	struct cmkit_peer *srv2;
	struct rpcrdma_ep *ep2;
	struct rt_hold *h;
	struct rt_ctx c;

	h = rt_connected_then_remote_disconnect(test, &c);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);

	srv2 = rt_retarget(&c, &rpc2);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv2, RDMA_CM_EVENT_ESTABLISHED, &r), 0);
	ep2 = c.xprt->rx_ep;
	KUNIT_ASSERT_NOT_NULL(test, ep2);

	rt_release(&c, h);
	KUNIT_EXPECT_PTR_EQ_MSG(test, c.xprt->rx_ep, ep2,
				"the old ep's force-disconnect tore down the new ep");
	if (c.xprt->rx_ep == ep2) {
		KUNIT_EXPECT_EQ(test, READ_ONCE(ep2->re_connect_status), 1);
		/* The new connection still carries calls. */
		rt_expect_calls_ok(test, c.xprt, rpc2, 1);
	}
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv2, BIT(RDMA_CM_EVENT_DISCONNECTED)), 0U);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/* ---- refused connects ---------------------------------------------------- */

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

/* A connect on a work item, so the case can act meanwhile. */
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
			      "connect did not return");
	return a->rc;
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
}

/*
 * On siw the server's child is accepted (its QP held by iw_cm) when the
 * removal reaches it: the peer destroys it from a work item, not in the
 * upcall (cmkit_peer_defer_removal()).
 */
static void device_removal_started_while_resolving_releases_the_id(struct kunit *test)
{
	struct rt_trigger t = { .test = test, .on = RDMA_CM_EVENT_ADDR_RESOLVED };
	struct rt_decision d;
	struct rt_ctx c;
	int rc;

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
	 * (6.12 fails the route step, 6.1 may even connect first).  Either
	 * way the id must be released exactly once and the removal finish.
	 */
	if (rc == 0) {
		/*
		 * Connected, with the removal already under way: the one
		 * connection here that cannot be made to carry a call.
		 */
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
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DEVICE_REMOVAL), 1U);
}

/*
 * DEVICE_REMOVAL on a connected ep drops the ESTABLISHED reference; the
 * transport still holds its own, so the handler's put is never the last (it
 * returns 0) and the forced close frees the ep and destroys the id.
 */
static void device_removal_while_connected_releases_the_id(struct kunit *test)
{
	struct cmkit_removal *removal;
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	removal = cmkit_test_remove_device(test, c.param);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_expect_removed(&c, removal);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DEVICE_REMOVAL), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	rt_expect_destroyed_by(&c, 1, 0);
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

/*
 * An event that changes a connected ep's status while the forced close is
 * held (the case holds the transport's lock), then a real removal of the
 * device: DEVICE_REMOVAL must drop the ESTABLISHED reference whatever the
 * status became, and every path must close the transport, or the removal
 * (and unloading cmkit) waits forever.
 */
static void rt_constructed_connected_then_removal(struct kunit *test,
						  enum rdma_cm_event_type type, int status,
						  int want)
{
	struct cmkit_removal *removal;
	struct rpcrdma_ep *ep;
	struct rt_decision d;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	ep = c.xprt->rx_ep;
	rt_server_established(&c);
	rt_calls_ok(&c, 1);
	mutex_lock(&c.xprt->rx_lock);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, type, status), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), want);
	/* Connected: the event starts the teardown. */
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	removal = cmkit_test_remove_device(test, c.param);
	if (!removal)
		mutex_unlock(&c.xprt->rx_lock);
	KUNIT_ASSERT_NOT_NULL(test, removal);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DEVICE_REMOVAL);
	mutex_unlock(&c.xprt->rx_lock);
	KUNIT_EXPECT_EQ(test, d.old_status, want);
	KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_expect_removed(&c, removal);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
}

static void constructed_addr_change_when_connected_then_device_removal(struct kunit *test)
{
	rt_constructed_connected_then_removal(test, RDMA_CM_EVENT_ADDR_CHANGE, 0, -ENODEV);
}

static void constructed_unreachable_when_connected_then_device_removal(struct kunit *test)
{
	rt_constructed_connected_then_removal(test, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT,
					      -ENETUNREACH);
}

static void constructed_rejected_when_connected_then_device_removal(struct kunit *test)
{
	rt_constructed_connected_then_removal(test, RDMA_CM_EVENT_REJECTED,
					      IB_CM_REJ_CONSUMER_DEFINED, -ECONNREFUSED);
}

/*
 * Sleep on the ep's connect wait queue as cmkit_rpcrdma_xprt_connect()
 * does, without a second thread: an entry of our own whose wake function
 * records the wake-up, so the case knows it is queued before the event.
 */
struct rt_waiter {
	struct wait_queue_entry wq;
	struct rpcrdma_ep *ep;
	bool woken;
};

static int rt_waiter_wake(struct wait_queue_entry *wq, unsigned int mode, int sync, void *key)
{
	struct rt_waiter *w = container_of(wq, struct rt_waiter, wq);

	WRITE_ONCE(w->woken, true);
	return 0;
}

static void rt_waiter_add(struct rt_waiter *w, struct rpcrdma_ep *ep)
{
	w->ep = ep;
	w->woken = false;
	init_waitqueue_func_entry(&w->wq, rt_waiter_wake);
	add_wait_queue(&ep->re_connect_wait, &w->wq);
}

static void rt_waiter_expect_woken(struct kunit *test, struct rt_waiter *w)
{
	remove_wait_queue(&w->ep->re_connect_wait, &w->wq);
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(w->woken),
			      "the handler did not wake the connect waiter");
}

/* A resolved, unconnected endpoint: the state in which connect waits. */
static struct rpcrdma_ep *rt_connecting_ep(struct rt_ctx *c)
{
	KUNIT_ASSERT_EQ(c->test, cmkit_rpcrdma_ep_create(c->xprt), 0);
	KUNIT_ASSERT_NOT_NULL(c->test, c->xprt->rx_ep);
	return c->xprt->rx_ep;
}

static void rt_constructed_connecting_case(struct kunit *test,
					   enum rdma_cm_event_type type, int want)
{
	struct rt_waiter w;
	struct rpcrdma_ep *ep;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	ep = rt_connecting_ep(&c);
	rt_waiter_add(&w, ep);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, type, 0), 0);
	rt_waiter_expect_woken(test, &w);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), want);
	KUNIT_EXPECT_EQ(test, kref_read(&ep->re_kref), 1U);	/* nothing dropped */
	/* Not connected: nothing to close, connect's own teardown follows. */
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
	rt_calls_ok(&c, 1);
	ep = c.xprt->rx_ep;
	/* Hold the transport's lock so the forced close cannot free ep yet. */
	mutex_lock(&c.xprt->rx_lock);
	refs = kref_read(&ep->re_kref);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, RDMA_CM_EVENT_ADDR_CHANGE, 0), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&ep->re_kref), refs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ep->re_connect_status), -ENODEV);
	KUNIT_EXPECT_EQ(test, rt_inject(ep->re_id, RDMA_CM_EVENT_ADDR_CHANGE, 0), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&ep->re_kref), refs);
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

/* ---- the module is pinned while an ep lives ---------------------------------- */

static void live_endpoints_pin_the_module(struct kunit *test)
{
	struct cmkit_rpc_srv *rpc2;
	struct rpcrdma_xprt *x2;
	struct sockaddr_in addr2;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	rt_rpc_listener(&c, "server2", &addr2, &rpc2);
	x2 = rt_xprt(&c, &addr2);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(x2), 0);
	rt_calls_ok(&c, 1);
	rt_expect_calls_ok(test, x2, rpc2, 1);
	/* rmmod cmkit now fails with EBUSY instead of waiting on the eps. */
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_module_refs(), c.base.module_refs + 2);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	cmkit_rpcrdma_xprt_disconnect(x2);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_module_refs(), c.base.module_refs);
}

/* ---- the control plane ---------------------------------------------------- */

static int rt_ctl(const char *fmt, ...) __printf(1, 2);

static int rt_ctl(const char *fmt, ...)
{
	char cmd[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return cmkit_rpcrdma_ctl_exec(cmd);
}

/* What `cat xprts` (or another show function) shows, into @buf. */
static void rt_show(int (*show)(struct seq_file *m, void *v), char *buf, size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };

	memset(buf, 0, size);
	show(&m, NULL);
	buf[min(m.count, size - 1)] = '\0';
}

static void rt_xprts(char *buf, size_t size)
{
	rt_show(cmkit_rpcrdma_xprts_show, buf, size);
}

/*
 * cmkit/rpcrdma/calls, opened as `cat` opens it: the debugfs file, through
 * debugfs's proxy (which pins cmkit while it is open).  It is found from
 * init's root: from the KUnit thread's own, /sys is not found on 7.3 (see
 * srpt_io_lun_blocks()).
 */
static struct file *rt_calls_open(void)
{
	struct pid *pid = find_get_pid(1);
	struct task_struct *init = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	struct path root = {};
	struct file *f;

	put_pid(pid);
	if (!init)
		return ERR_PTR(-ESRCH);
	task_lock(init);
	if (init->fs)
		get_fs_root(init->fs, &root);
	task_unlock(init);
	put_task_struct(init);
	if (!root.mnt)
		return ERR_PTR(-ENOENT);
	f = file_open_root(&root, "sys/kernel/debug/cmkit/rpcrdma/calls", O_RDONLY, 0);
	path_put(&root);
	return f;
}

/*
 * One read(2) of @len bytes at *@pos.  Not kernel_read(): that needs a
 * ->read_iter, and debugfs's proxy has only ->read (for a user buffer), so
 * this calls what that ->read calls, seq_read_iter(), with a kernel one.
 */
static ssize_t rt_calls_read(struct file *f, char *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t n;

	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	n = seq_read_iter(&kiocb, &iter);
	if (n > 0)
		*pos = kiocb.ki_pos;
	return n;
}

/* The seq_file buffer's size: as large as the reads so far made it grow. */
static size_t rt_calls_buffer(struct file *f)
{
	return ((struct seq_file *)f->private_data)->size;
}

/* Close now: the release drops its batches and its module reference before this returns. */
static void rt_calls_close(struct file *f)
{
	__fput_sync(f);
}

/*
 * What `cat calls` prints, into @buf (NUL-terminated, cut at @size - 1;
 * empty if the file did not open).  No ASSERT: a case may call it while
 * another open calls file pins cmkit.
 */
static void rt_calls(struct kunit *test, char *buf, size_t size)
{
	struct file *f = rt_calls_open();
	size_t len = 0;
	loff_t pos = 0;
	ssize_t n;

	memset(buf, 0, size);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(f), "open calls: %ld", PTR_ERR(f));
	if (IS_ERR(f))
		return;
	while (len < size - 1) {
		n = rt_calls_read(f, buf + len, size - 1 - len, &pos);
		if (n <= 0)
			break;
		len += n;
	}
	rt_calls_close(f);
}

/* The transport numbers `cat xprts` lists, in order, into @nr; how many. */
static unsigned int rt_xprt_numbers(const char *xprts, u32 *nr, unsigned int max)
{
	unsigned int n = 0;
	const char *p = xprts;

	while (*p && n < max) {
		char word[12] = "";
		size_t len = strcspn(p, "\n ");

		if (len < sizeof(word)) {
			memcpy(word, p, len);
			if (!kstrtou32(word, 10, &nr[n]))
				n++;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

/*
 * Connect the control plane to the case's server; its xprts file in @buf
 * (@size bytes).  Return the transport's number.
 */
static u32 rt_ctl_connect(struct rt_ctx *c, char *buf, size_t size)
{
	u32 nr;

	KUNIT_ASSERT_EQ(c->test, rt_ctl("connect %pI4 %u", &c->addr.sin_addr,
					ntohs(c->addr.sin_port)), 0);
	rt_xprts(buf, size);
	KUNIT_ASSERT_EQ(c->test, rt_xprt_numbers(buf, &nr, 1), 1U);
	return nr;
}

/* A NULL call through the control plane, accepted. */
static void rt_ctl_call_ok(struct kunit *test, u32 nr)
{
	KUNIT_EXPECT_EQ_MSG(test, rt_ctl("call %u 1", nr), 0, "call %u 1", nr);
}

static void ctl_refuses_bad_inline_sizes_and_trailing_junk(struct kunit *test)
{
	static const char * const bad[] = {
		"0 4096", "4096 0", "1023 4096", "4096 1023", "65537 4096",
		"4096 65537", "4096 4294967296", "4096 99999999999", "4096",
		"4096 4096 junk", "4096x 4096", "4096 4096x", "-1 4096",
	};
	char *xprts = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	u16 port;
	u32 nr;
	int i;
	struct rt_ctx c;

	KUNIT_ASSERT_NOT_NULL(test, xprts);
	rt_setup(test, &c, true);
	port = ntohs(c.addr.sin_port);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, rt_ctl("connect %pI4 %u %s", &c.addr.sin_addr, port,
						 bad[i]), -EINVAL, "sizes '%s'", bad[i]);
	KUNIT_EXPECT_EQ(test, rt_ctl("connect %pI4 %u junk", &c.addr.sin_addr, port), -EINVAL);
	KUNIT_EXPECT_EQ(test, rt_ctl("connect %pI4 %ux", &c.addr.sin_addr, port), -EINVAL);
	rt_xprts(xprts, PAGE_SIZE);
	KUNIT_EXPECT_STREQ(test, xprts, "");
	/* The bounds themselves are fine; the server without data lowers both. */
	KUNIT_EXPECT_EQ(test, rt_ctl("connect %pI4 %u 1024 65536", &c.addr.sin_addr, port), 0);
	rt_xprts(xprts, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL(test, strstr(xprts, "status=1 inline_send=1024 inline_recv=1024"));
	KUNIT_ASSERT_EQ(test, rt_xprt_numbers(xprts, &nr, 1), 1U);
	rt_ctl_call_ok(test, nr);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);
	rt_expect_all_released(&c);
}

#define RT_CTL_MAX	64

static void ctl_refuses_the_65th_endpoint(struct kunit *test)
{
	char *xprts = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	struct sockaddr_in addr;
	u32 nr[RT_CTL_MAX];
	unsigned int n;
	struct rt_ctx c;
	int i, rc;

	KUNIT_ASSERT_NOT_NULL(test, xprts);
	rt_setup_dev(test, &c, rt_rxe, false);
	for (i = 0; i < RT_CTL_MAX; i++) {
		rt_rpc_listener(&c, "server", &addr, NULL);
		rc = rt_ctl("connect %pI4 %u", &addr.sin_addr, ntohs(addr.sin_port));
		KUNIT_EXPECT_EQ_MSG(test, rc, 0, "endpoint %d", i + 1);
		if (rc)
			break;
	}
	cmkit_test_addr(c.param, cmkit_test_port(), &addr);
	KUNIT_EXPECT_EQ(test, rt_ctl("connect %pI4 %u", &addr.sin_addr, ntohs(addr.sin_port)),
			-ENOSPC);
	/* Each of the 64 carries a call. */
	rt_xprts(xprts, 4 * PAGE_SIZE);
	n = rt_xprt_numbers(xprts, nr, RT_CTL_MAX);
	KUNIT_EXPECT_EQ(test, n, (unsigned int)RT_CTL_MAX);
	for (i = 0; i < n; i++)
		rt_ctl_call_ok(test, nr[i]);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);
	rt_expect_all_released(&c);
}

/* A control command run on a work item, so the case can act meanwhile. */
struct rt_cmd {
	struct work_struct work;
	char line[128];
	struct completion done;
	int rc;
	char *xprts;		/* if set: what `cat xprts` showed afterwards */
};

static void rt_cmd_work(struct work_struct *work)
{
	struct rt_cmd *cmd = container_of(work, struct rt_cmd, work);

	cmd->rc = cmkit_rpcrdma_ctl_exec(cmd->line);
	if (cmd->xprts)
		rt_xprts(cmd->xprts, PAGE_SIZE);
	complete(&cmd->done);
}

static struct rt_cmd *rt_cmd_start(struct kunit *test, const char *line, bool show)
{
	struct rt_cmd *cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	if (show) {
		cmd->xprts = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, cmd->xprts);
	}
	strscpy(cmd->line, line, sizeof(cmd->line));
	init_completion(&cmd->done);
	INIT_WORK(&cmd->work, rt_cmd_work);
	queue_work(system_unbound_wq, &cmd->work);
	return cmd;
}

/*
 * A connect to a server that answers the REQ with an MRA and holds it never
 * gets an answer; meanwhile other commands and `cat xprts` must go on.  The
 * second command's end is pinned against the first's: the connect can only
 * end when the case rejects the held request, after the second ended.
 * IB only: MRA is an IB CM message.
 */
static void ctl_connect_to_a_server_holding_the_request_blocks_no_other_command(struct kunit *test)
{
	struct cmkit_cm_record r;
	struct rt_cmd *conn, *other;
	char line[64];
	bool other_done, conn_pending;
	struct rt_ctx c;

	rt_setup_dev(test, &c, rt_rxe, false);
	c.srv->hold_requests = true;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	snprintf(line, sizeof(line), "connect %pI4 %u", &c.addr.sin_addr,
		 ntohs(c.addr.sin_port));
	conn = rt_cmd_start(test, line, false);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(c.srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r), 0);

	other = rt_cmd_start(test, "disconnect 4000000000", true);
	other_done = wait_for_completion_timeout(&other->done, cmkit_test_timeout());
	conn_pending = !completion_done(&conn->done);

	/* End the connect, whatever happened, before anything is freed. */
	KUNIT_EXPECT_EQ(test, cmkit_peer_reject_held(c.srv), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&conn->done, cmkit_test_timeout()));
	if (!other_done)
		wait_for_completion(&other->done);

	KUNIT_EXPECT_TRUE_MSG(test, other_done && conn_pending,
			      "a command waited for a pending connect");
	KUNIT_EXPECT_EQ(test, other->rc, -ENOENT);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(other->xprts, " connecting"),
				  "xprts: '%s'", other->xprts);
	KUNIT_EXPECT_EQ(test, conn->rc, -ECONNREFUSED);
	rt_expect_all_released(&c);
}

/* ---- a connect that gets no answer ------------------------------------------ */

/*
 * A server that answers the REQ with an MRA and holds it: the connect ends
 * at its timeout (upstream: the RPC connect timeout, 60 s; shortened here)
 * with everything released.  IB only: MRA is an IB CM message.
 */
static void connect_to_a_server_holding_the_request_times_out(struct kunit *test)
{
	struct cmkit_cm_record r;
	struct rt_ctx c;

	rt_setup_dev(test, &c, rt_rxe, false);
	c.srv->hold_requests = true;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	c.xprt->rx_connect_timeout = 2 * HZ;
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(c.srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r), 0);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	rt_expect_all_released(&c);
}

struct rt_sig {
	struct rpcrdma_xprt *xprt;
	struct completion done;
	int rc;
};

static int rt_sig_thread(void *data)
{
	struct rt_sig *sig = data;

	allow_signal(SIGTERM);
	sig->rc = cmkit_rpcrdma_xprt_connect(sig->xprt);
	complete(&sig->done);
	return 0;
}

/* The same wait ends at once on a signal, as upstream's does. */
static void connect_to_a_server_holding_the_request_is_interruptible(struct kunit *test)
{
	struct cmkit_cm_record r;
	struct task_struct *task;
	struct rt_sig sig;
	struct rt_ctx c;

	rt_setup_dev(test, &c, rt_rxe, false);
	c.srv->hold_requests = true;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(c.srv, &c.addr), 0);
	sig.xprt = c.xprt;
	init_completion(&sig.done);
	task = kthread_run(rt_sig_thread, &sig, "rt_sig");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	if (cmkit_peer_wait(c.srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r) == 0)
		send_sig(SIGTERM, task, 1);
	else
		KUNIT_FAIL(test, "the connect request never came");
	if (!wait_for_completion_timeout(&sig.done, cmkit_test_timeout())) {
		/* The thread still uses sig: end its wait for real, then fail. */
		cmkit_peer_reject_held(c.srv);
		wait_for_completion(&sig.done);
		KUNIT_FAIL(test, "the signal did not end the connect");
	}
	put_task_struct(task);
	KUNIT_EXPECT_EQ(test, sig.rc, -ERESTARTSYS);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	rt_expect_all_released(&c);
}

/* ---- fault injection ---------------------------------------------------------- */

struct rt_fault_param {
	enum cmkit_transport dev;
	enum rpcrdma_fault step;
	int err;
};

/* What each step's failure gives the caller: what the real failure would. */
static const int rt_fault_err[RPCRDMA_FAULT_MR_ALLOC + 1] = {
	[RPCRDMA_FAULT_EP_ALLOC] = -ENOMEM,
	[RPCRDMA_FAULT_ID_CREATE] = -ENOMEM,
	[RPCRDMA_FAULT_RESOLVE_ADDR] = -ENODEV,
	[RPCRDMA_FAULT_RESOLVE_ROUTE] = -ENOMEM,
	[RPCRDMA_FAULT_PD_ALLOC] = -ENOMEM,
	[RPCRDMA_FAULT_CQ_ALLOC] = -ENOMEM,
	[RPCRDMA_FAULT_QP_CREATE] = -ENOMEM,
	[RPCRDMA_FAULT_RECV_ALLOC] = -ENOMEM,
	[RPCRDMA_FAULT_RECV_MAP] = -EIO,
	[RPCRDMA_FAULT_POST_RECV] = -ENOMEM,
	[RPCRDMA_FAULT_CONNECT] = -ENOMEM,
	[RPCRDMA_FAULT_BUFFER_CREATE] = -ENOMEM,	/* no transport */
	[RPCRDMA_FAULT_REGBUF_MAP] = -ENOTCONN,
	[RPCRDMA_FAULT_SENDCTX] = -ENOTCONN,
	[RPCRDMA_FAULT_POST_SEND] = -ENOTCONN,		/* the call's */
	[RPCRDMA_FAULT_MR_ALLOC] = -ENOTCONN,		/* no MR at all */
};

/* The steps of a connect, a call and a disconnect; the MR steps after them have their case. */
#define RT_CONNECT_STEPS	(RPCRDMA_FAULT_MR_ALLOC + 1)

/* Devices x steps, filled in by rt_suite_init(). */
static struct rt_fault_param rt_fault_params[ARRAY_SIZE(cmkit_dev_params) * RT_CONNECT_STEPS];

static void rt_fault_params_init(void)
{
	unsigned int d, f;

	for (d = 0; d < ARRAY_SIZE(cmkit_dev_params); d++)
		for (f = 0; f < RT_CONNECT_STEPS; f++)
			rt_fault_params[d * RT_CONNECT_STEPS + f] = (struct rt_fault_param){
				.dev = cmkit_dev_params[d].transport,
				.step = f,
				.err = rt_fault_err[f],
			};
}

static void rt_fault_desc(struct rt_fault_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 cmkit_dev_name(&cmkit_dev_params[p->dev]), cmkit_rpcrdma_fault_steps[p->step]);
}

KUNIT_ARRAY_PARAM(rt_fault, rt_fault_params, rt_fault_desc);

/* The handler's contract held: it never freed an ep (returned 1) on its own. */
static void rt_expect_no_handler_put(struct kunit *test)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&rt_log.lock, flags);
	for (i = 0; i < rt_log.nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, rt_log.d[i].rc, 0, "%s returned %d",
				    rdma_event_msg(rt_log.d[i].event), rt_log.d[i].rc);
	spin_unlock_irqrestore(&rt_log.lock, flags);
}

/*
 * A transport's life as the fault cases drive it: created, connected, one
 * NULL call, disconnected.  Return the first failure's errno, or 0.
 */
static int rt_connect_call_disconnect(struct rt_ctx *c, struct cmkit_rpcrdma_calls *res)
{
	int rc = cmkit_rpcrdma_xprt_connect(c->xprt);

	if (!rc) {
		rc = cmkit_rpcrdma_xprt_call(c->xprt, RT_PROG, RT_VERS, 1, res);
		cmkit_rpcrdma_xprt_disconnect(c->xprt);
	}
	return rc;
}

/*
 * Each step of a transport's creation, its connect and a NULL call fails in
 * turn, once: the operation returns that step's errno with nothing left
 * behind, and the next attempt works.  A step after ESTABLISHED ends a
 * connection the server accepted: its DISCONNECTED may then free the ep in
 * the handler (a return of 1 is the contract there).
 */
static void failure_injected_at_each_connect_step(struct kunit *test)
{
	const struct rt_fault_param *p = test->param_value;
	struct cmkit_rpcrdma_calls res = { };
	struct rpcrdma_xprt *x;
	int fired, rc;
	struct rt_ctx c;

	rt_setup_dev(test, &c, &cmkit_dev_params[p->dev], true);
	cmkit_test_require_fault_injection(test);
	fired = atomic_read(&cmkit_rpcrdma_fault_points.fired);
	cmkit_fault_arm(&cmkit_rpcrdma_fault_points, BIT(p->step), 1);
	if (p->step == RPCRDMA_FAULT_BUFFER_CREATE) {
		x = cmkit_rpcrdma_xprt_create((struct sockaddr *)&c.addr, RT_INLINE, RT_INLINE);
		rc = x ? 0 : -ENOMEM;
		if (x)
			cmkit_rpcrdma_xprt_destroy(x);
	} else {
		rc = rt_connect_call_disconnect(&c, &res);
	}
	cmkit_fault_disarm(&cmkit_rpcrdma_fault_points);
	KUNIT_EXPECT_EQ(test, rc, p->err);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_fault_points.fired) - fired, 1);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
	if (p->step < RPCRDMA_FAULT_BUFFER_CREATE) {
		KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_ESTABLISHED), 0U);
		rt_expect_no_handler_put(test);
	}
	if (p->step == RPCRDMA_FAULT_POST_SEND) {
		/* The call was never sent, and its connection was dropped. */
		KUNIT_EXPECT_EQ(test, res.sent, 0U);
		KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).calls, 0U);
		KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	}
	rt_expect_all_released(&c);
	if (p->step == RPCRDMA_FAULT_BUFFER_CREATE) {
		struct rt_counts now = rt_counts_now();

		KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_stats.reqs_created),
				atomic_read(&cmkit_rpcrdma_stats.reqs_freed) +
				(int)c.xprt->rx_buf.rb_reqs);
		KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, reqs_got), 0);
	}

	/* Nothing was left broken: the next connect, on a new server, carries a call. */
	c.srv = rt_rpc_listener(&c, "server2", &c.addr, &c.rpc);
	memcpy(&c.xprt->rx_dst, &c.addr, sizeof(c.addr));
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

#define RT_FAIL_NTH_MAX	2000

/*
 * /proc/<pid>/fail-nth from the test thread over a full connect, a NULL
 * call and a disconnect: for N = 1, 2, ... the Nth fault point the thread
 * passes fails (cmkit's steps, and every slab allocation: failslab with the
 * task's own counter, ignore-gfp-wait off, as the guest sets it before the
 * suites: cmkit_test_require_failslab()), until a pass with no failure
 * left.  Each pass must end with a clean errno or an accepted call, and
 * nothing left.  (Receives reposted from the completion queue's work are
 * not the thread's: the fault cases cover them.)
 */
static void fail_nth_sweep_over_connect_and_disconnect(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	unsigned int n, left, failed = 0, connected = 0, injected = 0;
	struct cmkit_rpcrdma_calls res;
	struct rt_ctx c;
	int rc;

	cmkit_test_require_failslab(test);
	rt_setup(test, &c, true);
	/* Armed, but only the task's fail-nth makes them fail (times 0). */
	cmkit_fault_arm(&cmkit_rpcrdma_fault_points, BIT(RPCRDMA_FAULT_NR) - 1, 0);
	for (n = 1; n <= RT_FAIL_NTH_MAX; n++) {
		/* Each connect that reached the server used up its one accept. */
		if (cmkit_peer_count(c.srv, BIT(RDMA_CM_EVENT_CONNECT_REQUEST))) {
			c.srv = rt_rpc_listener(&c, "server", &c.addr, &c.rpc);
			memcpy(&c.xprt->rx_dst, &c.addr, sizeof(c.addr));
		}
		memset(&res, 0, sizeof(res));
		current->fail_nth = n;
		rc = rt_connect_call_disconnect(&c, &res);
		left = current->fail_nth;
		current->fail_nth = 0;

		KUNIT_EXPECT_TRUE_MSG(test, rc <= 0 && rc >= -MAX_ERRNO, "N=%u: rc %d", n, rc);
		/* Whatever failed, no reply was misread. */
		KUNIT_EXPECT_EQ_MSG(test, res.rejected + res.malformed, 0U, "N=%u", n);
		if (!rc)
			KUNIT_EXPECT_EQ_MSG(test, res.accepted, 1U, "N=%u", n);
		KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
		if (!wait_var_event_timeout(&cmkit_rpcrdma_stats, rt_all_released(&c),
					    cmkit_test_timeout())) {
			KUNIT_FAIL(test, "N=%u (rc %d): an ep, an id or a module reference was left",
				   n, rc);
			break;
		}
		if (rc)
			failed++;
		else
			connected++;
		if (left)	/* no failure injected: the sweep is over */
			break;
		injected++;	/* fail-nth used up: its Nth point failed */
	}
	cmkit_fault_disarm(&cmkit_rpcrdma_fault_points);
	kunit_info(test, "%u passes: %u failed cleanly, %u connected", n, failed, connected);
	KUNIT_EXPECT_LE_MSG(test, n, RT_FAIL_NTH_MAX, "the sweep did not end");
	KUNIT_EXPECT_EQ(test, rc, 0);
	/* A sweep that injected nothing proved nothing. */
	KUNIT_ASSERT_GT_MSG(test, injected, 0U, "fail-nth 1 failed nothing");
#else
	/* No fail-nth, no failslab: the sweep cannot run, and that fails it. */
	cmkit_test_require_failslab(test);
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION: no fail-nth to sweep");
#endif
}

/* ---- calls: credits, buffers, replies ------------------------------------------ */

/*
 * 100 NULL calls: every one accepted, the server's grant (32, the ring) in
 * force, never more Receives posted than it and the batch beyond it, most
 * Sends unsignaled; after the disconnect every req, rep and send context
 * is back, every mapping undone, and the transport's counters say what
 * happened.
 */
static void null_calls_accepted_under_the_servers_grant(struct kunit *test)
{
	struct rt_counts now;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_credits), 1U);
	rt_calls_ok(&c, 100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_credits), RPCRDMA_MAX_REQUESTS);
	KUNIT_EXPECT_LE(test, READ_ONCE(c.xprt->rx_buf.rb_recv_high),
			RPCRDMA_MAX_REQUESTS + RPCRDMA_MAX_RECV_BATCH);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, sends_posted), 100);
	KUNIT_EXPECT_LT_MSG(test, RT_DELTA(now, &c, sends_signaled), 100,
			    "every Send was signaled");
	KUNIT_EXPECT_GE(test, RT_DELTA(now, &c, sends_signaled),
			100 / (int)(c.xprt->rx_ep->re_send_batch + 1));
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_buf.rb_calls, 100ULL);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_buf.rb_replies, 100ULL);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_buf.rb_errors, 0ULL);
}

/*
 * The server grants @grant: after one call the client keeps at most @want
 * calls outstanding (0 counts as 1, more than the ring is clamped to it),
 * and the next call waits for a credit.  Pinned: the server holds every
 * reply until the client waits; then releases them.
 */
static void rt_grant_case(struct kunit *test, u32 grant, u32 want)
{
	u32 n = want + 4;
	struct rt_calls *a;
	struct rt_ctx c;
	int waits;

	rt_setup(test, &c, true);
	cmkit_rpc_srv_grant(c.rpc, grant);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_credits), want);
	cmkit_rpc_srv_hold(c.rpc);
	waits = atomic_read(&rt_xp.credit_waits);
	a = rt_calls_start(test, c.xprt, n);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, want), 0);
	rt_wait_xp(test, &rt_xp.credit_waits, waits + 1, "a call waiting for a credit");
	/* The client waits: exactly the grant is in flight, no more. */
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).held, want);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_outstanding), want);
	cmkit_rpc_srv_release(c.rpc);
	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), 0);
	KUNIT_EXPECT_EQ(test, a->res.accepted, n);
	KUNIT_EXPECT_EQ(test, a->res.max_outstanding, want);
	KUNIT_EXPECT_EQ(test, a->res.credits, want);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).overruns, 0U);
	KUNIT_EXPECT_LE_MSG(test, READ_ONCE(c.xprt->rx_buf.rb_recv_high),
			    want + RPCRDMA_MAX_RECV_BATCH,
			    "more Receives posted than the credits and the batch beyond them");
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

static void grant_of_one_keeps_one_call_outstanding(struct kunit *test)
{
	rt_grant_case(test, 1, 1);
}

static void grant_of_zero_counts_as_one(struct kunit *test)
{
	rt_grant_case(test, 0, 1);
}

static void grant_above_the_ring_is_clamped_to_it(struct kunit *test)
{
	rt_grant_case(test, 100000, RPCRDMA_MAX_REQUESTS);
}

/*
 * One new rep fails to allocate: the Receives that could be made ready are
 * posted all the same (upstream's rpcrdma_post_recvs() posts what it has),
 * and the error is returned.  Pinned by the fault point's space: the first
 * allocation passes, the second fails.
 */
static void post_recvs_posts_what_it_could_allocate(struct kunit *test)
{
	struct rpcrdma_buffer *buf;
	struct rt_ctx c;
	u32 before, after;
	int fired;

	rt_setup(test, &c, true);
	cmkit_test_require_fault_injection(test);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	buf = &c.xprt->rx_buf;
	before = READ_ONCE(buf->rb_receive_count);
	KUNIT_ASSERT_TRUE(test, list_empty(&buf->rb_free_reps));
	fired = atomic_read(&cmkit_rpcrdma_fault_points.fired);
	cmkit_fault_arm(&cmkit_rpcrdma_fault_points, BIT(RPCRDMA_FAULT_RECV_ALLOC), 1);
#ifdef CONFIG_FAULT_INJECTION
	atomic_set(&cmkit_rpcrdma_fault_points.attr.space, 2);
#endif
	/* As many as are posted: the batch beyond them is wanted. */
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_post_recvs(c.xprt, before), -ENOMEM);
	cmkit_fault_disarm(&cmkit_rpcrdma_fault_points);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_fault_points.fired) - fired, 1);
	after = READ_ONCE(buf->rb_receive_count);
	KUNIT_EXPECT_EQ_MSG(test, after, before + 1, "the rep that was allocated was not posted");
	rt_calls_ok(&c, 4);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/* The second call's reply comes after a reply to an xid no one sent. */
static void reply_to_an_unknown_xid_is_counted_and_dropped(struct kunit *test)
{
	struct rt_counts now;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	cmkit_rpc_srv_set(c.rpc, CMKIT_RPC_SRV_EXTRA_UNKNOWN, 2, 1);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 2);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, unknown_xid), 1);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_buf.rb_unknown_xid, 1ULL);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * A reply the client must drop (short of a transport header, or of another
 * version) leaves its call waiting: it times out (shortened here), which
 * closes the connection, as xprtrdma's timer does.
 */
static void rt_dropped_reply_case(struct kunit *test, enum cmkit_rpc_action action)
{
	struct cmkit_rpcrdma_calls res = { };
	struct rt_counts now;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	cmkit_rpc_srv_set(c.rpc, action, 2, 1);
	c.xprt->rx_call_timeout = 2 * HZ;
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_call(c.xprt, RT_PROG, RT_VERS, 1, &res),
			-ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, res.timedout, 1U);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, call_timeouts), 1);
	if (action == CMKIT_RPC_SRV_SHORT)
		KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, replies_short), 1);
	else
		KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, replies_bad_vers), 1);
	/* The dropped reply's grant was not used. */
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, unknown_xid), 0);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
}

static void reply_shorter_than_a_header_is_dropped_and_the_call_times_out(struct kunit *test)
{
	rt_dropped_reply_case(test, CMKIT_RPC_SRV_SHORT);
}

static void reply_of_another_version_is_dropped_and_the_call_times_out(struct kunit *test)
{
	rt_dropped_reply_case(test, CMKIT_RPC_SRV_BAD_VERS);
}

/*
 * One credit, so Receives take turns and the third reply lands in a buffer
 * that held a whole reply before; cut inside its RPC message, it must be
 * malformed (E_SHORT), not decoded from what the buffer held past its
 * length.
 */
static void truncated_reply_is_malformed_never_read_past_its_length(struct kunit *test)
{
	struct cmkit_rpcrdma_calls res = { };
	struct rt_ctx c;

	rt_setup(test, &c, true);
	cmkit_rpc_srv_grant(c.rpc, 1);
	cmkit_rpc_srv_set(c.rpc, CMKIT_RPC_SRV_TRUNCATED, 3, 1);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	/* One call at a time: each rep is free again before the next reply. */
	rt_calls_ok(&c, 1);
	rt_calls_ok(&c, 1);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_call(c.xprt, RT_PROG, RT_VERS, 1, &res),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, res.malformed, 1U);
	KUNIT_EXPECT_EQ(test, res.results[-CMKIT_RPCRDMA_E_SHORT], 1U);
	rt_calls_ok(&c, 1);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * Refusals and a malformed reply, one call each on one connection: the
 * call fails with -EPROTO, its result says which, the errno of the same
 * name is traced, and the connection carries the next call.
 */
static void refused_and_malformed_replies_fail_the_call_with_eproto(struct kunit *test)
{
	static const struct {
		enum cmkit_rpc_action action;
		int result;
		bool malformed;
	} cases[] = {
		{ CMKIT_RPC_SRV_ERR_VERS, CMKIT_RPCRDMA_E_ERR_VERS, false },
		{ CMKIT_RPC_SRV_ERR_CHUNK, CMKIT_RPCRDMA_E_ERR_CHUNK, false },
		{ CMKIT_RPC_SRV_PROG_MISMATCH, CMKIT_RPCRDMA_E_PROG_MISMATCH, false },
		{ CMKIT_RPC_SRV_XID_MISMATCH, CMKIT_RPCRDMA_E_XID, true },
	};
	struct cmkit_rpcrdma_calls res;
	struct rt_ctx c;
	u32 call = 1;
	int i;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cmkit_rpc_srv_set(c.rpc, cases[i].action, call + 1, 1);
		memset(&res, 0, sizeof(res));
		KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_call(c.xprt, RT_PROG, RT_VERS, 2, &res),
				-EPROTO);
		KUNIT_EXPECT_EQ_MSG(test, res.results[-cases[i].result], 1U, "%s",
				    cmkit_rpcrdma_result_name(cases[i].result));
		KUNIT_EXPECT_EQ(test, res.malformed, (u32)cases[i].malformed);
		KUNIT_EXPECT_EQ(test, res.rejected, (u32)!cases[i].malformed);
		KUNIT_EXPECT_EQ(test, res.accepted, 1U);
		call += 2;
	}
	KUNIT_EXPECT_EQ(test, c.xprt->rx_buf.rb_errors, 4ULL);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * A call the server never answers times out (shortened here) and closes the
 * connection; the call sent after it, already answered, is accepted.
 */
static void dropped_call_times_out_and_closes_the_connection(struct kunit *test)
{
	struct cmkit_rpcrdma_calls res = { };
	struct rt_ctx c;

	rt_setup(test, &c, true);
	cmkit_rpc_srv_set(c.rpc, CMKIT_RPC_SRV_DROP, 2, 1);
	c.xprt->rx_call_timeout = 2 * HZ;
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_call(c.xprt, RT_PROG, RT_VERS, 2, &res),
			-ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, res.sent, 2U);
	KUNIT_EXPECT_EQ(test, res.timedout, 1U);
	KUNIT_EXPECT_EQ(test, res.accepted, 1U);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).dropped, 1U);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_PTR_EQ(test, c.xprt->rx_ep, NULL);
}

/*
 * The transport asks for 1 KiB, then, reconnected to a server announcing
 * more (RFC 8797), for 4 KiB: each req's send buffer is reallocated to the
 * new inline send size, Receives grow to the new inline receive size, and
 * every mapping of the first connection was undone.
 */
static void reconnect_with_larger_inline_sizes_reallocates_the_regbufs(struct kunit *test)
{
	struct cmkit_rpc_srv *rpc2;
	struct rpcrdma_req *req;
	struct rpcrdma_rep *rep;
	u32 longest = 0;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	c.xprt->rx_inline_send = RPCRDMA_MIN_INLINE;
	c.xprt->rx_inline_recv = RPCRDMA_MIN_INLINE;
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 40);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
	list_for_each_entry(req, &c.xprt->rx_buf.rb_allreqs, rl_all)
		KUNIT_EXPECT_EQ(test, rdmab_length(req->rl_sendbuf), RPCRDMA_MIN_INLINE);

	/* The server sends at most 2 KiB and takes 3 KiB. */
	c.srv = rt_rpc_listener(&c, "server2", &c.addr, &rpc2);
	cmkit_rpcrdma_cmp_encode(rt_server_cmp, 0, 2048, 3072);
	c.srv->accept_pdata = rt_server_cmp;
	c.srv->accept_pdata_len = sizeof(rt_server_cmp);
	memcpy(&c.xprt->rx_dst, &c.addr, sizeof(c.addr));
	c.xprt->rx_inline_send = RT_INLINE;
	c.xprt->rx_inline_recv = RT_INLINE;
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_ep->re_inline_send, 3072U);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_ep->re_inline_recv, 2048U);
	rt_expect_calls_ok(test, c.xprt, rpc2, 40);
	list_for_each_entry(req, &c.xprt->rx_buf.rb_allreqs, rl_all) {
		KUNIT_EXPECT_EQ(test, rdmab_length(req->rl_sendbuf), 3072U);
		KUNIT_EXPECT_TRUE(test, rpcrdma_regbuf_is_mapped(req->rl_sendbuf));
	}
	spin_lock(&c.xprt->rx_buf.rb_lock);
	list_for_each_entry(rep, &c.xprt->rx_buf.rb_all_reps, rr_all)
		if (rep->rr_posted)
			longest = max(longest, rdmab_length(rep->rr_rdmabuf));
	spin_unlock(&c.xprt->rx_buf.rb_lock);
	KUNIT_EXPECT_GE(test, longest, 2048U);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * A transport hook's caller held until the case lets it go: once armed, the
 * next pass completes @entered and waits for @release.  @passes counts every
 * pass, armed or not.
 */
struct rt_pin {
	struct completion entered, release;
	atomic_t passes;
	bool armed;
};

static void rt_pin_arm(struct rt_pin *h)
{
	init_completion(&h->entered);
	init_completion(&h->release);
	WRITE_ONCE(h->armed, true);
}

static void rt_pin_here(struct rt_pin *h)
{
	atomic_inc(&h->passes);
	if (!READ_ONCE(h->armed))
		return;
	WRITE_ONCE(h->armed, false);
	complete(&h->entered);
	wait_for_completion_timeout(&h->release, cmkit_test_timeout());
}

/* A call held before it takes the send lock; a reply handler held. */
static struct rt_pin rt_send_hold, rt_reply_hold;

static void rt_send_hook(struct rpcrdma_xprt *x, struct rpcrdma_req *req)
{
	rt_pin_here(&rt_send_hold);
}

static void rt_reply_hook(struct rpcrdma_xprt *x, struct rpcrdma_req *req)
{
	rt_pin_here(&rt_reply_hold);
}

static const struct rpcrdma_xprt_ops rt_hold_call_ops = {
	.send = rt_send_hook,
	.reply = rt_reply_hook,
};

/*
 * A call took its req and a credit on one connection and is held before
 * the send lock while that connection ends and another begins.  Let go, it
 * ends with -ECONNABORTED unsent (neither server sees it), and its credit
 * goes back without taking one from the new connection, whose calls go on.
 */
static void call_set_up_before_a_reconnect_is_not_sent_on_the_new_one(struct kunit *test)
{
	struct cmkit_rpc_counts first, second;
	struct cmkit_rpc_srv *rpc2;
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	rt_pin_arm(&rt_send_hold);
	c.xprt->rx_ops = &rt_hold_call_ops;
	first = cmkit_rpc_srv_counts(c.rpc);
	a = rt_calls_start(test, c.xprt, 1);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&rt_send_hold.entered,
								cmkit_test_timeout()),
			      "the call never reached its Send");
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_outstanding), 1U);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);

	c.srv = rt_rpc_listener(&c, "server2", &c.addr, &rpc2);
	memcpy(&c.xprt->rx_dst, &c.addr, sizeof(c.addr));
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	second = cmkit_rpc_srv_counts(rpc2);
	complete(&rt_send_hold.release);
	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, a->res.sent, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).calls, first.calls);
	KUNIT_EXPECT_EQ_MSG(test, cmkit_rpc_srv_counts(rpc2).calls, second.calls,
			    "the old connection's call was sent on the new one");
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(c.xprt->rx_buf.rb_outstanding), 0U,
			    "the old connection's credit was taken from the new one");
	rt_expect_calls_ok(test, c.xprt, rpc2, 40);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * A call's wait for its reply starts when it is sent, not when it began to
 * wait for a req, a credit and the send lock (as xprtrdma's: the RPC
 * timer runs from the transmit).  The call is held before its Send past
 * the deadline of the (short) timeout it began with; the timeout is then
 * made long and the server holds the reply until the client waits: the
 * call gets its reply instead of timing out at once.  The only wait on the
 * clock is for the queued time to pass the first deadline.
 */
static void call_deadline_starts_when_the_call_is_sent(struct kunit *test)
{
	unsigned long queued = msecs_to_jiffies(100);
	unsigned long until;
	bool ended;
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	WRITE_ONCE(c.xprt->rx_call_timeout, queued);
	cmkit_rpc_srv_hold(c.rpc);
	rt_pin_arm(&rt_send_hold);
	c.xprt->rx_ops = &rt_hold_call_ops;
	a = rt_calls_start(test, c.xprt, 1);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&rt_send_hold.entered,
								cmkit_test_timeout()),
			      "the call never reached its Send");
	WRITE_ONCE(c.xprt->rx_call_timeout, cmkit_test_timeout());
	until = jiffies + queued + 1;
	while (time_before_eq(jiffies, until))
		schedule_timeout_uninterruptible(1);
	complete(&rt_send_hold.release);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, 1), 0);
	/* Sent, reply held: a deadline from before the queueing ends it now. */
	ended = wait_for_completion_timeout(&a->done, queued + 1);
	KUNIT_EXPECT_FALSE_MSG(test, ended,
			       "the time queued before the Send was taken from the reply's wait: %d",
			       a->rc);
	cmkit_rpc_srv_release(c.rpc);
	if (!ended)
		KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), 0);
	KUNIT_EXPECT_EQ(test, a->res.accepted, ended ? 0U : 1U);
	c.xprt->rx_ops = NULL;
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * Two batches on one transport can hold every req of the pool between
 * them, each with calls whose replies are in: each must reap its own ended
 * calls to give their reqs back, not wait for a free req until its
 * deadline (issue 24).  The server holds every reply.  Batch A fills the
 * grant and waits for a credit; B takes a req and waits for one too.  The
 * server then answers every call but A's oldest: the credits come back,
 * A reaps nothing (its oldest is in flight), and the two take the pool's
 * last reqs and wait for more, each with its own oldest call held.  Then
 * every reply goes: both batches end every call, none by its timeout.
 */
static void two_batches_holding_every_req_reap_their_own_ended_calls(struct kunit *test)
{
	const u32 count = 200;
	struct rt_calls *a, *b;
	int credit_waits, many, few;
	u32 credits;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	credits = READ_ONCE(c.xprt->rx_buf.rb_credits);
	KUNIT_ASSERT_LT(test, credits, c.xprt->rx_buf.rb_reqs);
	/* A stalled batch ends at its timeout, well before the case's waits. */
	WRITE_ONCE(c.xprt->rx_call_timeout, cmkit_test_timeout() / 2);
	credit_waits = atomic_read(&rt_xp.credit_waits);
	cmkit_rpc_srv_hold(c.rpc);
	a = rt_calls_start(test, c.xprt, count);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, credits), 0);
	rt_wait_xp(test, &rt_xp.credit_waits, credit_waits + 1, "batch A wait for a credit");
	b = rt_calls_start(test, c.xprt, count);
	rt_wait_xp(test, &rt_xp.credit_waits, credit_waits + 2, "batch B wait for a credit");

	/* Both wait for a credit, so neither waits for a req yet. */
	many = atomic_read(&rt_xp.req_waits_many);
	few = atomic_read(&rt_xp.req_waits_few);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_release_all_but_oldest(c.rpc), credits - 1);
	/* A holds a grant's worth of calls, B a few: tell them apart so. */
	KUNIT_ASSERT_GE(test, credits, (u32)RT_REQ_WAIT_MANY + 4);
	rt_wait_xp(test, &rt_xp.req_waits_many, many + 1,
		   "batch A wait for a req with its oldest call in flight");
	rt_wait_xp(test, &rt_xp.req_waits_few, few + 1,
		   "batch B wait for a req with its oldest call in flight");
	/* A's oldest at least (B's may still be on its way to the server). */
	KUNIT_EXPECT_GE(test, cmkit_rpc_srv_release(c.rpc), 1U);

	KUNIT_EXPECT_EQ_MSG(test, rt_calls_wait(test, a), 0,
			    "batch A waited for a req held by its own ended calls");
	KUNIT_EXPECT_EQ_MSG(test, rt_calls_wait(test, b), 0,
			    "batch B waited for a req held by its own ended calls");
	KUNIT_EXPECT_EQ(test, a->res.accepted, count);
	KUNIT_EXPECT_EQ(test, b->res.accepted, count);
	KUNIT_EXPECT_EQ(test, a->res.timedout + b->res.timedout, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).calls, 1 + 2 * count);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_outstanding), 0U);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/* ---- memory registration (FRWR) ------------------------------------------ */

/* Pages for a case's data, freed with the case. */
struct rt_pages {
	unsigned int n;
	struct page *p[];
};

static void rt_pages_free(struct kunit_resource *res)
{
	struct rt_pages *pg = res->data;
	unsigned int i;

	for (i = 0; i < pg->n; i++)
		__free_page(pg->p[i]);
	kfree(pg);
}

static struct page **rt_pages(struct kunit *test, unsigned int n)
{
	struct rt_pages *pg = kzalloc(struct_size(pg, p, n), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pg);
	for (pg->n = 0; pg->n < n; pg->n++) {
		pg->p[pg->n] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pg->p[pg->n])
			break;
	}
	if (!kunit_alloc_resource(test, rt_res_init, rt_pages_free, GFP_KERNEL, pg)) {
		rt_pages_free(&(struct kunit_resource){ .data = pg });
		KUNIT_ASSERT_TRUE_MSG(test, false, "cannot track the pages");
	}
	KUNIT_ASSERT_EQ_MSG(test, pg->n, n, "no memory for %u pages", n);
	return pg->p;
}

/* The first byte of @len in @pages that is not the FILL pattern of @seed, or @len. */
static u32 rt_pages_differ(struct page **pages, u32 len, u32 seed)
{
	u32 off;

	for (off = 0; off < len; off += PAGE_SIZE) {
		u32 i, this = min_t(u32, len - off, PAGE_SIZE);
		u8 *p = kmap_local_page(pages[off / PAGE_SIZE]);

		for (i = 0; i < this && p[i] == cmkit_rpc_testprog_byte(seed, off + i); i++)
			;
		kunmap_local(p);
		if (i < this)
			return off + i;
	}
	return len;
}

/* The connection broke since the counts were @flushes and @discs. */
static bool rt_broken(int flushes, unsigned int discs)
{
	return atomic_read(&rt_xp.flush_disconnects) != flushes ||
	       rt_count(RDMA_CM_EVENT_DISCONNECTED) != discs;
}

/*
 * A connection's MR pool: RPCRDMA_MR_BATCH made with it, a batch more at
 * each refresh up to RPCRDMA_MAX_MRS and no more; every one can be taken
 * once, then none; all are freed with the connection.
 */
static void mrs_made_with_the_connection_grow_to_their_bound_and_are_freed(struct kunit *test)
{
	struct rpcrdma_mr *mrs[RPCRDMA_MAX_MRS];
	struct rt_counts now;
	unsigned int i, n;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_count), RPCRDMA_MR_BATCH);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_created), (int)RPCRDMA_MR_BATCH);
	for (n = RPCRDMA_MR_BATCH; n < RPCRDMA_MAX_MRS; n += RPCRDMA_MR_BATCH)
		KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_mrs_refresh(c.xprt), RPCRDMA_MR_BATCH);
	KUNIT_EXPECT_EQ_MSG(test, cmkit_rpcrdma_mrs_refresh(c.xprt), 0U,
			    "the pool grew beyond RPCRDMA_MAX_MRS");
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_count), RPCRDMA_MAX_MRS);
	for (i = 0; i < RPCRDMA_MAX_MRS; i++) {
		mrs[i] = cmkit_rpcrdma_mr_get(c.xprt);
		KUNIT_ASSERT_NOT_NULL(test, mrs[i]);
	}
	KUNIT_EXPECT_NULL(test, cmkit_rpcrdma_mr_get(c.xprt));
	for (i = 0; i < RPCRDMA_MAX_MRS; i++)
		cmkit_rpcrdma_mr_put(mrs[i]);
	rt_calls_ok(&c, 4);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_count), 0U);
	rt_expect_all_released(&c);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_freed), (int)RPCRDMA_MAX_MRS);
}

/*
 * A registered MR takes the server's RDMA Write of 1 MiB into the case's
 * pages (256 of them, the MR's depth); LOCAL_INV fences it: the data is
 * there, and a second write with the old rkey lands nowhere and breaks
 * the connection (the client's QP fails it: its Receives flush).  Every MR
 * is freed with the connection.
 */
static void registered_mr_takes_the_peers_write_and_local_inv_fences_it(struct kunit *test)
{
	const u32 len = RPCRDMA_MAX_DATA_SEGS * PAGE_SIZE;
	struct page **pages = rt_pages(test, RPCRDMA_MAX_DATA_SEGS);
	struct rpcrdma_mr *mr;
	LIST_HEAD(mrs);
	unsigned int discs;
	u32 rkey, differ;
	struct rt_ctx c;
	u64 addr;
	int flushes;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	KUNIT_ASSERT_EQ(test, c.xprt->rx_ep->re_max_fr_depth, RPCRDMA_MAX_DATA_SEGS);
	mr = cmkit_rpcrdma_mr_get(c.xprt);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_frwr_map(c.xprt, mr, pages, 0, len, true), 0);
	KUNIT_EXPECT_EQ(test, mr->mr_length, len);
	rkey = mr->mr_handle;
	addr = mr->mr_offset;
	list_add_tail(&mr->mr_list, &mrs);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_frwr_reg_sync(c.xprt, &mrs), 0);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_rdma_write(c.rpc, rkey, addr, len, 1), 0);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_frwr_unmap_sync(c.xprt, &mrs), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&mrs));
	differ = rt_pages_differ(pages, len, 1);
	KUNIT_EXPECT_EQ_MSG(test, differ, len, "the server's write differs at byte %u", differ);

	/*
	 * The old rkey is dead: the write fails at the client and lands
	 * nowhere; the connection breaks (rxe: the client's QP fails, its
	 * Receives flush; siw: the client terminates the stream, and
	 * DISCONNECTED comes).
	 */
	flushes = atomic_read(&rt_xp.flush_disconnects);
	discs = rt_count(RDMA_CM_EVENT_DISCONNECTED);
	cmkit_rpc_srv_rdma_write(c.rpc, rkey, addr, PAGE_SIZE, 2);
	KUNIT_ASSERT_TRUE_MSG(test, wait_event_timeout(rt_log.wait,
						       rt_broken(flushes, discs),
						       cmkit_test_timeout()),
			      "a write with an invalidated rkey left the connection up");
	differ = rt_pages_differ(pages, len, 1);
	KUNIT_EXPECT_EQ_MSG(test, differ, len,
			    "a write with an invalidated rkey landed: byte %u changed", differ);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * Each MR step fails once: the mapping (-EIO, the MR goes back, the
 * connection carries calls), the registration's post and the
 * invalidation's post (-EIO, the MRs are the connection's to release
 * after its drain, and the connection closes).  Nothing is left.
 */
static void mr_failure_at_each_step_leaves_nothing(struct kunit *test)
{
	static const enum rpcrdma_fault steps[] = {
		RPCRDMA_FAULT_MR_MAP, RPCRDMA_FAULT_MR_REG, RPCRDMA_FAULT_MR_INV,
	};
	struct page **pages = rt_pages(test, 4);
	struct rpcrdma_mr *mr;
	struct rt_ctx c;
	unsigned int i;
	int fired, rc;

	rt_setup(test, &c, true);
	cmkit_test_require_fault_injection(test);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		LIST_HEAD(mrs);

		KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
		rt_calls_ok(&c, 1);
		mr = cmkit_rpcrdma_mr_get(c.xprt);
		KUNIT_ASSERT_NOT_NULL(test, mr);
		fired = atomic_read(&cmkit_rpcrdma_fault_points.fired);
		cmkit_fault_arm(&cmkit_rpcrdma_fault_points, BIT(steps[i]), 1);
		rc = cmkit_rpcrdma_frwr_map(c.xprt, mr, pages, 0, 4 * PAGE_SIZE, false);
		if (rc) {
			cmkit_rpcrdma_mr_put(mr);
		} else {
			list_add(&mr->mr_list, &mrs);
			rc = cmkit_rpcrdma_frwr_reg_sync(c.xprt, &mrs);
			if (!rc)
				rc = cmkit_rpcrdma_frwr_unmap_sync(c.xprt, &mrs);
			KUNIT_EXPECT_TRUE_MSG(test, list_empty(&mrs),
					      "%s: the caller still holds MRs",
					      cmkit_rpcrdma_fault_steps[steps[i]]);
		}
		cmkit_fault_disarm(&cmkit_rpcrdma_fault_points);
		KUNIT_EXPECT_EQ_MSG(test, rc, -EIO, "%s", cmkit_rpcrdma_fault_steps[steps[i]]);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&cmkit_rpcrdma_fault_points.fired) - fired, 1,
				    "%s never fired", cmkit_rpcrdma_fault_steps[steps[i]]);
		if (steps[i] == RPCRDMA_FAULT_MR_MAP)
			rt_calls_ok(&c, 1);
		else
			KUNIT_EXPECT_GE(test, atomic_read(&c.xprt->rx_force_count), 1);
		cmkit_rpcrdma_xprt_disconnect(c.xprt);
		rt_expect_all_released(&c);
		atomic_set(&c.xprt->rx_force_count, 0);
		c.srv = rt_rpc_listener(&c, "server2", &c.addr, &c.rpc);
		memcpy(&c.xprt->rx_dst, &c.addr, sizeof(c.addr));
	}
}

/* ---- the handler under traffic ----------------------------------------------- */

#define RT_IN_FLIGHT	8

/* ---- test-program calls with chunks ----------------------------------- */

/* Fill @len bytes of @pages with the FILL pattern of @seed. */
static void rt_pages_fill(struct page **pages, u32 len, u32 seed)
{
	u32 off;

	for (off = 0; off < len; off += PAGE_SIZE) {
		u32 i, this = min_t(u32, len - off, PAGE_SIZE);
		u8 *p = kmap_local_page(pages[off / PAGE_SIZE]);

		for (i = 0; i < this; i++)
			p[i] = cmkit_rpc_testprog_byte(seed, off + i);
		kunmap_local(p);
	}
}

/* The crc32c of @len bytes of @pages, as the test program's SINK gives it. */
static u32 rt_pages_crc(struct page **pages, u32 len)
{
	u32 crc = CMKIT_CRC32C_SEED, off;

	for (off = 0; off < len; off += PAGE_SIZE) {
		u32 this = min_t(u32, len - off, PAGE_SIZE);
		u8 *p = kmap_local_page(pages[off / PAGE_SIZE]);

		crc = cmkit_crc32c(crc, p, this);
		kunmap_local(p);
	}
	return ~crc;
}

struct rt_proc_size {
	u32 len;
	enum cmkit_rpcrdma_chunktype arg, res;	/* ECHO's */
};

/*
 * ECHO, FILL and SINK of 256 bytes to 1 MiB against the in-kernel server,
 * with the client's inline sizes (1 KiB each way: the server sends no
 * RFC 8797 message): 256 bytes go inline both ways; from 4 KiB on the
 * argument goes in a read chunk the server RDMA-reads and the result in a
 * write chunk it RDMA-writes.  The data that comes back is the data sent
 * (ECHO), the pattern asked for (FILL), the length and crc32c of what was
 * sent (SINK); the server read and wrote exactly the chunked bytes; every
 * MR is back in the pool after each call, and freed with the connection.
 */
static void test_program_calls_move_their_data_inline_and_in_chunks(struct kunit *test)
{
	static const struct rt_proc_size sizes[] = {
		{ 256, CMKIT_RPCRDMA_NOCH, CMKIT_RPCRDMA_NOCH },
		{ 4096, CMKIT_RPCRDMA_READCH, CMKIT_RPCRDMA_WRITECH },
		{ 65536, CMKIT_RPCRDMA_READCH, CMKIT_RPCRDMA_WRITECH },
		{ 1U << 20, CMKIT_RPCRDMA_READCH, CMKIT_RPCRDMA_WRITECH },
	};
	const u32 max = 1U << 20;
	struct page **arg = rt_pages(test, max / PAGE_SIZE);
	struct page **res = rt_pages(test, max / PAGE_SIZE);
	struct cmkit_rpc_counts before, after;
	struct cmkit_rpcrdma_proc p;
	struct rt_counts now;
	struct rt_ctx c;
	unsigned int i;
	u32 differ, chunked;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 len = sizes[i].len;

		chunked = sizes[i].arg == CMKIT_RPCRDMA_READCH ? len : 0;
		rt_pages_fill(arg, len, i + 1);
		before = cmkit_rpc_srv_counts(c.rpc);
		p = (struct cmkit_rpcrdma_proc){
			.proc = CMKIT_RPC_TESTPROG_ECHO, .arg = arg, .arg_len = len,
			.res = res, .res_max = max,
		};
		KUNIT_ASSERT_EQ_MSG(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), 0,
				    "ECHO of %u", len);
		after = cmkit_rpc_srv_counts(c.rpc);
		KUNIT_EXPECT_EQ(test, p.res_len, len);
		KUNIT_EXPECT_EQ(test, p.m.rtype, sizes[i].arg);
		KUNIT_EXPECT_EQ(test, p.m.wtype, sizes[i].res);
		KUNIT_EXPECT_EQ(test, p.write_len, chunked);
		KUNIT_EXPECT_EQ(test, after.read_bytes - before.read_bytes, (u64)chunked);
		KUNIT_EXPECT_EQ(test, after.written_bytes - before.written_bytes, (u64)chunked);
		differ = rt_pages_differ(res, len, i + 1);
		KUNIT_EXPECT_EQ_MSG(test, differ, len, "ECHO of %u differs at byte %u",
				    len, differ);

		before = after;
		p = (struct cmkit_rpcrdma_proc){
			.proc = CMKIT_RPC_TESTPROG_FILL, .fill_len = len, .fill_seed = 0x100 + i,
			.res = res, .res_max = max,
		};
		KUNIT_ASSERT_EQ_MSG(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), 0,
				    "FILL of %u", len);
		after = cmkit_rpc_srv_counts(c.rpc);
		KUNIT_EXPECT_EQ(test, p.res_len, len);
		KUNIT_EXPECT_EQ(test, p.m.rtype, CMKIT_RPCRDMA_NOCH);
		KUNIT_EXPECT_EQ(test, p.m.wtype, sizes[i].res);
		KUNIT_EXPECT_EQ(test, after.written_bytes - before.written_bytes, (u64)chunked);
		differ = rt_pages_differ(res, len, 0x100 + i);
		KUNIT_EXPECT_EQ_MSG(test, differ, len, "FILL of %u differs at byte %u",
				    len, differ);

		before = after;
		p = (struct cmkit_rpcrdma_proc){
			.proc = CMKIT_RPC_TESTPROG_SINK, .arg = arg, .arg_len = len,
		};
		KUNIT_ASSERT_EQ_MSG(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), 0,
				    "SINK of %u", len);
		after = cmkit_rpc_srv_counts(c.rpc);
		KUNIT_EXPECT_EQ(test, p.m.rtype, sizes[i].arg);
		KUNIT_EXPECT_EQ(test, p.m.wtype, CMKIT_RPCRDMA_NOCH);
		KUNIT_EXPECT_EQ(test, p.sink_len, len);
		KUNIT_EXPECT_EQ(test, p.sink_crc, rt_pages_crc(arg, len));
		KUNIT_EXPECT_EQ(test, after.read_bytes - before.read_bytes, (u64)chunked);
		KUNIT_EXPECT_EQ(test, after.written_bytes - before.written_bytes, 0ULL);
		KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
	}
	after = cmkit_rpc_srv_counts(c.rpc);
	KUNIT_EXPECT_EQ(test, after.procs, 3 * (unsigned int)ARRAY_SIZE(sizes));
	now = rt_counts_now();
	/* One MR per chunk: ECHO two, FILL and SINK one each, for every chunked size. */
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_got), 4 * ((int)ARRAY_SIZE(sizes) - 1));
	/*
	 * The client advertised Remote Invalidation: a call with one MR
	 * (FILL, SINK) has it invalidated by the server's Send With
	 * Invalidate; ECHO's two are fenced by LOCAL_INV.
	 */
	KUNIT_EXPECT_EQ(test, after.send_inv, 2 * ((unsigned int)ARRAY_SIZE(sizes) - 1));
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_remote_inv),
			2 * ((int)ARRAY_SIZE(sizes) - 1));
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * An ECHO of @len bytes of @arg as cmkit_rpcrdma_call_chunks() takes any
 * program's call: the RPC call written by the caller with an xid of the
 * transport's sequence, the opaque's length inline, its bytes in a read
 * chunk at their XDR position (just past the length), the echoed bytes
 * in a write chunk of @res and the results inline (the opaque's length).
 */
struct rt_chunks_echo {
	u8 call[CMKIT_RPCRDMA_RPC_CALL_LEN + 4];
	u8 res[16];
	struct cmkit_rpcrdma_chunked c;
};

static void rt_chunks_echo_init(struct kunit *test, struct rpcrdma_xprt *x,
				struct rt_chunks_echo *e, struct page **arg,
				struct page **res, u32 len)
{
	u8 opaque_len[4];

	memset(e, 0, sizeof(*e));
	cmkit_put_be32(opaque_len, len);
	e->c.xid = cmkit_rpcrdma_xid_get(x);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_encode_rpc_call(e->call, sizeof(e->call), e->c.xid,
							    CMKIT_RPC_TESTPROG,
							    CMKIT_RPC_TESTPROG_VERS,
							    CMKIT_RPC_TESTPROG_ECHO, opaque_len,
							    sizeof(opaque_len)),
			(int)sizeof(e->call));
	e->c.call = e->call;
	e->c.call_len = sizeof(e->call);
	e->c.read = arg;
	e->c.read_len = len;
	e->c.read_pos = sizeof(e->call);
	e->c.write = res;
	e->c.write_max = len;
	e->c.res = e->res;
	e->c.res_max = sizeof(e->res);
}

static int rt_chunks_echo_call(struct rpcrdma_xprt *x, struct rt_chunks_echo *e)
{
	return cmkit_rpcrdma_call_chunks(x, CMKIT_RPC_TESTPROG, CMKIT_RPC_TESTPROG_VERS,
					 CMKIT_RPC_TESTPROG_ECHO, &e->c);
}

/* The server echoed @len bytes into the write chunk, and said so inline. */
static void rt_expect_chunks_echo(struct kunit *test, const struct rt_chunks_echo *e,
				  struct page **res, u32 len, u32 seed)
{
	u32 differ;

	KUNIT_EXPECT_EQ(test, e->c.write_len, len);
	KUNIT_EXPECT_EQ(test, e->c.res_len, 4U);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(e->res), len);
	differ = rt_pages_differ(res, len, seed);
	KUNIT_EXPECT_EQ_MSG(test, differ, len, "call_chunks ECHO of %u differs at byte %u",
			    len, differ);
}

/*
 * cmkit_rpcrdma_call_chunks(), the way nfs4.c sends READ and WRITE, here
 * with an ECHO of the test program: the caller's RPC call inline, its bulk
 * argument in a read chunk at its XDR position (past the call header and
 * the opaque's length), the echoed bytes in a write chunk.  For 4 KiB and
 * 64 KiB the server reads exactly the read chunk and writes exactly the
 * write chunk, the data comes back byte for byte, the call's xid is the
 * one the caller wrote, and each call's two MRs (two rkeys: LOCAL_INV
 * fences them) are back in the pool after it.
 */
static void call_chunks_moves_a_read_chunk_at_its_position_and_a_write_chunk(struct kunit *test)
{
	static const u32 lens[] = { 4096, 65536 };
	struct page **arg = rt_pages(test, SZ_64K / PAGE_SIZE);
	struct page **res = rt_pages(test, SZ_64K / PAGE_SIZE);
	struct cmkit_rpc_counts before, after;
	struct rt_chunks_echo *e;
	struct rt_counts now;
	struct rt_ctx c;
	unsigned int i;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		u32 len = lens[i];

		rt_pages_fill(arg, len, 0x60 + i);
		rt_pages_fill(res, len, 0xff);
		rt_chunks_echo_init(test, c.xprt, e, arg, res, len);
		before = cmkit_rpc_srv_counts(c.rpc);
		KUNIT_ASSERT_EQ_MSG(test, rt_chunks_echo_call(c.xprt, e), 0, "ECHO of %u", len);
		after = cmkit_rpc_srv_counts(c.rpc);
		rt_expect_chunks_echo(test, e, res, len, 0x60 + i);
		KUNIT_EXPECT_EQ(test, after.last_xid, e->c.xid);
		KUNIT_EXPECT_EQ(test, after.procs - before.procs, 1U);
		KUNIT_EXPECT_EQ(test, after.read_bytes - before.read_bytes, (u64)len);
		KUNIT_EXPECT_EQ(test, after.written_bytes - before.written_bytes, (u64)len);
		KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
	}
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_got), 2 * (int)ARRAY_SIZE(lens));
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_put), 2 * (int)ARRAY_SIZE(lens));
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * The server's write list (FILL's result) or reply chunk (MIRROR's whole
 * reply) says more than it wrote (beyond what the call offered), or less
 * than the result it announces: the client refuses either reply (-EPROTO)
 * and reads nothing past what it can trust; its MRs come back and the
 * connection carries the next call, served right.
 */
static void chunk_lengths_that_break_the_offer_are_refused(struct kunit *test)
{
	static const struct {
		const char *chunk, *how;
		u32 proc, wtype;
		enum cmkit_rpc_action lie;
	} lies[] = {
		{ "write list", "longer", CMKIT_RPC_TESTPROG_FILL, CMKIT_RPCRDMA_WRITECH,
		  CMKIT_RPC_SRV_WRITE_LONGER },
		{ "write list", "shorter", CMKIT_RPC_TESTPROG_FILL, CMKIT_RPCRDMA_WRITECH,
		  CMKIT_RPC_SRV_WRITE_SHORTER },
		{ "reply chunk", "longer", CMKIT_RPC_TESTPROG_MIRROR, CMKIT_RPCRDMA_REPLYCH,
		  CMKIT_RPC_SRV_WRITE_LONGER },
		{ "reply chunk", "shorter", CMKIT_RPC_TESTPROG_MIRROR, CMKIT_RPCRDMA_REPLYCH,
		  CMKIT_RPC_SRV_WRITE_SHORTER },
	};
	const u32 len = 8192;
	struct page **arg = rt_pages(test, len / PAGE_SIZE);
	struct page **res = rt_pages(test, len / PAGE_SIZE);
	struct cmkit_rpcrdma_proc p;
	struct rt_counts now;
	struct rt_ctx c;
	unsigned int i;

	rt_setup(test, &c, true);
	/* A server that never invalidates: the client's LOCAL_INV fences every MR. */
	cmkit_rpc_srv_no_send_inv(c.rpc);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_pages_fill(arg, len, 9);
	for (i = 0; i < ARRAY_SIZE(lies); i++) {
		bool fill = lies[i].proc == CMKIT_RPC_TESTPROG_FILL;

		/* The connection's calls so far, then the lie, then the truth. */
		cmkit_rpc_srv_set(c.rpc, lies[i].lie, cmkit_rpc_srv_counts(c.rpc).calls + 1, 1);
		p = (struct cmkit_rpcrdma_proc){
			.proc = lies[i].proc, .res = res, .res_max = len,
		};
		if (fill) {
			p.fill_len = len;
			p.fill_seed = 7;
		} else {
			p.arg = arg;
			p.arg_len = len;
		}
		KUNIT_EXPECT_EQ_MSG(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), -EPROTO,
				    "a %s with %s lengths was followed", lies[i].chunk,
				    lies[i].how);
		KUNIT_EXPECT_EQ(test, p.res_len, 0U);
		KUNIT_EXPECT_EQ(test, p.m.wtype, lies[i].wtype);
		KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
		if (fill)
			p.fill_seed = 9;
		KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), 0);
		KUNIT_EXPECT_EQ(test, p.res_len, len);
		KUNIT_EXPECT_EQ(test, rt_pages_differ(res, len, 9), len);
	}
	/* Each MIRROR wrote its reply chunk, the refused ones too. */
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).reply_chunks, 4U);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).send_inv, 0U);
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_remote_inv), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * MIRROR's data is not DDP-eligible: a call too large for the Send goes
 * whole in a position-zero read chunk (RDMA_NOMSG), and a reply too large
 * for the Receive is offered the reply chunk, which the server fills with
 * the whole RPC reply and announces with RDMA_NOMSG.  The data comes back
 * as sent; the server read the whole call and wrote the whole reply, no
 * more; two MRs (two rkeys) mean no Send With Invalidate: LOCAL_INV fences
 * both; every MR is back after each call.
 */
static void large_calls_travel_whole_in_position_zero_and_reply_chunks(struct kunit *test)
{
	static const struct rt_proc_size sizes[] = {
		{ 256, CMKIT_RPCRDMA_NOCH, CMKIT_RPCRDMA_NOCH },
		{ 4096, CMKIT_RPCRDMA_AREADCH, CMKIT_RPCRDMA_REPLYCH },
		{ 65536, CMKIT_RPCRDMA_AREADCH, CMKIT_RPCRDMA_REPLYCH },
		/* With its RPC header, the largest message one MR of 256 pages maps. */
		{ (1U << 20) - PAGE_SIZE, CMKIT_RPCRDMA_AREADCH, CMKIT_RPCRDMA_REPLYCH },
	};
	const u32 max = 1U << 20;
	struct page **arg = rt_pages(test, max / PAGE_SIZE);
	struct page **res = rt_pages(test, max / PAGE_SIZE);
	struct cmkit_rpc_counts before, after;
	struct cmkit_rpcrdma_proc p;
	struct rt_counts now;
	struct rt_ctx c;
	unsigned int i, chunked = 0;
	u32 differ;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u32 len = sizes[i].len;
		bool whole = sizes[i].arg == CMKIT_RPCRDMA_AREADCH;
		u32 call_bytes = whole ? CMKIT_RPCRDMA_RPC_CALL_LEN + 4 + len : 0;
		u32 reply_bytes = whole ? CMKIT_RPCRDMA_RPC_REPLY_LEN + 4 + len : 0;

		chunked += whole;
		rt_pages_fill(arg, len, 0x40 + i);
		before = cmkit_rpc_srv_counts(c.rpc);
		p = (struct cmkit_rpcrdma_proc){
			.proc = CMKIT_RPC_TESTPROG_MIRROR, .arg = arg, .arg_len = len,
			.res = res, .res_max = max,
		};
		KUNIT_ASSERT_EQ_MSG(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), 0,
				    "MIRROR of %u", len);
		after = cmkit_rpc_srv_counts(c.rpc);
		KUNIT_EXPECT_EQ(test, p.res_len, len);
		KUNIT_EXPECT_EQ(test, p.m.rtype, sizes[i].arg);
		KUNIT_EXPECT_EQ(test, p.m.wtype, sizes[i].res);
		KUNIT_EXPECT_EQ(test, p.write_len, 0U);
		KUNIT_EXPECT_EQ(test, p.reply_len, reply_bytes);
		KUNIT_EXPECT_EQ(test, after.nomsg_calls - before.nomsg_calls, (unsigned int)whole);
		KUNIT_EXPECT_EQ(test, after.reply_chunks - before.reply_chunks,
				(unsigned int)whole);
		KUNIT_EXPECT_EQ(test, after.read_bytes - before.read_bytes, (u64)call_bytes);
		KUNIT_EXPECT_EQ(test, after.written_bytes - before.written_bytes, (u64)reply_bytes);
		differ = rt_pages_differ(res, len, 0x40 + i);
		KUNIT_EXPECT_EQ_MSG(test, differ, len, "MIRROR of %u differs at byte %u",
				    len, differ);
		KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
	}
	after = cmkit_rpc_srv_counts(c.rpc);
	KUNIT_EXPECT_EQ(test, after.procs, (unsigned int)ARRAY_SIZE(sizes));
	KUNIT_EXPECT_EQ(test, after.send_inv, 0U);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_got), 2 * (int)chunked);
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_remote_inv), 0);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * The server disconnects while 8 calls wait for their held replies: the
 * handler's DISCONNECTED (not the last put: the transport holds one) closes
 * the transport, which completes every call with -ECONNABORTED and flushes
 * every Receive once.
 */
static void remote_disconnect_with_calls_in_flight_aborts_each_call(struct kunit *test)
{
	struct rt_calls *a;
	struct rt_decision d;
	struct rt_hold *h;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	rt_no_reconnect(&c);
	a = rt_calls_in_flight(&c, RT_IN_FLIGHT);
	/*
	 * On siw the peer's close also flushes the Receives, and the flush's
	 * force-disconnect may close the transport before DISCONNECTED comes:
	 * the work is held until the handler has decided, so its put is
	 * never the last (the order this case is about).
	 */
	h = rt_hold_force(&c);
	rt_server_established(&c);
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(c.srv), 0);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DISCONNECTED);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_wait_held(&c, h);
	rt_release(&c, h);
	rt_expect_calls_aborted(&c, a, RT_IN_FLIGHT);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	KUNIT_EXPECT_EQ(test, rt_count(RDMA_CM_EVENT_DISCONNECTED), 1U);
}

/* Calls on a kthread that takes @sig, so that a case can signal them. */
struct rt_sig_calls {
	struct rpcrdma_xprt *xprt;
	struct cmkit_rpcrdma_calls res;
	struct completion done;
	int sig;
	u32 count;
	int rc;
};

static int rt_sig_calls_thread(void *data)
{
	struct rt_sig_calls *a = data;

	allow_signal(a->sig);
	a->rc = cmkit_rpcrdma_xprt_call(a->xprt, RT_PROG, RT_VERS, a->count, &a->res);
	complete(&a->done);
	return 0;
}

/*
 * A signal the caller handles does not abandon its calls: their waits are
 * killable, as an RPC task's.  (A shell's SIGCHLD once ended a "call"
 * command with -EINTR, and busybox wrote the command again.)  A kthread's
 * SIGTERM is not fatal: the calls keep waiting, and get their replies.
 */
static void calls_in_flight_outlive_a_handled_signal(struct kunit *test)
{
	struct rt_sig_calls a = { .count = RT_IN_FLIGHT, .sig = SIGTERM };
	struct task_struct *task;
	struct rt_ctx c;
	bool held, ended;

	rt_setup(test, &c, true);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	cmkit_rpc_srv_hold(c.rpc);
	a.xprt = c.xprt;
	init_completion(&a.done);
	task = kthread_run(rt_sig_calls_thread, &a, "rt_sig_calls");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	held = cmkit_rpc_srv_wait_held(c.rpc, RT_IN_FLIGHT) == 0;
	KUNIT_EXPECT_TRUE_MSG(test, held, "the server never held %u calls", RT_IN_FLIGHT);
	send_sig(SIGTERM, task, 1);
	/* An interruptible wait would end now; give it a bounded chance to. */
	ended = wait_for_completion_timeout(&a.done, HZ);
	KUNIT_EXPECT_FALSE_MSG(test, ended, "the signal ended the calls: %d", a.rc);
	cmkit_rpc_srv_release(c.rpc);
	/* The thread uses @a: wait for it for good before the frame goes. */
	if (!ended && !wait_for_completion_timeout(&a.done, cmkit_test_timeout())) {
		KUNIT_FAIL(test, "the calls did not return once answered");
		wait_for_completion(&a.done);
	}
	KUNIT_EXPECT_EQ(test, a.rc, 0);
	KUNIT_EXPECT_EQ(test, a.res.sent, RT_IN_FLIGHT);
	KUNIT_EXPECT_EQ(test, a.res.accepted, RT_IN_FLIGHT);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * Calls abandoned on a fatal signal give their credits back while the
 * server still owes their replies: the next calls can then have more
 * replies coming than the grant has Receives for.  As xprtrdma's, cmkit
 * keeps RPCRDMA_MAX_RECV_BATCH Receives beyond the grant, so the late
 * replies land instead of meeting RNR (the client asks for no RNR retry:
 * the server's Send fails and the connection ends).  The server grants 4
 * and holds every reply: 2 calls are abandoned, then 4 more are sent.  The
 * client's Receive handling is held on the newest reply while the other 5
 * arrive: they must find Receives posted before, and every Send of the
 * server complete without error.
 */
static void late_replies_to_abandoned_calls_find_receives_beyond_the_grant(struct kunit *test)
{
	struct rt_sig_calls x = { .count = 2, .sig = SIGKILL };
	struct cmkit_rpc_counts srv;
	struct task_struct *task;
	struct rt_calls *y;
	unsigned int sends;
	struct rt_ctx c;
	u64 unknown;

	rt_setup(test, &c, true);
	cmkit_rpc_srv_grant(c.rpc, 4);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	KUNIT_ASSERT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_credits), 4U);
	/* A reply lost to RNR ends its call at this timeout, within the case's waits. */
	WRITE_ONCE(c.xprt->rx_call_timeout, cmkit_test_timeout() / 2);
	unknown = c.xprt->rx_buf.rb_unknown_xid;
	cmkit_rpc_srv_hold(c.rpc);
	x.xprt = c.xprt;
	init_completion(&x.done);
	task = kthread_run(rt_sig_calls_thread, &x, "rt_kill_calls");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, x.count), 0);
	send_sig(SIGKILL, task, 1);
	/* The thread uses @x: wait for it for good before the frame goes. */
	if (!wait_for_completion_timeout(&x.done, cmkit_test_timeout())) {
		KUNIT_FAIL(test, "the killed calls did not return");
		wait_for_completion(&x.done);
	}
	KUNIT_EXPECT_EQ(test, x.rc, -EINTR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_outstanding), 0U);

	/* Their credits are back: 4 more calls go, 6 replies are owed. */
	rt_pin_arm(&rt_reply_hold);
	c.xprt->rx_ops = &rt_hold_call_ops;
	y = rt_calls_start(test, c.xprt, 4);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, x.count + 4), 0);
	sends = cmkit_rpc_srv_counts(c.rpc).sends_done;
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_release_newest(c.rpc), 1U);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&rt_reply_hold.entered,
								cmkit_test_timeout()),
			      "the newest reply never reached the reply handler");
	/* No Receive is reposted until the handler goes on. */
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_release(c.rpc), x.count + 3);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_wait_sends(c.rpc, sends + x.count + 4), 0);
	srv = cmkit_rpc_srv_counts(c.rpc);
	KUNIT_EXPECT_EQ_MSG(test, srv.send_errors, 0U,
			    "a reply found no Receive posted (RNR): only the grant's were");
	complete(&rt_reply_hold.release);
	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, y), 0);
	KUNIT_EXPECT_EQ(test, y->res.accepted, 4U);
	KUNIT_EXPECT_EQ(test, c.xprt->rx_buf.rb_unknown_xid - unknown, (u64)x.count);
	c.xprt->rx_ops = NULL;
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

static struct {
	int flushes;			/* rt_xp.flush_disconnects at the start */
} rt_flush_first;

/*
 * siw's QP in ERR also ends the connection: DISCONNECTED waits here until
 * a flush has asked for the close, so the flush is first (on rxe no
 * DISCONNECTED comes).
 */
static void rt_disconnected_after_a_flush(struct rpcrdma_xprt *x, struct rdma_cm_id *id,
					  const struct rdma_cm_event *event)
{
	if (event->event == RDMA_CM_EVENT_DISCONNECTED)
		wait_event_timeout(rt_xp.wait, atomic_read(&rt_xp.flush_disconnects) !=
				   rt_flush_first.flushes, cmkit_test_timeout());
}

static const struct rpcrdma_xprt_ops rt_flush_first_ops = {
	.cm_event = rt_disconnected_after_a_flush,
};

/*
 * The client's QP breaks with calls in flight: every Receive flushes, the
 * first flush asks for the close (cmkit_rpcrdma_flush_disconnect() once, however
 * many flush), and the close aborts the calls.
 */
static void completion_error_with_calls_in_flight_closes_once(struct kunit *test)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int flushes = atomic_read(&rt_xp.flush_disconnects);
	struct rt_counts now;
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	rt_no_reconnect(&c);
	a = rt_calls_in_flight(&c, RT_IN_FLIGHT);
	rt_flush_first.flushes = flushes;
	c.xprt->rx_ops = &rt_flush_first_ops;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(c.xprt->rx_ep->re_id->qp, &attr, IB_QP_STATE), 0);
	rt_expect_calls_aborted(&c, a, RT_IN_FLIGHT);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_xp.flush_disconnects) - flushes, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
	now = rt_counts_now();
	KUNIT_EXPECT_GE(test, RT_DELTA(now, &c, recvs_flushed),
			(int)(RPCRDMA_MAX_REQUESTS - RT_IN_FLIGHT));
}

/* The device goes away with calls in flight: they end, the removal finishes. */
static void device_removal_with_calls_in_flight_aborts_them(struct kunit *test)
{
	struct cmkit_removal *removal;
	struct rt_decision d;
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	rt_no_reconnect(&c);
	a = rt_calls_in_flight(&c, RT_IN_FLIGHT);
	removal = cmkit_test_remove_device(test, c.param);
	d = rt_wait_decision(test, RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	KUNIT_EXPECT_EQ(test, d.rc, 0);
	rt_expect_calls_aborted(&c, a, RT_IN_FLIGHT);
	rt_expect_removed(&c, removal);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
}

/* ---- reconnecting after a lost connection (rpcrdma/reconnect.c) ----------- */

#define RT_REEST_LOG	16

/* The reconnects the transport scheduled, with their delays. */
static struct {
	spinlock_t lock;	/* the hook runs under the transport's rx_lock */
	unsigned int nr;
	unsigned long delay[RT_REEST_LOG];
} rt_reest = { .lock = __SPIN_LOCK_UNLOCKED(rt_reest.lock) };

static void rt_reconnect_hook(struct rpcrdma_xprt *x, unsigned long delay)
{
	spin_lock(&rt_reest.lock);
	if (rt_reest.nr < RT_REEST_LOG)
		rt_reest.delay[rt_reest.nr] = delay;
	rt_reest.nr++;
	spin_unlock(&rt_reest.lock);
	wake_up_all(&rt_xp.wait);
}

static const struct rpcrdma_xprt_ops rt_reest_ops = {
	.reconnect = rt_reconnect_hook,
};

static void rt_reest_start(struct rt_ctx *c)
{
	spin_lock(&rt_reest.lock);
	rt_reest.nr = 0;
	spin_unlock(&rt_reest.lock);
	c->xprt->rx_ops = &rt_reest_ops;
}

static unsigned int rt_reest_nr(void)
{
	unsigned int n;

	spin_lock(&rt_reest.lock);
	n = rt_reest.nr;
	spin_unlock(&rt_reest.lock);
	return n;
}

static void rt_wait_reest(struct kunit *test, unsigned int n)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_event_timeout(rt_xp.wait, rt_reest_nr() >= n,
						       cmkit_test_timeout()),
			      "%u reconnects scheduled, not %u", rt_reest_nr(), n);
}

/*
 * The server drops the connection while it holds the replies to 4 calls
 * (the held replies are never sent).  The transport reconnects at once
 * (delay 0) on a new endpoint and MR pool, the old connection's MRs freed
 * with it, and sends the 4 calls again with their xids, in order: the
 * server sees each xid a second time, and its replies complete the calls.
 */
static void connection_lost_with_calls_pending_reconnects_and_they_complete(struct kunit *test)
{
	const u32 n = 4;
	u32 xids[1 + 2 * 4];
	unsigned int i, mrs;
	struct rt_counts before, now;
	struct rt_calls *a;
	struct rt_ctx c;
	int resent;

	rt_setup(test, &c, true);
	rt_reconnect(&c);
	rt_reest_start(&c);
	a = rt_calls_in_flight(&c, n);
	before = rt_counts_now();
	resent = atomic_read(&cmkit_rpcrdma_stats.calls_resent);
	mrs = READ_ONCE(c.xprt->rx_buf.rb_mrs_count);
	KUNIT_ASSERT_GT(test, mrs, 0U);
	KUNIT_ASSERT_EQ(test, cmkit_peer_drop(c.srv), 0);
	/* Nothing is held any more; the calls sent again are answered. */
	cmkit_rpc_srv_release(c.rpc);
	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), 0);
	KUNIT_EXPECT_EQ(test, a->res.sent, n);
	KUNIT_EXPECT_EQ(test, a->res.accepted, n);
	KUNIT_EXPECT_EQ(test, a->res.aborted + a->res.timedout, 0U);

	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnects), 1U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnect_tries), 1U);
	KUNIT_ASSERT_EQ(test, rt_reest_nr(), 1U);
	KUNIT_EXPECT_EQ(test, rt_reest.delay[0], 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_stats.calls_resent) - resent, (int)n);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_xids(c.rpc, xids, ARRAY_SIZE(xids)), 1 + 2 * n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, xids[1 + n + i], xids[1 + i],
				    "call %u came again with xid 0x%08x, not 0x%08x", i,
				    xids[1 + n + i], xids[1 + i]);
	/* A new endpoint; the old connection's MRs are freed, none lent. */
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, now.eps_created - before.eps_created, 1);
	KUNIT_EXPECT_GE(test, now.mrs_freed - before.mrs_freed, (int)mrs);
	KUNIT_EXPECT_GT(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_count), 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_resend), 0U);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c.xprt->rx_buf.rb_reconnecting));
	/* The new connection carries calls. */
	rt_calls_ok(&c, 2);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&c.xprt->rx_reconnect_work));
}

/* A chunked call on a work item, so the case can act while it is in flight. */
struct rt_chunked {
	struct work_struct work;
	struct rpcrdma_xprt *xprt;
	struct cmkit_rpcrdma_proc p;	/* unless @e */
	struct rt_chunks_echo *e;	/* cmkit_rpcrdma_call_chunks() */
	struct completion done;
	int rc;
};

static void rt_chunked_work(struct work_struct *work)
{
	struct rt_chunked *a = container_of(work, struct rt_chunked, work);

	a->rc = a->e ? rt_chunks_echo_call(a->xprt, a->e) : cmkit_rpcrdma_xprt_proc(a->xprt, &a->p);
	complete_all(&a->done);
}

static void rt_chunked_free(struct kunit_resource *res)
{
	struct rt_chunked *a = res->data;

	/* A case that failed before waiting must not free what the work uses. */
	wait_for_completion(&a->done);
	kfree(a->e);
	kfree(a);
}

/* Start @p (or, with @e, a call_chunks ECHO) on @x; the case waits for it. */
static struct rt_chunked *rt_chunked_start(struct kunit *test, struct rpcrdma_xprt *x,
					   const struct cmkit_rpcrdma_proc *p,
					   const struct rt_chunks_echo *e)
{
	struct rt_chunked *a = kzalloc(sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->xprt = x;
	if (p)
		a->p = *p;
	init_completion(&a->done);
	INIT_WORK(&a->work, rt_chunked_work);
	if (e) {
		a->e = kmemdup(e, sizeof(*e), GFP_KERNEL);
		if (!a->e) {
			kfree(a);
			KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for the call");
		}
		/* Its call and results are its own copy's. */
		a->e->c.call = a->e->call;
		a->e->c.res = a->e->res;
	}
	if (!kunit_alloc_resource(test, rt_res_init, rt_chunked_free, GFP_KERNEL, a)) {
		kfree(a->e);
		kfree(a);
		KUNIT_ASSERT_TRUE_MSG(test, false, "cannot track the call");
	}
	queue_work(system_unbound_wq, &a->work);
	return a;
}

static int rt_chunked_wait(struct kunit *test, struct rt_chunked *a)
{
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&a->done, cmkit_test_timeout()),
			      "the chunked call did not return");
	return a->rc;
}

/* How many of @xids[0..@n) are @xid. */
static unsigned int rt_xid_count(const u32 *xids, unsigned int n, u32 xid)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		k += xids[i] == xid;
	return k;
}

/*
 * A batch of 6 calls on a grant of 2: the server holds the replies to the
 * first two while the third waits for a credit, and drops the connection.
 * The transport reconnects; the two calls in flight are sent again with
 * their xids, and once they are answered the batch sends its other four
 * on the new connection (as xprt_transmit() sends what is queued once the
 * transport is connected again): every call of the batch is accepted, the
 * server saw the first two xids twice and four new ones once.
 */
static void connection_lost_with_a_batch_half_sent_sends_the_rest_on_the_next(struct kunit *test)
{
	const u32 count = 6, grant = 2;
	u32 xids[1 + 2 * 2 + 4];
	struct rt_calls *a;
	struct rt_ctx c;
	unsigned int i;
	int resent, waits;

	rt_setup(test, &c, true);
	rt_reconnect(&c);
	rt_reest_start(&c);
	cmkit_rpc_srv_grant(c.rpc, grant);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	rt_calls_ok(&c, 1);
	KUNIT_ASSERT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_credits), grant);
	cmkit_rpc_srv_hold(c.rpc);
	resent = atomic_read(&cmkit_rpcrdma_stats.calls_resent);
	waits = atomic_read(&rt_xp.credit_waits);
	a = rt_calls_start(test, c.xprt, count);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, grant), 0);
	rt_wait_xp(test, &rt_xp.credit_waits, waits + 1, "the third call wait for a credit");
	KUNIT_ASSERT_EQ(test, cmkit_peer_drop(c.srv), 0);
	cmkit_rpc_srv_release(c.rpc);

	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), 0);
	KUNIT_EXPECT_EQ(test, a->res.sent, count);
	KUNIT_EXPECT_EQ(test, a->res.accepted, count);
	KUNIT_EXPECT_EQ(test, a->res.aborted + a->res.timedout, 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnects), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_stats.calls_resent) - resent,
			(int)grant);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_xids(c.rpc, xids, ARRAY_SIZE(xids)),
			(unsigned int)ARRAY_SIZE(xids));
	/* The two sent again, then the four never sent before. */
	for (i = 0; i < grant; i++)
		KUNIT_EXPECT_EQ(test, rt_xid_count(xids + 1 + grant, grant, xids[1 + i]), 1U);
	for (i = 1 + 2 * grant; i < ARRAY_SIZE(xids); i++)
		KUNIT_EXPECT_EQ_MSG(test, rt_xid_count(xids, ARRAY_SIZE(xids), xids[i]), 1U,
				    "xid 0x%08x of the batch's rest was sent before", xids[i]);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_resend), 0U);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c.xprt->rx_buf.rb_reconnecting));
	rt_calls_ok(&c, 2);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * The server drops the connection while it holds the replies to three
 * calls with chunks, each with its data read and written already: an ECHO
 * of 64 KiB (read and write chunks), a MIRROR of 64 KiB (whole in a
 * position-zero read chunk, its reply in the reply chunk) and a
 * cmkit_rpcrdma_call_chunks() ECHO of 64 KiB (a read chunk at its
 * position, a write chunk).  Their MRs were the lost connection's: the
 * transport reconnects, and each call is marshalled again with its chunks
 * registered from the new connection's pool and sent with its xid, within
 * its deadline.  The server serves each xid a second time, reading and
 * writing every chunk again; the data that comes back is checked byte for
 * byte; every MR of the old connection is freed with it and every MR of
 * the calls is back in the pool, none lent.
 */
static void connection_lost_with_chunked_calls_registers_their_chunks_again(struct kunit *test)
{
	const u32 len = SZ_64K, n = 3;
	const u32 call_bytes = CMKIT_RPCRDMA_RPC_CALL_LEN + 4 + len;
	const u32 reply_bytes = CMKIT_RPCRDMA_RPC_REPLY_LEN + 4 + len;
	struct page **arg[3], **res[3];
	struct cmkit_rpc_counts before, after;
	struct rt_chunked *a[3];
	struct cmkit_rpcrdma_proc p;
	struct rt_chunks_echo *e;
	struct rt_counts now;
	u32 xids[1 + 2 * 3];
	unsigned int i, mrs;
	struct rt_ctx c;
	int resent;
	u32 differ;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	for (i = 0; i < n; i++) {
		arg[i] = rt_pages(test, len / PAGE_SIZE);
		res[i] = rt_pages(test, len / PAGE_SIZE);
		rt_pages_fill(arg[i], len, 0x70 + i);
	}
	rt_setup(test, &c, true);
	rt_reconnect(&c);
	rt_reest_start(&c);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	/* The server's grant in force: the three calls go at once. */
	rt_calls_ok(&c, 1);
	cmkit_rpc_srv_hold(c.rpc);
	before = cmkit_rpc_srv_counts(c.rpc);
	resent = atomic_read(&cmkit_rpcrdma_stats.calls_resent);

	p = (struct cmkit_rpcrdma_proc){ .proc = CMKIT_RPC_TESTPROG_ECHO, .arg = arg[0],
					 .arg_len = len, .res = res[0], .res_max = len };
	a[0] = rt_chunked_start(test, c.xprt, &p, NULL);
	p = (struct cmkit_rpcrdma_proc){ .proc = CMKIT_RPC_TESTPROG_MIRROR, .arg = arg[1],
					 .arg_len = len, .res = res[1], .res_max = len };
	a[1] = rt_chunked_start(test, c.xprt, &p, NULL);
	rt_chunks_echo_init(test, c.xprt, e, arg[2], res[2], len);
	a[2] = rt_chunked_start(test, c.xprt, NULL, e);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_rpc_srv_wait_held(c.rpc, n), 0,
			    "the server never held %u chunked calls", n);
	/* Two MRs each, registered on this connection. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 2 * n);
	mrs = READ_ONCE(c.xprt->rx_buf.rb_mrs_count);
	KUNIT_ASSERT_EQ(test, cmkit_peer_drop(c.srv), 0);
	cmkit_rpc_srv_release(c.rpc);

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, rt_chunked_wait(test, a[i]), 0, "chunked call %u", i);
	KUNIT_EXPECT_EQ(test, a[0]->p.m.rtype, CMKIT_RPCRDMA_READCH);
	KUNIT_EXPECT_EQ(test, a[0]->p.m.wtype, CMKIT_RPCRDMA_WRITECH);
	KUNIT_EXPECT_EQ(test, a[0]->p.res_len, len);
	KUNIT_EXPECT_EQ(test, a[0]->p.write_len, len);
	differ = rt_pages_differ(res[0], len, 0x70);
	KUNIT_EXPECT_EQ_MSG(test, differ, len, "ECHO differs at byte %u", differ);
	KUNIT_EXPECT_EQ(test, a[1]->p.m.rtype, CMKIT_RPCRDMA_AREADCH);
	KUNIT_EXPECT_EQ(test, a[1]->p.m.wtype, CMKIT_RPCRDMA_REPLYCH);
	KUNIT_EXPECT_EQ(test, a[1]->p.res_len, len);
	KUNIT_EXPECT_EQ(test, a[1]->p.reply_len, reply_bytes);
	differ = rt_pages_differ(res[1], len, 0x71);
	KUNIT_EXPECT_EQ_MSG(test, differ, len, "MIRROR differs at byte %u", differ);
	rt_expect_chunks_echo(test, a[2]->e, res[2], len, 0x72);

	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnects), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_stats.calls_resent) - resent, (int)n);
	/* Each call served twice, every chunk read and written again. */
	after = cmkit_rpc_srv_counts(c.rpc);
	KUNIT_EXPECT_EQ(test, after.procs - before.procs, 2 * n);
	KUNIT_EXPECT_EQ(test, after.nomsg_calls - before.nomsg_calls, 2U);
	KUNIT_EXPECT_EQ(test, after.reply_chunks - before.reply_chunks, 2U);
	KUNIT_EXPECT_EQ(test, after.read_bytes - before.read_bytes,
			2ULL * (len + call_bytes + len));
	KUNIT_EXPECT_EQ(test, after.written_bytes - before.written_bytes,
			2ULL * (len + reply_bytes + len));
	/* The same xids again, the call_chunks one (the caller's) among them. */
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_xids(c.rpc, xids, ARRAY_SIZE(xids)), 1 + 2 * n);
	for (i = 1; i <= n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, rt_xid_count(xids + 1, n, xids[i]), 1U,
				    "xid 0x%08x sent twice on the first connection", xids[i]);
		KUNIT_EXPECT_EQ_MSG(test, rt_xid_count(xids + 1 + n, n, xids[i]), 1U,
				    "xid 0x%08x was not sent again (or twice)", xids[i]);
	}
	KUNIT_EXPECT_EQ(test, rt_xid_count(xids, ARRAY_SIZE(xids), a[2]->e->c.xid), 2U);

	/*
	 * New MRs for every chunk (two per call, twice); the lost
	 * connection's pool freed whole with it; none lent.
	 */
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_got), 2 * 2 * (int)n);
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_put), RT_DELTA(now, &c, mrs_got));
	KUNIT_EXPECT_GE(test, RT_DELTA(now, &c, mrs_freed), (int)mrs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_resend), 0U);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c.xprt->rx_buf.rb_reconnecting));
	/* The new connection carries chunked calls. */
	rt_chunks_echo_init(test, c.xprt, e, arg[2], res[2], len);
	KUNIT_EXPECT_EQ(test, rt_chunks_echo_call(c.xprt, e), 0);
	rt_expect_chunks_echo(test, e, res[2], len, 0x72);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * The server drops the connection and refuses every connection after it.
 * The calls wait for a new connection until their own deadlines, which
 * started when they were sent (the loss does not restart them: they are
 * half gone when it happens), and each ends with -ETIMEDOUT; meanwhile the
 * transport tries at once, then after the initial delay, doubling up to
 * the cap, and goes on trying once every call has ended, until its owner
 * disconnects it: then no reconnect is left queued.
 */
static void server_gone_ends_each_call_after_its_timeout_and_backs_off(struct kunit *test)
{
	const unsigned long init = msecs_to_jiffies(50), cap = 4 * init;
	const unsigned long timeout = 2 * HZ;
	const unsigned long expect[] = { 0, init, 2 * init, cap, cap, cap };
	unsigned long started, sent, ended;
	unsigned int calls, i, nr;
	struct rt_counts now;
	struct rt_calls *a;
	struct rt_ctx c;
	u32 tries;

	rt_setup(test, &c, true);
	rt_reconnect(&c);
	rt_reest_start(&c);
	c.xprt->rx_reest_init = init;
	c.xprt->rx_reest_max = cap;
	c.xprt->rx_call_timeout = timeout;
	started = jiffies;
	a = rt_calls_in_flight(&c, 3);
	sent = jiffies;
	calls = cmkit_rpc_srv_counts(c.rpc).calls;
	WRITE_ONCE(c.srv->reject, true);
	/* Not a synchronisation: the calls' deadlines are half gone at the loss. */
	schedule_timeout_uninterruptible(timeout / 2);
	KUNIT_ASSERT_EQ(test, cmkit_peer_drop(c.srv), 0);
	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), -ETIMEDOUT);
	ended = jiffies;
	KUNIT_EXPECT_EQ(test, a->res.sent, 3U);
	KUNIT_EXPECT_EQ(test, a->res.timedout, 3U);
	KUNIT_EXPECT_EQ(test, a->res.accepted + a->res.aborted, 0U);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, call_timeouts), 3);
	/* After their own timeout from their Send, not from the loss. */
	KUNIT_EXPECT_GE(test, ended - started, timeout);
	KUNIT_EXPECT_LT_MSG(test, ended - sent, timeout + timeout / 4,
			    "the calls ended %u ms after they were sent",
			    jiffies_to_msecs(ended - sent));
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).calls, calls);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_resend), 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnects), 0U);

	/* Backing off: 0, the initial delay, doubled, capped. */
	rt_wait_reest(test, ARRAY_SIZE(expect));
	for (i = 0; i < ARRAY_SIZE(expect); i++)
		KUNIT_EXPECT_EQ_MSG(test, rt_reest.delay[i], expect[i], "delay %u", i);
	/* Every call ended; the transport goes on trying. */
	nr = rt_reest_nr();
	rt_wait_reest(test, nr + 2);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(c.xprt->rx_buf.rb_reconnecting));

	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&c.xprt->rx_reconnect_work));
	KUNIT_EXPECT_FALSE(test, work_busy(&c.xprt->rx_reconnect_work.work));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c.xprt->rx_buf.rb_reconnecting));
	nr = rt_reest_nr();
	tries = READ_ONCE(c.xprt->rx_reconnect_tries);
	KUNIT_EXPECT_GE(test, tries, (u32)ARRAY_SIZE(expect));
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, rt_reest_nr(), nr);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnect_tries), tries);
}

/*
 * The first reconnect fails and the next waits its delay (long here) when
 * the owner disconnects: the queued reconnect is cancelled, none runs, and
 * the calls waiting for it end with -ECONNABORTED at once.
 */
static void disconnect_during_backoff_stops_the_reconnects(struct kunit *test)
{
	const unsigned long init = 10 * cmkit_test_timeout();
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	rt_reconnect(&c);
	rt_reest_start(&c);
	c.xprt->rx_reest_init = init;
	c.xprt->rx_reest_max = init;
	a = rt_calls_in_flight(&c, 2);
	WRITE_ONCE(c.srv->reject, true);
	KUNIT_ASSERT_EQ(test, cmkit_peer_drop(c.srv), 0);
	rt_wait_reest(test, 2);
	KUNIT_EXPECT_EQ(test, rt_reest.delay[0], 0UL);
	KUNIT_EXPECT_EQ(test, rt_reest.delay[1], init);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnect_tries), 1U);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&c.xprt->rx_reconnect_work));
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_resend), 2U);

	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&c.xprt->rx_reconnect_work));
	KUNIT_EXPECT_FALSE(test, work_busy(&c.xprt->rx_reconnect_work.work));
	rt_expect_calls_aborted(&c, a, 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_resend), 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnect_tries), 1U);
	KUNIT_EXPECT_EQ(test, rt_reest_nr(), 2U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_reconnects), 0U);
	rt_expect_all_released(&c);
}

/*
 * Through the control plane: a call command whose connection is lost
 * completes on the next one, and xprts counts the reconnect.
 */
static void ctl_xprts_counts_reconnects(struct kunit *test)
{
	char *xprts = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct rt_cmd *call;
	char line[32];
	struct rt_ctx c;
	bool was;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, xprts);
	rt_setup(test, &c, true);
	was = cmkit_rpcrdma_reconnect_default(true);
	nr = rt_ctl_connect(&c, xprts, PAGE_SIZE);
	cmkit_rpcrdma_reconnect_default(was);
	rt_ctl_call_ok(test, nr);
	rt_xprts(xprts, PAGE_SIZE);
	/* Only once a lost connection was to be re-established. */
	KUNIT_EXPECT_NULL_MSG(test, strstr(xprts, " reconnects="), "%s", xprts);
	cmkit_rpc_srv_hold(c.rpc);
	snprintf(line, sizeof(line), "call %u 2", nr);
	call = rt_cmd_start(test, line, false);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, 2), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_drop(c.srv), 0);
	cmkit_rpc_srv_release(c.rpc);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&call->done, cmkit_test_timeout()));
	KUNIT_EXPECT_EQ(test, call->rc, 0);
	rt_xprts(xprts, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(xprts, " reconnects=1 calls=3 replies=3 errors=0 "),
				  "%s", xprts);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy %u", nr), 0);
	c.xprt = NULL;	/* the case's own transport was never used */
	rt_expect_all_released(&c);
}

/* A local disconnect on a work item: it waits for the held reply handler. */
static void rt_disconnect_work(struct work_struct *work)
{
	struct rt_async *a = container_of(work, struct rt_async, work);

	cmkit_rpcrdma_xprt_disconnect(a->xprt);
	complete(&a->done);
}

/*
 * Order 1 of a local disconnect and a reply: the reply was matched and its
 * handler runs (held in the hook) when the disconnect starts; the drain
 * waits for it, the call completes accepted, and the calls whose replies
 * the server still holds end with -ECONNABORTED.
 */
static void local_disconnect_while_a_reply_is_handled_completes_it(struct kunit *test)
{
	int drains = atomic_read(&rt_xp.drains);
	struct rt_async *disc;
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	c.xprt->rx_ops = &rt_hold_call_ops;
	a = rt_calls_in_flight(&c, 4);
	rt_pin_arm(&rt_reply_hold);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_release_one(c.rpc), 1U);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&rt_reply_hold.entered,
								cmkit_test_timeout()),
			      "the reply never reached the handler");
	disc = rt_async_start(test, c.xprt, rt_disconnect_work);
	rt_wait_xp(test, &rt_xp.drains, drains + 1, "the disconnect's drain");
	KUNIT_EXPECT_FALSE(test, completion_done(&disc->done));
	complete(&rt_reply_hold.release);
	rt_async_wait(test, disc);
	KUNIT_EXPECT_EQ(test, rt_calls_wait(test, a), -ECONNABORTED);
	KUNIT_EXPECT_EQ(test, a->res.accepted, 1U);
	KUNIT_EXPECT_EQ(test, a->res.aborted, 3U);
	rt_expect_all_released(&c);
}

/*
 * Order 2: the local disconnect ends every call first; the replies the
 * server then releases reach no handler (the client's QP is gone).
 */
static void local_disconnect_before_the_replies_aborts_every_call(struct kunit *test)
{
	struct rt_counts now;
	struct rt_calls *a;
	struct rt_ctx c;
	int replies;

	rt_setup(test, &c, true);
	c.xprt->rx_ops = &rt_hold_call_ops;
	WRITE_ONCE(rt_reply_hold.armed, false);
	a = rt_calls_in_flight(&c, 4);
	replies = atomic_read(&rt_reply_hold.passes);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_calls_aborted(&c, a, 4);
	cmkit_rpc_srv_release(c.rpc);
	rt_expect_all_released(&c);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, atomic_read(&rt_reply_hold.passes), replies);
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, unknown_xid), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 0);
}

/* A constructed ADDR_CHANGE on the connected id while calls are in flight. */
static void constructed_addr_change_with_calls_in_flight_aborts_them(struct kunit *test)
{
	struct rt_decision d;
	struct rt_calls *a;
	struct rt_ctx c;

	rt_setup(test, &c, true);
	rt_no_reconnect(&c);
	a = rt_calls_in_flight(&c, RT_IN_FLIGHT);
	KUNIT_EXPECT_EQ(test, rt_inject(c.xprt->rx_ep->re_id, RDMA_CM_EVENT_ADDR_CHANGE, 0), 0);
	d = rt_wait_decision(test, RDMA_CM_EVENT_ADDR_CHANGE);
	KUNIT_EXPECT_EQ(test, d.old_status, 1);
	KUNIT_EXPECT_EQ(test, d.new_status, -ENODEV);
	rt_expect_calls_aborted(&c, a, RT_IN_FLIGHT);
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.xprt->rx_force_count), 1);
}

/*
 * What unloading cmkit takes with calls in flight through the control
 * plane: the transport pins the module (rmmod fails), "destroy all" ends
 * the calls with -ECONNABORTED, and once the call command returned nothing
 * pins it any more.
 */
static void destroy_all_with_calls_in_flight_aborts_them_and_unpins_the_module(struct kunit *test)
{
	char *xprts = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct rt_cmd *call;
	char line[32];
	struct rt_ctx c;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, xprts);
	rt_setup(test, &c, true);
	nr = rt_ctl_connect(&c, xprts, PAGE_SIZE);
	rt_ctl_call_ok(test, nr);
	cmkit_rpc_srv_hold(c.rpc);
	snprintf(line, sizeof(line), "call %u %u", nr, RT_IN_FLIGHT);
	call = rt_cmd_start(test, line, false);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, RT_IN_FLIGHT), 0);
	/* The ep and the control plane's transport: rmmod gets EBUSY now. */
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_module_refs(), c.base.module_refs + 2);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&call->done, cmkit_test_timeout()));
	KUNIT_EXPECT_EQ(test, call->rc, -ECONNABORTED);
	rt_xprts(xprts, PAGE_SIZE);
	KUNIT_EXPECT_STREQ(test, xprts, "");
	c.xprt = NULL;	/* the case's own transport was never used */
	rt_expect_all_released(&c);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_module_refs(), c.base.module_refs);
}

/*
 * The Send of a chunked call cannot be posted (its chain with the MRs'
 * registrations fails): the call fails with -ENOTCONN, the connection
 * closes, and the MRs, in an unknown state, are the connection's: none is
 * left lent, and every one is freed with the connection.
 */
static void chunked_call_whose_send_fails_leaves_its_mrs_to_the_connection(struct kunit *test)
{
	const u32 len = 8192;
	struct page **res = rt_pages(test, len / PAGE_SIZE);
	struct cmkit_rpcrdma_proc p = {
		.proc = CMKIT_RPC_TESTPROG_FILL, .fill_len = len, .fill_seed = 3,
		.res = res, .res_max = len,
	};
	struct rt_counts now;
	struct rt_ctx c;
	int fired;

	rt_setup(test, &c, true);
	cmkit_test_require_fault_injection(test);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_connect(c.xprt), 0);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), 0);
	fired = atomic_read(&cmkit_rpcrdma_fault_points.fired);
	cmkit_fault_arm(&cmkit_rpcrdma_fault_points, BIT(RPCRDMA_FAULT_POST_SEND), 1);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_xprt_proc(c.xprt, &p), -ENOTCONN);
	cmkit_fault_arm(&cmkit_rpcrdma_fault_points, 0, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_rpcrdma_fault_points.fired) - fired, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(c.xprt->rx_buf.rb_mrs_lent), 0U);
	now = rt_counts_now();
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_got), 2);
	KUNIT_EXPECT_EQ(test, RT_DELTA(now, &c, mrs_put), 2);
	cmkit_rpcrdma_xprt_disconnect(c.xprt);
	rt_expect_all_released(&c);
}

/*
 * The control plane's proc command: its syntax and errnos, and what xprts
 * shows once it ran: the calls whose data came back right, the bytes in
 * read and write chunks.  A server that lies about its write chunk makes
 * the command fail (-EPROTO), counted as a proc error.
 */
static void ctl_proc_checks_the_data_and_counts_the_chunks(struct kunit *test)
{
	static const char * const bad[] = {
		"", "%u", "%u echo", "%u echo x", "%u echo 6", "%u echo 1048580",
		"%u copy 4", "%u echo 4 4",
	};
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char fmt[40], want[96];
	struct rt_ctx c;
	u32 nr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rt_setup(test, &c, true);
	nr = rt_ctl_connect(&c, buf, PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(fmt, sizeof(fmt), "proc %s", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, rt_ctl(fmt, nr), -EINVAL, "'%s'", fmt);
	}
	KUNIT_EXPECT_EQ(test, rt_ctl("proc 4000000000 echo 4"), -ENOENT);
	KUNIT_EXPECT_NULL_MSG(test, strstr(buf, "procs="), "xprts: '%s'", buf);

	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u echo 65536", nr), 0);
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u fill 4096", nr), 0);
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u sink 1048576", nr), 0);
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u echo 512", nr), 0);
	/* Whole in chunks: the RPC call (header and all) and the RPC reply. */
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u mirror 65536", nr), 0);
	rt_xprts(buf, PAGE_SIZE);
	snprintf(want, sizeof(want),
		 " procs=5 proc_errors=0 read_chunk=%u write_chunk=%u reply_chunk=%u calls=",
		 65536 + 1048576 + CMKIT_RPCRDMA_RPC_CALL_LEN + 4 + 65536, 65536 + 4096,
		 CMKIT_RPCRDMA_RPC_REPLY_LEN + 4 + 65536);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, want), "xprts: '%s'", buf);

	cmkit_rpc_srv_set(c.rpc, CMKIT_RPC_SRV_WRITE_LONGER, 6, 1);
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u fill 8192", nr), -EPROTO);
	rt_xprts(buf, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, " procs=5 proc_errors=1 "), "xprts: '%s'",
				  buf);
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u fill 8192", nr), 0);

	KUNIT_EXPECT_EQ(test, rt_ctl("disconnect %u", nr), 0);
	KUNIT_EXPECT_EQ(test, rt_ctl("proc %u echo 4", nr), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);
	c.xprt = NULL;
	rt_expect_all_released(&c);
}

/*
 * The control plane's call command: its syntax, its errnos, and what xprts
 * and calls then show.
 */
static void ctl_call_counts_calls_and_shows_round_trips(struct kunit *test)
{
	static const char * const bad[] = {
		"", "%u", "%u 0", "%u 100001", "%u x", "%u 1 100003", "%u 1 100003 3 x",
		"%u 1x", "%u 1 x 3",
	};
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char fmt[32], want[96];
	struct rt_ctx c;
	u32 nr;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rt_setup(test, &c, true);
	nr = rt_ctl_connect(&c, buf, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, " calls=0 replies=0 errors=0 credits=1\n"),
				  "xprts: '%s'", buf);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(fmt, sizeof(fmt), "call %s", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, rt_ctl(fmt, nr), -EINVAL, "'%s'", fmt);
	}
	KUNIT_EXPECT_EQ(test, rt_ctl("call 4000000000 1"), -ENOENT);

	KUNIT_EXPECT_EQ(test, rt_ctl("call %u 5", nr), 0);
	rt_xprts(buf, PAGE_SIZE);
	/* The issue's syntax, last on the line: the round trips are in calls. */
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, " calls=5 replies=5 errors=0 credits=32\n"),
				  "xprts: '%s'", buf);
	rt_calls(test, buf, PAGE_SIZE);
	snprintf(want, sizeof(want),
		 "{\"xprt\":%u,\"rpc\":\"summary\",\"status\":\"ok\",\"errno\":0,", nr);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, want), "calls: '%s'", buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\"prog\":100003,\"vers\":3,"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\"calls\":5,\"sent\":5,\"replies\":5,"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\"results\":{\"OK\":5}"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\"rtt_us\":{\"count\":5,"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\"latencies_us\":["));

	/* A refusal: -EPROTO, counted as an error; program and version as given. */
	cmkit_rpc_srv_set(c.rpc, CMKIT_RPC_SRV_PROG_MISMATCH, 6, 1);
	KUNIT_EXPECT_EQ(test, rt_ctl("call %u 1 100003 4", nr), -EPROTO);
	KUNIT_EXPECT_EQ(test, cmkit_rpc_srv_counts(c.rpc).last_vers, 4U);
	rt_xprts(buf, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, " calls=6 replies=5 errors=1 credits=32"),
				  "xprts: '%s'", buf);
	rt_calls(test, buf, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "\"status\":\"rejected\",\"errno\":-71,"),
				  "calls: '%s'", buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\"results\":{\"E_PROG_MISMATCH\":1}"));

	/* Not connected. */
	KUNIT_EXPECT_EQ(test, rt_ctl("disconnect %u", nr), 0);
	KUNIT_EXPECT_EQ(test, rt_ctl("call %u 1", nr), -ENOTCONN);
	rt_xprts(buf, PAGE_SIZE);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, " disconnected calls=6 replies=5 errors=1"),
				  "xprts: '%s'", buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " errors=1 credits=0\n"));
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);
	c.xprt = NULL;
	rt_expect_all_released(&c);
}

#define RT_BIG_CALLS	3000
/* The longest a round trip prints: "4294967.2," (U32_MAX ns). */
#define RT_RTT_MAX_LEN	10

/* How many times @c occurs in @s before @end. */
static unsigned int rt_count_chars(const char *s, const char *end, char c)
{
	unsigned int n = 0;

	for (; s < end; s++)
		n += *s == c;
	return n;
}

/* @buf holds exactly one calls line, of transport @nr, with @calls round trips. */
static void rt_expect_calls_line(struct kunit *test, const char *buf, u32 nr, u32 calls)
{
	const char *end = buf + strlen(buf), *rtts, *close;
	char want[64];

	snprintf(want, sizeof(want), "{\"xprt\":%u,\"rpc\":\"summary\",", nr);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(buf, want), "calls: '%.200s'", buf);
	KUNIT_EXPECT_EQ_MSG(test, rt_count_chars(buf, end, '\n'), 1U, "calls: not one line");
	KUNIT_EXPECT_TRUE(test, end > buf && end[-1] == '\n');
	snprintf(want, sizeof(want), "\"calls\":%u,\"sent\":%u,", calls, calls);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, want), "calls: '%.400s'", buf);
	rtts = strstr(buf, "\"latencies_us\":[");
	close = rtts ? strstr(rtts, "]}\n") : NULL;
	KUNIT_EXPECT_NOT_NULL_MSG(test, close, "calls: no latencies_us array");
	if (!close)
		return;
	rtts += strlen("\"latencies_us\":[");
	KUNIT_EXPECT_PTR_EQ(test, close + 3, end);
	KUNIT_EXPECT_EQ_MSG(test, rt_count_chars(rtts, close, ',') + 1, calls,
			    "latencies_us has another count");
}

/*
 * The calls file holds a 3000-call batch's line in small records: read
 * 4 KiB at a time, its seq_file buffer stays within two pages (one record
 * of everything grew it to the whole line).  Between reads nothing holds
 * the control plane's lock; a call command that replaces the batch, and a
 * destroy of the transport, while the file is open change what the next
 * open shows, not the rest of this read, which still ends the old line.
 */
static void calls_file_prints_a_large_batch_in_page_sized_records(struct kunit *test)
{
	size_t cap = RT_BIG_CALLS * RT_RTT_MAX_LEN + 2 * PAGE_SIZE, len = 0, first, most;
	char *buf = kunit_kzalloc(test, cap + 1, GFP_KERNEL);
	char *small = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	bool unlocked;
	struct rt_ctx c;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, small);
	rt_setup(test, &c, true);
	nr = rt_ctl_connect(&c, small, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, rt_ctl("call %u %u", nr, RT_BIG_CALLS), 0);

	f = rt_calls_open();
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open calls: %ld", PTR_ERR(f));
	/* No ASSERT until the close: the open file pins cmkit. */
	/* A seq_file read ends short where the next record would not fit. */
	n = rt_calls_read(f, buf, SZ_4K, &pos);
	KUNIT_EXPECT_GT(test, n, 0);
	len = max_t(ssize_t, n, 0);
	KUNIT_EXPECT_NULL_MSG(test, memchr(buf, '\n', len), "the first read ended the line");
	first = rt_calls_buffer(f);
	most = first;

	unlocked = mutex_trylock(&cmkit_rpcrdma_control.lock);
	if (unlocked)
		mutex_unlock(&cmkit_rpcrdma_control.lock);
	KUNIT_EXPECT_TRUE_MSG(test, unlocked, "an open calls file holds the control lock");
	KUNIT_EXPECT_EQ(test, rt_ctl("call %u 1", nr), 0);
	rt_calls(test, small, PAGE_SIZE);
	rt_expect_calls_line(test, small, nr, 1);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);

	while (len < cap) {
		n = rt_calls_read(f, buf + len, min_t(size_t, SZ_4K, cap - len), &pos);
		if (n <= 0)
			break;
		len += n;
		most = max(most, rt_calls_buffer(f));
	}
	rt_calls_close(f);
	KUNIT_EXPECT_EQ_MSG(test, n, 0, "the read did not end (%zu bytes)", len);

	KUNIT_EXPECT_LE_MSG(test, first, 2 * PAGE_SIZE,
			    "the first 4 KiB grew the seq_file buffer to %zu bytes", first);
	KUNIT_EXPECT_LE_MSG(test, most, 2 * PAGE_SIZE,
			    "the read grew the seq_file buffer to %zu bytes", most);
	rt_expect_calls_line(test, buf, nr, RT_BIG_CALLS);
	/* Nothing is listed now: the next open shows nothing. */
	rt_calls(test, small, PAGE_SIZE);
	KUNIT_EXPECT_STREQ(test, small, "");
	c.xprt = NULL;
	rt_expect_all_released(&c);
}

/*
 * A call command waits for its replies without the control plane's lock:
 * with the server holding the reply, another command and `cat xprts` go
 * on; the call ends only when the case releases the reply, after them.
 */
static void ctl_call_waiting_for_a_reply_blocks_no_other_command(struct kunit *test)
{
	char *xprts = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct rt_cmd *call, *other;
	bool other_done, call_pending;
	char line[32];
	struct rt_ctx c;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, xprts);
	rt_setup(test, &c, true);
	nr = rt_ctl_connect(&c, xprts, PAGE_SIZE);
	cmkit_rpc_srv_hold(c.rpc);
	snprintf(line, sizeof(line), "call %u 1", nr);
	call = rt_cmd_start(test, line, false);
	KUNIT_ASSERT_EQ(test, cmkit_rpc_srv_wait_held(c.rpc, 1), 0);

	other = rt_cmd_start(test, "disconnect 4000000000", true);
	other_done = wait_for_completion_timeout(&other->done, cmkit_test_timeout());
	call_pending = !completion_done(&call->done);
	cmkit_rpc_srv_release(c.rpc);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&call->done, cmkit_test_timeout()));
	if (!other_done)
		wait_for_completion(&other->done);

	KUNIT_EXPECT_TRUE_MSG(test, other_done && call_pending,
			      "a command waited for a call's reply");
	KUNIT_EXPECT_EQ(test, other->rc, -ENOENT);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(other->xprts, " calls=1 replies=0 errors=0"),
				  "xprts: '%s'", other->xprts);
	KUNIT_EXPECT_EQ(test, call->rc, 0);
	KUNIT_EXPECT_EQ(test, rt_ctl("destroy all"), 0);
	c.xprt = NULL;
	rt_expect_all_released(&c);
}

/* ---- suite ----------------------------------------------------------------- */

static int rt_init(struct kunit *test)
{
	unsigned long flags;

	spin_lock_irqsave(&rt_log.lock, flags);
	rt_log.nr = 0;
	spin_unlock_irqrestore(&rt_log.lock, flags);
	WRITE_ONCE(rt_reply_hold.armed, false);
	WRITE_ONCE(rt_send_hold.armed, false);
	return 0;
}

/*
 * No fault a case armed outlives it, whether or not it fired, and no
 * transport a failed control-plane case left behind pins the module.
 */
static void rt_exit(struct kunit *test)
{
	cmkit_fault_disarm(&cmkit_rpcrdma_fault_points);
	cmkit_rpcrdma_ctl_exec("destroy all");
}

static void rt_unregister_probes(void)
{
	unregister_trace_cmkit_rpcrdma_cm_event(rt_probe, NULL);
	unregister_trace_cmkit_rpcrdma_flush_disconnect(rt_flush_probe, NULL);
	unregister_trace_cmkit_rpcrdma_credit_wait(rt_credit_wait_probe, NULL);
	unregister_trace_cmkit_rpcrdma_req_wait(rt_req_wait_probe, NULL);
	unregister_trace_cmkit_rpcrdma_drain(rt_drain_probe, NULL);
	tracepoint_synchronize_unregister();
}

/*
 * The module reconnects by default (the shell suites test that); here each
 * case says whether its transport does (rt_reconnect()), so the suite's
 * transports start with it off.
 */
static bool rt_reconnect_was;

static int rt_suite_init(struct kunit_suite *suite)
{
	int rc;

	rt_reconnect_was = cmkit_rpcrdma_reconnect_default(false);
	spin_lock_init(&rt_log.lock);
	init_waitqueue_head(&rt_log.wait);
	init_waitqueue_head(&rt_xp.wait);
	rt_fault_params_init();
	rc = register_trace_cmkit_rpcrdma_cm_event(rt_probe, NULL);
	rc = rc ?: register_trace_cmkit_rpcrdma_flush_disconnect(rt_flush_probe, NULL);
	rc = rc ?: register_trace_cmkit_rpcrdma_credit_wait(rt_credit_wait_probe, NULL);
	rc = rc ?: register_trace_cmkit_rpcrdma_req_wait(rt_req_wait_probe, NULL);
	rc = rc ?: register_trace_cmkit_rpcrdma_drain(rt_drain_probe, NULL);
	if (rc) {
		rt_unregister_probes();
		cmkit_rpcrdma_reconnect_default(rt_reconnect_was);
	}
	return rc;
}

static void rt_suite_exit(struct kunit_suite *suite)
{
	rt_unregister_probes();
	cmkit_rpcrdma_reconnect_default(rt_reconnect_was);
}

KUNIT_ARRAY_PARAM(rt_dev, cmkit_dev_params, cmkit_dev_param_desc);

#define RT_CASE(fn) KUNIT_CASE_PARAM(fn, rt_dev_gen_params)

static struct kunit_case rt_cases[] = {
	RT_CASE(connect_with_rfc8797_data_lowers_sizes_then_remote_disconnect),
	RT_CASE(connect_without_private_data_keeps_defaults_then_remote_disconnect),
	RT_CASE(established_publishes_connected_only_after_negotiating),
	RT_CASE(local_disconnect_while_connected_releases_once),
	RT_CASE(disconnect_race_remote_handled_then_local_frees),
	KUNIT_CASE(disconnect_race_local_first_then_remote_dreq_frees_in_handler),
	RT_CASE(completion_error_forces_one_disconnect),
	RT_CASE(force_work_before_reconnect_closes_the_old_ep),
	RT_CASE(force_work_after_reconnect_leaves_the_new_ep),
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
	RT_CASE(live_endpoints_pin_the_module),
	RT_CASE(ctl_refuses_bad_inline_sizes_and_trailing_junk),
	KUNIT_CASE(ctl_refuses_the_65th_endpoint),
	KUNIT_CASE(ctl_connect_to_a_server_holding_the_request_blocks_no_other_command),
	KUNIT_CASE(connect_to_a_server_holding_the_request_times_out),
	KUNIT_CASE(connect_to_a_server_holding_the_request_is_interruptible),
	KUNIT_CASE_PARAM(failure_injected_at_each_connect_step, rt_fault_gen_params),
	RT_CASE(fail_nth_sweep_over_connect_and_disconnect),
	RT_CASE(device_removal_started_while_resolving_releases_the_id),
	RT_CASE(device_removal_while_connecting_wakes_the_connect),
	RT_CASE(device_removal_while_connected_releases_the_id),
	RT_CASE(constructed_addr_change_when_connected_then_device_removal),
	RT_CASE(constructed_unreachable_when_connected_then_device_removal),
	RT_CASE(constructed_rejected_when_connected_then_device_removal),
	RT_CASE(null_calls_accepted_under_the_servers_grant),
	RT_CASE(grant_of_one_keeps_one_call_outstanding),
	RT_CASE(grant_of_zero_counts_as_one),
	RT_CASE(grant_above_the_ring_is_clamped_to_it),
	RT_CASE(post_recvs_posts_what_it_could_allocate),
	RT_CASE(reply_to_an_unknown_xid_is_counted_and_dropped),
	RT_CASE(reply_shorter_than_a_header_is_dropped_and_the_call_times_out),
	RT_CASE(reply_of_another_version_is_dropped_and_the_call_times_out),
	RT_CASE(truncated_reply_is_malformed_never_read_past_its_length),
	RT_CASE(refused_and_malformed_replies_fail_the_call_with_eproto),
	RT_CASE(dropped_call_times_out_and_closes_the_connection),
	RT_CASE(reconnect_with_larger_inline_sizes_reallocates_the_regbufs),
	RT_CASE(call_set_up_before_a_reconnect_is_not_sent_on_the_new_one),
	RT_CASE(call_deadline_starts_when_the_call_is_sent),
	RT_CASE(two_batches_holding_every_req_reap_their_own_ended_calls),
	RT_CASE(mrs_made_with_the_connection_grow_to_their_bound_and_are_freed),
	RT_CASE(registered_mr_takes_the_peers_write_and_local_inv_fences_it),
	RT_CASE(mr_failure_at_each_step_leaves_nothing),
	RT_CASE(test_program_calls_move_their_data_inline_and_in_chunks),
	RT_CASE(chunk_lengths_that_break_the_offer_are_refused),
	RT_CASE(large_calls_travel_whole_in_position_zero_and_reply_chunks),
	RT_CASE(call_chunks_moves_a_read_chunk_at_its_position_and_a_write_chunk),
	RT_CASE(chunked_call_whose_send_fails_leaves_its_mrs_to_the_connection),
	RT_CASE(remote_disconnect_with_calls_in_flight_aborts_each_call),
	RT_CASE(calls_in_flight_outlive_a_handled_signal),
	RT_CASE(late_replies_to_abandoned_calls_find_receives_beyond_the_grant),
	RT_CASE(completion_error_with_calls_in_flight_closes_once),
	RT_CASE(local_disconnect_while_a_reply_is_handled_completes_it),
	RT_CASE(local_disconnect_before_the_replies_aborts_every_call),
	RT_CASE(constructed_addr_change_with_calls_in_flight_aborts_them),
	RT_CASE(destroy_all_with_calls_in_flight_aborts_them_and_unpins_the_module),
	RT_CASE(ctl_call_counts_calls_and_shows_round_trips),
	RT_CASE(ctl_proc_checks_the_data_and_counts_the_chunks),
	RT_CASE(calls_file_prints_a_large_batch_in_page_sized_records),
	RT_CASE(ctl_call_waiting_for_a_reply_blocks_no_other_command),
	RT_CASE(device_removal_with_calls_in_flight_aborts_them),
	RT_CASE(connection_lost_with_calls_pending_reconnects_and_they_complete),
	RT_CASE(connection_lost_with_chunked_calls_registers_their_chunks_again),
	RT_CASE(connection_lost_with_a_batch_half_sent_sends_the_rest_on_the_next),
	RT_CASE(server_gone_ends_each_call_after_its_timeout_and_backs_off),
	RT_CASE(disconnect_during_backoff_stops_the_reconnects),
	RT_CASE(ctl_xprts_counts_reconnects),
	{}
};

struct kunit_suite cmkit_rpcrdma_suite = {
	.name = "cmkit_rpcrdma",
	.init = rt_init,
	.exit = rt_exit,
	.suite_init = rt_suite_init,
	.suite_exit = rt_suite_exit,
	.test_cases = rt_cases,
};
