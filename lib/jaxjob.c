/*
 * jaxjob.c - see jaxjob.h. Validation walks the object top-down in the
 * order a reader would check it, so the first error is the most basic one.
 */
#include "jaxjob.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "k8sname.h"

#define I32MAX 2147483647LL
#define JSON_INT_MAX 9007199254740991LL

static const cJSON *member(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

static const char *type_name(const cJSON *v)
{
	if (cJSON_IsArray(v))
		return "a list";
	if (cJSON_IsObject(v))
		return "a mapping";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	return "null";
}

static int want(const char *path, const cJSON *v, int (*is)(const cJSON *const),
		const char *what, struct err *e)
{
	if (!v)
		return err_set(e, ERR_INPUT, "%s is required", path);
	if (!is(v))
		return err_set(e, ERR_INPUT, "%s must be %s, got %s", path, what, type_name(v));
	return 0;
}

/* A whole number within long long, so that the cast below is defined. */
static int whole(double d)
{
	return d >= -9.2e18 && d <= 9.2e18 && d == floor(d);
}

/* An optional whole number in [min, max]. */
static int check_int(const char *path, const cJSON *v, long long min, long long max,
		     struct err *e)
{
	if (!v)
		return 0;
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && !whole(v->valuedouble))
		return err_set(e, ERR_INPUT, "%s must be at %s %lld, got %g", path,
			       v->valuedouble < 0 ? "least" : "most", v->valuedouble < 0 ? min : max,
			       v->valuedouble);
	if (!cJSON_IsNumber(v) || !whole(v->valuedouble))
		return err_set(e, ERR_INPUT, "%s must be a whole number, got %s", path,
			       cJSON_IsNumber(v) ? "a fraction" : type_name(v));
	long long n = (long long)v->valuedouble;
	if (n < min)
		return err_set(e, ERR_INPUT, "%s must be at least %lld, got %lld", path, min, n);
	if (n > max)
		return err_set(e, ERR_INPUT, "%s must be at most %lld, got %lld", path, max, n);
	return 0;
}

/* An optional string from `choices`. */
static int check_enum(const char *path, const cJSON *v, const char *const *choices,
		      struct err *e)
{
	char all[256] = "";
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "%s must be a string, got %s", path, type_name(v));
	for (const char *const *c = choices; *c; c++) {
		if (!strcmp(*c, v->valuestring))
			return 0;
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
			 c == choices ? "" : ", ", *c);
	}
	return err_set(e, ERR_INPUT, "%s \"%s\" is not valid; use one of %s", path,
		       v->valuestring, all);
}

/* Unknown fields are typos (e.g. in a --patch): the server would drop or reject them. */
static int only_fields(const char *path, const cJSON *o, const char *const *fields,
		       struct err *e)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, o) {
		const char *const *f = fields;
		while (*f && strcmp(*f, m->string))
			f++;
		if (!*f)
			return err_set(e, ERR_INPUT, "%s.%s is not a field of %s", path, m->string,
				       path);
	}
	return 0;
}

static int digits(long long n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static int check_string_map(const char *path, const cJSON *map, int labels, struct err *e)
{
	const cJSON *m;
	char what[320];
	if (!map)
		return 0;
	if (!cJSON_IsObject(map))
		return err_set(e, ERR_INPUT, "%s must be a mapping, got %s", path, type_name(map));
	cJSON_ArrayForEach(m, map) {
		snprintf(what, sizeof(what), "%s key", path);
		if (k8s_check_qualified_name(what, m->string, e) < 0)
			return -1;
		snprintf(what, sizeof(what), "%s.%s", path, m->string);
		if (!cJSON_IsString(m))
			return err_set(e, ERR_INPUT, "%s must be a string, got %s", what, type_name(m));
		if (labels && k8s_check_label_value(what, m->valuestring, e) < 0)
			return -1;
	}
	return 0;
}

static int check_metadata(const cJSON *md, struct err *e)
{
	if (want("metadata", md, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	const cJSON *name = member(md, "name"), *ns = member(md, "namespace");
	if (want("metadata.name", name, cJSON_IsString, "a string", e) < 0 ||
	    k8s_check_dns1035("metadata.name", name->valuestring, e) < 0)
		return -1;
	if (ns && (want("metadata.namespace", ns, cJSON_IsString, "a string", e) < 0 ||
		   k8s_check_dns1123_label("metadata.namespace", ns->valuestring, e) < 0))
		return -1;
	if (check_string_map("metadata.labels", member(md, "labels"), 1, e) < 0 ||
	    check_string_map("metadata.annotations", member(md, "annotations"), 0, e) < 0)
		return -1;
	return 0;
}

static int check_run_policy(const cJSON *rp, struct err *e)
{
	static const char *const fields[] = {
		"cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds",
		"backoffLimit", "schedulingPolicy", "suspend", "managedBy", NULL
	};
	static const char *const sched_fields[] = {
		"minAvailable", "queue", "minResources", "priorityClass",
		"scheduleTimeoutSeconds", NULL
	};
	static const char *const clean[] = { "All", "Running", "None", NULL };
	const char *p = "spec.runPolicy";
	if (!rp)
		return 0;
	if (want(p, rp, cJSON_IsObject, "a mapping", e) < 0 || only_fields(p, rp, fields, e) < 0 ||
	    check_enum("spec.runPolicy.cleanPodPolicy", member(rp, "cleanPodPolicy"), clean, e) < 0 ||
	    check_int("spec.runPolicy.ttlSecondsAfterFinished",
		      member(rp, "ttlSecondsAfterFinished"), 0, I32MAX, e) < 0 ||
	    check_int("spec.runPolicy.activeDeadlineSeconds",
		      member(rp, "activeDeadlineSeconds"), 1, JSON_INT_MAX, e) < 0 ||
	    check_int("spec.runPolicy.backoffLimit", member(rp, "backoffLimit"), 0, I32MAX, e) < 0)
		return -1;
	const cJSON *suspend = member(rp, "suspend"), *sp = member(rp, "schedulingPolicy");
	if (suspend && want("spec.runPolicy.suspend", suspend, cJSON_IsBool, "true or false", e) < 0)
		return -1;
	if (!sp)
		return 0;
	p = "spec.runPolicy.schedulingPolicy";
	if (want(p, sp, cJSON_IsObject, "a mapping", e) < 0 || only_fields(p, sp, sched_fields, e) < 0 ||
	    check_int("spec.runPolicy.schedulingPolicy.minAvailable", member(sp, "minAvailable"),
		      1, I32MAX, e) < 0 ||
	    check_int("spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds",
		      member(sp, "scheduleTimeoutSeconds"), 0, I32MAX, e) < 0)
		return -1;
	if (member(sp, "queue") && want("spec.runPolicy.schedulingPolicy.queue", member(sp, "queue"),
					cJSON_IsString, "a string", e) < 0)
		return -1;
	if (member(sp, "priorityClass") &&
	    want("spec.runPolicy.schedulingPolicy.priorityClass", member(sp, "priorityClass"),
		 cJSON_IsString, "a string", e) < 0)
		return -1;
	return 0;
}

static int has_volume(const cJSON *volumes, const char *name)
{
	const cJSON *v;
	cJSON_ArrayForEach(v, volumes) {
		const cJSON *n = member(v, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return 1;
	}
	return 0;
}

/* command and args: lists of strings (a template's typed number is a classic slip). */
static int check_strings(const char *path, const char *field, const cJSON *list, struct err *e)
{
	char p[512];
	const cJSON *it;
	int i = 0;
	snprintf(p, sizeof(p), "%s.%s", path, field);
	if (!list)
		return 0;
	if (want(p, list, cJSON_IsArray, "a list", e) < 0)
		return -1;
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsString(it))
			return err_set(e, ERR_INPUT, "%s[%d] must be a string, got %s; quote it or put "
				       "it inside a string", p, i, type_name(it));
		i++;
	}
	return 0;
}

static int check_env(const char *path, const cJSON *env, struct err *e)
{
	char p[512];
	const cJSON *it;
	int i = 0;
	snprintf(p, sizeof(p), "%s.env", path);
	if (!env)
		return 0;
	if (want(p, env, cJSON_IsArray, "a list", e) < 0)
		return -1;
	cJSON_ArrayForEach(it, env) {
		const cJSON *name = member(it, "name"), *value = member(it, "value");
		snprintf(p, sizeof(p), "%s.env[%d]", path, i++);
		if (!cJSON_IsString(name))
			return err_set(e, ERR_INPUT, "%s.name must be a string", p);
		if (value && !cJSON_IsString(value))
			return err_set(e, ERR_INPUT, "%s.value (%s) must be a string, got %s", p,
				       name->valuestring, type_name(value));
	}
	return 0;
}

static int check_container(const char *path, const cJSON *c, const cJSON *volumes,
			   struct err *e)
{
	char p[512];
	const cJSON *it;
	if (want(path, c, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	const cJSON *name = member(c, "name"), *image = member(c, "image");
	snprintf(p, sizeof(p), "%s.name", path);
	if (want(p, name, cJSON_IsString, "a string", e) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s.image", path);
	if (!image || (cJSON_IsString(image) && !*image->valuestring))
		return err_set(e, ERR_INPUT, "%s is required (container %s)", p, name->valuestring);
	if (want(p, image, cJSON_IsString, "a string", e) < 0)
		return -1;
	if (check_strings(path, "command", member(c, "command"), e) < 0 ||
	    check_strings(path, "args", member(c, "args"), e) < 0 ||
	    check_env(path, member(c, "env"), e) < 0)
		return -1;
	int i = 0;
	cJSON_ArrayForEach(it, member(c, "ports")) {
		snprintf(p, sizeof(p), "%s.ports[%d].containerPort", path, i++);
		if (!member(it, "containerPort"))
			return err_set(e, ERR_INPUT, "%s is required", p);
		if (check_int(p, member(it, "containerPort"), 1, 65535, e) < 0)
			return -1;
	}
	i = 0;
	cJSON_ArrayForEach(it, member(c, "volumeMounts")) {
		const cJSON *vn = member(it, "name");
		snprintf(p, sizeof(p), "%s.volumeMounts[%d].name", path, i++);
		if (want(p, vn, cJSON_IsString, "a string", e) < 0)
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
	if (want(base, tmpl, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	const cJSON *spec = member(tmpl, "spec");
	if (want("spec.jaxReplicaSpecs.Worker.template.spec", spec, cJSON_IsObject, "a mapping",
		 e) < 0)
		return -1;
	const cJSON *containers = member(spec, "containers"), *c;
	snprintf(p, sizeof(p), "%s.spec.containers", base);
	if (want(p, containers, cJSON_IsArray, "a list", e) < 0)
		return -1;
	if (!containers->child)
		return err_set(e, ERR_INPUT, "%s must have a container named %s", p, JAXJOB_CONTAINER);
	int i = 0, jax = 0;
	cJSON_ArrayForEach(c, containers) {
		snprintf(p, sizeof(p), "%s.spec.containers[%d]", base, i++);
		if (check_container(p, c, member(spec, "volumes"), e) < 0)
			return -1;
		jax += !strcmp(member(c, "name")->valuestring, JAXJOB_CONTAINER);
	}
	if (!jax)
		return err_set(e, ERR_INPUT, "%s.spec.containers must have a container named %s "
			       "(the operator's JAX container)", base, JAXJOB_CONTAINER);
	snprintf(p, sizeof(p), "%s.metadata.labels", base);
	return check_string_map(p, member(member(tmpl, "metadata"), "labels"), 1, e);
}

static int check_worker(const char *name, const cJSON *w, struct err *e)
{
	static const char *const fields[] = { "replicas", "restartPolicy", "template", NULL };
	static const char *const restart[] = { "Always", "OnFailure", "Never", "ExitCode", NULL };
	const char *p = "spec.jaxReplicaSpecs.Worker";
	if (want(p, w, cJSON_IsObject, "a mapping", e) < 0 || only_fields(p, w, fields, e) < 0 ||
	    check_int("spec.jaxReplicaSpecs.Worker.replicas", member(w, "replicas"), 1, I32MAX, e) < 0 ||
	    check_enum("spec.jaxReplicaSpecs.Worker.restartPolicy", member(w, "restartPolicy"),
		       restart, e) < 0)
		return -1;
	/* the operator creates a Service {name}-worker-{i} per worker: a DNS label */
	const cJSON *r = member(w, "replicas");
	long long n = r ? (long long)r->valuedouble : 1;
	size_t len = strlen(name) + strlen("-worker-") + (size_t)digits(n - 1);
	if (len > 63)
		return err_set(e, ERR_INPUT, "metadata.name \"%s\" is too long for %lld worker%s: "
			       "Service %s-worker-%lld would have %zu characters, the limit is 63; "
			       "use at most %zu characters", name, n, n == 1 ? "" : "s", name,
			       n - 1, len, 63 - (len - strlen(name)));
	return check_pod_template(member(w, "template"), e);
}

int jaxjob_validate(const cJSON *job, struct err *e)
{
	static const char *const spec_fields[] = { "runPolicy", "jaxReplicaSpecs", NULL };
	if (!cJSON_IsObject(job))
		return err_set(e, ERR_INPUT, "a JAXJob must be a mapping, got %s", type_name(job));
	const cJSON *av = member(job, "apiVersion"), *kind = member(job, "kind");
	if (!cJSON_IsString(av) || strcmp(av->valuestring, JAXJOB_API_VERSION))
		return err_set(e, ERR_INPUT, "apiVersion must be %s, got %s%s%s", JAXJOB_API_VERSION,
			       cJSON_IsString(av) ? "\"" : "", cJSON_IsString(av) ? av->valuestring :
			       type_name(av), cJSON_IsString(av) ? "\"" : "");
	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, JAXJOB_KIND))
		return err_set(e, ERR_INPUT, "kind must be %s, got %s%s%s", JAXJOB_KIND,
			       cJSON_IsString(kind) ? "\"" : "", cJSON_IsString(kind) ?
			       kind->valuestring : type_name(kind), cJSON_IsString(kind) ? "\"" : "");
	if (check_metadata(member(job, "metadata"), e) < 0)
		return -1;
	const cJSON *spec = member(job, "spec");
	if (want("spec", spec, cJSON_IsObject, "a mapping", e) < 0 ||
	    only_fields("spec", spec, spec_fields, e) < 0 ||
	    check_run_policy(member(spec, "runPolicy"), e) < 0)
		return -1;
	const cJSON *specs = member(spec, "jaxReplicaSpecs"), *rs;
	if (want("spec.jaxReplicaSpecs", specs, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	cJSON_ArrayForEach(rs, specs)
		if (strcmp(rs->string, JAXJOB_REPLICA))
			return err_set(e, ERR_INPUT, "spec.jaxReplicaSpecs.%s is not supported: the only "
				       "replica type of a JAXJob is %s", rs->string, JAXJOB_REPLICA);
	const char *name = jaxjob_name(job);
	return check_worker(name, member(specs, JAXJOB_REPLICA), e);
}

/* ---- accessors ------------------------------------------------------------ */

const char *jaxjob_name(const cJSON *job)
{
	const cJSON *n = member(member(job, "metadata"), "name");
	return cJSON_IsString(n) ? n->valuestring : NULL;
}

const char *jaxjob_namespace(const cJSON *job)
{
	const cJSON *n = member(member(job, "metadata"), "namespace");
	return cJSON_IsString(n) ? n->valuestring : NULL;
}

const cJSON *jaxjob_worker_spec(const cJSON *job)
{
	return member(member(member(job, "spec"), "jaxReplicaSpecs"), JAXJOB_REPLICA);
}

int jaxjob_workers(const cJSON *job)
{
	const cJSON *w = jaxjob_worker_spec(job);
	const cJSON *r = member(w, "replicas");
	if (!w)
		return -1;
	if (!cJSON_IsNumber(r))
		return 1;
	return r->valuedouble >= 0 && r->valuedouble <= 2147483647.0 ? (int)r->valuedouble : -1;
}

const cJSON *jaxjob_container(const cJSON *job)
{
	const cJSON *spec = member(member(jaxjob_worker_spec(job), "template"), "spec"), *c;
	cJSON_ArrayForEach(c, member(spec, "containers")) {
		const cJSON *n = member(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, JAXJOB_CONTAINER))
			return c;
	}
	return NULL;
}

int jaxjob_coordinator_port(const cJSON *job)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, member(jaxjob_container(job), "ports")) {
		const cJSON *n = member(p, "name"), *port = member(p, "containerPort");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, JAXJOB_PORT_NAME) &&
		    cJSON_IsNumber(port) && port->valuedouble >= 1 && port->valuedouble <= 65535)
			return (int)port->valuedouble;
	}
	return JAXJOB_DEFAULT_PORT;
}

void jaxjob_worker_name(const char *job_name, int i, struct buf *out)
{
	buf_addf(out, "%s-worker-%d", job_name, i);
}
