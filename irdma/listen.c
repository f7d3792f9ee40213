// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit irdma: listeners.  A listening kernel socket per local address and
 * port; its callback (softirq) queues the accept work, which makes a
 * passive node per TCP connection and hands it the socket.  The MPA request
 * that follows is the node's business (irdma_conn.c).
 */
#define pr_fmt(fmt) "cmkit: irdma: " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "irdma/irdma.h"
#include "irdma/trace.h"

static void irdma_cm_listen_data_ready(struct sock *sk)
{
	struct irdma_cm_listener *listener;

	read_lock_bh(&sk->sk_callback_lock);
	/* A child not yet accepted inherited this callback: not for it. */
	listener = sk->sk_state == TCP_LISTEN ? sk->sk_user_data : NULL;
	if (listener)
		queue_work(listener->cm_core->sock_wq, &listener->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void irdma_cm_passive_node(struct irdma_cm_listener *listener,
				  struct socket *sock)
{
	struct irdma_cm_info info = { .cm_id = listener->cm_id };
	struct irdma_cm_node *cm_node;

	/* The child inherited the listener's callback and user data: undo. */
	write_lock_bh(&sock->sk->sk_callback_lock);
	sock->sk->sk_user_data = NULL;
	sock->sk->sk_data_ready = listener->saved_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);

	if (kernel_getsockname(sock, (struct sockaddr *)&info.loc) < 0 ||
	    kernel_getpeername(sock, (struct sockaddr *)&info.rem) < 0)
		goto out_release;
	/* The backlog: at most that many requests pending at once. */
	if (atomic_inc_return(&listener->pending) > listener->backlog) {
		atomic_dec(&listener->pending);
		trace_cmkit_irdma_refused(listener, &info.rem, -EBUSY);
		goto out_release;
	}
	cm_node = cmkit_irdma_make_cm_node(listener->cm_core, listener->cm_id, &info);
	if (IS_ERR(cm_node)) {
		atomic_dec(&listener->pending);
		trace_cmkit_irdma_refused(listener, &info.rem, PTR_ERR(cm_node));
		goto out_release;
	}
	cm_node->passive = true;
	refcount_inc(&listener->refcnt);
	cm_node->listener = listener;
	set_bit(IRDMA_CM_NODE_PENDING, &cm_node->flags);
	cm_node->offer = listener->offer;
	cm_node->mpa_rev = listener->offer.rev;
	tcp_sock_set_nodelay(sock->sk);
	cmkit_irdma_add_ref_cm_node(cm_node);	/* the socket work may end it at once */
	mutex_lock(&cm_node->lock);
	if (test_bit(IRDMA_CM_NODE_REAPED, &cm_node->flags)) {
		/* Cleanup passed it by while it had no socket. */
		mutex_unlock(&cm_node->lock);
		cmkit_irdma_cm_node_put_base(cm_node);
		cmkit_irdma_rem_ref_cm_node(cm_node);
		goto out_release;
	}
	cmkit_irdma_cm_node_attach_sock(cm_node, sock);
	cm_node->state = IRDMA_CM_STATE_ESTABLISHED;
	cmkit_irdma_cm_timer_start(cm_node, cm_node->cm_core->mpa_req_timeout);
	cmkit_irdma_cm_queue_sock_work(cm_node);	/* the request may be in already */
	mutex_unlock(&cm_node->lock);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return;

out_release:
	sock_no_linger(sock->sk);
	sock_release(sock);
}

/*
 * Take the connections TCP has ready, at most IRDMA_CM_ACCEPT_BATCH per run:
 * under a flood the work queues itself again, so a destroy's
 * cancel_work_sync() waits for one batch, not for the flood to stop.
 */
static void irdma_cm_accept_work(struct work_struct *work)
{
	struct irdma_cm_listener *listener = container_of(work, struct irdma_cm_listener,
							  accept_work);
	struct socket *sock;
	unsigned int n;

	for (n = 0; n < IRDMA_CM_ACCEPT_BATCH; n++) {
		if (kernel_accept(listener->sock, &sock, O_NONBLOCK))
			return;
		if (irdma_fault(IRDMA_FAULT_ACCEPT)) {
			/* As if the child could not be set up: reset the peer. */
			trace_cmkit_irdma_refused(listener, NULL, -ENOMEM);
			sock_no_linger(sock->sk);
			sock_release(sock);
			continue;
		}
		irdma_cm_passive_node(listener, sock);
	}
	atomic_inc(&listener->cm_core->stats.accept_yields);
	trace_cmkit_irdma_accept_yield(&listener->loc, n);
	queue_work(listener->cm_core->sock_wq, &listener->accept_work);
}

/**
 * cmkit_irdma_cm_put_listener - drop a listener reference
 * @listener: the listener
 *
 * The last reference unlinks it, releases the upper layer's id, frees it.
 */
void cmkit_irdma_cm_put_listener(struct irdma_cm_listener *listener)
{
	struct irdma_cm_core *cm_core = listener->cm_core;

	if (!refcount_dec_and_test(&listener->refcnt))
		return;
	spin_lock(&cm_core->ht_lock);
	list_del(&listener->list);
	spin_unlock(&cm_core->ht_lock);
	listener->cm_id->rem_ref(listener->cm_id);
	kfree(listener);
	wake_up_all(&cm_core->wait);
	cmkit_irdma_cm_core_put(cm_core);	/* last: cleanup may return now */
}

/* Give the listening socket its callbacks back, and wait out the accept work. */
static void irdma_cm_unhook_listener(struct irdma_cm_listener *listener)
{
	struct sock *sk = listener->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = listener->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&listener->accept_work);
}

/* Stop accepting; the first caller (destroy or cleanup) wins. */
static void irdma_cm_stop_listener(struct irdma_cm_listener *listener)
{
	struct irdma_cm_core *cm_core = listener->cm_core;
	bool was_listening;

	spin_lock(&cm_core->ht_lock);
	was_listening = listener->listening;
	listener->listening = false;
	listener->stopped = true;
	spin_unlock(&cm_core->ht_lock);
	if (!was_listening)
		return;
	irdma_cm_unhook_listener(listener);
	sock_release(listener->sock);
	cmkit_irdma_cm_id_clear(listener->cm_id, listener);	/* a later destroy: -EINVAL */
	trace_cmkit_irdma_listen(&listener->loc, false, 0);
	cmkit_irdma_cm_put_listener(listener);
}

/*
 * Post again the requests that came while the listener was coming up (it
 * is listening now, or stopped): the handler indicates or refuses them.
 */
static void irdma_cm_repost_deferred(struct irdma_cm_listener *listener)
{
	struct irdma_cm_core *cm_core = listener->cm_core;
	struct irdma_cm_node *cm_node, *found;

	do {
		found = NULL;
		spin_lock(&cm_core->ht_lock);
		list_for_each_entry(cm_node, &cm_core->nodes, list) {
			if (cm_node->listener != listener ||
			    !test_and_clear_bit(IRDMA_CM_NODE_DEFERRED, &cm_node->flags))
				continue;
			if (refcount_inc_not_zero(&cm_node->refcnt)) {
				found = cm_node;
				break;
			}
		}
		spin_unlock(&cm_core->ht_lock);
		if (!found)
			return;
		if (!cmkit_irdma_create_event(found, IRDMA_CM_EVENT_MPA_REQ)) {
			/* Nothing was indicated: refuse the peer. */
			set_bit(IRDMA_CM_NODE_ANSWERED, &found->flags);
			cmkit_irdma_cm_node_reject(found, NULL, 0);
			cmkit_irdma_cm_node_put_base(found);
		}
		cmkit_irdma_rem_ref_cm_node(found);
	} while (found);
}

/**
 * cmkit_irdma_create_listen - listen for iWARP connections, with defaults
 * @cm_core: the core to listen on
 * @cm_id: the upper layer (see cmkit_irdma_create_listen_mpa())
 * @backlog: requests pending at most
 *
 * cmkit_irdma_create_listen_mpa() with cmkit_irdma_cm_default_offer().
 *
 * Return: as cmkit_irdma_create_listen_mpa().
 */
int cmkit_irdma_create_listen(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			      int backlog)
{
	return cmkit_irdma_create_listen_mpa(cm_core, cm_id, backlog, NULL);
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_create_listen, CMKIT_NS);

/**
 * cmkit_irdma_create_listen_mpa - listen for iWARP connections
 * @cm_core: the core to listen on
 * @cm_id: the upper layer: m_local_addr (IPv4 or IPv6), event_handler,
 *	add_ref, rem_ref; it gets a CONNECT_REQUEST per MPA request received
 *	that the offer does not refuse
 * @backlog: TCP listen backlog, and the most requests pending at once
 *	(connected, not yet answered by accept or reject): a connection
 *	beyond them is reset (at least 1)
 * @offer: what each request is answered with: revisions, CRC, P2P and
 *	the RTR types taken, IRD strictness (against @offer->ird).  NULL:
 *	cmkit_irdma_cm_default_offer().  A request it refuses (revision, markers,
 *	P2P required, no RTR type in common, IRD) gets an MPA reject with the
 *	reason, and no upcall; one that finds no listener, or a consumer's
 *	reject, an MPA reject without one.  The peer has
 *	cm_core->mpa_req_timeout to send its request.
 *
 * The listener is published whole (socket, callbacks, the reference on
 * @cm_id, cm_id->provider_data naming it), so a cleanup that finds it can
 * stop it at once; a cleanup that begins before it is published makes this
 * fail with -ENODEV.  A cleanup right after it was published may have
 * stopped it again by the time this returns 0 (provider_data is then NULL).
 *
 * Return: 0 (cm_id->provider_data names the listener), or a negative errno.
 */
int cmkit_irdma_create_listen_mpa(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
				  int backlog, const struct cmkit_mpa_offer *offer)
{
	struct sockaddr_storage *ss = &cm_id->m_local_addr;
	struct irdma_cm_listener *listener = NULL;
	struct sock *sk;
	int rc;

	if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (offer && !cmkit_mpa_offer_ok(offer))
		return -EINVAL;
	if (!irdma_fault(IRDMA_FAULT_LISTENER_ALLOC))
		listener = kzalloc_obj(*listener, GFP_KERNEL);
	if (!listener) {
		rc = -ENOMEM;
		goto out_trace;
	}
	listener->cm_core = cm_core;
	listener->cm_id = cm_id;
	INIT_LIST_HEAD(&listener->list);
	refcount_set(&listener->refcnt, 1);
	listener->loc = *ss;
	if (offer)
		listener->offer = *offer;
	else
		cmkit_irdma_cm_default_offer(cm_core, true, &listener->offer);
	listener->backlog = max(backlog, 1);
	INIT_WORK(&listener->accept_work, irdma_cm_accept_work);
	/* Counted from here: cleanup waits for a listener being made too. */
	spin_lock(&cm_core->ht_lock);
	if (cm_core->dying) {
		spin_unlock(&cm_core->ht_lock);
		kfree(listener);
		rc = -ENODEV;
		goto out_trace;
	}
	atomic_inc(&cm_core->live);
	spin_unlock(&cm_core->ht_lock);

	rc = cmkit_irdma_cm_sock_create(ss->ss_family, &listener->sock);
	if (rc)
		goto out_free;
	sk = listener->sock->sk;
	sock_set_reuseaddr(sk);
	rc = cmkit_irdma_cm_sock_bind(listener->sock, ss);
	if (!rc)
		rc = irdma_fault(IRDMA_FAULT_LISTEN) ? -EADDRINUSE :
		     kernel_listen(listener->sock, listener->backlog);
	if (rc)
		goto out_release;
	irdma_cm_hook(cm_core, IRDMA_HOOK_LISTEN_READY, listener);

	cm_id->add_ref(cm_id);
	cmkit_irdma_cm_id_publish(cm_id, listener);
	write_lock_bh(&sk->sk_callback_lock);
	listener->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = listener;
	sk->sk_data_ready = irdma_cm_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	queue_work(cm_core->sock_wq, &listener->accept_work);	/* already queued ones */
	irdma_cm_hook(cm_core, IRDMA_HOOK_LISTEN_HOOKED, listener);

	spin_lock(&cm_core->ht_lock);
	if (cm_core->dying) {
		listener->stopped = true;
		spin_unlock(&cm_core->ht_lock);
		irdma_cm_unhook_listener(listener);
		irdma_cm_repost_deferred(listener);
		sock_release(listener->sock);
		cmkit_irdma_cm_id_clear(cm_id, listener);
		cmkit_irdma_cm_put_listener(listener);	/* rem_ref, and the live count */
		rc = -ENODEV;
		goto out_trace;
	}
	listener->listening = true;
	list_add_tail(&listener->list, &cm_core->listeners);
	refcount_inc(&listener->refcnt);	/* for the repost: cleanup may stop it now */
	spin_unlock(&cm_core->ht_lock);
	irdma_cm_repost_deferred(listener);
	cmkit_irdma_cm_put_listener(listener);
	/* Cleanup may stop and free it from here on: it is not touched again. */
	irdma_cm_hook(cm_core, IRDMA_HOOK_LISTEN_PUBLISHED, cm_id);
	trace_cmkit_irdma_listen(ss, true, 0);
	return 0;

out_release:
	sock_release(listener->sock);
out_free:
	kfree(listener);
	cmkit_irdma_cm_core_put(cm_core);
out_trace:
	trace_cmkit_irdma_listen(ss, true, rc);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_create_listen_mpa, CMKIT_NS);

/*
 * Reset the listener's connections whose peer has not sent its MPA request:
 * nothing would answer them.  The listener no longer accepts, and its accept
 * work is over, so every passive node it made is on the core's list.
 */
static void irdma_cm_abort_hanging_nodes(struct irdma_cm_listener *listener)
{
	struct irdma_cm_core *cm_core = listener->cm_core;
	struct irdma_cm_node *cm_node, *found;

	do {
		found = NULL;
		spin_lock(&cm_core->ht_lock);
		list_for_each_entry(cm_node, &cm_core->nodes, list) {
			if (cm_node->listener != listener ||
			    test_and_set_bit(IRDMA_CM_NODE_UNLISTENED, &cm_node->flags))
				continue;
			if (refcount_inc_not_zero(&cm_node->refcnt)) {
				found = cm_node;
				break;
			}
		}
		spin_unlock(&cm_core->ht_lock);
		if (found) {
			cmkit_irdma_cm_abort_unindicated(found);
			cmkit_irdma_rem_ref_cm_node(found);
		}
	} while (found);
}

/**
 * cmkit_irdma_destroy_listen - stop listening
 * @cm_id: the id cmkit_irdma_create_listen() was given
 *
 * No CONNECT_REQUEST is delivered on @cm_id once this returns, except for
 * requests already delivered; connections already indicated still need an
 * answer, and peers that have not sent their request yet are reset.
 * @cm_id is released (rem_ref) when the last of them is gone.
 *
 * Context: process context, not from an upcall on @cm_id (it waits for a
 * CONNECT_REQUEST being delivered there, for at most CMKIT_TEARDOWN_WAIT;
 * from that upcall itself it warns once and does not wait).
 * Return: 0, or -EINVAL when @cm_id is not listening.
 */
int cmkit_irdma_destroy_listen(struct iw_cm_id *cm_id)
{
	struct irdma_cm_node *self = cmkit_irdma_cm_current_node();
	struct irdma_cm_listener *listener;

	spin_lock(&cmkit_irdma_cm_id_lock);
	listener = cm_id->provider_data;
	if (listener) {
		cm_id->provider_data = NULL;
		/* Stopping drops the listen reference, which it still holds. */
		refcount_inc(&listener->refcnt);
	}
	spin_unlock(&cmkit_irdma_cm_id_lock);
	if (!listener)
		return -EINVAL;
	irdma_cm_stop_listener(listener);
	irdma_cm_abort_hanging_nodes(listener);
	/*
	 * A request queued before the stop is refused by the handler; one
	 * being indicated now must be over before we return, unless it is the
	 * caller's own (the event workqueue is ordered: no other is).
	 */
	if (WARN_ONCE(self && self->listener == listener &&
		      test_bit(IRDMA_CM_NODE_INDICATING, &self->flags),
		      "cmkit: irdma: listener %pISpc destroyed from its own CONNECT_REQUEST upcall\n",
		      &listener->loc)) {
		cmkit_irdma_cm_put_listener(listener);
		return 0;
	}
	cmkit_wait_released(&listener->indicating, !atomic_read(&listener->indicating),
			    "irdma: a CONNECT_REQUEST on destroyed listener %pISpc is still being delivered\n",
			    &listener->loc);
	cmkit_irdma_cm_put_listener(listener);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_destroy_listen, CMKIT_NS);

/**
 * cmkit_irdma_cm_teardown_listeners - stop every listener of a core
 * @cm_core: a core that is going away
 */
void cmkit_irdma_cm_teardown_listeners(struct irdma_cm_core *cm_core)
{
	struct irdma_cm_listener *listener;

	for (;;) {
		bool found = false;

		spin_lock(&cm_core->ht_lock);
		list_for_each_entry(listener, &cm_core->listeners, list) {
			if (listener->listening) {
				refcount_inc(&listener->refcnt);
				found = true;
				break;
			}
		}
		spin_unlock(&cm_core->ht_lock);
		if (!found)
			return;
		irdma_cm_stop_listener(listener);
		cmkit_irdma_cm_put_listener(listener);
	}
}
