// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: MPA negotiation (RFC 6581): P2P, CRC, reasoned rejects,
 * revisions and fallback, the backlog, and the MPA timers.
 */
#include "irdma_test.h"

/* ---- RFC 6581: P2P, CRC, reasoned rejects, fallback, timers, backlog ---- */

/* A private core's end: every node and listener gone, every event handled. */
static void end_core(struct kunit *test, struct irdma_cm_core *core)
{
	cmkit_irdma_cleanup_cm_core(core);
	expect_core_idle(test, core);
}

/* Stop @lul on @core (its requests answered), then end the core. */
static void end_listener_and_core(struct kunit *test, struct ul *lul,
				  struct irdma_cm_core *core)
{
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	end_core(test, core);
}

/* Receive a whole MPA frame of @kind, decoded as the deciders take it. */
static void raw_recv_any_frame(struct kunit *test, struct raw_peer *raw,
			       enum cmkit_mpa_kind kind, u8 *buf, struct cmkit_mpa_frame *f)
{
	int n = raw_recv(raw, buf, CMKIT_MPA_HDR_LEN);

	KUNIT_ASSERT_EQ(test, n, CMKIT_MPA_HDR_LEN);
	n += raw_recv(raw, buf + n, cmkit_get_be16(buf + 18));
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, kind, f), n);
}

struct cmkit_mpa_offer mpa_offer(u8 rev, u8 p2p, u8 rtr, u8 crc)
{
	struct cmkit_mpa_offer o = {
		.rev = rev, .p2p = p2p, .rtr = rtr, .crc = crc,
		.ird = CMKIT_MPA_V2_NO_IRD_ORD, .ord = CMKIT_MPA_V2_NO_IRD_ORD,
	};

	return o;
}

const char *rtr_name(u8 rtr)
{
	return rtr == CMKIT_MPA_RTR_WRITE ? "Write" : rtr == CMKIT_MPA_RTR_READ ? "Read" :
	       rtr == CMKIT_MPA_RTR_SEND ? "Send" : "none";
}

/* What cmkit settled for @ul's connection. */
struct cmkit_irdma_mpa_info ul_mpa(struct kunit *test, struct ul *ul)
{
	struct cmkit_irdma_mpa_info info = {};

	KUNIT_EXPECT_EQ(test, cmkit_irdma_mpa_info(&ul->id, &info), 0);
	return info;
}

/* Is TCP keepalive on for @ul's connection's socket? */
static bool ul_keepalive(struct ul *ul)
{
	struct irdma_cm_node *node = cmkit_irdma_cm_id_get_node(&ul->id);
	bool on = false;

	if (!node)
		return false;
	mutex_lock(&node->lock);
	if (node->sock)
		on = sock_flag(node->sock->sk, SOCK_KEEPOPEN);
	mutex_unlock(&node->lock);
	cmkit_irdma_rem_ref_cm_node(node);
	return on;
}

/* Connect @ul (made here) from siw0's address to @dst with @offer, on @core. */
struct ul *cmkit_connect_mpa(struct kunit *test, struct irdma_cm_core *core,
			     const struct sockaddr_in *dst,
			     const struct cmkit_mpa_offer *offer)
{
	struct iw_cm_conn_param param;
	struct sockaddr_in src;
	struct ul *ul;

	cmkit_test_addr(siw_param, 0, &src);
	ul = ul_create(test, "cmkit client", UL_ACTIVE, &src, dst);
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect_mpa(core, &ul->id, &param, offer), 0);
	return ul;
}

static struct ul *cmkit_listen_mpa(struct kunit *test, struct irdma_cm_core *core,
				   const struct sockaddr_in *addr, int backlog,
				   const struct cmkit_mpa_offer *offer)
{
	struct ul *lul = ul_create(test, "cmkit listener", UL_LISTEN, addr, NULL);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen_mpa(core, &lul->id, backlog, offer), 0);
	return lul;
}

static struct ul *child_of(struct kunit *test, const struct ul_rec *req)
{
	struct ul *child = ul_create(test, "cmkit child", UL_PASSIVE, NULL, NULL);

	child->id.provider_data = req->provider_data;
	child->accepted = true;
	return child;
}

static void accept_async_fn(struct work_struct *work)
{
	struct accept_async *a = container_of(work, struct accept_async, work);

	a->rc = cmkit_irdma_accept(&a->child->id, &a->param);
	complete_all(&a->done);
}

static void accept_async_free(struct kunit_resource *res)
{
	struct accept_async *a = res->data;

	/* The accept is bounded by the core's RTR timer. */
	if (!wait_for_completion_timeout(&a->done, cmkit_test_timeout())) {
		pr_err("cmkit_test: irdma: an accept never returned: leaked\n");
		return;
	}
	kfree(a);
}

static struct accept_async *accept_start(struct kunit *test, struct ul *child, u32 ird)
{
	struct accept_async *a = kzalloc_obj(*a, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->child = child;
	conn_param_init(&a->param, cmkit_rep, ird, 4);
	init_completion(&a->done);
	INIT_WORK(&a->work, accept_async_fn);
	if (!kunit_alloc_resource(test, ul_res_init, accept_async_free, GFP_KERNEL, a)) {
		kfree(a);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	queue_work(system_unbound_wq, &a->work);
	return a;
}

static int accept_wait(struct accept_async *a)
{
	if (!wait_for_completion_timeout(&a->done, cmkit_test_timeout()))
		return -ETIMEDOUT;
	return a->rc;
}

/* @a and @b end with an orderly close from @b: DISCONNECT(0) and CLOSE each. */
static void expect_orderly_close(struct kunit *test, struct ul *a, struct ul *b)
{
	struct ul_rec r;

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&b->id, false), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(a, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(a, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, ul_wait(b, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(b, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	ul_expect_clean(test, a);
	ul_expect_clean(test, b);
}

/*
 * cmkit to cmkit, an active and a passive core: P2P with each RTR type,
 * with and without CRC (asked by either side: both use it).  The
 * initiator's CONNECT_REPLY and the responder's ESTABLISHED come once the
 * RTR went through (a Read RTR's Read Response too: the responder's close
 * after it reaches the initiator in order, so a Read Response it refused
 * would have reset the connection), both sides say what was negotiated,
 * and keepalive is on.
 */
void irdma_p2p_cmkit_to_cmkit(struct kunit *test)
{
	const struct p2p_param *p = test->param_value;
	struct irdma_cm_core *acore, *pcore;
	struct cmkit_mpa_offer offer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED, p->rtr,
						 p->crc == 1);
	struct cmkit_irdma_mpa_info ai, pi;
	struct iw_cm_conn_param param;
	struct cmkit_mpa_offer loffer;
	struct ul *lul, *ul, *child;
	struct sockaddr_in addr;
	struct ul_rec req, r;

	cmkit_test_device(test, siw_param);
	acore = private_core(test);
	pcore = private_core(test);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	/* The default listener (any RTR type), asking for CRC when the case says. */
	cmkit_irdma_cm_default_offer(pcore, true, &loffer);
	loffer.crc = p->crc == 2;
	lul = cmkit_listen_mpa(test, pcore, &addr, 4, &loffer);
	ul = cmkit_connect_mpa(test, acore, &addr, &offer);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = child_of(test, &req);
	conn_param_init(&param, cmkit_rep, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, cmkit_rep);

	ai = ul_mpa(test, ul);
	pi = ul_mpa(test, child);
	KUNIT_EXPECT_EQ(test, ai.rev, 2);
	KUNIT_EXPECT_TRUE(test, ai.p2p);
	KUNIT_EXPECT_EQ(test, ai.rtr, p->rtr);
	KUNIT_EXPECT_EQ(test, ai.crc, !!p->crc);
	KUNIT_EXPECT_TRUE(test, pi.p2p);
	KUNIT_EXPECT_EQ(test, pi.rtr, p->rtr);
	KUNIT_EXPECT_EQ(test, pi.crc, !!p->crc);
	KUNIT_EXPECT_TRUE(test, ul_keepalive(ul));
	KUNIT_EXPECT_TRUE(test, ul_keepalive(child));

	expect_orderly_close(test, ul, child);
	KUNIT_EXPECT_EQ(test, atomic_read(&acore->stats.aborts), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pcore->stats.aborts), 0);
	end_listener_and_core(test, lul, pcore);
	end_core(test, acore);
}

/* Receive the RTR (of type @rtr) a P2P initiator sends, whole, into @buf. */
static void raw_recv_rtr(struct kunit *test, struct raw_peer *raw, u8 rtr, u8 crc,
			 u8 *buf, struct cmkit_fpdu *f)
{
	struct cmkit_iwarp_hdr h;
	int len;

	KUNIT_ASSERT_EQ(test, cmkit_rtr_hdr(rtr, &h), 0);
	len = cmkit_fpdu_total_len(cmkit_iwarp_hdr_len(h.opcode));
	KUNIT_ASSERT_EQ(test, raw_recv(raw, buf, len), len);
	KUNIT_EXPECT_EQ(test, cmkit_rtr_check(buf, len, rtr, crc, f), len);
}

/* Send @buf in three segments (TCP_NODELAY): 1 byte, 4, the rest. */
static void raw_send_split(struct kunit *test, struct raw_peer *raw, const u8 *buf, int n)
{
	tcp_sock_set_nodelay(raw->sock->sk);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, 1), 1);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf + 1, 4), 4);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf + 5, n - 5), n - 5);
}

void irdma_p2p_connect_to_strict_responder(struct kunit *test)
{
	const struct strict_resp_param *p = test->param_value;
	struct cmkit_mpa_offer offer = mpa_offer(2, p->cmkit_p2p, p->cmkit_rtr, p->crc);
	struct cmkit_mpa_offer peer = mpa_offer(2, p->want ? CMKIT_MPA_P2P_REQUIRED :
						CMKIT_MPA_P2P_OFF, p->want, 0);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct cmkit_irdma_mpa_info info;
	struct cmkit_mpa_result res;
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct cmkit_fpdu fpdu;
	struct ul_rec r;
	struct ul *ul;
	int n, rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	raw_listen(test, raw, &addr);
	ul = cmkit_connect_mpa(test, core, &addr, &offer);
	raw_accept(test, raw);
	raw_recv_any_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_EQ(test, !!(f.flags & CMKIT_MPA_FLAG_CRC), !!p->crc);
	rc = cmkit_mpa_respond(&peer, &f, &res);
	if (!p->want) {
		/*
		 * A responder without P2P must refuse a request with A set (RFC
		 * 6581, 9.2), and the decider does; this peer accepts without
		 * it, as siw once did (zrlio/softiwarp#18).
		 */
		KUNIT_EXPECT_EQ(test, rc, (int)CMKIT_MPA_REJ_NO_RTR);
		res.accept = 1;
		res.reason = CMKIT_MPA_REJ_NONE;
		res.p2p = 0;
		res.rtr = 0;
		rc = 0;
	}
	KUNIT_EXPECT_EQ(test, rc, (int)p->reason);
	n = cmkit_mpa_build_reply(buf, CMKIT_MPA_MAX_FRAME, &res, rc ? NULL : raw_rep,
				  rc ? 0 : sizeof(raw_rep));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	if (rc) {
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, p->status);
		KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_get(r.pdata, r.pdata_len),
				p->reason);
		goto out;
	}
	if (p->status) {	/* a reply without the P2P cmkit requires */
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, p->status);
		raw_expect_reset(test, raw);
		goto out;
	}
	raw_recv_rtr(test, raw, p->want, res.crc, buf, &fpdu);
	if (p->want == CMKIT_MPA_RTR_READ) {
		n = cmkit_rtr_build_read_resp(buf, CMKIT_MPA_MAX_FRAME, &fpdu.hdr, res.crc);
		KUNIT_ASSERT_GT(test, n, 0);
		raw_send_split(test, raw, buf, n);
	}
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, raw_rep);
	info = ul_mpa(test, ul);
	KUNIT_EXPECT_TRUE(test, info.p2p);
	KUNIT_EXPECT_EQ(test, info.rtr, p->want);
	KUNIT_EXPECT_EQ(test, info.crc, !!p->crc);
	/* The peer's FIN after its Read Response: an orderly close, no reset. */
	kernel_sock_shutdown(raw->sock, SHUT_WR);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
out:
	ul_expect_clean(test, ul);
	end_core(test, core);
}

void irdma_p2p_strict_initiator_connects(struct kunit *test)
{
	const struct strict_init_param *p = test->param_value;
	struct cmkit_mpa_offer peer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED, p->rtr, p->crc);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	int mark = log_mark();
	u8 *buf = raw_frame_buf(test);
	struct cmkit_iwarp_hdr rreq;
	struct cmkit_mpa_result res;
	struct cmkit_mpa_frame f;
	struct accept_async *acc;
	struct sockaddr_in addr;
	struct cmkit_fpdu fpdu;
	struct ul *lul, *child;
	struct ul_rec req, r;
	int n;

	peer.ird = 4;
	peer.ord = 4;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 4, NULL);
	raw_connect(test, raw, &addr);
	n = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &peer, 2, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = child_of(test, &req);
	acc = accept_start(test, child, 4);

	raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_initiate(&peer, 2, &f, &res), 0);
	KUNIT_EXPECT_EQ(test, res.rtr, p->rtr);
	KUNIT_EXPECT_EQ(test, res.crc, p->crc);
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_rep));
	switch (p->bad) {
	case INIT_NO_RTR:
		kernel_sock_shutdown(raw->sock, SHUT_WR);
		n = 0;
		break;
	case INIT_WRONG_RTR:
		n = cmkit_rtr_build(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_RTR_WRITE, res.crc);
		break;
	default:
		n = cmkit_rtr_build(buf, CMKIT_MPA_MAX_FRAME, res.rtr, res.crc);
		if (p->bad == INIT_BAD_CRC)
			buf[n - 1] ^= 0x5a;
		break;
	}
	if (n)
		raw_send_split(test, raw, buf, n);
	if (p->bad) {
		/*
		 * The accept returned at once; the peer is reset, and the
		 * accepted id hears ESTABLISHED, DISCONNECT(-ECONNRESET), CLOSE
		 * (iw_cm cannot take a CLOSE before ESTABLISHED).
		 */
		KUNIT_EXPECT_EQ(test, accept_wait(acc), 0);
		raw_expect_reset(test, raw);
		expect_ended_by_reset(test, child);
		expect_id_released(test, child);
		goto out;
	}
	if (p->rtr == CMKIT_MPA_RTR_READ) {
		cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &rreq);
		n = cmkit_fpdu_total_len(CMKIT_DDP_TAGGED_HDR_LEN);
		KUNIT_ASSERT_EQ(test, raw_recv(raw, buf, n), n);
		KUNIT_EXPECT_EQ(test, cmkit_rtr_check_read_resp(buf, n, &rreq, res.crc, &fpdu), n);
	}
	KUNIT_ASSERT_EQ(test, accept_wait(acc), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_EXPECT_EQ(test, ul_mpa(test, child).rtr, p->rtr);
	kernel_sock_shutdown(raw->sock, SHUT_WR);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
out:
	ul_expect_clean(test, child);
	end_listener_and_core(test, lul, core);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

void irdma_listener_refuses_with_a_reason(struct kunit *test)
{
	const struct refuse_param *p = test->param_value;
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	int mark = log_mark();
	static const u8 zeroes[300];
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul;
	int n;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 4, &p->listener);
	raw_connect(test, raw, &addr);
	n = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &p->peer, p->peer.rev,
				    p->pdata_len ? (const void *)zeroes : raw_req,
				    p->pdata_len ?: sizeof(raw_req));
	KUNIT_ASSERT_GT(test, n, 0);
	buf[16] |= p->flags;
	if (p->rev)
		buf[17] = p->rev;
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	raw_recv_any_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
	KUNIT_EXPECT_TRUE(test, f.flags & CMKIT_MPA_FLAG_REJECT);
	KUNIT_EXPECT_EQ(test, f.rev, p->listener.rev < p->peer.rev || p->rev ?
			p->listener.rev : p->peer.rev);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_get(f.pdata, f.pdata_len), p->reason);
	KUNIT_EXPECT_EQ(test, raw_recv(raw, buf, 1), 0);	/* then our FIN */
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	ul_expect_clean(test, lul);
	end_core(test, core);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

void irdma_revision_1_and_2_with_and_without_fallback(struct kunit *test)
{
	const struct rev_param *p = test->param_value;
	struct cmkit_mpa_offer loffer = mpa_offer(p->listener_rev, CMKIT_MPA_P2P_ON,
						  CMKIT_MPA_RTR_ALL, 0);
	struct cmkit_mpa_offer coffer = mpa_offer(p->connect_rev, CMKIT_MPA_P2P_OFF, 0, 0);
	struct irdma_cm_core *core = private_core(test);
	struct cmkit_irdma_mpa_info info;
	struct iw_cm_conn_param param;
	struct ul *lul, *ul, *child;
	struct sockaddr_in addr;
	struct ul_rec req, r;

	coffer.rev1_fallback = p->fallback;
	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 4, &loffer);
	ul = cmkit_connect_mpa(test, core, &addr, &coffer);
	if (p->status) {
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, p->status);
		KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_get(r.pdata, r.pdata_len),
				CMKIT_MPA_REJ_REVISION);
		KUNIT_EXPECT_EQ(test, lul->nr, 0U);
		ul_expect_clean(test, ul);
		goto out;
	}
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = child_of(test, &req);
	conn_param_init(&param, cmkit_rep, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, cmkit_rep);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	info = ul_mpa(test, ul);
	KUNIT_EXPECT_EQ(test, info.rev, p->rev);
	KUNIT_EXPECT_EQ(test, info.enhanced, p->rev == 2);
	KUNIT_EXPECT_EQ(test, info.fallback, p->fallback && p->listener_rev == 1);
	KUNIT_EXPECT_EQ(test, ul_mpa(test, child).rev, p->rev);
	expect_orderly_close(test, child, ul);
out:
	end_listener_and_core(test, lul, core);
}

/*
 * cxgb4's way: a responder that does not speak revision 2 resets the
 * connection instead of rejecting.  An initiator configured to fall back
 * reconnects with a revision 1 request; one that is not says -ECONNRESET.
 */
void irdma_fallback_after_a_reset(struct kunit *test)
{
	const struct rev_param *p = test->param_value;
	struct cmkit_mpa_offer offer = mpa_offer(2, CMKIT_MPA_P2P_OFF, 0, 0);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct sockaddr_in addr, second;
	struct cmkit_mpa_frame f;
	struct ul_rec r;
	struct ul *ul;
	int n;

	offer.rev1_fallback = p->fallback;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	raw_listen(test, raw, &addr);
	ul = cmkit_connect_mpa(test, core, &addr, &offer);
	raw_accept(test, raw);
	raw_recv_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_EQ(test, f.rev, 2);
	raw_reset(raw);
	if (!p->fallback) {
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
		goto out;
	}
	raw_accept(test, raw);
	KUNIT_ASSERT_GE(test, kernel_getpeername(raw->sock, (struct sockaddr *)&second), 0);
	raw_recv_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_EQ(test, f.rev, 1);
	KUNIT_EXPECT_FALSE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_req));
	n = cmkit_mpa_build_v1(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REPLY, 0, raw_rep,
			       sizeof(raw_rep));
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	/* The connection's local port: the second socket's, not the first's. */
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&r.local)->sin_port),
			ntohs(second.sin_port));
	KUNIT_EXPECT_EQ(test, ul_mpa(test, ul).rev, 1);
	KUNIT_EXPECT_TRUE(test, ul_mpa(test, ul).fallback);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
	expect_ended_by_reset(test, ul);
out:
	ul_expect_clean(test, ul);
	end_core(test, core);
}

void irdma_mpa_timer_expires(struct kunit *test)
{
	const enum mpa_timer_case *c = test->param_value;
	struct cmkit_mpa_offer peer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED,
						CMKIT_MPA_RTR_WRITE, 0);
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	int mark = log_mark();
	struct accept_async *acc;
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul, *ul, *child;
	struct ul_rec req, r;
	int n;

	core->mpa_req_timeout = 1000;
	core->mpa_rep_timeout = 1000;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	switch (*c) {
	case TIMER_REQUEST:
		lul = cmkit_listen_mpa(test, core, &addr, 4, NULL);
		raw_connect(test, raw, &addr);
		raw_expect_reset(test, raw);
		KUNIT_EXPECT_EQ(test, lul->nr, 0U);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		ul_expect_clean(test, lul);
		break;
	case TIMER_REPLY:
		ul = raw_server_gets_request(test, core, raw, &addr);
		KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
		KUNIT_EXPECT_EQ(test, r.status, -ETIMEDOUT);
		KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
		raw_expect_reset(test, raw);
		ul_expect_clean(test, ul);
		KUNIT_EXPECT_EQ(test, ul->nr, 1U);
		break;
	case TIMER_RTR:
		lul = cmkit_listen_mpa(test, core, &addr, 4, NULL);
		raw_connect(test, raw, &addr);
		n = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &peer, 2, NULL, 0);
		KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
		KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
		child = child_of(test, &req);
		acc = accept_start(test, child, 4);
		raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
		KUNIT_EXPECT_EQ(test, accept_wait(acc), 0);
		raw_expect_reset(test, raw);
		expect_ended_by_reset(test, child);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		ul_expect_clean(test, lul);
		break;
	}
	end_core(test, core);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/*
 * A listener's backlog bounds the requests pending at once: a connection
 * beyond it is reset before it has a node; an answered request makes room.
 */
void irdma_backlog_limits_pending_requests(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *first = raw_create(test), *second = raw_create(test);
	struct raw_peer *third = raw_create(test);
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;
	int made0;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen_mpa(test, core, &addr, 1, NULL);
	made0 = atomic_read(&core->stats.nodes_made);
	raw_connect(test, first, &addr);
	wait_node_made(test, core, made0);
	raw_connect_expect_reset(test, second, &addr);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), made0 + 1);

	raw_send_mpa(test, first, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "rejected child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, NULL, 0), 0);

	/* Answered: the next one is taken. */
	raw_connect(test, third, &addr);
	raw_send_mpa(test, third, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_NE(test, wait_event_timeout(lul->wait,
						 ul_count(lul, IW_CM_EVENT_CONNECT_REQUEST) == 2,
						 cmkit_test_timeout()), 0);
	child = ul_create(test, "rejected child", UL_PASSIVE, NULL, NULL);
	spin_lock(&lul->lock);
	child->id.provider_data = lul->rec[1].provider_data;
	spin_unlock(&lul->lock);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, NULL, 0), 0);
	end_listener_and_core(test, lul, core);
}
