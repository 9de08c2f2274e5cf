/*
 * launch_queue_position.c - a spoke of the wait (launch_hub.c is the hub):
 * the job's place in its queue, from Kueue's visibility API.
 *
 * What Kueue serves (kubernetes-sigs/kueue at ff69552e): an aggregated API,
 * visibility.kueue.x-k8s.io, versions v1beta2 and v1beta1 (both APIServices
 * in config/components/visibility/apiservice_v1beta{1,2}.yaml; one storage
 * for both, pkg/visibility/server.go:187-191). Its subresource
 *   GET /apis/visibility.kueue.x-k8s.io/V/namespaces/NS/localqueues/LQ/pendingworkloads
 * answers a PendingWorkloadsSummary, `items` the LocalQueue's pending
 * Workloads in queue order, each with metadata.name, priority,
 * localQueueName, positionInClusterQueue and positionInLocalQueue, both
 * 0-based (apis/visibility/v1beta2/types.go:66-91;
 * pkg/visibility/storage/pending_workloads_lq.go:65-97, utils.go:40-66). It
 * pages with `offset` (within the LocalQueue) and `limit` (default 1000,
 * at most 100,000: pkg/constants/constants.go:43-49); a LocalQueue the
 * queue manager does not know is a NotFound Status (pending_workloads_lq.go:
 * 75-77). It cannot be asked about one Workload: we find ours by name. The
 * rule to read it, localqueues/pendingworkloads get, aggregates to the
 * view, edit and admin roles (config/components/rbac/
 * pending_workloads_lq_viewer_role.yaml), so a step's service account
 * usually has it.
 *
 * What a look costs, bounded: one page of QPOS_PAGE items (a few hundred
 * bytes each), at most QPOS_PAGES pages, each at most QPOS_BODY_MAX bytes
 * (a larger answer is cut off by the client and ignored with a warning).
 * The page starts a little before the position seen last, so a Workload
 * that moves up or back a little is found in one page; one not found yet
 * is searched further on at the next look, never more per look. A queue of
 * 10,000 costs a launcher one or two pages a minute, not megabytes.
 *
 * When it is absent or denied: a plain 404 (no such version; v1beta1 is
 * asked when v1beta2 is not served) or a 503 (the APIService exists, its
 * server does not answer), and a 403: one line saying so and how to grant
 * it, then no more looks (403s are never repeated). A malformed, truncated
 * or too large answer is ignored with one warning (per kind) and asked
 * again at the next look. Positions are printed as they come, a move back
 * included (a higher-priority Workload arrived).
 */
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_queue_position.h"

#define QPOS_PAGE 100			/* items per page */
#define QPOS_PAGES 2			/* pages per look at most */
#define QPOS_BODY_MAX (256 * 1024)	/* bytes per page at most */
#define QPOS_BEFORE 20			/* a page starts this far before the last position */

static const char *const versions[] = { "v1beta2", "v1beta1" };

enum qpos_warned { WARN_MALFORMED = 1, WARN_TOO_LARGE = 2, WARN_OTHER = 4 };

struct qpos {
	const struct launch_ctx *ctx;
	const struct qpos_reports *rep;
	void *hub;
	struct kube_call *call;		/* the page in flight, or NULL */
	struct kube_call *lq_call;	/* the LocalQueue's GET in flight, or NULL */
	int lq_asked;			/* asked once: the answer or nothing */
	char cq_name[254];		/* the LocalQueue's spec.clusterQueue, "" unknown */
	int version;			/* index in versions[] */
	int off;			/* absent or denied: no more looks */
	unsigned warned;		/* enum qpos_warned bits */
	char workload[256];		/* the Workload looked for */
	long offset;			/* of the page in flight */
	long next;			/* where the next look starts when not found */
	int pages;			/* pages of this look so far */
	int lq, cq;			/* last seen, 1-based; 0 none */
};

struct qpos *qpos_new(const struct launch_ctx *ctx, const struct qpos_reports *rep, void *hub)
{
	struct qpos *q = xcalloc(1, sizeof(*q));

	q->ctx = ctx;
	q->rep = rep;
	q->hub = hub;
	return q;
}

void qpos_stop(struct qpos *q)
{
	if (!q)
		return;
	if (q->call)
		kube_cancel(q->call);
	if (q->lq_call)
		kube_cancel(q->lq_call);
	q->call = q->lq_call = NULL;
}

const char *qpos_cluster_queue(const struct qpos *q)
{
	return q && q->cq_name[0] ? q->cq_name : NULL;
}

/* The LocalQueue's ClusterQueue, to name it beside the place in it: the
 * visibility API does not say it (types.go:66-91). Read once; a failure
 * only leaves it unnamed ("its ClusterQueue"). */
static void on_local_queue(void *ud, struct kube_response *rs, const struct err *e)
{
	struct qpos *q = ud;
	const char *cq = e ? NULL : jtree_get_string(rs->json, "spec.clusterQueue", NULL);

	q->lq_call = NULL;
	if (cq && *cq)
		snprintf(q->cq_name, sizeof(q->cq_name), "%s", cq);
	if (q->lq > 0)
		q->rep->changed(q->hub);	/* the place, now with its ClusterQueue's name */
}

static void ask_local_queue(struct qpos *q)
{
	static const struct kube_resource lq = { "kueue.x-k8s.io", "v1beta2", "localqueues",
						 "LocalQueue", 1 };
	struct kube_request rq;

	if (q->lq_asked)
		return;
	q->lq_asked = 1;
	kube_req_get(&rq, &lq, q->ctx->ns, q->ctx->queue);
	rq.retry_s = -1;
	q->lq_call = kube_start(q->ctx->c, &rq, on_local_queue, q);
	kube_request_free(&rq);
}

void qpos_free(struct qpos *q)
{
	qpos_stop(q);
	free(q);
}

int qpos_get(const struct qpos *q, int *in_lq, int *in_cq)
{
	*in_lq = q->lq;
	*in_cq = q->cq;
	return q->lq > 0;
}

static void send_page(struct qpos *q);

static void warn_once(struct qpos *q, unsigned kind, const char *what)
{
	struct buf line = BUF_INIT;

	if (q->warned & kind)
		return;
	q->warned |= kind;
	buf_addf(&line, "warning: Kueue's visibility API (%s pendingworkloads of LocalQueue "
		 "%s/%s): %s; ignored, the queue position is asked again later",
		 versions[q->version], q->ctx->ns, q->ctx->queue, what);
	q->rep->note(q->hub, line.data);
	buf_free(&line);
}

/* The API is absent or denied: say it once, and look no more. */
static void give_up(struct qpos *q, const char *why)
{
	struct buf line = BUF_INIT;

	q->off = 1;
	buf_addf(&line, "note: no queue position: %s; the run goes on without it", why);
	q->rep->note(q->hub, line.data);
	buf_free(&line);
}

/* A page came: our Workload in it? Positions come 0-based. */
static int find_in(struct qpos *q, const cJSON *items)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, items) {
		const char *name = jtree_get_string(it, "metadata.name", NULL);
		const cJSON *l = jtree_get(it, "positionInLocalQueue");
		const cJSON *c = jtree_get(it, "positionInClusterQueue");

		if (!name || strcmp(name, q->workload))
			continue;
		if (!cJSON_IsNumber(l) || !cJSON_IsNumber(c) || l->valuedouble < 0 ||
		    c->valuedouble < 0 || l->valuedouble > 1e9 || c->valuedouble > 1e9) {
			warn_once(q, WARN_MALFORMED, "our Workload's positions are not numbers >= 0");
			return -1;
		}
		if ((int)l->valuedouble + 1 != q->lq || (int)c->valuedouble + 1 != q->cq) {
			q->lq = (int)l->valuedouble + 1;
			q->cq = (int)c->valuedouble + 1;
			if (!q->lq_asked)
				ask_local_queue(q);	/* the place is said with the name */
			else
				q->rep->changed(q->hub);
		}
		q->next = l->valuedouble > QPOS_BEFORE ? (long)l->valuedouble - QPOS_BEFORE : 0;
		return 1;
	}
	return 0;
}

static void on_page(void *ud, struct kube_response *rs, const struct err *e)
{
	struct qpos *q = ud;
	const cJSON *items;
	char why[1400];

	q->call = NULL;
	if (e && e->http_status == 404 && !rs->json && q->version + 1 < (int)(sizeof(versions) /
									   sizeof(versions[0]))) {
		q->version++;	/* that version is not served: the older one may be */
		send_page(q);
		return;
	}
	if (e && ((e->http_status == 404 && !rs->json) || e->http_status == 503)) {
		snprintf(why, sizeof(why), "this cluster does not serve Kueue's visibility API "
			 "(visibility.kueue.x-k8s.io v1beta2 or v1beta1: HTTP %d); an admin "
			 "installs its APIService with Kueue (v0.6 or later)", e->http_status);
		give_up(q, why);
		return;
	}
	if (e && e->http_status == 403) {
		snprintf(why, sizeof(why), "%s; grant get on localqueues/pendingworkloads in API "
			 "group visibility.kueue.x-k8s.io (deploy/pipeline-step/rbac.yaml has the "
			 "rule; Kueue's view, edit and admin roles include it)", e->msg);
		give_up(q, why);
		return;
	}
	if (e && e->http_status == 404)
		return;	/* the LocalQueue is not known to Kueue yet: the next look */
	if (e && strstr(e->msg, "response larger than")) {
		warn_once(q, WARN_TOO_LARGE, e->msg);
		return;
	}
	if (e && strstr(e->msg, "malformed JSON")) {
		warn_once(q, WARN_MALFORMED, "the answer is not JSON (malformed or cut off)");
		return;
	}
	if (e) {
		if (e->code != ERR_CANCELLED)
			warn_once(q, WARN_OTHER, e->msg);
		return;
	}
	/* `items` is always there (types.go:91, no omitempty): an empty queue is [] or null */
	items = jtree_get(rs->json, "items");
	if (!cJSON_IsObject(rs->json) || !(cJSON_IsArray(items) || cJSON_IsNull(items))) {
		warn_once(q, WARN_MALFORMED, "the answer is not a PendingWorkloadsSummary (no items list)");
		return;
	}
	if (find_in(q, items))
		return;
	/* not on this page: the next page, within this look's budget, or the
	 * next look; from the start again once past the end */
	if (cJSON_GetArraySize(items) < QPOS_PAGE) {
		q->next = 0;
		return;
	}
	q->next = q->offset + QPOS_PAGE;
	if (++q->pages < QPOS_PAGES) {
		q->offset = q->next;
		send_page(q);
	}
}

static void send_page(struct qpos *q)
{
	static const char group[] = "visibility.kueue.x-k8s.io";
	const struct kube_resource lq = { group, versions[q->version], "localqueues", "LocalQueue", 1 };
	struct kube_request rq;
	char n[32];

	kube_request_init(&rq, KUBE_GET, "get");
	kube_path(&rq.path, &lq, q->ctx->ns, q->ctx->queue, "pendingworkloads");
	snprintf(n, sizeof(n), "%d", QPOS_PAGE);
	kube_query(&rq.path, "limit", n);
	snprintf(n, sizeof(n), "%ld", q->offset);
	kube_query(&rq.path, "offset", n);
	buf_addf(&rq.what, "localqueues/pendingworkloads \"%s\"", q->ctx->queue);
	rq.retry_s = -1;	/* a look missed is asked again at the next one */
	rq.body_max = QPOS_BODY_MAX;
	q->call = kube_start(q->ctx->c, &rq, on_page, q);
	kube_request_free(&rq);
}

void qpos_look(struct qpos *q, const char *workload)
{
	if (!q || q->off || q->call || !workload || !*workload || !q->ctx->queue)
		return;
	if (strcmp(workload, q->workload)) {	/* another Workload: from the start */
		snprintf(q->workload, sizeof(q->workload), "%s", workload);
		q->next = 0;
	}
	q->offset = q->next;
	q->pages = 0;
	send_page(q);
}
