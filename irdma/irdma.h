/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit irdma: an irdma-style iWARP connection manager in software.
 *
 * Upstream irdma runs TCP and MPA in the driver and hands each connection
 * event to the iWARP CM upper layer from a work item.  cmkit does the same
 * over kernel TCP sockets: a cm_node per connection, a listener per local
 * address and port, and irdma_cm_event_handler() on one ordered workqueue
 * per cm core delivering every upcall to the upper layer's iw_cm_id: one
 * work item per node, which drains that node's queued events in order, at
 * most cm_core->event_batch of them per run before the other nodes' turn.
 *
 * The upper layer is a struct iw_cm_id its consumer owns (event_handler,
 * context, add_ref/rem_ref, addresses): never one made by the kernel's
 * iw_cm, which BUG()s on events it does not expect.  There is no irdma
 * hardware, so no QP is bound: provider_data names the cm_node (after a
 * CONNECT_REQUEST, a connect and an accept alike) until the connection's
 * last upcall (CLOSE, a failed CONNECT_REPLY) or its answer (a reject, a
 * failed accept), and bytes the peer sends after the MPA exchange (its RDMA
 * traffic) are counted and dropped.  IPv4 and IPv6.
 *
 * The MPA exchange is RFC 5044's with RFC 6581's enhanced setup: IRD/ORD,
 * and the peer-to-peer model, whose ready-to-receive (RTR) message cmkit
 * builds and checks itself (include/cmkit/mpa.h and mpa_fpdu.h hold every
 * decision and every byte).  Each connection and listener has an offer
 * (struct cmkit_mpa_offer: revision, CRC, P2P and RTR types, revision 1
 * fallback, IRD strictness); what was negotiated is in cm_node->neg.  A
 * refusal that has a peer to tell is an MPA reject frame, with a reason
 * ("CMKR" and enum cmkit_mpa_reject_reason) when cmkit decided it.
 *
 * Private data: RFC 5044 allows 512 bytes in an MPA frame, siw sends and
 * takes at most 256 (RDMA_MAX_PRIVATE_DATA), and an iw_cm_event carries at
 * most 255 (its private_data_len is a u8).  cmkit keeps to the smallest, both
 * ways: it sends at most 255 bytes (a connect or accept asking for more fails
 * with -EINVAL), and a peer's request or reply (accepting or rejecting) with
 * more than 255 never reaches the upper layer cut: a request is refused with
 * an MPA reject (reason CMKIT_MPA_REJ_PDATA), a reply ends the connection.
 */
#ifndef CMKIT_IRDMA_CM_H
#define CMKIT_IRDMA_CM_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "core/cmkit.h"
#include <cmkit/mpa.h>

/* Private data an upcall carries whole; the most cmkit sends or takes. */
#define IRDMA_CM_MAX_PDATA	U8_MAX

/* What irdma's producers tell the event handler; values as upstream. */
enum irdma_cm_event_type {
	IRDMA_CM_EVENT_UNKNOWN,
	IRDMA_CM_EVENT_ESTABLISHED,	/* cmkit: a passive accept completed */
	IRDMA_CM_EVENT_MPA_REQ,
	IRDMA_CM_EVENT_MPA_CONNECT,	/* never produced */
	IRDMA_CM_EVENT_MPA_ACCEPT,	/* never produced */
	IRDMA_CM_EVENT_MPA_REJECT,
	IRDMA_CM_EVENT_MPA_ESTABLISHED,	/* never produced */
	IRDMA_CM_EVENT_CONNECTED,
	IRDMA_CM_EVENT_RESET,		/* cmkit: an established peer reset */
	IRDMA_CM_EVENT_ABORTED,
	IRDMA_CM_EVENT_DISCONN,		/* cmkit: an established connection closed */
};

/* The TCP/MPA side of a node (changed under cm_node->lock). */
enum irdma_cm_node_state {
	IRDMA_CM_STATE_UNKNOWN,
	IRDMA_CM_STATE_SYN_SENT,	/* active: TCP connect in progress */
	IRDMA_CM_STATE_ESTABLISHED,	/* passive: TCP up, awaiting the request */
	IRDMA_CM_STATE_MPAREQ_SENT,	/* active: awaiting the reply */
	IRDMA_CM_STATE_MPAREQ_RCVD,	/* passive: awaiting accept or reject */
	IRDMA_CM_STATE_MPAREJ_RCVD,	/* active: the peer rejected */
	IRDMA_CM_STATE_RTR_WAIT,	/* passive P2P: accepted, awaiting the RTR */
	IRDMA_CM_STATE_OFFLOADED,	/* MPA done: the connection is up */
	IRDMA_CM_STATE_FIN_WAIT1,	/* closed locally, awaiting the peer */
	IRDMA_CM_STATE_CLOSED,
};

/*
 * What the upper layer has been told (changed only by the event handler,
 * and by connect/accept before they post): this is what keeps iw_cm's rules
 * whatever the socket side does meanwhile.
 */
enum irdma_cm_ul_state {
	IRDMA_CM_UL_NONE,
	IRDMA_CM_UL_CONN_SENT,		/* active connect issued */
	IRDMA_CM_UL_REQ_INDICATED,	/* CONNECT_REQUEST delivered */
	IRDMA_CM_UL_ACCEPTED,		/* accept issued, ESTABLISHED queued */
	IRDMA_CM_UL_ESTABLISHED,	/* CONNECT_REPLY(0) or ESTABLISHED delivered */
	IRDMA_CM_UL_CLOSED,		/* last upcall delivered */
};

/* cm_node->flags bits */
enum {
	IRDMA_CM_NODE_BASE_PUT,		/* the connection's base reference is gone */
	IRDMA_CM_NODE_ID_HELD,		/* holds add_ref() on cm_id */
	IRDMA_CM_NODE_RRESP_DUE,	/* active P2P Read RTR: its Read Response is due */
	IRDMA_CM_NODE_PENDING,		/* passive: counted in its listener's backlog */
	IRDMA_CM_NODE_FALLBACK,		/* active: retried in revision 1 */
	IRDMA_CM_NODE_REAPED,		/* cleanup has aborted it */
	IRDMA_CM_NODE_SOCK_QUEUED,	/* sock_work queued, holding a reference */
	IRDMA_CM_NODE_UNLISTENED,	/* its listener's destroy has dealt with it */
	IRDMA_CM_NODE_ANSWERED,		/* a passive node's request got accept or reject */
	IRDMA_CM_NODE_INDICATING,	/* its CONNECT_REQUEST upcall is running */
	IRDMA_CM_NODE_DEFERRED,		/* its request came before its listener was up */
};

/**
 * enum irdma_fault - steps of a connect, a listen and an accept that can be
 * made to fail (cmkit_irdma_fault_points: cmkit/irdma/fail_steps, cmkit_fault_arm())
 * @IRDMA_FAULT_EVENT_WQ: the core's event workqueue (-ENOMEM)
 * @IRDMA_FAULT_SOCK_WQ: the core's socket workqueue (-ENOMEM)
 * @IRDMA_FAULT_NODE_ALLOC: a connection's node (-ENOMEM)
 * @IRDMA_FAULT_EVENT_ALLOC: an event for the handler (-ENOMEM; an event that
 *	ends a connection falls back on the node's spare)
 * @IRDMA_FAULT_LISTENER_ALLOC: a listener (-ENOMEM)
 * @IRDMA_FAULT_SOCK_CREATE: a TCP socket, to connect or to listen (-ENOMEM)
 * @IRDMA_FAULT_BIND: binding it (-EADDRINUSE)
 * @IRDMA_FAULT_CONNECT: the TCP connect (-ENETUNREACH)
 * @IRDMA_FAULT_LISTEN: the listen (-EADDRINUSE)
 * @IRDMA_FAULT_ACCEPT: taking a connection off the listener (-ENOMEM: the
 *	connection is reset)
 * @IRDMA_FAULT_MPA_ALLOC: the buffer of an MPA request, reply or reject
 *	(-ENOMEM)
 * @IRDMA_FAULT_SENDMSG: sending it (-EAGAIN)
 * @IRDMA_FAULT_NR: number of steps
 */
enum irdma_fault {
	IRDMA_FAULT_EVENT_WQ,
	IRDMA_FAULT_SOCK_WQ,
	IRDMA_FAULT_NODE_ALLOC,
	IRDMA_FAULT_EVENT_ALLOC,
	IRDMA_FAULT_LISTENER_ALLOC,
	IRDMA_FAULT_SOCK_CREATE,
	IRDMA_FAULT_BIND,
	IRDMA_FAULT_CONNECT,
	IRDMA_FAULT_LISTEN,
	IRDMA_FAULT_ACCEPT,
	IRDMA_FAULT_MPA_ALLOC,
	IRDMA_FAULT_SENDMSG,
	IRDMA_FAULT_NR,
};

/*
 * Points where a test may stop the core to pin the order of a race (KUnit
 * only: irdma_cm_core->test_hook; compiled out without CONFIG_KUNIT).
 */
enum irdma_cm_hook {
	IRDMA_HOOK_CONNECT_NODE_MADE,	/* connect: node made, no socket yet */
	IRDMA_HOOK_CONNECT_ISSUED,	/* connect: TCP connect issued, node unlocked */
	IRDMA_HOOK_LISTEN_READY,	/* create_listen: socket listening, not published */
	IRDMA_HOOK_LISTEN_HOOKED,	/* create_listen: accepting, not yet published */
	IRDMA_HOOK_LISTEN_PUBLISHED,	/* create_listen: published */
	IRDMA_HOOK_NODE_UNLISTED,	/* last reference gone, node not yet destroyed */
	IRDMA_HOOK_CLEANUP_WAITS,	/* cleanup must wait for live objects */
	IRDMA_HOOK_LAST_UPCALL,		/* the handler is about to make a last upcall */
	IRDMA_HOOK_API_NODE_HELD,	/* close/accept/reject hold the node, unlocked */
	IRDMA_HOOK_ACCEPTED,		/* accept: reply sent, node unlocked, returning */
	IRDMA_HOOK_EVENT,		/* the handler is about to handle an event (arg) */
};

/* Events one run of a node's event work handles before other nodes' turn. */
#define IRDMA_CM_EVENT_BATCH	64

/*
 * Bytes one run of a node's socket work reads after the MPA exchange (and
 * drops: no data path) before it queues itself again: a peer that streams
 * holds cm_node->lock for no longer than this, however fast it sends.
 */
#define IRDMA_CM_RX_BUDGET	(16 * 1024)

/* Connections one run of a listener's accept work takes before it requeues. */
#define IRDMA_CM_ACCEPT_BATCH	16

/* The consumer API calls, as traced (cmkit_irdma_api). */
enum cmkit_irdma_api_op {
	CMKIT_IRDMA_API_CONNECT,
	CMKIT_IRDMA_API_ACCEPT,
	CMKIT_IRDMA_API_REJECT,
	CMKIT_IRDMA_API_CLOSE,
	CMKIT_IRDMA_API_RESET,
};

struct dentry;
struct irdma_cm_core;
struct irdma_cm_listener;
struct socket;

/**
 * struct irdma_cm_info - what a new node starts with
 * @cm_id: the upper layer's id
 * @loc: local address and port (AF_INET or AF_INET6)
 * @rem: remote address and port
 */
struct irdma_cm_info {
	struct iw_cm_id *cm_id;
	struct sockaddr_storage loc;
	struct sockaddr_storage rem;
};

/**
 * struct cmkit_irdma_mpa_info - what a connection's MPA exchange settled
 * @rev: MPA revision (1 or 2)
 * @enhanced: RFC 6581 IRD/ORD were exchanged
 * @crc: FPDUs carry a CRC
 * @p2p: peer-to-peer: an RTR message was exchanged
 * @rtr: its type (one CMKIT_MPA_RTR_* bit), when @p2p
 * @fallback: the initiator retried in revision 1
 * @ird: IRD of the connection
 * @ord: ORD of the connection
 */
struct cmkit_irdma_mpa_info {
	u8 rev;
	bool enhanced;
	bool crc;
	bool p2p;
	u8 rtr;
	bool fallback;
	u16 ird;
	u16 ord;
};

/**
 * struct irdma_cm_node - one connection
 * @list: in cm_core->nodes, under cm_core->ht_lock
 * @id: number of the node in its core, for log lines and traces
 * @cm_core: the core it belongs to
 * @listener: a passive node's listener (a listener reference is held)
 * @cm_id: the upper layer: the listener's id until accept, then the
 *	child's (passive), or the connecting id (active)
 * @refcnt: the base reference, one while events are queued (@ev_queued),
 *	one for a queued socket work, one per caller in flight
 * @flags: IRDMA_CM_NODE_* bits
 * @lock: serialises the socket side: @state, @sock, receive, accept, close
 * @state: TCP/MPA state
 * @ul_state: what the upper layer has been told
 * @passive: made by a listener
 * @loc: local address and port
 * @rem: remote address and port
 * @offer: what this side offers (the listener's, or the connect's)
 * @neg: what was decided: passive, at the request (then at the accept);
 *	active, at the reply
 * @req: passive: the request, its private data in @pdata_buf
 * @mpa_rev: MPA revision of the exchange (1 or 2)
 * @ird_size: IRD: requested by the peer (passive, until accept), then
 *	negotiated
 * @ord_size: ORD, likewise
 * @pdata_len: length of @pdata_buf
 * @pdata_buf: the peer's private data (request, accept or reject)
 * @conn_pdata_len: active: length of @conn_pdata
 * @conn_pdata: active: the private data of our request (kept for a retry)
 * @sock: the TCP socket, NULL once released
 * @saved_data_ready: the socket's callbacks before cmkit took it over
 * @saved_state_change: likewise
 * @sock_work: receives and reacts in process context (cm_core->sock_wq)
 * @rx_len: bytes of the MPA frame received so far
 * @rx_buf: the MPA frame being received
 * @rx_dropped: bytes received after the MPA exchange (no data path)
 * @err: why an active connection failed: its CONNECT_REPLY's status
 * @est_event: passive P2P, accepted: the ESTABLISHED its RTR will post
 * @mpa_timer: the MPA request, reply or RTR timer, or an orderly close's
 *	(cm_core->sock_wq)
 * @timer_due: jiffies the armed timer expires at, 0 when none is armed
 * @ev_lock: protects @ev_seq, @ev_list and @ev_queued
 * @ev_seq: sequence number of the next posted event
 * @ev_list: posted events not yet taken by the handler, oldest first
 * @ev_queued: @event_work is queued or running and will look at @ev_list
 *	again; it holds one node reference meanwhile
 * @event_work: runs irdma_cm_event_handler() on cm_core->event_wq
 * @ev_handled: sequence number the handler expects next
 * @spare_event: lets the one event that ends a connection be posted
 *	when memory is short
 */
struct irdma_cm_node {
	struct list_head list;
	u32 id;
	struct irdma_cm_core *cm_core;
	struct irdma_cm_listener *listener;
	struct iw_cm_id *cm_id;
	refcount_t refcnt;
	unsigned long flags;
	struct mutex lock;		/* the socket side */
	enum irdma_cm_node_state state;
	enum irdma_cm_ul_state ul_state;
	bool passive;
	struct sockaddr_storage loc;
	struct sockaddr_storage rem;
	struct cmkit_mpa_offer offer;
	struct cmkit_mpa_result neg;
	struct cmkit_mpa_frame req;
	u8 mpa_rev;
	u16 ird_size;
	u16 ord_size;
	u16 pdata_len;
	u8 pdata_buf[CMKIT_MPA_MAX_PD_LEN];
	u8 conn_pdata_len;
	u8 conn_pdata[IRDMA_CM_MAX_PDATA];
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct work_struct sock_work;
	size_t rx_len;
	u8 rx_buf[CMKIT_MPA_MAX_FRAME];
	u64 rx_dropped;
	int err;
	struct irdma_cm_event *est_event;
	struct delayed_work mpa_timer;
	unsigned long timer_due;
	spinlock_t ev_lock;		/* @ev_seq, @ev_list, @ev_queued */
	u32 ev_seq;
	struct list_head ev_list;
	bool ev_queued;
	struct work_struct event_work;
	u32 ev_handled;
	struct irdma_cm_event *spare_event;
};

/**
 * struct irdma_cm_event - one event on its way to the upper layer
 * @type: what happened
 * @list: in its node's @ev_list until the handler takes it
 * @cm_node: the node (kept alive by the node's queued event work)
 * @seq: per-node sequence number, checked by the handler
 */
struct irdma_cm_event {
	enum irdma_cm_event_type type;
	struct list_head list;
	struct irdma_cm_node *cm_node;
	u32 seq;
};

/**
 * struct irdma_cm_listener - a listening address and port
 * @list: in cm_core->listeners once published, under cm_core->ht_lock
 * @cm_core: the core it belongs to
 * @cm_id: the upper layer's listening id (an add_ref() is held)
 * @refcnt: the listen reference plus one per passive node
 * @listening: set when published, cleared when stopped, under
 *	cm_core->ht_lock
 * @stopped: set when stopped (or never published), under cm_core->ht_lock:
 *	a request that finds neither this nor @listening came while the
 *	listener was coming up, and waits for it (IRDMA_CM_NODE_DEFERRED)
 * @indicating: CONNECT_REQUESTs being delivered on @cm_id (taken under
 *	cm_core->ht_lock while @listening); a destroy waits for none
 * @loc: local address and port
 * @offer: what the listener offers each request (struct cmkit_mpa_offer)
 * @backlog: the listen backlog, and the most requests pending at once
 * @pending: passive nodes not yet answered (accept or reject) nor ended
 * @sock: the listening socket
 * @saved_data_ready: its callback before cmkit took it over
 * @accept_work: accepts new TCP connections in process context
 */
struct irdma_cm_listener {
	struct list_head list;
	struct irdma_cm_core *cm_core;
	struct iw_cm_id *cm_id;
	refcount_t refcnt;
	bool listening;
	bool stopped;
	atomic_t indicating;
	struct sockaddr_storage loc;
	struct cmkit_mpa_offer offer;
	int backlog;
	atomic_t pending;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	struct work_struct accept_work;
};

/**
 * struct irdma_cm_stats - what a core has done, for tests and debugging
 * @nodes_made: nodes made
 * @nodes_freed: nodes freed
 * @events_posted: events queued
 * @events_handled: events the handler finished
 * @events_misordered: events handled out of their node's posting order
 * @event_runs: runs of the nodes' event work (events_handled / event_runs:
 *	the mean batch)
 * @upcalls: calls into the upper layer
 * @aborts: connections aborted (bad frames, peer gone, teardown)
 * @rx_held: socket work runs that read nothing because a request awaits
 *	its answer (TCP's window stops the peer meanwhile)
 * @rx_yields: socket work runs that stopped at IRDMA_CM_RX_BUDGET and
 *	queued themselves again
 * @accept_yields: accept work runs that stopped at IRDMA_CM_ACCEPT_BATCH
 *	and queued themselves again
 * @requests_deferred: requests that came while their listener was coming
 *	up, handled once it was up (or refused, when it never was)
 */
struct irdma_cm_stats {
	atomic_t nodes_made;
	atomic_t nodes_freed;
	atomic_t events_posted;
	atomic_t events_handled;
	atomic_t events_misordered;
	atomic_t event_runs;
	atomic_t upcalls;
	atomic_t aborts;
	atomic_t rx_held;
	atomic_t rx_yields;
	atomic_t accept_yields;
	atomic_t requests_deferred;
};

/**
 * struct irdma_cm_core - the connection manager of one (virtual) device
 * @event_wq: ordered: every upcall, one at a time; a node's in posting order
 * @event_batch: events one run of a node's event work handles at most
 *	before it queues itself behind the other nodes' (IRDMA_CM_EVENT_BATCH)
 * @sock_wq: socket work of the nodes and listeners
 * @ht_lock: protects @nodes, @listeners, @dying and each listener's
 *	listening flag (lookups under it take node references only with
 *	refcount_inc_not_zero())
 * @nodes: every live node (from its making to its last reference)
 * @listeners: every published listener not yet freed
 * @dying: cmkit_irdma_cleanup_cm_core() has begun; nothing new is made
 * @live: nodes and listeners being made or alive: counted from their
 *	allocation to the end of their destruction, so cleanup waits for all
 *	of them (an empty list is not enough: a node off it is still being
 *	destroyed, a listener not on it yet is being made)
 * @mpa_version: MPA revision of new active connections (1 or 2)
 * @mpa_req_timeout: ms a passive connection may take to send its MPA
 *	request, and (P2P) its RTR after our reply
 * @mpa_rep_timeout: ms an active connection waits for the MPA reply
 * @close_timeout: ms an orderly close waits for the peer's FIN, then resets
 * @keepalive_idle: seconds of idleness before TCP keepalive probes an
 *	established connection (0: no keepalive)
 * @wait: woken when a node is made, and when a node or listener is freed
 * @stats: counters
 * @test_hook: KUnit only: called at each enum irdma_cm_hook point
 * @test_data: KUnit only: for @test_hook
 */
struct irdma_cm_core {
	struct workqueue_struct *event_wq;
	unsigned int event_batch;
	struct workqueue_struct *sock_wq;
	spinlock_t ht_lock;		/* lists, @dying, listening */
	struct list_head nodes;
	struct list_head listeners;
	bool dying;
	atomic_t live;
	u8 mpa_version;
	unsigned int mpa_req_timeout;
	unsigned int mpa_rep_timeout;
	unsigned int close_timeout;
	unsigned int keepalive_idle;
	wait_queue_head_t wait;
	struct irdma_cm_stats stats;
#if IS_ENABLED(CONFIG_KUNIT)
	void (*test_hook)(struct irdma_cm_core *cm_core, enum irdma_cm_hook where,
			  void *arg);
	void *test_data;
#endif
};

/* The length of a socket address of AF_INET or AF_INET6. */
static inline int irdma_sa_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

/* A socket address (or none) into a trace entry's array, for %pISpc. */
static inline void irdma_sa_trace(u8 *dst, const struct sockaddr_storage *sa)
{
	memset(dst, 0, sizeof(struct sockaddr_in6));
	if (sa)
		memcpy(dst, sa, irdma_sa_len(sa));
}

/* Let a test stop here (KUnit only). */
static inline void irdma_cm_hook(struct irdma_cm_core *cm_core,
				 enum irdma_cm_hook where, void *arg)
{
#if IS_ENABLED(CONFIG_KUNIT)
	void (*hook)(struct irdma_cm_core *, enum irdma_cm_hook, void *);

	hook = READ_ONCE(cm_core->test_hook);
	if (unlikely(hook))
		hook(cm_core, where, arg);
#endif
}

extern struct cmkit_fault cmkit_irdma_fault_points;
extern spinlock_t cmkit_irdma_cm_id_lock;

/* irdma_cm.c: core, nodes, events, upcalls */
/**
 * irdma_fault - should this step fail now?
 * @step: the step about to run
 *
 * Armed from cmkit/irdma/fail_steps or by a test (cmkit_fault_arm()).
 *
 * Return: true if the caller must fail the step as its real failure would.
 */
static inline bool irdma_fault(enum irdma_fault step)
{
	return cmkit_should_fail(&cmkit_irdma_fault_points, step);
}

void cmkit_irdma_cm_core_put(struct irdma_cm_core *cm_core);
struct irdma_cm_node *cmkit_irdma_cm_current_node(void);
struct irdma_cm_node *cmkit_irdma_cm_id_get_node(struct iw_cm_id *cm_id);
void cmkit_irdma_cm_id_publish(struct iw_cm_id *cm_id, void *obj);
void cmkit_irdma_cm_id_clear(struct iw_cm_id *cm_id, void *obj);
int cmkit_irdma_setup_cm_core(struct irdma_cm_core *cm_core);
void cmkit_irdma_cleanup_cm_core(struct irdma_cm_core *cm_core);
struct irdma_cm_core *cmkit_irdma_cm_core(void);
struct irdma_cm_node *cmkit_irdma_make_cm_node(struct irdma_cm_core *cm_core,
					       struct iw_cm_id *cm_id,
					 const struct irdma_cm_info *info);
void cmkit_irdma_add_ref_cm_node(struct irdma_cm_node *cm_node);
void cmkit_irdma_rem_ref_cm_node(struct irdma_cm_node *cm_node);
void cmkit_irdma_cm_node_put_base(struct irdma_cm_node *cm_node);
struct irdma_cm_event *cmkit_irdma_cm_alloc_event(void);
void cmkit_irdma_cm_queue_event(struct irdma_cm_node *cm_node, struct irdma_cm_event *event,
				enum irdma_cm_event_type type);
struct irdma_cm_event *cmkit_irdma_create_event(struct irdma_cm_node *cm_node,
						enum irdma_cm_event_type type);
void cmkit_irdma_cm_post_event(struct irdma_cm_event *event);
void irdma_cm_event_handler(struct work_struct *work);
int cmkit_irdma_send_cm_event(struct irdma_cm_node *cm_node, struct iw_cm_id *cm_id,
			      enum iw_cm_event_type type, int status);
const char *cmkit_irdma_cm_event_name(enum irdma_cm_event_type type);
const char *cmkit_irdma_iw_event_name(enum iw_cm_event_type type);

void cmkit_irdma_cm_default_offer(const struct irdma_cm_core *cm_core, bool passive,
				  struct cmkit_mpa_offer *offer);

/* irdma_listen.c: listeners */
int cmkit_irdma_create_listen(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			      int backlog);
int cmkit_irdma_create_listen_mpa(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
				  int backlog, const struct cmkit_mpa_offer *offer);
int cmkit_irdma_destroy_listen(struct iw_cm_id *cm_id);
void cmkit_irdma_cm_put_listener(struct irdma_cm_listener *listener);
void cmkit_irdma_cm_teardown_listeners(struct irdma_cm_core *cm_core);

/* irdma_conn.c: a connection's socket, MPA, and the consumer API */
int cmkit_irdma_connect(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			struct iw_cm_conn_param *conn_param);
int cmkit_irdma_connect_mpa(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			    struct iw_cm_conn_param *conn_param,
			    const struct cmkit_mpa_offer *offer);
int cmkit_irdma_mpa_info(struct iw_cm_id *cm_id, struct cmkit_irdma_mpa_info *info);
int cmkit_irdma_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *conn_param);
int cmkit_irdma_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int cmkit_irdma_cm_close(struct iw_cm_id *cm_id, bool abrupt);
int cmkit_irdma_cm_sock_create(int family, struct socket **sock);
int cmkit_irdma_cm_sock_bind(struct socket *sock, struct sockaddr_storage *ss);
void cmkit_irdma_cm_node_unpend(struct irdma_cm_node *cm_node);
void cmkit_irdma_cm_timer_start(struct irdma_cm_node *cm_node, unsigned int ms);
void cmkit_irdma_cm_mpa_timeout(struct work_struct *work);
void cmkit_irdma_cm_node_attach_sock(struct irdma_cm_node *cm_node,
				     struct socket *sock);
void cmkit_irdma_cm_queue_sock_work(struct irdma_cm_node *cm_node);
void cmkit_irdma_cm_node_release_sock(struct irdma_cm_node *cm_node);
void cmkit_irdma_cm_node_abort(struct irdma_cm_node *cm_node);
void cmkit_irdma_cm_abort_unindicated(struct irdma_cm_node *cm_node);
void cmkit_irdma_cm_node_reject(struct irdma_cm_node *cm_node, const void *pdata,
				u8 pdata_len);

#endif /* CMKIT_IRDMA_CM_H */
