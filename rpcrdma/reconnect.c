// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: re-establishing a lost connection, after xprtrdma's
 * transport.c (xprt_rdma_connect(), its connect worker and reconnect
 * delay) and sunrpc's xprt.c (a request sent again after a reconnect keeps
 * its xid).
 *
 * When a connection ends under calls waiting for their replies (a flush,
 * a DISCONNECTED, a call's timeout: the force-disconnect work), the
 * disconnect does not end those calls: cmkit_rpcrdma_reqs_abort() marks
 * them to be sent again (rl_status -EAGAIN, counted in rb_resend), sets
 * rb_reconnecting, and the reconnect work is queued:
 *
 *  - the first attempt at once (delay 0), each failed one followed by the
 *    next after rx_reest_to, which doubles from rx_reest_init up to
 *    rx_reest_max (xprt_reconnect_backoff()); the first reply on a new
 *    connection sets it back to 0, as rpcrdma_reply_handler() does;
 *  - an attempt is a whole connect (__cmkit_rpcrdma_xprt_connect()): a new
 *    ep with its own id, PD, CQ and QP, and a new MR pool; the old
 *    connection's MRs were destroyed by its disconnect;
 *  - each marked call, in its caller's thread (rpcrdma_call_wait()), waits
 *    for the new connection, takes a credit on it and is marshalled and
 *    posted again with its xid, and waits for its reply there; all of it
 *    until its own deadline, which started when it was first sent;
 *  - a call that offered chunks first lets go of its MRs of the lost
 *    connection (registered on its PD, never invalidated: they are
 *    deregistered with that connection, whose teardown waits for them),
 *    then, on the new connection, has its chunks mapped into MRs of the
 *    new pool (cmkit_rpcrdma_msg_map(), from what the call kept of each
 *    segment: its pages, length and direction) before it is marshalled
 *    again with their handles, as xprtrdma's rpcrdma_marshal_req() runs
 *    frwr_map() for every transmission; the server reads and writes the
 *    chunks again;
 *  - the transport keeps trying, with the capped delay, until an attempt
 *    connects or its owner disconnects or destroys it
 *    (cmkit_rpcrdma_reconnect_stop()): the work is cancelled and waited
 *    for, and the calls still waiting end with -ECONNABORTED.
 *
 * A call whose MRs cannot be mapped again (one that offered MRs without
 * saying what they map, rpcrdma_msg.nr_segs 0) is not sent again: it ends
 * with -ECONNABORTED.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/module.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

/*
 * On by default, as an RPC transport always is: a lost connection with
 * calls waiting is made again.  Off, the calls end with their connection
 * (-ECONNABORTED), what a test of a server's disconnect may want.
 */
static bool rpcrdma_reconnect = true;
module_param(rpcrdma_reconnect, bool, 0644);
MODULE_PARM_DESC(rpcrdma_reconnect,
		 "rpcrdma: re-establish a connection lost with calls waiting (new transports; default on)");

/**
 * cmkit_rpcrdma_reconnect_default - set whether new transports reconnect
 * @on: the new default
 *
 * What the rpcrdma_reconnect module parameter sets, for the KUnit suite
 * (its transports start with it off) and its cases that create their
 * transport through the control plane.
 *
 * Return: the previous default.
 */
bool cmkit_rpcrdma_reconnect_default(bool on)
{
	return xchg(&rpcrdma_reconnect, on);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_reconnect_default);

static unsigned int rpcrdma_reest_init_ms = RPCRDMA_INIT_REEST_TO / HZ * MSEC_PER_SEC;
module_param(rpcrdma_reest_init_ms, uint, 0644);
MODULE_PARM_DESC(rpcrdma_reest_init_ms,
		 "rpcrdma: first delay between reconnect attempts, ms (new transports)");

static unsigned int rpcrdma_reest_max_ms = RPCRDMA_MAX_REEST_TO / HZ * MSEC_PER_SEC;
module_param(rpcrdma_reest_max_ms, uint, 0644);
MODULE_PARM_DESC(rpcrdma_reest_max_ms,
		 "rpcrdma: longest delay between reconnect attempts, ms (new transports)");

static bool rpcrdma_reconnecting(struct rpcrdma_buffer *buf)
{
	bool reconnecting;

	spin_lock(&buf->rb_lock);
	reconnecting = buf->rb_reconnecting;
	spin_unlock(&buf->rb_lock);
	return reconnecting;
}

static void rpcrdma_reconnect_worker(struct work_struct *work)
{
	struct rpcrdma_xprt *r_xprt = container_of(to_delayed_work(work), struct rpcrdma_xprt,
						   rx_reconnect_work);
	u32 try;
	int rc;

	if (r_xprt->rx_ops && r_xprt->rx_ops->reconnect_work)
		r_xprt->rx_ops->reconnect_work(r_xprt);
	mutex_lock(&r_xprt->rx_lock);
	/* Closed, or its owner connected it meanwhile (which ended the reconnect). */
	if (r_xprt->rx_closed || r_xprt->rx_ep || !rpcrdma_reconnecting(&r_xprt->rx_buf)) {
		trace_cmkit_rpcrdma_reconnect_done(r_xprt->rx_xid, 1);
		mutex_unlock(&r_xprt->rx_lock);
		return;
	}
	try = ++r_xprt->rx_reconnect_tries;
	atomic_inc(&cmkit_rpcrdma_stats.reconnect_tries);
	rc = __cmkit_rpcrdma_xprt_connect(r_xprt);
	trace_cmkit_rpcrdma_reconnect(r_xprt->rx_xid, try, rc);
	if (!rc) {
		r_xprt->rx_reconnects++;
		atomic_inc(&cmkit_rpcrdma_stats.reconnects);
		trace_cmkit_rpcrdma_reconnect_done(r_xprt->rx_xid, 0);
	} else {
		/* The failed attempt left nothing behind: try again later. */
		cmkit_rpcrdma_reconnect_schedule(r_xprt);
	}
	mutex_unlock(&r_xprt->rx_lock);
}

/**
 * cmkit_rpcrdma_reconnect_init - a new transport's reconnect state
 * @r_xprt: the transport, being created
 *
 * Reconnecting and its delays come from the module parameters
 * rpcrdma_reconnect, rpcrdma_reest_init_ms and rpcrdma_reest_max_ms
 * (xprtrdma's RPCRDMA_INIT_REEST_TO and RPCRDMA_MAX_REEST_TO by default);
 * the first attempt after a loss is immediate.
 */
void cmkit_rpcrdma_reconnect_init(struct rpcrdma_xprt *r_xprt)
{
	INIT_DELAYED_WORK(&r_xprt->rx_reconnect_work, rpcrdma_reconnect_worker);
	r_xprt->rx_reconnect = READ_ONCE(rpcrdma_reconnect);
	r_xprt->rx_reest_init = msecs_to_jiffies(READ_ONCE(rpcrdma_reest_init_ms));
	r_xprt->rx_reest_max = max(msecs_to_jiffies(READ_ONCE(rpcrdma_reest_max_ms)),
				   r_xprt->rx_reest_init);
	r_xprt->rx_reest_to = 0;
}

/**
 * cmkit_rpcrdma_reconnect_wanted - should a lost connection's calls wait for another?
 * @r_xprt: the transport, under its rx_lock
 *
 * Return: true unless reconnecting is off for the transport or its owner
 * disconnected it.
 */
bool cmkit_rpcrdma_reconnect_wanted(struct rpcrdma_xprt *r_xprt)
{
	lockdep_assert_held(&r_xprt->rx_lock);
	return r_xprt->rx_reconnect && !r_xprt->rx_closed;
}

/**
 * cmkit_rpcrdma_reconnect_schedule - queue the next reconnect attempt
 * @r_xprt: the transport, reconnecting, under its rx_lock
 *
 * The attempt runs after the current delay (0 after a reply on the last
 * connection), and the delay after it doubles, from rx_reest_init up to
 * rx_reest_max, as xprt_reconnect_backoff().
 */
void cmkit_rpcrdma_reconnect_schedule(struct rpcrdma_xprt *r_xprt)
{
	unsigned long delay = READ_ONCE(r_xprt->rx_reest_to);

	lockdep_assert_held(&r_xprt->rx_lock);
	WRITE_ONCE(r_xprt->rx_reest_to,
		   min(max(delay << 1, r_xprt->rx_reest_init), r_xprt->rx_reest_max));
	trace_cmkit_rpcrdma_reconnect_schedule(r_xprt->rx_xid, delay, r_xprt->rx_reconnect_tries,
					       READ_ONCE(r_xprt->rx_buf.rb_resend));
	if (r_xprt->rx_ops && r_xprt->rx_ops->reconnect)
		r_xprt->rx_ops->reconnect(r_xprt, delay);
	mod_delayed_work(system_long_wq, &r_xprt->rx_reconnect_work, delay);
}

/**
 * cmkit_rpcrdma_reconnect_stop - the owner closes the transport: no more reconnects
 * @r_xprt: the transport; the caller does not hold its rx_lock
 *
 * Calls waiting for a new connection end with -ECONNABORTED; the reconnect
 * work is cancelled, and waited for if it is running (an attempt is
 * bounded by the connect timeout).  Reconnects are allowed again by the
 * owner's next cmkit_rpcrdma_xprt_connect().
 */
void cmkit_rpcrdma_reconnect_stop(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	bool was;
	u32 resend;

	mutex_lock(&r_xprt->rx_lock);
	r_xprt->rx_closed = true;
	spin_lock(&buf->rb_lock);
	was = buf->rb_reconnecting;
	buf->rb_reconnecting = false;
	resend = buf->rb_resend;
	spin_unlock(&buf->rb_lock);
	mutex_unlock(&r_xprt->rx_lock);
	wake_up_all(&buf->rb_wait);
	cancel_delayed_work_sync(&r_xprt->rx_reconnect_work);
	if (was)
		trace_cmkit_rpcrdma_reconnect_stop(r_xprt->rx_xid, resend);
}
