/*
 * jobapi.c - see jobapi.h. The two descriptors first (they are the
 * documentation), then the few functions that read them.
 */
#include "jobapi.h"

#include <stdio.h>
#include <string.h>

#include "jaxjob.h"
#include "jcheck.h"
#include "tmpl.h"
#include "trainjob.h"

/* ---- JAXJob ------------------------------------------------------------------ */

/* The operator's per-worker Service "{name}-worker-{N-1}" is the longest. */
static int jaxjob_overhead(int workers)
{
	return (int)strlen("-worker-") + jcheck_digits(workers > 0 ? workers - 1 : 0);
}

static void jaxjob_longest(const char *name, int workers, struct buf *out)
{
	buf_adds(out, "Service ");
	jaxjob_worker_name(name, workers > 0 ? workers - 1 : 0, out);
}

static const char *const jaxjob_suspend[] = { "spec", "runPolicy", "suspend", NULL };

#define TRAINJOB_ONLY "a JAXJob has no training runtime; this is a TrainJob parameter"

static const struct jobapi_refusal jaxjob_refused[] = {
	{ "runtime", TRAINJOB_ONLY },
	{ "runtime-kind", TRAINJOB_ONLY },
	{ "procs-per-node", "a JAXJob runs one JAX process per worker pod (trainer.numProcPerNode "
	  "is a TrainJob field)" },
	{ NULL, NULL },
};

const struct jobapi JOBAPI_JAXJOB = {
	.name = "jaxjob",
	.kind = JAXJOB_KIND,
	.api_version = JAXJOB_API_VERSION,
	.res = &KUBE_JAXJOB,
	.tmpl = "jaxjob.yaml",
	.tmpl_source = "templates/jaxjob.yaml",
	.validate = jaxjob_validate,
	.tidy = NULL,
	.workers = jaxjob_workers,
	.worker_counts = jaxjob_worker_counts,
	.name_overhead = jaxjob_overhead,
	.longest_child = jaxjob_longest,
	.suspend_path = jaxjob_suspend,
	.pod_job_label = "training.kubeflow.org/job-name",
	.pod_selector_more = NULL,
	.pod_index_label = "training.kubeflow.org/replica-index",
	.container = JAXJOB_CONTAINER,
	.refused = jaxjob_refused,
};

/* ---- TrainJob ---------------------------------------------------------------- */

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
	{ "queue", "schedulingPolicy.queue is the JAXJob's Volcano field; for Kueue set "
	  "--label kueue.x-k8s.io/queue-name=QUEUE" },
	{ "min-available", PODGROUP },
	{ "schedule-timeout-seconds", PODGROUP },
	{ "priority-class", "a runtime patch cannot set priorityClassName; set it in the "
	  "runtime, or use Kueue's kueue.x-k8s.io/priority-class label" },
	{ NULL, NULL },
};

const struct jobapi JOBAPI_TRAINJOB = {
	.name = "trainjob",
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
	.pod_job_label = "jobset.sigs.k8s.io/jobset-name",
	.pod_selector_more = "jobset.sigs.k8s.io/replicatedjob-name=" TRAINJOB_REPLICATED_JOB,
	.pod_index_label = "batch.kubernetes.io/job-completion-index",
	.container = TRAINJOB_CONTAINER,
	.refused = trainjob_refused,
};

/* ---- functions ------------------------------------------------------------ */

static const struct jobapi *const all[] = { &JOBAPI_JAXJOB, &JOBAPI_TRAINJOB, NULL };

const struct jobapi *jobapi_find(const char *name)
{
	for (int i = 0; name && all[i]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

int jobapi_worker_counts(const cJSON *job, struct jobapi_workers *w)
{
	const struct jobapi *api = jobapi_of(job);

	memset(w, 0, sizeof(*w));
	return api ? api->worker_counts(job, w) : 0;
}

const char *jobapi_names(void)
{
	return "jaxjob, trainjob";
}

/* The group of "group/version" must be the API's; any version will do. */
const struct jobapi *jobapi_of(const cJSON *obj)
{
	const cJSON *av = jcheck_member(obj, "apiVersion"), *kind = jcheck_member(obj, "kind");
	if (!cJSON_IsString(av) || !cJSON_IsString(kind))
		return NULL;
	for (int i = 0; all[i]; i++) {
		size_t g = strlen(all[i]->res->group);
		if (!strcmp(kind->valuestring, all[i]->kind) &&
		    !strncmp(av->valuestring, all[i]->res->group, g) && av->valuestring[g] == '/')
			return all[i];
	}
	return NULL;
}

static const char *refusal(const struct jobapi *api, const char *param)
{
	for (const struct jobapi_refusal *r = api->refused; r->param; r++)
		if (!strcmp(r->param, param))
			return r->why;
	return NULL;
}

int jobapi_check_params(const struct jobapi *api, const cJSON *params, struct err *e)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, params) {
		const char *why = refusal(api, it->string);
		if (!why)
			continue;
		const struct jobapi *other = api == &JOBAPI_JAXJOB ? &JOBAPI_TRAINJOB : &JOBAPI_JAXJOB;
		const char *alt = refusal(other, it->string) ? NULL : other->name;
		return err_set(e, ERR_INPUT, "%s is not supported for a %s: %s; remove it%s%s",
			       it->string, api->kind, why, alt ? ", or use api " : "",
			       alt ? alt : "");
	}
	return 0;
}

int jobapi_template(const struct jobapi *api, const char *path, cJSON **out,
		    const char **source, struct err *e)
{
	size_t len = 0;
	const char *text;
	if (path)
		return tmpl_load(path, out, source, e);
	*out = NULL;
	text = tmpl_builtin(api->tmpl, &len);
	if (!text)
		return err_set(e, ERR_INTERNAL, "built-in template %s is missing", api->tmpl);
	if (source)
		*source = api->tmpl_source;
	return tmpl_parse(text, len, api->tmpl_source, out, e);
}

void jobapi_pod_selector(const struct jobapi *api, const char *job_name, struct buf *out)
{
	buf_addf(out, "%s=%s", api->pod_job_label, job_name);
	if (api->pod_selector_more)
		buf_addf(out, ",%s", api->pod_selector_more);
}

const cJSON *jobapi_suspend_flag(const struct jobapi *api, const cJSON *job)
{
	const cJSON *v = job;
	for (const char *const *k = api->suspend_path; v && *k; k++)
		v = jcheck_member(v, *k);
	return v;
}

void jobapi_drop_suspend(const struct jobapi *api, cJSON *job)
{
	cJSON *v = job;
	const char *const *k = api->suspend_path;
	for (; v && k[1]; k++)
		v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, *k) : NULL;
	if (cJSON_IsObject(v))
		cJSON_DeleteItemFromObjectCaseSensitive(v, *k);
}

cJSON *jobapi_suspend_patch(const struct jobapi *api, int suspend)
{
	cJSON *patch = cJSON_CreateObject(), *at = patch;
	const char *const *k = api->suspend_path;
	for (; k[1]; k++)
		at = cJSON_AddObjectToObject(at, *k);
	cJSON_AddBoolToObject(at, *k, suspend);
	return patch;
}

int jobapi_name_budget(const struct jobapi *api, int workers)
{
	return 63 - api->name_overhead(workers);
}

/* ---- discovery --------------------------------------------------------------- */

/* 1 served, 0 not served (404, or the group without the plural), -1 error. */
static int served(struct kube_client *c, const struct jobapi *api, struct err *e)
{
	struct buf path = BUF_INIT, body = BUF_INIT;
	cJSON *doc = NULL, *r;
	int rc = 0;
	buf_addf(&path, "/apis/%s/%s", api->res->group, api->res->version);
	if (kube_get_raw(c, path.data, &body, e) < 0) {
		rc = e->code == ERR_NOTFOUND ? 0 : -1;
		goto out;
	}
	doc = cJSON_ParseWithLength(body.data, body.len);
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "resources")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "name"));
		if (name && !strcmp(name, api->res->plural))
			rc = 1;
	}
out:
	cJSON_Delete(doc);
	buf_free(&path);
	buf_free(&body);
	return rc;
}

int jobapi_discover(struct kube_client *c, const struct jobapi **out, int *both,
		    struct err *e)
{
	int jax = served(c, &JOBAPI_JAXJOB, e);
	if (jax < 0)
		return -1;
	int train = served(c, &JOBAPI_TRAINJOB, e);
	if (train < 0)
		return -1;
	err_clear(e);
	if (both)
		*both = jax && train;
	*out = jax ? &JOBAPI_JAXJOB : train ? &JOBAPI_TRAINJOB : NULL;
	if (!*out)
		return err_set(e, ERR_NOTFOUND, "--api auto: the cluster serves neither %s/%s %s "
			       "(Kubeflow Training Operator v1) nor %s/%s %s (Kubeflow Trainer v2); "
			       "install one of them", JOBAPI_JAXJOB.res->group,
			       JOBAPI_JAXJOB.res->version, JOBAPI_JAXJOB.res->plural,
			       JOBAPI_TRAINJOB.res->group, JOBAPI_TRAINJOB.res->version,
			       JOBAPI_TRAINJOB.res->plural);
	return 0;
}

/* ---- the runtime of a TrainJob -------------------------------------------------- */

static const struct kube_resource cluster_runtimes = {
	TRAINJOB_GROUP, "v1alpha1", "clustertrainingruntimes", TRAINJOB_CLUSTER_RUNTIME, 0
};
static const struct kube_resource ns_runtimes = {
	TRAINJOB_GROUP, "v1alpha1", "trainingruntimes", TRAINJOB_NS_RUNTIME, 1
};

int jobapi_check_runtime(struct kube_client *c, const struct jobapi *api, const cJSON *job,
			 const char *ns, struct err *e)
{
	const char *name = trainjob_runtime_name(job), *kind = trainjob_runtime_kind(job);
	const struct kube_resource *r = strcmp(kind, TRAINJOB_NS_RUNTIME) ? &cluster_runtimes
									  : &ns_runtimes;
	cJSON *obj = NULL;
	if (api != &JOBAPI_TRAINJOB || !name)
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
