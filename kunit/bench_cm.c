// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_bench: rdma_cm connection churn, in the kernel, shaped as rdma-core's
 * cmtime so that the two can be compared step by step.
 *
 * cmtime's client takes every connection through one step before the next:
 * create the ids; resolve every address, then wait for all; the same for
 * the routes; create every QP; connect all, then wait until all are
 * established; disconnect all (rdma_disconnect, then destroy the QP), then
 * wait for every DISCONNECTED; destroy the ids.  Its server accepts each
 * request with a QP and, on DISCONNECTED, disconnects and destroys.  This
 * file does the same with kernel consumers of rdma_cm on both sides, and
 * the same resources: one PD per side, and per QP a send and a receive CQ
 * of its own (librdmacm's rdma_create_qp() makes both when given none),
 * one work request and one SGE each way.  Where user space needs a thread
 * to take events off its channel, the kernel's handlers act in the event
 * itself: that difference is what the benchmark measures.
 *
 * Each step has a wall time (from the first call to the last completion,
 * cmtime's "total ms") and per-connection times.  cmtime's "connect" is
 * this file's connect (the rdma_connect() calls) plus establish (until
 * every ESTABLISHED).
 */
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "bench.h"

#define BENCH_CM_MAX_CONNS	10000
#define BENCH_RESOLVE_MS	2000	/* cmtime's default */
#define BENCH_RETRIES		2	/* likewise */

enum bench_step {
	BENCH_CREATE_ID,
	BENCH_RESOLVE_ADDR,
	BENCH_RESOLVE_ROUTE,
	BENCH_CREATE_QP,
	BENCH_CONNECT,
	BENCH_ESTABLISH,
	BENCH_DISCONNECT,
	BENCH_DESTROY,
	BENCH_NR_STEPS,
};

static const char * const bench_step_names[BENCH_NR_STEPS] = {
	[BENCH_CREATE_ID] = "create_id",
	[BENCH_RESOLVE_ADDR] = "resolve_addr",
	[BENCH_RESOLVE_ROUTE] = "resolve_route",
	[BENCH_CREATE_QP] = "create_qp",
	[BENCH_CONNECT] = "connect",
	[BENCH_ESTABLISH] = "establish",
	[BENCH_DISCONNECT] = "disconnect",
	[BENCH_DESTROY] = "destroy",
};

struct bench_cm;

/* One connection's resources, either side. */
struct bench_conn {
	struct bench_cm *run;
	struct rdma_cm_id *id;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	ktime_t start[BENCH_NR_STEPS];
	ktime_t end[BENCH_NR_STEPS];
};

/**
 * struct bench_cm - one churn run
 * @n: connections
 * @conns: the client's connections
 * @pd: the client's PD
 * @listener: the server's listening id (its context)
 * @srv_pd: the server's PD
 * @srv_alive: accepted server connections not yet torn down
 * @done: per step, connections whose asynchronous step completed (or failed)
 * @want: per step, the completions the client waits for (woken at the last)
 * @status: the first failure, or 0
 * @wait: woken on a step's last completion and the last server teardown
 * @wall: per step, first call to last completion
 */
struct bench_cm {
	u32 n;
	struct bench_conn *conns;
	struct ib_pd *pd;
	struct bench_conn listener;
	struct ib_pd *srv_pd;
	atomic_t srv_alive;
	atomic_t done[BENCH_NR_STEPS];
	u32 want[BENCH_NR_STEPS];
	int status;
	wait_queue_head_t wait;
	s64 wall[BENCH_NR_STEPS];
};

static void bench_cm_fail(struct bench_cm *run, int rc)
{
	cmpxchg(&run->status, 0, rc ?: -EIO);
}

/*
 * Only the step's last completion wakes the client: it has nothing to do
 * before, and a wake-up per completion costs the CPU the producers run on.
 */
static void bench_cm_complete(struct bench_conn *c, enum bench_step step)
{
	struct bench_cm *run = c->run;

	c->end[step] = ktime_get();
	if (atomic_inc_return(&run->done[step]) >= READ_ONCE(run->want[step]))
		wake_up_all(&run->wait);
}

/* librdmacm's rdma_create_qp() without CQs: a send and a receive CQ of its own. */
static int bench_create_qp(struct bench_conn *c, struct ib_pd *pd)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int rc;

	c->send_cq = ib_alloc_cq(c->id->device, c, 1, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->send_cq)) {
		rc = PTR_ERR(c->send_cq);
		goto out;
	}
	c->recv_cq = ib_alloc_cq(c->id->device, c, 1, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->recv_cq)) {
		rc = PTR_ERR(c->recv_cq);
		goto out;
	}
	attr.send_cq = c->send_cq;
	attr.recv_cq = c->recv_cq;
	rc = rdma_create_qp(c->id, pd, &attr);
out:
	if (rc) {
		if (!IS_ERR_OR_NULL(c->recv_cq))
			ib_free_cq(c->recv_cq);
		if (!IS_ERR_OR_NULL(c->send_cq))
			ib_free_cq(c->send_cq);
		c->send_cq = NULL;
		c->recv_cq = NULL;
	}
	return rc;
}

static void bench_destroy_qp(struct bench_conn *c)
{
	if (c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->recv_cq)
		ib_free_cq(c->recv_cq);
	if (c->send_cq)
		ib_free_cq(c->send_cq);
	c->send_cq = NULL;
	c->recv_cq = NULL;
}

static void bench_conn_param(struct rdma_conn_param *param)
{
	*param = (struct rdma_conn_param){
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = BENCH_RETRIES,
	};
}

/* ---- the server -------------------------------------------------------- */

static int bench_srv_request(struct bench_cm *run, struct rdma_cm_id *child)
{
	struct rdma_conn_param param;
	struct bench_conn *c;
	int rc;

	c = kzalloc_obj(*c, GFP_KERNEL);
	if (!c) {
		bench_cm_fail(run, -ENOMEM);
		return 1;	/* rdma_cm destroys the child */
	}
	c->run = run;
	c->id = child;
	rc = bench_create_qp(c, run->srv_pd);
	if (rc)
		goto fail;
	/* No other event of the child comes before this handler returns. */
	child->context = c;
	bench_conn_param(&param);
	rc = rdma_accept(child, &param);
	if (rc) {
		bench_destroy_qp(c);
		goto fail;
	}
	atomic_inc(&run->srv_alive);
	return 0;
fail:
	kfree(c);
	bench_cm_fail(run, rc);
	return 1;
}

/* The connection is over: answer, release, and have rdma_cm destroy the id. */
static int bench_srv_teardown(struct bench_conn *c, bool answer)
{
	struct bench_cm *run = c->run;

	if (answer)
		rdma_disconnect(c->id);
	bench_destroy_qp(c);
	kfree(c);
	if (atomic_dec_and_test(&run->srv_alive))
		wake_up_all(&run->wait);
	return 1;
}

static int bench_srv_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct bench_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return bench_srv_request(c->run, id);
	if (c == &c->run->listener)
		return 0;	/* the listener: no other event matters here */
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		return bench_srv_teardown(c, true);
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		bench_cm_fail(c->run, ev->status ?: -ECONNABORTED);
		return bench_srv_teardown(c, false);
	default:
		return 0;
	}
}

static int bench_srv_listen(struct bench_cm *run, struct sockaddr_in *sin)
{
	struct rdma_cm_id *id;
	int rc;

	id = rdma_create_id(&init_net, bench_srv_handler, &run->listener, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	run->listener.run = run;
	run->listener.id = id;
	rc = rdma_bind_addr(id, (struct sockaddr *)sin);
	if (!rc && !id->device)
		rc = -ENODEV;	/* the address is on no RDMA device */
	if (!rc) {
		run->srv_pd = ib_alloc_pd(id->device, 0);
		if (IS_ERR(run->srv_pd)) {
			rc = PTR_ERR(run->srv_pd);
			run->srv_pd = NULL;
		}
	}
	if (!rc)
		rc = rdma_listen(id, 1024);
	return rc;
}

/* ---- the client -------------------------------------------------------- */

static int bench_cli_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct bench_conn *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		bench_cm_complete(c, BENCH_RESOLVE_ADDR);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		bench_cm_complete(c, BENCH_RESOLVE_ROUTE);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		bench_cm_complete(c, BENCH_ESTABLISH);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		bench_cm_complete(c, BENCH_DISCONNECT);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		bench_cm_fail(c->run, ev->status);
		bench_cm_complete(c, BENCH_RESOLVE_ADDR);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		bench_cm_fail(c->run, ev->status);
		bench_cm_complete(c, BENCH_RESOLVE_ROUTE);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		bench_cm_fail(c->run, ev->status ?: -ECONNREFUSED);
		bench_cm_complete(c, BENCH_ESTABLISH);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		bench_cm_fail(c->run, -ENODEV);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Wait until @issued connections completed @step.  Until then the step's
 * want is every connection (bench_cm_steps() set it before issuing): a
 * completion that reaches @issued before it is lowered here is seen by the
 * wait's first test of its condition.
 */
static int bench_cm_wait(struct bench_cm *run, enum bench_step step, u32 issued)
{
	WRITE_ONCE(run->want[step], issued);
	if (!wait_event_timeout(run->wait, atomic_read(&run->done[step]) >= issued,
				bench_timeout()))
		bench_cm_fail(run, -ETIMEDOUT);
	return run->status;
}

/* One asynchronous step for every connection: issue all, then wait for all. */
static int bench_cm_async(struct bench_cm *run, enum bench_step step,
			  const struct sockaddr_in *dst)
{
	ktime_t t0 = ktime_get();
	u32 i, issued = 0;
	int rc = 0;

	for (i = 0; i < run->n && !rc; i++) {
		struct bench_conn *c = &run->conns[i];

		c->start[step] = ktime_get();
		if (step == BENCH_RESOLVE_ADDR)
			rc = rdma_resolve_addr(c->id, NULL, (struct sockaddr *)dst,
					       BENCH_RESOLVE_MS);
		else
			rc = rdma_resolve_route(c->id, BENCH_RESOLVE_MS);
		if (!rc)
			issued++;
	}
	if (rc)
		bench_cm_fail(run, rc);
	rc = bench_cm_wait(run, step, issued);
	run->wall[step] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	return rc;
}

static int bench_cm_connect(struct bench_cm *run)
{
	struct rdma_conn_param param;
	ktime_t t0 = ktime_get(), t1;
	u32 i, issued = 0;
	int rc = 0;

	bench_conn_param(&param);
	for (i = 0; i < run->n && !rc; i++) {
		struct bench_conn *c = &run->conns[i];

		c->start[BENCH_CONNECT] = ktime_get();
		rc = rdma_connect(c->id, &param);
		c->end[BENCH_CONNECT] = ktime_get();
		c->start[BENCH_ESTABLISH] = c->end[BENCH_CONNECT];
		if (!rc)
			issued++;
	}
	t1 = ktime_get();
	run->wall[BENCH_CONNECT] = ktime_to_ns(ktime_sub(t1, t0));
	if (rc)
		bench_cm_fail(run, rc);
	rc = bench_cm_wait(run, BENCH_ESTABLISH, issued);
	run->wall[BENCH_ESTABLISH] = ktime_to_ns(ktime_sub(ktime_get(), t1));
	return rc;
}

static int bench_cm_disconnect(struct bench_cm *run)
{
	ktime_t t0 = ktime_get();
	u32 i, issued = 0;

	for (i = 0; i < run->n; i++) {
		struct bench_conn *c = &run->conns[i];

		c->start[BENCH_DISCONNECT] = ktime_get();
		if (!rdma_disconnect(c->id))
			issued++;
		bench_destroy_qp(c);
	}
	bench_cm_wait(run, BENCH_DISCONNECT, issued);
	run->wall[BENCH_DISCONNECT] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	return run->status;
}

/* Synchronous steps: create the ids, create the QPs, destroy the ids. */
static int bench_cm_sync(struct bench_cm *run, enum bench_step step)
{
	ktime_t t0 = ktime_get();
	u32 i;
	int rc = 0;

	for (i = 0; i < run->n && !rc; i++) {
		struct bench_conn *c = &run->conns[i];
		struct rdma_cm_id *id;

		c->start[step] = ktime_get();
		switch (step) {
		case BENCH_CREATE_ID:
			id = rdma_create_id(&init_net, bench_cli_handler, c, RDMA_PS_TCP,
					    IB_QPT_RC);
			if (IS_ERR(id))
				rc = PTR_ERR(id);
			else
				c->id = id;
			break;
		case BENCH_CREATE_QP:
			rc = bench_create_qp(c, run->pd);
			break;
		default:
			rdma_destroy_id(c->id);
			c->id = NULL;
			break;
		}
		c->end[step] = ktime_get();
	}
	run->wall[step] = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (rc)
		bench_cm_fail(run, rc);
	return run->status;
}

static int bench_cm_steps(struct bench_cm *run, const struct sockaddr_in *dst)
{
	int rc, s;

	for (s = 0; s < BENCH_NR_STEPS; s++)
		run->want[s] = run->n;

	rc = bench_cm_sync(run, BENCH_CREATE_ID);
	if (!rc)
		rc = bench_cm_async(run, BENCH_RESOLVE_ADDR, dst);
	if (!rc)
		rc = bench_cm_async(run, BENCH_RESOLVE_ROUTE, dst);
	if (!rc) {
		/* As librdmacm, the PD comes with the device, outside the steps. */
		run->pd = ib_alloc_pd(run->conns[0].id->device, 0);
		if (IS_ERR(run->pd)) {
			rc = PTR_ERR(run->pd);
			run->pd = NULL;
			bench_cm_fail(run, rc);
		}
	}
	if (!rc)
		rc = bench_cm_sync(run, BENCH_CREATE_QP);
	if (!rc)
		rc = bench_cm_connect(run);
	if (!rc)
		rc = bench_cm_disconnect(run);
	return rc;
}

/* Whatever a failed run left: QPs, ids, the server's connections, PDs. */
static void bench_cm_release(struct bench_cm *run)
{
	u32 i;

	for (i = 0; i < run->n; i++) {
		struct bench_conn *c = &run->conns[i];

		if (!c->id)
			continue;
		bench_destroy_qp(c);
		rdma_destroy_id(c->id);
		c->id = NULL;
	}
	/* The client's ids are gone: every server connection ends. */
	if (!wait_event_timeout(run->wait, !atomic_read(&run->srv_alive), bench_timeout()))
		pr_err("cmkit_bench: ERROR: %d server connections still alive\n",
		       atomic_read(&run->srv_alive));
	if (run->listener.id)
		rdma_destroy_id(run->listener.id);
	if (run->srv_pd)
		ib_dealloc_pd(run->srv_pd);
	if (run->pd)
		ib_dealloc_pd(run->pd);
}

static void bench_cm_report(struct bench_cm *run, struct bench_out *out, s64 *tmp)
{
	s64 total = 0;
	int s;
	u32 i;

	bench_printf(out, ",\"steps\":{");
	for (s = 0; s < BENCH_NR_STEPS; s++) {
		for (i = 0; i < run->n; i++)
			tmp[i] = ktime_to_ns(ktime_sub(run->conns[i].end[s],
						       run->conns[i].start[s]));
		bench_printf(out, "%s\"%s\":{", s ? "," : "", bench_step_names[s]);
		bench_us(out, "wall_us", run->wall[s]);
		bench_printf(out, ",");
		bench_samples(out, "conn_us", tmp, run->n);
		bench_printf(out, "}");
		total += run->wall[s];
	}
	bench_printf(out, "},");
	bench_us(out, "total_us", total);
}

/**
 * bench_cm_run - the "cm <ipv4> <port> <n>" command
 * @args: the command's arguments
 * @out: where its JSON line goes
 *
 * Listens on <ipv4>:<port>, takes <n> connections from a client of this
 * module through every step, and reports each step.
 *
 * Return: 0, or the first failure's errno.
 */
int bench_cm_run(char *args, struct bench_out *out)
{
	char *addr = strsep(&args, " "), *port = strsep(&args, " ");
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct bench_cm *run;
	s64 *tmp = NULL;
	u16 p;
	u32 n;
	int rc;

	if (!addr || !port || !args || kstrtou16(port, 10, &p) || !p ||
	    kstrtou32(args, 10, &n) || !n || n > BENCH_CM_MAX_CONNS ||
	    !in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	sin.sin_port = htons(p);
	bench_printf(out, "{\"bench\":\"cm\",\"impl\":\"cmkit\",\"addr\":\"%pI4\",\"n\":%u",
		     &sin.sin_addr, n);

	run = kzalloc_obj(*run, GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	init_waitqueue_head(&run->wait);
	run->n = n;
	run->conns = kvcalloc(n, sizeof(*run->conns), GFP_KERNEL);
	tmp = kvcalloc(n, sizeof(*tmp), GFP_KERNEL);
	if (!run->conns || !tmp) {
		rc = -ENOMEM;
		goto out;
	}
	for (n = 0; n < run->n; n++)
		run->conns[n].run = run;

	rc = bench_srv_listen(run, &sin);
	if (!rc) {
		bench_printf(out, ",\"dev\":\"%s\"", dev_name(&run->listener.id->device->dev));
		rc = bench_cm_steps(run, &sin);
	}
	if (!rc)
		rc = bench_cm_sync(run, BENCH_DESTROY);
	bench_cm_release(run);
	if (!rc)
		bench_cm_report(run, out, tmp);
out:
	if (rc)
		bench_printf(out, ",\"error\":%d", rc);
	bench_printf(out, "}");
	kvfree(tmp);
	kvfree(run->conns);
	kfree(run);
	return rc;
}
