// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: races pinned by hooks on private cores, and teardown with
 * live connections (what unloading cmkit does).
 */
#include "irdma_test.h"

static void pin_cleanup_work(struct work_struct *work)
{
	struct pin *pin = container_of(work, struct pin, work);

	cmkit_irdma_cleanup_cm_core(pin->core);
	pin->refs_at_return = pin->ul ? ul_refs(pin->ul) : 0;
	pin->freed_at_return = atomic_read(&pin->core->stats.nodes_freed);
	complete_all(&pin->settled);
	complete_all(&pin->done);
}

static void pin_hook(struct irdma_cm_core *core, enum irdma_cm_hook where, void *arg)
{
	struct pin *pin = core->test_data;

	if (where == IRDMA_HOOK_CLEANUP_WAITS) {
		complete_all(&pin->settled);
		return;
	}
	if (where != pin->at || pin->fired)
		return;
	pin->fired = true;
	pin->arg = arg;
	if (pin->run) {
		pin->run(pin);
		return;
	}
	/* Cleanup runs as far as it can while this path stands still here. */
	queue_work(system_unbound_wq, &pin->work);
	KUNIT_EXPECT_NE_MSG(pin->test, wait_for_completion_timeout(&pin->settled,
								   cmkit_test_timeout()), 0,
			    "cleanup neither returned nor waited");
}

static void pin_res_free(struct kunit_resource *res)
{
	struct pin *pin = res->data;

	WRITE_ONCE(pin->core->test_hook, NULL);
	if (pin->cleanup && pin->fired)
		wait_for_completion(&pin->done);
	kfree(pin);
}

/* Pin @core at @at: cleanup starts there (or @run runs there). */
static struct pin *pin_core(struct kunit *test, struct irdma_cm_core *core,
			    enum irdma_cm_hook at, void (*run)(struct pin *pin))
{
	struct pin *pin = kzalloc_obj(*pin, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pin);
	pin->test = test;
	pin->at = at;
	pin->core = core;
	pin->run = run;
	pin->cleanup = !run;
	INIT_WORK(&pin->work, pin_cleanup_work);
	init_completion(&pin->settled);
	init_completion(&pin->done);
	if (!kunit_alloc_resource(test, ul_res_init, pin_res_free, GFP_KERNEL, pin)) {
		kfree(pin);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	core->test_data = pin;
	WRITE_ONCE(core->test_hook, pin_hook);
	return pin;
}

static void pin_wait_cleanup(struct kunit *test, struct pin *pin)
{
	KUNIT_ASSERT_TRUE(test, pin->fired);
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&pin->done,
							      cmkit_test_timeout()), 0,
			    "cleanup did not return");
}

/*
 * Cleanup while a connect has made its node but has no socket yet: the
 * connect fails (-ENODEV), nothing is upcalled, and cleanup returns with
 * nothing left.  (Before: the connect went on after cleanup had reaped the
 * node, and a peer that never replied would have left cleanup waiting.)
 */
void irdma_cleanup_while_connect_has_no_socket(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct pin *pin;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_CONNECT_NODE_MADE, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);	/* nobody listens */
	cmkit_test_addr(siw_param, 0, &src);
	ul = ul_create(test, "connect vs cleanup", UL_ACTIVE, &src, &addr);
	pin->ul = ul;
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), -ENODEV);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, ul->nr, 0U);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_EQ(test, pin->freed_at_return, atomic_read(&core->stats.nodes_made));
	KUNIT_EXPECT_NULL(test, ul->id.provider_data);
	ul_expect_clean(test, ul);
}

/*
 * Cleanup once the connect is issued, before cmkit_irdma_connect() returns:
 * the connect succeeded, so the upper layer gets its one CONNECT_REPLY
 * (-ECONNRESET), delivered before cleanup returns.
 */
void irdma_cleanup_after_connect_issued(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct raw_peer *raw = raw_create(test);
	struct iw_cm_conn_param param;
	struct sockaddr_in addr, src;
	struct ul_rec r;
	struct pin *pin;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_CONNECT_ISSUED, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	cmkit_test_addr(siw_param, 0, &src);
	raw_listen(test, raw, &addr);	/* accepts, never replies */
	ul = ul_create(test, "issued connect vs cleanup", UL_ACTIVE, &src, &addr);
	pin->ul = ul;
	conn_param_init(&param, cmkit_req, 4, 4);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_connect(core, &ul->id, &param), 0);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, ul->nr, 1U);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
}

/* Cleanup before a new listener is published: the listen fails, nothing is held. */
void irdma_cleanup_before_listener_published(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct sockaddr_in addr;
	struct pin *pin;
	struct ul *lul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_LISTEN_READY, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "listener vs cleanup", UL_LISTEN, &addr, NULL);
	pin->ul = lul;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), -ENODEV);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_NULL(test, lul->id.provider_data);
	ul_expect_clean(test, lul);
}

/*
 * Cleanup right after a listener is published: it was whole when published
 * (callbacks, references, provider_data), so cleanup stops it cleanly and
 * create_listen still succeeds.  (Before: published first, then completed,
 * so cleanup released a reference never taken and freed the listener that
 * create_listen went on to fill in.)
 */
void irdma_cleanup_right_after_listener_published(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct sockaddr_in addr;
	struct pin *pin;
	struct ul *lul;

	cmkit_test_device(test, siw_param);
	pin = pin_core(test, core, IRDMA_HOOK_LISTEN_PUBLISHED, NULL);
	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	lul = ul_create(test, "published listener vs cleanup", UL_LISTEN, &addr, NULL);
	pin->ul = lul;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_create_listen(core, &lul->id, 4), 0);
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_NULL(test, lul->id.provider_data);
	KUNIT_EXPECT_EQ(test, lul->nr, 0U);
	ul_expect_clean(test, lul);
}

/*
 * Cleanup while a node's last reference is being dropped (off the list, not
 * yet destroyed): cleanup returns only after the node let go of its upper
 * layer.  (Before: an empty list counted as done.)
 */
void irdma_cleanup_waits_for_a_node_being_destroyed(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct irdma_cm_info info = {};
	struct irdma_cm_node *node;
	struct pin *pin;
	struct ul *ul;

	ul = ul_create(test, "node vs cleanup", UL_ACTIVE, NULL, NULL);
	node = cmkit_irdma_make_cm_node(core, &ul->id, &info);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, node);
	ul->id.add_ref(&ul->id);	/* as a connect does */
	set_bit(IRDMA_CM_NODE_ID_HELD, &node->flags);
	pin = pin_core(test, core, IRDMA_HOOK_NODE_UNLISTED, NULL);
	pin->ul = ul;
	cmkit_irdma_cm_node_put_base(node);	/* the last reference */
	pin_wait_cleanup(test, pin);
	KUNIT_EXPECT_EQ(test, pin->refs_at_return, 0);
	KUNIT_EXPECT_EQ(test, pin->freed_at_return, 1);
	ul_expect_clean(test, ul);
}

/* An established cmkit -> siw connection on @core; @srv is siw's side. */
static struct ul *established_to_siw(struct kunit *test, struct irdma_cm_core *core,
				     struct cmkit_peer **srv)
{
	struct cmkit_cm_record pr;
	struct sockaddr_in addr;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_addr(siw_param, cmkit_test_port(), &addr);
	*srv = cmkit_peer_create(test, "siw server");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(*srv, &addr), 0);
	ul = cmkit_connect(test, core, &addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(*srv, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);
	return ul;
}

/* At the last upcall (event workqueue): let the test thread act, then go on. */
static void pin_last_upcall(struct pin *pin)
{
	struct pin_thread *t = pin->data;

	complete(&t->at_hook);
	KUNIT_EXPECT_NE(pin->test, wait_for_completion_timeout(&t->go_on,
							       cmkit_test_timeout()), 0);
}

/*
 * The consumer closes while the handler is about to make the last upcall:
 * the id already names no node, so the close is refused (-EINVAL) without
 * touching it, and the upper layer still gets DISCONNECT and CLOSE once.
 */
void irdma_close_during_last_upcall_is_refused(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct pin_thread t = {};
	struct cmkit_peer *srv;
	struct pin *pin;
	struct ul_rec r;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	init_completion(&t.at_hook);
	init_completion(&t.go_on);
	ul = established_to_siw(test, core, &srv);
	pin = pin_core(test, core, IRDMA_HOOK_LAST_UPCALL, pin_last_upcall);
	pin->ul = ul;
	pin->data = &t;
	KUNIT_ASSERT_EQ(test, cmkit_peer_disconnect(srv), 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&t.at_hook, cmkit_test_timeout()), 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_CLOSE), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), -EINVAL);
	complete(&t.go_on);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_DISCONNECT), 1U);
	ul_expect_clean(test, ul);
	KUNIT_EXPECT_EQ(test, ul->nr, 3U);
}

/* In the consumer's close, node held: the connection ends meanwhile. */
static void pin_close_holds_node(struct pin *pin)
{
	struct kunit *test = pin->test;
	struct cmkit_peer *srv = pin->data;
	struct ul_rec r;
	int freed = atomic_read(&pin->core->stats.nodes_freed);

	KUNIT_EXPECT_EQ(test, cmkit_peer_disconnect(srv), 0);
	KUNIT_EXPECT_EQ(test, ul_wait(pin->ul, IW_CM_EVENT_CLOSE, &r), 0);
	flush_workqueue(pin->core->event_wq);
	/* The close's reference keeps the node until it returns. */
	KUNIT_EXPECT_EQ(test, atomic_read(&pin->core->stats.nodes_freed), freed);
}

/*
 * The consumer's close holds the node when the connection's last upcall is
 * made: the close finds it closed (-ENOTCONN), and its reference keeps the
 * node until it returns.
 */
void irdma_close_holding_node_across_last_upcall(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct cmkit_peer *srv;
	struct pin *pin;
	struct ul *ul;

	cmkit_test_device(test, siw_param);
	ul = established_to_siw(test, core, &srv);
	pin = pin_core(test, core, IRDMA_HOOK_API_NODE_HELD, pin_close_holds_node);
	pin->ul = ul;
	pin->data = srv;
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), -ENOTCONN);
	KUNIT_EXPECT_TRUE(test, pin->fired);
	/* Freed once the close, and socket work still queued, let go. */
	expect_nodes_freed(test, core, 0, 0);
	KUNIT_EXPECT_EQ(test, ul_count(ul, IW_CM_EVENT_CLOSE), 1U);
	ul_expect_clean(test, ul);
	expect_id_released(test, ul);
}

/* ---- teardown with live connections (what unloading cmkit does) -------- */

void irdma_cleanup_tears_down_live_connections(struct kunit *test)
{
	struct irdma_cm_core *core = private_core(test);
	struct sockaddr_in siw_srv_addr, lis_addr, raw_addr;
	struct raw_peer *raw = raw_create(test);
	struct ul *active, *pending, *lul, *child;
	struct cmkit_peer *srv, *cli;
	struct cmkit_cm_record pr;
	struct ul_rec r, req;

	cmkit_test_device(test, siw_param);
	cmkit_test_addr(siw_param, cmkit_test_port(), &siw_srv_addr);
	cmkit_test_addr(siw_param, cmkit_test_port(), &lis_addr);
	cmkit_test_addr(siw_param, cmkit_test_port(), &raw_addr);

	/* cmkit -> siw, established */
	srv = cmkit_peer_create(test, "siw server");
	KUNIT_ASSERT_EQ(test, cmkit_peer_listen(srv, &siw_srv_addr), 0);
	active = cmkit_connect(test, core, &siw_srv_addr, CMKIT_MPA_REV2);
	KUNIT_ASSERT_EQ(test, ul_wait(active, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_ASSERT_EQ(test, r.status, 0);

	/* siw -> cmkit, accepted, and the listener stays */
	lul = cmkit_listen(test, core, &lis_addr);
	cli = siw_client_connects(test, lul, &lis_addr, &req);
	child = cmkit_accept(test, &req);
	KUNIT_ASSERT_EQ(test, ul_wait(child, IW_CM_EVENT_ESTABLISHED, &r), 0);
	KUNIT_ASSERT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_ESTABLISHED, &pr), 0);

	/* cmkit -> a peer that never answers the MPA request */
	pending = raw_server_gets_request(test, core, raw, &raw_addr);

	cmkit_irdma_cleanup_cm_core(core);
	KUNIT_EXPECT_NULL(test, lul->id.provider_data);	/* the listener is gone */

	KUNIT_EXPECT_EQ(test, ul_count(active, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(active, IW_CM_EVENT_CLOSE), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_DISCONNECT), 1U);
	KUNIT_EXPECT_EQ(test, ul_count(child, IW_CM_EVENT_CLOSE), 1U);
	KUNIT_ASSERT_EQ(test, ul_wait(pending, IW_CM_EVENT_CONNECT_REPLY, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, pending->nr, 1U);
	ul_expect_clean(test, active);
	ul_expect_clean(test, child);
	ul_expect_clean(test, pending);
	ul_expect_clean(test, lul);
	KUNIT_EXPECT_EQ(test, atomic_read(&core->stats.nodes_made),
			atomic_read(&core->stats.nodes_freed));
	/* siw saw both of its connections go. */
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(srv, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(cli, RDMA_CM_EVENT_DISCONNECTED, &pr), 0);
}
