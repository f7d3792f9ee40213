/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit_irdma: what the suite's files share (kunit/irdma_common.c), and
 * the cases each area file defines for the case table in kunit/irdma_test.c.
 */
#ifndef CMKIT_IRDMA_TEST_H
#define CMKIT_IRDMA_TEST_H

#include <linux/debug_locks.h>
#include <linux/kmsg_dump.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/trace_events.h>
#include <linux/umh.h>
#include <net/sock.h>

#include <cmkit/mpa_fpdu.h>
#include "cmkit_test.h"
#include "irdma/irdma.h"
#include "irdma/trace.h"

/* ---- the recording upper layer ----------------------------------------- */

enum ul_role {
	UL_LISTEN,
	UL_ACTIVE,
	UL_PASSIVE,
};

#define UL_MAX_REC	8

struct ul_rec {
	enum iw_cm_event_type event;
	int status;
	void *provider_data;
	u8 ird;
	u8 ord;
	u8 pdata_len;
	u8 pdata[CMKIT_PEER_PDATA_MAX];
	struct sockaddr_in6 local;	/* IPv4 or IPv6 */
	struct sockaddr_in6 remote;
};

/**
 * struct ul - a recording upper layer
 * @id: the iw_cm_id handed to cmkit
 * @role: listener, connecting id, or accepted id
 * @name: label for messages
 * @lock: protects everything below
 * @wait: woken on every upcall and reference drop
 * @refs: add_ref() minus rem_ref()
 * @req_rc: what the handler answers a CONNECT_REQUEST (0: take it)
 * @accepted: cmkit_irdma_accept() was called on @id
 * @n: upcalls per iw_cm event type
 * @nr: upcalls recorded in @rec
 * @rec: the first UL_MAX_REC upcalls
 * @violations: broken rules
 * @why: the first broken rule
 */
struct ul {
	struct iw_cm_id id;
	enum ul_role role;
	const char *name;
	spinlock_t lock;	/* everything below */
	wait_queue_head_t wait;
	int refs;
	int req_rc;
	bool accepted;
	unsigned int n[IW_CM_EVENT_CLOSE + 1];
	unsigned int nr;
	struct ul_rec rec[UL_MAX_REC];
	unsigned int violations;
	char why[96];
};

/* ---- what cmkit's irdma writes to the kernel log ------------------------ */

/*
 * A remote peer must not be able to fill the log: nothing cmkit's irdma
 * does for a peer, good or bad, logs a line (it traces).  log_mark() puts a
 * numbered line in the log; log_lines_since() counts cmkit irdma lines after
 * it, reading the log buffer back as kmsg_dump does.
 */
#define LOG_LINE_MAX	512

/*
 * One event on a fresh node whose upper layer is in @ul_state (for
 * @connected, a CONNECTED event first takes it from CONN_SENT to
 * established, with its CONNECT_REPLY recorded before the ones expected).
 */
struct event_case {
	enum irdma_cm_event_type type;
	enum irdma_cm_ul_state ul_state;
	enum ul_role role;
	bool ends;			/* drops the base reference */
	enum iw_cm_event_type up1, up2;	/* expected upcalls (0: none) */
	int status1;
	bool connected;
};

#define ORDER_NODES	100

#define ORDER_EVENTS	100

/*
 * A node's events are handled in batches of at most cm_core->event_batch:
 * with the event workqueue held up, node A gets 10 events, then node B 3;
 * with a bound of 3 the handler must take A's first 3, yield to B's work
 * (queued behind A's), take B's 3, then A's rest, 3 at a time, each node
 * in posting order.
 */
#define BATCH_BOUND	3

#define BATCH_A		10

#define BATCH_B		3

struct batch_rec {
	struct completion release;	/* lets the event workqueue go */
	struct work_struct blocker;
	unsigned int n;
	struct irdma_cm_node *node[BATCH_A + BATCH_B];
	u32 seq[BATCH_A + BATCH_B];
};

/* ---- cmkit connects to siw ---------------------------------------------- */

static const char cmkit_req[] __maybe_unused = "cmkit-irdma-request";

static const char siw_rep[] __maybe_unused = "siw-accepts";

struct connect_param {
	u8 mpa_version;
};

/* ---- siw connects to cmkit ----------------------------------------------- */

static const char siw_req[] __maybe_unused = "siw-requests";

static const char cmkit_rep[] __maybe_unused = "cmkit-accepts";

/* ---- misbehaving peers: plain kernel TCP sockets ------------------------ */

struct raw_peer {
	struct socket *lsock;
	struct socket *sock;
};

static const char raw_rep[] __maybe_unused = "raw-accepts";

static const char raw_req[] __maybe_unused = "raw-requests";

/*
 * A revision 2 enhanced request asking for peer-to-peer with a Write RTR:
 * flags 0x10 (enhanced), revision 2, 4 bytes of private data which are
 * IRD 4 with the P2P bit and ORD 4 with the Write RTR bit.
 */
static const u8 raw_p2p_write_req[] __maybe_unused = {
	'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
	0x10, 0x02, 0x00, 0x04, 0x80, 0x04, 0x80, 0x04,
};

struct garbage_param {
	const char *desc;
	u8 bytes[32];
	int len;
};

enum bad_request {
	BAD_HTTP,		/* not MPA at all */
	BAD_REPLY_KEY,		/* a reply where a request belongs */
	BAD_HALF_THEN_FIN,	/* the peer goes away mid-request */
};

/* ---- private data: 255 bytes, what one upcall carries, both ways -------- */

struct pdata_param {
	const char *desc;
	bool reply;		/* in a reply to cmkit's connect (else a request) */
	bool reject;		/* the reply rejects */
	u16 len;
};

/* ---- races pinned by hooks (private cores) ------------------------------- */

/**
 * struct pin - stop a private core at one hook point and run something there
 * @test: the test
 * @at: where to stop (the first time only)
 * @fired: @at was reached
 * @cleanup: cleanup runs on @work, started at @at
 * @work: runs cmkit_irdma_cleanup_cm_core() for @cleanup
 * @settled: cleanup reached a wait for live objects, or returned
 * @done: cleanup returned
 * @core: the core
 * @ul: an upper layer whose references cleanup's return is checked against
 * @refs_at_return: @ul's references when cleanup returned
 * @freed_at_return: nodes freed when cleanup returned
 * @run: called at @at instead of starting cleanup (may be NULL)
 * @data: for @run
 * @arg: the hook point's argument, for @run
 */
struct pin {
	struct kunit *test;
	enum irdma_cm_hook at;
	bool fired;
	bool cleanup;
	struct work_struct work;
	struct completion settled;
	struct completion done;
	struct irdma_cm_core *core;
	struct ul *ul;
	int refs_at_return;
	int freed_at_return;
	void (*run)(struct pin *pin);
	void *data;
	void *arg;
};

/* The test thread's side of a pinned race: @run runs there. */
struct pin_thread {
	struct completion at_hook;
	struct completion go_on;
	int rc;
};

enum fault_role {
	FAULT_CORE,	/* cmkit_irdma_setup_cm_core() */
	FAULT_CONNECT,	/* cmkit_irdma_connect() and what follows, to a raw peer */
	FAULT_ACCEPT,	/* create_listen, a raw peer's request, cmkit_irdma_accept() */
};

/**
 * struct fault_param - one failure injected
 * @role: the path
 * @step: the step that fails
 * @skip: passes of the step that succeed first
 * @rc: what the call that fails returns (0: it succeeds, and the failure
 *	comes as an upcall or as a reset of the peer)
 * @what: which pass of the step, for the case's name
 */
struct fault_param {
	enum fault_role role;
	enum irdma_fault step;
	int skip;
	int rc;
	const char *what;
};

/* ---- failslab's fail-nth over a whole connection ------------------------- */

/*
 * failslab (mm/failslab.c) with the task filter: current->fail_nth = N fails
 * the N-th slab allocation of this thread (what /proc/<pid>/fail-nth sets).
 * Only what the test thread runs counts: the consumer API (connect, listen,
 * accept, close, destroy) is called here, while the socket work and the
 * events run on cmkit's workqueues, whose failures the fault steps above
 * inject.  failslab skips allocations that may sleep unless ignore-gfp-wait
 * is N, and dumps a stack per failure unless verbose is 0: the guest sets
 * both once, before any suite (scripts/guest/init), and says so with
 * cmkit_test's failslab_ready parameter (cmkit_test_require_failslab()).
 */

/* The N-th allocation of the consumer calls fails; the peer's are not counted. */
struct nth {
	unsigned int left;
	bool hit;
};

#define NTH_MAX	400

/*
 * An accept on a work item, as the cases had it when a P2P accept waited
 * for the RTR: it no longer does, so the accept's return value comes first.
 */
struct accept_async {
	struct work_struct work;
	struct ul *child;
	struct iw_cm_conn_param param;
	int rc;
	struct completion done;
};

/* @crc: 0 none, 1 the initiator asks for CRC, 2 the responder does */
struct p2p_param {
	u8 rtr;
	u8 crc;
};

/*
 * A strict RFC 6581 responder on a raw socket, as irdma is: P2P required,
 * one RTR type demanded (@want), CRC as asked; anything else is rejected
 * with the reason.  It checks cmkit's RTR and answers a Read with its Read
 * Response, split over several segments.
 */
struct strict_resp_param {
	const char *desc;
	u8 cmkit_p2p;		/* cmkit's offer */
	u8 cmkit_rtr;
	u8 crc;
	u8 want;		/* the RTR type the peer demands (0: P2P off) */
	int status;		/* cmkit's CONNECT_REPLY */
	enum cmkit_mpa_reject_reason reason;
};

/*
 * A strict RFC 6581 initiator on a raw socket: P2P with one RTR type, CRC
 * as the case says; it checks cmkit's reply with the initiator's decider
 * and sends its RTR split over several segments (or a wrong one).
 */
enum strict_init_bad {
	INIT_GOOD,
	INIT_BAD_CRC,		/* the RTR's CRC is wrong */
	INIT_WRONG_RTR,		/* a Write RTR where the reply chose Send */
	INIT_NO_RTR,		/* a FIN instead of the RTR */
};

struct strict_init_param {
	const char *desc;
	u8 rtr;
	u8 crc;
	enum strict_init_bad bad;
};

/*
 * What cmkit's listener refuses for what a request asks: an MPA reject
 * frame with the reason in its private data, then a FIN, never a reset;
 * no upcall.
 */
struct refuse_param {
	const char *desc;
	struct cmkit_mpa_offer listener;
	struct cmkit_mpa_offer peer;
	u8 flags;			/* forced into byte 16 of the request */
	u8 rev;				/* forced into byte 17 (0: as built) */
	enum cmkit_mpa_reject_reason reason;
	u16 pdata_len;			/* of zeroes (0: raw_req) */
};

/*
 * Revisions 1 and 2, cmkit to cmkit: a revision 1 listener refuses a
 * revision 2 request with a REVISION reject (in revision 1), which an
 * initiator configured to fall back answers with a revision 1 request; a
 * revision 2 listener answers a revision 1 request in revision 1.
 */
struct rev_param {
	const char *desc;
	u8 listener_rev;
	u8 connect_rev;
	u8 fallback;
	int status;
	u8 rev;			/* of the connection */
};

/* ---- the MPA timers (a private core's, shortened) -------------------------- */

enum mpa_timer_case {
	TIMER_REQUEST,		/* a peer connects and sends nothing */
	TIMER_REPLY,		/* cmkit connects, the peer never replies */
	TIMER_RTR,		/* a P2P peer never sends its RTR */
};

/* kunit/irdma_common.c */
extern const struct cmkit_dev_param *siw_param;
int ul_refs(struct ul *ul);
unsigned int ul_count(struct ul *ul, enum iw_cm_event_type event);
int ul_wait(struct ul *ul, enum iw_cm_event_type event, struct ul_rec *out);
int ul_res_init(struct kunit_resource *res, void *context);
struct ul *ul_create(struct kunit *test, const char *name, enum ul_role role,
		     const struct sockaddr_in *local,
		     const struct sockaddr_in *remote);
void ul_expect_clean(struct kunit *test, struct ul *ul);
void expect_ended_by_reset(struct kunit *test, struct ul *ul);
void expect_nodes_freed(struct kunit *test, struct irdma_cm_core *core,
			int made0, int freed0);
void expect_pdata(struct kunit *test, const struct ul_rec *r, const char *want);
void conn_param_init(struct iw_cm_conn_param *p, const char *pdata, u32 ird,
		     u32 ord);
void expect_id_released(struct kunit *test, struct ul *ul);
int log_mark(void);
int log_lines_since(struct kunit *test, int mark);

/* kunit/irdma_events_test.c */
void quiet_traces(struct kunit *test);
struct irdma_cm_core *private_core(struct kunit *test);
void irdma_every_event_type_releases_its_reference(struct kunit *test);
void irdma_10000_events_keep_per_node_order(struct kunit *test);
void irdma_batches_keep_node_order_and_yield_after_the_bound(struct kunit *test);

/* kunit/irdma_conn_test.c */
struct ul *cmkit_connect(struct kunit *test, struct irdma_cm_core *core,
			 const struct sockaddr_in *dst, u8 version);
void irdma_connects_siw_accepts_then_cmkit_closes(struct kunit *test);
void irdma_connects_siw_accepts_then_cmkit_resets(struct kunit *test);
void irdma_connects_siw_rejects_with_private_data(struct kunit *test);
void irdma_connect_without_listener_is_refused_once(struct kunit *test);
struct ul *cmkit_listen(struct kunit *test, struct irdma_cm_core *core,
			const struct sockaddr_in *addr);
struct cmkit_peer *siw_client_connects(struct kunit *test, struct ul *lul,
				       const struct sockaddr_in *addr,
				       struct ul_rec *req);
struct ul *cmkit_accept(struct kunit *test, const struct ul_rec *req);
void siw_connects_cmkit_accepts_then_siw_closes(struct kunit *test);
void siw_connects_cmkit_rejects(struct kunit *test);
struct raw_peer *raw_create(struct kunit *test);
void raw_listen(struct kunit *test, struct raw_peer *raw, struct sockaddr_in *addr);
void raw_accept(struct kunit *test, struct raw_peer *raw);
void raw_connect(struct kunit *test, struct raw_peer *raw, struct sockaddr_in *addr);
int raw_send(struct raw_peer *raw, const void *buf, size_t len);
int raw_recv(struct raw_peer *raw, u8 *buf, size_t len);
void raw_recv_frame(struct kunit *test, struct raw_peer *raw,
		    enum cmkit_mpa_kind kind, u8 *buf, struct cmkit_mpa_frame *f);
u8 *raw_frame_buf(struct kunit *test);
void raw_recv_request(struct kunit *test, struct raw_peer *raw);
void raw_send_mpa(struct kunit *test, struct raw_peer *raw, enum cmkit_mpa_kind kind,
		  bool reject, const void *pdata, u16 pdata_len);
void raw_expect_reset(struct kunit *test, struct raw_peer *raw);
void raw_connect_expect_reset(struct kunit *test, struct raw_peer *raw,
			      struct sockaddr_in *addr);
void raw_reset(struct raw_peer *raw);
struct ul *raw_server_gets_request(struct kunit *test, struct irdma_cm_core *core,
				   struct raw_peer *raw, struct sockaddr_in *addr);
void irdma_established_peer_resets(struct kunit *test);
void irdma_reset_ends_a_close_the_peer_ignores(struct kunit *test);
void wait_node_made(struct kunit *test, struct irdma_cm_core *core, int made0);
void irdma_destroy_listen_resets_a_peer_without_request(struct kunit *test);
void irdma_peer_goes_away_mid_mpa(struct kunit *test);
void irdma_garbage_instead_of_mpa_reply_aborts(struct kunit *test);
extern const char * const bad_request_names[];
void irdma_bad_request_to_listener_aborts_silently(struct kunit *test);
void irdma_peer_private_data_whole_or_refused(struct kunit *test);
void irdma_private_data_over_255_not_sent(struct kunit *test);
void irdma_refused_request_is_rejected_by_the_consumer(struct kunit *test);
void irdma_connect_syn_timeout_reports_etimedout(struct kunit *test);

/* kunit/irdma_races_test.c */
void irdma_cleanup_while_connect_has_no_socket(struct kunit *test);
void irdma_cleanup_after_connect_issued(struct kunit *test);
void irdma_cleanup_before_listener_published(struct kunit *test);
void irdma_cleanup_right_after_listener_published(struct kunit *test);
void irdma_cleanup_waits_for_a_node_being_destroyed(struct kunit *test);
void irdma_close_during_last_upcall_is_refused(struct kunit *test);
void irdma_close_holding_node_across_last_upcall(struct kunit *test);
void irdma_cleanup_tears_down_live_connections(struct kunit *test);

/* kunit/irdma_fault_test.c */
void expect_core_idle(struct kunit *test, struct irdma_cm_core *core);
void irdma_failure_injected(struct kunit *test);
void irdma_failslab_nth_over_a_connection(struct kunit *test);

/* kunit/irdma_mpa_test.c */
struct cmkit_mpa_offer mpa_offer(u8 rev, u8 p2p, u8 rtr, u8 crc);
const char *rtr_name(u8 rtr);
struct cmkit_irdma_mpa_info ul_mpa(struct kunit *test, struct ul *ul);
struct ul *cmkit_connect_mpa(struct kunit *test, struct irdma_cm_core *core,
			     const struct sockaddr_in *dst,
			     const struct cmkit_mpa_offer *offer);
void irdma_p2p_cmkit_to_cmkit(struct kunit *test);
void irdma_p2p_connect_to_strict_responder(struct kunit *test);
void irdma_p2p_strict_initiator_connects(struct kunit *test);
void irdma_listener_refuses_with_a_reason(struct kunit *test);
void irdma_revision_1_and_2_with_and_without_fallback(struct kunit *test);
void irdma_fallback_after_a_reset(struct kunit *test);
void irdma_mpa_timer_expires(struct kunit *test);
void irdma_backlog_limits_pending_requests(struct kunit *test);

/* kunit/irdma_p2p_test.c */
void irdma_p2p_connects_siw(struct kunit *test);
void irdma_ipv6_connects_siw(struct kunit *test);
void siw_ipv6_connects_cmkit(struct kunit *test);

#endif /* CMKIT_IRDMA_TEST_H */
