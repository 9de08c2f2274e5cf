/*
 * jaxjob.c - see jaxjob.h. Validation walks the object top-down in the
 * order a reader would check it, so the first error is the most basic one.
 */
#include "jaxjob.h"

#include <stdio.h>
#include <string.h>

#include "crdschema.h"
#include "yj/jcheck.h"
#include "jobapi_handler.h"
#include "yj/jschema.h"
#include "k8sname.h"

#define I32MAX JCHECK_I32MAX
#define JSON_INT_MAX JCHECK_JSON_INT_MAX

/* spec.runPolicy (training-operator v1 RunPolicy), checked in this order. */
static const char *const clean_pod_policies[] = { "All", "Running", "None", NULL };

static const struct jschema_field scheduling_policy[] = {
	{ .name = "minAvailable", .type = JS_INT, .min = 1, .max = I32MAX },
	{ .name = "scheduleTimeoutSeconds", .type = JS_INT, .min = 0, .max = I32MAX },
	{ .name = "queue", .type = JS_STRING },
	{ .name = "priorityClass", .type = JS_STRING },
	{ .name = "minResources", .type = JS_ANY },
	{ .name = NULL },
};

static const struct jschema_field run_policy[] = {
	{ .name = "cleanPodPolicy", .type = JS_ENUM, .choices = clean_pod_policies },
	{ .name = "ttlSecondsAfterFinished", .type = JS_INT, .min = 0, .max = I32MAX },
	{ .name = "activeDeadlineSeconds", .type = JS_INT, .min = 1, .max = JSON_INT_MAX },
	{ .name = "backoffLimit", .type = JS_INT, .min = 0, .max = I32MAX },
	{ .name = "suspend", .type = JS_BOOL },
	{ .name = "schedulingPolicy", .type = JS_MAP, .fields = scheduling_policy },
	{ .name = "managedBy", .type = JS_ANY },
	{ .name = NULL },
};

static int has_volume(const cJSON *volumes, const char *name)
{
	const cJSON *v;
	cJSON_ArrayForEach(v, volumes) {
		const cJSON *n = jcheck_member(v, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return 1;
	}
	return 0;
}

static int check_container(const char *path, const cJSON *c, const cJSON *volumes,
			   struct err *e)
{
	char p[512];
	const cJSON *it;
	if (jcheck_want(path, c, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	const cJSON *name = jcheck_member(c, "name"), *image = jcheck_member(c, "image");
	snprintf(p, sizeof(p), "%s.name", path);
	if (jcheck_want(p, name, cJSON_IsString, "a string", e) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s.image", path);
	if (!image || (cJSON_IsString(image) && !*image->valuestring))
		return err_set(e, ERR_INPUT, "%s is required (container %s)", p, name->valuestring);
	if (jcheck_want(p, image, cJSON_IsString, "a string", e) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s.command", path);
	if (jcheck_strings(p, jcheck_member(c, "command"), 0, e) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s.args", path);
	if (jcheck_strings(p, jcheck_member(c, "args"), 0, e) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s.env", path);
	if (jcheck_env(p, jcheck_member(c, "env"), 0, e) < 0)
		return -1;
	int i = 0;
	cJSON_ArrayForEach(it, jcheck_member(c, "ports")) {
		snprintf(p, sizeof(p), "%s.ports[%d].containerPort", path, i++);
		if (!jcheck_member(it, "containerPort"))
			return err_set(e, ERR_INPUT, "%s is required", p);
		if (jcheck_int(p, jcheck_member(it, "containerPort"), 1, 65535, e) < 0)
			return -1;
	}
	i = 0;
	cJSON_ArrayForEach(it, jcheck_member(c, "volumeMounts")) {
		const cJSON *vn = jcheck_member(it, "name");
		snprintf(p, sizeof(p), "%s.volumeMounts[%d].name", path, i++);
		if (jcheck_want(p, vn, cJSON_IsString, "a string", e) < 0)
			return -1;
		if (!has_volume(volumes, vn->valuestring))
			return err_set(e, ERR_INPUT, "%s \"%s\" names no volume of the pod; add a "
				       "volume named %s", p, vn->valuestring, vn->valuestring);
	}
	return 0;
}

static int check_pod_template(const cJSON *tmpl, struct err *e)
{
	const char *base = "spec.jaxReplicaSpecs.Worker.template";
	char p[320];
	if (jcheck_want(base, tmpl, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	const cJSON *spec = jcheck_member(tmpl, "spec");
	if (jcheck_want("spec.jaxReplicaSpecs.Worker.template.spec", spec, cJSON_IsObject, "a mapping",
		 e) < 0)
		return -1;
	const cJSON *containers = jcheck_member(spec, "containers"), *c;
	snprintf(p, sizeof(p), "%s.spec.containers", base);
	if (jcheck_want(p, containers, cJSON_IsArray, "a list", e) < 0)
		return -1;
	if (!containers->child)
		return err_set(e, ERR_INPUT, "%s must have a container named %s", p, JAXJOB_CONTAINER);
	int i = 0, jax = 0;
	cJSON_ArrayForEach(c, containers) {
		snprintf(p, sizeof(p), "%s.spec.containers[%d]", base, i++);
		if (check_container(p, c, jcheck_member(spec, "volumes"), e) < 0)
			return -1;
		jax += !strcmp(jcheck_member(c, "name")->valuestring, JAXJOB_CONTAINER);
	}
	if (!jax)
		return err_set(e, ERR_INPUT, "%s.spec.containers must have a container named %s "
			       "(the operator's JAX container)", base, JAXJOB_CONTAINER);
	if (jcheck_pod_rules("spec.jaxReplicaSpecs.Worker.template.spec", spec, e) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s.metadata.labels", base);
	return jcheck_string_map(p, jcheck_member(jcheck_member(tmpl, "metadata"), "labels"), 1, e);
}

static int check_worker(const char *name, const cJSON *w, struct err *e)
{
	static const char *const fields[] = { "replicas", "restartPolicy", "template", NULL };
	static const char *const restart[] = { "Always", "OnFailure", "Never", "ExitCode", NULL };
	const char *p = "spec.jaxReplicaSpecs.Worker";
	if (jcheck_want(p, w, cJSON_IsObject, "a mapping", e) < 0 || jcheck_only_fields(p, w, fields, e) < 0 ||
	    jcheck_int("spec.jaxReplicaSpecs.Worker.replicas", jcheck_member(w, "replicas"), 1, I32MAX, e) < 0 ||
	    jcheck_enum("spec.jaxReplicaSpecs.Worker.restartPolicy", jcheck_member(w, "restartPolicy"),
		       restart, e) < 0)
		return -1;
	/* the operator creates a Service {name}-worker-{i} per worker: a DNS label */
	const cJSON *r = jcheck_member(w, "replicas");
	long long n = r ? (long long)r->valuedouble : 1;
	size_t len = strlen(name) + strlen("-worker-") + (size_t)jcheck_digits(n - 1);
	if (len > 63)
		return err_set(e, ERR_INPUT, "metadata.name \"%s\" is too long for %lld worker%s: "
			       "Service %s-worker-%lld would have %zu characters, the limit is 63; "
			       "use at most %zu characters", name, n, n == 1 ? "" : "s", name,
			       n - 1, len, 63 - (len - strlen(name)));
	return check_pod_template(jcheck_member(w, "template"), e);
}

int jaxjob_validate(const cJSON *job, struct err *e)
{
	static const char *const spec_fields[] = { "runPolicy", "jaxReplicaSpecs", NULL };
	if (jcheck_type(job, JAXJOB_API_VERSION, JAXJOB_KIND, e) < 0)
		return -1;
	if (jcheck_metadata(jcheck_member(job, "metadata"), e) < 0)
		return -1;
	const cJSON *spec = jcheck_member(job, "spec");
	if (jcheck_want("spec", spec, cJSON_IsObject, "a mapping", e) < 0 ||
	    jcheck_only_fields("spec", spec, spec_fields, e) < 0 ||
	    jschema_check("spec.runPolicy", jcheck_member(spec, "runPolicy"), 0, run_policy, e) < 0)
		return -1;
	const cJSON *specs = jcheck_member(spec, "jaxReplicaSpecs"), *rs;
	if (jcheck_want("spec.jaxReplicaSpecs", specs, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	cJSON_ArrayForEach(rs, specs)
		if (strcmp(rs->string, JAXJOB_REPLICA))
			return err_set(e, ERR_INPUT, "spec.jaxReplicaSpecs.%s is not supported: the only "
				       "replica type of a JAXJob is %s", rs->string, JAXJOB_REPLICA);
	const char *name = jaxjob_name(job);
	if (check_worker(name, jcheck_member(specs, JAXJOB_REPLICA), e) < 0)
		return -1;
	return crdschema_validate(job, e);	/* what the rules above do not cover */
}

/* ---- accessors ------------------------------------------------------------ */

const char *jaxjob_name(const cJSON *job)
{
	const cJSON *n = jcheck_member(jcheck_member(job, "metadata"), "name");
	return cJSON_IsString(n) ? n->valuestring : NULL;
}

const char *jaxjob_namespace(const cJSON *job)
{
	const cJSON *n = jcheck_member(jcheck_member(job, "metadata"), "namespace");
	return cJSON_IsString(n) ? n->valuestring : NULL;
}

const cJSON *jaxjob_worker_spec(const cJSON *job)
{
	return jcheck_member(jcheck_member(jcheck_member(job, "spec"), "jaxReplicaSpecs"), JAXJOB_REPLICA);
}

int jaxjob_workers(const cJSON *job)
{
	const cJSON *w = jaxjob_worker_spec(job);
	const cJSON *r = jcheck_member(w, "replicas");
	if (!w)
		return -1;
	if (!cJSON_IsNumber(r))
		return 1;
	return r->valuedouble >= 0 && r->valuedouble <= 2147483647.0 ? (int)r->valuedouble : -1;
}

const cJSON *jaxjob_container(const cJSON *job)
{
	const cJSON *spec = jcheck_member(jcheck_member(jaxjob_worker_spec(job), "template"), "spec"), *c;
	cJSON_ArrayForEach(c, jcheck_member(spec, "containers")) {
		const cJSON *n = jcheck_member(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, JAXJOB_CONTAINER))
			return c;
	}
	return NULL;
}

void jaxjob_worker_name(const char *job_name, int i, struct buf *out)
{
	buf_addf(out, "%s-worker-%d", job_name, i);
}

/* A count as launch has always read it: any number, truncated; else `dflt`. */
static int count_or(const cJSON *v, int dflt)
{
	return cJSON_IsNumber(v) ? (int)v->valuedouble : dflt;
}

int jaxjob_worker_counts(const cJSON *job, struct jobapi_workers *w)
{
	const cJSON *spec = jaxjob_worker_spec(job);
	const cJSON *rs = jcheck_member(jcheck_member(job, "status"), "replicaStatuses");
	const cJSON *st = jcheck_member(rs, JAXJOB_REPLICA);

	w->replicas = spec ? count_or(jcheck_member(spec, "replicas"), 1) : 0;
	w->active = count_or(jcheck_member(st, "active"), 0);
	w->succeeded = count_or(jcheck_member(st, "succeeded"), 0);
	w->failed = count_or(jcheck_member(st, "failed"), 0);
	return rs != NULL;
}

/* ---- the handler (struct jobapi, lib/job/jobapi.h) ------------------------------ */

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

/* the training operator's pod and Service creation failures */
static const char *const jaxjob_creation_failures[] = {
	"FailedCreatePod", "FailedCreateService", NULL,
};

const struct jobapi JOBAPI_JAXJOB = {
	.name = "jaxjob",
	.project = "Kubeflow Training Operator v1",
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
	.creation_failures = jaxjob_creation_failures,
	.pod_job_label = "training.kubeflow.org/job-name",
	.pod_selector_more = NULL,
	.pod_index_label = "training.kubeflow.org/replica-index",
	.container = JAXJOB_CONTAINER,
	.refused = jaxjob_refused,
};
