/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit_test: what the KUnit suites share: the devices under test (named by
 * module parameters), and an in-kernel rdma_cm peer that records the events
 * it sees so a test can wait for them and assert on them.
 */
#ifndef CMKIT_TEST_H
#define CMKIT_TEST_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/test.h>
#include <rdma/rdma_cm.h>

/* The soft-RDMA devices the guest creates before every suite. */
enum cmkit_transport {
	CMKIT_RXE,	/* soft-RoCE: rdma_cm over ib_cm */
	CMKIT_SIW,	/* soft-iWARP: rdma_cm over iw_cm */
};

struct cmkit_dev_param {
	enum cmkit_transport transport;
};

extern const struct cmkit_dev_param cmkit_dev_params[2];
void cmkit_dev_param_desc(const struct cmkit_dev_param *p, char *desc);

/*
 * KUNIT_ARRAY_PARAM() over a table whose entries carry their description
 * (a member named desc): the description function every such table needs,
 * once.
 */
#define CMKIT_ARRAY_PARAM_DESC(name, array)					\
	static void name##_desc(typeof(&(array)[0]) p, char *desc)		\
	{									\
		strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);			\
	}									\
	KUNIT_ARRAY_PARAM(name, array, name##_desc)

__printf(2, 3) void __noreturn cmkit_skip(struct kunit *test, const char *fmt, ...);
void cmkit_test_require_failslab(struct kunit *test);
void cmkit_test_require_fault_injection(struct kunit *test);
const char *cmkit_dev_name(const struct cmkit_dev_param *p);
unsigned long cmkit_test_timeout(void);
int cmkit_test_post_read_wait(struct ib_qp *qp, u32 lkey, struct ib_send_wr *wr,
			      void *data, u32 len, enum ib_wc_status *status);
int cmkit_test_post_wait(struct ib_qp *qp, u32 lkey, struct ib_send_wr *wr,
			 const void *data, u32 len, enum ib_wc_status *status);
int cmkit_case_watch(struct kunit *test, const char *suite);
void cmkit_test_case_timeout(struct kunit *test, unsigned int seconds);
u16 cmkit_test_port(void);
struct ib_device *cmkit_test_device(struct kunit *test, const struct cmkit_dev_param *p);
void cmkit_test_require_device(struct kunit *test, const struct cmkit_dev_param *p);
void cmkit_test_nodev_addr(u16 port, struct sockaddr_in *sin);

struct cmkit_removal;
struct cmkit_removal *cmkit_test_remove_device(struct kunit *test,
					       const struct cmkit_dev_param *p);
int cmkit_test_wait_removed(struct cmkit_removal *r);
void cmkit_test_addr(const struct cmkit_dev_param *p, u16 port, struct sockaddr_in *sin);
void cmkit_test_addr6(u16 port, struct sockaddr_in6 *sin6);

/* ---- an rdma_cm peer that records its events -------------------------- */

#define CMKIT_PEER_MAX_EVENTS	32
#define CMKIT_PEER_PDATA_MAX	64

/**
 * struct cmkit_cm_record - one CM event as a peer saw it
 * @event: the event type
 * @status: the event's status
 * @child: delivered on the accepted child id rather than the peer's own id
 * @pdata_len: private_data_len as delivered
 * @pdata: the first CMKIT_PEER_PDATA_MAX bytes of the private data
 */
struct cmkit_cm_record {
	enum rdma_cm_event_type event;
	int status;
	bool child;
	u8 pdata_len;
	u8 pdata[CMKIT_PEER_PDATA_MAX];
};

/**
 * struct cmkit_peer - an in-kernel rdma_cm endpoint for tests
 * @name: label used in log lines ("client", "server")
 * @id: the client id, or the listening id of a server
 * @child: a server's accepted connection
 * @pd: protection domain on the connection's device
 * @cq: completion queue for the connection's QP
 * @accept_pdata: private data a server accepts with
 * @accept_pdata_len: its length
 * @reject: a server rejects connection requests instead of accepting them
 * @reject_reason: the IB reject reason (0: IB_CM_REJ_CONSUMER_DEFINED)
 * @reject_pdata: private data a server rejects with
 * @reject_pdata_len: its length
 * @hold_requests: a server neither accepts nor rejects (the request pends)
 * @hold_disconnect: a server does not answer a DISCONNECTED with its own
 *	rdma_disconnect() (on IB: no DREP until cmkit_peer_disconnect())
 * @dropping: cmkit_peer_drop() tears the connection down: requests are held
 * @rpc: if set (cmkit_rpc_srv_attach()), a server's accepted connection
 *	gets an RPC-over-RDMA QP that answers NULL calls (kunit/rpc_server.c)
 * @res_lock: protects @id, @child, @pd and @cq against device removal
 * @lock: protects @nr and @rec
 * @wait: woken on every recorded event
 * @nr: number of recorded events
 * @rec: the recorded events, in delivery order
 */
struct cmkit_peer {
	const char *name;
	struct rdma_cm_id *id;
	struct rdma_cm_id *child;
	struct ib_pd *pd;
	struct ib_cq *cq;
	const void *accept_pdata;
	u8 accept_pdata_len;
	bool reject;
	u8 reject_reason;
	const void *reject_pdata;
	u8 reject_pdata_len;
	bool hold_requests;
	bool hold_disconnect;
	bool dropping;
	struct cmkit_rpc_srv *rpc;
	struct mutex res_lock;	/* vs. DEVICE_REMOVAL */
	struct work_struct removal_work;
	struct rdma_cm_id *removed[2];	/* iWARP ids the work destroys */
	unsigned int nr_removed;
	unsigned int removing;	/* ids of removed[] not destroyed yet */
	spinlock_t lock;	/* the event log */
	wait_queue_head_t wait;
	unsigned int nr;
	struct cmkit_cm_record rec[CMKIT_PEER_MAX_EVENTS];
};

/* The events that say a step failed. */
#define CMKIT_ERROR_EVENTS (BIT(RDMA_CM_EVENT_ADDR_ERROR) |		\
			    BIT(RDMA_CM_EVENT_ROUTE_ERROR) |		\
			    BIT(RDMA_CM_EVENT_CONNECT_ERROR) |		\
			    BIT(RDMA_CM_EVENT_UNREACHABLE) |		\
			    BIT(RDMA_CM_EVENT_REJECTED) |		\
			    BIT(RDMA_CM_EVENT_DEVICE_REMOVAL))

void cmkit_test_qp_attr(struct ib_qp_init_attr *attr, struct ib_cq *cq);
struct cmkit_peer *cmkit_peer_create(struct kunit *test, const char *name);
int cmkit_peer_listen(struct cmkit_peer *srv, struct sockaddr_in *addr);
int cmkit_peer_listen_sa(struct cmkit_peer *srv, struct sockaddr *addr);
int cmkit_peer_resolve(struct cmkit_peer *cli, struct sockaddr_in *dst);
int cmkit_peer_resolve_sa(struct cmkit_peer *cli, struct sockaddr *dst);
int cmkit_peer_connect(struct cmkit_peer *cli, const void *pdata, u8 pdata_len);
unsigned int cmkit_peer_count(struct cmkit_peer *p, u32 mask);
int cmkit_peer_accept_held(struct cmkit_peer *srv);
int cmkit_peer_wait_any(struct cmkit_peer *p, u32 mask, struct cmkit_cm_record *out);
int cmkit_peer_wait(struct cmkit_peer *p, enum rdma_cm_event_type event,
		    struct cmkit_cm_record *out);

int cmkit_peer_disconnect(struct cmkit_peer *p);
int cmkit_peer_reject_held(struct cmkit_peer *srv);
int cmkit_peer_drop(struct cmkit_peer *srv);
int cmkit_peer_check_data(struct kunit *test, struct cmkit_peer *cli,
			  struct cmkit_peer *srv);

/* ---- an RPC-over-RDMA server answering NULL calls (kunit/rpc_server.c) -- */

/**
 * enum cmkit_rpc_action - how the server answers a call
 * @CMKIT_RPC_SRV_ANSWER: MSG_ACCEPTED SUCCESS
 * @CMKIT_RPC_SRV_DROP: no answer at all
 * @CMKIT_RPC_SRV_ERR_VERS: RDMA_ERROR ERR_VERS 1..1
 * @CMKIT_RPC_SRV_ERR_CHUNK: RDMA_ERROR ERR_CHUNK
 * @CMKIT_RPC_SRV_PROG_MISMATCH: MSG_ACCEPTED PROG_MISMATCH 4..4 (as nfsd serving
 *	only NFSv4 answers a version 3 call)
 * @CMKIT_RPC_SRV_SHORT: the SUCCESS reply cut to 12 bytes, shorter than a
 *	transport header
 * @CMKIT_RPC_SRV_TRUNCATED: the SUCCESS reply cut to 44 of its 52 bytes: a whole
 *	transport header, an RPC reply without its accept_stat
 * @CMKIT_RPC_SRV_BAD_VERS: the SUCCESS reply with rdma_vers 2
 * @CMKIT_RPC_SRV_XID_MISMATCH: the SUCCESS reply with an RPC xid other than
 *	its transport xid
 * @CMKIT_RPC_SRV_EXTRA_UNKNOWN: first a SUCCESS reply to an xid no one sent,
 *	then the SUCCESS reply
 * @CMKIT_RPC_SRV_WRITE_LONGER: a test-program reply whose write chunk
 *	says 4 bytes more than the server wrote (and the result's length)
 * @CMKIT_RPC_SRV_WRITE_SHORTER: one whose write chunk says 4 bytes fewer
 *	than the result's length (the server wrote them all)
 */
enum cmkit_rpc_action {
	CMKIT_RPC_SRV_ANSWER,
	CMKIT_RPC_SRV_DROP,
	CMKIT_RPC_SRV_ERR_VERS,
	CMKIT_RPC_SRV_ERR_CHUNK,
	CMKIT_RPC_SRV_PROG_MISMATCH,
	CMKIT_RPC_SRV_SHORT,
	CMKIT_RPC_SRV_TRUNCATED,
	CMKIT_RPC_SRV_BAD_VERS,
	CMKIT_RPC_SRV_XID_MISMATCH,
	CMKIT_RPC_SRV_EXTRA_UNKNOWN,
	CMKIT_RPC_SRV_WRITE_LONGER,
	CMKIT_RPC_SRV_WRITE_SHORTER,
};

/**
 * struct cmkit_rpc_counts - what an RPC server saw and did, over all its
 *	connections
 * @calls: calls received
 * @bad_calls: messages that did not decode as calls (dropped)
 * @replies: replies posted (an extra unknown-xid reply counts too)
 * @dropped: calls never answered (CMKIT_RPC_SRV_DROP)
 * @held: replies waiting for cmkit_rpc_srv_release()
 * @overruns: calls that arrived while the client had more calls
 *	outstanding than its credits allowed (1 until the first reply, then
 *	the grant as RFC 8166 sanitises it against the client's request)
 * @max_outstanding: the most calls outstanding at once (received, not
 *	answered)
 * @recv_flushed: the server's Receives that completed in error
 * @sends_done: the server's Sends that completed, successfully or not
 * @send_errors: the server's Sends that completed in error
 * @procs: calls of the test program served (ECHO, FILL, SINK, MIRROR)
 * @read_bytes: bytes the server RDMA-read from read chunks
 * @written_bytes: bytes the server RDMA-wrote into write and reply chunks
 * @send_inv: replies sent with Send With Invalidate
 * @nomsg_calls: calls read whole from a position-zero read chunk
 * @reply_chunks: replies written whole into a reply chunk
 * @last_xid: the last call's xid
 * @last_prog: its program
 * @last_vers: its version
 * @last_credit: the credits it asked for
 */
struct cmkit_rpc_counts {
	unsigned int calls;
	unsigned int bad_calls;
	unsigned int replies;
	unsigned int dropped;
	unsigned int held;
	unsigned int overruns;
	unsigned int max_outstanding;
	unsigned int recv_flushed;
	unsigned int sends_done;
	unsigned int send_errors;
	unsigned int procs;
	u64 read_bytes;
	u64 written_bytes;
	unsigned int send_inv;
	unsigned int nomsg_calls;
	unsigned int reply_chunks;
	u32 last_xid;
	u32 last_prog;
	u32 last_vers;
	u32 last_credit;
};

struct cmkit_rpc_srv;

struct cmkit_rpc_srv *cmkit_rpc_srv_attach(struct kunit *test, struct cmkit_peer *srv);
void cmkit_rpc_srv_set(struct cmkit_rpc_srv *s, enum cmkit_rpc_action action, u32 first,
		       u32 count);
void cmkit_rpc_srv_grant(struct cmkit_rpc_srv *s, u32 grant);
void cmkit_rpc_srv_hold(struct cmkit_rpc_srv *s);
unsigned int cmkit_rpc_srv_release(struct cmkit_rpc_srv *s);
unsigned int cmkit_rpc_srv_release_one(struct cmkit_rpc_srv *s);
unsigned int cmkit_rpc_srv_release_all_but_oldest(struct cmkit_rpc_srv *s);
unsigned int cmkit_rpc_srv_release_newest(struct cmkit_rpc_srv *s);
struct cmkit_rpc_counts cmkit_rpc_srv_counts(struct cmkit_rpc_srv *s);
int cmkit_rpc_srv_wait_calls(struct cmkit_rpc_srv *s, unsigned int calls);
int cmkit_rpc_srv_wait_held(struct cmkit_rpc_srv *s, unsigned int held);
int cmkit_rpc_srv_wait_sends(struct cmkit_rpc_srv *s, unsigned int sends);
unsigned int cmkit_rpc_srv_xids(struct cmkit_rpc_srv *s, u32 *xids, unsigned int max);
int cmkit_rpc_srv_rdma_write(struct cmkit_rpc_srv *s, u32 rkey, u64 addr, u32 len, u32 seed);
void cmkit_rpc_srv_no_send_inv(struct cmkit_rpc_srv *s);
int cmkit_rpc_srv_create_qp(struct cmkit_rpc_srv *s, struct rdma_cm_id *id, struct ib_pd *pd);
void cmkit_rpc_srv_destroy_qp(struct cmkit_rpc_srv *s, struct rdma_cm_id *id);
void cmkit_rpc_srv_free(struct cmkit_rpc_srv *s);

extern struct kunit_suite cmkit_smoke_suite;
extern struct kunit_suite cmkit_rpcrdma_suite;
extern struct kunit_suite cmkit_irdma_suite;
extern struct kunit_suite cmkit_irdma_hostile_suite;
extern struct kunit_suite cmkit_srpt_suite;
extern struct kunit_suite cmkit_kernel_fixes_suite;

#endif /* CMKIT_TEST_H */
