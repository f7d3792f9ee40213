/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit_test: the I/O half of an in-kernel SRP initiator (kunit/srp_peer.c).
 * The login half is the test peers' (kunit/srpt_common.c: rdma_cm and raw IB
 * CM); this gives them a QP that sends SRP IUs, a receive ring that decodes
 * what the target answers, and a data buffer the target can RDMA-read and
 * RDMA-write.
 */
#ifndef CMKIT_SRP_PEER_H
#define CMKIT_SRP_PEER_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <kunit/test.h>
#include <cmkit/scsi.h>
#include <cmkit/srp.h>
#include <cmkit/srp_iu.h>

struct cmkit_peer;
struct ib_device;
struct ib_qp;

/* Receive IUs the initiator keeps posted, and IUs it may have in flight. */
#define CMKIT_SRP_PEER_NR_RX	64
#define CMKIT_SRP_PEER_NR_TX	64
/* The it_iu_len the initiator logs in with: the most the target may send. */
#define CMKIT_SRP_PEER_RX_LEN	4096
/* The largest IU the initiator sends (immediate data included). */
#define CMKIT_SRP_PEER_TX_LEN	8192
/* ib_srp's offset of immediate data: a 32-byte CDB still fits before. */
#define CMKIT_SRP_PEER_IMM_OFF	68
/* The data buffer: the target reads and writes it with RDMA. */
#define CMKIT_SRP_PEER_DATA_LEN	(256 * 1024)
/* IUs received that the peer remembers, in arrival order. */
#define CMKIT_SRP_PEER_MAX_IUS	256

/**
 * struct cmkit_srp_iu - one IU the initiator received, decoded
 * @opcode: its opcode (byte 0)
 * @len: its length as received
 * @tag: its tag (bytes 8..15)
 * @err: the decoder's result for an SRP_RSP or a 16-byte IU (0 if good)
 * @rsp: an SRP_RSP's fields (@rsp.resp and @rsp.sense are NULL: see below)
 * @resp: the first bytes of its response data (@rsp.resp_len of them, at
 *	most four)
 * @sense: the first bytes of its sense data (@rsp.sense_len of them, at
 *	most CMKIT_SCSI_SENSE_LEN)
 * @value: an SRP_T_LOGOUT's reason, an SRP_CRED_REQ's req_lim_delta
 * @credits: the initiator's credits once this IU's req_lim_delta was added
 */
struct cmkit_srp_iu {
	u8 opcode;
	u32 len;
	u64 tag;
	int err;
	struct cmkit_srp_rsp rsp;
	u8 resp[CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN];
	u8 sense[CMKIT_SCSI_SENSE_LEN];
	u32 value;
	s32 credits;
};

struct cmkit_srp_buf;

/**
 * struct cmkit_srp_peer - an SRP initiator's QP, rings and data buffer
 * @test: the test it belongs to
 * @dev: the device
 * @pd: allocated with IB_PD_UNSAFE_GLOBAL_RKEY (a test peer only: see
 *	srp_peer.c), so that the whole of @data has one rkey
 * @cq: for both of @qp's queues
 * @qp: the QP (on @cm's id for the rdma_cm form)
 * @cm: the rdma_cm form's peer, whose id holds @qp; NULL for a raw QP
 * @qp_owner: the caller's pointer to @qp, cleared when the peer destroys it
 * @rx: the receive ring
 * @tx: the send slots
 * @data: the data buffer, CMKIT_SRP_PEER_DATA_LEN bytes
 * @data_dma: @data mapped for the device: the target's remote address
 * @max_it_iu_len: the login's grant: the longest IU the target takes
 * @imm_off: where immediate data goes, 0 if the login did not grant it
 * @grant: the login's req_lim_delta
 * @lock: protects everything below
 * @wait: woken for every completion
 * @credits: what the initiator may still send: @grant, minus the
 *	requests sent, plus every req_lim_delta received
 * @max_credits: the most @credits ever were
 * @returned: the sum of the req_lim_deltas received
 * @nr_ius: IUs received (those past CMKIT_SRP_PEER_MAX_IUS are counted,
 *	not kept)
 * @ius: the IUs received
 * @sent: Sends completed successfully
 * @send_errors: Sends completed in error (flushed, or the target gone)
 * @recv_errors: Receives completed in error
 * @repost_errors: Receives that could not be posted again
 * @tx_busy: send slots in use
 * @rx_posted: the receive ring was posted
 * @dead: the QP was destroyed: post nothing
 */
struct cmkit_srp_peer {
	struct kunit *test;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct cmkit_peer *cm;
	struct ib_qp **qp_owner;
	struct cmkit_srp_buf *rx;
	struct cmkit_srp_buf *tx;
	u8 *data;
	u64 data_dma;
	u32 max_it_iu_len;
	u16 imm_off;
	u32 grant;
	spinlock_t lock;	/* everything below */
	wait_queue_head_t wait;
	s32 credits;
	s32 max_credits;
	u64 returned;
	unsigned int nr_ius;
	struct cmkit_srp_iu ius[CMKIT_SRP_PEER_MAX_IUS];
	unsigned int sent;
	unsigned int send_errors;
	unsigned int recv_errors;
	unsigned int repost_errors;
	unsigned int tx_busy;
	bool rx_posted;
	bool dead;
};

struct cmkit_srp_peer *cmkit_srp_peer_create(struct kunit *test, struct ib_device *dev);
int cmkit_srp_peer_create_qp(struct cmkit_srp_peer *p, struct cmkit_peer *cm,
			     struct ib_qp **owner);
int cmkit_srp_peer_start(struct cmkit_srp_peer *p, const struct cmkit_srp_login_rsp *rsp,
			 bool hold_rx);
int cmkit_srp_peer_post_rx(struct cmkit_srp_peer *p);
void cmkit_srp_peer_stop(struct cmkit_srp_peer *p);
void cmkit_srp_peer_destroy(struct cmkit_srp_peer *p);

int cmkit_srp_peer_send(struct cmkit_srp_peer *p, const void *iu, u32 len);
int cmkit_srp_peer_send_over(struct cmkit_srp_peer *p, const void *iu, u32 len);
int cmkit_srp_peer_send_rsp(struct cmkit_srp_peer *p, const void *iu, u32 len);
int cmkit_srp_peer_wait_sent(struct cmkit_srp_peer *p);
int cmkit_srp_peer_wait_tag(struct cmkit_srp_peer *p, u64 tag, struct cmkit_srp_iu *out);
int cmkit_srp_peer_wait_ius(struct cmkit_srp_peer *p, unsigned int n);
bool cmkit_srp_peer_has_tag(struct cmkit_srp_peer *p, u64 tag);
unsigned int cmkit_srp_peer_nr_ius(struct cmkit_srp_peer *p);
s32 cmkit_srp_peer_credits(struct cmkit_srp_peer *p);

void cmkit_srp_peer_desc(struct cmkit_srp_peer *p, u32 off, u32 len,
			 struct cmkit_srp_direct *d);
void cmkit_srp_peer_fill(struct cmkit_srp_peer *p, u32 off, u32 len, u32 seed);
bool cmkit_srp_peer_same(struct cmkit_srp_peer *p, u32 a, u32 b, u32 len);
void cmkit_srp_peer_sync_for_cpu(struct cmkit_srp_peer *p);

#endif /* CMKIT_SRP_PEER_H */
