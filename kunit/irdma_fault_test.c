// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: a failure injected at each step of connect, listen and
 * accept (the kernel's fault framework), and failslab's fail-nth over whole
 * connections.
 */
#include "irdma_test.h"

/* ---- failures injected at each step (the kernel's fault framework) ------ */

/* Everything @core made is gone, and every event it posted was handled. */
void expect_core_idle(struct kunit *test, struct irdma_cm_core *core)
{
	KUNIT_EXPECT_NE_MSG(test, wait_var_event_timeout(&core->live, !atomic_read(&core->live),
							 cmkit_test_timeout()), 0,
			    "%d nodes and listeners still alive", atomic_read(&core->live));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_posted),
			atomic_read(&core->stats.events_handled));
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.events_misordered), 0);
}

/* Fail @step once, after @skip passes that succeed. */
static void fault_arm(const struct fault_param *p)
{
	cmkit_fault_arm(&cmkit_irdma_fault_points, BIT(p->step), 1);
#ifdef CONFIG_FAULT_INJECTION
	atomic_set(&cmkit_irdma_fault_points.attr.space, p->skip ? p->skip + 1 : 0);
#endif
}

static void fault_connect(struct kunit *test, const struct fault_param *p,
			  struct irdma_cm_core *core)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, 0, &src);
	raw_listen(test, raw, &addr);
	ul = ul_create(test, "faulty connect", UL_ACTIVE, &src, &addr);
	conn_param_init(&param, cmkit_req, 4, 4);
	fault_arm(p);
	KUNIT_ASSERT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), p->rc);
	if (p->rc) {
		/* A connect that fails says so, and nothing else. */
		KUNIT_EXPECT_EQ(test, ul->nr, 0U);
		ul_expect_clean(test, ul);
		return;
	}
	raw_accept(test, raw);
	if (p->step == IRDMA_FAULT_EVENT_ALLOC) {
		/* The reply arrives, its CONNECTED cannot be posted: a reset. */
		raw_recv_request(test, raw);
		raw_send_mpa(test, raw, CMKIT_MPA_REPLY, false, raw_rep, sizeof(raw_rep));
	}
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, r.pdata_len, 0);
	raw_expect_reset(test, raw);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	ul_expect_clean(test, ul);
}

static void fault_accept(struct kunit *test, const struct fault_param *p,
			 struct irdma_cm_core *core)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;
	int rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "faulty listener", UL_LISTEN, &addr, NULL);
	if (p->step == IRDMA_FAULT_LISTENER_ALLOC || p->step == IRDMA_FAULT_SOCK_CREATE ||
	    p->step == IRDMA_FAULT_BIND || p->step == IRDMA_FAULT_LISTEN) {
		fault_arm(p);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), p->rc);
		KUNIT_EXPECT_NULL(test, lul->id.provider_data);
		ul_expect_clean(test, lul);
		return;
	}
	KUNIT_ASSERT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	fault_arm(p);
	if (p->step == IRDMA_FAULT_ACCEPT || p->step == IRDMA_FAULT_NODE_ALLOC) {
		/* Refused as soon as the TCP connection is accepted: no request. */
		raw_connect_expect_reset(test, raw, &addr);
	} else {
		raw_connect(test, raw, &addr);
		raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
		/* MPA_REQ's event cannot be posted: a reset. */
		if (p->step == IRDMA_FAULT_EVENT_ALLOC && !p->skip)
			raw_expect_reset(test, raw);
	}
	if (p->step == IRDMA_FAULT_ACCEPT || p->step == IRDMA_FAULT_NODE_ALLOC ||
	    (p->step == IRDMA_FAULT_EVENT_ALLOC && !p->skip)) {
		/* Refused before any upcall: the peer is reset, nobody told. */
		KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
		KUNIT_EXPECT_EQ(test, lul->nr, 0U);
		ul_expect_clean(test, lul);
		return;
	}
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "faulty child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	child->accepted = true;
	conn_param_init(&param, cmkit_rep, 4, 4);
	rc = cmkit_irdma_accept(&child->id, &param);
	KUNIT_EXPECT_EQ(test, rc, p->rc);
	/* A failed accept: no upcall on the child, the peer reset, the id empty. */
	raw_expect_reset(test, raw);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_destroy_listen(&lul->id), 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	KUNIT_EXPECT_EQ(test, child->nr, 0U);
	expect_id_released(test, child);
}

/*
 * A failure injected at each step of connect, listen and accept, through
 * the kernel's fault framework (cmkit_irdma_fault_points): the caller gets a clean
 * error, or the upper layer exactly the upcalls iw_cm allows (one failed
 * CONNECT_REPLY for a connect; none, or CONNECT_REQUEST and no more, for an
 * accept); the peer is reset; nothing is left.
 */
void irdma_failure_injected(struct kunit *test)
{
	const struct fault_param *p = test->param_value;
	int fired = atomic_read(&cmkit_irdma_fault_points.fired);
	struct irdma_cm_core *core, *bad;

	cmkit_test_require_fault_injection(test);
	if (p->role == FAULT_CORE) {
		bad = kunit_kzalloc(test, sizeof(*bad), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, bad);
		fault_arm(p);
		KUNIT_EXPECT_EQ(test, cmkit_irdma_setup_cm_core(bad), p->rc);
		KUNIT_EXPECT_NULL(test, bad->event_wq);
		KUNIT_EXPECT_NULL(test, bad->sock_wq);
		KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_irdma_fault_points.fired), fired + 1);
		return;
	}
	cmkit_test_device(test, siw_param);
	core = private_core(test);
	if (p->role == FAULT_CONNECT)
		fault_connect(test, p, core);
	else
		fault_accept(test, p, core);
	KUNIT_EXPECT_EQ(test, atomic_read(&cmkit_irdma_fault_points.fired), fired + 1);
	cmkit_fault_disarm(&cmkit_irdma_fault_points);
	cmkit_irdma_cleanup_cm_core(core);
	expect_core_idle(test, core);
}

static void nth_on(struct nth *t)
{
#ifdef CONFIG_FAULT_INJECTION
	if (!t->hit)
		current->fail_nth = t->left;
#endif
}

static void nth_off(struct nth *t)
{
#ifdef CONFIG_FAULT_INJECTION
	unsigned int left = current->fail_nth;

	current->fail_nth = 0;
	if (t->hit)
		return;
	if (left)
		t->left = left;
	else
		t->hit = true;
#endif
}

/* cmkit connects to a raw peer, which accepts; cmkit resets. */
static bool nth_connect_close(struct kunit *test, struct irdma_cm_core *core,
			      unsigned int n)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct nth t = { .left = n };
	struct ul_rec r;
	struct ul *ul;
	bool hit;
	int rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, 0, &src);
	raw_listen(test, raw, &addr);
	ul = ul_create(test, "fail-nth connect", UL_ACTIVE, &src, &addr);
	conn_param_init(&param, cmkit_req, 4, 4);
	nth_on(&t);
	rc = cmkit_irdma_connect(core, &ul->id, &param);
	nth_off(&t);
	if (rc) {
		KUNIT_EXPECT_TRUE_MSG(test, t.hit, "connect failed by itself: %d", rc);
		KUNIT_EXPECT_EQ(test, ul->nr, 0U);
		ul_expect_clean(test, ul);
		return t.hit;
	}
	raw_accept(test, raw);
	raw_recv_request(test, raw);
	raw_send_mpa(test, raw, CMKIT_MPA_REPLY, false, raw_rep, sizeof(raw_rep));
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	hit = t.hit;
	nth_on(&t);
	rc = cmkit_irdma_cm_close(&ul->id, true);
	nth_off(&t);
	KUNIT_EXPECT_EQ(test, rc, 0);	/* a reset's RESET has the node's spare */
	expect_ended_by_reset(test, ul);
	if (t.hit == hit)	/* else the RST itself may be what failed */
		raw_expect_reset(test, raw);
	return t.hit;
}

/* A raw peer connects to cmkit's listener; cmkit accepts, then resets. */
static bool nth_accept_close(struct kunit *test, struct irdma_cm_core *core,
			     unsigned int n)
{
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct nth t = { .left = n };
	u8 *buf = raw_frame_buf(test);
	struct cmkit_mpa_frame f;
	struct sockaddr_in addr;
	struct ul *lul, *child;
	struct ul_rec req;
	bool hit;
	int rc;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "fail-nth listener", UL_LISTEN, &addr, NULL);
	nth_on(&t);
	rc = cmkit_irdma_create_listen(core, &lul->id, 4);
	nth_off(&t);
	if (rc) {
		KUNIT_EXPECT_TRUE_MSG(test, t.hit, "listen failed by itself: %d", rc);
		ul_expect_clean(test, lul);
		return t.hit;
	}
	raw_connect(test, raw, &addr);
	raw_send_mpa(test, raw, CMKIT_MPA_REQUEST, false, raw_req, sizeof(raw_req));
	KUNIT_ASSERT_EQ(test, ul_wait(lul, IW_CM_EVENT_CONNECT_REQUEST, &req), 0);
	child = ul_create(test, "fail-nth child", UL_PASSIVE, NULL, NULL);
	child->id.provider_data = req.provider_data;
	child->accepted = true;
	conn_param_init(&param, cmkit_rep, 4, 4);
	nth_on(&t);
	rc = cmkit_irdma_accept(&child->id, &param);
	nth_off(&t);
	if (rc) {
		KUNIT_EXPECT_TRUE_MSG(test, t.hit, "accept failed by itself: %d", rc);
		raw_expect_reset(test, raw);
		KUNIT_EXPECT_EQ(test, child->nr, 0U);
	} else {
		raw_recv_frame(test, raw, CMKIT_MPA_REPLY, buf, &f);
		KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &req), 0);
		hit = t.hit;
		nth_on(&t);
		rc = cmkit_irdma_cm_close(&child->id, true);
		nth_off(&t);
		KUNIT_EXPECT_EQ(test, rc, 0);
		expect_ended_by_reset(test, child);
		if (t.hit == hit)	/* else the RST itself may be what failed */
			raw_expect_reset(test, raw);
	}
	nth_on(&t);
	rc = cmkit_irdma_destroy_listen(&lul->id);
	nth_off(&t);
	KUNIT_EXPECT_EQ(test, rc, 0);
	ul_expect_clean(test, lul);
	ul_expect_clean(test, child);
	return t.hit;
}

/*
 * For N = 1, 2, ...: fail the N-th allocation of the consumer's calls over
 * a whole connection, until one runs with fewer than N.  Each N ends in a
 * clean error or a whole connection, and nothing is left.
 */
void irdma_failslab_nth_over_a_connection(struct kunit *test)
{
	const enum fault_role *role = test->param_value;
	struct irdma_cm_core *core;
	unsigned int n, hits = 0;

	cmkit_test_require_fault_injection(test);
	cmkit_test_device(test, siw_param);
	cmkit_test_require_failslab(test);
	core = private_core(test);
	quiet_traces(test);
	for (n = 1; n < NTH_MAX; n++) {
		bool hit = *role == FAULT_CONNECT ? nth_connect_close(test, core, n) :
			   nth_accept_close(test, core, n);

		if (!hit)
			break;
		hits++;
		/* The id is let go before its node is counted freed: wait for that. */
		wait_event_timeout(core->wait, atomic_read(&core->stats.nodes_made) ==
				   atomic_read(&core->stats.nodes_freed), cmkit_test_timeout());
		KUNIT_ASSERT_EQ_MSG(test, atomic_read(&core->stats.nodes_made),
				    atomic_read(&core->stats.nodes_freed),
				    "a node left after failing allocation %u", n);
	}
	kunit_info(test, "%u allocations failed in turn, then a clean run\n", hits);
	KUNIT_EXPECT_LT(test, n, (unsigned int)NTH_MAX);
	cmkit_irdma_cleanup_cm_core(core);
	expect_core_idle(test, core);
	/* A sweep that injected nothing proved nothing. */
	KUNIT_ASSERT_GT_MSG(test, hits, 0U, "fail-nth 1 failed nothing: is failslab armed?");
}
