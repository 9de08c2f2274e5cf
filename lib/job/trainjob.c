/*
 * trainjob.c - see trainjob.h. Validation walks top-down like jaxjob.c, so
 * the first error is the most basic one; the checks themselves are jcheck's.
 */
#include "trainjob.h"

#include <stdio.h>
#include <string.h>

#include "crdschema.h"
#include "yj/jcheck.h"
#include "jobapi_handler.h"
#include "yj/jschema.h"

#define MAX_NAME 63
#define JOBSET_POD_SUFFIX 6	/* "-abcde": the Job controller's random suffix */

/* ---- validation ---------------------------------------------------------- */

/* The JobSet webhook's limit on the longest pod name (jaxjob-api.md §8.4). */
static int check_name_length(const char *name, long long nodes, struct err *e)
{
	size_t over = (size_t)trainjob_name_overhead((int)nodes);
	size_t len = strlen(name) + over;
	if (len <= MAX_NAME)
		return 0;
	return err_set(e, ERR_INPUT, "metadata.name \"%s\" is too long for %lld node%s: the "
		       "JobSet's pod %s-%s-0-%lld-xxxxx would have %zu characters, the limit is "
		       "63; use at most %zu characters", name, nodes, nodes == 1 ? "" : "s", name,
		       TRAINJOB_REPLICATED_JOB, nodes - 1, len, MAX_NAME - over);
}

static int check_runtime_ref(const char *p, const cJSON *ref, struct err *e)
{
	static const char *const fields[] = { "name", "apiGroup", "kind", NULL };
	static const char *const kinds[] = { TRAINJOB_CLUSTER_RUNTIME, TRAINJOB_NS_RUNTIME, NULL };
	static const char *const groups[] = { TRAINJOB_GROUP, NULL };
	if (jcheck_want(p, ref, cJSON_IsObject, "a mapping", e) < 0 ||
	    jcheck_only_fields(p, ref, fields, e) < 0)
		return -1;
	const cJSON *name = jcheck_member(ref, "name");
	if (!name)
		return err_set(e, ERR_INPUT, "spec.runtimeRef.name is required: the training "
			       "runtime to run on, e.g. %s", TRAINJOB_DEFAULT_RUNTIME);
	/* the webhook answers "unsupported runtime" for any other group or kind */
	if (jcheck_string("spec.runtimeRef.name", name, 1, 253, e) < 0 ||
	    jcheck_enum("spec.runtimeRef.apiGroup", jcheck_member(ref, "apiGroup"), groups, e) < 0 ||
	    jcheck_enum("spec.runtimeRef.kind", jcheck_member(ref, "kind"), kinds, e) < 0)
		return -1;
	return 0;
}

static int check_quantities(const char *path, const cJSON *map, struct err *e)
{
	const cJSON *q;
	if (!map)
		return 0;
	if (jcheck_want(path, map, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	cJSON_ArrayForEach(q, map)
		if (!cJSON_IsString(q) && !cJSON_IsNumber(q))
			return err_set(e, ERR_INPUT, "%s.%s must be a quantity (a string or a "
				       "number), got %s", path, q->string, jcheck_type_name(q));
	return 0;
}

static int check_patches(const char *path, const cJSON *list, struct err *e)
{
	static const char *const fields[] = { "manager", "time", "trainingRuntimeSpec", NULL };
	const cJSON *it;
	char p[64], q[96];
	int i = 0;
	if (!list)
		return 0;
	if (jcheck_want(path, list, cJSON_IsArray, "a list", e) < 0)
		return -1;
	if (cJSON_GetArraySize(list) > TRAINJOB_MAX_PATCHES)
		return err_set(e, ERR_INPUT, "spec.runtimePatches must have at most %d items, got %d",
			       TRAINJOB_MAX_PATCHES, cJSON_GetArraySize(list));
	cJSON_ArrayForEach(it, list) {
		snprintf(p, sizeof(p), "spec.runtimePatches[%d]", i++);
		snprintf(q, sizeof(q), "%s.manager", p);
		const cJSON *m = jcheck_member(it, "manager"), *spec;
		if (jcheck_want(p, it, cJSON_IsObject, "a mapping", e) < 0 ||
		    jcheck_only_fields(p, it, fields, e) < 0 ||
		    jcheck_want(q, m, cJSON_IsString, "a string", e) < 0 ||
		    jcheck_string(q, m, 1, 253, e) < 0)
			return -1;
		/* a list-map keyed by manager: one entry per manager */
		for (const cJSON *prev = list->child; prev != it; prev = prev->next)
			if (!strcmp(jcheck_member(prev, "manager")->valuestring, m->valuestring))
				return err_set(e, ERR_INPUT, "%s \"%s\" appears twice; each manager "
					       "owns one entry", q, m->valuestring);
		spec = jcheck_member(it, "trainingRuntimeSpec");
		snprintf(q, sizeof(q), "%s.trainingRuntimeSpec", p);
		if (spec && jcheck_want(q, spec, cJSON_IsObject, "a mapping", e) < 0)
			return -1;
		/* the pods of each replicated job: the API server's Pod rules */
		const cJSON *rj;
		int k = 0;
		cJSON_ArrayForEach(rj, jcheck_member(jcheck_member(jcheck_member(spec, "template"), "spec"), "replicatedJobs")) {
			char pod[256];
			snprintf(pod, sizeof(pod), "%s.template.spec.replicatedJobs[%d].template.spec.template.spec", q, k++);
			const cJSON *ps = jcheck_member(jcheck_member(jcheck_member(jcheck_member(rj, "template"), "spec"), "template"), "spec");
			if (jcheck_pod_rules(pod, ps, e) < 0)
				return -1;
		}
	}
	return 0;
}

/* spec.trainer.resourcesPerNode, spec.trainer and spec, checked in this order. */
static const struct jschema_field resources_per_node[] = {
	{ .name = "limits", .type = JS_FN, .fn = check_quantities },
	{ .name = "requests", .type = JS_FN, .fn = check_quantities },
	{ .name = "claims", .type = JS_LIST },
	{ .name = NULL },
};

static const struct jschema_field trainer[] = {
	{ .name = "image", .type = JS_STRING, .min = 1, .max = TRAINJOB_MAX_IMAGE },
	{ .name = "command", .type = JS_STRINGS, .max = TRAINJOB_MAX_ITEMS },
	{ .name = "args", .type = JS_STRINGS, .max = TRAINJOB_MAX_ITEMS },
	{ .name = "env", .type = JS_ENV, .max = TRAINJOB_MAX_ITEMS },
	{ .name = "numNodes", .type = JS_INT, .min = 1, .max = JCHECK_I32MAX },
	{ .name = "numProcPerNode", .type = JS_INT, .min = 1, .max = JCHECK_I32MAX },
	{ .name = "resourcesPerNode", .type = JS_MAP, .fields = resources_per_node },
	{ .name = NULL },
};

static const char *const managers[] = {
	"trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue", NULL
};

static const struct jschema_field initializer[] = {
	{ .name = "dataset", .type = JS_ANY },
	{ .name = "model", .type = JS_ANY },
	{ .name = NULL },
};

static const struct jschema_field spec_fields[] = {
	{ .name = "runtimeRef", .type = JS_FN, .fn = check_runtime_ref },
	{ .name = "trainer", .type = JS_MAP, .fields = trainer },
	{ .name = "runtimePatches", .type = JS_FN, .fn = check_patches },
	{ .name = "activeDeadlineSeconds", .type = JS_INT, .min = 1, .max = JCHECK_JSON_INT_MAX },
	{ .name = "managedBy", .type = JS_ENUM, .choices = managers },
	{ .name = "suspend", .type = JS_BOOL },
	{ .name = "initializer", .type = JS_MAP, .fields = initializer },
	{ .name = NULL },
};

int trainjob_validate(const cJSON *job, struct err *e)
{
	if (jcheck_type(job, TRAINJOB_API_VERSION, TRAINJOB_KIND, e) < 0 ||
	    jcheck_metadata(jcheck_member(job, "metadata"), e) < 0 ||
	    jschema_check("spec", jcheck_member(job, "spec"), 1, spec_fields, e) < 0)
		return -1;
	if (check_name_length(jcheck_member(jcheck_member(job, "metadata"), "name")->valuestring,
			      trainjob_nodes(job), e) < 0)
		return -1;
	return crdschema_validate(job, e);	/* what the rules above do not cover */
}

/* ---- tidy ------------------------------------------------------------------ */

/* Lists merged by name in a runtime patch: an item with only a name patches nothing. */
static int keyed_list(const char *key)
{
	return key && (!strcmp(key, "replicatedJobs") || !strcmp(key, "containers") ||
		       !strcmp(key, "initContainers"));
}

static int only_name(const cJSON *o)
{
	return cJSON_IsObject(o) && o->child && !o->child->next && o->child->string &&
	       !strcmp(o->child->string, "name");
}

/*
 * Remove name-only items of keyed lists below `node`, and whatever that
 * removal empties; 1 when `node` itself was emptied that way. A mapping or
 * list that was empty to begin with (emptyDir: {}) stays. The depth is
 * bounded by the parser (YJ_MAX_DEPTH).
 */
static int prune(cJSON *node)
{
	int removed = 0;
	cJSON *it = node->child;
	while (it) {
		cJSON *next = it->next;
		int gone = (cJSON_IsObject(it) || cJSON_IsArray(it)) && prune(it);
		if (!gone && cJSON_IsArray(node) && keyed_list(node->string) && only_name(it))
			gone = 1;
		if (gone) {
			cJSON_Delete(cJSON_DetachItemViaPointer(node, it));
			removed = 1;
		}
		it = next;
	}
	return removed && !node->child;
}

void trainjob_tidy(cJSON *job)
{
	cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
	cJSON *list = cJSON_GetObjectItemCaseSensitive(spec, "runtimePatches"), *it;
	if (!cJSON_IsArray(list))
		return;
	it = list->child;
	while (it) {
		cJSON *next = it->next;
		cJSON *trs = cJSON_GetObjectItemCaseSensitive(it, "trainingRuntimeSpec");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "manager");
		if (cJSON_IsObject(trs) && prune(trs))
			cJSON_DeleteItemFromObjectCaseSensitive(it, "trainingRuntimeSpec");
		/* only our own entry goes: another manager's empty entry is theirs */
		if (cJSON_IsString(m) && !strcmp(m->valuestring, TRAINJOB_PATCH_MANAGER) &&
		    !cJSON_GetObjectItemCaseSensitive(it, "trainingRuntimeSpec"))
			cJSON_Delete(cJSON_DetachItemViaPointer(list, it));
		it = next;
	}
	if (!list->child)
		cJSON_DeleteItemFromObjectCaseSensitive(spec, "runtimePatches");
}

/* ---- accessors ------------------------------------------------------------ */

const char *trainjob_runtime_name(const cJSON *job)
{
	const cJSON *n = jcheck_member(jcheck_member(jcheck_member(job, "spec"), "runtimeRef"),
				       "name");
	return cJSON_IsString(n) ? n->valuestring : NULL;
}

const char *trainjob_runtime_kind(const cJSON *job)
{
	const cJSON *k = jcheck_member(jcheck_member(jcheck_member(job, "spec"), "runtimeRef"),
				       "kind");
	return cJSON_IsString(k) ? k->valuestring : TRAINJOB_CLUSTER_RUNTIME;
}

int trainjob_nodes(const cJSON *job)
{
	const cJSON *n = jcheck_member(jcheck_member(jcheck_member(job, "spec"), "trainer"),
				       "numNodes");
	if (!cJSON_IsNumber(n))
		return 1;
	return n->valuedouble >= 0 && n->valuedouble <= 2147483647.0 ? (int)n->valuedouble : -1;
}

int trainjob_name_overhead(int nodes)
{
	/* "-" TRAINJOB_REPLICATED_JOB "-0-" digits "-abcde" */
	return (int)strlen("-" TRAINJOB_REPLICATED_JOB "-0-") +
	       jcheck_digits(nodes > 0 ? nodes - 1 : 0) + JOBSET_POD_SUFFIX;
}

void trainjob_node_name(const char *job_name, int i, struct buf *out)
{
	buf_addf(out, "%s-%s-0-%d", job_name, TRAINJOB_REPLICATED_JOB, i);
}

int trainjob_worker_counts(const cJSON *job, struct jobapi_workers *w)
{
	const cJSON *n = jcheck_member(jcheck_member(jcheck_member(job, "spec"), "trainer"),
				       "numNodes");

	w->replicas = cJSON_IsNumber(n) ? (int)n->valuedouble : 0;
	w->active = w->succeeded = w->failed = 0;
	return 0;
}

/* ---- the runtime of a TrainJob -------------------------------------------------- */

static const struct kube_resource cluster_runtimes = {
	TRAINJOB_GROUP, "v1alpha1", "clustertrainingruntimes", TRAINJOB_CLUSTER_RUNTIME, 0
};
static const struct kube_resource ns_runtimes = {
	TRAINJOB_GROUP, "v1alpha1", "trainingruntimes", TRAINJOB_NS_RUNTIME, 1
};

/* struct jobapi's check_runtime (jobapi_check_runtime() says why). */
static int check_runtime(struct kube_client *c, const cJSON *job, const char *ns, struct err *e)
{
	const char *name = trainjob_runtime_name(job), *kind = trainjob_runtime_kind(job);
	const struct kube_resource *r = strcmp(kind, TRAINJOB_NS_RUNTIME) ? &cluster_runtimes
									  : &ns_runtimes;
	cJSON *obj = NULL;
	if (!name)
		return 0;
	int rc = kube_get(c, r, ns, name, &obj, e);
	cJSON_Delete(obj);
	/* Trainer v2 not installed at all: kube_status.h already says so, plainly */
	if (rc == 0 || e->code != ERR_NOTFOUND || strstr(e->msg, " does not serve "))
		return rc;
	char server[ERR_MSG_MAX / 2];
	snprintf(server, sizeof(server), "%.*s", (int)sizeof(server) - 1, e->msg);
	return err_set(e, ERR_NOTFOUND, "the TrainJob's runtime %s %s%s%s does not exist (%s): the "
		       "TrainJob would be accepted and then never start; fix --runtime/"
		       "--runtime-kind (kubectl get %s%s lists them) or install the runtime%s",
		       kind, r->namespaced && ns ? ns : "", r->namespaced && ns ? "/" : "", name,
		       server, r->plural, r->namespaced ? " -n NAMESPACE" : "",
		       r->namespaced || strcmp(name, TRAINJOB_DEFAULT_RUNTIME) ? "" :
		       " (Kubeflow Trainer v2.2 or later ships jax-distributed)");
}

/* ---- the handler (struct jobapi, lib/job/jobapi.h) ------------------------------ */

static void trainjob_longest(const char *name, int nodes, struct buf *out)
{
	buf_adds(out, "JobSet pod ");
	trainjob_node_name(name, nodes > 0 ? nodes - 1 : 0, out);
	buf_adds(out, "-xxxxx");
}

static const char *const trainjob_suspend[] = { "spec", "suspend", NULL };

#define PODGROUP "gang scheduling of a TrainJob is the runtime's podGroupPolicy"

/*
 * What the TrainJob API (v2.3) cannot express: spec.trainer has no such
 * field and runtimePatches only reach metadata, nodeSelector, tolerations,
 * volumes, volumeMounts, env, affinity, service account, image pull
 * secrets, scheduling gates, security contexts and the grace period.
 */
static const struct jobapi_refusal trainjob_refused[] = {
	{ "restart-policy", "a TrainJob has no restart policy: the runtime's Job template and "
	  "JobSet failure policy decide, and a failed pod is replaced, not restarted" },
	{ "image-pull-policy", "spec.trainer has no imagePullPolicy and a runtime patch cannot "
	  "set one; set it in the runtime" },
	{ "coordinator-port", "the jax-distributed runtime fixes the coordinator port at 29500 "
	  "(JAX_COORDINATOR_ADDRESS)" },
	{ "clean-pod-policy", "a TrainJob has no clean-pod policy: the JobSet owns the pods" },
	{ "ttl-seconds-after-finished", "a TrainJob has no TTL field; use launch "
	  "--delete-after or the runtime's JobSet ttlSecondsAfterFinished" },
	{ "backoff-limit", "a TrainJob has no backoff limit: the runtime's Job backoffLimit and "
	  "JobSet failurePolicy decide" },
	{ "queue", "schedulingPolicy.queue is the JAXJob's Volcano field; for Kueue use "
	  "local-queue (the kueue.x-k8s.io/queue-name label)" },
	{ "min-available", PODGROUP },
	{ "schedule-timeout-seconds", PODGROUP },
	{ "priority-class", "a runtime patch cannot set priorityClassName; set it in the "
	  "runtime, or use Kueue's kueue.x-k8s.io/priority-class label" },
	{ NULL, NULL },
};

/* Trainer v2: the TrainJob's JobSet or other resources could not be made */
static const char *const trainjob_creation_failures[] = {
	"TrainJobResourcesCreationFailed", NULL,
};

const struct jobapi JOBAPI_TRAINJOB = {
	.name = "trainjob",
	.project = "Kubeflow Trainer v2",
	.kind = TRAINJOB_KIND,
	.api_version = TRAINJOB_API_VERSION,
	.res = &KUBE_TRAINJOB,
	.tmpl = "trainjob.yaml",
	.tmpl_source = "templates/trainjob.yaml",
	.validate = trainjob_validate,
	.tidy = trainjob_tidy,
	.workers = trainjob_nodes,
	.worker_counts = trainjob_worker_counts,
	.name_overhead = trainjob_name_overhead,
	.longest_child = trainjob_longest,
	.suspend_path = trainjob_suspend,
	.creation_failures = trainjob_creation_failures,
	.pod_job_label = "jobset.sigs.k8s.io/jobset-name",
	.pod_selector_more = "jobset.sigs.k8s.io/replicatedjob-name=" TRAINJOB_REPLICATED_JOB,
	.pod_index_label = "batch.kubernetes.io/job-completion-index",
	.container = TRAINJOB_CONTAINER,
	.refused = trainjob_refused,
	.check_runtime = check_runtime,
};
