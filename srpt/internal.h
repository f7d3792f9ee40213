/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit srpt: the SRP target's own structures, shared by its files
 * (srpt_cm.c: listeners, logins and channels; srpt_ioctx.c: the receive
 * and send rings; srpt_io.c: the IUs and their data; srpt_lun.c: the RAM
 * disk).  What cmkit_test.ko may use is in srpt.h.
 */
#ifndef CMKIT_SRPT_INT_H
#define CMKIT_SRPT_INT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <cmkit/scsi.h>
#include <cmkit/srp.h>
#include <cmkit/srp_iu.h>

#include "srpt/srpt.h"

/**
 * struct srpt_device - the srpt consumer's state for one RDMA device
 * @device: the device
 * @pd: protection domain of every channel's QP
 * @ib_listen: the native-form listener
 * @rdma_listen: the rdma_cm-form listener, or NULL
 * @service_id: the native service id
 * @port_id: the target port identifier a login must name
 * @kref: one reference for the ib_client, one per channel, one per lookup
 *	that outlives srpt_lock; its last put wakes the removal
 * @mutex: serialises logins against disconnects; protects @enabled and
 *	every change of @ch_list
 * @enabled: logins are accepted
 * @ch_list: the channels that took over their cm_id, until their release
 *	work unlists them, before it destroys the cm_id; walked under @mutex
 *	(which keeps a listed channel's cm_id alive) or RCU (tag, state)
 * @entry: in srpt_devices
 */
struct srpt_device {
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cm_id *ib_listen;
	struct ib_cm_id *rdma_listen;
	u64 service_id;
	u8 port_id[CMKIT_SRP_PORT_ID_LEN];
	struct kref kref;
	struct mutex mutex;	/* logins vs disconnects; @enabled, @ch_list */
	bool enabled;
	struct list_head ch_list;
	struct list_head entry;
};

/*
 * Send contexts beyond the request limit: the last SRPT_CTX_FLOOR of them
 * are kept for BUSY answers and SRP_T_LOGOUT, the others absorb the send
 * completions that lag behind the credits their SRP_RSPs returned.
 */
#define SRPT_CTX_RESERVE	4
#define SRPT_CTX_FLOOR		2
/* Bytes of a send context's IU buffer: an SRP_RSP with sense data. */
#define SRPT_SEND_BUF_LEN	128
/* Send queue WRs for RDMA Reads and Writes (responses have their own). */
#define SRPT_SQ_DATA_WRS	256
/* Largest transfer of one command, and most descriptors of one buffer. */
#define SRPT_MAX_XFER		(8U << 20)
#define SRPT_MAX_DESC		128
/* The port every rdma_rw context is for: srpt listens on port 1. */
#define SRPT_PORT		1

/**
 * struct srpt_recv_ioctx - one receive IU buffer of a channel
 * @cqe: its completion (srpt_recv_done())
 * @buf: the IU buffer, @ch->max_it_iu_len bytes
 * @dma: @buf mapped for the device
 * @wait: in @ch->wait_list while it waits for the channel to be LIVE, or
 *	in @ch->ctx_wait_list while it waits for a send context
 * @byte_len: bytes received, while on either list
 */
struct srpt_recv_ioctx {
	struct ib_cqe cqe;
	void *buf;
	u64 dma;
	struct list_head wait;
	u32 byte_len;
};

/**
 * enum srpt_ctx_state - where a send context is in its life
 * @SRPT_CTX_FREE: on the channel's free list
 * @SRPT_CTX_NEW: taken for an IU being handled
 * @SRPT_CTX_READ: a data-out command's RDMA Reads are to be posted, or
 *	posted and outstanding (abortable)
 * @SRPT_CTX_RESPOND: its IU (SRP_RSP, SRP_T_LOGOUT) is to be posted, or
 *	posted and not yet completed
 * @SRPT_CTX_TMF_WAIT: a task management answer waiting until the commands
 *	it aborted are freed
 */
enum srpt_ctx_state {
	SRPT_CTX_FREE,
	SRPT_CTX_NEW,
	SRPT_CTX_READ,
	SRPT_CTX_RESPOND,
	SRPT_CTX_TMF_WAIT,
};

/**
 * struct srpt_rw - one rdma_rw context: one remote descriptor of a command
 * @ctx: the rdma_rw context
 * @sgt: the local pages it moves (the disk's, or the context's @data)
 * @nr_wrs: send queue WRs it posts (rdma_rw_ctx_init()'s answer)
 */
struct srpt_rw {
	struct rdma_rw_ctx ctx;
	struct sg_table sgt;
	int nr_wrs;
};

/**
 * struct srpt_send_ioctx - what a channel needs to answer one IU
 * @send_cqe: completion of the IU it sends (srpt_send_done())
 * @read_cqe: completion of its RDMA Reads (cmkit_srpt_rdma_read_done())
 * @ch: its channel
 * @entry: in @ch->free_list while free
 * @buf: the IU to send, SRPT_SEND_BUF_LEN bytes
 * @dma: @buf mapped for the device
 * @len: bytes of @buf to send
 * @state: an enum srpt_ctx_state
 * @opcode: the IU it sends (CMKIT_SRP_RSP or CMKIT_SRP_T_LOGOUT)
 * @for_cmd: it answers an SRP_CMD (hooks, counters)
 * @credit: its IU took a credit, returned with its SRP_RSP
 * @aborted: task management aborted it: freed without an SRP_RSP
 * @logout: disconnect the channel once its SRP_T_LOGOUT is sent
 * @busy_tried: its answer was already replaced by BUSY once
 * @tag: the SRP tag of the IU it answers
 * @lun: that IU's LUN bytes
 * @sol_not: that IU's solicited notification bits
 * @rsp: the SRP_RSP to send, encoded into @buf when posted
 * @sense: sense data of @rsp
 * @rsp_data: response data of @rsp (task management)
 * @tmf: for a command: the task management context waiting for it to be
 *	freed; for a task management context: the later one waiting for its
 *	answer (it found a command this one aborted)
 * @tmf_wait: task management: commands aborted and not yet freed, plus
 *	earlier task management contexts not yet answered
 * @rw: @nr_rw rdma_rw contexts, or NULL
 * @nr_rw: how many of @rw are initialised
 * @rw_wrs: send queue WRs its RDMA transfer takes
 * @sq_wrs: send queue WRs it holds now (posted, not yet completed)
 * @reason: the reason of its SRP_T_LOGOUT
 * @dir: their direction (DMA_TO_DEVICE: RDMA Write, data-in)
 * @data: built data-in payload (INQUIRY and the like), or NULL
 * @addr: the local bytes moved: the disk's or @data
 * @xfer: how many
 */
struct srpt_send_ioctx {
	struct ib_cqe send_cqe;
	struct ib_cqe read_cqe;
	struct srpt_rdma_ch *ch;
	struct list_head entry;
	void *buf;
	u64 dma;
	u32 len;
	enum srpt_ctx_state state;
	u8 opcode;
	bool for_cmd;
	bool credit;
	bool aborted;
	bool logout;
	bool busy_tried;
	u64 tag;
	u64 lun;
	u8 sol_not;
	struct cmkit_srp_rsp rsp;
	u8 sense[CMKIT_SCSI_SENSE_LEN];
	u8 rsp_data[CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN];
	struct srpt_send_ioctx *tmf;
	unsigned int tmf_wait;
	struct srpt_rw *rw;
	unsigned int nr_rw;
	int rw_wrs;
	int sq_wrs;
	u32 reason;
	enum dma_data_direction dir;
	void *data;
	void *addr;
	u32 xfer;
};

/**
 * struct srpt_rdma_ch - an SRP RDMA channel: one login, one RC connection
 * @sdev: the device the login came in on
 * @cm_id: the connection's cm_id, the channel's from the hand-over on
 * @id: @cm_id's local id, for traces (the id may be gone by then)
 * @cq: completion queue of @qp
 * @qp: the target's RC QP
 * @psn: the PSN of the initiator's first packet: the REP's starting PSN,
 *	and @qp's receive PSN from RTR on
 * @responder_resources: RDMA Reads and atomics the initiator may have
 *	outstanding at the target: offered in the REP, set at RTR
 * @initiator_depth: RDMA Reads and atomics the target may have outstanding
 *	at the initiator: offered in the REP, set at RTS (by ib_cm)
 * @rq_size: receive IUs posted: the request limit granted at login
 * @max_it_iu_len: the size of each receive IU, as granted at login
 * @recv_ring: @rq_size receive IUs, posted before the REP
 * @imm_data_offset: where immediate data starts in an SRP_CMD, as the
 *	login granted it; 0: immediate data not granted
 * @send_ring: @nr_send send contexts
 * @nr_send: @rq_size + SRPT_CTX_RESERVE
 * @free_list: the free send contexts
 * @nr_free: how many
 * @req_lim: credits the initiator holds, as srpt counts them
 * @req_lim_delta: credits owed to the initiator, returned with the next
 *	SRP_RSP (IUs answered without one)
 * @sq_wr_avail: send queue WRs left for RDMA transfers
 * @io_mutex: serialises the handling of IUs and completions (the CQ work,
 *	and the RTU that handles the IUs that came before it)
 * @wait_list: receive IUs that arrived before the channel was LIVE
 * @ctx_wait_list: receive IUs (not reposted) that wait for a send context,
 *	in arrival order: a credited IU that found none, and every IU after it
 * @kref: the release work's reference, plus one around each close
 * @lock: protects @state, @free_list, @nr_free, @req_lim, @req_lim_delta,
 *	@sq_wr_avail, @wait_list, @ctx_wait_list, and every post on @qp (no post once
 *	@state reached DRAINING)
 * @state: an enum cmkit_srpt_ch_state; only moves up
 * @list: in @sdev->ch_list
 * @release_work: unlists the channel, destroys @cm_id, drains and destroys
 *	@qp and @cq, frees @recv_ring, then drops the reference
 * @rcu: the channel is freed after a grace period (RCU lookups)
 * @qp_rtr: @qp reached RTR (it may have received IUs: drain it)
 * @released: the release work ran
 * @rdma_cm: the login came through the rdma_cm-form listener
 * @tag: the login's tag
 * @i_port_id: the initiator port identifier
 */
struct srpt_rdma_ch {
	struct srpt_device *sdev;
	struct ib_cm_id *cm_id;
	u32 id;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 psn;
	u8 responder_resources;
	u8 initiator_depth;
	u32 rq_size;
	u32 max_it_iu_len;
	struct srpt_recv_ioctx *recv_ring;
	u16 imm_data_offset;
	struct srpt_send_ioctx *send_ring;
	u32 nr_send;
	struct list_head free_list;
	u32 nr_free;
	u32 req_lim;
	u32 req_lim_delta;
	int sq_wr_avail;
	struct mutex io_mutex;	/* IU and completion handling */
	struct list_head wait_list;
	struct list_head ctx_wait_list;
	struct kref kref;
	spinlock_t lock;	/* @state, contexts, credits, posts */
	enum cmkit_srpt_ch_state state;
	struct list_head list;
	struct work_struct release_work;
	struct rcu_head rcu;
	bool qp_rtr;
	bool released;
	bool rdma_cm;
	u64 tag;
	u8 i_port_id[CMKIT_SRP_PORT_ID_LEN];
};

/**
 * srpt_fault - should this step fail now?
 * @step: the step about to run
 *
 * Armed from cmkit/srpt/fail_steps or by a test (cmkit_fault_arm()).
 *
 * Return: true if the caller must fail the step as its real failure would.
 */
static inline bool srpt_fault(enum srpt_fault step)
{
	return cmkit_should_fail(&cmkit_srpt_fault_points, step);
}

/**
 * srpt_get_ch_state - the state of a channel, now
 * @ch: the channel
 *
 * Return: an enum cmkit_srpt_ch_state.
 */
static inline enum cmkit_srpt_ch_state srpt_get_ch_state(struct srpt_rdma_ch *ch)
{
	enum cmkit_srpt_ch_state state;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	state = ch->state;
	spin_unlock_irqrestore(&ch->lock, flags);
	return state;
}

bool cmkit_srpt_ch_close(struct srpt_rdma_ch *ch);
void cmkit_srpt_ch_logout(struct srpt_rdma_ch *ch);

/* The receive and send rings (srpt_ioctx.c). */
int cmkit_srpt_alloc_recv_ring(struct srpt_rdma_ch *ch);
void cmkit_srpt_free_recv_ring(struct srpt_rdma_ch *ch);
int cmkit_srpt_post_recv_ring(struct srpt_rdma_ch *ch);
int cmkit_srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx);
unsigned int cmkit_srpt_nr_received(void);
int cmkit_srpt_alloc_send_ring(struct srpt_rdma_ch *ch);
void cmkit_srpt_free_send_ring(struct srpt_rdma_ch *ch);
struct srpt_send_ioctx *cmkit_srpt_get_send_ctx(struct srpt_rdma_ch *ch, bool reserve);
void cmkit_srpt_put_send_ctx(struct srpt_send_ioctx *ctx);
unsigned int cmkit_srpt_ctx_alive(void);
void cmkit_srpt_wc_failed(struct srpt_rdma_ch *ch, const struct ib_wc *wc,
			  u64 srp_tag, const char *what);

/* The IUs (srpt_io.c). */
void cmkit_srpt_handle_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx,
			    u32 byte_len);
void cmkit_srpt_ch_live(struct srpt_rdma_ch *ch);
void cmkit_srpt_release_ctxs(struct srpt_rdma_ch *ch);
void cmkit_srpt_io_counters(struct srpt_counters *c);

/* LUN 0 (srpt_lun.c). */
int cmkit_srpt_lun_init(void);
void cmkit_srpt_lun_exit(void);
const struct cmkit_scsi_disk *cmkit_srpt_lun_disk_get(void);
void *cmkit_srpt_lun_addr(u64 offset);

#if IS_ENABLED(CONFIG_KUNIT)
void cmkit_srpt_hook(enum cmkit_srpt_hook hook, u64 tag, const void *data, u32 len);
#else
static inline void cmkit_srpt_hook(enum cmkit_srpt_hook hook, u64 tag, const void *data,
				   u32 len)
{
}
#endif

#endif /* CMKIT_SRPT_INT_H */
