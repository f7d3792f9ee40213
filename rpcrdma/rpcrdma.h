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
#include <linux/dma-direction.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <cmkit/nfs4.h>
#include <cmkit/rpcrdma_chunk.h>
#include <cmkit/rpcrdma_cmp.h>
#include <cmkit/rpcrdma_msg.h>

/* How long address and route resolution may take (upstream's value). */
#define RPCRDMA_RESOLVE_TIMEOUT		5000	/* ms */
/*
 * How long an ep the transport let go of waits for the DISCONNECTED that
 * drops its ESTABLISHED reference before it ends the connection itself.
 */
#define RPCRDMA_LINGER_TIMEOUT		(10 * HZ)
/* How long a connect waits for its answer (upstream: the RPC connect timeout). */
#define RPCRDMA_CONNECT_TIMEOUT		(60 * HZ)
/*
 * How long a call may wait, for a credit and a buffer and then for its
 * reply (upstream: NFS over RDMA's default timeo, 60 s).  A call that times
 * out closes the connection, as upstream's xprt_rdma_timer() does.
 */
#define RPCRDMA_CALL_TIMEOUT		(60 * HZ)
/*
 * Reconnect backoff (xprtrdma's xprt_rdma.h): a connection lost with calls
 * waiting is re-established at once, then after RPCRDMA_INIT_REEST_TO,
 * doubling up to RPCRDMA_MAX_REEST_TO between failed attempts; the first
 * reply on a new connection resets it (rpc_rdma.c's reestablish_timeout = 0).
 */
#define RPCRDMA_INIT_REEST_TO		(5U * HZ)
#define RPCRDMA_MAX_REEST_TO		(30U * HZ)
/*
 * The credits a transport asks for in every call, its receive ring
 * (upstream: sunrpc.rdma_slot_table_entries, 128 by default; cmkit asks for
 * 32, which also bounds the memory of the control plane's 64 transports),
 * lowered when the device's queues are shorter.
 */
#define RPCRDMA_MAX_REQUESTS		32U
/*
 * Receives posted beyond the grant, as xprtrdma's: replies the server
 * still owes to calls abandoned on a fatal signal (their credits are back)
 * find a Receive instead of meeting RNR, and Receives are replenished
 * once the posted ones fall to the grant, up to this many beyond it.
 */
#define RPCRDMA_MAX_RECV_BATCH		7U
/*
 * Backchannel requests cmkit serves: none (no NFSv4.1 callback service).
 * Upstream's receive target is the grant plus twice this allowance.
 */
#define RPCRDMA_BC_MAX_REQUESTS		0U

/* The pages one MR maps at most (xprtrdma's RPCRDMA_MAX_DATA_SEGS): 1 MiB. */
#define RPCRDMA_MAX_DATA_SEGS		256U
/*
 * Send queue entries one call may take, as xprtrdma's frwr_query_device()
 * counts them: its Send, and a registration and an invalidation for each
 * of the three chunk lists.
 */
#define RPCRDMA_SEND_WRS_PER_CALL	7U
/* MRs made at a time (at connect, and when the pool runs dry), and at most. */
#define RPCRDMA_MR_BATCH		8U
#define RPCRDMA_MAX_MRS			32U

/* Inline thresholds a transport may ask for (linux/sunrpc/xprtrdma.h). */
#define RPCRDMA_MIN_INLINE		1024U
#define RPCRDMA_DEF_INLINE		4096U
#define RPCRDMA_MAX_INLINE		65536U

/* ep->re_flags */
enum {
	RPCRDMA_EP_ESTABLISHED,	/* holds the ESTABLISHED reference */
};

/**
 * enum rpcrdma_fault - steps of a connect or a call that can be made to fail
 * (cmkit_rpcrdma_fault_points: cmkit/rpcrdma/fail_steps, cmkit_fault_arm())
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
 * @RPCRDMA_FAULT_BUFFER_CREATE: a req of the transport's buffer pool, when
 *	the transport is created (cmkit_rpcrdma_xprt_create() returns NULL)
 * @RPCRDMA_FAULT_REGBUF_MAP: the DMA mapping of a req's send buffer when a
 *	connection is set up (the connect fails with -ENOTCONN)
 * @RPCRDMA_FAULT_SENDCTX: the send-context ring of a connection (the
 *	connect fails with -ENOTCONN)
 * @RPCRDMA_FAULT_POST_SEND: ib_post_send() of a call (-ENOTCONN; the
 *	connection is closed)
 * @RPCRDMA_FAULT_MR_ALLOC: ib_alloc_mr() (no MR: at connect, the connect
 *	fails with -ENOTCONN when none could be made)
 * @RPCRDMA_FAULT_MR_MAP: the DMA mapping of an MR's pages (-EIO)
 * @RPCRDMA_FAULT_MR_REG: the post of an MR's registration (-EIO; the
 *	connection is closed)
 * @RPCRDMA_FAULT_MR_INV: the post of an MR's invalidation (-EIO; the
 *	connection is closed)
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
	RPCRDMA_FAULT_BUFFER_CREATE,
	RPCRDMA_FAULT_REGBUF_MAP,
	RPCRDMA_FAULT_SENDCTX,
	RPCRDMA_FAULT_POST_SEND,
	RPCRDMA_FAULT_MR_ALLOC,
	RPCRDMA_FAULT_MR_MAP,
	RPCRDMA_FAULT_MR_REG,
	RPCRDMA_FAULT_MR_INV,
	RPCRDMA_FAULT_NR,
};

struct cmkit_fault;
extern struct cmkit_fault cmkit_rpcrdma_fault_points;
extern const char * const cmkit_rpcrdma_fault_steps[RPCRDMA_FAULT_NR];

/**
 * rpcrdma_fault - should this step fail now?
 * @step: the step about to run
 *
 * Armed from cmkit/rpcrdma/fail_steps or by a test (cmkit_fault_arm()).
 *
 * Return: true if the caller must fail the step as its real failure would.
 */
static inline bool rpcrdma_fault(enum rpcrdma_fault step)
{
	return cmkit_should_fail(&cmkit_rpcrdma_fault_points, step);
}

struct rpcrdma_xprt;

/**
 * struct rpcrdma_regbuf - a buffer for Sends or Receives
 * @rg_iov: its SGE: DMA address (while mapped), length and lkey
 * @rg_device: the device it is mapped on, or NULL while it is not mapped
 * @rg_direction: DMA_TO_DEVICE (Sends) or DMA_FROM_DEVICE (Receives)
 * @rg_data: the buffer
 *
 * Mapped by __cmkit_rpcrdma_regbuf_dma_map() when a connection first uses it and
 * unmapped when that connection ends; reallocated by
 * cmkit_rpcrdma_regbuf_realloc() when a connection's inline size outgrows it.
 */
struct rpcrdma_regbuf {
	struct ib_sge rg_iov;
	struct ib_device *rg_device;
	enum dma_data_direction rg_direction;
	void *rg_data;
};

static inline void *rdmab_data(const struct rpcrdma_regbuf *rb)
{
	return rb->rg_data;
}

static inline u32 rdmab_length(const struct rpcrdma_regbuf *rb)
{
	return rb->rg_iov.length;
}

static inline u64 rdmab_addr(const struct rpcrdma_regbuf *rb)
{
	return rb->rg_iov.addr;
}

static inline bool rpcrdma_regbuf_is_mapped(const struct rpcrdma_regbuf *rb)
{
	return !!rb->rg_device;
}

/**
 * struct rpcrdma_sendctx - the completion context of one posted Send
 * @sc_cqe: completion entry (rpcrdma_wc_send())
 * @sc_xprt: the transport
 * @sc_req: the req whose Send this is: it holds a reference on the req from
 *	the post until the context is released (a signaled completion at or
 *	after it, or the connection's end)
 */
struct rpcrdma_sendctx {
	struct ib_cqe sc_cqe;
	struct rpcrdma_xprt *sc_xprt;
	struct rpcrdma_req *sc_req;
};

/**
 * struct rpcrdma_mr - a memory region registered with FRWR (frwr.c)
 * @mr_list: on the pool's free list or a caller's list
 * @mr_all: on the pool's list of every MR of the connection
 * @mr_xprt: the transport
 * @mr_xid: the transport's number, for traces
 * @mr_ibmr: the verbs MR; NULL once deregistered
 * @mr_device: the device its pages are DMA-mapped on, or NULL
 * @mr_sg: the pages' scatterlist, re_max_fr_depth entries
 * @mr_nents: entries in use
 * @mr_dir: their DMA direction
 * @mr_regwr: its registration work request
 * @mr_invwr: its invalidation work request
 * @mr_cqe: completion entry of either
 * @mr_linv_done: completed by the signaled completion a caller waits for
 * @mr_handle: rkey, as a chunk's segment advertises it
 * @mr_length: bytes mapped
 * @mr_offset: the address the rkey names them by
 * @mr_stale: a registration or invalidation completed in error, or could
 *	not be posted: never reused
 */
struct rpcrdma_mr {
	struct list_head mr_list;
	struct list_head mr_all;
	struct rpcrdma_xprt *mr_xprt;
	u32 mr_xid;
	struct ib_mr *mr_ibmr;
	struct ib_device *mr_device;
	struct scatterlist *mr_sg;
	int mr_nents;
	enum dma_data_direction mr_dir;
	struct ib_reg_wr mr_regwr;
	struct ib_send_wr mr_invwr;
	struct ib_cqe mr_cqe;
	struct completion mr_linv_done;
	u32 mr_handle;
	u32 mr_length;
	u64 mr_offset;
	bool mr_stale;
};

/**
 * struct rpcrdma_req - one call: its send buffer and its wait for a reply
 * @rl_list: on the buffer's free list (rb_send_bufs) while unused
 * @rl_all: on the buffer's list of every req (rb_allreqs)
 * @rl_pending: on the buffer's list of calls waiting for a reply (rb_pending)
 * @rl_kref: the caller's reference and, while its Send is posted, the
 *	send context's; the last put returns the req to the free list
 * @rl_buf: the buffer pool it belongs to
 * @rl_sendbuf: the whole call: transport header and RPC message; at least
 *	the connection's inline send size
 * @rl_len: bytes of the call in @rl_sendbuf
 * @rl_xid: the call's xid (transport and RPC)
 * @rl_gen: the connection (rb_gen) it was sent on
 * @rl_reply: the Receive that carried its reply, until cmkit_rpcrdma_reply_put()
 * @rl_result: the decoded reply (enum cmkit_rpcrdma_result), if one came
 * @rl_status: 0 when a reply came, else -ETIMEDOUT, -ECONNABORTED, ...
 * @rl_sent: when its Send was posted
 * @rl_rtt_ns: its round trip: from @rl_sent until the thread that waits
 *	for the call first runs with its reply, back from the call's wait or
 *	from the credit wait of its next call (not the reply handler's match:
 *	the interval cmkit-peer call measures); 0 without a reply
 * @rl_done: completed when the reply is matched or the connection ends
 * @rl_msg: the procedure call it carries (proc.c), or NULL for a NULL call
 * @rl_prog: the RPC program it calls, for a retransmit
 * @rl_vers: the program's version, for a retransmit
 * @rl_xmits: times its Send was posted; after the first, the call keeps
 *	its xid (the server's duplicate reply cache knows it by it)
 */
struct rpcrdma_req {
	struct list_head rl_list;
	struct list_head rl_all;
	struct list_head rl_pending;
	struct kref rl_kref;
	struct rpcrdma_buffer *rl_buf;
	struct rpcrdma_regbuf *rl_sendbuf;
	u32 rl_len;
	u32 rl_xid;
	u32 rl_gen;
	struct rpcrdma_rep *rl_reply;
	int rl_result;
	int rl_status;
	ktime_t rl_sent;
	u64 rl_rtt_ns;
	struct completion rl_done;
	const struct rpcrdma_msg *rl_msg;
	u32 rl_prog;
	u32 rl_vers;
	u32 rl_xmits;
};

/* The segments, one MR each, a call's chunks offer at most (proc.c's calls: two). */
#define RPCRDMA_MSG_MAX_SEGS		3U

/**
 * struct rpcrdma_mr_seg - memory a call offers in one chunk segment
 * @pages: its pages, the data from the start of the first
 * @len: its bytes
 * @writing: the peer writes them (a write or reply chunk); else it reads them
 * @seg: the segment of the call's offer that advertises the MR mapping them
 *
 * Kept with the call so its chunks can be registered again, with the MRs
 * of another connection, when it is sent again after a reconnect
 * (cmkit_rpcrdma_msg_map()), as xprtrdma's rpcrdma_marshal_req() runs
 * frwr_map() again for a retransmitted request.
 */
struct rpcrdma_mr_seg {
	struct page **pages;
	u32 len;
	bool writing;
	struct cmkit_rpcrdma_seg *seg;
};

/**
 * struct rpcrdma_msg - a procedure call as proc.c marshalled it
 * @proc: the RPC procedure
 * @nomsg: the whole RPC call is in @ch's position-zero read chunk, written
 *	there with @xid: the Send carries an RDMA_NOMSG header alone
 * @whole: @args is the whole RPC call, its header (credential included)
 *	written by the caller with @xid: the Send carries an RDMA_MSG header
 *	and @args as they are (cmkit_rpcrdma_call_chunks())
 * @xid: the xid of a @nomsg or @whole call, taken with cmkit_rpcrdma_xid_get()
 * @args: its inline arguments (XDR), or the whole RPC call (@whole)
 * @args_len: their length
 * @ch: the chunks offered (registered memory), or NULL for none
 * @mrs: the MRs of @ch, mapped: their registrations are posted in one chain
 *	before the Send (NULL: none).  If the chain cannot be posted they
 *	are the connection's to release after its drain, and @mrs is empty.
 *	A call sent again on a new connection gets new ones (@segs).
 * @segs: the memory each MR of @mrs maps, in order; its @seg in @ch
 * @nr_segs: entries of @segs (0: @mrs, if any, cannot be mapped again,
 *	and the call is not sent again after a reconnect)
 * @reply: where the reply handler decodes the reply to a call with @ch
 *	(its results point into the reply's Receive buffer, valid until the
 *	req is put)
 * @got: where it decodes that reply's chunk lists
 *
 * The reply handler decodes a reply to a call that offered chunks with
 * cmkit_rpcrdma_decode_reply_chunks() into @reply and @got; the caller
 * checks what the server says it wrote against @ch before it reads
 * anything.
 */
struct rpcrdma_msg {
	u32 proc;
	bool nomsg;
	bool whole;
	u32 xid;
	const void *args;
	u32 args_len;
	const struct cmkit_rpcrdma_chunks *ch;
	struct list_head *mrs;
	struct rpcrdma_mr_seg segs[RPCRDMA_MSG_MAX_SEGS];
	unsigned int nr_segs;
	struct cmkit_rpcrdma_reply *reply;
	struct cmkit_rpcrdma_chunks *got;
};

/**
 * struct rpcrdma_rep - a Receive: posted, carrying a reply, or free
 * @rr_cqe: completion entry (rpcrdma_wc_receive())
 * @rr_list: on the buffer's free list (rb_free_reps) while free
 * @rr_all: on the buffer's list of every rep (rb_all_reps)
 * @rr_rxprt: the transport
 * @rr_rdmabuf: the receive buffer, at least the connection's inline
 *	receive size
 * @rr_recv_wr: its Receive work request
 * @rr_len: bytes received (the completion's byte_len)
 * @rr_posted: posted and not yet completed (a second completion is a bug)
 * @rr_remote_inv: the server's Send With Invalidate invalidated an rkey
 * @rr_inv_rkey: that rkey
 */
struct rpcrdma_rep {
	struct ib_cqe rr_cqe;
	struct list_head rr_list;
	struct list_head rr_all;
	struct rpcrdma_xprt *rr_rxprt;
	struct rpcrdma_regbuf *rr_rdmabuf;
	struct ib_recv_wr rr_recv_wr;
	u32 rr_len;
	bool rr_posted;
	bool rr_remote_inv;
	u32 rr_inv_rkey;
};

/**
 * struct rpcrdma_buffer - a transport's reqs and reps, credits and rings
 * @rb_lock: protects the lists and the counts below it (not the sendctx
 *	ring, see below)
 * @rb_send_bufs: free reqs
 * @rb_allreqs: every req
 * @rb_free_reps: reps neither posted nor carrying a reply
 * @rb_all_reps: every rep
 * @rb_pending: calls sent and waiting for their reply, matched by xid
 * @rb_wait: woken when a credit, a req, a send context or a receive frees
 *	up, and when the connection ends
 * @rb_max_requests: the connection's ring: the credits each call asks for
 * @rb_bc_srv_max_requests: backchannel requests served (0)
 * @rb_credits: calls the server lets us have outstanding (1 at connect)
 * @rb_outstanding: calls sent and not yet matched to a reply
 * @rb_receive_count: Receives posted and not yet completed
 * @rb_recv_high: the most Receives posted at once on this connection
 * @rb_connected: calls may be sent (under rb_lock and rx_send_lock)
 * @rb_recv_open: Receives may be posted (false from the drain on)
 * @rb_posting: cmkit_rpcrdma_post_recvs() is posting (the drain waits for it)
 * @rb_gen: connection generation: a call started on one connection fails
 *	with -ECONNABORTED once another (or none) is current
 * @rb_xid: the next call's xid
 * @rb_calls: calls sent on this transport
 * @rb_replies: calls that got an accepted reply
 * @rb_errors: calls sent that did not (rejected, malformed, timed out, aborted)
 * @rb_unknown_xid: replies that matched no waiting call
 * @rb_sc_ctxs: the send-context ring of the connection (rb_sc_last + 1)
 * @rb_sc_last: its last index
 * @rb_sc_head: last context handed out; under the transport's send lock
 * @rb_sc_tail: last context released; by Send completions only
 * @rb_reqs: reqs in the pool
 * @rb_mrs: the connection's idle MRs (under rb_lock, as the MR lists below)
 * @rb_all_mrs: every MR of the connection
 * @rb_mrs_count: MRs on @rb_all_mrs, or being made
 * @rb_mrs_lent: MRs callers hold
 * @rb_mrs_open: the connection's pool may grow (until its end)
 * @rb_reconnecting: the transport re-establishes its connection for calls
 *	it lost (reconnect.c): from such a loss until a reconnect succeeds or
 *	the transport is closed
 * @rb_resend: calls whose connection ended under them, waiting to be sent
 *	again on the next one
 */
struct rpcrdma_buffer {
	spinlock_t rb_lock;	/* lists, credits, counts */
	struct list_head rb_send_bufs;
	struct list_head rb_allreqs;
	struct list_head rb_free_reps;
	struct list_head rb_all_reps;
	struct list_head rb_pending;
	wait_queue_head_t rb_wait;
	u32 rb_max_requests;
	u32 rb_bc_srv_max_requests;
	u32 rb_credits;
	u32 rb_outstanding;
	u32 rb_receive_count;
	u32 rb_recv_high;
	bool rb_connected;
	bool rb_recv_open;
	bool rb_posting;
	u32 rb_gen;
	u32 rb_xid;
	u64 rb_calls;
	u64 rb_replies;
	u64 rb_errors;
	u64 rb_unknown_xid;

	struct rpcrdma_sendctx **rb_sc_ctxs;
	unsigned long rb_sc_last;
	unsigned long rb_sc_head;
	unsigned long rb_sc_tail;
	unsigned int rb_reqs;

	struct list_head rb_mrs;
	struct list_head rb_all_mrs;
	unsigned int rb_mrs_count;
	unsigned int rb_mrs_lent;
	bool rb_mrs_open;
	bool rb_reconnecting;
	u32 rb_resend;
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
 * @re_max_requests: the receive ring: credits asked for, the most allowed
 * @re_max_fr_depth: pages one MR maps
 * @re_send_batch: Sends posted unsignaled between two signaled ones
 * @re_send_count: unsignaled Sends left before the next signaled one
 * @re_pd: protection domain
 * @re_cq: completion queue for both Sends and Receives
 * @re_remote_cma: connection parameters for rdma_connect()
 * @re_cm_private: our RFC 8797 private message
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
	u32 re_max_requests;
	u32 re_max_fr_depth;
	u32 re_send_batch;
	u32 re_send_count;
	struct ib_pd *re_pd;
	struct ib_cq *re_cq;
	struct rdma_conn_param re_remote_cma;
	u8 re_cm_private[CMKIT_RPCRDMA_CMP_LEN];
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
 * @reply: called by the reply handler when a reply matched a waiting call,
 *	before the call is completed, from the completion queue's work; may
 *	sleep (tests hold a reply here).  Optional.
 * @send: called by a call that holds a req and a credit, before it takes
 *	the send lock to marshal and post its Send; may sleep (tests hold a
 *	call here).  Optional.
 * @reconnect: called when a reconnect is scheduled, with its delay in
 *	jiffies, under the transport's rx_lock; must not sleep.  Optional.
 * @reconnect_work: called by the reconnect work when it starts, before it
 *	takes the transport's lock; may sleep (tests hold the work here).
 *	Optional.
 */
struct rpcrdma_xprt_ops {
	void (*cm_event)(struct rpcrdma_xprt *r_xprt, struct rdma_cm_id *id,
			 const struct rdma_cm_event *event);
	void (*force_work)(struct rpcrdma_xprt *r_xprt);
	void (*reply)(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req);
	void (*send)(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req);
	void (*reconnect)(struct rpcrdma_xprt *r_xprt, unsigned long delay);
	void (*reconnect_work)(struct rpcrdma_xprt *r_xprt);
};

/**
 * struct rpcrdma_xprt - the stand-in for an RPC transport
 * @rx_ep: the current endpoint, or NULL
 * @rx_xid: a number naming the transport in traces
 * @rx_lock: serialises connect and disconnect
 * @rx_send_lock: serialises posting Sends (the sendctx ring's consumer)
 *	against each other and against the end of a connection (upstream:
 *	the transport send lock around ->send_request)
 * @rx_force_work: the force-disconnect action: disconnects the transport
 *	if its ep is still the one that asked
 * @rx_force_count: how many times the action was requested
 * @rx_gen: generation of the last ep created (under @rx_lock)
 * @rx_force_gen: generation of the ep the force-disconnect was asked for
 * @rx_connect_timeout: how long a connect waits for its answer, jiffies
 * @rx_call_timeout: how long a call waits for a credit, a buffer and its
 *	reply, jiffies
 * @rx_dst: the server's address
 * @rx_inline_send: inline send size we ask for, bytes
 * @rx_inline_recv: inline receive size we ask for, bytes
 * @rx_ops: optional observer
 * @rx_private: owner's data
 * @rx_reconnect_work: re-establishes a lost connection (reconnect.c)
 * @rx_reconnect: a connection lost with calls waiting is re-established
 *	(the module parameter rpcrdma_reconnect when created)
 * @rx_closed: the owner disconnected: no reconnect until its next connect
 *	(under @rx_lock)
 * @rx_reest_to: the delay before the next reconnect attempt, jiffies: 0
 *	after a reply, else doubling from @rx_reest_init up to @rx_reest_max
 *	(under @rx_lock; the reply handler zeroes it)
 * @rx_reest_init: the first non-zero delay (RPCRDMA_INIT_REEST_TO)
 * @rx_reest_max: the longest delay (RPCRDMA_MAX_REEST_TO)
 * @rx_reconnect_tries: reconnect attempts made
 * @rx_reconnects: reconnect attempts that connected
 * @rx_buf: reqs, reps, credits and the send-context ring
 */
struct rpcrdma_xprt {
	struct rpcrdma_ep *rx_ep;
	u32 rx_xid;
	struct mutex rx_lock;		/* connect vs. disconnect */
	struct mutex rx_send_lock;	/* posting Sends vs. the connection's end */
	struct work_struct rx_force_work;
	atomic_t rx_force_count;
	u32 rx_gen;
	u32 rx_force_gen;
	unsigned long rx_connect_timeout;
	unsigned long rx_call_timeout;
	struct sockaddr_storage rx_dst;
	u32 rx_inline_send;
	u32 rx_inline_recv;
	const struct rpcrdma_xprt_ops *rx_ops;
	void *rx_private;
	struct delayed_work rx_reconnect_work;
	bool rx_reconnect;
	bool rx_closed;
	unsigned long rx_reest_to;
	unsigned long rx_reest_init;
	unsigned long rx_reest_max;
	u32 rx_reconnect_tries;
	u32 rx_reconnects;
	struct rpcrdma_buffer rx_buf;
};

/**
 * struct cmkit_rpcrdma_stats - object counts since load, for tests and debugfs
 * @eps_created: endpoints allocated
 * @eps_freed: endpoints freed by their last put
 * @ids_created: rdma_cm ids created
 * @ids_destroyed: ids cmkit destroyed with rdma_destroy_id()
 * @ids_returned: ids handed back to rdma_cm by the handler returning 1
 * @force_disconnects: force-disconnect actions requested
 * @connects: connects that succeeded
 * @connects_failed: connects that failed
 * @reqs_created: reqs allocated
 * @reqs_freed: reqs freed
 * @reqs_got: reqs taken from a free list by a call
 * @reqs_put: reqs back on a free list (the last reference dropped)
 * @reps_created: reps allocated
 * @reps_freed: reps freed
 * @reps_got: reps taken (created, or from a free list) to be posted
 * @reps_put: reps back on a free list
 * @dma_maps: regbufs DMA-mapped
 * @dma_unmaps: regbufs unmapped
 * @sendctx_got: send contexts handed out
 * @sendctx_put: send contexts released (ungot, reclaimed, or at the end)
 * @sendctx_exhausted: calls that found the send-context ring full
 * @sends_posted: Sends posted
 * @sends_signaled: of which signaled
 * @recvs_posted: Receives posted
 * @recvs_done: Receives completed successfully
 * @recvs_flushed: Receives completed in error (flushed)
 * @recvs_twice: completions of a Receive that was not posted (a bug)
 * @calls_sent: calls posted
 * @calls_accepted: calls answered MSG_ACCEPTED SUCCESS
 * @calls_failed: calls sent that ended otherwise
 * @replies_unknown_xid: replies matching no waiting call, dropped
 * @replies_short: replies shorter than a transport header, dropped
 * @replies_bad_vers: replies of another transport version, dropped
 * @credit_waits: calls that waited for a credit
 * @call_timeouts: calls that got no reply in time
 * @calls_aborted: calls ended by the end of their connection
 * @mrs_created: MRs allocated
 * @mrs_freed: MRs deregistered and freed
 * @mrs_got: MRs taken from a pool by a caller
 * @mrs_put: MRs a caller gave back
 * @mrs_remote_inv: MRs the peer invalidated with its reply
 * @reconnect_tries: reconnect attempts
 * @reconnects: reconnect attempts that connected
 * @calls_resent: calls sent again, with their xid, on a new connection
 * @events: CM events the handler saw, by type
 */
struct cmkit_rpcrdma_stats {
	atomic_t eps_created;
	atomic_t eps_freed;
	atomic_t ids_created;
	atomic_t ids_destroyed;
	atomic_t ids_returned;
	atomic_t force_disconnects;
	atomic_t connects;
	atomic_t connects_failed;
	atomic_t reqs_created;
	atomic_t reqs_freed;
	atomic_t reqs_got;
	atomic_t reqs_put;
	atomic_t reps_created;
	atomic_t reps_freed;
	atomic_t reps_got;
	atomic_t reps_put;
	atomic_t dma_maps;
	atomic_t dma_unmaps;
	atomic_t sendctx_got;
	atomic_t sendctx_put;
	atomic_t sendctx_exhausted;
	atomic_t sends_posted;
	atomic_t sends_signaled;
	atomic_t recvs_posted;
	atomic_t recvs_done;
	atomic_t recvs_flushed;
	atomic_t recvs_twice;
	atomic_t calls_sent;
	atomic_t calls_accepted;
	atomic_t calls_failed;
	atomic_t replies_unknown_xid;
	atomic_t replies_short;
	atomic_t replies_bad_vers;
	atomic_t credit_waits;
	atomic_t call_timeouts;
	atomic_t calls_aborted;
	atomic_t mrs_created;
	atomic_t mrs_freed;
	atomic_t mrs_got;
	atomic_t mrs_put;
	atomic_t mrs_remote_inv;
	atomic_t reconnect_tries;
	atomic_t reconnects;
	atomic_t calls_resent;
	atomic_t events[24];
};

extern struct cmkit_rpcrdma_stats cmkit_rpcrdma_stats;

/**
 * struct cmkit_rpcrdma_calls - what a batch of NULL calls gave
 * @count: calls asked for
 * @sent: calls posted
 * @accepted: calls answered MSG_ACCEPTED SUCCESS
 * @rejected: well-formed refusals (RDMA_ERROR, PROG_MISMATCH, ...)
 * @malformed: replies that broke RFC 8166/5531 or the call's terms
 * @timedout: calls without a reply in time
 * @aborted: calls whose connection ended under them
 * @unknown_xid: replies to no waiting call, during the batch
 * @status: 0 if every call was accepted, else the errno of the first call
 *	(in send order) that was not: -EPROTO (rejected or malformed),
 *	-ETIMEDOUT, -ECONNABORTED, -ENOTCONN, -EINTR, ...
 * @credits: the credit limit at the end
 * @max_outstanding: the most calls of the batch outstanding at once
 * @elapsed_ns: from the first Send to the last reply in its caller's hands
 * @results: completed calls by enum cmkit_rpcrdma_result, indexed by its
 *	negation (0 is OK)
 * @rtt_ns: the round trip of each call that got a reply, accepted,
 *	refused or malformed (rl_rtt_ns: from its Send until its caller ran
 *	with the reply), in send order; NULL unless the caller provides room
 *	for @count of them
 * @nr_rtt: entries filled in @rtt_ns
 */
struct cmkit_rpcrdma_calls {
	u32 count;
	u32 sent;
	u32 accepted;
	u32 rejected;
	u32 malformed;
	u32 timedout;
	u32 aborted;
	u32 unknown_xid;
	int status;
	u32 credits;
	u32 max_outstanding;
	u64 elapsed_ns;
	u32 results[-CMKIT_RPCRDMA_E_ARG + 1];
	u32 *rtt_ns;
	u32 nr_rtt;
};

int rpcrdma_cm_event_handler(struct rdma_cm_id *id, struct rdma_cm_event *event);

struct rpcrdma_xprt *cmkit_rpcrdma_xprt_create(const struct sockaddr *dst,
					       u32 inline_send, u32 inline_recv);
void cmkit_rpcrdma_xprt_destroy(struct rpcrdma_xprt *r_xprt);
int cmkit_rpcrdma_ep_create(struct rpcrdma_xprt *r_xprt);
int cmkit_rpcrdma_xprt_connect(struct rpcrdma_xprt *r_xprt);
int __cmkit_rpcrdma_xprt_connect(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_xprt_disconnect(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_flush_disconnect(struct rpcrdma_xprt *r_xprt, struct ib_wc *wc);
void cmkit_rpcrdma_force_disconnect(struct rpcrdma_ep *ep);
unsigned int cmkit_rpcrdma_module_refs(void);
void cmkit_rpcrdma_count_end(atomic_t *counter);

/* The transport's buffers and rings (rpcrdma_verbs.c). */
int cmkit_rpcrdma_buffer_create(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_buffer_destroy(struct rpcrdma_buffer *buf);
struct rpcrdma_req *cmkit_rpcrdma_req_create(struct rpcrdma_xprt *r_xprt, size_t size);
int cmkit_rpcrdma_req_setup(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req);
void cmkit_rpcrdma_req_destroy(struct rpcrdma_req *req);
struct rpcrdma_req *cmkit_rpcrdma_buffer_get(struct rpcrdma_buffer *buffers);
void cmkit_rpcrdma_buffer_put(struct rpcrdma_buffer *buffers, struct rpcrdma_req *req);
void cmkit_rpcrdma_rep_put(struct rpcrdma_buffer *buf, struct rpcrdma_rep *rep);
void cmkit_rpcrdma_reply_put(struct rpcrdma_buffer *buffers, struct rpcrdma_req *req);
bool cmkit_rpcrdma_regbuf_realloc(struct rpcrdma_regbuf *rb, size_t size, gfp_t flags);
bool __cmkit_rpcrdma_regbuf_dma_map(struct rpcrdma_xprt *r_xprt, struct rpcrdma_regbuf *rb);
struct rpcrdma_sendctx *cmkit_rpcrdma_sendctx_get_locked(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_sendctx_unget_locked(struct rpcrdma_xprt *r_xprt, struct rpcrdma_sendctx *sc);
bool cmkit_rpcrdma_sendctx_available(struct rpcrdma_buffer *buf);
int cmkit_rpcrdma_post_recvs(struct rpcrdma_xprt *r_xprt, u32 needed);
int cmkit_rpcrdma_post_sends(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
			     struct rpcrdma_sendctx *sc);
void cmkit_rpcrdma_reset_cwnd(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_sendctxs_destroy(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_reqs_reset(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_reps_unmap(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_recvs_close(struct rpcrdma_xprt *r_xprt);
int cmkit_rpcrdma_xprt_set_connected(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_xprt_clear_connected(struct rpcrdma_xprt *r_xprt);

/* Reconnecting (reconnect.c). */
void cmkit_rpcrdma_reconnect_init(struct rpcrdma_xprt *r_xprt);
bool cmkit_rpcrdma_reconnect_default(bool on);
bool cmkit_rpcrdma_reconnect_wanted(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_reconnect_schedule(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_reconnect_stop(struct rpcrdma_xprt *r_xprt);

/**
 * rpcrdma_reconnect_reset - a reply came: the next reconnect is immediate
 * @r_xprt: the transport
 */
static inline void rpcrdma_reconnect_reset(struct rpcrdma_xprt *r_xprt)
{
	if (READ_ONCE(r_xprt->rx_reest_to))
		WRITE_ONCE(r_xprt->rx_reest_to, 0);
}

/* Memory registration (frwr.c). */
int cmkit_rpcrdma_mrs_create(struct rpcrdma_xprt *r_xprt);
unsigned int cmkit_rpcrdma_mrs_refresh(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_mrs_destroy(struct rpcrdma_xprt *r_xprt);
struct rpcrdma_mr *cmkit_rpcrdma_mr_get(struct rpcrdma_xprt *r_xprt);
void cmkit_rpcrdma_mr_put(struct rpcrdma_mr *mr);
int cmkit_rpcrdma_frwr_map(struct rpcrdma_xprt *r_xprt, struct rpcrdma_mr *mr,
			   struct page **pages, unsigned int offset, u32 len, bool writing);
struct ib_send_wr *cmkit_rpcrdma_frwr_reg_wrs(struct list_head *mrs, struct ib_send_wr *next,
					      bool signal_last);
int cmkit_rpcrdma_frwr_reg_sync(struct rpcrdma_xprt *r_xprt, struct list_head *mrs);
bool cmkit_rpcrdma_frwr_remote_inv(struct list_head *mrs, u32 rkey);
void cmkit_rpcrdma_frwr_post_failed(struct rpcrdma_xprt *r_xprt, struct list_head *mrs);
int cmkit_rpcrdma_frwr_unmap_sync(struct rpcrdma_xprt *r_xprt, struct list_head *mrs);
int cmkit_rpcrdma_msg_map(struct rpcrdma_xprt *r_xprt, const struct rpcrdma_msg *msg);
void cmkit_rpcrdma_msg_unmap(struct list_head *mrs);

/* Calls (rpcrdma_call.c). */
void cmkit_rpcrdma_reply_handler(struct rpcrdma_rep *rep);
bool cmkit_rpcrdma_reqs_abort(struct rpcrdma_xprt *r_xprt, bool resend);
int cmkit_rpcrdma_xprt_call(struct rpcrdma_xprt *r_xprt, u32 prog, u32 vers, u32 count,
			    struct cmkit_rpcrdma_calls *res);
int cmkit_rpcrdma_call_one(struct rpcrdma_xprt *r_xprt, u32 prog, u32 vers,
			   const struct rpcrdma_msg *msg, struct rpcrdma_req **reqp);

/**
 * struct cmkit_rpcrdma_proc - one call of cmkit's RPC test program (proc.c)
 * @proc: CMKIT_RPC_TESTPROG_ECHO, _FILL, _SINK or _MIRROR
 * @arg: ECHO's, SINK's and MIRROR's data: @arg_len bytes from the start of these
 *	pages (a read chunk maps them as they are)
 * @arg_len: its length, a multiple of 4
 * @fill_len: FILL's length
 * @fill_seed: FILL's seed
 * @res: where ECHO's, FILL's and MIRROR's data goes: room for @res_max bytes (a
 *	write chunk maps these pages as they are)
 * @res_max: its room, bytes
 * @res_len: out: the result's length (ECHO, FILL)
 * @sink_len: out: SINK's count of the bytes it received
 * @sink_crc: out: SINK's crc32c of them
 * @m: out: how the call and its reply travelled
 * @write_len: out: the bytes the server said it wrote in the write chunk
 * @reply_len: out: the bytes it said it wrote in the reply chunk (the
 *	whole RPC reply, RDMA_NOMSG)
 */
struct cmkit_rpcrdma_proc {
	u32 proc;
	struct page **arg;
	u32 arg_len;
	u32 fill_len;
	u32 fill_seed;
	struct page **res;
	u32 res_max;
	u32 res_len;
	u32 sink_len;
	u32 sink_crc;
	struct cmkit_rpcrdma_marshal m;
	u32 write_len;
	u32 reply_len;
};

int cmkit_rpcrdma_xprt_proc(struct rpcrdma_xprt *r_xprt, struct cmkit_rpcrdma_proc *p);

/**
 * struct cmkit_rpcrdma_chunked - one call of any program, with its chunks (proc.c)
 * @xid: the call's xid, taken with cmkit_rpcrdma_xid_get() and written by
 *	the caller at the start of @call
 * @call: the whole RPC call as it goes inline: its header (any
 *	credential), then its arguments, less the bytes of the read chunk
 * @call_len: its length, a multiple of 4
 * @read: the read chunk's data: @read_len bytes from the start of these
 *	pages (NULL: no read chunk)
 * @read_len: its length
 * @read_pos: its XDR position, counted from the xid: a multiple of 4, in
 *	the arguments (past the header), at most @call_len
 * @write: pages for a bulk result in one write chunk: room for @write_max
 *	bytes from the start of these pages (NULL: no write chunk)
 * @write_max: their room, bytes
 * @res: where the RPC results (inline, after the accepted reply's
 *	header) are copied: room for @res_max bytes
 * @res_max: its room
 * @res_len: out: the results' length
 * @write_len: out: the bytes the server says it wrote in the write chunk
 *
 * Each chunk is one MR: at most the device's fast-registration depth in
 * pages.  No reply chunk is offered: the reply less its write chunk must
 * fit the connection's inline receive size.
 */
struct cmkit_rpcrdma_chunked {
	u32 xid;
	const void *call;
	u32 call_len;
	struct page **read;
	u32 read_len;
	u32 read_pos;
	struct page **write;
	u32 write_max;
	void *res;
	u32 res_max;
	u32 res_len;
	u32 write_len;
};

int cmkit_rpcrdma_call_chunks(struct rpcrdma_xprt *r_xprt, u32 prog, u32 vers, u32 proc,
			      struct cmkit_rpcrdma_chunked *c);

/* NFSv4.0 COMPOUNDs to a server's export (nfs4.c). */

/* The NFS4ERR_GRACE status: the server's grace period runs. */
#define RPCRDMA_NFS4ERR_GRACE		10013

/**
 * struct cmkit_rpcrdma_nfs4_file - a file of the server's pseudo-root
 * @fh: its file handle, as GETFH gave it
 * @fh_len: its length
 * @size: its size, as GETATTR gave it
 * @status: the nfsstat4 of the last COMPOUND that failed (0: none)
 * @grace_waits: NFS4ERR_GRACE answers waited out
 */
struct cmkit_rpcrdma_nfs4_file {
	u8 fh[CMKIT_NFS4_FHSIZE];
	u32 fh_len;
	u64 size;
	u32 status;
	u32 grace_waits;
};

int cmkit_rpcrdma_nfs4_lookup(struct rpcrdma_xprt *r_xprt, const char *name,
			      struct cmkit_rpcrdma_nfs4_file *f);
int cmkit_rpcrdma_nfs4_read(struct rpcrdma_xprt *r_xprt, struct cmkit_rpcrdma_nfs4_file *f,
			    u64 offset, struct page **pages, u32 count, u32 *got, bool *eof);
int cmkit_rpcrdma_nfs4_write(struct rpcrdma_xprt *r_xprt, struct cmkit_rpcrdma_nfs4_file *f,
			     u64 offset, struct page **pages, u32 len, u32 *written);
int cmkit_rpcrdma_result_to_errno(int result);
u32 cmkit_rpcrdma_xid_get(struct rpcrdma_xprt *r_xprt);

/* The control plane (rpcrdma_ctl.c), as its KUnit cases reach it. */
struct seq_file;
int cmkit_rpcrdma_ctl_exec(const char *cmd);
#if IS_ENABLED(CONFIG_KUNIT)	/* static without KUnit */
int cmkit_rpcrdma_xprts_show(struct seq_file *m, void *v);
#endif

#endif /* CMKIT_RPCRDMA_H */
