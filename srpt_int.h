/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit srpt: the SRP target's own structures, shared by its files
 * (srpt_cm.c: listeners, logins and channels; srpt_ioctx.c: the receive
 * ring).  What cmkit_test.ko may use is in srpt.h.
 */
#ifndef CMKIT_SRPT_INT_H
#define CMKIT_SRPT_INT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <cmkit/srp.h>

#include "srpt.h"

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

/**
 * struct srpt_recv_ioctx - one receive IU buffer of a channel
 * @cqe: its completion (srpt_recv_done())
 * @buf: the IU buffer, @ch->max_it_iu_len bytes
 * @dma: @buf mapped for the device
 */
struct srpt_recv_ioctx {
	struct ib_cqe cqe;
	void *buf;
	u64 dma;
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
 * @kref: the release work's reference, plus one around each close
 * @lock: protects @state
 * @state: an enum srpt_ch_state; only moves up
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
	struct kref kref;
	spinlock_t lock;	/* protects @state */
	enum srpt_ch_state state;
	struct list_head list;
	struct work_struct release_work;
	struct rcu_head rcu;
	bool qp_rtr;
	bool released;
	bool rdma_cm;
	u64 tag;
	u8 i_port_id[CMKIT_SRP_PORT_ID_LEN];
};

bool srpt_fault(enum srpt_fault fault);
enum srpt_ch_state srpt_get_ch_state(struct srpt_rdma_ch *ch);

/* The receive ring (srpt_ioctx.c). */
int srpt_alloc_recv_ring(struct srpt_rdma_ch *ch);
void srpt_free_recv_ring(struct srpt_rdma_ch *ch);
int srpt_post_recv_ring(struct srpt_rdma_ch *ch);
unsigned int srpt_nr_received(void);

#if IS_ENABLED(CONFIG_KUNIT)
void srpt_hook(enum srpt_hook hook, u64 tag, const void *data, u32 len);
#else
static inline void srpt_hook(enum srpt_hook hook, u64 tag, const void *data,
			     u32 len)
{
}
#endif

#endif /* CMKIT_SRPT_INT_H */
