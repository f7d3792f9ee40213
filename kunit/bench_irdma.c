// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_bench: events per second through irdma_cm_event_handler(), and
 * through a baseline that delivers the same upcalls with one work item per
 * event on an ordered workqueue and nothing else.
 *
 * Both runs make <nodes> connections whose upper layer has issued a connect,
 * then post <events> events to each, interleaved across the nodes: first
 * CONNECTED, last DISCONN, and between them events the handler only
 * accounts for (MPA_CONNECT, which no producer makes).  So each node's
 * upper layer sees CONNECT_REPLY, DISCONNECT, CLOSE, and the connection's
 * own reference goes with its last event (cmkit frees the node there).  The
 * time runs from the first post to the last connection's end.
 *
 * Two modes.  "concurrent": the events are handled while they are posted;
 * one thread posts, so on TCG the posting loop is the whole time on both
 * sides (what it measures is the cost of posting: cmkit_irdma_create_event()
 * against a kzalloc() and a queue_work() per event).  "backlog": the
 * workqueue is held up by a work item of the runner's while every event is
 * posted, then let go; the time from there to the last connection's end is
 * the handler's alone (the drain), with a backlog as a busy device has.
 * Per-node
 * order is checked on both: by the handler's sequence numbers and by the
 * upper layer (each upcall must follow the one it follows in iw_cm's
 * rules).  A run that breaks the order reports it.
 */
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "bench.h"
#include "irdma/irdma.h"

#define BENCH_IRDMA_MAX_NODES	100000
#define BENCH_IRDMA_MAX_EVENTS	1000000

/* One node's upper layer: counts its upcalls and checks their order. */
struct bench_ul {
	struct iw_cm_id id;
	u32 replies;
	u32 disconnects;
	u32 closes;
	u32 violations;
};

/* Upcalls of one node come from one ordered workqueue: no lock. */
static int bench_ul_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct bench_ul *ul = container_of(id, struct bench_ul, id);

	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REPLY:
		ul->violations += ul->replies++ || ul->disconnects || ev->status;
		break;
	case IW_CM_EVENT_DISCONNECT:
		ul->violations += !ul->replies || ul->disconnects++ || ul->closes;
		break;
	case IW_CM_EVENT_CLOSE:
		ul->violations += !ul->disconnects || ul->closes++;
		break;
	default:
		ul->violations++;
		break;
	}
	return 0;
}

static void bench_ul_ref(struct iw_cm_id *id)
{
}

static void bench_ul_init(struct bench_ul *ul)
{
	ul->id.event_handler = bench_ul_handler;
	ul->id.add_ref = bench_ul_ref;
	ul->id.rem_ref = bench_ul_ref;
}

/* Every upper layer saw exactly CONNECT_REPLY, DISCONNECT, CLOSE. */
static u32 bench_ul_violations(struct bench_ul *uls, u32 nodes)
{
	u32 i, bad = 0;

	for (i = 0; i < nodes; i++)
		bad += uls[i].violations + (uls[i].replies != 1) +
		       (uls[i].disconnects != 1) + (uls[i].closes != 1);
	return bad;
}

static enum irdma_cm_event_type bench_event_type(u32 k, u32 events)
{
	if (!k)
		return IRDMA_CM_EVENT_CONNECTED;
	if (k == events - 1)
		return IRDMA_CM_EVENT_DISCONN;
	return IRDMA_CM_EVENT_MPA_CONNECT;
}

/* What one run measured. */
struct bench_irdma_res {
	s64 elapsed;	/* first post to the last connection's end */
	s64 posted;	/* the posting loop */
	u32 misordered;
	u32 runs;	/* work runs: one per event (baseline), per batch (cmkit) */
};

/* Holds up an ordered workqueue while the events are posted (backlog mode). */
struct bench_hold {
	struct work_struct work;
	struct completion go;
};

static void bench_hold_fn(struct work_struct *work)
{
	wait_for_completion(&container_of(work, struct bench_hold, work)->go);
}

static void bench_hold_start(struct bench_hold *hold, struct workqueue_struct *wq)
{
	INIT_WORK_ONSTACK(&hold->work, bench_hold_fn);
	init_completion(&hold->go);
	queue_work(wq, &hold->work);
}

static void bench_hold_end(struct bench_hold *hold)
{
	complete(&hold->go);
	flush_work(&hold->work);
	destroy_work_on_stack(&hold->work);
}

/* ---- cmkit's pipeline: cmkit_irdma_create_event() -> irdma_cm_event_handler() - */

static int bench_irdma_cmkit(struct bench_ul *uls, u32 nodes, u32 events, bool backlog,
			     struct bench_irdma_res *res)
{
	struct irdma_cm_info info = {};
	struct bench_hold hold;
	struct irdma_cm_node **cm_nodes;
	struct irdma_cm_core *core;
	ktime_t t0;
	u32 i, k;
	int rc;

	core = kzalloc_obj(*core, GFP_KERNEL);
	cm_nodes = kvcalloc(nodes, sizeof(*cm_nodes), GFP_KERNEL);
	rc = core && cm_nodes ? cmkit_irdma_setup_cm_core(core) : -ENOMEM;
	if (rc) {
		kvfree(cm_nodes);
		kfree(core);
		return rc;
	}
	for (i = 0; i < nodes && !rc; i++) {
		cm_nodes[i] = cmkit_irdma_make_cm_node(core, &uls[i].id, &info);
		if (IS_ERR(cm_nodes[i]))
			rc = PTR_ERR(cm_nodes[i]);
		else
			cm_nodes[i]->ul_state = IRDMA_CM_UL_CONN_SENT;
	}

	if (backlog)
		bench_hold_start(&hold, core->event_wq);
	t0 = ktime_get();
	for (k = 0; k < events && !rc; k++)
		for (i = 0; i < nodes && !rc; i++)
			if (!cmkit_irdma_create_event(cm_nodes[i], bench_event_type(k, events)))
				rc = -ENOMEM;
	res->posted = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (backlog)
		bench_hold_end(&hold);
	if (!rc && !wait_event_timeout(core->wait,
				       atomic_read(&core->stats.nodes_freed) == nodes,
				       bench_timeout()))
		rc = -ETIMEDOUT;
	res->elapsed = ktime_to_ns(ktime_sub(ktime_get(), t0));
	res->misordered = atomic_read(&core->stats.events_misordered);
	res->runs = atomic_read(&core->stats.event_runs);
	if (!rc && atomic_read(&core->stats.events_handled) != nodes * events)
		rc = -EPROTO;

	/* A failed run's nodes are still alive: cleanup ends them. */
	cmkit_irdma_cleanup_cm_core(core);
	kvfree(cm_nodes);
	kfree(core);
	return rc;
}

/* ---- the baseline: one work item per event, an ordered workqueue ------- */

/*
 * The runner holds a reference on each node too, so that a failed run can
 * look at every node; @closed counts the connections' own references
 * dropped, where cmkit's node is freed.
 */
struct bench_pipe {
	struct workqueue_struct *wq;
	atomic_t handled;
	atomic_t misordered;
	atomic_t closed;
	wait_queue_head_t wait;
};

struct bench_node {
	struct bench_pipe *pipe;
	struct bench_ul *ul;
	refcount_t ref;
	spinlock_t lock;	/* @seq and queueing */
	u32 seq;
	u32 handled;
	bool up;
};

struct bench_event {
	struct work_struct work;
	struct bench_node *node;
	enum irdma_cm_event_type type;
	u32 seq;
};

static void bench_node_put(struct bench_node *node)
{
	if (refcount_dec_and_test(&node->ref))
		kfree(node);
}

/* The connection's own reference. */
static void bench_node_close(struct bench_node *node)
{
	struct bench_pipe *pipe = node->pipe;

	bench_node_put(node);
	atomic_inc(&pipe->closed);
	wake_up_all(&pipe->wait);
}

/* The same upcall as cmkit_irdma_send_cm_event() makes. */
static void bench_upcall(struct bench_node *node, enum iw_cm_event_type type)
{
	struct iw_cm_id *id = &node->ul->id;
	struct iw_cm_event ev = { .event = type };

	if (type == IW_CM_EVENT_CONNECT_REPLY) {
		memcpy(&ev.local_addr, &id->m_local_addr, sizeof(ev.local_addr));
		memcpy(&ev.remote_addr, &id->m_remote_addr, sizeof(ev.remote_addr));
	}
	id->event_handler(id, &ev);
}

static void bench_event_work(struct work_struct *work)
{
	struct bench_event *ev = container_of(work, struct bench_event, work);
	struct bench_node *node = ev->node;

	if (ev->seq != node->handled)
		atomic_inc(&node->pipe->misordered);
	node->handled = ev->seq + 1;
	switch (ev->type) {
	case IRDMA_CM_EVENT_CONNECTED:
		if (!node->up) {
			node->up = true;
			bench_upcall(node, IW_CM_EVENT_CONNECT_REPLY);
		}
		break;
	case IRDMA_CM_EVENT_DISCONN:
		if (node->up) {
			node->up = false;
			bench_upcall(node, IW_CM_EVENT_DISCONNECT);
			bench_upcall(node, IW_CM_EVENT_CLOSE);
			bench_node_close(node);
		}
		break;
	default:
		break;
	}
	atomic_inc(&node->pipe->handled);
	bench_node_put(node);
	kfree(ev);
}

static int bench_post(struct bench_node *node, enum irdma_cm_event_type type)
{
	struct bench_event *ev = kzalloc_obj(*ev, GFP_KERNEL);

	if (!ev)
		return -ENOMEM;
	ev->node = node;
	ev->type = type;
	refcount_inc(&node->ref);
	INIT_WORK(&ev->work, bench_event_work);
	spin_lock(&node->lock);
	ev->seq = node->seq++;
	queue_work(node->pipe->wq, &ev->work);
	spin_unlock(&node->lock);
	return 0;
}

static int bench_irdma_baseline(struct bench_ul *uls, u32 nodes, u32 events, bool backlog,
				struct bench_irdma_res *res)
{
	struct bench_node **bnodes;
	struct bench_hold hold;
	struct bench_pipe pipe = {};
	u32 i, k, made = 0;
	ktime_t t0;
	int rc = 0;

	init_waitqueue_head(&pipe.wait);
	pipe.wq = alloc_ordered_workqueue("cmkit-bench-event-wq", 0);
	bnodes = kvcalloc(nodes, sizeof(*bnodes), GFP_KERNEL);
	if (!pipe.wq || !bnodes) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nodes && !rc; i++) {
		bnodes[i] = kzalloc_obj(*bnodes[i], GFP_KERNEL);
		if (!bnodes[i]) {
			rc = -ENOMEM;
			break;
		}
		bnodes[i]->pipe = &pipe;
		bnodes[i]->ul = &uls[i];
		refcount_set(&bnodes[i]->ref, 2);	/* the connection's, the runner's */
		spin_lock_init(&bnodes[i]->lock);
		made++;
	}

	if (backlog)
		bench_hold_start(&hold, pipe.wq);
	t0 = ktime_get();
	for (k = 0; k < events && !rc; k++)
		for (i = 0; i < nodes && !rc; i++)
			rc = bench_post(bnodes[i], bench_event_type(k, events));
	res->posted = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (backlog)
		bench_hold_end(&hold);
	if (!rc && !wait_event_timeout(pipe.wait, atomic_read(&pipe.closed) == nodes,
				       bench_timeout()))
		rc = -ETIMEDOUT;
	res->elapsed = ktime_to_ns(ktime_sub(ktime_get(), t0));
	res->misordered = atomic_read(&pipe.misordered);
	res->runs = atomic_read(&pipe.handled);	/* one work run per event */
	if (!rc && atomic_read(&pipe.handled) != nodes * events)
		rc = -EPROTO;
	/* Let what was posted drain; a failed run's open connections end here. */
	flush_workqueue(pipe.wq);
	for (i = 0; i < made; i++) {
		if (bnodes[i]->up || !bnodes[i]->seq)
			bench_node_close(bnodes[i]);
		bench_node_put(bnodes[i]);
	}
out:
	if (pipe.wq)
		destroy_workqueue(pipe.wq);
	kvfree(bnodes);
	return rc;
}

/**
 * bench_irdma_run - the "irdma <nodes> <events> cmkit|baseline concurrent|backlog" command
 * @args: the command's arguments
 * @out: where its JSON line goes
 *
 * Return: 0, or the errno of what failed (-EPROTO: events were lost).
 */
int bench_irdma_run(char *args, struct bench_out *out)
{
	char *nodes_s = strsep(&args, " "), *events_s = strsep(&args, " ");
	char *impl = strsep(&args, " ");
	struct bench_irdma_res res = {};
	struct bench_ul *uls;
	bool cmkit, backlog;
	u32 nodes, events, i;
	int rc;

	if (!nodes_s || !events_s || !impl || !args || kstrtou32(nodes_s, 10, &nodes) ||
	    kstrtou32(events_s, 10, &events) || !nodes || nodes > BENCH_IRDMA_MAX_NODES ||
	    events < 2 || events > BENCH_IRDMA_MAX_EVENTS / nodes)
		return -EINVAL;
	if ((strcmp(impl, "cmkit") && strcmp(impl, "baseline")) ||
	    (strcmp(args, "concurrent") && strcmp(args, "backlog")))
		return -EINVAL;
	cmkit = !strcmp(impl, "cmkit");
	backlog = !strcmp(args, "backlog");
	bench_printf(out, "{\"bench\":\"irdma\",\"impl\":\"%s\",\"mode\":\"%s\",", impl, args);
	bench_printf(out, "\"nodes\":%u,\"events\":%u", nodes, nodes * events);

	uls = kvcalloc(nodes, sizeof(*uls), GFP_KERNEL);
	if (!uls) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nodes; i++)
		bench_ul_init(&uls[i]);
	if (cmkit)
		rc = bench_irdma_cmkit(uls, nodes, events, backlog, &res);
	else
		rc = bench_irdma_baseline(uls, nodes, events, backlog, &res);
	bench_printf(out, ",");
	bench_us(out, "elapsed_us", res.elapsed);
	bench_printf(out, ",");
	bench_us(out, "post_us", res.posted);
	bench_printf(out, ",\"work_runs\":%u", res.runs);
	bench_printf(out, ",\"misordered\":%u,\"violations\":%u", res.misordered,
		     rc ? 0 : bench_ul_violations(uls, nodes));
	kvfree(uls);
out:
	if (rc)
		bench_printf(out, ",\"error\":%d", rc);
	bench_printf(out, "}");
	return rc;
}
