// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_irdma: what the cmkit_irdma cases share: the recording upper layer,
 * private cores, what cmkit's irdma logs (declared in irdma_test.h).
 */
#include "irdma_test.h"

const struct cmkit_dev_param *siw_param = &cmkit_dev_params[CMKIT_SIW];

static void ul_violation(struct ul *ul, const char *what, int event)
{
	ul->violations++;
	if (ul->violations == 1)
		snprintf(ul->why, sizeof(ul->why), "%s: %s (iw event %d)", ul->name,
			 what, event);
	pr_err("cmkit_test: irdma %s: rule broken: %s (iw event %d)\n", ul->name,
	       what, event);
}

/* iw_cm's process_event() rules, as checks instead of BUG()s. */
static void ul_check(struct ul *ul, const struct iw_cm_event *ev)
{
	unsigned int reply = ul->n[IW_CM_EVENT_CONNECT_REPLY];
	unsigned int est = ul->n[IW_CM_EVENT_ESTABLISHED];
	unsigned int disc = ul->n[IW_CM_EVENT_DISCONNECT];

	if (ul->n[IW_CM_EVENT_CLOSE]) {
		ul_violation(ul, "event after CLOSE", ev->event);
		return;
	}
	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		if (ul->role != UL_LISTEN)
			ul_violation(ul, "CONNECT_REQUEST on a non-listening id", ev->event);
		else if (ev->status)
			ul_violation(ul, "CONNECT_REQUEST with a status", ev->event);
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		if (ul->role != UL_ACTIVE)
			ul_violation(ul, "CONNECT_REPLY without a connect", ev->event);
		else if (reply)
			ul_violation(ul, "second CONNECT_REPLY", ev->event);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		if (ul->role != UL_PASSIVE || !ul->accepted)
			ul_violation(ul, "ESTABLISHED without an accept", ev->event);
		else if (est)
			ul_violation(ul, "second ESTABLISHED", ev->event);
		break;
	case IW_CM_EVENT_DISCONNECT:
		if (disc)
			ul_violation(ul, "second DISCONNECT", ev->event);
		else if (!(ul->role == UL_ACTIVE && reply && ul->rec[0].status == 0) &&
			 !(ul->role == UL_PASSIVE && est))
			ul_violation(ul, "DISCONNECT before the connection was up", ev->event);
		break;
	case IW_CM_EVENT_CLOSE:
		if (!disc)
			ul_violation(ul, "CLOSE before DISCONNECT", ev->event);
		break;
	default:
		ul_violation(ul, "unknown event", ev->event);
		return;
	}
	if (ul->role == UL_ACTIVE && reply && ul->rec[0].status &&
	    ev->event != IW_CM_EVENT_CONNECT_REPLY)
		ul_violation(ul, "event after a failed CONNECT_REPLY", ev->event);
}

static int ul_event_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct ul *ul = container_of(id, struct ul, id);
	struct ul_rec *r;

	spin_lock(&ul->lock);
	ul_check(ul, ev);
	if (ev->event <= IW_CM_EVENT_CLOSE)
		ul->n[ev->event]++;
	if (ul->nr < UL_MAX_REC) {
		r = &ul->rec[ul->nr++];
		r->event = ev->event;
		r->status = ev->status;
		r->provider_data = ev->provider_data;
		r->ird = ev->ird;
		r->ord = ev->ord;
		r->pdata_len = ev->private_data ? ev->private_data_len : 0;
		memcpy(r->pdata, ev->private_data,
		       min_t(u8, r->pdata_len, CMKIT_PEER_PDATA_MAX));
		memcpy(&r->local, &ev->local_addr, sizeof(r->local));
		memcpy(&r->remote, &ev->remote_addr, sizeof(r->remote));
	}
	spin_unlock(&ul->lock);
	wake_up_all(&ul->wait);
	return ev->event == IW_CM_EVENT_CONNECT_REQUEST ? ul->req_rc : 0;
}

static void ul_add_ref(struct iw_cm_id *id)
{
	struct ul *ul = container_of(id, struct ul, id);

	spin_lock(&ul->lock);
	ul->refs++;
	spin_unlock(&ul->lock);
}

static void ul_rem_ref(struct iw_cm_id *id)
{
	struct ul *ul = container_of(id, struct ul, id);

	spin_lock(&ul->lock);
	if (ul->refs-- <= 0)
		ul_violation(ul, "rem_ref without add_ref", 0);
	spin_unlock(&ul->lock);
	wake_up_all(&ul->wait);
}

int ul_refs(struct ul *ul)
{
	int refs;

	spin_lock(&ul->lock);
	refs = ul->refs;
	spin_unlock(&ul->lock);
	return refs;
}

unsigned int ul_count(struct ul *ul, enum iw_cm_event_type event)
{
	unsigned int n;

	spin_lock(&ul->lock);
	n = ul->n[event];
	spin_unlock(&ul->lock);
	return n;
}

/* Wait for the @nth upcall of type @event; copy its record if kept. */
int ul_wait(struct ul *ul, enum iw_cm_event_type event, struct ul_rec *out)
{
	unsigned int i;

	if (!wait_event_timeout(ul->wait, ul_count(ul, event) > 0, cmkit_test_timeout())) {
		pr_warn("cmkit_test: irdma %s: no iw event %d in time\n", ul->name, event);
		return -ETIMEDOUT;
	}
	spin_lock(&ul->lock);
	for (i = 0; i < ul->nr; i++) {
		if (ul->rec[i].event == event) {
			*out = ul->rec[i];
			break;
		}
	}
	spin_unlock(&ul->lock);
	return 0;
}

static int ul_wait_released(struct ul *ul)
{
	return wait_event_timeout(ul->wait, ul_refs(ul) == 0, cmkit_test_timeout()) ?
	       0 : -ETIMEDOUT;
}

int ul_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

/* Free only what cmkit no longer holds: a leak beats a use after free. */
static void ul_res_free(struct kunit_resource *res)
{
	struct ul *ul = res->data;

	if (ul->role == UL_LISTEN && ul->id.provider_data)
		cmkit_irdma_destroy_listen(&ul->id);
	if (ul_wait_released(ul)) {
		pr_err("cmkit_test: irdma %s: still referenced at the end: leaked\n",
		       ul->name);
		return;
	}
	kfree(ul);
}

struct ul *ul_create(struct kunit *test, const char *name, enum ul_role role,
		     const struct sockaddr_in *local,
		     const struct sockaddr_in *remote)
{
	struct ul *ul;

	ul = kzalloc_obj(*ul, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ul);
	ul->name = name;
	ul->role = role;
	spin_lock_init(&ul->lock);
	init_waitqueue_head(&ul->wait);
	ul->id.event_handler = ul_event_handler;
	ul->id.add_ref = ul_add_ref;
	ul->id.rem_ref = ul_rem_ref;
	ul->id.context = ul;
	if (local) {
		memcpy(&ul->id.local_addr, local, sizeof(*local));
		memcpy(&ul->id.m_local_addr, local, sizeof(*local));
	}
	if (remote) {
		memcpy(&ul->id.remote_addr, remote, sizeof(*remote));
		memcpy(&ul->id.m_remote_addr, remote, sizeof(*remote));
	}
	if (!kunit_alloc_resource(test, ul_res_init, ul_res_free, GFP_KERNEL, ul)) {
		kfree(ul);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a KUnit resource");
	}
	return ul;
}

void ul_expect_clean(struct kunit *test, struct ul *ul)
{
	KUNIT_EXPECT_EQ(test, ul_wait_released(ul), 0);
	KUNIT_EXPECT_EQ_MSG(test, ul->violations, 0U, "%s", ul->why);
}

/* @ul's connection ends in a reset: DISCONNECT(-ECONNRESET), CLOSE, no more. */
void expect_ended_by_reset(struct kunit *test, struct ul *ul)
{
	struct ul_rec r;

	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_CLOSE, &r), 0);
	KUNIT_ASSERT_EQ(test, ul_wait(ul, IW_CM_EVENT_DISCONNECT, &r), 0);
	KUNIT_EXPECT_EQ(test, r.status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, ul->nr, 3U);
	ul_expect_clean(test, ul);
}

/* Every node the test made is freed, exactly once (refcount_t catches twice). */
void expect_nodes_freed(struct kunit *test, struct irdma_cm_core *core,
			int made0, int freed0)
{
	struct irdma_cm_stats *s = &core->stats;

	wait_event_timeout(core->wait, atomic_read(&s->nodes_made) - made0 ==
			   atomic_read(&s->nodes_freed) - freed0, cmkit_test_timeout());
	KUNIT_EXPECT_EQ(test, atomic_read(&s->nodes_made) - made0,
			atomic_read(&s->nodes_freed) - freed0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->events_misordered), 0);
}

void expect_pdata(struct kunit *test, const struct ul_rec *r, const char *want)
{
	size_t len = strlen(want) + 1;

	KUNIT_ASSERT_EQ(test, (size_t)r->pdata_len, len);
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, want, len), 0);
}

void conn_param_init(struct iw_cm_conn_param *p, const char *pdata, u32 ird,
		     u32 ord)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pdata;
	p->private_data_len = pdata ? strlen(pdata) + 1 : 0;
	p->ird = ird;
	p->ord = ord;
}

/*
 * After its last upcall (CLOSE, a failed CONNECT_REPLY) or its answer (a
 * reject), an id names no node, and the consumer API refuses it rather than
 * touching the node, which is gone.
 */
void expect_id_released(struct kunit *test, struct ul *ul)
{
	struct iw_cm_conn_param param;
	unsigned int nr = ul->nr;

	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_cm_close(&ul->id, false), -EINVAL);
	conn_param_init(&param, NULL, 1, 1);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_accept(&ul->id, &param), -EINVAL);
	KUNIT_EXPECT_EQ(test, cmkit_irdma_reject(&ul->id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_NULL(test, ul->id.provider_data);
	KUNIT_EXPECT_EQ(test, ul->nr, nr);
}

int log_mark(void)
{
	static atomic_t next = ATOMIC_INIT(0);
	int n = atomic_inc_return(&next);

	pr_info("cmkit_test: irdma log mark %d\n", n);
	return n;
}

int log_lines_since(struct kunit *test, int mark)
{
	char *line = kunit_kzalloc(test, LOG_LINE_MAX, GFP_KERNEL);
	struct kmsg_dump_iter iter;
	char want[48];
	int count = 0;
	bool seen = false;
	size_t len;

	if (!line)
		return -ENOMEM;
	snprintf(want, sizeof(want), "cmkit_test: irdma log mark %d\n", mark);
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, LOG_LINE_MAX - 1, &len)) {
		line[len] = '\0';
		if (!seen) {
			seen = strstr(line, want);
			continue;
		}
		if (strstr(line, "cmkit: irdma: ")) {
			if (!count)
				kunit_info(test, "logged: %s", line);
			count++;
		}
	}
	return seen ? count : -ENOENT;
}
