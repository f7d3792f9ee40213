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

/* A server accepts or rejects on the child id, inside the handler. */
static int cmkit_peer_request(struct cmkit_peer *p, struct rdma_cm_id *child)
{
	struct rdma_conn_param param;
	int rc;

	if (p->child || p->reject) {
		rdma_reject(child, p->reject_pdata, p->reject_pdata_len,
			    p->reject_reason ?: IB_CM_REJ_CONSUMER_DEFINED);
		return 1;	/* rdma_cm destroys the child */
	}
	if (p->hold_requests) {
		/* Neither accept nor reject: the initiator keeps waiting. */
		p->child = child;
		return 0;
	}
	rc = cmkit_peer_create_qp(p, child);
	if (rc) {
		pr_warn("cmkit_test: %s: QP for the request failed: %d\n", p->name, rc);
		return 1;
	}
	cmkit_peer_conn_param(&param, p->accept_pdata, p->accept_pdata_len);
	rc = rdma_accept(child, &param);
	if (rc) {
		pr_warn("cmkit_test: %s: rdma_accept failed: %d\n", p->name, rc);
		rdma_destroy_qp(child);
		return 1;
	}
	p->child = child;
	return 0;
}

/*
 * The device goes away: release what this id holds (and the PD and CQ with
 * the last id) and let rdma_cm destroy the id, so the removal can finish.
 */
static int cmkit_peer_removed(struct cmkit_peer *p, struct rdma_cm_id *id)
{
	mutex_lock(&p->res_lock);
	if (id->qp)
		rdma_destroy_qp(id);
	if (id == p->child)
		p->child = NULL;
	else if (id == p->id)
		p->id = NULL;
	if (!p->child && !p->id) {
		if (p->cq)
			ib_free_cq(p->cq);
		if (p->pd)
			ib_dealloc_pd(p->pd);
		p->cq = NULL;
		p->pd = NULL;
	}
	mutex_unlock(&p->res_lock);
	return 1;
}

static int cmkit_peer_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cmkit_peer *p = id->context;

	cmkit_peer_record(p, id, ev);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return cmkit_peer_request(p, id);
	case RDMA_CM_EVENT_DISCONNECTED:
		/* The passive side answers a DREQ so the initiator completes. */
		if (id == p->child)
			rdma_disconnect(id);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return cmkit_peer_removed(p, id);
	default:
		return 0;
	}
}

static void cmkit_peer_destroy_id(struct rdma_cm_id *id)
{
	if (id->qp)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static void cmkit_peer_free(struct kunit_resource *res)
{
	struct cmkit_peer *p = res->data;

	if (p->child)
		cmkit_peer_destroy_id(p->child);
	if (p->id)
		cmkit_peer_destroy_id(p->id);
	if (p->cq)
		ib_free_cq(p->cq);
	if (p->pd)
		ib_dealloc_pd(p->pd);
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
	int rc;

	rc = cmkit_peer_create_id(srv);
	if (rc)
		return rc;
	rc = rdma_bind_addr(srv->id, (struct sockaddr *)addr);
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
	struct cmkit_cm_record r;
	int rc;

	rc = cmkit_peer_create_id(cli);
	if (rc)
		return rc;
	rc = rdma_resolve_addr(cli->id, NULL, (struct sockaddr *)dst, 5000);
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
