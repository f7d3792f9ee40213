// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: an RPC-over-RDMA client connection endpoint on rdma_cm.
 *
 * One struct rpcrdma_ep per connection attempt, one rdma_cm id per ep, and
 * the ep's reference count decides who destroys the id:
 *
 *   reference                          dropped by
 *   kref_init (the transport's)        the final put in cmkit_rpcrdma_xprt_disconnect()
 *   Receives posted                    the put at the end of the drain
 *   ESTABLISHED                        DISCONNECTED or DEVICE_REMOVAL, whichever
 *                                      comes first (RPCRDMA_EP_ESTABLISHED says
 *                                      the ep still holds it); or the transport's
 *                                      disconnect if its DREQ could not be sent
 *
 * Whoever drops the last reference destroys the id: the CM handler by
 * returning 1 (rdma_cm then destroys it), cmkit_rpcrdma_xprt_disconnect() by
 * calling rdma_destroy_id() itself.  Nothing touches the id afterwards.
 *
 * The transport the ep serves is in rpcrdma_verbs.c (buffers, send
 * contexts, Receives) and rpcrdma_call.c (calls, replies, credits): a
 * connect resets the credits to one and posts the first Receive before
 * rdma_connect(), and once ESTABLISHED sets up the send-context ring and
 * the reqs for the negotiated inline sizes; a disconnect stops Sends,
 * drains the QP, ends every waiting call and undoes every DMA mapping
 * before the transport lets go of the ep.
 *
 * Every live ep pins the module, as upstream's does: rmmod cmkit fails
 * while one lives, and unload only checks that none is left.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"

#define CREATE_TRACE_POINTS
#include "rpcrdma/trace.h"

/* Tests observe the handler's decisions through its tracepoints. */
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_cm_event);
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_inline_thresh);
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_flush_disconnect);
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_credit_wait);
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_req_wait);
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_mrs_refresh);
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_rpcrdma_drain);

static void rpcrdma_count_ep_freed(void)
{
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.eps_freed);
}

static bool rpcrdma_all_released(void)
{
	struct cmkit_rpcrdma_stats *s = &cmkit_rpcrdma_stats;

	return atomic_read(&s->eps_freed) == atomic_read(&s->eps_created) &&
	       atomic_read(&s->ids_destroyed) + atomic_read(&s->ids_returned) ==
	       atomic_read(&s->ids_created) &&
	       atomic_read(&s->reqs_freed) == atomic_read(&s->reqs_created) &&
	       atomic_read(&s->reps_freed) == atomic_read(&s->reps_created) &&
	       atomic_read(&s->mrs_freed) == atomic_read(&s->mrs_created) &&
	       atomic_read(&s->dma_unmaps) == atomic_read(&s->dma_maps);
}

static void rpcrdma_ep_destroy(struct kref *kref)
{
	struct rpcrdma_ep *ep = container_of(kref, struct rpcrdma_ep, re_kref);

	if (ep->re_id->qp)
		rdma_destroy_qp(ep->re_id);
	if (ep->re_cq)
		ib_free_cq(ep->re_cq);
	if (ep->re_pd)
		ib_dealloc_pd(ep->re_pd);
	kfree(ep);
	rpcrdma_count_ep_freed();
	module_put(THIS_MODULE);	/* taken in cmkit_rpcrdma_ep_create() */
}

/* Return 1 if this put freed the ep: the caller must then see the id destroyed. */
static int rpcrdma_ep_put(struct rpcrdma_ep *ep)
{
	return kref_put(&ep->re_kref, rpcrdma_ep_destroy);
}

static void rpcrdma_ep_get(struct rpcrdma_ep *ep)
{
	kref_get(&ep->re_kref);
}

/* Drop the ESTABLISHED reference if the ep still holds it. */
static int rpcrdma_ep_put_established(struct rpcrdma_ep *ep)
{
	if (!test_and_clear_bit(RPCRDMA_EP_ESTABLISHED, &ep->re_flags))
		return 0;
	return rpcrdma_ep_put(ep);
}

/*
 * The transport lets go of its ep: drop the transport's reference, which
 * may be the last.  Under the handler mutex no event is using the ep while
 * it is detached from the transport (the transport may be freed next, while
 * the ESTABLISHED reference keeps the ep until DISCONNECTED) or freed; a
 * freed ep leaves the id with no context, so an event that still arrives
 * before rdma_destroy_id() is ignored.  Destroys the id if the ep was freed.
 */
static int rpcrdma_ep_put_final(struct rpcrdma_ep *ep, bool disconnecting)
{
	struct rdma_cm_id *id = ep->re_id;
	int freed;

	rdma_lock_handler(id);
	ep->re_xprt = NULL;
	/*
	 * No disconnect is under way (rdma_disconnect() failed, or was never
	 * called): no DISCONNECTED will drop the ESTABLISHED reference, which
	 * an ESTABLISHED that raced the failure may even have taken.  Drop it
	 * here (never the last: the transport's is); destroying the id ends
	 * the connection.
	 */
	if (!disconnecting)
		rpcrdma_ep_put_established(ep);
	/*
	 * A DREQ ib_cm could not allocate is not reported: if no
	 * DISCONNECTED comes in time, the linger work ends the connection.
	 */
	if (test_bit(RPCRDMA_EP_ESTABLISHED, &ep->re_flags)) {
		rpcrdma_ep_get(ep);
		queue_delayed_work(system_unbound_wq, &ep->re_linger,
				   RPCRDMA_LINGER_TIMEOUT);
	}
	freed = rpcrdma_ep_put(ep);
	if (freed)
		id->context = NULL;
	rdma_unlock_handler(id);
	if (freed) {
		rdma_destroy_id(id);
		cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.ids_destroyed);
	}
	return freed;
}

/*
 * No DISCONNECTED came for an ep its transport let go of: drop the
 * ESTABLISHED reference and the work's own; the last put destroys the id,
 * which ends the connection (ib_cm sends the DREQ or enters timewait).
 */
static void rpcrdma_ep_linger(struct work_struct *work)
{
	struct rpcrdma_ep *ep = container_of(to_delayed_work(work), struct rpcrdma_ep,
					     re_linger);
	struct rdma_cm_id *id = ep->re_id;
	u32 xid = ep->re_xid;
	int freed;

	rdma_lock_handler(id);
	rpcrdma_ep_put_established(ep);
	freed = rpcrdma_ep_put(ep);
	if (freed)
		id->context = NULL;
	rdma_unlock_handler(id);
	trace_cmkit_rpcrdma_linger(xid, freed);
	if (freed) {
		rdma_destroy_id(id);
		cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.ids_destroyed);
	}
}

/*
 * DISCONNECTED or DEVICE_REMOVAL: drop the ESTABLISHED reference, and the
 * linger work's if it has not started.  Return 1 if the ep was freed.
 */
static int rpcrdma_ep_put_connection(struct rpcrdma_ep *ep)
{
	int freed = rpcrdma_ep_put_established(ep);

	if (!freed && cancel_delayed_work(&ep->re_linger))
		freed = rpcrdma_ep_put(ep);
	return freed;
}

/**
 * cmkit_rpcrdma_force_disconnect - ask the transport to close this ep, once
 * @ep: an ep its transport still holds
 *
 * At most once per ep.  The work says which ep asked (its generation): by
 * the time it runs, the transport may have closed that ep and connected a
 * new one, which it must leave alone.  Requests come in ep order (an ep's
 * gate shuts before its transport lets go of it), so the work only ever
 * needs the latest.
 */
void cmkit_rpcrdma_force_disconnect(struct rpcrdma_ep *ep)
{
	struct rpcrdma_xprt *r_xprt = ep->re_xprt;

	/* The gate shuts before the transport lets go of the ep. */
	if (!atomic_add_unless(&ep->re_force_disconnect, 1, 1))
		return;
	trace_cmkit_rpcrdma_force_disconnect(ep->re_xid, ep->re_gen);
	atomic_inc(&r_xprt->rx_force_count);
	atomic_inc(&cmkit_rpcrdma_stats.force_disconnects);
	/* Seen by the work: queue_work() orders it before the work runs. */
	WRITE_ONCE(r_xprt->rx_force_gen, ep->re_gen);
	queue_work(system_unbound_wq, &r_xprt->rx_force_work);
}

/*
 * A connect failed (old status 0: wake the connect) or a connection broke
 * (the ep holds the ESTABLISHED reference: close the transport, whose
 * DISCONNECTED, or a device removal, will drop that reference).
 */
static int rpcrdma_conn_failed(struct rpcrdma_ep *ep, int status)
{
	int old = xchg(&ep->re_connect_status, status);

	if (old == 0)
		wake_up_all(&ep->re_connect_wait);
	if (test_bit(RPCRDMA_EP_ESTABLISHED, &ep->re_flags))
		cmkit_rpcrdma_force_disconnect(ep);
	return old;
}

/**
 * cmkit_rpcrdma_flush_disconnect - a completion failed: close the transport
 * @r_xprt: the transport
 * @wc: the work completion
 *
 * Called from Send and Receive completion handlers (process context).
 */
void cmkit_rpcrdma_flush_disconnect(struct rpcrdma_xprt *r_xprt, struct ib_wc *wc)
{
	struct rpcrdma_ep *ep = READ_ONCE(r_xprt->rx_ep);

	/* Flushes of our own teardown come with the gate already shut. */
	if (wc->status == IB_WC_SUCCESS || !ep || atomic_read(&ep->re_force_disconnect))
		return;
	trace_cmkit_rpcrdma_flush_disconnect(r_xprt->rx_xid, wc->status);
	cmkit_rpcrdma_force_disconnect(ep);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_flush_disconnect);

static void rpcrdma_update_cm_private(struct rpcrdma_ep *ep, struct rdma_cm_id *id,
				      const struct rdma_conn_param *param)
{
	const void *pdata = param->private_data;
	size_t len = pdata ? param->private_data_len : 0;

	ep->re_peer_cmp = cmkit_rpcrdma_cmp_negotiate(pdata, len, &ep->re_inline_send,
						      &ep->re_inline_recv);
	trace_cmkit_rpcrdma_inline_thresh(ep->re_xid, ep->re_peer_cmp, ep->re_inline_send,
					  ep->re_inline_recv);
}

/* STALE_CONN is an IB reject reason: on iWARP the status is an errno. */
static int rpcrdma_reject_status(struct rdma_cm_id *id, const struct rdma_cm_event *event)
{
	if (event->status == IB_CM_REJ_STALE_CONN &&
	    rdma_ib_or_roce(id->device, id->port_num))
		return -ENOTCONN;
	return -ECONNREFUSED;
}

/**
 * rpcrdma_cm_event_handler - handle one rdma_cm event of an endpoint
 * @id: the endpoint's rdma_cm id
 * @event: the event
 *
 * Called with @id's handler mutex held, in process context; may sleep.
 * Never destroys @id: its last reference decides (see the top of this file).
 *
 * Return: 1 if the caller should destroy @id (this call freed the ep),
 * otherwise 0.
 */
int rpcrdma_cm_event_handler(struct rdma_cm_id *id, struct rdma_cm_event *event)
{
	struct rpcrdma_ep *ep = id->context;
	struct rpcrdma_xprt *r_xprt;
	int old, new, rc = 0;
	u32 xid;

	might_sleep();
	if (!ep) {
		/* The ep was freed; rdma_destroy_id() is on its way. */
		trace_cmkit_rpcrdma_cm_event(0, id, event, 0, 0, 0);
		return 0;
	}
	xid = ep->re_xid;
	r_xprt = ep->re_xprt;	/* NULL once the transport let go */
	if (event->event < ARRAY_SIZE(cmkit_rpcrdma_stats.events))
		atomic_inc(&cmkit_rpcrdma_stats.events[event->event]);
	if (r_xprt && r_xprt->rx_ops && r_xprt->rx_ops->cm_event)
		r_xprt->rx_ops->cm_event(r_xprt, id, event);
	old = READ_ONCE(ep->re_connect_status);

	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ep->re_async_rc = 0;
		complete(&ep->re_done);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		ep->re_async_rc = -EPROTO;
		complete(&ep->re_done);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		ep->re_async_rc = -ENETUNREACH;
		complete(&ep->re_done);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * In every phase: a resolver waits on re_done, a connect on
		 * re_connect_wait; whatever the status says, the transport is
		 * asked to close (its disconnect destroys the id, which the
		 * removal waits for) and the ESTABLISHED reference, if still
		 * held, is dropped: rdma_cm delivers nothing after removal.
		 * Log from @id: ep->re_id is not set until the id exists.
		 */
		pr_info("removing device %s for %pISpc\n",
			id->device->name, &id->route.addr.dst_addr);
		ep->re_async_rc = -ENODEV;
		complete(&ep->re_done);
		old = xchg(&ep->re_connect_status, -ENODEV);
		new = -ENODEV;
		if (old == 0)
			wake_up_all(&ep->re_connect_wait);
		cmkit_rpcrdma_force_disconnect(ep);
		rc = rpcrdma_ep_put_connection(ep);
		goto out_put;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		/*
		 * May come before ESTABLISHED, so it drops no reference: when
		 * connected, the DISCONNECTED that follows the close (or a
		 * removal) drops the ESTABLISHED one.
		 */
		old = rpcrdma_conn_failed(ep, -ENODEV);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rpcrdma_ep_get(ep);
		set_bit(RPCRDMA_EP_ESTABLISHED, &ep->re_flags);
		rpcrdma_update_cm_private(ep, id, &event->param.conn);
		/* Pairs with the acquire of every reader: 1 means sizes final. */
		smp_store_release(&ep->re_connect_status, 1);
		wake_up_all(&ep->re_connect_wait);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		old = rpcrdma_conn_failed(ep, -ENOTCONN);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		/* Also on a connected id: a RoCE neighbour change (netevent). */
		old = rpcrdma_conn_failed(ep, -ENETUNREACH);
		break;
	case RDMA_CM_EVENT_REJECTED:
		/* Also on a connected id: a REJ in ESTABLISHED or DREQ_SENT. */
		old = rpcrdma_conn_failed(ep, rpcrdma_reject_status(id, event));
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* No wake: waiters only care about leaving 0. */
		WRITE_ONCE(ep->re_connect_status, -ECONNABORTED);
		cmkit_rpcrdma_force_disconnect(ep);
		new = -ECONNABORTED;
		rc = rpcrdma_ep_put_connection(ep);
		goto out_put;
	default:
		/* CONNECT_RESPONSE, TIMEWAIT_EXIT, multicast, 7.x additions. */
		break;
	}

	trace_cmkit_rpcrdma_cm_event(xid, id, event, old, READ_ONCE(ep->re_connect_status), 0);
	return 0;

out_put:
	/* After a put the ep may be gone: only @id and locals from here. */
	trace_cmkit_rpcrdma_cm_event(xid, id, event, old, new, rc);
	if (rc)
		cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.ids_returned);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(rpcrdma_cm_event_handler, CMKIT_NS);

static int rpcrdma_wait_resolved(struct rpcrdma_ep *ep)
{
	unsigned long timeout = msecs_to_jiffies(RPCRDMA_RESOLVE_TIMEOUT) + 1;
	long rc;

	rc = wait_for_completion_interruptible_timeout(&ep->re_done, timeout);
	if (rc < 0)
		return rc;
	return ep->re_async_rc;
}

/*
 * Create the id and resolve the address and the route.  On failure the id
 * is destroyed here, so no event arrives after this returns an error.
 */
static int rpcrdma_create_id(struct rpcrdma_xprt *r_xprt, struct rpcrdma_ep *ep)
{
	struct sockaddr *dst = (struct sockaddr *)&r_xprt->rx_dst;
	struct rdma_cm_id *id;
	int rc;

	init_completion(&ep->re_done);
	if (rpcrdma_fault(RPCRDMA_FAULT_ID_CREATE))
		return -ENOMEM;
	id = rdma_create_id(&init_net, rpcrdma_cm_event_handler, ep, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	atomic_inc(&cmkit_rpcrdma_stats.ids_created);
	ep->re_id = id;

	ep->re_async_rc = -ETIMEDOUT;
	rc = rpcrdma_fault(RPCRDMA_FAULT_RESOLVE_ADDR) ? -ENODEV :
		rdma_resolve_addr(id, NULL, dst, RPCRDMA_RESOLVE_TIMEOUT);
	if (rc)
		goto out;
	rc = rpcrdma_wait_resolved(ep);
	if (rc)
		goto out;

	ep->re_async_rc = -ETIMEDOUT;
	rc = rpcrdma_fault(RPCRDMA_FAULT_RESOLVE_ROUTE) ? -ENOMEM :
		rdma_resolve_route(id, RPCRDMA_RESOLVE_TIMEOUT);
	if (rc)
		goto out;
	rc = rpcrdma_wait_resolved(ep);
	if (rc)
		goto out;
	/* A removal or address change while resolving fails the attempt. */
	rc = READ_ONCE(ep->re_connect_status);
	if (rc)
		goto out;
	return 0;

out:
	rdma_destroy_id(id);
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.ids_destroyed);
	ep->re_id = NULL;
	return rc;
}

/**
 * cmkit_rpcrdma_ep_create - a new endpoint: resolved id, PD, CQ and QP
 * @r_xprt: the transport, which must have no endpoint
 *
 * On success @r_xprt->rx_ep holds the transport's reference, and
 * cmkit_rpcrdma_xprt_disconnect() tears the endpoint down.  Exported for tests,
 * which drive a resolved but unconnected endpoint.
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int cmkit_rpcrdma_ep_create(struct rpcrdma_xprt *r_xprt)
{
	struct ib_qp_init_attr qp_attr = {
		.cap = {
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct rpcrdma_ep *ep;
	struct ib_device *device;
	struct rdma_cm_id *id;
	u32 depth;
	int rc;

	ep = rpcrdma_fault(RPCRDMA_FAULT_EP_ALLOC) ? NULL : kzalloc_obj(*ep, GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	__module_get(THIS_MODULE);	/* put by rpcrdma_ep_destroy() */
	ep->re_xprt = r_xprt;
	ep->re_xid = r_xprt->rx_xid;
	ep->re_gen = ++r_xprt->rx_gen;
	kref_init(&ep->re_kref);
	INIT_DELAYED_WORK(&ep->re_linger, rpcrdma_ep_linger);
	init_waitqueue_head(&ep->re_connect_wait);
	ep->re_inline_send = r_xprt->rx_inline_send;
	ep->re_inline_recv = r_xprt->rx_inline_recv;
	atomic_inc(&cmkit_rpcrdma_stats.eps_created);

	rc = rpcrdma_create_id(r_xprt, ep);
	if (rc) {
		kfree(ep);
		rpcrdma_count_ep_freed();
		module_put(THIS_MODULE);
		return rc;
	}
	id = ep->re_id;
	device = id->device;

	/*
	 * The ring: as many credits as the device's queues hold, beside the
	 * backchannel's, the Receives beyond the grant and one work request
	 * each for ib_drain_qp(); each call's Send queue entries are its Send
	 * and its MRs' registrations and invalidations.  One signaled Send
	 * every eighth, as upstream's frwr_query_device().
	 */
	ep->re_max_requests = min_t(u32, RPCRDMA_MAX_REQUESTS,
				    max_t(int, device->attrs.max_qp_wr,
					  2 + RPCRDMA_MAX_RECV_BATCH) - 1 -
				    RPCRDMA_BC_MAX_REQUESTS - RPCRDMA_MAX_RECV_BATCH);
	ep->re_max_requests = min_t(u32, ep->re_max_requests,
				    (max_t(int, device->attrs.max_qp_wr, 2) - 1) /
				    RPCRDMA_SEND_WRS_PER_CALL);
	ep->re_send_batch = ep->re_max_requests >> 3;
	ep->re_send_count = ep->re_send_batch;
	depth = ep->re_max_requests + RPCRDMA_BC_MAX_REQUESTS + 1;
	qp_attr.cap.max_send_wr = (ep->re_max_requests + RPCRDMA_BC_MAX_REQUESTS) *
				  RPCRDMA_SEND_WRS_PER_CALL + 1;
	/* The Receives beyond the grant, as frwr_query_device()'s. */
	qp_attr.cap.max_recv_wr = depth + RPCRDMA_MAX_RECV_BATCH;

	ep->re_pd = rpcrdma_fault(RPCRDMA_FAULT_PD_ALLOC) ? ERR_PTR(-ENOMEM) :
		ib_alloc_pd(device, 0);
	if (IS_ERR(ep->re_pd)) {
		rc = PTR_ERR(ep->re_pd);
		ep->re_pd = NULL;
		goto out_destroy;
	}
	ep->re_cq = rpcrdma_fault(RPCRDMA_FAULT_CQ_ALLOC) ? ERR_PTR(-ENOMEM) :
		ib_alloc_cq_any(device, r_xprt,
				qp_attr.cap.max_send_wr + qp_attr.cap.max_recv_wr,
				IB_POLL_WORKQUEUE);
	if (IS_ERR(ep->re_cq)) {
		rc = PTR_ERR(ep->re_cq);
		ep->re_cq = NULL;
		goto out_destroy;
	}
	qp_attr.send_cq = ep->re_cq;
	qp_attr.recv_cq = ep->re_cq;
	rc = rpcrdma_fault(RPCRDMA_FAULT_QP_CREATE) ? -ENOMEM :
		rdma_create_qp(id, ep->re_pd, &qp_attr);
	if (rc)
		goto out_destroy;

	/*
	 * RFC 8797's Remote Invalidation bit, as xprtrdma sets it with FRWR:
	 * the server may reply with Send With Invalidate on an rkey the call
	 * advertised; the reply's Receive says which (rr_inv_rkey), and
	 * rpcrdma/proc.c fences only the call's other MRs with LOCAL_INV.
	 */
	cmkit_rpcrdma_cmp_encode(ep->re_cm_private, CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK,
				 ep->re_inline_send, ep->re_inline_recv);
	ep->re_remote_cma.private_data = ep->re_cm_private;
	ep->re_remote_cma.private_data_len = sizeof(ep->re_cm_private);
	ep->re_remote_cma.initiator_depth = 0;
	ep->re_remote_cma.responder_resources =
		min_t(int, U8_MAX, device->attrs.max_qp_rd_atom);
	ep->re_remote_cma.retry_count = 6;
	ep->re_remote_cma.rnr_retry_count = 0;
	ep->re_remote_cma.flow_control = 0;

	r_xprt->rx_ep = ep;
	return 0;

out_destroy:
	rpcrdma_ep_put_final(ep, false);	/* the only reference */
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_ep_create);

/*
 * No more Receives are posted; every Send and Receive completes (flushed,
 * if the connection is gone): after this no completion handler runs.
 */
static void rpcrdma_xprt_drain(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_ep *ep = r_xprt->rx_ep;

	if (!ep->re_receives_posted)
		return;
	cmkit_rpcrdma_recvs_close(r_xprt);
	trace_cmkit_rpcrdma_drain(r_xprt->rx_xid, READ_ONCE(r_xprt->rx_buf.rb_receive_count));
	ib_drain_qp(ep->re_id->qp);
	ep->re_receives_posted = false;
	rpcrdma_ep_put(ep);	/* never the last: the transport holds one */
}

/*
 * End the connection.  @lost: it broke (the force-disconnect work), rather
 * than its owner or a failed connect ending it: unless reconnecting is off
 * or the owner closed the transport, the calls waiting for replies wait
 * for the next connection instead of ending, and the reconnect work is
 * queued (reconnect.c).
 */
static void __rpcrdma_xprt_disconnect(struct rpcrdma_xprt *r_xprt, bool lost)
{
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	bool disconnecting, reconnect;

	if (!ep)
		return;
	/* Teardown flushes and CM events must not ask for another close. */
	atomic_set(&ep->re_force_disconnect, 1);
	cmkit_rpcrdma_xprt_clear_connected(r_xprt);
	disconnecting = !rdma_disconnect(ep->re_id);
	rpcrdma_xprt_drain(r_xprt);
	reconnect = cmkit_rpcrdma_reqs_abort(r_xprt,
					     lost && cmkit_rpcrdma_reconnect_wanted(r_xprt));
	cmkit_rpcrdma_mrs_destroy(r_xprt);
	cmkit_rpcrdma_reps_unmap(r_xprt);
	cmkit_rpcrdma_sendctxs_destroy(r_xprt);
	cmkit_rpcrdma_reqs_reset(r_xprt);
	r_xprt->rx_ep = NULL;
	trace_cmkit_rpcrdma_disconnect(r_xprt->rx_xid, rpcrdma_ep_put_final(ep, disconnecting));
	if (reconnect)
		cmkit_rpcrdma_reconnect_schedule(r_xprt);
}

/**
 * cmkit_rpcrdma_xprt_disconnect - disconnect and release the transport's endpoint
 * @r_xprt: the transport
 *
 * Stops new calls, disconnects, drains the QP, completes every call still
 * waiting with -ECONNABORTED, unmaps every buffer, and drops the
 * transport's reference.  If that put was the last, the id is destroyed
 * here; otherwise the ESTABLISHED reference keeps the ep until
 * DISCONNECTED, whose handler frees it and returns 1.  Safe to call with no
 * endpoint.  Stops reconnecting first (cmkit_rpcrdma_reconnect_stop()):
 * calls waiting for a new connection end with -ECONNABORTED too.
 */
void cmkit_rpcrdma_xprt_disconnect(struct rpcrdma_xprt *r_xprt)
{
	cmkit_rpcrdma_reconnect_stop(r_xprt);
	mutex_lock(&r_xprt->rx_lock);
	__rpcrdma_xprt_disconnect(r_xprt, false);
	mutex_unlock(&r_xprt->rx_lock);
}
EXPORT_SYMBOL_NS_GPL(cmkit_rpcrdma_xprt_disconnect, CMKIT_NS);

/**
 * cmkit_rpcrdma_xprt_connect - connect the transport to its server
 * @r_xprt: the transport, with no endpoint
 *
 * Creates an endpoint (resolving the address and route), resets the
 * credits to one and posts the first Receive, connects with our RFC 8797
 * private message, and waits (interruptibly, at most
 * @r_xprt->rx_connect_timeout) until the connection is established or
 * fails; then sets up the send-context ring and the reqs for the
 * negotiated inline sizes, and lets calls go.  On failure the endpoint is
 * torn down before this returns, as upstream's connect worker does.
 *
 * Return: 0 when connected, -ETIMEDOUT if no answer came in time,
 * -ERESTARTSYS on a signal, -ENOTCONN if the connection's buffers could not
 * be set up, else the negative errno of the failure.
 */
int cmkit_rpcrdma_xprt_connect(struct rpcrdma_xprt *r_xprt)
{
	int rc;

	mutex_lock(&r_xprt->rx_lock);
	/* The owner's connect allows reconnects again. */
	r_xprt->rx_closed = false;
	rc = __cmkit_rpcrdma_xprt_connect(r_xprt);
	mutex_unlock(&r_xprt->rx_lock);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(cmkit_rpcrdma_xprt_connect, CMKIT_NS);

/**
 * __cmkit_rpcrdma_xprt_connect - cmkit_rpcrdma_xprt_connect() under the transport's lock
 * @r_xprt: the transport, under its rx_lock
 *
 * Also the reconnect work's attempt: a connection made ends the reconnect
 * (rb_reconnecting), and the calls waiting for it are sent again.
 *
 * Return: as cmkit_rpcrdma_xprt_connect().
 */
int __cmkit_rpcrdma_xprt_connect(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_ep *ep;
	long timeout;
	int rc;

	lockdep_assert_held(&r_xprt->rx_lock);
	rc = r_xprt->rx_ep ? -EISCONN : cmkit_rpcrdma_ep_create(r_xprt);
	if (rc)
		goto out;
	ep = r_xprt->rx_ep;

	cmkit_rpcrdma_reset_cwnd(r_xprt);
	rpcrdma_ep_get(ep);	/* for the Receives, dropped by the drain */
	ep->re_receives_posted = true;
	rc = cmkit_rpcrdma_post_recvs(r_xprt, 1);
	if (rc)
		goto out_disconnect;

	rc = rpcrdma_fault(RPCRDMA_FAULT_CONNECT) ? -ENOMEM :
		rdma_connect(ep->re_id, &ep->re_remote_cma);
	if (rc)
		goto out_disconnect;
	timeout = wait_event_interruptible_timeout(ep->re_connect_wait,
						   rpcrdma_ep_status(ep) != 0,
						   r_xprt->rx_connect_timeout);
	if (timeout <= 0) {
		rc = timeout ?: -ETIMEDOUT;
		goto out_disconnect;
	}
	rc = rpcrdma_ep_status(ep);
	if (rc < 0)
		goto out_disconnect;
	/* As upstream: a connection without its buffers is no connection. */
	if (cmkit_rpcrdma_mrs_create(r_xprt) || cmkit_rpcrdma_xprt_set_connected(r_xprt)) {
		rc = -ENOTCONN;
		goto out_disconnect;
	}
	spin_lock(&r_xprt->rx_buf.rb_lock);
	r_xprt->rx_buf.rb_reconnecting = false;
	spin_unlock(&r_xprt->rx_buf.rb_lock);
	/* Calls waiting to be sent again go now. */
	wake_up_all(&r_xprt->rx_buf.rb_wait);
	rc = 0;
	goto out;

out_disconnect:
	__rpcrdma_xprt_disconnect(r_xprt, false);
out:
	atomic_inc(rc ? &cmkit_rpcrdma_stats.connects_failed : &cmkit_rpcrdma_stats.connects);
	trace_cmkit_rpcrdma_connect(r_xprt->rx_xid, rc);
	return rc;
}

static void rpcrdma_force_work(struct work_struct *work)
{
	struct rpcrdma_xprt *r_xprt =
		container_of(work, struct rpcrdma_xprt, rx_force_work);

	struct rpcrdma_ep *ep;
	u32 gen;

	if (r_xprt->rx_ops && r_xprt->rx_ops->force_work)
		r_xprt->rx_ops->force_work(r_xprt);
	mutex_lock(&r_xprt->rx_lock);
	ep = r_xprt->rx_ep;
	gen = READ_ONCE(r_xprt->rx_force_gen);
	/* The ep that asked may be gone, and a new one connected since. */
	if (ep && ep->re_gen == gen)
		__rpcrdma_xprt_disconnect(r_xprt, true);
	else
		trace_cmkit_rpcrdma_force_stale(r_xprt->rx_xid, gen);
	mutex_unlock(&r_xprt->rx_lock);
}

/**
 * cmkit_rpcrdma_xprt_create - a transport to @dst, not yet connected
 * @dst: the server's address (IPv4 or IPv6)
 * @inline_send: inline send size to ask for, bytes
 * @inline_recv: inline receive size to ask for, bytes
 *
 * Sizes are clamped to RPCRDMA_MIN_INLINE..RPCRDMA_MAX_INLINE.  The
 * transport's pool of reqs is made here, as upstream's xprt_setup_rdma()
 * does.
 *
 * Return: the transport, or NULL if memory is short.
 */
struct rpcrdma_xprt *cmkit_rpcrdma_xprt_create(const struct sockaddr *dst,
					       u32 inline_send, u32 inline_recv)
{
	static atomic_t next_xid = ATOMIC_INIT(0);
	struct rpcrdma_xprt *r_xprt;

	r_xprt = kzalloc_obj(*r_xprt, GFP_KERNEL);
	if (!r_xprt)
		return NULL;
	r_xprt->rx_xid = atomic_inc_return(&next_xid);
	mutex_init(&r_xprt->rx_lock);
	mutex_init(&r_xprt->rx_send_lock);
	INIT_WORK(&r_xprt->rx_force_work, rpcrdma_force_work);
	memcpy(&r_xprt->rx_dst, dst, dst->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	r_xprt->rx_inline_send = clamp(inline_send, RPCRDMA_MIN_INLINE, RPCRDMA_MAX_INLINE);
	r_xprt->rx_inline_recv = clamp(inline_recv, RPCRDMA_MIN_INLINE, RPCRDMA_MAX_INLINE);
	r_xprt->rx_connect_timeout = RPCRDMA_CONNECT_TIMEOUT;
	r_xprt->rx_call_timeout = RPCRDMA_CALL_TIMEOUT;
	cmkit_rpcrdma_reconnect_init(r_xprt);
	if (cmkit_rpcrdma_buffer_create(r_xprt)) {
		kfree(r_xprt);
		return NULL;
	}
	return r_xprt;
}
EXPORT_SYMBOL_NS_GPL(cmkit_rpcrdma_xprt_create, CMKIT_NS);

static void rpcrdma_xprt_close(struct rpcrdma_xprt *r_xprt)
{
	/* No reconnect from here on: the force work below cannot queue one. */
	cmkit_rpcrdma_reconnect_stop(r_xprt);
	cancel_work_sync(&r_xprt->rx_force_work);
	cmkit_rpcrdma_xprt_disconnect(r_xprt);
	/* The disconnect may have queued the action again: flush it. */
	cancel_work_sync(&r_xprt->rx_force_work);
}

/**
 * cmkit_rpcrdma_xprt_destroy - disconnect (if connected) and free a transport
 * @r_xprt: the transport; no call may be running on it
 */
void cmkit_rpcrdma_xprt_destroy(struct rpcrdma_xprt *r_xprt)
{
	rpcrdma_xprt_close(r_xprt);
	cmkit_rpcrdma_buffer_destroy(&r_xprt->rx_buf);
	kfree(r_xprt);
}
EXPORT_SYMBOL_NS_GPL(cmkit_rpcrdma_xprt_destroy, CMKIT_NS);

/**
 * cmkit_rpcrdma_init - bring up the rpcrdma consumer
 *
 * Return: 0.
 */
int cmkit_rpcrdma_init(void)
{
	return 0;
}

/**
 * cmkit_rpcrdma_exit - check that no endpoint outlived its module
 *
 * Every live ep pins the module, and every transport with it (its reqs,
 * reps and DMA mappings), so none can be alive here; an id that rdma_cm
 * has not destroyed yet after the handler returned 1 is waited for, and
 * anything else is reported as a leak.
 */
void cmkit_rpcrdma_exit(void)
{
	struct cmkit_rpcrdma_stats *s = &cmkit_rpcrdma_stats;

	cmkit_wait_released(&cmkit_rpcrdma_stats, rpcrdma_all_released(),
			    "rpcrdma: %d eps, %d ids, %d reqs, %d reps and %d DMA mappings alive at unload\n",
			    atomic_read(&s->eps_created) - atomic_read(&s->eps_freed),
			    atomic_read(&s->ids_created) - atomic_read(&s->ids_destroyed) -
			    atomic_read(&s->ids_returned),
			    atomic_read(&s->reqs_created) - atomic_read(&s->reqs_freed),
			    atomic_read(&s->reps_created) - atomic_read(&s->reps_freed),
			    atomic_read(&s->dma_maps) - atomic_read(&s->dma_unmaps));
}
