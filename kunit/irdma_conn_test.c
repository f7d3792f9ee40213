// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: connections with siw both ways, misbehaving peers on plain
 * kernel TCP sockets, private data, a refused CONNECT_REQUEST, a SYN nobody
 * answers.
 */
#include "irdma_test.h"

static const char siw_rej[] = "siw-rejects";

/* Connect @ul (created here) from siw0's address to @dst with @version. */
struct ul *cmkit_connect(struct kunit *test, struct irdma_cm_core *core,
			 const struct sockaddr_in *dst, u8 version)
{
	struct iw_cm_conn_param param;
	struct sockaddr_in src;
	u8 saved = core->mpa_version;
	struct ul *ul;
	int rc;

	cmkit_test_addr(siw_param, 0, &src);
	ul = ul_create(test, "cmkit client", UL_ACTIVE, &src, dst);
	conn_param_init(&param, cmkit_req, 4, 4);
	core->mpa_version = version;
	rc = cmkit_irdma_connect(core, &ul->id, &param);
	core->mpa_version = saved;
	KUNIT_ASSERT_EQ(test, rc, 0);
	return ul;
}

void irdma_connects_siw_accepts_then_cmkit_closes(struct kunit *test)
{
	const struct connect_param *cp = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int mark = log_mark();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
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

	ul = cmkit_connect(test, core, &addr, cp->mpa_version);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	KUNIT_EXPECT_EQ(test, pr.pdata_len, (u8)sizeof(cmkit_req));
	KUNIT_EXPECT_EQ(test, memcmp(pr.pdata, cmkit_req, sizeof(cmkit_req)), 0);

	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	expect_pdata(test, &r, siw_rep);
	/*
	 * We asked for 4/4.  Revision 2: siw's reply (IRD 4, relaxed; ORD 1,
	 * cm_peer's initiator_depth) leaves our ORD and lowers our IRD to its
	 * ORD, the most reads it will issue.  Revision 1 negotiates nothing.
	 */
	KUNIT_EXPECT_EQ(test, r.ird, cp->mpa_version == 2 ? 1 : 4);
	KUNIT_EXPECT_EQ(test, r.ord, 4);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&r.remote)->sin_port),
			ntohs(addr.sin_port));
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_EXPECT_TRUE(test, pr.child);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_CLOSE), 1U);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, ul);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

void irdma_connects_siw_accepts_then_cmkit_resets(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
	expect_ended_by_reset(test, ul);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	expect_nodes_freed(test, core, made0, freed0);
}

void irdma_connects_siw_rejects_with_private_data(struct kunit *test)
{
	const struct connect_param *cp = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct cmkit_peer *srv;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "siw server");
	srv->reject = true;
	srv->reject_pdata = siw_rej;
	srv->reject_pdata_len = sizeof(siw_rej);
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);

	ul = cmkit_connect(test, core, &addr, cp->mpa_version);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &pr), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNREFUSED);
	expect_pdata(test, &r, siw_rej);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, ul);
}

/* TCP refuses the connection (RST to our SYN): the cause reaches the upper layer. */
void irdma_connect_without_listener_is_refused_once(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNREFUSED);
	/* Not our own request's private data handed back as the peer's. */
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, ul);
}

static const char cmkit_rej[] = "cmkit-rejects";

struct ul *cmkit_listen(struct kunit *test, struct irdma_cm_core *core,
			const struct sockaddr_in *addr)
{
	struct ul *lul = ul_create(test, "cmkit listener", UL_LISTEN, addr, NULL);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	return lul;
}

/* siw's client connects to @addr; the listener gets the request. */
struct cmkit_peer *siw_client_connects(struct kunit *test, struct ul *lul,
				       const struct sockaddr_in *addr,
				       struct ul_rec *req)
{
	struct cmkit_peer *cli = cmkit_peer_create(test, "siw client");
	struct sockaddr_in dst = *addr;

	KUNIT_ASSERT_EQ(test, cmkit_peer_resolve(cli, &dst), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_connect(cli, siw_req, sizeof(siw_req)), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, req), 0);
	KUNIT_EXPECT_EQ(test, req->status, 0);
	expect_pdata(test, req, siw_req);
	/*
	 * cm_peer's responder_resources and initiator_depth: siw's enhanced
	 * request says IRD 1 and ORD 1, and both reach the upper layer (as
	 * siw's CONNECT_REQUEST carries them).
	 */
	KUNIT_EXPECT_EQ(test, req->ird, 1);
	KUNIT_EXPECT_EQ(test, req->ord, 1);
	KUNIT_EXPECT_EQ(test, ntohs(((struct sockaddr_in *)&req->local)->sin_port),
			ntohs(addr->sin_port));
	KUNIT_EXPECT_EQ(test, ntohl(((struct sockaddr_in *)&req->remote)->sin_addr.s_addr),
			ntohl(addr->sin_addr.s_addr));
	KUNIT_EXPECT_NOT_NULL(test, req->provider_data);
	return cli;
}

struct ul *cmkit_accept(struct kunit *test, const struct ul_rec *req)
{
	struct ul *child = ul_create(test, "cmkit child", UL_PASSIVE, NULL, NULL);
	struct iw_cm_conn_param param;

	conn_param_init(&param, cmkit_rep, 16, 16);
	child->id.provider_data = req->provider_data;
	child->accepted = true;
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	return child;
}

void siw_connects_cmkit_accepts_then_siw_closes(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int mark = log_mark();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct cmkit_peer *cli;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req, r;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	cli = siw_client_connects(test, lul, &addr, &req);
	child = cmkit_accept(test, &req);

	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	/* Our ORD 16 lowered to siw's IRD 1; our IRD stays 16. */
	KUNIT_EXPECT_EQ(test, r.ird, 16);
	KUNIT_EXPECT_EQ(test, r.ord, 1);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	KUNIT_EXPECT_EQ(test, pr.pdata_len, (u8)sizeof(cmkit_rep));
	KUNIT_EXPECT_EQ(test, memcmp(pr.pdata, cmkit_rep, sizeof(cmkit_rep)), 0);

	KUNIT_ASSERT_EQ(test, rdma_disconnect(cli->id), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_CLOSE), 1U);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	ul_expect_clean(test, child);

	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, ul_count(lul, IW_CM_EVENT_CONNECT_REQUEST), 1U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, child);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(cli, CMKIT_ERROR_EVENTS), 0U);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

void siw_connects_cmkit_rejects(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct cmkit_cm_record pr;
	struct cmkit_peer *cli;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	cli = siw_client_connects(test, lul, &addr, &req);
	child = ul_create(test, "cmkit rejected child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, cmkit_rej, sizeof(cmkit_rej)), 0);

	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_REJECTED, &pr), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(cli, BIT(RDMA_CM_EVENT_ESTABLISHED)), 0U);
	KUNIT_EXPECT_EQ(test, child->nr, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, child);
}

/*
 * A listener is released with nothing left in its accept queue.  Releasing
 * it with children there makes TCP take each child's sk_callback_lock under
 * the child's (kernel socket) spinlock (inet_csk_listen_stop() ->
 * inet_child_forget()), and lockdep held that order against siw, which
 * read the same lock class with softirqs on until KI-2's fix
 * (docs/known-issues.md): seen on 6.1 whenever this suite and
 * cmkit_userspace shared a boot.
 */
static void raw_release_listener(struct socket *lsock)
{
	struct socket *child;

	while (!kernel_accept(lsock, &child, O_NONBLOCK))
		sock_release(child);
	sock_release(lsock);
}

static void raw_res_free(struct kunit_resource *res)
{
	struct raw_peer *raw = res->data;

	if (raw->sock)
		sock_release(raw->sock);
	if (raw->lsock)
		raw_release_listener(raw->lsock);
	kfree(raw);
}

struct raw_peer *raw_create(struct kunit *test)
{
	struct raw_peer *raw = kzalloc_obj(*raw, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, raw);
	if (!kunit_alloc_resource(test, ul_res_init, raw_res_free, GFP_KERNEL, raw)) {
		kfree(raw);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	return raw;
}

static void raw_timeouts(struct socket *sock)
{
	sock->sk->sk_rcvtimeo = cmkit_test_timeout();
	sock->sk->sk_sndtimeo = cmkit_test_timeout();
}

void raw_listen(struct kunit *test, struct raw_peer *raw, struct sockaddr_in *addr)
{
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw->lsock), 0);
	sock_set_reuseaddr(raw->lsock->sk);
	raw_timeouts(raw->lsock);
	KUNIT_ASSERT_EQ(test, kernel_bind(raw->lsock, CMKIT_KSOCKADDR(addr), sizeof(*addr)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(raw->lsock, 4), 0);
}

void raw_accept(struct kunit *test, struct raw_peer *raw)
{
	KUNIT_ASSERT_EQ(test, kernel_accept(raw->lsock, &raw->sock, 0), 0);
	raw_timeouts(raw->sock);
}

void raw_connect(struct kunit *test, struct raw_peer *raw, struct sockaddr_in *addr)
{
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw->sock), 0);
	raw_timeouts(raw->sock);
	KUNIT_ASSERT_EQ(test, kernel_connect(raw->sock, CMKIT_KSOCKADDR(addr), sizeof(*addr), 0),
			0);
}

int raw_send(struct raw_peer *raw, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_sendmsg(raw->sock, &msg, &iov, 1, len);
}

/* Read until @len bytes, EOF or error; returns bytes read or the error. */
int raw_recv(struct raw_peer *raw, u8 *buf, size_t len)
{
	struct msghdr msg = {};
	size_t got = 0;
	struct kvec iov;
	int rc;

	while (got < len) {
		iov.iov_base = buf + got;
		iov.iov_len = len - got;
		rc = kernel_recvmsg(raw->sock, &msg, &iov, 1, len - got, 0);
		if (rc <= 0)
			return got ? got : rc;
		got += rc;
	}
	return got;
}

/* Receive one whole MPA frame of @kind into @buf and decode it into @f. */
void raw_recv_frame(struct kunit *test, struct raw_peer *raw,
		    enum cmkit_mpa_kind kind, u8 *buf, struct cmkit_mpa_frame *f)
{
	int n;

	n = raw_recv(raw, buf, CMKIT_MPA_HDR_LEN);
	KUNIT_ASSERT_EQ(test, n, CMKIT_MPA_HDR_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse_strict(buf, n, kind, f), 0);
	n += raw_recv(raw, buf + n, cmkit_get_be16(buf + 18));
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse_strict(buf, n, kind, f), n);
}

u8 *raw_frame_buf(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, CMKIT_MPA_MAX_FRAME, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	return buf;
}

/* Receive cmkit's MPA request and check it with the shared parser. */
void raw_recv_request(struct kunit *test, struct raw_peer *raw)
{
	u8 *buf = raw_frame_buf(test);
	struct cmkit_mpa_frame f;

	raw_recv_frame(test, raw, CMKIT_MPA_REQUEST, buf, &f);
	KUNIT_EXPECT_TRUE(test, f.enhanced);
	KUNIT_EXPECT_EQ(test, f.ird, 4);
	KUNIT_EXPECT_EQ(test, f.ord, 4);
	KUNIT_EXPECT_EQ(test, f.ird_ctrl, 0);	/* no peer-to-peer mode */
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_req));
	KUNIT_EXPECT_EQ(test, memcmp(f.pdata, cmkit_req, sizeof(cmkit_req)), 0);
}

/* Send an enhanced MPA frame of @kind (IRD/ORD 2/2), a reject if @reject. */
void raw_send_mpa(struct kunit *test, struct raw_peer *raw, enum cmkit_mpa_kind kind,
		  bool reject, const void *pdata, u16 pdata_len)
{
	u8 *buf = raw_frame_buf(test);
	int n;

	n = cmkit_mpa_build_v2(buf, CMKIT_MPA_MAX_FRAME, kind, reject, 2, 2, 0, 0,
			       pdata, pdata_len);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
}

/* cmkit reset the connection: the peer reads the reset, and nothing before it. */
void raw_expect_reset(struct kunit *test, struct raw_peer *raw)
{
	u8 byte;

	KUNIT_EXPECT_EQ(test, raw_recv(raw, &byte, 1), -ECONNRESET);
}

/*
 * A connect the listener answers with a reset at once: the reset may reach
 * the socket before the connect returns (-ECONNRESET there), or after.
 */
void raw_connect_expect_reset(struct kunit *test, struct raw_peer *raw,
			      struct sockaddr_in *addr)
{
	int rc;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &raw->sock), 0);
	raw_timeouts(raw->sock);
	rc = kernel_connect(raw->sock, CMKIT_KSOCKADDR(addr), sizeof(*addr), 0);
	if (rc != -ECONNRESET) {
		KUNIT_ASSERT_EQ(test, rc, 0);
		raw_expect_reset(test, raw);
	}
}

void raw_reset(struct raw_peer *raw)
{
	sock_no_linger(raw->sock->sk);
	sock_release(raw->sock);
	raw->sock = NULL;
}

/* cmkit connects to @raw, listening on @addr, which accepts and reads the request. */
struct ul *raw_server_gets_request(struct kunit *test, struct irdma_cm_core *core,
				   struct raw_peer *raw, struct sockaddr_in *addr)
{
	struct ul *ul;

	raw_listen(test, raw, addr);
	ul = cmkit_connect(test, core, addr, CMKIT_MPA_REV2);
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	return ul;
}

/* cmkit connects to @raw, which accepts with IRD/ORD 2/2: @r is the reply. */
static struct ul *raw_peer_accepts(struct kunit *test, struct irdma_cm_core *core,
				   struct raw_peer *raw, struct sockaddr_in *addr,
				   struct ul_rec *r)
{
	struct ul *ul = raw_server_gets_request(test, core, raw, addr);

	raw_send_mpa(test, raw, CMKIT_MPA_REPLY, false, raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, r), 0);
	KUNIT_ASSERT_EQ(test, r->status, 0);
	return ul;
}

void irdma_established_peer_resets(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	int mark = log_mark();
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_peer_accepts(test, core, raw, &addr, &r);
	expect_pdata(test, &r, raw_rep);
	KUNIT_EXPECT_EQ(test, r.ird, 2);	/* lowered to the peer's ORD */
	KUNIT_EXPECT_EQ(test, r.ord, 2);	/* lowered to the peer's IRD */

	/* RDMA traffic from the peer is dropped, not mistaken for a frame. */
	KUNIT_ASSERT_EQ(test, raw_send(raw, "0123456789", 10), 10);
	raw_reset(raw);
	expect_ended_by_reset(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/* An orderly close the peer never answers with its FIN ends with a reset. */
void irdma_reset_ends_a_close_the_peer_ignores(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;
	u8 byte;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_peer_accepts(test, core, raw, &addr, &r);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), 0);
	/* Our FIN arrives; the peer keeps its half open. */
	KUNIT_EXPECT_EQ(test, raw_recv(raw, &byte, 1), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_DISCONNECT), 0U);

	KUNIT_ASSERT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
	expect_ended_by_reset(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
}

/* Wait until cmkit's listener has made a node for a peer's connection. */
void wait_node_made(struct kunit *test, struct irdma_cm_core *core, int made0)
{
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(core->wait,
						     atomic_read(&core->stats.nodes_made) > made0,
						     cmkit_test_timeout()), 0,
			    "the listener made no node for the connection");
}

/*
 * A peer that connected but never finished its request does not keep a
 * destroyed listener (and its id) alive: it is reset.
 */
void irdma_destroy_listen_resets_a_peer_without_request(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	struct sockaddr_in addr;
	struct ul *lul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, CMKIT_MPA_KEY_REQ, 8), 8);	/* half a key */
	wait_node_made(test, core, made0);

	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	raw_expect_reset(test, raw);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	expect_nodes_freed(test, core, made0, freed0);
}

void irdma_peer_goes_away_mid_mpa(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;
	int n;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_server_gets_request(test, core, raw, &addr);
	n = cmkit_mpa_build_v2(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REPLY, 0, 2, 2, 0, 0,
			       raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n - 5), n - 5);	/* then FIN */
	sock_release(raw->sock);
	raw->sock = NULL;
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
}

void irdma_garbage_instead_of_mpa_reply_aborts(struct kunit *test)
{
	const struct garbage_param *g = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	int mark = log_mark();
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	ul = raw_server_gets_request(test, core, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, g->bytes, g->len), g->len);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	raw_expect_reset(test, raw);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

const char * const bad_request_names[] = {
	[BAD_HTTP] = "HTTP",
	[BAD_REPLY_KEY] = "reply key in a request",
	[BAD_HALF_THEN_FIN] = "half a request, then FIN",
};

/* What a misbehaving initiator sends cmkit's listener: no upcall, no node left. */
void irdma_bad_request_to_listener_aborts_silently(struct kunit *test)
{
	const enum bad_request *bad = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	static const char junk[] = "GET / HTTP/1.0\r\nHost: cmkit\r\n\r\n";
	u8 *buf = raw_frame_buf(test);
	int mark = log_mark();
	struct sockaddr_in addr;
	struct ul *lul;
	int n = 0;

	switch (*bad) {
	case BAD_HTTP:
		n = sizeof(junk);
		memcpy(buf, junk, n);
		break;
	case BAD_REPLY_KEY:
		n = cmkit_mpa_build_v1(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REPLY, 0, NULL, 0);
		break;
	case BAD_HALF_THEN_FIN:
		n = cmkit_mpa_build_v2(buf, CMKIT_MPA_MAX_FRAME, CMKIT_MPA_REQUEST, 0, 1, 1,
				       0, 0, siw_req, sizeof(siw_req)) - 5;
		break;
	}
	KUNIT_ASSERT_GT(test, n, 0);

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	KUNIT_ASSERT_EQ(test, raw_send(raw, buf, n), n);
	if (*bad == BAD_HALF_THEN_FIN)
		kernel_sock_shutdown(raw->sock, SHUT_WR);
	raw_expect_reset(test, raw);
	expect_nodes_freed(test, core, made0, freed0);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, log_lines_since(test, mark), 0);
}

/*
 * Up to 255 bytes of the peer's private data reach the upper layer whole;
 * more than that ends the connection, in a request (no upcall) and in a
 * reply alike (CONNECT_REPLY(-ECONNRESET), no private data): nothing is cut.
 */
void irdma_peer_private_data_whole_or_refused(struct kunit *test)
{
	const struct pdata_param *p = test->param_value;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *pdata = raw_frame_buf(test);
	struct sockaddr_in addr;
	struct ul *lul, *ul;
	struct ul_rec r;
	int i;

	for (i = 0; i < p->len; i++)
		pdata[i] = i;
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	if (!p->reply) {
		lul = cmkit_listen(test, core, &addr);
		raw_connect(test, raw, &addr);
		raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, pdata, p->len);
		KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &r), 0);
		KUNIT_EXPECT_EQ(test, r.pdata_len, (u8)p->len);
		KUNIT_EXPECT_EQ(test, memcmp(r.pdata, pdata, CMKIT_PEER_PDATA_MAX), 0);
		ul = ul_create(test, "rejected child", UL_PASSIVE, NULL, NULL);
		ul->id.provider_data = r.provider_data;
		KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&ul->id, NULL, 0), 0);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		ul_expect_clean(test, lul);
		expect_nodes_freed(test, core, made0, freed0);
		return;
	}

	ul = raw_server_gets_request(test, core, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REPLY, p->reject, pdata, p->len);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	if (p->len <= U8_MAX) {
		KUNIT_EXPECT_EQ(test, r.status, 0);
		KUNIT_EXPECT_EQ(test, r.pdata_len, (u8)p->len);
		KUNIT_EXPECT_EQ(test, memcmp(r.pdata, pdata, CMKIT_PEER_PDATA_MAX), 0);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
		expect_ended_by_reset(test, ul);
	} else {
		KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
		KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
		if (!r.status) {	/* cut short and taken: end it */
			KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), 0);
			expect_ended_by_reset(test, ul);
			return;
		}
		raw_expect_reset(test, raw);
		KUNIT_EXPECT_EQ(test, ul->nr, 1U);
		ul_expect_clean(test, ul);
	}
	expect_nodes_freed(test, core, made0, freed0);
}

/* What cmkit sends is held to the same limit: more than 255 bytes is refused. */
void irdma_private_data_over_255_not_sent(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *pdata = raw_frame_buf(test);
	struct sockaddr_in addr, src, nobody;
	struct iw_cm_conn_param param;
	struct ul *ul, *lul, *child;
	struct ul_rec req;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, cmkit_test_port(), &nobody);
	cmkit_test_addr(siw_param, 0, &src);
	memset(&param, 0, sizeof(param));
	param.private_data = pdata;
	param.private_data_len = U8_MAX + 1;

	/* A connect: refused before anything is made. */
	ul = ul_create(test, "oversized connect", UL_ACTIVE, &src, &nobody);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made), made0);

	/* An accept: refused, and the request still needs its answer. */
	lul = cmkit_listen(test, core, &addr);
	raw_connect(test, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "oversized accept", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_ASSERT_EQ(test, cmkit_irdma_accept(&child->id, &param), -EINVAL);
	param.private_data_len = U8_MAX;
	child->accepted = true;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_accept(&child->id, &param), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &req), 0);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&child->id, true), 0);
	expect_ended_by_reset(test, child);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, ul);
	expect_nodes_freed(test, core, made0, freed0);
}

/* ---- a CONNECT_REQUEST the upper layer refuses --------------------------- */

/*
 * iw_cm's contract: a non-zero answer to CONNECT_REQUEST does not consume
 * the request; the consumer then rejects it (iw_cm's cm_conn_req_handler()
 * calls iw_cm_reject() on the child and destroys it).  So the node must
 * outlive the upcall until that reject, and the peer gets an MPA reject
 * frame, not a reset.
 */
void irdma_refused_request_is_rejected_by_the_consumer(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	struct raw_peer *raw = raw_create(test);
	u8 *buf = raw_frame_buf(test);
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = cmkit_listen(test, core, &addr);
	lul->req_rc = -EBUSY;
	raw_connect(test, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	/* The upcall has returned -EBUSY: the node awaits the consumer's answer. */
	flush_workqueue(core->event_wq);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&core->stats.nodes_freed), freed0,
			    "the refused request's node was freed before its answer");

	child = ul_create(test, "refusing child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&child->id, cmkit_rej, sizeof(cmkit_rej)), 0);
	raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
	KUNIT_EXPECT_TRUE(test, f.flags & CMKIT_MPA_FLAG_REJECT);
	KUNIT_EXPECT_EQ(test, f.pdata_len, sizeof(cmkit_rej));
	KUNIT_EXPECT_EQ(test, memcmp(f.pdata, cmkit_rej, sizeof(cmkit_rej)), 0);
	KUNIT_EXPECT_EQ(test, raw_recv(raw, buf, 1), 0);	/* then our FIN */
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	KUNIT_EXPECT_EQ(test, child->nr, 0U);
	expect_nodes_freed(test, core, made0, freed0);
	expect_id_released(test, child);
}

/* ---- a SYN nobody answers ------------------------------------------------ */

static void syn_retries_restore(struct kunit_resource *res)
{
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_syn_retries, (u8)(uintptr_t)res->data);
}

/*
 * TCP gives up on a SYN nobody answers (an address on a dummy interface,
 * where packets vanish): the upper layer learns -ETIMEDOUT, not a reset.
 * One SYN retry (as net.ipv4.tcp_syn_retries=1) makes that about 3 s.
 */
void irdma_connect_syn_timeout_reports_etimedout(struct kunit *test)
{
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int made0 = atomic_read(&core->stats.nodes_made);
	int freed0 = atomic_read(&core->stats.nodes_freed);
	u8 saved = READ_ONCE(init_net.ipv4.sysctl_tcp_syn_retries);
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, ul_res_init,
							 syn_retries_restore, GFP_KERNEL,
							 (void *)(uintptr_t)saved));
	WRITE_ONCE(init_net.ipv4.sysctl_tcp_syn_retries, 1);
	/* The no-RDMA dummy's subnet, an address nobody has. */
	cmkit_test_nodev_addr(cmkit_test_port(), &addr);
	addr.sin_addr.s_addr = htonl(ntohl(addr.sin_addr.s_addr) + 1);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	expect_nodes_freed(test, core, made0, freed0);
}
