// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: siw as the peer: P2P with it, and IPv6 both ways.
 */
#include "irdma_test.h"

/* ---- siw: P2P with it, and IPv6 both ways ----------------------------------- */

/*
 * siw as a responder grants P2P to an initiator that asks and picks Write
 * (else Read) among the offered types: cmkit's RTR gets it established.
 * KI-2 (lockdep, kernel-patches 0101) and KI-9 (an RTR that beats siw's RTR
 * upcall is never read, 0105) were met here first.
 */
void irdma_p2p_connects_siw(struct kunit *test)
{
	const struct p2p_param *p = test->param_value;
	struct cmkit_mpa_offer offer = mpa_offer(2, CMKIT_MPA_P2P_REQUIRED, p->rtr, 0);
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_irdma_mpa_info info;
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	srv->accept_pdata = siw_rep;
	srv->accept_pdata_len = sizeof(siw_rep);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);
	ul = cmkit_connect_mpa(test, core, &addr, &offer);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, siw_rep);
	info = ul_mpa(test, ul);
	KUNIT_EXPECT_TRUE(test, info.p2p);
	KUNIT_EXPECT_EQ(test, info.rtr, p->rtr);
	/* siw indicates ESTABLISHED once our RTR came in. */
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
}

void irdma_ipv6_connects_siw(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct sockaddr_in6 addr, src;
	struct iw_cm_conn_param param;
	struct cmkit_cm_record pr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr6(cmkit_test_port(), &addr);
	cmkit_test_addr6(0, &src);
	srv = cmkit_peer_create(test, "siw server (IPv6)");
	srv->accept_pdata = siw_rep;
	srv->accept_pdata_len = sizeof(siw_rep);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen_sa(srv, (struct sockaddr *)&addr), 0);
	ul = ul_create(test, "cmkit client (IPv6)", UL_ACTIVE, NULL, NULL);
	memcpy(&ul->id.m_local_addr, &src, sizeof(src));
	memcpy(&ul->id.local_addr, &src, sizeof(src));
	memcpy(&ul->id.m_remote_addr, &addr, sizeof(addr));
	memcpy(&ul->id.remote_addr, &addr, sizeof(addr));
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	KUNIT_EXPECT_EQ(test, pr.pdata_len, (u8)sizeof(cmkit_req));
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	expect_pdata(test, &r, siw_rep);
	KUNIT_EXPECT_EQ(test, r.remote.sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, ul->id.local_addr.ss_family, AF_INET6);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
}

void siw_ipv6_connects_cmkit(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct cmkit_peer *cli;
	struct sockaddr_in6 addr;
	struct ul *lul, *child;
	struct ul_rec req, r;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr6(cmkit_test_port(), &addr);
	lul = ul_create(test, "cmkit listener (IPv6)", UL_LISTEN, NULL, NULL);
	memcpy(&lul->id.m_local_addr, &addr, sizeof(addr));
	memcpy(&lul->id.local_addr, &addr, sizeof(addr));
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	cli = cmkit_peer_create(test, "siw client (IPv6)");
	KUNIT_ASSERT_EQ(test, cmkit_peer_resolve_sa(cli, (struct sockaddr *)&addr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_connect(cli, siw_req, sizeof(siw_req)), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	expect_pdata(test, &req, siw_req);
	KUNIT_EXPECT_EQ(test, req.local.sin6_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, req.remote.sin6_family, AF_INET6);
	child = cmkit_accept(test, &req);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_EXPECT_EQ(test, memcmp(pr.pdata, cmkit_rep, sizeof(cmkit_rep)), 0);
	KUNIT_ASSERT_EQ(test, rdma_disconnect(cli->id), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_CLOSE, &r), 0);
	ul_expect_clean(test, child);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	expect_nodes_freed(test, core, made0, freed0);
}
