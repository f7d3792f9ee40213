// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit irdma: the cm core, its nodes, and the events that carry what the
 * socket side learnt to the upper layer.
 *
 * Every event is made in process context (the socket side works from a
 * workqueue, the consumer API is called from process context) and put on
 * its node's event list; the node's one event work, queued on the core's
 * ordered event workqueue while the list is not empty (and holding one node
 * reference meanwhile), runs irdma_cm_event_handler(), which turns each
 * event into zero, one or two upcalls and frees it, whatever its type.  A
 * run takes at most cm_core->event_batch events, oldest first, then queues
 * the work again behind the other nodes' if more are left: a node's events
 * reach the upper layer in posting order, a busy node cannot hold the
 * others back for more than a batch, and the workqueue's cost is paid once
 * per batch rather than once per event.  Which upcalls are
 * legal depends only on what the upper layer has been told so far
 * (cm_node->ul_state, written by the handler alone), so iw_cm's rules hold
 * whatever the socket does meanwhile: one CONNECT_REPLY per connect,
 * ESTABLISHED only after an accept, DISCONNECT then CLOSE, once, and
 * nothing after CLOSE.
 *
 * cm_id->provider_data names a connection's node from a connect (or, set by
 * the consumer, from a CONNECT_REQUEST) until its last upcall or answer,
 * and is read and cleared only under cmkit_irdma_cm_id_lock: the consumer API
 * takes its node reference there, so a close racing the last upcall either
 * holds the node or finds the id empty (-EINVAL), never a freed node.
 */
#define pr_fmt(fmt) "cmkit: irdma: " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "core/cmkit.h"
#include "irdma/irdma.h"

#define CREATE_TRACE_POINTS
#include "irdma/trace.h"

/* Lets a test see whether cmkit_irdma's events are being traced. */
EXPORT_TRACEPOINT_SYMBOL_GPL(cmkit_irdma_create_event);

static struct irdma_cm_core cmkit_irdma_core;

/* The MPA timers, in seconds, as siw's (MPAREQ_TIMEOUT, MPAREP_TIMEOUT). */
static unsigned int irdma_mpa_request_timeout = 10;
module_param(irdma_mpa_request_timeout, uint, 0444);
MODULE_PARM_DESC(irdma_mpa_request_timeout,
		 "irdma: seconds a passive connection may take to send its MPA request, and its RTR after the reply (1..3600, default 10)");
static unsigned int irdma_mpa_reply_timeout = 5;
module_param(irdma_mpa_reply_timeout, uint, 0444);
MODULE_PARM_DESC(irdma_mpa_reply_timeout,
		 "irdma: seconds a connect waits for the MPA reply (1..3600, default 5)");
/*
 * irdma gives a peer IRDMA_MAX_TIMEOUT (12 s) for what it waits for in the
 * connection's life; an orderly close waits for the peer's FIN as long.
 */
static unsigned int irdma_close_timeout = 12;
module_param(irdma_close_timeout, uint, 0444);
MODULE_PARM_DESC(irdma_close_timeout,
		 "irdma: seconds an orderly close waits for the peer's FIN before it resets (1..3600, default 12)");
static unsigned int irdma_keepalive_idle = 60;
module_param(irdma_keepalive_idle, uint, 0444);
MODULE_PARM_DESC(irdma_keepalive_idle,
		 "irdma: idle seconds before TCP keepalive probes an established connection (0: off, default 60)");

/* Orders the consumer API's reads of cm_id->provider_data with its clearing. */
DEFINE_SPINLOCK(cmkit_irdma_cm_id_lock);

/**
 * cmkit_irdma_cm_id_get_node - the node a consumer's id names, with a reference
 * @cm_id: an id given to the consumer API
 *
 * Return: the node, referenced, or NULL when the id names none (its
 * connection ended, or it never had one).
 */
struct irdma_cm_node *cmkit_irdma_cm_id_get_node(struct iw_cm_id *cm_id)
{
	struct irdma_cm_node *cm_node;

	spin_lock(&cmkit_irdma_cm_id_lock);
	cm_node = cm_id->provider_data;
	if (cm_node && !refcount_inc_not_zero(&cm_node->refcnt))
		cm_node = NULL;
	spin_unlock(&cmkit_irdma_cm_id_lock);
	return cm_node;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_id_get_node);

/**
 * cmkit_irdma_cm_id_publish - have an id name a node or listener
 * @cm_id: the id
 * @obj: the node or listener
 */
void cmkit_irdma_cm_id_publish(struct iw_cm_id *cm_id, void *obj)
{
	spin_lock(&cmkit_irdma_cm_id_lock);
	cm_id->provider_data = obj;
	spin_unlock(&cmkit_irdma_cm_id_lock);
}

/**
 * cmkit_irdma_cm_id_clear - have an id name nothing, if it still names @obj
 * @cm_id: the id
 * @obj: the node or listener it may name
 */
void cmkit_irdma_cm_id_clear(struct iw_cm_id *cm_id, void *obj)
{
	spin_lock(&cmkit_irdma_cm_id_lock);
	if (cm_id->provider_data == obj)
		cm_id->provider_data = NULL;
	spin_unlock(&cmkit_irdma_cm_id_lock);
}

/**
 * cmkit_irdma_cm_current_node - the node whose event work the caller runs in
 *
 * For the consumer API calls that wait for what an event work does: made
 * from an upcall, they would wait for themselves.
 *
 * Return: the node (its event work holds it), or NULL when the caller is
 * not running an irdma event work.
 */
struct irdma_cm_node *cmkit_irdma_cm_current_node(void)
{
	struct work_struct *work = current_work();

	if (!work || work->func != irdma_cm_event_handler)
		return NULL;
	return container_of(work, struct irdma_cm_node, event_work);
}

/**
 * cmkit_irdma_cm_core_put - a node or listener of a core is gone
 * @cm_core: the core; not touched after the last one (cleanup may return)
 */
void cmkit_irdma_cm_core_put(struct irdma_cm_core *cm_core)
{
	if (atomic_dec_and_test(&cm_core->live))
		wake_up_var(&cm_core->live);
}

/**
 * cmkit_irdma_cm_core - the core of cmkit's one virtual irdma device
 *
 * Return: the core set up at module load.
 */
struct irdma_cm_core *cmkit_irdma_cm_core(void)
{
	return &cmkit_irdma_core;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_cm_core, CMKIT_NS);

/**
 * cmkit_irdma_cm_event_name - the name of an irdma event type
 * @type: the type
 *
 * Return: a static string, "unknown" for values outside the enum.
 */
const char *cmkit_irdma_cm_event_name(enum irdma_cm_event_type type)
{
	static const char * const names[] = {
		[IRDMA_CM_EVENT_UNKNOWN] = "UNKNOWN",
		[IRDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
		[IRDMA_CM_EVENT_MPA_REQ] = "MPA_REQ",
		[IRDMA_CM_EVENT_MPA_CONNECT] = "MPA_CONNECT",
		[IRDMA_CM_EVENT_MPA_ACCEPT] = "MPA_ACCEPT",
		[IRDMA_CM_EVENT_MPA_REJECT] = "MPA_REJECT",
		[IRDMA_CM_EVENT_MPA_ESTABLISHED] = "MPA_ESTABLISHED",
		[IRDMA_CM_EVENT_CONNECTED] = "CONNECTED",
		[IRDMA_CM_EVENT_RESET] = "RESET",
		[IRDMA_CM_EVENT_ABORTED] = "ABORTED",
		[IRDMA_CM_EVENT_DISCONN] = "DISCONN",
	};

	if ((unsigned int)type < ARRAY_SIZE(names))
		return names[type];
	return "unknown";
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_event_name);

/**
 * cmkit_irdma_iw_event_name - the name of an iw_cm upcall type
 * @type: the type
 *
 * Return: a static string, "unknown" for values outside the enum.
 */
const char *cmkit_irdma_iw_event_name(enum iw_cm_event_type type)
{
	switch (type) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		return "CONNECT_REQUEST";
	case IW_CM_EVENT_CONNECT_REPLY:
		return "CONNECT_REPLY";
	case IW_CM_EVENT_ESTABLISHED:
		return "ESTABLISHED";
	case IW_CM_EVENT_DISCONNECT:
		return "DISCONNECT";
	case IW_CM_EVENT_CLOSE:
		return "CLOSE";
	}
	return "unknown";
}

/**
 * cmkit_irdma_setup_cm_core - bring up a cm core
 * @cm_core: zeroed or previously cleaned-up core
 *
 * Return: 0, or -ENOMEM when a workqueue cannot be made.
 */
int cmkit_irdma_setup_cm_core(struct irdma_cm_core *cm_core)
{
	memset(cm_core, 0, sizeof(*cm_core));
	spin_lock_init(&cm_core->ht_lock);
	INIT_LIST_HEAD(&cm_core->nodes);
	INIT_LIST_HEAD(&cm_core->listeners);
	init_waitqueue_head(&cm_core->wait);
	cm_core->mpa_version = CMKIT_MPA_REV2;
	cm_core->event_batch = IRDMA_CM_EVENT_BATCH;
	cm_core->mpa_req_timeout = clamp(irdma_mpa_request_timeout, 1U, 3600U) * MSEC_PER_SEC;
	cm_core->mpa_rep_timeout = clamp(irdma_mpa_reply_timeout, 1U, 3600U) * MSEC_PER_SEC;
	cm_core->close_timeout = clamp(irdma_close_timeout, 1U, 3600U) * MSEC_PER_SEC;
	cm_core->keepalive_idle = min_t(unsigned int, irdma_keepalive_idle, MAX_TCP_KEEPIDLE);
	if (!irdma_fault(IRDMA_FAULT_EVENT_WQ))
		cm_core->event_wq = alloc_ordered_workqueue("cmkit-iwarp-event-wq", 0);
	if (!cm_core->event_wq)
		return -ENOMEM;
	if (!irdma_fault(IRDMA_FAULT_SOCK_WQ))
		cm_core->sock_wq = alloc_workqueue("cmkit-iwarp-sock-wq", WQ_UNBOUND, 0);
	if (!cm_core->sock_wq) {
		destroy_workqueue(cm_core->event_wq);
		cm_core->event_wq = NULL;
		return -ENOMEM;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_setup_cm_core);

/**
 * cmkit_irdma_cm_default_offer - what a core offers when the consumer says nothing
 * @cm_core: the core
 * @passive: for a listener (else for a connect)
 * @offer: filled in
 *
 * A connect asks for @cm_core->mpa_version, enhanced in revision 2, with
 * neither CRC nor P2P nor a revision 1 fallback: what siw takes, and what
 * cmkit always asked for.  A listener speaks revisions 1 and 2, takes CRC
 * when asked, and grants P2P to an initiator that asks for it with any RTR
 * type (Write, then Read, then Send) while connecting without it too, with
 * IRD negotiation relaxed: siw (which never asks for P2P), irdma and cxgb4
 * (which always do) all connect.  IRD and ORD are not specified (0x3fff):
 * the consumer's accept or connect sets them.
 */
void cmkit_irdma_cm_default_offer(const struct irdma_cm_core *cm_core, bool passive,
				  struct cmkit_mpa_offer *offer)
{
	memset(offer, 0, sizeof(*offer));
	offer->rev = passive ? CMKIT_MPA_REV2 : cm_core->mpa_version;
	offer->ird = CMKIT_MPA_V2_NO_IRD_ORD;
	offer->ord = CMKIT_MPA_V2_NO_IRD_ORD;
	if (passive) {
		offer->p2p = CMKIT_MPA_P2P_ON;
		offer->rtr = CMKIT_MPA_RTR_ALL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_default_offer);

/* Take a reference on the next node cleanup has not aborted yet. */
static struct irdma_cm_node *irdma_cm_next_unreaped(struct irdma_cm_core *cm_core)
{
	struct irdma_cm_node *cm_node, *found = NULL;

	spin_lock(&cm_core->ht_lock);
	list_for_each_entry(cm_node, &cm_core->nodes, list) {
		if (test_and_set_bit(IRDMA_CM_NODE_REAPED, &cm_node->flags))
			continue;
		if (refcount_inc_not_zero(&cm_node->refcnt)) {
			found = cm_node;
			break;
		}
	}
	spin_unlock(&cm_core->ht_lock);
	return found;
}

/**
 * cmkit_irdma_cleanup_cm_core - tear down every listener and connection of a core
 * @cm_core: a core set up by cmkit_irdma_setup_cm_core()
 *
 * Listeners stop; every live connection is reset and its upper layer gets
 * its last upcall (CONNECT_REPLY(-ECONNRESET) for a connect still waiting,
 * DISCONNECT(-ECONNRESET) and CLOSE for an established one); the upcalls
 * are delivered before this returns, and every node and listener is freed,
 * including one still being made (its connect or listen then fails with
 * -ENODEV) and one whose last reference is being dropped meanwhile.  A
 * CONNECT_REQUEST must have been answered (accept or reject) first: the node
 * of an unanswered one lives until then, and this waits for it; after
 * CMKIT_TEARDOWN_WAIT a live object is reported as a leak ("cmkit: LEAK:").
 *
 * Context: process context, not from an upcall of @cm_core; sleeps.
 */
void cmkit_irdma_cleanup_cm_core(struct irdma_cm_core *cm_core)
{
	struct irdma_cm_node *cm_node = cmkit_irdma_cm_current_node();

	/* It waits for every event work of the core, and destroys their queue. */
	WARN_ONCE(cm_node && cm_node->cm_core == cm_core,
		  "cmkit: irdma: core cleanup called from an upcall of node %u\n", cm_node->id);
	spin_lock(&cm_core->ht_lock);
	cm_core->dying = true;
	spin_unlock(&cm_core->ht_lock);

	cmkit_irdma_cm_teardown_listeners(cm_core);
	while ((cm_node = irdma_cm_next_unreaped(cm_core))) {
		cmkit_irdma_cm_node_abort(cm_node);
		cmkit_irdma_rem_ref_cm_node(cm_node);
	}
	/*
	 * Events still queued, socket work, a consumer's call in progress, an
	 * object being made or destroyed: each holds what it works on, so
	 * once none is live, no work can be queued any more.
	 */
	if (atomic_read(&cm_core->live))
		irdma_cm_hook(cm_core, IRDMA_HOOK_CLEANUP_WAITS, NULL);
	cmkit_wait_released(&cm_core->live, !atomic_read(&cm_core->live),
			    "irdma: %d connections and listeners still alive at cleanup (%d nodes made, %d freed)\n",
			    atomic_read(&cm_core->live),
			    atomic_read(&cm_core->stats.nodes_made),
			    atomic_read(&cm_core->stats.nodes_freed));
	destroy_workqueue(cm_core->sock_wq);
	destroy_workqueue(cm_core->event_wq);
	cm_core->sock_wq = NULL;
	cm_core->event_wq = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cleanup_cm_core);

/**
 * cmkit_irdma_make_cm_node - make a connection's node
 * @cm_core: its core
 * @cm_id: the upper layer to deliver to (may be NULL until known)
 * @info: local and remote address and port
 *
 * The node starts with its base reference, which the connection's end
 * drops (cmkit_irdma_cm_node_put_base()).  No reference on @cm_id is taken here.
 *
 * Context: process context.
 * Return: the node, or ERR_PTR(-ENOMEM) when memory is short, or
 * ERR_PTR(-ENODEV) when @cm_core is going away.
 */
struct irdma_cm_node *cmkit_irdma_make_cm_node(struct irdma_cm_core *cm_core,
					       struct iw_cm_id *cm_id,
					 const struct irdma_cm_info *info)
{
	struct irdma_cm_node *cm_node;

	if (irdma_fault(IRDMA_FAULT_NODE_ALLOC))
		return ERR_PTR(-ENOMEM);
	cm_node = kzalloc_obj(*cm_node, GFP_KERNEL);
	if (!cm_node)
		return ERR_PTR(-ENOMEM);
	cm_node->spare_event = kzalloc_obj(*cm_node->spare_event, GFP_KERNEL);
	if (!cm_node->spare_event) {
		kfree(cm_node);
		return ERR_PTR(-ENOMEM);
	}
	cm_node->cm_core = cm_core;
	cm_node->cm_id = cm_id;
	refcount_set(&cm_node->refcnt, 1);
	mutex_init(&cm_node->lock);
	spin_lock_init(&cm_node->ev_lock);
	INIT_LIST_HEAD(&cm_node->ev_list);
	INIT_WORK(&cm_node->event_work, irdma_cm_event_handler);
	INIT_DELAYED_WORK(&cm_node->mpa_timer, cmkit_irdma_cm_mpa_timeout);
	cm_node->loc = info->loc;
	cm_node->rem = info->rem;
	cm_node->mpa_rev = cm_core->mpa_version;
	cmkit_irdma_cm_default_offer(cm_core, false, &cm_node->offer);

	spin_lock(&cm_core->ht_lock);
	if (cm_core->dying) {
		spin_unlock(&cm_core->ht_lock);
		kfree(cm_node->spare_event);
		kfree(cm_node);
		return ERR_PTR(-ENODEV);
	}
	list_add_tail(&cm_node->list, &cm_core->nodes);
	atomic_inc(&cm_core->live);
	spin_unlock(&cm_core->ht_lock);
	cm_node->id = atomic_inc_return(&cm_core->stats.nodes_made);
	wake_up_all(&cm_core->wait);	/* for tests that wait for a peer's node */
	return cm_node;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_make_cm_node);

/**
 * cmkit_irdma_add_ref_cm_node - take a reference on a node
 * @cm_node: a node the caller already holds a reference on
 */
void cmkit_irdma_add_ref_cm_node(struct irdma_cm_node *cm_node)
{
	refcount_inc(&cm_node->refcnt);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_add_ref_cm_node);

static void irdma_destroy_connection(struct irdma_cm_node *cm_node)
{
	struct irdma_cm_core *cm_core = cm_node->cm_core;

	cmkit_irdma_cm_node_release_sock(cm_node);
	cmkit_irdma_cm_node_unpend(cm_node);
	if (test_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags))
		cm_node->cm_id->rem_ref(cm_node->cm_id);
	if (cm_node->listener)
		cmkit_irdma_cm_put_listener(cm_node->listener);
	kfree(cm_node->spare_event);
	kfree(cm_node->est_event);
	mutex_destroy(&cm_node->lock);
	kfree(cm_node);
	atomic_inc(&cm_core->stats.nodes_freed);
	wake_up_all(&cm_core->wait);
	cmkit_irdma_cm_core_put(cm_core);	/* last: cleanup may return now */
}

/**
 * cmkit_irdma_rem_ref_cm_node - drop a reference on a node
 * @cm_node: the node
 *
 * The last reference unlinks the node, releases its socket, its hold on
 * the upper layer's id and on its listener, and frees it.
 *
 * Context: process context (the last put may sleep).
 */
void cmkit_irdma_rem_ref_cm_node(struct irdma_cm_node *cm_node)
{
	struct irdma_cm_core *cm_core = cm_node->cm_core;

	/* Lookups under ht_lock take references with refcount_inc_not_zero(). */
	if (!refcount_dec_and_test(&cm_node->refcnt))
		return;
	spin_lock(&cm_core->ht_lock);
	list_del(&cm_node->list);
	spin_unlock(&cm_core->ht_lock);
	irdma_cm_hook(cm_core, IRDMA_HOOK_NODE_UNLISTED, cm_node);
	irdma_destroy_connection(cm_node);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_rem_ref_cm_node);

/**
 * cmkit_irdma_cm_node_put_base - drop the connection's base reference, once
 * @cm_node: the node; the caller holds another reference or this may free
 *
 * Calls after the first do nothing, so each path that ends a connection
 * may call it without counting who else did.
 */
void cmkit_irdma_cm_node_put_base(struct irdma_cm_node *cm_node)
{
	if (!test_and_set_bit(IRDMA_CM_NODE_BASE_PUT, &cm_node->flags))
		cmkit_irdma_rem_ref_cm_node(cm_node);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_node_put_base);

static bool irdma_cm_event_ends_connection(enum irdma_cm_event_type type)
{
	return type == IRDMA_CM_EVENT_MPA_REJECT || type == IRDMA_CM_EVENT_ABORTED ||
	       type == IRDMA_CM_EVENT_RESET || type == IRDMA_CM_EVENT_DISCONN;
}

/**
 * cmkit_irdma_cm_alloc_event - allocate an event, to queue later
 *
 * For a caller that must know it can post an event before it acts (an
 * accept allocates its ESTABLISHED before its reply goes out).
 *
 * Context: process context.
 * Return: the event, or NULL.
 */
struct irdma_cm_event *cmkit_irdma_cm_alloc_event(void)
{
	struct irdma_cm_event *event;

	might_sleep();
	if (irdma_fault(IRDMA_FAULT_EVENT_ALLOC))
		return NULL;
	return kzalloc_obj(*event, GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_alloc_event);

/**
 * cmkit_irdma_create_event - make an event for a node and post it
 * @cm_node: the node, which must have an upper layer (cm_id)
 * @type: what happened
 *
 * Unlike upstream (GFP_ATOMIC, silently dropped on failure) this allocates
 * where sleeping is allowed, and an event that ends a connection falls back
 * on the node's spare, so a connection's end is never lost.
 *
 * Context: process context.
 * Return: the posted event, or NULL when it could not be made (nothing was
 * posted; the caller decides).
 */
struct irdma_cm_event *cmkit_irdma_create_event(struct irdma_cm_node *cm_node,
						enum irdma_cm_event_type type)
{
	struct irdma_cm_event *event;

	if (!cm_node->cm_id)
		return NULL;
	event = cmkit_irdma_cm_alloc_event();
	if (!event && irdma_cm_event_ends_connection(type))
		event = xchg(&cm_node->spare_event, NULL);
	if (!event) {
		pr_warn_ratelimited("no memory for a %s event of %pISpc\n",
				    cmkit_irdma_cm_event_name(type), &cm_node->rem);
		return NULL;
	}
	cmkit_irdma_cm_queue_event(cm_node, event, type);
	return event;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_create_event);

/**
 * cmkit_irdma_cm_queue_event - fill an allocated event and post it
 * @cm_node: the node, which must have an upper layer (cm_id)
 * @event: from cmkit_irdma_cm_alloc_event(); the handler frees it
 * @type: what happened
 */
void cmkit_irdma_cm_queue_event(struct irdma_cm_node *cm_node, struct irdma_cm_event *event,
				enum irdma_cm_event_type type)
{
	event->type = type;
	event->cm_node = cm_node;
	cmkit_irdma_cm_post_event(event);
}

/**
 * cmkit_irdma_cm_post_event - queue an event for the handler
 * @event: a filled event; the handler frees it
 *
 * The event goes at the tail of its node's list, with its sequence number,
 * under the node's event lock.  When the node's event work is not queued
 * already it is queued now, with a node reference of its own: the caller
 * holds one, the work's keeps the node alive until the list is empty.
 */
void cmkit_irdma_cm_post_event(struct irdma_cm_event *event)
{
	struct irdma_cm_node *cm_node = event->cm_node;
	struct irdma_cm_core *cm_core = cm_node->cm_core;

	spin_lock(&cm_node->ev_lock);
	event->seq = cm_node->ev_seq++;
	trace_cmkit_irdma_create_event(cm_node, event->type, event->seq);
	atomic_inc(&cm_core->stats.events_posted);
	list_add_tail(&event->list, &cm_node->ev_list);
	if (!cm_node->ev_queued) {
		cm_node->ev_queued = true;
		refcount_inc(&cm_node->refcnt);
		queue_work(cm_core->event_wq, &cm_node->event_work);
	}
	spin_unlock(&cm_node->ev_lock);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_post_event);

/**
 * cmkit_irdma_send_cm_event - make one upcall to the upper layer
 * @cm_node: the connection
 * @cm_id: the upper layer's id
 * @type: the iw_cm event
 * @status: its status
 *
 * Fills struct iw_cm_event as upstream: CONNECT_REQUEST carries the
 * node's addresses, provider_data naming the node, the peer's private data,
 * and the initiator's IRD and ORD (as siw's); CONNECT_REPLY carries the
 * connection's addresses (after a revision 1 fallback, the second socket's
 * local port), the peer's private data, IRD and ORD; ESTABLISHED carries
 * IRD and ORD; DISCONNECT and CLOSE nothing else.
 *
 * Return: the upper layer's answer, or -EINVAL for other types (no upcall).
 */
int cmkit_irdma_send_cm_event(struct irdma_cm_node *cm_node, struct iw_cm_id *cm_id,
			      enum iw_cm_event_type type, int status)
{
	struct iw_cm_event event = {
		.event = type,
		.status = status,
	};

	switch (type) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		event.local_addr = cm_node->loc;
		event.remote_addr = cm_node->rem;
		event.provider_data = cm_node;
		event.private_data = cm_node->pdata_buf;
		event.private_data_len = (u8)min_t(u16, cm_node->pdata_len, U8_MAX);
		event.ird = (u8)min_t(u16, cm_node->ird_size, U8_MAX);
		event.ord = (u8)min_t(u16, cm_node->ord_size, U8_MAX);
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		/* The node's: a fallback's second socket has a port of its own. */
		event.local_addr = cm_node->loc;
		event.remote_addr = cm_node->rem;
		/* The peer's reply or reject; a failed connect has none. */
		if (status && status != -ECONNREFUSED)
			break;
		event.private_data = cm_node->pdata_buf;
		event.private_data_len = (u8)min_t(u16, cm_node->pdata_len, U8_MAX);
		event.ird = (u8)min_t(u16, cm_node->ird_size, U8_MAX);
		event.ord = (u8)min_t(u16, cm_node->ord_size, U8_MAX);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		event.ird = (u8)min_t(u16, cm_node->ird_size, U8_MAX);
		event.ord = (u8)min_t(u16, cm_node->ord_size, U8_MAX);
		break;
	case IW_CM_EVENT_DISCONNECT:
	case IW_CM_EVENT_CLOSE:
		break;
	default:
		return -EINVAL;
	}
	trace_cmkit_irdma_send_cm_event(cm_node, type, status);
	atomic_inc(&cm_node->cm_core->stats.upcalls);
	return cm_id->event_handler(cm_id, &event);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_send_cm_event);

/*
 * The connection is over: tell the upper layer what its state calls for,
 * and drop the base reference.  Before the last upcall the id stops naming
 * the node, so a consumer call racing it finds no node (-EINVAL) or holds
 * its own reference.
 */
static void irdma_cm_event_closed(struct irdma_cm_node *cm_node,
				  int reply_status, int disconn_status)
{
	struct iw_cm_id *cm_id = cm_node->cm_id;

	switch (cm_node->ul_state) {
	case IRDMA_CM_UL_CONN_SENT:
		cm_node->ul_state = IRDMA_CM_UL_CLOSED;
		cmkit_irdma_cm_id_clear(cm_id, cm_node);
		irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_LAST_UPCALL, cm_node);
		cmkit_irdma_send_cm_event(cm_node, cm_id, IW_CM_EVENT_CONNECT_REPLY,
					  reply_status);
		break;
	case IRDMA_CM_UL_ACCEPTED:
		/*
		 * An accepted P2P connection whose RTR never came (or came
		 * wrong): iw_cm has it in CONN_RECV, where CLOSE is a BUG(),
		 * so it hears ESTABLISHED before its end, as from irdma's
		 * first generation, which indicates ESTABLISHED at the accept.
		 */
		cmkit_irdma_send_cm_event(cm_node, cm_id, IW_CM_EVENT_ESTABLISHED, 0);
		fallthrough;
	case IRDMA_CM_UL_ESTABLISHED:
		cm_node->ul_state = IRDMA_CM_UL_CLOSED;
		cmkit_irdma_send_cm_event(cm_node, cm_id, IW_CM_EVENT_DISCONNECT,
					  disconn_status);
		cmkit_irdma_cm_id_clear(cm_id, cm_node);
		irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_LAST_UPCALL, cm_node);
		cmkit_irdma_send_cm_event(cm_node, cm_id, IW_CM_EVENT_CLOSE, 0);
		break;
	case IRDMA_CM_UL_CLOSED:
		/* An end after the last upcall: nothing more to say. */
		break;
	default:
		/* No producer ends a connection its upper layer was not told of. */
		WARN_ONCE(1, "cmkit: irdma: end of node %u in upper-layer state %d\n",
			  cm_node->id, cm_node->ul_state);
		if (cm_node->ul_state == IRDMA_CM_UL_REQ_INDICATED)
			return;	/* the consumer's answer holds the node */
		cm_node->ul_state = IRDMA_CM_UL_CLOSED;
		break;
	}
	cmkit_irdma_cm_node_put_base(cm_node);
}

/*
 * A request for the upper layer.  As iw_cm's contract has it, a non-zero
 * answer does not consume the request: the consumer still answers it, with
 * a reject (iw_cm's cm_conn_req_handler() calls iw_cm_reject() on the child),
 * so the node waits for that answer and the peer gets an MPA reject.
 */
static void irdma_cm_event_mpa_req(struct irdma_cm_node *cm_node)
{
	struct irdma_cm_listener *listener = cm_node->listener;
	struct irdma_cm_core *cm_core = cm_node->cm_core;
	bool listening = true;
	int rc;

	if (cm_node->ul_state != IRDMA_CM_UL_NONE)
		return;
	if (listener) {
		spin_lock(&cm_core->ht_lock);
		listening = listener->listening;
		if (listening)
			atomic_inc(&listener->indicating);
		else if (!listener->stopped)
			set_bit(IRDMA_CM_NODE_DEFERRED, &cm_node->flags);
		spin_unlock(&cm_core->ht_lock);
	}
	if (test_bit(IRDMA_CM_NODE_DEFERRED, &cm_node->flags)) {
		/* Its listener is coming up: it posts the request again once up. */
		trace_cmkit_irdma_indicate(cm_node, -EAGAIN);
		atomic_inc(&cm_core->stats.requests_deferred);
		wake_up_all(&cm_core->wait);
		return;
	}
	if (!listening) {
		/* Its listener is being destroyed: refuse, as iw_cm does. */
		trace_cmkit_irdma_indicate(cm_node, -ENOENT);
		cm_node->ul_state = IRDMA_CM_UL_CLOSED;
		set_bit(IRDMA_CM_NODE_ANSWERED, &cm_node->flags);
		cmkit_irdma_cm_node_reject(cm_node, NULL, 0);
		cmkit_irdma_cm_node_put_base(cm_node);
		return;
	}
	cm_node->ul_state = IRDMA_CM_UL_REQ_INDICATED;
	set_bit(IRDMA_CM_NODE_INDICATING, &cm_node->flags);
	rc = cmkit_irdma_send_cm_event(cm_node, cm_node->cm_id,
				       IW_CM_EVENT_CONNECT_REQUEST, 0);
	clear_bit(IRDMA_CM_NODE_INDICATING, &cm_node->flags);
	trace_cmkit_irdma_indicate(cm_node, rc);
	if (listener && atomic_dec_and_test(&listener->indicating))
		wake_up_var(&listener->indicating);
}

static void irdma_cm_check_order(struct irdma_cm_node *cm_node,
				 struct irdma_cm_event *event)
{
	if (event->seq != cm_node->ev_handled) {
		atomic_inc(&cm_node->cm_core->stats.events_misordered);
		pr_warn_ratelimited("event %u of node %u handled when %u was due\n",
				    event->seq, cm_node->id, cm_node->ev_handled);
	}
	cm_node->ev_handled = event->seq + 1;
}

static void irdma_cm_handle_event(struct irdma_cm_node *cm_node,
				  struct irdma_cm_event *event)
{
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_EVENT, event);
	irdma_cm_check_order(cm_node, event);
	trace_cmkit_irdma_handle_event(cm_node, event->type, event->seq,
				       cm_node->ul_state);
	switch (event->type) {
	case IRDMA_CM_EVENT_MPA_REQ:
		irdma_cm_event_mpa_req(cm_node);
		break;
	case IRDMA_CM_EVENT_CONNECTED:
		if (cm_node->ul_state == IRDMA_CM_UL_CONN_SENT) {
			cm_node->ul_state = IRDMA_CM_UL_ESTABLISHED;
			cmkit_irdma_send_cm_event(cm_node, cm_node->cm_id,
						  IW_CM_EVENT_CONNECT_REPLY, 0);
		}
		break;
	case IRDMA_CM_EVENT_ESTABLISHED:
		if (cm_node->ul_state == IRDMA_CM_UL_ACCEPTED) {
			cm_node->ul_state = IRDMA_CM_UL_ESTABLISHED;
			cmkit_irdma_send_cm_event(cm_node, cm_node->cm_id,
						  IW_CM_EVENT_ESTABLISHED, 0);
		}
		break;
	case IRDMA_CM_EVENT_MPA_REJECT:
		irdma_cm_event_closed(cm_node, -ECONNREFUSED, -ECONNRESET);
		break;
	case IRDMA_CM_EVENT_ABORTED:
		irdma_cm_event_closed(cm_node, cm_node->err ?: -ECONNRESET, -ECONNRESET);
		break;
	case IRDMA_CM_EVENT_RESET:
		irdma_cm_event_closed(cm_node, -ECONNRESET, -ECONNRESET);
		break;
	case IRDMA_CM_EVENT_DISCONN:
		irdma_cm_event_closed(cm_node, -ECONNRESET, 0);
		break;
	default:
		/* Traced above; upstream logs "bad event type" at debug level. */
		break;
	}
	atomic_inc(&cm_node->cm_core->stats.events_handled);
	kfree(event);
}

/**
 * irdma_cm_event_handler - send event to cm upper layer
 * @work: a node's event work, on the core's ordered event workqueue
 *
 * Handles the node's queued events in posting order, at most
 * cm_core->event_batch of them, then queues the work again if more are
 * left (behind other nodes' work), else drops the work's node reference.
 * Per event:
 * MPA_REQ: CONNECT_REQUEST on the listener's id.  CONNECTED: CONNECT_REPLY(0)
 * with the peer's private data and IRD/ORD.  MPA_REJECT:
 * CONNECT_REPLY(-ECONNREFUSED).  ABORTED: CONNECT_REPLY with the cause
 * (-ETIMEDOUT when TCP gave up on the SYN, -ECONNREFUSED when the peer
 * refused it, -ECONNRESET otherwise), or for an established connection
 * DISCONNECT(-ECONNRESET) and CLOSE.  ESTABLISHED
 * (an accept): ESTABLISHED.  RESET: DISCONNECT(-ECONNRESET) then CLOSE.
 * DISCONN: DISCONNECT(0) then CLOSE.  Each only when the upper layer's state
 * allows it; an upcall that ends the connection also drops its base
 * reference.  Unknown types are traced.  Every event, whatever its type,
 * is freed.
 *
 * Context: process context, no locks held; the upper layer may sleep.
 */
void irdma_cm_event_handler(struct work_struct *work)
{
	struct irdma_cm_node *cm_node = container_of(work, struct irdma_cm_node,
						     event_work);
	struct irdma_cm_core *cm_core = cm_node->cm_core;
	struct irdma_cm_event *event, *next;
	unsigned int n = 0;
	LIST_HEAD(batch);
	bool more;

	atomic_inc(&cm_core->stats.event_runs);
	spin_lock(&cm_node->ev_lock);
	list_for_each_entry_safe(event, next, &cm_node->ev_list, list) {
		if (n++ == max(cm_core->event_batch, 1U))
			break;
		list_move_tail(&event->list, &batch);
	}
	spin_unlock(&cm_node->ev_lock);

	/* The work's reference holds the node, whatever the events drop. */
	list_for_each_entry_safe(event, next, &batch, list)
		irdma_cm_handle_event(cm_node, event);

	spin_lock(&cm_node->ev_lock);
	more = !list_empty(&cm_node->ev_list);
	if (more)
		queue_work(cm_core->event_wq, &cm_node->event_work);
	else
		cm_node->ev_queued = false;
	spin_unlock(&cm_node->ev_lock);
	if (!more)
		cmkit_irdma_rem_ref_cm_node(cm_node);
}
EXPORT_SYMBOL_NS_GPL(irdma_cm_event_handler, CMKIT_NS);

/**
 * cmkit_irdma_init - set up the core of cmkit's virtual irdma device
 *
 * Return: 0 on success, or a negative errno.
 */
int cmkit_irdma_init(void)
{
	return cmkit_irdma_setup_cm_core(&cmkit_irdma_core);
}

/**
 * cmkit_irdma_exit - tear down every irdma listener and connection still alive
 */
void cmkit_irdma_exit(void)
{
	cmkit_irdma_cleanup_cm_core(&cmkit_irdma_core);
}
