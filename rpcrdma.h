/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit rpcrdma: an RPC-over-RDMA client connection endpoint on rdma_cm,
 * without the RPC layer above it.  The names and the reference-counting
 * rules follow net/sunrpc/xprtrdma; the handler implements the fixed
 * upstream behaviour (6.12.118 and later) on every kernel, and handles
 * device removal in the CM handler in every phase.
 */
#ifndef CMKIT_RPCRDMA_H
#define CMKIT_RPCRDMA_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>

#include "cmkit/rpcrdma_cmp.h"

/* How long address and route resolution may take (upstream's value). */
#define RPCRDMA_RESOLVE_TIMEOUT		5000	/* ms */
/*
 * How long an ep the transport let go of waits for the DISCONNECTED that
 * drops its ESTABLISHED reference before it ends the connection itself.
 */
#define RPCRDMA_LINGER_TIMEOUT		(10 * HZ)
/* How long a connect waits for its answer (upstream: the RPC connect timeout). */
#define RPCRDMA_CONNECT_TIMEOUT		(60 * HZ)
#define RPCRDMA_RECV_BATCH		4

/* Inline thresholds a transport may ask for (linux/sunrpc/xprtrdma.h). */
#define RPCRDMA_MIN_INLINE		1024U
#define RPCRDMA_DEF_INLINE		4096U
#define RPCRDMA_MAX_INLINE		65536U

/* ep->re_flags */
enum {
	RPCRDMA_EP_ESTABLISHED,	/* holds the ESTABLISHED reference */
};

/**
 * enum rpcrdma_fault - steps of a connect that can be made to fail
 * (rpcrdma_fault_points: cmkit/rpcrdma/fail_steps, cmkit_fault_arm())
 * @RPCRDMA_FAULT_EP_ALLOC: the ep's allocation (-ENOMEM)
 * @RPCRDMA_FAULT_ID_CREATE: rdma_create_id() (-ENOMEM)
 * @RPCRDMA_FAULT_RESOLVE_ADDR: rdma_resolve_addr() (-ENODEV)
 * @RPCRDMA_FAULT_RESOLVE_ROUTE: rdma_resolve_route() (-ENOMEM)
 * @RPCRDMA_FAULT_PD_ALLOC: ib_alloc_pd() (-ENOMEM)
 * @RPCRDMA_FAULT_CQ_ALLOC: ib_alloc_cq_any() (-ENOMEM)
 * @RPCRDMA_FAULT_QP_CREATE: rdma_create_qp() (-ENOMEM)
 * @RPCRDMA_FAULT_RECV_ALLOC: a receive buffer's allocation (-ENOMEM)
 * @RPCRDMA_FAULT_RECV_MAP: a receive buffer's DMA mapping (-EIO)
 * @RPCRDMA_FAULT_POST_RECV: ib_post_recv() (-ENOMEM)
 * @RPCRDMA_FAULT_CONNECT: rdma_connect() (-ENOMEM)
 * @RPCRDMA_FAULT_NR: number of steps
 */
enum rpcrdma_fault {
	RPCRDMA_FAULT_EP_ALLOC,
	RPCRDMA_FAULT_ID_CREATE,
	RPCRDMA_FAULT_RESOLVE_ADDR,
	RPCRDMA_FAULT_RESOLVE_ROUTE,
	RPCRDMA_FAULT_PD_ALLOC,
	RPCRDMA_FAULT_CQ_ALLOC,
	RPCRDMA_FAULT_QP_CREATE,
	RPCRDMA_FAULT_RECV_ALLOC,
	RPCRDMA_FAULT_RECV_MAP,
	RPCRDMA_FAULT_POST_RECV,
	RPCRDMA_FAULT_CONNECT,
	RPCRDMA_FAULT_NR,
};

struct cmkit_fault;
extern struct cmkit_fault rpcrdma_fault_points;
extern const char * const rpcrdma_fault_steps[RPCRDMA_FAULT_NR];

struct rpcrdma_xprt;

/**
 * struct rpcrdma_rep - a posted Receive
 * @rr_cqe: completion entry
 * @rr_ep: the endpoint the Receive belongs to
 * @rr_buf: the receive buffer
 * @rr_addr: its DMA address
 * @rr_len: its length
 */
struct rpcrdma_rep {
	struct ib_cqe rr_cqe;
	struct rpcrdma_ep *rr_ep;
	void *rr_buf;
	u64 rr_addr;
	u32 rr_len;
};

/**
 * struct rpcrdma_ep - one connection attempt: its id, QP and state
 * @re_kref: lifetime; the last put frees the ep (see rpcrdma_ep_put())
 * @re_id: the rdma_cm id; set before any event can need it
 * @re_xid: the owning transport's number, for traces
 * @re_xprt: the transport that owns this ep; NULL once it let go (the ep
 *	may outlive it until DISCONNECTED)
 * @re_done: completes address and route resolution
 * @re_async_rc: result of the last resolution step (-ETIMEDOUT until an event)
 * @re_gen: which of its transport's eps this is (1, 2, ...)
 * @re_flags: RPCRDMA_EP_* bits
 * @re_connect_status: 0 connecting, 1 connected, or a negative errno;
 *	1 is stored with release semantics after the inline sizes, so a reader
 *	that loads it with acquire semantics sees the negotiated sizes
 * @re_connect_wait: woken when @re_connect_status leaves 0
 * @re_force_disconnect: one-shot gate: the transport is asked to close once
 * @re_inline_send: negotiated inline send size, bytes
 * @re_inline_recv: negotiated inline receive size, bytes
 * @re_peer_cmp: the peer sent a valid RFC 8797 private message
 * @re_receives_posted: Receives were posted (the drain drops their reference)
 * @re_pd: protection domain
 * @re_cq: completion queue for both Sends and Receives
 * @re_remote_cma: connection parameters for rdma_connect()
 * @re_cm_private: our RFC 8797 private message
 * @re_reps: the Receives
 * @re_linger: ends the connection if no DISCONNECTED came
 *	RPCRDMA_LINGER_TIMEOUT after the transport let go (a DREQ that could
 *	not be sent); holds an ep reference while queued
 */
struct rpcrdma_ep {
	struct kref re_kref;
	struct rdma_cm_id *re_id;
	u32 re_xid;
	struct rpcrdma_xprt *re_xprt;
	struct completion re_done;
	int re_async_rc;
	u32 re_gen;
	unsigned long re_flags;
	int re_connect_status;
	wait_queue_head_t re_connect_wait;
	atomic_t re_force_disconnect;
	u32 re_inline_send;
	u32 re_inline_recv;
	bool re_peer_cmp;
	bool re_receives_posted;
	struct ib_pd *re_pd;
	struct ib_cq *re_cq;
	struct rdma_conn_param re_remote_cma;
	u8 re_cm_private[CMKIT_RPCRDMA_CMP_LEN];
	struct rpcrdma_rep re_reps[RPCRDMA_RECV_BATCH];
	struct delayed_work re_linger;
};

/**
 * rpcrdma_ep_status - an ep's connect status, as a waiter or a reader sees it
 * @ep: the endpoint
 *
 * Return: @ep->re_connect_status; if 1, the negotiated sizes are final.
 */
static inline int rpcrdma_ep_status(struct rpcrdma_ep *ep)
{
	/* Pairs with the release in ESTABLISHED: sizes are stored before 1. */
	return smp_load_acquire(&ep->re_connect_status);
}

/**
 * struct rpcrdma_xprt_ops - what the owner of a transport hears about
 * @cm_event: called by the CM handler on entry to every event, with the id's
 *	handler mutex held; may sleep.  Optional.
 * @force_work: called by the force-disconnect work when it starts, before it
 *	takes the transport's lock; may sleep (tests hold the work here).
 *	Optional.
 */
struct rpcrdma_xprt_ops {
	void (*cm_event)(struct rpcrdma_xprt *r_xprt, struct rdma_cm_id *id,
			 const struct rdma_cm_event *event);
	void (*force_work)(struct rpcrdma_xprt *r_xprt);
};

/**
 * struct rpcrdma_xprt - the stand-in for an RPC transport
 * @rx_ep: the current endpoint, or NULL
 * @rx_xid: a number naming the transport in traces
 * @rx_lock: serialises connect and disconnect (upstream: the send lock)
 * @rx_force_work: the force-disconnect action: disconnects the transport
 *	if its ep is still the one that asked
 * @rx_force_count: how many times the action was requested
 * @rx_gen: generation of the last ep created (under @rx_lock)
 * @rx_force_gen: generation of the ep the force-disconnect was asked for
 * @rx_connect_timeout: how long a connect waits for its answer, jiffies
 * @rx_dst: the server's address
 * @rx_inline_send: inline send size we ask for, bytes
 * @rx_inline_recv: inline receive size we ask for, bytes
 * @rx_ops: optional observer
 * @rx_private: owner's data
 */
struct rpcrdma_xprt {
	struct rpcrdma_ep *rx_ep;
	u32 rx_xid;
	struct mutex rx_lock;		/* connect vs. disconnect */
	struct work_struct rx_force_work;
	atomic_t rx_force_count;
	u32 rx_gen;
	u32 rx_force_gen;
	unsigned long rx_connect_timeout;
	struct sockaddr_storage rx_dst;
	u32 rx_inline_send;
	u32 rx_inline_recv;
	const struct rpcrdma_xprt_ops *rx_ops;
	void *rx_private;
};

/**
 * struct rpcrdma_stats - object counts since load, for tests and debugfs
 * @eps_created: endpoints allocated
 * @eps_freed: endpoints freed by their last put
 * @ids_created: rdma_cm ids created
 * @ids_destroyed: ids cmkit destroyed with rdma_destroy_id()
 * @ids_returned: ids handed back to rdma_cm by the handler returning 1
 * @force_disconnects: force-disconnect actions requested
 * @connects: connects that succeeded
 * @connects_failed: connects that failed
 * @events: CM events the handler saw, by type
 */
struct rpcrdma_stats {
	atomic_t eps_created;
	atomic_t eps_freed;
	atomic_t ids_created;
	atomic_t ids_destroyed;
	atomic_t ids_returned;
	atomic_t force_disconnects;
	atomic_t connects;
	atomic_t connects_failed;
	atomic_t events[24];
};

extern struct rpcrdma_stats rpcrdma_stats;

int rpcrdma_cm_event_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);

struct rpcrdma_xprt *cmkit_rpcrdma_xprt_create(const struct sockaddr *dst, u32 inline_send,
					 u32 inline_recv);
void cmkit_rpcrdma_xprt_destroy(struct rpcrdma_xprt *r_xprt);
int rpcrdma_ep_create(struct rpcrdma_xprt *r_xprt);
int cmkit_rpcrdma_xprt_connect(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_xprt_disconnect(struct rpcrdma_xprt *r_xprt);
void rpcrdma_flush_disconnect(struct rpcrdma_xprt *r_xprt, struct ib_wc *wc);
unsigned int rpcrdma_module_refs(void);

/* The control plane (rpcrdma_ctl.c), as its KUnit cases reach it. */
struct seq_file;
int rpcrdma_ctl_exec(const char *cmd);
#if IS_ENABLED(CONFIG_KUNIT)
int rpcrdma_xprts_show(struct seq_file *m, void *v);	/* static without KUnit */
#endif

#endif /* CMKIT_RPCRDMA_H */
