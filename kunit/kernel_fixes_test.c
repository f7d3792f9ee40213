// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_kernel_fixes: kernel bugs the suites found, each shown fixed in the
 * test kernels (kernel-patches/) with no cmkit code in the path: a plain
 * kernel TCP socket speaks MPA to an rdma_cm server on siw.  On a kernel
 * without the fix, each case fails (or the kernel BUG()s) in the step the
 * bug breaks.  Not cmkit's cases: the suite is its own, for the kernels.
 */
#include <linux/net.h>

#include "cmkit/mpa.h"
#include "cmkit/mpa_fpdu.h"
#include "irdma_test.h"

/* A siw server and a raw initiator whose P2P request (Write RTR) it has. */
static struct cmkit_peer *kfix_p2p_request(struct kunit *test, struct raw_peer *raw,
					   bool hold)
{
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	srv->accept_pdata = siw_rep;
	srv->accept_pdata_len = sizeof(siw_rep);
	srv->hold_requests = hold;
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, raw_p2p_write_req, sizeof(raw_p2p_write_req)),
			(int)sizeof(raw_p2p_write_req));
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	return srv;
}

/* Where @event is first in @srv's event log, or -1. */
static int kfix_index(struct cmkit_peer *srv, enum rdma_cm_event_type event)
{
	unsigned int i;
	int at = -1;

	spin_lock(&srv->lock);
	for (i = 0; i < srv->nr && i < CMKIT_PEER_MAX_EVENTS && at < 0; i++)
		if (srv->rec[i].event == event)
			at = i;
	spin_unlock(&srv->lock);
	return at;
}

/* The reply to kfix_p2p_request(): siw grants P2P with a Write RTR. */
static void kfix_expect_p2p_reply(struct kunit *test, struct raw_peer *raw)
{
	u8 buf[CMKIT_MPA_HDR_LEN + 4 + sizeof(siw_rep)];

	KUNIT_ASSERT_EQ(test, raw_recv(raw, buf, sizeof(buf)), (int)sizeof(buf));
	KUNIT_EXPECT_EQ(test, memcmp(buf, "MPA ID Rep Frame", 16), 0);
	KUNIT_EXPECT_EQ(test, buf[16] & CMKIT_MPA_FLAG_REJECT, 0);
	KUNIT_EXPECT_EQ(test, buf[20] & 0x80, 0x80);	/* P2P */
	KUNIT_EXPECT_EQ(test, buf[22] & 0x80, 0x80);	/* Write RTR */
	KUNIT_EXPECT_EQ(test, memcmp(buf + CMKIT_MPA_HDR_LEN + 4, siw_rep, sizeof(siw_rep)), 0);
}

/* A zero-length Write RTR to @raw's server; @bad: RDMAP version 0, which siw refuses. */
static void kfix_send_rtr(struct kunit *test, struct raw_peer *raw, bool bad)
{
	u8 rtr[64];
	int n;

	n = cmkit_rtr_build(rtr, sizeof(rtr), CMKIT_MPA_RTR_WRITE, 0);
	KUNIT_ASSERT_GT(test, n, 3);
	if (bad)
		rtr[3] &= 0x3f;		/* siw_get_hdr() wants RDMAP version 1 */
	KUNIT_ASSERT_EQ(test, raw_send(raw, rtr, n), n);
}

/*
 * kernel-patches 0105 (KI-10): an RTR that is in siw's socket before
 * siw_accept() installs siw_rtr_data_ready() is read, and the connection
 * is established.  The race cmkit's P2P initiator met (its RTR in while
 * siw_accept() still sent the reply) is pinned here by an initiator that
 * sends its RTR while the server holds the request; unfixed, siw never
 * reads it and the server never sees ESTABLISHED.
 */
static void siw_reads_an_rtr_that_came_before_its_accept(struct kunit *test)
{
	struct raw_peer *raw = raw_create(test);
	struct cmkit_cm_record pr;
	struct cmkit_peer *srv;

	srv = kfix_p2p_request(test, raw, true);
	kfix_send_rtr(test, raw, false);
	KUNIT_ASSERT_EQ(test, cmkit_peer_accept_held(srv), 0);
	kfix_expect_p2p_reply(test, raw);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0,
			    "siw left an RTR that came before its accept unread");
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
	KUNIT_ASSERT_EQ(test, kernel_sock_shutdown(raw->sock, SHUT_WR), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
}

/*
 * kernel-patches 0106 (KI-9): an accepted P2P connection that ends before
 * its RTR was read ends as an established one: ESTABLISHED, then
 * DISCONNECTED.  Unfixed, siw indicates the end on an iw_cm id still in
 * IW_CM_STATE_CONN_RECV: BUG() in cm_close_handler().  (A plain FIN does
 * not show it: siw_rtr_data_ready() runs for the FIN and indicates
 * ESTABLISHED first.)
 */
static void kfix_p2p_ends_before_its_rtr(struct kunit *test, bool reset)
{
	struct raw_peer *raw = raw_create(test);
	struct cmkit_cm_record pr;
	struct cmkit_peer *srv;

	srv = kfix_p2p_request(test, raw, false);
	kfix_expect_p2p_reply(test, raw);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, BIT(RDMA_CM_EVENT_ESTABLISHED)), 0U);
	if (reset)
		raw_reset(raw);
	else
		kfix_send_rtr(test, raw, true);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_EXPECT_LT(test, kfix_index(srv, RDMA_CM_EVENT_ESTABLISHED),
			kfix_index(srv, RDMA_CM_EVENT_DISCONNECTED));
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
}

static void siw_p2p_connection_reset_before_its_rtr_ends_established(struct kunit *test)
{
	kfix_p2p_ends_before_its_rtr(test, true);
}

static void siw_p2p_connection_with_a_bad_rtr_ends_established(struct kunit *test)
{
	kfix_p2p_ends_before_its_rtr(test, false);
}

static struct kunit_case kernel_fixes_cases[] = {
	KUNIT_CASE(siw_reads_an_rtr_that_came_before_its_accept),
	KUNIT_CASE(siw_p2p_connection_reset_before_its_rtr_ends_established),
	KUNIT_CASE(siw_p2p_connection_with_a_bad_rtr_ends_established),
	{}
};

struct kunit_suite cmkit_kernel_fixes_suite = {
	.name = "cmkit_kernel_fixes",
	.test_cases = kernel_fixes_cases,
};
