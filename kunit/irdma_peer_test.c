// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma_hostile: remote peers that try to stall cmkit's irdma CM.
 *
 * Every peer here is a plain kernel TCP socket that breaks no MPA rule and
 * yet used to hold something cmkit shares: one that streams data after its
 * request (its node's lock, and with it every consumer call on the node),
 * one that asks for peer-to-peer and never sends its RTR (the core's
 * ordered event workqueue, when the accept is made from the upcall).  Each
 * case drives the consumer API from a work item and waits for it with a
 * bounded wait: a call that does not return fails the case instead of
 * hanging the suite.  No case asserts a duration (the flood case logs its
 * destroy's, the soak runs to a deadline); each asserts what happened and
 * in what order, and the core's counters.
 *
 * The cases run on a private core each, against siw0's address (no siw
 * connection is made), so a stalled case cannot leak into the others.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include <cmkit/mpa_fpdu.h>
#include "cmkit_test.h"
#include "irdma/irdma.h"
#include "irdma_test.h"

#define HOSTILE_CHUNK		(64 * 1024)
/* What a streaming peer pushes through an established connection. */
#define HOSTILE_STREAM_BYTES	(16 * 1024 * 1024)

static int hostile_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void hostile_add_res(struct kunit *test, void (*free)(struct kunit_resource *),
			    void *data)
{
	if (!kunit_alloc_resource(test, hostile_res_init, free, GFP_KERNEL, data)) {
		kfree(data);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
}

/* ---- a recording upper layer ------------------------------------------- */

#define HUL_MAX_REC	8

struct soak;

/**
 * struct hul - an iw_cm_id that records its upcalls
 * @id: handed to cmkit
 * @name: for messages
 * @lock: protects everything below
 * @wait: woken on every upcall and reference drop
 * @refs: add_ref() minus rem_ref()
 * @n: upcalls per iw_cm event type
 * @nr: upcalls recorded
 * @ev: their types, in order
 * @status: their status
 * @provider_data: their provider_data (a CONNECT_REQUEST's names its node)
 * @seq: the suite-wide order of each recorded upcall (hostile_seq)
 * @child: a listener's: the id its CONNECT_REQUEST upcall accepts on, from
 *	the upcall itself (as the control plane does); NULL: no answer there
 * @accept_rc: what that accept returned
 * @soak: the soak whose listener this is (irdma_soak_random_peers())
 * @soak_link: in that soak's list of ids
 */
struct hul {
	struct iw_cm_id id;
	const char *name;
	spinlock_t lock;	/* everything below */
	wait_queue_head_t wait;
	int refs;
	unsigned int n[IW_CM_EVENT_CLOSE + 1];
	unsigned int nr;
	enum iw_cm_event_type ev[HUL_MAX_REC];
	int status[HUL_MAX_REC];
	void *provider_data[HUL_MAX_REC];
	unsigned int seq[HUL_MAX_REC];
	struct hul *child;
	int accept_rc;
	struct soak *soak;
	struct list_head soak_link;
};

static atomic_t hostile_seq = ATOMIC_INIT(0);

static void hul_accept_in_upcall(struct hul *hul, struct iw_cm_event *ev)
{
	struct iw_cm_conn_param param = { .ird = 4, .ord = 4 };
	struct hul *child = hul->child;

	hul->child = NULL;	/* one request per listener is answered here */
	child->id.provider_data = ev->provider_data;
	hul->accept_rc = cmkit_irdma_accept(&child->id, &param);
}

static int hul_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct hul *hul = container_of(id, struct hul, id);
	unsigned int seq = atomic_inc_return(&hostile_seq);
	bool accept = false;

	spin_lock(&hul->lock);
	if (ev->event <= IW_CM_EVENT_CLOSE)
		hul->n[ev->event]++;
	if (hul->nr < HUL_MAX_REC) {
		hul->ev[hul->nr] = ev->event;
		hul->status[hul->nr] = ev->status;
		hul->provider_data[hul->nr] = ev->provider_data;
		hul->seq[hul->nr] = seq;
		hul->nr++;
	}
	accept = ev->event == IW_CM_EVENT_CONNECT_REQUEST && hul->child;
	spin_unlock(&hul->lock);
	if (accept)
		hul_accept_in_upcall(hul, ev);
	wake_up_all(&hul->wait);
	return 0;
}

static void hul_add_ref(struct iw_cm_id *id)
{
	struct hul *hul = container_of(id, struct hul, id);

	spin_lock(&hul->lock);
	hul->refs++;
	spin_unlock(&hul->lock);
}

static void hul_rem_ref(struct iw_cm_id *id)
{
	struct hul *hul = container_of(id, struct hul, id);

	spin_lock(&hul->lock);
	hul->refs--;
	spin_unlock(&hul->lock);
	wake_up_all(&hul->wait);
}

static int hul_refs(struct hul *hul)
{
	int refs;

	spin_lock(&hul->lock);
	refs = hul->refs;
	spin_unlock(&hul->lock);
	return refs;
}

static unsigned int hul_count(struct hul *hul, enum iw_cm_event_type event)
{
	unsigned int n;

	spin_lock(&hul->lock);
	n = hul->n[event];
	spin_unlock(&hul->lock);
	return n;
}

/* Wait for an upcall of type @event; return its index in the record, or -1. */
static int hul_wait(struct hul *hul, enum iw_cm_event_type event)
{
	unsigned int i;
	int found = -1;

	if (!wait_event_timeout(hul->wait, hul_count(hul, event) > 0, cmkit_test_timeout()))
		return -1;
	spin_lock(&hul->lock);
	for (i = 0; i < hul->nr; i++) {
		if (hul->ev[i] == event) {
			found = i;
			break;
		}
	}
	spin_unlock(&hul->lock);
	return found;
}

static int hul_wait_released(struct hul *hul)
{
	return wait_event_timeout(hul->wait, hul_refs(hul) == 0, cmkit_test_timeout()) ?
	       0 : -ETIMEDOUT;
}

/* Freed only once cmkit holds it no more: a leak beats a use after free. */
static void hul_free(struct kunit_resource *res)
{
	struct hul *hul = res->data;

	if (hul_wait_released(hul)) {
		pr_err("cmkit_test: irdma %s: still referenced at the end: leaked\n", hul->name);
		return;
	}
	kfree(hul);
}

/* A recording upper layer's id, before its first use. */
static void hul_init(struct hul *hul, const char *name)
{
	hul->name = name;
	spin_lock_init(&hul->lock);
	init_waitqueue_head(&hul->wait);
	hul->id.event_handler = hul_handler;
	hul->id.add_ref = hul_add_ref;
	hul->id.rem_ref = hul_rem_ref;
}

static struct hul *hul_create(struct kunit *test, const char *name,
			      const struct sockaddr_in *local)
{
	struct hul *hul = kzalloc_obj(*hul, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, hul);
	hul_init(hul, name);
	if (local) {
		memcpy(&hul->id.local_addr, local, sizeof(*local));
		memcpy(&hul->id.m_local_addr, local, sizeof(*local));
	}
	hostile_add_res(test, hul_free, hul);
	return hul;
}

/* ---- a private core ------------------------------------------------------ */

static void hostile_core_free(struct kunit_resource *res)
{
	struct irdma_cm_core *core = res->data;

	if (core->event_wq)	/* the case ended before its own cleanup */
		cmkit_irdma_cleanup_cm_core(core);
	kfree(core);
}

static struct irdma_cm_core *hostile_core(struct kunit *test)
{
	struct irdma_cm_core *core = kzalloc_obj(*core, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, core);
	if (cmkit_irdma_setup_cm_core(core)) {
		kfree(core);
		KUNIT_ASSERT_TRUE_MSG(test, false, "cmkit_irdma_setup_cm_core failed");
	}
	hostile_add_res(test, hostile_core_free, core);
	return core;
}

/* The core's end: every node and listener gone, every event in order. */
static void hostile_end_core(struct kunit *test, struct irdma_cm_core *core)
{
	cmkit_irdma_cleanup_cm_core(core);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->live), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_misordered), 0);
}

/* ---- a raw TCP peer --------------------------------------------------- */

/*
 * "MPA ID Req Frame", then a revision 1 request without private data: what
 * any MPA initiator may send.
 */
static const u8 hostile_rev1_req[] = {
	'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
	0x00, 0x01, 0x00, 0x00,
};

/*
 * Streams zeros into its socket from a work item until told to stop, or
 * the socket fails.  A send that TCP's window holds back for HZ/4 (the
 * socket's send timeout) marks the peer stalled: the other side reads
 * nothing.
 */
struct streamer {
	struct work_struct work;
	struct socket *sock;
	void *buf;
	bool stop;
	u64 sent;		/* under @lock */
	int err;
	spinlock_t lock;	/* @sent */
	wait_queue_head_t wait;
	struct completion stalled;
	struct completion done;
	bool started;
};

static void streamer_fn(struct work_struct *work)
{
	struct streamer *st = container_of(work, struct streamer, work);
	struct kvec iov = { .iov_base = st->buf, .iov_len = HOSTILE_CHUNK };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int rc;

	while (!READ_ONCE(st->stop)) {
		rc = kernel_sendmsg(st->sock, &msg, &iov, 1, HOSTILE_CHUNK);
		if (rc == -EAGAIN || (rc >= 0 && rc < HOSTILE_CHUNK))
			complete_all(&st->stalled);
		if (rc < 0 && rc != -EAGAIN) {
			st->err = rc;
			break;
		}
		if (rc > 0) {
			spin_lock(&st->lock);
			st->sent += rc;
			spin_unlock(&st->lock);
			wake_up_all(&st->wait);
		}
	}
	complete_all(&st->done);
}

static u64 streamer_sent(struct streamer *st)
{
	u64 sent;

	spin_lock(&st->lock);
	sent = st->sent;
	spin_unlock(&st->lock);
	return sent;
}

static void streamer_stop(struct streamer *st)
{
	WRITE_ONCE(st->stop, true);
	if (st->started && !wait_for_completion_timeout(&st->done, cmkit_test_timeout()))
		pr_err("cmkit_test: irdma: a streaming peer never stopped\n");
}

static void streamer_free(struct kunit_resource *res)
{
	struct streamer *st = res->data;

	streamer_stop(st);
	if (st->started && !completion_done(&st->done))
		return;	/* still sending: leaked rather than freed under it */
	if (st->sock) {
		sock_no_linger(st->sock->sk);
		sock_release(st->sock);
	}
	kfree(st->buf);
	kfree(st);
}

/* A peer connected to @addr that has sent @req (a whole MPA request). */
static struct streamer *hostile_peer(struct kunit *test, struct sockaddr_in *addr,
				     const u8 *req, size_t len)
{
	struct streamer *st = kzalloc_obj(*st, GFP_KERNEL);
	struct kvec iov = { .iov_base = (void *)req, .iov_len = len };
	struct msghdr msg = {};

	KUNIT_ASSERT_NOT_NULL(test, st);
	spin_lock_init(&st->lock);
	init_waitqueue_head(&st->wait);
	init_completion(&st->stalled);
	init_completion(&st->done);
	INIT_WORK(&st->work, streamer_fn);
	st->buf = kzalloc(HOSTILE_CHUNK, GFP_KERNEL);
	if (!st->buf) {
		kfree(st);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a streaming peer");
	}
	hostile_add_res(test, streamer_free, st);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
					       &st->sock), 0);
	st->sock->sk->sk_rcvtimeo = cmkit_test_timeout();
	st->sock->sk->sk_sndtimeo = cmkit_test_timeout();
	KUNIT_ASSERT_EQ(test, kernel_connect(st->sock, CMKIT_KSOCKADDR(addr), sizeof(*addr), 0),
			0);
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(st->sock, &msg, &iov, 1, len), (int)len);
	return st;
}

static void streamer_start(struct streamer *st)
{
	st->sock->sk->sk_sndtimeo = HZ / 4;
	st->started = true;
	queue_work(system_unbound_wq, &st->work);
}

/* ---- the consumer API on a work item, waited for with a bound ----------- */

enum hostile_op {
	OP_REJECT,
	OP_ACCEPT,
	OP_MPA_INFO,
	OP_DESTROY_LISTEN,
	OP_RESET,
};

struct api_call {
	struct work_struct work;
	enum hostile_op op;
	struct iw_cm_id *id;
	int rc;
	struct completion done;
};

static void api_call_fn(struct work_struct *work)
{
	struct api_call *c = container_of(work, struct api_call, work);
	struct iw_cm_conn_param param = { .ird = 4, .ord = 4 };
	struct cmkit_irdma_mpa_info info;

	switch (c->op) {
	case OP_REJECT:
		c->rc = cmkit_irdma_reject(c->id, NULL, 0);
		break;
	case OP_ACCEPT:
		c->rc = cmkit_irdma_accept(c->id, &param);
		break;
	case OP_MPA_INFO:
		c->rc = cmkit_irdma_mpa_info(c->id, &info);
		break;
	case OP_DESTROY_LISTEN:
		c->rc = cmkit_irdma_destroy_listen(c->id);
		break;
	case OP_RESET:
		c->rc = cmkit_irdma_cm_close(c->id, true);
		break;
	}
	complete_all(&c->done);
}

static void api_call_free(struct kunit_resource *res)
{
	struct api_call *c = res->data;

	/* A call still blocked when the case ended: leaked, not freed under it. */
	if (!wait_for_completion_timeout(&c->done, cmkit_test_timeout())) {
		pr_err("cmkit_test: irdma: a consumer call never returned: leaked\n");
		return;
	}
	kfree(c);
}

/*
 * Make the call from a work item and wait for it, bounded.  Return: its
 * return value, or -EDEADLK when it did not return in time.
 */
static int api_call(struct kunit *test, enum hostile_op op, struct iw_cm_id *id)
{
	struct api_call *c = kzalloc_obj(*c, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->op = op;
	c->id = id;
	init_completion(&c->done);
	INIT_WORK(&c->work, api_call_fn);
	hostile_add_res(test, api_call_free, c);
	queue_work(system_unbound_wq, &c->work);
	if (!wait_for_completion_timeout(&c->done, cmkit_test_timeout()))
		return -EDEADLK;
	return c->rc;
}

/* ---- a peer that streams after its request ------------------------------ */

static const enum hostile_op stream_ops[] = {
	OP_REJECT, OP_ACCEPT, OP_MPA_INFO, OP_DESTROY_LISTEN,
};

static void stream_op_desc(const enum hostile_op *op, char *desc)
{
	static const char * const names[] = {
		[OP_REJECT] = "reject",
		[OP_ACCEPT] = "accept, then an abrupt close",
		[OP_MPA_INFO] = "mpa_info, then reject",
		[OP_DESTROY_LISTEN] = "destroy_listen, then reject",
	};

	strscpy(desc, names[*op], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_stream, stream_ops, stream_op_desc);

/* Bytes of @hul's connection that cmkit's socket work read and dropped. */
static u64 hostile_rx_dropped(struct hul *hul)
{
	struct irdma_cm_node *node = cmkit_irdma_cm_id_get_node(&hul->id);
	u64 dropped;

	if (!node)
		return U64_MAX;
	mutex_lock(&node->lock);
	dropped = node->rx_dropped;
	mutex_unlock(&node->lock);
	cmkit_irdma_rem_ref_cm_node(node);
	return dropped;
}

/*
 * A peer sends its request, then streams.  While the request awaits its
 * answer cmkit reads nothing, so TCP's window stops the peer (it stalls)
 * and each consumer call on the node returns.  Once the connection is up
 * cmkit drops what the peer sends, a bounded amount per run of its socket
 * work, so an abrupt close still gets the node while the peer streams.
 */
static void irdma_streaming_peer_holds_no_lock(struct kunit *test)
{
	const enum hostile_op *op = test->param_value;
	struct irdma_cm_core *core = hostile_core(test);
	struct hul *lul, *child;
	struct sockaddr_in addr;
	struct streamer *st;
	u64 sent;
	int i;

	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &addr);
	lul = hul_create(test, "listener", &addr);
	child = hul_create(test, "child", NULL);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	st = hostile_peer(test, &addr, hostile_rev1_req, sizeof(hostile_rev1_req));
	i = hul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_GE(test, i, 0);
	child->id.provider_data = lul->provider_data[i];

	streamer_start(st);
	/* The request is pending: nothing is read, and the peer stalls. */
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&st->stalled,
							      cmkit_test_timeout()), 0,
			    "the peer never stalled: cmkit reads a pending request's socket");
	KUNIT_EXPECT_EQ(test, hostile_rx_dropped(child), 0ULL);
	KUNIT_EXPECT_GT(test, atomic_read(&core->stats.rx_held), 0);

	switch (*op) {
	case OP_REJECT:
		KUNIT_EXPECT_EQ(test, api_call(test, OP_REJECT, &child->id), 0);
		break;
	case OP_MPA_INFO:
		KUNIT_EXPECT_EQ(test, api_call(test, OP_MPA_INFO, &child->id), 0);
		KUNIT_EXPECT_EQ(test, api_call(test, OP_REJECT, &child->id), 0);
		break;
	case OP_DESTROY_LISTEN:
		KUNIT_EXPECT_EQ(test, api_call(test, OP_DESTROY_LISTEN, &lul->id), 0);
		KUNIT_EXPECT_EQ(test, api_call(test, OP_REJECT, &child->id), 0);
		break;
	case OP_ACCEPT:
		KUNIT_ASSERT_EQ(test, api_call(test, OP_ACCEPT, &child->id), 0);
		KUNIT_ASSERT_GE(test, hul_wait(child, IW_CM_EVENT_ESTABLISHED), 0);
		/* Up: what the peer streams is read and dropped, in bounded runs. */
		sent = streamer_sent(st);
		KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(st->wait, streamer_sent(st) >=
							     sent + HOSTILE_STREAM_BYTES,
							     cmkit_test_timeout()), 0,
				    "the peer could not stream through the connection");
		KUNIT_EXPECT_EQ(test, api_call(test, OP_RESET, &child->id), 0);
		KUNIT_ASSERT_GE(test, hul_wait(child, IW_CM_EVENT_CLOSE), 0);
		KUNIT_EXPECT_EQ(test, hul_count(child, IW_CM_EVENT_DISCONNECT), 1U);
		KUNIT_EXPECT_GT(test, atomic_read(&core->stats.rx_yields), 0);
		break;
	default:
		break;
	}
	streamer_stop(st);
	if (*op != OP_DESTROY_LISTEN)
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_EXPECT_EQ(test, hul_count(lul, IW_CM_EVENT_CONNECT_REQUEST), 1U);
	KUNIT_EXPECT_EQ(test, hul_wait_released(child), 0);
	KUNIT_EXPECT_EQ(test, hul_wait_released(lul), 0);
	hostile_end_core(test, core);
}

/* ---- a P2P requester that never sends its RTR ---------------------------- */

/*
 * The consumer accepts from the CONNECT_REQUEST upcall (as the control
 * plane does).  A peer asks for P2P with a Write RTR and then stays silent
 * (the RTR timer is an hour): the accept returns at once, and a second
 * connection's request, accept and ESTABLISHED all come while the first
 * still waits.  When the RTR finally comes, the first gets its ESTABLISHED.
 */
static void irdma_silent_p2p_requester_holds_up_no_upcall(struct kunit *test)
{
	struct irdma_cm_core *core = hostile_core(test);
	struct hul *lul1, *lul2, *child1, *child2;
	struct sockaddr_in addr1, addr2;
	struct cmkit_irdma_mpa_info info;
	u8 buf[CMKIT_MPA_HDR_LEN + 4];
	u8 rtr[64];
	struct streamer *p1;
	struct kvec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {};
	int est1, est2, n;

	core->mpa_req_timeout = 3600 * MSEC_PER_SEC;
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &addr1);
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &addr2);
	lul1 = hul_create(test, "p2p listener", &addr1);
	lul2 = hul_create(test, "second listener", &addr2);
	child1 = hul_create(test, "silent child", NULL);
	child2 = hul_create(test, "second child", NULL);
	lul1->child = child1;
	lul2->child = child2;
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul1->id, 4), 0);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul2->id, 4), 0);

	p1 = hostile_peer(test, &addr1, raw_p2p_write_req, sizeof(raw_p2p_write_req));
	/* The reply comes: the accept in the upcall sent it, granting P2P Write. */
	KUNIT_ASSERT_EQ(test, kernel_recvmsg(p1->sock, &msg, &iov, 1, sizeof(buf),
					     MSG_WAITALL), (int)sizeof(buf));
	KUNIT_EXPECT_EQ(test, buf[16] & CMKIT_MPA_FLAG_REJECT, 0);
	KUNIT_EXPECT_EQ(test, buf[20] & 0x80, 0x80);	/* P2P */
	KUNIT_EXPECT_EQ(test, buf[22] & 0x80, 0x80);	/* Write RTR */

	/* A second connection, while the first stays silent. */
	hostile_peer(test, &addr2, hostile_rev1_req, sizeof(hostile_rev1_req));
	KUNIT_ASSERT_GE_MSG(test, hul_wait(lul2, IW_CM_EVENT_CONNECT_REQUEST), 0,
			    "a silent P2P requester held up another connection's request");
	est2 = hul_wait(child2, IW_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_GE(test, est2, 0);
	KUNIT_EXPECT_EQ(test, lul1->accept_rc, 0);
	KUNIT_EXPECT_EQ(test, lul2->accept_rc, 0);
	KUNIT_EXPECT_EQ(test, hul_count(child1, IW_CM_EVENT_ESTABLISHED), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_mpa_info(&child1->id, &info), 0);
	KUNIT_EXPECT_TRUE(test, info.p2p);
	KUNIT_EXPECT_EQ(test, info.rtr, CMKIT_MPA_RTR_WRITE);

	/* The RTR at last: ESTABLISHED for the first, after the second's. */
	n = cmkit_rtr_build(rtr, sizeof(rtr), CMKIT_MPA_RTR_WRITE, 0);
	KUNIT_ASSERT_GT(test, n, 0);
	iov.iov_base = rtr;
	iov.iov_len = n;
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(p1->sock, &msg, &iov, 1, n), n);
	est1 = hul_wait(child1, IW_CM_EVENT_ESTABLISHED);
	KUNIT_ASSERT_GE(test, est1, 0);
	KUNIT_EXPECT_LT(test, child2->seq[est2], child1->seq[est1]);

	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&child1->id, true), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&child2->id, true), 0);
	KUNIT_ASSERT_GE(test, hul_wait(child1, IW_CM_EVENT_CLOSE), 0);
	KUNIT_ASSERT_GE(test, hul_wait(child2, IW_CM_EVENT_CLOSE), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.aborts), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul1->id), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul2->id), 0);
	KUNIT_EXPECT_EQ(test, hul_wait_released(child1), 0);
	KUNIT_EXPECT_EQ(test, hul_wait_released(child2), 0);
	hostile_end_core(test, core);
}

/* ---- a peer that never answers our FIN ----------------------------------- */

/*
 * An orderly close whose peer reads our FIN and keeps its half open: after
 * the core's close timeout the peer is reset and the upper layer hears
 * DISCONNECT(-ECONNRESET) and CLOSE, with no abrupt close asked for.
 */
static void irdma_orderly_close_ends_without_the_peer_fin(struct kunit *test)
{
	struct irdma_cm_core *core = hostile_core(test);
	struct iw_cm_conn_param param = { .ird = 4, .ord = 4 };
	struct kvec iov;
	struct msghdr msg = {};
	struct hul *lul, *child;
	struct sockaddr_in addr;
	struct streamer *peer;
	u8 buf[CMKIT_MPA_HDR_LEN];
	int i;

	core->close_timeout = 1000;
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &addr);
	lul = hul_create(test, "listener", &addr);
	child = hul_create(test, "child", NULL);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	peer = hostile_peer(test, &addr, hostile_rev1_req, sizeof(hostile_rev1_req));
	i = hul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_GE(test, i, 0);
	child->id.provider_data = lul->provider_data[i];
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_ASSERT_GE(test, hul_wait(child, IW_CM_EVENT_ESTABLISHED), 0);
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	KUNIT_ASSERT_EQ(test, kernel_recvmsg(peer->sock, &msg, &iov, 1, sizeof(buf),
					     MSG_WAITALL), (int)sizeof(buf));

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&child->id, false), 0);
	/* Our FIN arrives; the peer never sends its own. */
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(peer->sock, &msg, &iov, 1, 1, 0), 0);
	i = hul_wait(child, IW_CM_EVENT_DISCONNECT);
	KUNIT_ASSERT_GE_MSG(test, i, 0, "an orderly close never ended without the peer's FIN");
	KUNIT_EXPECT_EQ(test, child->status[i], -ECONNRESET);
	KUNIT_ASSERT_GE(test, hul_wait(child, IW_CM_EVENT_CLOSE), 0);
	KUNIT_EXPECT_EQ(test, child->nr, 3U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_EXPECT_EQ(test, hul_wait_released(child), 0);
	hostile_end_core(test, core);
}

/* ---- a request while the listener comes up -------------------------------- */

struct bringup {
	struct sockaddr_in addr;
	struct socket *sock;
	int rc;
	bool handled;
};

static void bringup_free(struct kunit_resource *res)
{
	struct bringup *b = res->data;

	if (b->sock) {
		sock_no_linger(b->sock->sk);
		sock_release(b->sock);
	}
	kfree(b);
}

/*
 * The listener is accepting but not published yet: a peer connects and
 * sends its request, and the hook waits until cmkit has dealt with it
 * (deferred it, or, before issue 25's fix, refused it and freed its node).
 */
static void bringup_hook(struct irdma_cm_core *core, enum irdma_cm_hook where, void *arg)
{
	struct bringup *b = core->test_data;
	struct kvec iov = {
		.iov_base = (void *)hostile_rev1_req, .iov_len = sizeof(hostile_rev1_req),
	};
	struct msghdr msg = {};

	if (where != IRDMA_HOOK_LISTEN_HOOKED)
		return;
	b->rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &b->sock);
	if (b->rc)
		return;
	b->sock->sk->sk_rcvtimeo = cmkit_test_timeout();
	b->sock->sk->sk_sndtimeo = cmkit_test_timeout();
	b->rc = kernel_connect(b->sock, CMKIT_KSOCKADDR(&b->addr), sizeof(b->addr), 0);
	if (!b->rc && kernel_sendmsg(b->sock, &msg, &iov, 1, iov.iov_len) != (int)iov.iov_len)
		b->rc = -EIO;
	if (b->rc)
		return;
	b->handled = wait_event_timeout(core->wait,
					atomic_read(&core->stats.requests_deferred) ||
					atomic_read(&core->stats.nodes_freed),
					cmkit_test_timeout());
}

/*
 * A request that comes while the listener is coming up (accepting, not yet
 * published) waits for it, and is indicated once it is: it is not refused
 * as if the listener were being destroyed.
 */
static void irdma_request_during_listener_bring_up_is_indicated(struct kunit *test)
{
	struct irdma_cm_core *core = hostile_core(test);
	struct bringup *b = kzalloc_obj(*b, GFP_KERNEL);
	struct hul *lul, *child;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	hostile_add_res(test, bringup_free, b);
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &b->addr);
	lul = hul_create(test, "listener", &b->addr);
	child = hul_create(test, "child", NULL);
	core->test_data = b;
	WRITE_ONCE(core->test_hook, bringup_hook);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	WRITE_ONCE(core->test_hook, NULL);
	KUNIT_ASSERT_EQ(test, b->rc, 0);
	KUNIT_EXPECT_TRUE(test, b->handled);

	i = hul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_ASSERT_GE_MSG(test, i, 0, "a request during the listener's bring-up was refused");
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.requests_deferred), 1);
	child->id.provider_data = lul->provider_data[i];
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_EXPECT_EQ(test, hul_wait_released(lul), 0);
	hostile_end_core(test, core);
}

/* ---- a flood of connects while the listener is destroyed ------------------ */

#define HOSTILE_FLOOD		1000
#define HOSTILE_FLOOD_BACKLOG	1024

/* Connects HOSTILE_FLOOD sockets to @addr, non-blocking, and keeps them. */
struct flood {
	struct sockaddr_in addr;
	struct socket *socks[HOSTILE_FLOOD];
	unsigned int made;	/* sockets in @socks */
	unsigned int refused;	/* connects that failed at once */
	unsigned int queued;	/* in the accept queue when accepting began */
	struct completion done;	/* the flood was made */
};

static void flood_connect(struct flood *f)
{
	struct socket *sock;
	unsigned int i;
	int rc;

	for (i = 0; i < HOSTILE_FLOOD; i++) {
		if (sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock))
			break;
		rc = kernel_connect(sock, CMKIT_KSOCKADDR(&f->addr), sizeof(f->addr),
				    O_NONBLOCK);
		if (rc && rc != -EINPROGRESS)
			f->refused++;
		f->socks[f->made++] = sock;
		cond_resched();
	}
	complete_all(&f->done);
}

static void flood_free(struct kunit_resource *res)
{
	struct flood *f = res->data;
	unsigned int i;

	/* Made in the listener's hook, in the case's own thread: nothing runs on. */
	for (i = 0; i < f->made; i++) {
		sock_no_linger(f->socks[i]->sk);
		sock_release(f->socks[i]);
	}
	kfree(f);
}

/*
 * The flood, made while the listener's socket listens but before its accept
 * work is hooked in (IRDMA_HOOK_LISTEN_READY): every connection waits in the
 * accept queue when that work first runs, however slow the guest.  Bounded
 * by the connects' own handshakes (the state polled, as the guest's waits do).
 */
static void flood_hook(struct irdma_cm_core *core, enum irdma_cm_hook where, void *arg)
{
	struct irdma_cm_listener *listener = arg;
	struct flood *f = core->test_data;
	unsigned long until;

	if (where != IRDMA_HOOK_LISTEN_READY)
		return;
	flood_connect(f);
	until = jiffies + cmkit_test_timeout();
	while (READ_ONCE(listener->sock->sk->sk_ack_backlog) < f->made - f->refused &&
	       time_before(jiffies, until))
		msleep(20);
	f->queued = READ_ONCE(listener->sock->sk->sk_ack_backlog);
}

/*
 * 1000 connects, none of which sends its request, waiting when the listener
 * starts accepting, and the listener destroyed once its accept work has
 * yielded: the work takes them IRDMA_CM_ACCEPT_BATCH at a time and queues
 * itself again, so the destroy (bounded like every consumer call here)
 * waits for one batch, not for the flood.  Afterwards every node the flood
 * made is gone.
 */
static void irdma_connect_flood_destroy_listen(struct kunit *test)
{
	struct irdma_cm_core *core = hostile_core(test);
	struct flood *f = kzalloc_obj(*f, GFP_KERNEL);
	struct hul *lul;
	ktime_t t0;
	s64 us;

	KUNIT_ASSERT_NOT_NULL(test, f);
	init_completion(&f->done);
	hostile_add_res(test, flood_free, f);
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &f->addr);
	lul = hul_create(test, "listener", &f->addr);
	core->test_data = f;
	WRITE_ONCE(core->test_hook, flood_hook);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, HOSTILE_FLOOD_BACKLOG),
			0);
	WRITE_ONCE(core->test_hook, NULL);
	KUNIT_ASSERT_GT_MSG(test, f->queued, (unsigned int)IRDMA_CM_ACCEPT_BATCH,
			    "the flood's connections were not waiting (%u made, %u refused)",
			    f->made, f->refused);
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(core->wait,
						     atomic_read(&core->stats.accept_yields) > 0,
						     cmkit_test_timeout()), 0,
			    "the accept work never yielded to the flood (%d nodes made)",
			    atomic_read(&core->stats.nodes_made));
	t0 = ktime_get();
	KUNIT_EXPECT_EQ_MSG(test, api_call(test, OP_DESTROY_LISTEN, &lul->id), 0,
			    "destroy_listen did not return during the flood");
	us = ktime_us_delta(ktime_get(), t0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&f->done, cmkit_test_timeout()), 0UL);
	kunit_info(test, "destroy_listen: %lld us; %u connects (%u refused), %d nodes, %d yields\n",
		   us, f->made, f->refused, atomic_read(&core->stats.nodes_made),
		   atomic_read(&core->stats.accept_yields));
	KUNIT_EXPECT_EQ(test, f->made, (unsigned int)HOSTILE_FLOOD);
	KUNIT_EXPECT_GE(test, atomic_read(&core->stats.nodes_made), IRDMA_CM_ACCEPT_BATCH);
	KUNIT_EXPECT_EQ(test, hul_count(lul, IW_CM_EVENT_CONNECT_REQUEST), 0U);
	hostile_end_core(test, core);
	KUNIT_EXPECT_EQ(test, hul_wait_released(lul), 0);
}

/* ---- a soak: raw peers at random and cmkit's own connects ----------------- */

#define SOAK_PEERS		8
#define SOAK_STREAM_MAX		(256 * 1024)

static uint irdma_soak_s = 30;
module_param(irdma_soak_s, uint, 0444);
MODULE_PARM_DESC(irdma_soak_s, "cmkit_irdma_hostile's soak: seconds of random peers (issue 25: 30)");

static uint irdma_soak_seed;
module_param(irdma_soak_seed, uint, 0444);
MODULE_PARM_DESC(irdma_soak_seed, "cmkit_irdma_hostile's soak: PRNG seed (0: a random one, logged)");

struct soak;

/* One raw peer, or (@peer < 0) cmkit's own connecting side. */
struct soak_worker {
	struct work_struct work;
	struct soak *soak;
	int peer;
	struct rnd_state rnd;
	void *buf;
	unsigned int connects;
	unsigned int streams;
	unsigned int stalls;
	unsigned int resets;
	int err;
	struct completion done;
};

/**
 * struct soak - the soak's shared state
 * @addr: the listener's address
 * @core: the private core
 * @lul: the listener; its upcall answers each request at random
 * @deadline: jiffies when the workers stop
 * @stop: set at the end (early on a failure)
 * @wait: a stalling peer's wait, ended by @stop
 * @lock: protects @rnd and @ids
 * @rnd: the listener's choices
 * @ids: every iw_cm_id made on the way (accepted and rejected children,
 *	cmkit's connects), freed once cmkit holds them no more
 * @nr_ids: how many
 * @accepted: requests the listener accepted
 * @rejected: requests it rejected
 * @w: the SOAK_PEERS raw peers, then cmkit's connecting side
 */
struct soak {
	struct sockaddr_in addr;
	struct irdma_cm_core *core;
	struct hul *lul;
	unsigned long deadline;
	bool stop;
	wait_queue_head_t wait;
	spinlock_t lock;	/* @rnd, @ids */
	struct rnd_state rnd;
	struct list_head ids;
	unsigned int nr_ids;
	atomic_t accepted;
	atomic_t rejected;
	struct soak_worker w[SOAK_PEERS + 1];
};

static bool soak_over(struct soak *s)
{
	return READ_ONCE(s->stop) || time_after(jiffies, s->deadline);
}

/* A bare recording id, remembered in @s->ids; NULL without memory. */
static struct hul *soak_id(struct soak *s, const char *name)
{
	struct hul *h = kzalloc_obj(*h, GFP_KERNEL);

	if (!h)
		return NULL;
	hul_init(h, name);
	spin_lock(&s->lock);
	list_add_tail(&h->soak_link, &s->ids);
	s->nr_ids++;
	spin_unlock(&s->lock);
	return h;
}

/* The listener's upcall: accept or reject each request, at random. */
static int soak_listener_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct hul *lul = container_of(id, struct hul, id);
	struct iw_cm_conn_param param = { .ird = 4, .ord = 4 };
	struct soak *s = lul->soak;
	struct hul *child;
	bool accept;

	hul_handler(id, ev);
	if (ev->event != IW_CM_EVENT_CONNECT_REQUEST)
		return 0;
	spin_lock(&s->lock);
	accept = prandom_u32_state(&s->rnd) & 1;
	spin_unlock(&s->lock);
	child = soak_id(s, "soak child");
	if (!child)
		return 0;	/* the core refuses it when the listener goes */
	child->id.provider_data = ev->provider_data;
	if (accept && !cmkit_irdma_accept(&child->id, &param))
		atomic_inc(&s->accepted);
	else if (!cmkit_irdma_reject(&child->id, NULL, 0))
		atomic_inc(&s->rejected);
	return 0;
}

/* A raw peer's one connection: connect, request, then stream or stall. */
static void soak_peer_once(struct soak_worker *w)
{
	struct soak *s = w->soak;
	struct kvec iov = {
		.iov_base = (void *)hostile_rev1_req, .iov_len = sizeof(hostile_rev1_req),
	};
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct socket *sock;
	u32 r, bytes;

	if (sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock)) {
		w->err = -ENOMEM;
		return;
	}
	sock->sk->sk_sndtimeo = HZ / 20;
	sock->sk->sk_rcvtimeo = HZ / 20;
	if (kernel_connect(sock, CMKIT_KSOCKADDR(&s->addr), sizeof(s->addr), 0))
		goto out;
	w->connects++;
	if (kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len) != (int)iov.iov_len)
		goto out;
	r = prandom_u32_state(&w->rnd);
	switch (r % 3) {
	case 0:	/* stream: TCP's window stops it while the request is pending */
		w->streams++;
		bytes = prandom_u32_state(&w->rnd) % SOAK_STREAM_MAX;
		while (bytes && !soak_over(s)) {
			iov.iov_base = w->buf;
			iov.iov_len = min_t(u32, bytes, HOSTILE_CHUNK);
			if (kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len) <= 0)
				break;
			bytes -= min_t(u32, bytes, HOSTILE_CHUNK);
		}
		break;
	case 1:	/* stall: send nothing for up to 200 ms */
		w->stalls++;
		wait_event_timeout(s->wait, soak_over(s),
				   msecs_to_jiffies(prandom_u32_state(&w->rnd) % 200));
		break;
	default:	/* go at once */
		break;
	}
out:
	if (r & 4) {	/* a reset rather than an orderly close */
		w->resets++;
		sock_no_linger(sock->sk);
	}
	sock_release(sock);
}

/* cmkit's connecting side: connect to the listener, close, at random. */
static void soak_cmkit_once(struct soak_worker *w)
{
	struct soak *s = w->soak;
	struct iw_cm_conn_param param = { .ird = 4, .ord = 4 };
	struct sockaddr_in src;
	struct hul *ul = soak_id(s, "soak cmkit");
	bool abrupt;
	int i;

	if (!ul) {
		w->err = -ENOMEM;
		return;
	}
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], 0, &src);
	memcpy(&ul->id.local_addr, &src, sizeof(src));
	memcpy(&ul->id.m_local_addr, &src, sizeof(src));
	memcpy(&ul->id.remote_addr, &s->addr, sizeof(s->addr));
	memcpy(&ul->id.m_remote_addr, &s->addr, sizeof(s->addr));
	w->err = cmkit_irdma_connect(s->core, &ul->id, &param);
	if (w->err)
		return;
	w->connects++;
	i = hul_wait(ul, IW_CM_EVENT_CONNECT_REPLY);
	if (i < 0) {
		w->err = -ETIMEDOUT;
		return;
	}
	if (ul->status[i])
		return;
	w->streams++;
	abrupt = prandom_u32_state(&w->rnd) & 1;
	w->resets += abrupt;
	cmkit_irdma_cm_close(&ul->id, abrupt);
	if (hul_wait(ul, IW_CM_EVENT_CLOSE) < 0)
		w->err = -ETIMEDOUT;
}

static void soak_fn(struct work_struct *work)
{
	struct soak_worker *w = container_of(work, struct soak_worker, work);

	while (!soak_over(w->soak) && !w->err) {
		if (w->peer < 0)
			soak_cmkit_once(w);
		else
			soak_peer_once(w);
		cond_resched();
	}
	complete_all(&w->done);
}

static void soak_free(struct kunit_resource *res)
{
	struct soak *s = res->data;
	struct hul *h, *tmp;
	unsigned int i;

	WRITE_ONCE(s->stop, true);
	wake_up_all(&s->wait);
	for (i = 0; i < ARRAY_SIZE(s->w); i++) {
		if (s->w[i].soak && !wait_for_completion_timeout(&s->w[i].done,
								 cmkit_test_timeout())) {
			pr_err("cmkit_test: irdma: a soak worker never stopped: leaked\n");
			return;
		}
		kfree(s->w[i].buf);
	}
	if (s->core->event_wq)
		cmkit_irdma_cleanup_cm_core(s->core);
	list_for_each_entry_safe(h, tmp, &s->ids, soak_link) {
		if (hul_wait_released(h)) {
			pr_err("cmkit_test: irdma: a soak id is still referenced: leaked\n");
			continue;
		}
		list_del(&h->soak_link);
		kfree(h);
	}
	kvfree(s);
}

/*
 * SOAK_PEERS raw peers connect, send their request, stream, stall, reset
 * or close and connect again, at random (a seeded PRNG, the seed logged),
 * for irdma_soak_s seconds, while cmkit connects to the same listener and
 * closes on the same core and the listener accepts or rejects each request
 * from its upcall.  Afterwards the core's cleanup finds nothing it cannot
 * end: every node freed, nothing live, every event in order, every id
 * released.  Lockdep and KASAN (the debug leg) watch all of it.
 */
static void irdma_soak_random_peers(struct kunit *test)
{
	struct irdma_cm_core *core = hostile_core(test);
	struct soak *s = kvzalloc(sizeof(*s), GFP_KERNEL);
	unsigned int seed = irdma_soak_seed ?: get_random_u32() ?: 1;
	unsigned int i, connects = 0, streams = 0, stalls = 0, resets = 0;
	struct soak_worker *w;
	unsigned long bound;
	struct hul *h;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->core = core;
	INIT_LIST_HEAD(&s->ids);
	init_waitqueue_head(&s->wait);
	spin_lock_init(&s->lock);
	atomic_set(&s->accepted, 0);
	atomic_set(&s->rejected, 0);
	prandom_seed_state(&s->rnd, seed);
	hostile_add_res(test, soak_free, s);
	kunit_info(test, "seed %u (irdma_soak_seed=%u repeats it), %u s\n", seed, seed,
		   irdma_soak_s);
	core->close_timeout = 1000;
	cmkit_test_addr(&cmkit_dev_params[CMKIT_SIW], cmkit_test_port(), &s->addr);
	s->lul = hul_create(test, "soak listener", &s->addr);
	s->lul->soak = s;
	s->lul->id.event_handler = soak_listener_handler;
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &s->lul->id, 64), 0);

	s->deadline = jiffies + irdma_soak_s * HZ;
	for (i = 0; i < ARRAY_SIZE(s->w); i++) {
		w = &s->w[i];
		w->peer = i < SOAK_PEERS ? (int)i : -1;
		prandom_seed_state(&w->rnd, (u64)seed * 31 + i + 1);
		init_completion(&w->done);
		INIT_WORK(&w->work, soak_fn);
		w->buf = kzalloc(HOSTILE_CHUNK, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, w->buf);
		w->soak = s;
		queue_work(system_unbound_wq, &w->work);
	}
	bound = irdma_soak_s * HZ + cmkit_test_timeout();
	for (i = 0; i < ARRAY_SIZE(s->w); i++) {
		w = &s->w[i];
		KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&w->done, bound), 0UL,
				    "soak worker %u never stopped", i);
		KUNIT_EXPECT_EQ_MSG(test, w->err, 0, "soak worker %u", i);
		if (w->peer >= 0) {
			connects += w->connects;
			streams += w->streams;
			stalls += w->stalls;
			resets += w->resets;
		}
	}
	w = &s->w[SOAK_PEERS];
	kunit_info(test, "peers: %u connects, %u streamed, %u stalled, %u reset; cmkit: %u connects, %u up, %u reset; listener: %d accepted, %d rejected; %d nodes\n",
		   connects, streams, stalls, resets, w->connects, w->streams, w->resets,
		   atomic_read(&s->accepted), atomic_read(&s->rejected),
		   atomic_read(&core->stats.nodes_made));
	KUNIT_EXPECT_GT(test, connects, 0U);
	KUNIT_EXPECT_GT(test, w->connects, 0U);
	KUNIT_EXPECT_GT(test, atomic_read(&s->accepted), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&s->rejected), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&s->lul->id), 0);
	hostile_end_core(test, core);
	list_for_each_entry(h, &s->ids, soak_link)
		KUNIT_EXPECT_EQ_MSG(test, hul_wait_released(h), 0, "%s", h->name);
	KUNIT_EXPECT_EQ(test, hul_wait_released(s->lul), 0);
}

static struct kunit_case irdma_hostile_cases[] = {
	KUNIT_CASE_PARAM(irdma_streaming_peer_holds_no_lock, irdma_stream_gen_params),
	KUNIT_CASE(irdma_silent_p2p_requester_holds_up_no_upcall),
	KUNIT_CASE(irdma_orderly_close_ends_without_the_peer_fin),
	KUNIT_CASE(irdma_request_during_listener_bring_up_is_indicated),
	KUNIT_CASE(irdma_connect_flood_destroy_listen),
	KUNIT_CASE(irdma_soak_random_peers),
	{}
};

struct kunit_suite cmkit_irdma_hostile_suite = {
	.name = "cmkit_irdma_hostile",
	.test_cases = irdma_hostile_cases,
};
