// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_smoke: proves the test guest.  On each device under test: the device
 * exists with port 1 ACTIVE, and a loopback rdma_cm connection between an
 * in-kernel listener and client goes through every step, with private data
 * both ways, one message each way over the QPs once both sides are
 * ESTABLISHED, and a disconnect both sides see.  Later suites copy this shape.
 */
#include <rdma/ib_verbs.h>

#include "cmkit_test.h"

static const char smoke_req[] = "cmkit-smoke-request";
static const char smoke_rep[] = "cmkit-smoke-reply";

static void smoke_port_is_active(struct kunit *test)
{
	const struct cmkit_dev_param *param = test->param_value;
	struct ib_device *dev;
	struct ib_port_attr attr;

	cmkit_test_case_timeout(test, 30);	/* no waits: a lookup and a query */
	dev = cmkit_test_device(test, param);
	KUNIT_ASSERT_EQ(test, ib_query_port(dev, 1, &attr), 0);
	KUNIT_EXPECT_EQ_MSG(test, attr.state, IB_PORT_ACTIVE,
			    "%s port 1 is in state %d", dev_name(&dev->dev),
			    attr.state);
}

static void smoke_expect_pdata(struct kunit *test, const struct cmkit_cm_record *r,
			       const char *want, size_t len)
{
	/* IB pads private data to its message size; iWARP delivers it exact. */
	KUNIT_ASSERT_GE(test, (size_t)r->pdata_len, len);
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, want, len), 0);
}

static void smoke_loopback_connect_then_client_disconnects(struct kunit *test)
{
	const struct cmkit_dev_param *param = test->param_value;
	struct cmkit_peer *srv, *cli;
	struct cmkit_cm_record r;
	struct sockaddr_in addr;

	cmkit_test_device(test, param);
	cmkit_test_addr(param, cmkit_test_port(), &addr);
	srv = cmkit_peer_create(test, "server");
	cli = cmkit_peer_create(test, "client");
	srv->accept_pdata = smoke_rep;
	srv->accept_pdata_len = sizeof(smoke_rep);

	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &addr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_resolve(cli, &addr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ADDR_RESOLVED, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ROUTE_RESOLVED, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_ASSERT_PTR_EQ(test, cli->id->device,
			    cmkit_test_device(test, param));

	KUNIT_ASSERT_EQ(test, cmkit_peer_connect(cli, smoke_req, sizeof(smoke_req)), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_CONNECT_REQUEST, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_TRUE(test, r.child);
	smoke_expect_pdata(test, &r, smoke_req, sizeof(smoke_req));

	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	smoke_expect_pdata(test, &r, smoke_rep, sizeof(smoke_rep));
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, 0);
	KUNIT_EXPECT_TRUE(test, r.child);

	/* The QPs carry data both ways: their attributes match. */
	KUNIT_EXPECT_EQ(test, cmkit_peer_check_data(test, cli, srv), 0);

	KUNIT_ASSERT_EQ(test, rdma_disconnect(cli->id), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_DISCONNECTED, &r), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &r), 0);
	KUNIT_EXPECT_TRUE(test, r.child);

	/* Nothing unexpected: no error event on either side. */
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(cli, CMKIT_ERROR_EVENTS), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_peer_count(srv, CMKIT_ERROR_EVENTS), 0U);
}

KUNIT_ARRAY_PARAM(smoke_dev, cmkit_dev_params, cmkit_dev_param_desc);

static struct kunit_case smoke_cases[] = {
	KUNIT_CASE_PARAM(smoke_port_is_active, smoke_dev_gen_params),
	KUNIT_CASE_PARAM(smoke_loopback_connect_then_client_disconnects,
			 smoke_dev_gen_params),
	{}
};

struct kunit_suite cmkit_smoke_suite = {
	.name = "cmkit_smoke",
	.test_cases = smoke_cases,
};
