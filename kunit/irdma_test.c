// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: cmkit's irdma-style iWARP connection manager against siw.
 *
 * The upper layer is a recording iw_cm_id (kunit/irdma_common.c): it enforces
 * iw_cm's rules (one CONNECT_REPLY per connect, ESTABLISHED only after an
 * accept, DISCONNECT then CLOSE, CLOSE once, nothing after CLOSE) and a
 * violation fails the test instead of crashing the kernel.  siw's side of
 * each connection is an in-kernel rdma_cm id on siw0 (kunit/cm_peer.c);
 * peers that misbehave on purpose are plain kernel TCP sockets.  Without a
 * peer, constructed nodes on a private core check the event references and
 * per-node ordering.
 */
#include "irdma_test.h"

static const struct connect_param connect_params[] = {
	{ CMKIT_MPA_REV2 },
	{ CMKIT_MPA_REV1 },
};

static void connect_param_desc(const struct connect_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "MPA v%u", p->mpa_version);
}

KUNIT_ARRAY_PARAM(irdma_mpa, connect_params, connect_param_desc);

static const struct garbage_param garbage_params[] = {
	{ "HTTP", "HTTP/1.1 200 OK\r\nX: y\r\n", 24 },
	{ "request key in a reply", "MPA ID Req Frame\x00\x01\x00\x00", 20 },
	{ "revision 3", "MPA ID Rep Frame\x00\x03\x00\x00", 20 },
	{ "private data 65535", "MPA ID Rep Frame\x00\x02\xff\xff", 20 },
	{ "markers", "MPA ID Rep Frame\x80\x01\x00\x00", 20 },
	{ "enhanced without IRD/ORD", "MPA ID Rep Frame\x10\x02\x00\x02xy", 22 },
	{ "revision 1 to an enhanced request", "MPA ID Rep Frame\x00\x01\x00\x00", 20 },
	/* A valid frame, but our IRD 4 cannot serve the peer's ORD 8. */
	{ "ORD above our IRD",
	  "MPA ID Rep Frame\x10\x02\x00\x04\x00\x08\x00\x08", 24 },
};

CMKIT_ARRAY_PARAM_DESC(irdma_garbage, garbage_params);

static const enum bad_request bad_requests[] = {
	BAD_HTTP, BAD_REPLY_KEY, BAD_HALF_THEN_FIN,
};

static void bad_request_desc(const enum bad_request *p, char *desc)
{
	strscpy(desc, bad_request_names[*p], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_bad_request, bad_requests, bad_request_desc);

static const struct pdata_param pdata_params[] = {
	{ "request of 255 bytes", false, false, 255 },
	{ "reply of 255 bytes", true, false, 255 },
	{ "reply of 256 bytes", true, false, 256 },
	{ "reject of 256 bytes", true, true, 256 },
	{ "reply of 300 bytes", true, false, 300 },
};

CMKIT_ARRAY_PARAM_DESC(irdma_pdata, pdata_params);

static const struct fault_param fault_params[] = {
	{ FAULT_CORE, IRDMA_FAULT_EVENT_WQ, 0, -ENOMEM, "" },
	{ FAULT_CORE, IRDMA_FAULT_SOCK_WQ, 0, -ENOMEM, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_NODE_ALLOC, 0, -ENOMEM, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_SOCK_CREATE, 0, -ENOMEM, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_BIND, 0, -EADDRINUSE, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_CONNECT, 0, -ENETUNREACH, "" },
	{ FAULT_CONNECT, IRDMA_FAULT_MPA_ALLOC, 0, 0, "request" },
	{ FAULT_CONNECT, IRDMA_FAULT_SENDMSG, 0, 0, "request" },
	{ FAULT_CONNECT, IRDMA_FAULT_EVENT_ALLOC, 0, 0, "CONNECTED" },
	{ FAULT_ACCEPT, IRDMA_FAULT_LISTENER_ALLOC, 0, -ENOMEM, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_SOCK_CREATE, 0, -ENOMEM, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_BIND, 0, -EADDRINUSE, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_LISTEN, 0, -EADDRINUSE, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_ACCEPT, 0, 0, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_NODE_ALLOC, 0, 0, "" },
	{ FAULT_ACCEPT, IRDMA_FAULT_EVENT_ALLOC, 0, 0, "MPA_REQ" },
	{ FAULT_ACCEPT, IRDMA_FAULT_EVENT_ALLOC, 1, -ENOMEM, "ESTABLISHED" },
	{ FAULT_ACCEPT, IRDMA_FAULT_MPA_ALLOC, 0, -ENOMEM, "reply" },
	{ FAULT_ACCEPT, IRDMA_FAULT_SENDMSG, 0, -EAGAIN, "reply" },
};

static void fault_param_desc(const struct fault_param *p, char *desc)
{
	static const char * const roles[] = { "core", "connect", "accept" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s %s", roles[p->role],
		 cmkit_irdma_fault_points.steps[p->step], p->what);
}

KUNIT_ARRAY_PARAM(irdma_fault, fault_params, fault_param_desc);

static const enum fault_role nth_roles[] = { FAULT_CONNECT, FAULT_ACCEPT };

static void nth_role_desc(const enum fault_role *role, char *desc)
{
	strscpy(desc, *role == FAULT_CONNECT ? "connect, reset" : "listen, accept, reset",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_nth, nth_roles, nth_role_desc);

static const struct p2p_param p2p_params[] = {
	{ CMKIT_MPA_RTR_WRITE, 0 }, { CMKIT_MPA_RTR_WRITE, 1 },
	{ CMKIT_MPA_RTR_READ, 0 }, { CMKIT_MPA_RTR_READ, 1 },
	{ CMKIT_MPA_RTR_SEND, 0 }, { CMKIT_MPA_RTR_SEND, 1 },
	{ CMKIT_MPA_RTR_WRITE, 2 },
};

static void p2p_param_desc(const struct p2p_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s RTR%s", rtr_name(p->rtr),
		 p->crc == 2 ? ", CRC asked by the responder" : p->crc ? ", CRC" : "");
}

KUNIT_ARRAY_PARAM(irdma_p2p, p2p_params, p2p_param_desc);

static const struct strict_resp_param strict_resp_params[] = {
	{ "Write RTR", CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE, 0, CMKIT_MPA_RTR_WRITE, 0 },
	{ "Read RTR, CRC", CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 1, CMKIT_MPA_RTR_READ, 0 },
	{ "Send RTR", CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_SEND, 0, CMKIT_MPA_RTR_SEND, 0 },
	{ "any RTR offered, Read demanded", CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 1,
	  CMKIT_MPA_RTR_READ, 0 },
	{ "no P2P: rejected", CMKIT_MPA_P2P_OFF, 0, 0, CMKIT_MPA_RTR_WRITE, -ECONNREFUSED,
	  CMKIT_MPA_REJ_P2P_REQUIRED },
	{ "Write offered, Read demanded: rejected", CMKIT_MPA_P2P_REQUIRED,
	  CMKIT_MPA_RTR_WRITE, 0, CMKIT_MPA_RTR_READ, -ECONNREFUSED, CMKIT_MPA_REJ_NO_RTR },
	{ "P2P required, accepted without it: reset", CMKIT_MPA_P2P_REQUIRED,
	  CMKIT_MPA_RTR_WRITE, 0, 0, -ECONNRESET },
};

CMKIT_ARRAY_PARAM_DESC(irdma_strict_resp, strict_resp_params);

static const struct strict_init_param strict_init_params[] = {
	{ "Write RTR", CMKIT_MPA_RTR_WRITE, 0, INIT_GOOD },
	{ "Write RTR, CRC", CMKIT_MPA_RTR_WRITE, 1, INIT_GOOD },
	{ "Read RTR", CMKIT_MPA_RTR_READ, 0, INIT_GOOD },
	{ "Read RTR, CRC", CMKIT_MPA_RTR_READ, 1, INIT_GOOD },
	{ "Send RTR", CMKIT_MPA_RTR_SEND, 0, INIT_GOOD },
	{ "Send RTR, CRC", CMKIT_MPA_RTR_SEND, 1, INIT_GOOD },
	{ "RTR with a bad CRC", CMKIT_MPA_RTR_WRITE, 1, INIT_BAD_CRC },
	{ "RTR of another type", CMKIT_MPA_RTR_SEND, 0, INIT_WRONG_RTR },
	{ "FIN instead of the RTR", CMKIT_MPA_RTR_WRITE, 0, INIT_NO_RTR },
};

CMKIT_ARRAY_PARAM_DESC(irdma_strict_init, strict_init_params);

static const struct refuse_param refuse_params[] = {
	{ "markers", { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, CMKIT_MPA_FLAG_MARKERS, 0, CMKIT_MPA_REJ_MARKERS },
	{ "revision 3", { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, 0, 3, CMKIT_MPA_REJ_REVISION },
	{ "revision 2 to a revision 1 listener",
	  { 1, 0, CMKIT_MPA_P2P_OFF, 0, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, 0, 0, CMKIT_MPA_REJ_REVISION },
	{ "no P2P to a P2P listener",
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 4 }, 0, 0, CMKIT_MPA_REJ_P2P_REQUIRED },
	{ "P2P to a listener without P2P (RFC 6581 9.2: no reply without A)",
	  { 2, 0, CMKIT_MPA_P2P_OFF, 0, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 4, 4 },
	  0, 0, CMKIT_MPA_REJ_NO_RTR },
	{ "no RTR type in common",
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_WRITE | CMKIT_MPA_RTR_SEND, 0, 0, 4, 4 },
	  0, 0, CMKIT_MPA_REJ_NO_RTR },
	{ "Read RTR to a listener without read resources",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 1, 0, 0x3fff },
	  { 2, 0, CMKIT_MPA_P2P_REQUIRED, CMKIT_MPA_RTR_READ, 0, 0, 4, 0 },
	  0, 0, CMKIT_MPA_REJ_NO_RTR },
	{ "ORD above a strict listener's IRD",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 1, 2, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 4, 8 }, 0, 0, CMKIT_MPA_REJ_IRD },
	{ "256 bytes of private data (more than an upcall carries)",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 2, 0, 0, 0, 0, 0, 1, 1 }, 0, 0, CMKIT_MPA_REJ_PDATA, 256 },
	{ "300 bytes of private data, revision 1",
	  { 2, 0, CMKIT_MPA_P2P_ON, CMKIT_MPA_RTR_ALL, 0, 0, 0x3fff, 0x3fff },
	  { 1, 0, 0, 0, 0, 0, 0x3fff, 0x3fff }, 0, 0, CMKIT_MPA_REJ_PDATA, 300 },
};

CMKIT_ARRAY_PARAM_DESC(irdma_refuse, refuse_params);

static const struct rev_param rev_params[] = {
	{ "v2 to v1, no fallback: refused", 1, 2, 0, -ECONNREFUSED, 0 },
	{ "v2 to v1, fallback: v1", 1, 2, 1, 0, 1 },
	{ "v1 to v2: v1", 2, 1, 0, 0, 1 },
	{ "v2 to v2, fallback unused: v2", 2, 2, 1, 0, 2 },
};

CMKIT_ARRAY_PARAM_DESC(irdma_rev, rev_params);

static const struct rev_param reset_fallback_params[] = {
	{ "no fallback: reset", 1, 2, 0 },
	{ "fallback: revision 1", 1, 2, 1 },
};

KUNIT_ARRAY_PARAM(irdma_reset_fallback, reset_fallback_params, irdma_rev_desc);

static const enum mpa_timer_case mpa_timer_cases[] = {
	TIMER_REQUEST, TIMER_REPLY, TIMER_RTR,
};

static void mpa_timer_desc(const enum mpa_timer_case *c, char *desc)
{
	static const char * const names[] = {
		[TIMER_REQUEST] = "MPA request: reset, no upcall",
		[TIMER_REPLY] = "MPA reply: CONNECT_REPLY(-ETIMEDOUT)",
		[TIMER_RTR] = "RTR: the accepted id is reset",
	};

	strscpy(desc, names[*c], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(irdma_mpa_timer, mpa_timer_cases, mpa_timer_desc);

static const struct p2p_param siw_p2p_params[] = {
	{ CMKIT_MPA_RTR_WRITE, 0 }, { CMKIT_MPA_RTR_READ, 0 },
};

KUNIT_ARRAY_PARAM(irdma_siw_p2p, siw_p2p_params, p2p_param_desc);

static struct kunit_case irdma_cases[] = {
	KUNIT_CASE(irdma_every_event_type_releases_its_reference),
	KUNIT_CASE(irdma_10000_events_keep_per_node_order),
	KUNIT_CASE(irdma_batches_keep_node_order_and_yield_after_the_bound),
	KUNIT_CASE_PARAM(irdma_connects_siw_accepts_then_cmkit_closes,
			 irdma_mpa_gen_params),
	KUNIT_CASE(irdma_connects_siw_accepts_then_cmkit_resets),
	KUNIT_CASE_PARAM(irdma_connects_siw_rejects_with_private_data,
			 irdma_mpa_gen_params),
	KUNIT_CASE(irdma_connect_without_listener_is_refused_once),
	KUNIT_CASE(irdma_connect_syn_timeout_reports_etimedout),
	KUNIT_CASE(siw_connects_cmkit_accepts_then_siw_closes),
	KUNIT_CASE(siw_connects_cmkit_rejects),
	KUNIT_CASE(irdma_refused_request_is_rejected_by_the_consumer),
	KUNIT_CASE(irdma_established_peer_resets),
	KUNIT_CASE(irdma_reset_ends_a_close_the_peer_ignores),
	KUNIT_CASE(irdma_destroy_listen_resets_a_peer_without_request),
	KUNIT_CASE(irdma_peer_goes_away_mid_mpa),
	KUNIT_CASE_PARAM(irdma_garbage_instead_of_mpa_reply_aborts,
			 irdma_garbage_gen_params),
	KUNIT_CASE_PARAM(irdma_bad_request_to_listener_aborts_silently,
			 irdma_bad_request_gen_params),
	KUNIT_CASE_PARAM(irdma_peer_private_data_whole_or_refused, irdma_pdata_gen_params),
	KUNIT_CASE(irdma_private_data_over_255_not_sent),
	KUNIT_CASE(irdma_close_during_last_upcall_is_refused),
	KUNIT_CASE(irdma_close_holding_node_across_last_upcall),
	KUNIT_CASE(irdma_cleanup_while_connect_has_no_socket),
	KUNIT_CASE(irdma_cleanup_after_connect_issued),
	KUNIT_CASE(irdma_cleanup_before_listener_published),
	KUNIT_CASE(irdma_cleanup_right_after_listener_published),
	KUNIT_CASE(irdma_cleanup_waits_for_a_node_being_destroyed),
	KUNIT_CASE(irdma_cleanup_tears_down_live_connections),
	KUNIT_CASE_PARAM(irdma_failure_injected, irdma_fault_gen_params),
	KUNIT_CASE_PARAM(irdma_failslab_nth_over_a_connection, irdma_nth_gen_params),
	KUNIT_CASE_PARAM(irdma_p2p_cmkit_to_cmkit, irdma_p2p_gen_params),
	KUNIT_CASE_PARAM(irdma_p2p_connect_to_strict_responder, irdma_strict_resp_gen_params),
	KUNIT_CASE_PARAM(irdma_p2p_strict_initiator_connects, irdma_strict_init_gen_params),
	KUNIT_CASE_PARAM(irdma_listener_refuses_with_a_reason, irdma_refuse_gen_params),
	KUNIT_CASE_PARAM(irdma_revision_1_and_2_with_and_without_fallback, irdma_rev_gen_params),
	KUNIT_CASE_PARAM(irdma_fallback_after_a_reset, irdma_reset_fallback_gen_params),
	KUNIT_CASE_PARAM(irdma_mpa_timer_expires, irdma_mpa_timer_gen_params),
	KUNIT_CASE(irdma_backlog_limits_pending_requests),
	KUNIT_CASE_PARAM(irdma_p2p_connects_siw, irdma_siw_p2p_gen_params),
	KUNIT_CASE(irdma_ipv6_connects_siw),
	KUNIT_CASE(siw_ipv6_connects_cmkit),
	{}
};

/* No fault a case armed outlives it, whether or not it fired. */
static void irdma_case_exit(struct kunit *test)
{
	cmkit_fault_disarm(&cmkit_irdma_fault_points);
}

struct kunit_suite cmkit_irdma_suite = {
	.name = "cmkit_irdma",
	.exit = irdma_case_exit,
	.test_cases = irdma_cases,
};
