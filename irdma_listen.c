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

#include "irdma_cm.h"

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
	struct sockaddr_in sin;

	/* The child inherited the listener's callback and user data: undo. */
	write_lock_bh(&sock->sk->sk_callback_lock);
	sock->sk->sk_user_data = NULL;
	sock->sk->sk_data_ready = listener->saved_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);

	if (kernel_getsockname(sock, (struct sockaddr *)&sin) < 0)
		goto out_release;
	info.loc_addr = ntohl(sin.sin_addr.s_addr);
	info.loc_port = ntohs(sin.sin_port);
	if (kernel_getpeername(sock, (struct sockaddr *)&sin) < 0)
		goto out_release;
	info.rem_addr = ntohl(sin.sin_addr.s_addr);
	info.rem_port = ntohs(sin.sin_port);
	cm_node = irdma_make_cm_node(listener->cm_core, listener->cm_id, &info);
	if (!cm_node) {
		pr_warn("%pI4h:%u: no node for the connection: refused\n",
			&info.rem_addr, info.rem_port);
		goto out_release;
	}
	cm_node->passive = true;
	refcount_inc(&listener->refcnt);
	cm_node->listener = listener;
	tcp_sock_set_nodelay(sock->sk);
	irdma_add_ref_cm_node(cm_node);	/* the socket work may end it at once */
	mutex_lock(&cm_node->lock);
	irdma_cm_node_attach_sock(cm_node, sock);
	cm_node->state = IRDMA_CM_STATE_ESTABLISHED;
	irdma_cm_queue_sock_work(cm_node);	/* the request may be in already */
	mutex_unlock(&cm_node->lock);
	irdma_rem_ref_cm_node(cm_node);
	return;

out_release:
	sock_no_linger(sock->sk);
	sock_release(sock);
}

static void irdma_cm_accept_work(struct work_struct *work)
{
	struct irdma_cm_listener *listener = container_of(work, struct irdma_cm_listener,
							  accept_work);
	struct socket *sock;

	while (!kernel_accept(listener->sock, &sock, O_NONBLOCK))
		irdma_cm_passive_node(listener, sock);
}

/**
 * irdma_cm_put_listener - drop a listener reference
 * @listener: the listener
 *
 * The last reference unlinks it, releases the upper layer's id, frees it.
 */
void irdma_cm_put_listener(struct irdma_cm_listener *listener)
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
}

/* Stop accepting; the first caller (destroy or cleanup) wins. */
static void irdma_cm_stop_listener(struct irdma_cm_listener *listener)
{
	struct irdma_cm_core *cm_core = listener->cm_core;
	bool was_listening;
	struct sock *sk;

	spin_lock(&cm_core->ht_lock);
	was_listening = listener->listening;
	listener->listening = false;
	spin_unlock(&cm_core->ht_lock);
	if (!was_listening)
		return;
	sk = listener->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = listener->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&listener->accept_work);
	sock_release(listener->sock);
	listener->cm_id->provider_data = NULL;	/* a later destroy: -EINVAL */
	pr_info("%pI4h:%u: no longer listening\n", &listener->loc_addr,
		listener->loc_port);
	irdma_cm_put_listener(listener);
}

/**
 * cmkit_irdma_create_listen - listen for iWARP connections
 * @cm_core: the core to listen on
 * @cm_id: the upper layer: m_local_addr (IPv4), event_handler, add_ref,
 *	rem_ref; it gets a CONNECT_REQUEST per MPA request received
 * @backlog: TCP listen backlog
 *
 * Return: 0 (cm_id->provider_data names the listener), or a negative errno.
 */
int cmkit_irdma_create_listen(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			int backlog)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&cm_id->m_local_addr;
	struct irdma_cm_listener *listener;
	struct sock *sk;
	int rc;

	if (cm_id->m_local_addr.ss_family != AF_INET)
		return -EAFNOSUPPORT;
	listener = kzalloc_obj(*listener, GFP_KERNEL);
	if (!listener)
		return -ENOMEM;
	listener->cm_core = cm_core;
	listener->cm_id = cm_id;
	refcount_set(&listener->refcnt, 1);
	listener->loc_addr = ntohl(sin->sin_addr.s_addr);
	listener->loc_port = ntohs(sin->sin_port);
	listener->backlog = backlog;
	INIT_WORK(&listener->accept_work, irdma_cm_accept_work);
	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &listener->sock);
	if (rc)
		goto out_free;
	sk = listener->sock->sk;
	sock_set_reuseaddr(sk);
	rc = kernel_bind(listener->sock, CMKIT_SA(sin), sizeof(*sin));
	if (!rc)
		rc = kernel_listen(listener->sock, backlog);
	if (rc)
		goto out_release;

	irdma_cm_hook(cm_core, IRDMA_HOOK_LISTEN_READY, listener);
	spin_lock(&cm_core->ht_lock);
	if (cm_core->dying) {
		spin_unlock(&cm_core->ht_lock);
		rc = -ENODEV;
		goto out_release;
	}
	listener->listening = true;
	list_add_tail(&listener->list, &cm_core->listeners);
	spin_unlock(&cm_core->ht_lock);
	irdma_cm_hook(cm_core, IRDMA_HOOK_LISTEN_PUBLISHED, cm_id);
	cm_id->add_ref(cm_id);
	cm_id->provider_data = listener;
	write_lock_bh(&sk->sk_callback_lock);
	listener->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = listener;
	sk->sk_data_ready = irdma_cm_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	queue_work(cm_core->sock_wq, &listener->accept_work);
	pr_info("%pI4h:%u: listening\n", &listener->loc_addr, listener->loc_port);
	return 0;

out_release:
	sock_release(listener->sock);
out_free:
	kfree(listener);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_create_listen);

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
			irdma_cm_abort_unindicated(found);
			irdma_rem_ref_cm_node(found);
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
 * Context: process context, not from an upcall (it flushes the event
 * workqueue).
 * Return: 0, or -EINVAL when @cm_id is not listening.
 */
int cmkit_irdma_destroy_listen(struct iw_cm_id *cm_id)
{
	struct irdma_cm_listener *listener = cm_id->provider_data;
	struct irdma_cm_core *cm_core;

	if (!listener)
		return -EINVAL;
	cm_core = listener->cm_core;
	cm_id->provider_data = NULL;
	refcount_inc(&listener->refcnt);	/* stopping drops the listen reference */
	irdma_cm_stop_listener(listener);
	irdma_cm_abort_hanging_nodes(listener);
	irdma_cm_put_listener(listener);
	/* An MPA_REQ already queued must not reach @cm_id after we return. */
	flush_workqueue(cm_core->event_wq);
	return 0;
}
CMKIT_EXPORT(cmkit_irdma_destroy_listen);

/**
 * irdma_cm_teardown_listeners - stop every listener of a core
 * @cm_core: a core that is going away
 */
void irdma_cm_teardown_listeners(struct irdma_cm_core *cm_core)
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
		irdma_cm_put_listener(listener);
	}
}
