// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_test: an in-kernel rdma_cm peer for tests.
 *
 * A peer is either a client (resolve, connect) or a server (listen, then
 * accept or reject each request on its child id).  Every event either id sees
 * is recorded, logged and wakes waiters; a test waits for the event it
 * expects with a generous timeout, never by sleeping.  A peer is a KUnit
 * resource: its ids, QPs, CQ and PD are destroyed when the test ends, even
 * when an assertion aborted it.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/resource.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include "cmkit_test.h"

static void cmkit_peer_record(struct cmkit_peer *p, struct rdma_cm_id *id,
			      const struct rdma_cm_event *ev)
{
	struct cmkit_cm_record *r = NULL;
	u8 len = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	    ev->event == RDMA_CM_EVENT_REJECTED)
		len = ev->param.conn.private_data ? ev->param.conn.private_data_len : 0;

	spin_lock(&p->lock);
	if (p->nr < CMKIT_PEER_MAX_EVENTS) {
		r = &p->rec[p->nr++];
		r->event = ev->event;
		r->status = ev->status;
		r->child = id != p->id;
		r->pdata_len = len;
		memcpy(r->pdata, ev->param.conn.private_data,
		       min_t(u8, len, CMKIT_PEER_PDATA_MAX));
	}
	spin_unlock(&p->lock);
	pr_info("cmkit_test: %s%s: %s (status %d, %u bytes of private data)\n",
		p->name, id != p->id ? " child" : "", rdma_event_msg(ev->event),
		ev->status, len);
	if (!r)
		pr_warn("cmkit_test: %s: event log full\n", p->name);
	wake_up_all(&p->wait);
}

/**
 * cmkit_test_qp_attr - the small RC QP every test peer uses
 * @attr: filled in
 * @cq: completion queue for both Sends and Receives
 */
void cmkit_test_qp_attr(struct ib_qp_init_attr *attr, struct ib_cq *cq)
{
	*attr = (struct ib_qp_init_attr){
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
	};
}

static int cmkit_peer_create_qp(struct cmkit_peer *p, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr;

	if (!p->pd) {
		p->pd = ib_alloc_pd(id->device, 0);
		if (IS_ERR(p->pd)) {
			int rc = PTR_ERR(p->pd);

			p->pd = NULL;
			return rc;
		}
	}
	/* An RPC server's connection: its own CQ, Receives posted before the accept. */
	if (p->rpc && id != p->id)
		return cmkit_rpc_srv_create_qp(p->rpc, id, p->pd);
	if (!p->cq) {
		p->cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_WORKQUEUE);
		if (IS_ERR(p->cq)) {
			int rc = PTR_ERR(p->cq);

			p->cq = NULL;
			return rc;
		}
	}
	cmkit_test_qp_attr(&attr, p->cq);
	return rdma_create_qp(id, p->pd, &attr);
}

static void cmkit_peer_conn_param(struct rdma_conn_param *param,
				  const void *pdata, u8 pdata_len)
{
	memset(param, 0, sizeof(*param));
	param->private_data = pdata;
	param->private_data_len = pdata_len;
	param->responder_resources = 1;
	param->initiator_depth = 1;
	param->retry_count = 6;
	param->rnr_retry_count = 7;
}

static void cmkit_peer_destroy_qp(struct cmkit_peer *p, struct rdma_cm_id *id);

/* Gives @child its QP and accepts it (the id's handler mutex held). */
static int cmkit_peer_accept(struct cmkit_peer *p, struct rdma_cm_id *child)
{
	struct rdma_conn_param param;
	int rc;

	rc = cmkit_peer_create_qp(p, child);
	if (rc) {
		pr_warn("cmkit_test: %s: QP for the request failed: %d\n", p->name, rc);
		return rc;
	}
	cmkit_peer_conn_param(&param, p->accept_pdata, p->accept_pdata_len);
	rc = rdma_accept(child, &param);
	if (rc) {
		pr_warn("cmkit_test: %s: rdma_accept failed: %d\n", p->name, rc);
		cmkit_peer_destroy_qp(p, child);
	}
	return rc;
}

/* Will the server hold the next request, neither accepting nor rejecting it? */
static bool cmkit_peer_holds(const struct cmkit_peer *p)
{
	return !p->child && !p->reject && (p->hold_requests || READ_ONCE(p->dropping));
}

/* A server accepts or rejects on the child id, inside the handler. */
static int cmkit_peer_request(struct cmkit_peer *p, struct rdma_cm_id *child)
{
	if (p->child || p->reject) {
		rdma_reject(child, p->reject_pdata, p->reject_pdata_len,
			    p->reject_reason ?: IB_CM_REJ_CONSUMER_DEFINED);
		return 1;	/* rdma_cm destroys the child */
	}
	if (cmkit_peer_holds(p)) {
		/* Neither accept nor reject: the initiator keeps waiting. */
		p->child = child;
		return 0;
	}
	if (cmkit_peer_accept(p, child))
		return 1;	/* rdma_cm destroys the child */
	p->child = child;
	return 0;
}

/* An RPC server's connection takes its CQ and buffers with its QP. */
static void cmkit_peer_destroy_qp(struct cmkit_peer *p, struct rdma_cm_id *id)
{
	if (!id->qp)
		return;
	if (p->rpc && id != p->id)
		cmkit_rpc_srv_destroy_qp(p->rpc, id);
	else
		rdma_destroy_qp(id);
}

/* The PD and the CQ go with the last id.  Under res_lock. */
static void cmkit_peer_release_last(struct cmkit_peer *p)
{
	if (p->child || p->id || p->removing)
		return;
	if (p->cq)
		ib_free_cq(p->cq);
	if (p->pd)
		ib_dealloc_pd(p->pd);
	p->cq = NULL;
	p->pd = NULL;
}

/*
 * On iWARP, iw_cm holds a reference on a connection's QP that it drops
 * only when it handles the connection's close or the id's destruction,
 * and the provider's destroy_qp waits for every reference (siw_destroy_qp(),
 * irdma_destroy_qp()).  In this id's DEVICE_REMOVAL upcall rdma_cm holds the
 * id's handler_mutex, which the close's own upcall (cma_iw_handler() from
 * iw_cm's ordered workqueue) needs: destroying the QP there waits for ever,
 * and every iw_cm event of every id with it.  Such an id is destroyed from
 * a work item once the upcall returned, as an upstream ULP's release work
 * does (svcrdma, nvmet-rdma); rdma_cm's removal waits for the id.
 */
static bool cmkit_peer_defer_removal(struct rdma_cm_id *id)
{
	return id->qp && rdma_protocol_iwarp(id->device, id->port_num);
}

static void cmkit_peer_removal_work(struct work_struct *work)
{
	struct cmkit_peer *p = container_of(work, struct cmkit_peer, removal_work);
	struct rdma_cm_id *id;

	for (;;) {
		mutex_lock(&p->res_lock);
		id = p->nr_removed ? p->removed[--p->nr_removed] : NULL;
		mutex_unlock(&p->res_lock);
		if (!id)
			return;
		cmkit_peer_destroy_qp(p, id);
		rdma_destroy_id(id);
		mutex_lock(&p->res_lock);
		p->removing--;
		cmkit_peer_release_last(p);
		mutex_unlock(&p->res_lock);
	}
}

/*
 * The device goes away: release what this id holds (and the PD and CQ with
 * the last id) and let rdma_cm destroy the id, so the removal can finish;
 * an iWARP connection's from a work item (cmkit_peer_defer_removal()).
 */
static int cmkit_peer_removed(struct cmkit_peer *p, struct rdma_cm_id *id)
{
	bool defer = cmkit_peer_defer_removal(id);

	mutex_lock(&p->res_lock);
	if (defer && !WARN_ON(p->nr_removed == ARRAY_SIZE(p->removed))) {
		p->removed[p->nr_removed++] = id;
		p->removing++;
	} else {
		defer = false;
		cmkit_peer_destroy_qp(p, id);
	}
	if (id == p->child)
		p->child = NULL;
	else if (id == p->id)
		p->id = NULL;
	cmkit_peer_release_last(p);
	mutex_unlock(&p->res_lock);
	if (!defer)
		return 1;
	queue_work(system_unbound_wq, &p->removal_work);
	return 0;
}

static int cmkit_peer_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cmkit_peer *p = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && cmkit_peer_holds(p)) {
		/*
		 * Recorded once held: a case that waited for the request
		 * finds it to reject or accept (cmkit_peer_reject_held()).
		 */
		cmkit_peer_request(p, id);
		cmkit_peer_record(p, id, ev);
		return 0;
	}
	cmkit_peer_record(p, id, ev);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return cmkit_peer_request(p, id);
	case RDMA_CM_EVENT_DISCONNECTED:
		/* The passive side answers a DREQ so the initiator completes. */
		if (id == p->child && !p->hold_disconnect)
			rdma_disconnect(id);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return cmkit_peer_removed(p, id);
	default:
		return 0;
	}
}

static void cmkit_peer_destroy_id(struct cmkit_peer *p, struct rdma_cm_id *id)
{
	cmkit_peer_destroy_qp(p, id);
	rdma_destroy_id(id);
}

static void cmkit_peer_free(struct kunit_resource *res)
{
	struct cmkit_peer *p = res->data;

	flush_work(&p->removal_work);
	if (p->child)
		cmkit_peer_destroy_id(p, p->child);
	if (p->id)
		cmkit_peer_destroy_id(p, p->id);
	if (p->cq)
		ib_free_cq(p->cq);
	if (p->pd)
		ib_dealloc_pd(p->pd);
	if (p->rpc)
		cmkit_rpc_srv_free(p->rpc);
	kfree(p);
}

static int cmkit_peer_init(struct kunit_resource *res, void *context)
{
	struct cmkit_peer *p;

	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->name = context;
	spin_lock_init(&p->lock);
	mutex_init(&p->res_lock);
	INIT_WORK(&p->removal_work, cmkit_peer_removal_work);
	init_waitqueue_head(&p->wait);
	res->data = p;
	return 0;
}

/**
 * cmkit_peer_create - a peer that lives until the test ends
 * @test: the running test
 * @name: label for log lines
 *
 * Return: the peer; allocation failure aborts the test.
 */
struct cmkit_peer *cmkit_peer_create(struct kunit *test, const char *name)
{
	struct cmkit_peer *p;

	p = kunit_alloc_resource(test, cmkit_peer_init, cmkit_peer_free,
				 GFP_KERNEL, (void *)name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	return p;
}

static int cmkit_peer_create_id(struct cmkit_peer *p)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, cmkit_peer_handler, p, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	p->id = id;
	return 0;
}

/**
 * cmkit_peer_listen - make @srv a listener on @addr
 * @srv: a fresh peer
 * @addr: local address and port
 *
 * Return: 0, or the errno of the failing rdma_cm call.
 */
int cmkit_peer_listen(struct cmkit_peer *srv, struct sockaddr_in *addr)
{
	return cmkit_peer_listen_sa(srv, (struct sockaddr *)addr);
}

/**
 * cmkit_peer_listen_sa - cmkit_peer_listen() on any address family
 * @srv: a fresh peer
 * @addr: local address and port (IPv4 or IPv6)
 *
 * Return: 0, or the errno of the failing rdma_cm call.
 */
int cmkit_peer_listen_sa(struct cmkit_peer *srv, struct sockaddr *addr)
{
	int rc;

	rc = cmkit_peer_create_id(srv);
	if (rc)
		return rc;
	rc = rdma_bind_addr(srv->id, addr);
	if (rc)
		return rc;
	return rdma_listen(srv->id, 4);
}

/**
 * cmkit_peer_resolve - resolve @dst's address and route on a fresh client
 * @cli: a fresh peer
 * @dst: destination address and port
 *
 * Waits for ADDR_RESOLVED (or ADDR_ERROR), then ROUTE_RESOLVED (or
 * ROUTE_ERROR).
 *
 * Return: 0, -ETIMEDOUT, or the failing call's or event's error.
 */
int cmkit_peer_resolve(struct cmkit_peer *cli, struct sockaddr_in *dst)
{
	return cmkit_peer_resolve_sa(cli, (struct sockaddr *)dst);
}

/**
 * cmkit_peer_resolve_sa - cmkit_peer_resolve() on any address family
 * @cli: a fresh peer
 * @dst: destination address and port (IPv4 or IPv6)
 *
 * Return: as cmkit_peer_resolve().
 */
int cmkit_peer_resolve_sa(struct cmkit_peer *cli, struct sockaddr *dst)
{
	struct cmkit_cm_record r;
	int rc;

	rc = cmkit_peer_create_id(cli);
	if (rc)
		return rc;
	rc = rdma_resolve_addr(cli->id, NULL, dst, 5000);
	if (rc)
		return rc;
	rc = cmkit_peer_wait_any(cli, BIT(RDMA_CM_EVENT_ADDR_RESOLVED) |
				 BIT(RDMA_CM_EVENT_ADDR_ERROR), &r);
	if (rc)
		return rc;
	if (r.event != RDMA_CM_EVENT_ADDR_RESOLVED)
		return r.status ?: -EHOSTUNREACH;
	rc = rdma_resolve_route(cli->id, 5000);
	if (rc)
		return rc;
	rc = cmkit_peer_wait_any(cli, BIT(RDMA_CM_EVENT_ROUTE_RESOLVED) |
				 BIT(RDMA_CM_EVENT_ROUTE_ERROR), &r);
	if (rc)
		return rc;
	return r.event == RDMA_CM_EVENT_ROUTE_RESOLVED ? 0 : (r.status ?: -ENETUNREACH);
}

/**
 * cmkit_peer_connect - create the client's QP and send the connect request
 * @cli: a peer whose route is resolved
 * @pdata: private data for the request
 * @pdata_len: its length
 *
 * Return: 0 once the request is on its way, or a negative errno.
 */
int cmkit_peer_connect(struct cmkit_peer *cli, const void *pdata, u8 pdata_len)
{
	struct rdma_conn_param param;
	int rc;

	rc = cmkit_peer_create_qp(cli, cli->id);
	if (rc)
		return rc;
	cmkit_peer_conn_param(&param, pdata, pdata_len);
	return rdma_connect(cli->id, &param);
}

static bool cmkit_peer_find(struct cmkit_peer *p, u32 mask,
			    struct cmkit_cm_record *out)
{
	bool found = false;
	unsigned int i;

	spin_lock(&p->lock);
	for (i = 0; i < p->nr && !found; i++) {
		if (BIT(p->rec[i].event) & mask) {
			*out = p->rec[i];
			found = true;
		}
	}
	spin_unlock(&p->lock);
	return found;
}

/**
 * cmkit_peer_count - how many recorded events are in @mask
 * @p: the peer
 * @mask: BIT(event) for each event to count
 *
 * Return: the count.
 */
unsigned int cmkit_peer_count(struct cmkit_peer *p, u32 mask)
{
	unsigned int i, n = 0;

	spin_lock(&p->lock);
	for (i = 0; i < p->nr; i++)
		n += !!(BIT(p->rec[i].event) & mask);
	spin_unlock(&p->lock);
	return n;
}

/**
 * cmkit_peer_wait_any - wait until @p has seen one of the events in @mask
 * @p: the peer
 * @mask: BIT(event) for each event that ends the wait
 * @out: a copy of the first record that matched
 *
 * Return: 0, or -ETIMEDOUT after cmkit_test_timeout().
 */
int cmkit_peer_wait_any(struct cmkit_peer *p, u32 mask, struct cmkit_cm_record *out)
{
	if (!wait_event_timeout(p->wait, cmkit_peer_find(p, mask, out),
				cmkit_test_timeout())) {
		pr_warn("cmkit_test: %s: no event of mask %#x within the timeout\n",
			p->name, mask);
		return -ETIMEDOUT;
	}
	return 0;
}

/**
 * cmkit_peer_wait - wait until @p has seen @event
 * @p: the peer
 * @event: the event to wait for
 * @out: a copy of the first such record
 *
 * Return: 0, or -ETIMEDOUT after cmkit_test_timeout().
 */
int cmkit_peer_wait(struct cmkit_peer *p, enum rdma_cm_event_type event,
		    struct cmkit_cm_record *out)
{
	return cmkit_peer_wait_any(p, BIT(event), out);
}

/**
 * cmkit_peer_disconnect - disconnect a server's accepted connection
 * @p: the server
 *
 * Return: rdma_disconnect()'s result, or -ENOTCONN without a connection.
 */
int cmkit_peer_disconnect(struct cmkit_peer *p)
{
	int rc = -ENOTCONN;

	mutex_lock(&p->res_lock);
	if (p->child)
		rc = rdma_disconnect(p->child);
	mutex_unlock(&p->res_lock);
	return rc;
}

/**
 * cmkit_peer_drop - a server drops its connection and can accept another
 * @srv: a server with an accepted connection
 *
 * Destroys the child id and its QP, outside any handler: an RPC server's
 * held replies are dropped unsent, the client sees its connection end,
 * and the server's next request is accepted (or rejected, if @srv->reject)
 * as the first was.  A request that comes while the old connection is
 * torn down (the client may reconnect at once) is held until it is gone:
 * an RPC server has one connection's QP and CQ at a time.
 *
 * Return: 0, or -ENOENT if @srv has no connection.
 */
int cmkit_peer_drop(struct cmkit_peer *srv)
{
	struct rdma_cm_id *child;

	mutex_lock(&srv->res_lock);
	child = srv->child;
	srv->child = NULL;
	WRITE_ONCE(srv->dropping, true);
	mutex_unlock(&srv->res_lock);
	if (!child) {
		WRITE_ONCE(srv->dropping, false);
		return -ENOENT;
	}
	cmkit_peer_destroy_id(srv, child);
	/* The listener's handler mutex orders this against a request's upcall. */
	rdma_lock_handler(srv->id);
	WRITE_ONCE(srv->dropping, false);
	child = srv->hold_requests ? NULL : srv->child;
	rdma_unlock_handler(srv->id);
	if (child && cmkit_peer_accept_held(srv))
		pr_warn("cmkit_test: %s: the request held during the drop was not accepted\n",
			srv->name);
	return 0;
}

/**
 * cmkit_peer_reject_held - reject the request a server holds
 * @srv: a server with hold_requests set that got a CONNECT_REQUEST
 *
 * Rejects the held request (the client sees REJECTED) and destroys the
 * child id, outside any handler.
 *
 * Return: rdma_reject()'s result, or -ENOENT if no request is held.
 */
int cmkit_peer_reject_held(struct cmkit_peer *srv)
{
	struct rdma_cm_id *child;
	int rc;

	mutex_lock(&srv->res_lock);
	child = srv->child;
	srv->child = NULL;
	mutex_unlock(&srv->res_lock);
	if (!child)
		return -ENOENT;
	rdma_lock_handler(child);
	rc = rdma_reject(child, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	rdma_unlock_handler(child);
	rdma_destroy_id(child);
	return rc;
}

/**
 * cmkit_peer_accept_held - accept the request a server holds
 * @srv: a server with hold_requests set that got a CONNECT_REQUEST
 *
 * Accepts the held child id as a server accepts in its handler
 * (cmkit_peer_accept()), from outside it; the child stays @srv's
 * connection.
 *
 * Return: rdma_accept()'s result, the QP's creation error, or -ENOENT if
 * no request is held.
 */
int cmkit_peer_accept_held(struct cmkit_peer *srv)
{
	struct rdma_cm_id *child;
	int rc;

	mutex_lock(&srv->res_lock);
	child = srv->child;
	mutex_unlock(&srv->res_lock);
	if (!child)
		return -ENOENT;
	rdma_lock_handler(child);
	rc = cmkit_peer_accept(srv, child);
	rdma_unlock_handler(child);
	return rc;
}

/* ---- one message each way over an established connection --------------- */

#define CMKIT_XFER_LEN	64

struct cmkit_xfer {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	u32 byte_len;
	u8 *buf;
	u64 dma;
	enum dma_data_direction dir;
	bool leaked;
};

static void cmkit_xfer_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmkit_xfer *x = container_of(wc->wr_cqe, struct cmkit_xfer, cqe);

	x->status = wc->status;
	x->byte_len = wc->byte_len;
	complete(&x->done);
}

static int cmkit_xfer_map(struct ib_device *dev, struct cmkit_xfer *x,
			  enum dma_data_direction dir)
{
	init_completion(&x->done);
	x->cqe.done = cmkit_xfer_done;
	x->dir = dir;
	x->buf = kzalloc(CMKIT_XFER_LEN, GFP_KERNEL);
	if (!x->buf)
		return -ENOMEM;
	x->dma = ib_dma_map_single(dev, x->buf, CMKIT_XFER_LEN, dir);
	if (ib_dma_mapping_error(dev, x->dma)) {
		kfree(x->buf);
		x->buf = NULL;
		return -EIO;
	}
	return 0;
}

static void cmkit_xfer_unmap(struct ib_device *dev, struct cmkit_xfer *x)
{
	if (!x->buf)
		return;
	ib_dma_unmap_single(dev, x->dma, CMKIT_XFER_LEN, x->dir);
	kfree(x->buf);
	x->buf = NULL;
}

/* The id that carries a peer's connection: a server's child, a client's id. */
static struct rdma_cm_id *cmkit_peer_conn(struct cmkit_peer *p)
{
	return p->child ?: p->id;
}

/*
 * Wait for a work request's completion.  If none comes, move the QP to
 * error so the request flushes: its buffer may be freed only after that.
 */
static bool cmkit_xfer_wait(struct ib_qp *qp, struct cmkit_xfer *x)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	if (wait_for_completion_timeout(&x->done, cmkit_test_timeout()))
		return true;
	ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (!wait_for_completion_timeout(&x->done, cmkit_test_timeout())) {
		/* Still posted: keep the buffer rather than free it under the HCA. */
		pr_err("cmkit_test: a work request never completed, not even flushed\n");
		x->buf = NULL;
		x->leaked = true;
	}
	return false;
}

/* Send @len bytes from @from to @to, and check what arrived. */
static int cmkit_peer_send_one(struct kunit *test, struct cmkit_peer *from,
			       struct cmkit_peer *to, const char *what)
{
	struct rdma_cm_id *sid = cmkit_peer_conn(from), *rid = cmkit_peer_conn(to);
	struct cmkit_xfer *sx, *rx;
	struct ib_sge ssge, rsge;
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = {
		.sg_list = &ssge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	size_t len = strlen(what) + 1;
	bool sent, received;
	int rc;

	if (!sid || !sid->qp || !rid || !rid->qp)
		return -ENOTCONN;
	sx = kzalloc_obj(*sx, GFP_KERNEL);
	rx = kzalloc_obj(*rx, GFP_KERNEL);
	rc = -ENOMEM;
	if (!sx || !rx)
		goto out_free;
	rc = cmkit_xfer_map(rid->device, rx, DMA_FROM_DEVICE);
	if (rc)
		goto out_free;
	rc = cmkit_xfer_map(sid->device, sx, DMA_TO_DEVICE);
	if (rc)
		goto out_rx;
	memcpy(sx->buf, what, len);
	ib_dma_sync_single_for_device(sid->device, sx->dma, CMKIT_XFER_LEN, DMA_TO_DEVICE);

	rsge = (struct ib_sge){ .addr = rx->dma, .length = CMKIT_XFER_LEN,
				.lkey = to->pd->local_dma_lkey };
	rwr.wr_cqe = &rx->cqe;
	rc = ib_post_recv(rid->qp, &rwr, NULL);
	if (rc)
		goto out_sx;
	ssge = (struct ib_sge){ .addr = sx->dma, .length = len,
				.lkey = from->pd->local_dma_lkey };
	swr.wr_cqe = &sx->cqe;
	rc = ib_post_send(sid->qp, &swr, NULL);
	if (rc) {
		cmkit_xfer_wait(rid->qp, rx);
		goto out_sx;
	}
	sent = cmkit_xfer_wait(sid->qp, sx);
	received = cmkit_xfer_wait(rid->qp, rx);
	ib_dma_sync_single_for_cpu(rid->device, rx->dma, CMKIT_XFER_LEN, DMA_FROM_DEVICE);
	KUNIT_EXPECT_TRUE_MSG(test, sent, "%s -> %s: the Send never completed",
			      from->name, to->name);
	KUNIT_EXPECT_TRUE_MSG(test, received, "%s -> %s: the Receive never completed",
			      from->name, to->name);
	rc = -EIO;
	if (sent && received) {
		KUNIT_EXPECT_EQ_MSG(test, sx->status, IB_WC_SUCCESS, "%s -> %s: Send: %s",
				    from->name, to->name, ib_wc_status_msg(sx->status));
		KUNIT_EXPECT_EQ_MSG(test, rx->status, IB_WC_SUCCESS, "%s -> %s: Receive: %s",
				    from->name, to->name, ib_wc_status_msg(rx->status));
		if (sx->status == IB_WC_SUCCESS && rx->status == IB_WC_SUCCESS) {
			KUNIT_EXPECT_EQ(test, rx->byte_len, (u32)len);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(rx->buf, what, len), 0,
					    "%s -> %s: the bytes differ", from->name, to->name);
			if (rx->byte_len == len && !memcmp(rx->buf, what, len))
				rc = 0;
		}
	}
out_sx:
	cmkit_xfer_unmap(sid->device, sx);
out_rx:
	cmkit_xfer_unmap(rid->device, rx);
out_free:
	/* A request that never even flushed keeps its buffer and cqe: leak both. */
	if (!sx || !sx->leaked)
		kfree(sx);
	if (!rx || !rx->leaked)
		kfree(rx);
	return rc;
}

/**
 * cmkit_peer_check_data - one message each way over an established pair
 * @test: the running test; mismatches are reported as its failures
 * @cli: the client peer, ESTABLISHED
 * @srv: the server peer, whose child is ESTABLISHED
 *
 * Posts a Receive on one side and a Send on the other, waits (bounded) for
 * both completions and compares the bytes; then the other way.  A QP whose
 * attributes do not match its peer's (PSN, path, MTU) cannot pass.
 *
 * Return: 0 if both messages arrived intact, else a negative errno.
 */
int cmkit_peer_check_data(struct kunit *test, struct cmkit_peer *cli,
			  struct cmkit_peer *srv)
{
	int rc;

	rc = cmkit_peer_send_one(test, cli, srv, "cmkit: client to server");
	if (rc)
		return rc;
	return cmkit_peer_send_one(test, srv, cli, "cmkit: server to client, a little longer");
}
