// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit irdma: the debugfs control plane, cmkit/irdma/.
 *
 *   ctl    write one command per line:
 *            listen <addr> <port> accept|reject [<pdata>] [<knob>=<value>...]
 *                              listen; answer every request the same way,
 *                              with <pdata> (one word) as private data
 *            connect <addr> <port> [<pdata>] [<knob>=<value>...]
 *                              connect, with <pdata> in the MPA request
 *          <addr> is IPv4 or IPv6; the knobs set the MPA offer:
 *            rev=1|2           revision (a listener takes up to it)
 *            p2p=none|any|send|write|read
 *                              peer-to-peer: never; granted or asked for
 *                              with any RTR type (a listener's default);
 *                              required, with that RTR type
 *            crc=0|1           ask for CRC
 *            ird=N ord=N       IRD and ORD (0..16383); a listener's ird=
 *                              also refuses initiators whose ORD exceeds it
 *            fallback=0|1      connect: retry in revision 1 when revision
 *                              2 is refused
 *            close <n>|all     orderly close of a connection
 *            reset <n>|all     abortive close of a connection
 *            destroy <n>|all   stop a listener or reset a connection, and
 *                              forget it
 *          a failed command fails the write with its errno
 *   ids    one line per id the control plane owns: its number, role,
 *          addresses, state, IRD/ORD and the peer's private data, then
 *          what was negotiated (rev=, p2p=, crc=, fallback=; for a listener,
 *          and a connection still negotiating, what it offers)
 *   stats  requests and connects and how they ended, upcalls by type, ids
 *          and cm nodes made and freed
 *
 * The control plane is the upper layer: it owns each iw_cm_id it hands to
 * cmkit's irdma (event_handler, add_ref and rem_ref), as iw_cm would, and
 * like iw_cm it calls into cmkit for a connection only while that connection
 * is live: from a successful connect or accept until its last upcall (CLOSE,
 * or a failed CONNECT_REPLY).  Each request a listener answers gets a
 * passive id of its own, accepted or rejected.  An id stays listed, with how
 * it ended, until destroyed, and is freed once cmkit has dropped its
 * references too.
 */
#define pr_fmt(fmt) "cmkit: irdma: " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core/cmkit.h"
#include "irdma/irdma.h"

#define IRDMA_CTL_PDATA_MAX	64	/* private data we send, and keep; %*phN's limit */
#define IRDMA_CTL_IRD_ORD	4	/* what we offer in a connect or accept */
#define IRDMA_CTL_BACKLOG	8

enum irdma_ctl_role {
	IRDMA_CTL_LISTENER,
	IRDMA_CTL_ACTIVE,
	IRDMA_CTL_PASSIVE,
};

/**
 * struct irdma_ctl_id - an upper-layer id the control plane owns
 * @id: what cmkit's irdma sees
 * @list: in irdma_ctl_ids (under irdma_ctl_lock); empty once forgotten
 * @ref: one while listed, plus one per add_ref() cmkit holds
 * @n: its number in commands and in ids
 * @role: listener, connecting id, or accepted id
 * @lock: orders calls into cmkit for a connection with its last upcall
 * @live: cmkit has the connection, and its last upcall has not been handled
 *	(under @lock)
 * @doomed: destroyed while connecting: reset it once it is up (under @lock)
 * @local: local address and port for ids: a connect fills in id.local_addr
 *	meanwhile (under irdma_ctl_lock)
 * @reject: a listener rejects every request (else it accepts)
 * @pdata_len: length of @pdata
 * @pdata: private data we send: in a connect, an accept or a reject
 * @state: what the last upcall said (under irdma_ctl_lock)
 * @status: the status of the last upcall
 * @ird: IRD of the connection (the request's, for a listener)
 * @ord: ORD likewise
 * @requests: connect requests a listener answered
 * @peer_pdata_len: length of the peer's last private data
 * @peer_pdata: its first IRDMA_CTL_PDATA_MAX bytes
 * @offer: the MPA offer of its listen or connect (the knobs)
 * @conn_ird: IRD its connect or its listener's accepts ask for
 * @conn_ord: ORD likewise
 * @mpa: what the connection's MPA exchange settled, once it did
 * @negotiated: @mpa is valid
 */
struct irdma_ctl_id {
	struct iw_cm_id id;
	struct list_head list;
	refcount_t ref;
	u32 n;
	enum irdma_ctl_role role;
	struct mutex lock;	/* calls into cmkit vs. the last upcall */
	bool live;
	bool doomed;
	struct sockaddr_storage local;
	bool reject;
	u8 pdata_len;
	u8 pdata[IRDMA_CTL_PDATA_MAX];
	const char *state;
	int status;
	u8 ird;
	u8 ord;
	u32 requests;
	u8 peer_pdata_len;
	u8 peer_pdata[IRDMA_CTL_PDATA_MAX];
	struct cmkit_mpa_offer offer;
	u16 conn_ird;
	u16 conn_ord;
	struct cmkit_irdma_mpa_info mpa;
	bool negotiated;
};

/**
 * struct irdma_ctl_stats - what the control plane's ids went through
 * @requests: CONNECT_REQUESTs on our listeners
 * @accepted: requests accepted
 * @rejected: requests rejected (by policy, or for want of memory)
 * @connects: connects issued
 * @connects_failed: connects refused at once, or by CONNECT_REPLY
 * @ids_created: ids made
 * @ids_freed: ids freed
 * @upcalls: upcalls received, by iw_cm event type
 */
struct irdma_ctl_stats {
	atomic_t requests;
	atomic_t accepted;
	atomic_t rejected;
	atomic_t connects;
	atomic_t connects_failed;
	atomic_t ids_created;
	atomic_t ids_freed;
	atomic_t upcalls[IW_CM_EVENT_CLOSE + 1];
};

static struct irdma_ctl_stats irdma_ctl_stats;
static DEFINE_SPINLOCK(irdma_ctl_lock);	/* irdma_ctl_ids, numbering, id state */
static LIST_HEAD(irdma_ctl_ids);
static u32 irdma_ctl_next;

static const char *irdma_ctl_role_name(enum irdma_ctl_role role)
{
	switch (role) {
	case IRDMA_CTL_LISTENER:
		return "listener";
	case IRDMA_CTL_ACTIVE:
		return "active";
	default:
		return "passive";
	}
}

/* ---- ids: references and the list ---------------------------------------- */

static void irdma_ctl_put(struct irdma_ctl_id *cid)
{
	if (refcount_dec_and_test(&cid->ref)) {
		atomic_inc(&irdma_ctl_stats.ids_freed);
		mutex_destroy(&cid->lock);
		kfree(cid);
	}
}

static void irdma_ctl_add_ref(struct iw_cm_id *id)
{
	refcount_inc(&container_of(id, struct irdma_ctl_id, id)->ref);
}

static void irdma_ctl_rem_ref(struct iw_cm_id *id)
{
	irdma_ctl_put(container_of(id, struct irdma_ctl_id, id));
}

/* Forget @cid: drop it from the list, and the list's reference. */
static void irdma_ctl_unlist(struct irdma_ctl_id *cid)
{
	bool listed;

	spin_lock(&irdma_ctl_lock);
	listed = !list_empty(&cid->list);
	list_del_init(&cid->list);
	spin_unlock(&irdma_ctl_lock);
	if (listed)
		irdma_ctl_put(cid);
}

/* The listed id numbered @n (with a reference), or the first above @n if @next. */
static struct irdma_ctl_id *irdma_ctl_get(u32 n, bool next)
{
	struct irdma_ctl_id *cid, *found = NULL;

	spin_lock(&irdma_ctl_lock);
	list_for_each_entry(cid, &irdma_ctl_ids, list) {
		if (next ? cid->n > n : cid->n == n) {
			refcount_inc(&cid->ref);
			found = cid;
			break;
		}
	}
	spin_unlock(&irdma_ctl_lock);
	return found;
}

static void irdma_ctl_set_state(struct irdma_ctl_id *cid, const char *state, int status)
{
	spin_lock(&irdma_ctl_lock);
	cid->state = state;
	cid->status = status;
	spin_unlock(&irdma_ctl_lock);
}

static void irdma_ctl_keep_peer_pdata(struct irdma_ctl_id *cid,
				      const struct iw_cm_event *ev)
{
	u8 len = ev->private_data ? ev->private_data_len : 0;

	spin_lock(&irdma_ctl_lock);
	cid->peer_pdata_len = len;
	memcpy(cid->peer_pdata, ev->private_data, min_t(u8, len, IRDMA_CTL_PDATA_MAX));
	spin_unlock(&irdma_ctl_lock);
}

static int irdma_ctl_event(struct iw_cm_id *id, struct iw_cm_event *ev);

/* A word of private data to send, or none; the caller checked its length. */
static void irdma_ctl_set_pdata(struct irdma_ctl_id *cid, const char *word)
{
	size_t len = word ? strlen(word) : 0;

	memcpy(cid->pdata, word, len);
	cid->pdata_len = len;
}

/*
 * A new listed id of @role, its addresses copied from @local and @remote,
 * sending @pdata (a word, or NULL), rejecting requests if a @reject listener.
 * It comes with its lock held: a command that finds it listed waits until
 * the connect or accept that made it has said whether cmkit has it.
 */
static struct irdma_ctl_id *irdma_ctl_create(enum irdma_ctl_role role,
					     const struct sockaddr_storage *local,
					     const struct sockaddr_storage *remote,
					     const char *pdata, bool reject)
{
	struct irdma_ctl_id *cid;

	cid = kzalloc_obj(*cid, GFP_KERNEL);
	if (!cid)
		return NULL;
	cid->id.event_handler = irdma_ctl_event;
	cid->id.add_ref = irdma_ctl_add_ref;
	cid->id.rem_ref = irdma_ctl_rem_ref;
	cid->id.context = cid;
	cid->id.local_addr = *local;
	cid->id.m_local_addr = *local;
	cid->id.remote_addr = *remote;
	cid->id.m_remote_addr = *remote;
	cid->local = *local;
	cid->role = role;
	cid->reject = reject;
	irdma_ctl_set_pdata(cid, pdata);
	cid->state = "new";
	cid->conn_ird = IRDMA_CTL_IRD_ORD;
	cid->conn_ord = IRDMA_CTL_IRD_ORD;
	mutex_init(&cid->lock);
	mutex_lock(&cid->lock);
	refcount_set(&cid->ref, 1);	/* the list's */
	atomic_inc(&irdma_ctl_stats.ids_created);

	spin_lock(&irdma_ctl_lock);
	cid->n = ++irdma_ctl_next;
	list_add_tail(&cid->list, &irdma_ctl_ids);
	spin_unlock(&irdma_ctl_lock);
	return cid;
}

/* ---- upcalls --------------------------------------------------------------- */

static void irdma_ctl_conn_param(struct iw_cm_conn_param *param,
				 const struct irdma_ctl_id *cid)
{
	memset(param, 0, sizeof(*param));
	param->private_data = cid->pdata_len ? cid->pdata : NULL;
	param->private_data_len = cid->pdata_len;
	param->ird = cid->conn_ird;
	param->ord = cid->conn_ord;
}

/* What cmkit settled for @cid's connection, for ids (from an upcall or an accept). */
static void irdma_ctl_keep_mpa(struct irdma_ctl_id *cid)
{
	struct cmkit_irdma_mpa_info info;

	if (cmkit_irdma_mpa_info(&cid->id, &info))
		return;
	spin_lock(&irdma_ctl_lock);
	cid->mpa = info;
	cid->negotiated = true;
	spin_unlock(&irdma_ctl_lock);
}

/*
 * A listener's CONNECT_REQUEST: a passive id answers it, accepting or
 * rejecting as the listener's policy says.  Without memory for one, the
 * request is rejected through a transient id and the upcall fails: as with
 * iw_cm, a failed CONNECT_REQUEST upcall does not answer the request, its
 * consumer does.
 */
static int irdma_ctl_request(struct irdma_ctl_id *lid, struct iw_cm_event *ev)
{
	struct iw_cm_conn_param param;
	struct irdma_ctl_id *child;
	int rc;

	atomic_inc(&irdma_ctl_stats.requests);
	irdma_ctl_keep_peer_pdata(lid, ev);
	spin_lock(&irdma_ctl_lock);
	lid->requests++;
	lid->ird = ev->ird;
	lid->ord = ev->ord;
	spin_unlock(&irdma_ctl_lock);
	pr_info_ratelimited("ctl: listener %u: request from %pISpc, %u bytes of private data, IRD %u ORD %u: %s\n",
			    lid->n, &ev->remote_addr, ev->private_data_len, ev->ird,
			    ev->ord, lid->reject ? "rejecting" : "accepting");

	child = irdma_ctl_create(IRDMA_CTL_PASSIVE, &ev->local_addr, &ev->remote_addr,
				 NULL, false);
	if (!child) {
		/* Only provider_data is read: a transient id answers. */
		struct iw_cm_id tmp = { .provider_data = ev->provider_data };

		atomic_inc(&irdma_ctl_stats.rejected);
		cmkit_irdma_reject(&tmp, NULL, 0);
		return -ENOMEM;
	}
	irdma_ctl_keep_peer_pdata(child, ev);
	child->id.provider_data = ev->provider_data;
	if (lid->reject) {
		rc = cmkit_irdma_reject(&child->id, lid->pdata, lid->pdata_len);
		irdma_ctl_set_state(child, "rejected", rc);
		atomic_inc(&irdma_ctl_stats.rejected);
		mutex_unlock(&child->lock);
		return 0;
	}

	irdma_ctl_set_state(child, "accepting", 0);
	child->offer = lid->offer;
	irdma_ctl_conn_param(&param, lid);
	rc = cmkit_irdma_accept(&child->id, &param);
	child->live = !rc;
	if (!rc)
		irdma_ctl_keep_mpa(child);
	if (rc) {
		/* Only the list holds it now: a destroy waiting on the lock frees it. */
		pr_info_ratelimited("ctl: %u: accept failed: %d\n", child->n, rc);
		irdma_ctl_set_state(child, "accept-failed", rc);
	} else {
		atomic_inc(&irdma_ctl_stats.accepted);
	}
	mutex_unlock(&child->lock);
	return 0;
}

/* A connection's upcall: what it says, and whether it was the last. */
static void irdma_ctl_conn_event(struct irdma_ctl_id *cid, struct iw_cm_event *ev)
{
	const char *state = NULL;
	bool last = false;

	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REPLY:
		irdma_ctl_keep_peer_pdata(cid, ev);
		if (ev->status) {
			atomic_inc(&irdma_ctl_stats.connects_failed);
			state = ev->status == -ECONNREFUSED ? "rejected" : "failed";
			last = true;
			break;
		}
		fallthrough;
	case IW_CM_EVENT_ESTABLISHED:
		spin_lock(&irdma_ctl_lock);
		cid->ird = ev->ird;
		cid->ord = ev->ord;
		spin_unlock(&irdma_ctl_lock);
		irdma_ctl_keep_mpa(cid);
		state = "established";
		break;
	case IW_CM_EVENT_DISCONNECT:
		state = "disconnected";
		break;
	case IW_CM_EVENT_CLOSE:
		state = "closed";
		last = true;
		break;
	default:
		return;
	}
	irdma_ctl_set_state(cid, state, ev->status);

	mutex_lock(&cid->lock);
	if (last) {
		cid->live = false;
	} else if (cid->doomed && ev->event != IW_CM_EVENT_DISCONNECT) {
		cid->doomed = false;
		cmkit_irdma_cm_close(&cid->id, true);
	}
	mutex_unlock(&cid->lock);
}

/*
 * The upper layer's event handler.  Runs on cmkit's irdma event workqueue,
 * one upcall at a time; cmkit holds a reference on @id throughout.  Only a
 * CONNECT_REQUEST may fail: cmkit then refuses the request.
 */
static int irdma_ctl_event(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct irdma_ctl_id *cid = container_of(id, struct irdma_ctl_id, id);

	if ((unsigned int)ev->event < ARRAY_SIZE(irdma_ctl_stats.upcalls))
		atomic_inc(&irdma_ctl_stats.upcalls[ev->event]);

	if (cid->role != IRDMA_CTL_LISTENER)
		irdma_ctl_conn_event(cid, ev);
	else if (ev->event == IW_CM_EVENT_CONNECT_REQUEST)
		return irdma_ctl_request(cid, ev);
	return 0;
}

/* ---- commands -------------------------------------------------------------- */

/* "<ipv4|ipv6> <port> ..." into @ss; @args is left at what follows. */
static int irdma_ctl_parse_sin(char **args, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char *addr = strsep(args, " "), *port = strsep(args, " ");
	u16 p;

	memset(ss, 0, sizeof(*ss));
	if (!addr || !port || kstrtou16(port, 10, &p) || !p)
		return -EINVAL;
	if (strchr(addr, ':')) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		return in6_pton(addr, -1, sin6->sin6_addr.s6_addr, -1, NULL) ? 0 : -EINVAL;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(p);
	return in4_pton(addr, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL) ? 0 : -EINVAL;
}

static const char * const irdma_ctl_p2p_names[] = { "none", "any", "send", "write", "read" };

/* The name of an RTR set: one type, all of them ("any"), or none. */
static const char *irdma_ctl_rtr_name(u8 rtr)
{
	switch (rtr) {
	case CMKIT_MPA_RTR_SEND:
		return "send";
	case CMKIT_MPA_RTR_WRITE:
		return "write";
	case CMKIT_MPA_RTR_READ:
		return "read";
	case 0:
		return "none";
	default:
		return "any";
	}
}

/*
 * The words after the positional arguments: "<knob>=<value>" words set
 * @cid's offer, IRD and ORD; at most one other word is private data.
 */
static int irdma_ctl_parse_knobs(char *args, struct irdma_ctl_id *cid, const char **pdata,
				 bool listener)
{
	struct cmkit_mpa_offer *o = &cid->offer;
	char *word, *val;
	unsigned int n;
	int i;

	*pdata = NULL;
	while ((word = strsep(&args, " "))) {
		if (!*word)
			continue;
		val = strchr(word, '=');
		if (!val) {
			if (*pdata || strlen(word) > IRDMA_CTL_PDATA_MAX)
				return -EINVAL;
			*pdata = word;
			continue;
		}
		*val++ = '\0';
		if (!strcmp(word, "p2p")) {
			i = match_string(irdma_ctl_p2p_names, ARRAY_SIZE(irdma_ctl_p2p_names), val);
			if (i < 0)
				return -EINVAL;
			o->p2p = i == 0 ? CMKIT_MPA_P2P_OFF : i == 1 ? CMKIT_MPA_P2P_ON :
				 CMKIT_MPA_P2P_REQUIRED;
			o->rtr = i == 0 ? 0 : i == 1 ? CMKIT_MPA_RTR_ALL : BIT(i - 2);
			continue;
		}
		if (kstrtouint(val, 10, &n))
			return -EINVAL;
		if (!strcmp(word, "rev") && (n == CMKIT_MPA_REV1 || n == CMKIT_MPA_REV2)) {
			o->rev = n;
		} else if (!strcmp(word, "crc") && n <= 1) {
			o->crc = n;
		} else if (!strcmp(word, "fallback") && n <= 1 && !listener) {
			o->rev1_fallback = n;
		} else if (!strcmp(word, "ird") && n <= CMKIT_MPA_V2_IRD_ORD_MASK) {
			cid->conn_ird = n;
			o->ird = n;
			o->ird_strict = listener;
		} else if (!strcmp(word, "ord") && n <= CMKIT_MPA_V2_IRD_ORD_MASK) {
			cid->conn_ord = n;
		} else {
			return -EINVAL;
		}
	}
	return cmkit_mpa_offer_ok(o) ? 0 : -EINVAL;
}

static int irdma_ctl_listen(char *args)
{
	struct sockaddr_storage local, any = {};
	struct irdma_ctl_id *lid;
	const char *pdata;
	char *policy;
	int rc;

	if (irdma_ctl_parse_sin(&args, &local))
		return -EINVAL;
	any.ss_family = local.ss_family;
	policy = strsep(&args, " ");
	if (!policy || (strcmp(policy, "accept") && strcmp(policy, "reject")))
		return -EINVAL;

	lid = irdma_ctl_create(IRDMA_CTL_LISTENER, &local, &any, NULL,
			       !strcmp(policy, "reject"));
	if (!lid)
		return -ENOMEM;
	cmkit_irdma_cm_default_offer(cmkit_irdma_cm_core(), true, &lid->offer);
	rc = irdma_ctl_parse_knobs(args, lid, &pdata, true);
	if (!rc) {
		irdma_ctl_set_pdata(lid, pdata);
		rc = cmkit_irdma_create_listen_mpa(cmkit_irdma_cm_core(), &lid->id,
						   IRDMA_CTL_BACKLOG, &lid->offer);
	}
	mutex_unlock(&lid->lock);
	pr_info("ctl: %u: listen on %pISpc (%s): %d\n", lid->n, &local, policy, rc);
	if (rc) {
		irdma_ctl_unlist(lid);
		return rc;
	}
	irdma_ctl_set_state(lid, "listening", 0);
	return 0;
}

static int irdma_ctl_connect(char *args)
{
	struct sockaddr_storage remote, any = {};
	struct iw_cm_conn_param param;
	struct irdma_ctl_id *cid;
	const char *pdata;
	int rc;

	if (irdma_ctl_parse_sin(&args, &remote))
		return -EINVAL;
	any.ss_family = remote.ss_family;

	cid = irdma_ctl_create(IRDMA_CTL_ACTIVE, &any, &remote, NULL, false);
	if (!cid)
		return -ENOMEM;
	cmkit_irdma_cm_default_offer(cmkit_irdma_cm_core(), false, &cid->offer);
	rc = irdma_ctl_parse_knobs(args, cid, &pdata, false);
	if (rc) {
		mutex_unlock(&cid->lock);
		irdma_ctl_unlist(cid);
		return rc;
	}
	irdma_ctl_set_pdata(cid, pdata);
	irdma_ctl_set_state(cid, "connecting", 0);
	irdma_ctl_conn_param(&param, cid);
	atomic_inc(&irdma_ctl_stats.connects);
	rc = cmkit_irdma_connect_mpa(cmkit_irdma_cm_core(), &cid->id, &param, &cid->offer);
	cid->live = !rc;
	mutex_unlock(&cid->lock);
	spin_lock(&irdma_ctl_lock);
	cid->local = cid->id.local_addr;	/* the address and port TCP chose */
	spin_unlock(&irdma_ctl_lock);
	pr_info("ctl: %u: connect to %pISpc: %d\n", cid->n, &remote, rc);
	if (rc) {
		atomic_inc(&irdma_ctl_stats.connects_failed);
		irdma_ctl_unlist(cid);
	}
	return rc;
}

enum irdma_ctl_verb {
	IRDMA_CTL_CLOSE,
	IRDMA_CTL_RESET,
	IRDMA_CTL_DESTROY,
};

/* Close or reset a connection, if cmkit still has it. */
static int irdma_ctl_close(struct irdma_ctl_id *cid, bool abrupt, bool destroy)
{
	int rc = -ENOTCONN;

	mutex_lock(&cid->lock);
	if (cid->live)
		rc = cmkit_irdma_cm_close(&cid->id, abrupt);
	/* Still connecting or accepting: reset it once it is up. */
	if (rc == -ENOTCONN && cid->live && destroy)
		cid->doomed = true;
	mutex_unlock(&cid->lock);
	return rc;
}

static int irdma_ctl_act(struct irdma_ctl_id *cid, enum irdma_ctl_verb verb)
{
	int rc;

	if (cid->role == IRDMA_CTL_LISTENER) {
		if (verb != IRDMA_CTL_DESTROY)
			return -EOPNOTSUPP;
		rc = cmkit_irdma_destroy_listen(&cid->id);
		irdma_ctl_set_state(cid, "destroyed", rc);
	} else {
		rc = irdma_ctl_close(cid, verb != IRDMA_CTL_CLOSE, verb == IRDMA_CTL_DESTROY);
		if (verb == IRDMA_CTL_DESTROY)
			rc = 0;	/* whatever is left of it goes */
	}
	pr_info("ctl: %u: %s: %d\n", cid->n,
		verb == IRDMA_CTL_DESTROY ? "destroy" :
		verb == IRDMA_CTL_RESET ? "reset" : "close", rc);
	if (verb == IRDMA_CTL_DESTROY)
		irdma_ctl_unlist(cid);
	return rc;
}

/* Apply @verb to id @arg, or to every id ("all"; connections only but for destroy). */
static int irdma_ctl_each(const char *arg, enum irdma_ctl_verb verb)
{
	struct irdma_ctl_id *cid;
	u32 n = 0;
	int rc;

	if (!arg)
		return -EINVAL;
	if (strcmp(arg, "all")) {
		if (kstrtou32(arg, 10, &n))
			return -EINVAL;
		cid = irdma_ctl_get(n, false);
		if (!cid)
			return -ENOENT;
		rc = irdma_ctl_act(cid, verb);
		irdma_ctl_put(cid);
		return rc;
	}
	while ((cid = irdma_ctl_get(n, true))) {
		n = cid->n;
		if (verb == IRDMA_CTL_DESTROY || cid->role != IRDMA_CTL_LISTENER)
			irdma_ctl_act(cid, verb);	/* best effort */
		irdma_ctl_put(cid);
	}
	return 0;
}

/* Commands run one at a time, under cmkit_irdma_control.lock (cmkit_ctl_write()). */
static int irdma_ctl_command(char *line)
{
	char *verb = strsep(&line, " ");

	if (!strcmp(verb, "listen"))
		return irdma_ctl_listen(line);
	if (!strcmp(verb, "connect"))
		return irdma_ctl_connect(line);
	if (!strcmp(verb, "close"))
		return irdma_ctl_each(line, IRDMA_CTL_CLOSE);
	if (!strcmp(verb, "reset"))
		return irdma_ctl_each(line, IRDMA_CTL_RESET);
	if (!strcmp(verb, "destroy"))
		return irdma_ctl_each(line, IRDMA_CTL_DESTROY);
	return -EINVAL;
}

/* ---- ids and stats --------------------------------------------------------- */

static int irdma_ids_show(struct seq_file *m, void *v)
{
	struct irdma_ctl_id *cid;

	BUILD_BUG_ON(IRDMA_CTL_PDATA_MAX > 64);	/* %*phN prints at most 64 bytes */
	spin_lock(&irdma_ctl_lock);
	list_for_each_entry(cid, &irdma_ctl_ids, list) {
		seq_printf(m, "%u %s %pISpc", cid->n, irdma_ctl_role_name(cid->role),
			   &cid->local);
		if (cid->role == IRDMA_CTL_LISTENER)
			seq_printf(m, " %s %s requests=%u", cid->state,
				   cid->reject ? "reject" : "accept", cid->requests);
		else
			seq_printf(m, " %s %pISpc %s", cid->role == IRDMA_CTL_ACTIVE ? "->" : "<-",
				   &cid->id.remote_addr, cid->state);
		seq_printf(m, " status=%d ird=%u ord=%u peer_pdata=%*phN peer_pdata_len=%u",
			   cid->status, cid->ird, cid->ord,
			   min_t(u8, cid->peer_pdata_len, IRDMA_CTL_PDATA_MAX), cid->peer_pdata,
			   cid->peer_pdata_len);
		if (cid->negotiated)
			seq_printf(m, " rev=%u p2p=%s crc=%u fallback=%u\n", cid->mpa.rev,
				   irdma_ctl_rtr_name(cid->mpa.p2p ? cid->mpa.rtr : 0),
				   cid->mpa.crc, cid->mpa.fallback);
		else
			seq_printf(m, " rev=%u p2p=%s crc=%u fallback=%u\n", cid->offer.rev,
				   irdma_ctl_rtr_name(cid->offer.p2p ? cid->offer.rtr : 0),
				   cid->offer.crc, cid->offer.rev1_fallback);
	}
	spin_unlock(&irdma_ctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(irdma_ids);

static int irdma_stats_show(struct seq_file *m, void *v)
{
	struct irdma_ctl_stats *s = &irdma_ctl_stats;
	struct irdma_cm_core *core = cmkit_irdma_cm_core();
	int freed, created, gone, made;
	unsigned int listeners = 0;
	struct irdma_cm_listener *l;
	int i;

	/* Frees first: an object made and freed between the reads is not lost. */
	freed = atomic_read(&s->ids_freed);
	gone = atomic_read(&core->stats.nodes_freed);
	smp_rmb();	/* an object is counted made before it can be freed */
	created = atomic_read(&s->ids_created);
	made = atomic_read(&core->stats.nodes_made);

	spin_lock(&core->ht_lock);
	list_for_each_entry(l, &core->listeners, list)
		listeners++;
	spin_unlock(&core->ht_lock);

	seq_printf(m, "requests %d\nrequests_accepted %d\nrequests_rejected %d\n",
		   atomic_read(&s->requests), atomic_read(&s->accepted),
		   atomic_read(&s->rejected));
	seq_printf(m, "connects %d\nconnects_failed %d\n",
		   atomic_read(&s->connects), atomic_read(&s->connects_failed));
	seq_printf(m, "ids_created %d\nids_freed %d\nids_alive %d\n",
		   created, freed, created - freed);
	seq_printf(m, "nodes_made %d\nnodes_freed %d\nnodes_alive %d\nlisteners_alive %u\n",
		   made, gone, made - gone, listeners);
	seq_printf(m, "events_posted %d\nevents_handled %d\nevents_misordered %d\nevent_runs %d\n",
		   atomic_read(&core->stats.events_posted),
		   atomic_read(&core->stats.events_handled),
		   atomic_read(&core->stats.events_misordered),
		   atomic_read(&core->stats.event_runs));
	seq_printf(m, "aborts %d\n", atomic_read(&core->stats.aborts));
	seq_printf(m, "rx_held %d\nrx_yields %d\naccept_yields %d\nrequests_deferred %d\n",
		   atomic_read(&core->stats.rx_held),
		   atomic_read(&core->stats.rx_yields),
		   atomic_read(&core->stats.accept_yields),
		   atomic_read(&core->stats.requests_deferred));
	for (i = 0; i < ARRAY_SIZE(s->upcalls); i++)
		if (atomic_read(&s->upcalls[i]))
			seq_printf(m, "upcall %s %d\n", cmkit_irdma_iw_event_name(i),
				   atomic_read(&s->upcalls[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(irdma_stats);

static const struct cmkit_ctl_file irdma_ctl_files[] = {
	{ "ids", &irdma_ids_fops },
	{ "stats", &irdma_stats_fops },
};

/* At unload, after the irdma core was cleaned up: complain about a live id. */
static void irdma_ctl_check_freed(void)
{
	int alive = atomic_read(&irdma_ctl_stats.ids_created) -
		    atomic_read(&irdma_ctl_stats.ids_freed);

	WARN(alive, "cmkit: LEAK: irdma: %d control-plane ids still referenced at unload\n",
	     alive);
}

/* After the control plane is gone: let go of every id it still holds. */
static void irdma_ctl_stop(void)
{
	irdma_ctl_each("all", IRDMA_CTL_DESTROY);
}

/* cmkit/irdma/: the control plane core/main.c brings up and down. */
struct cmkit_ctl cmkit_irdma_control = {
	.name = "irdma",
	.lock = __MUTEX_INITIALIZER(cmkit_irdma_control.lock),
	.command = irdma_ctl_command,
	.files = irdma_ctl_files,
	.nr_files = ARRAY_SIZE(irdma_ctl_files),
	.fault = &cmkit_irdma_fault_points,
	.stop = irdma_ctl_stop,
	.check_freed = irdma_ctl_check_freed,
};
