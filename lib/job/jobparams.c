/*
 * jobparams.c - see jobparams.h. The table first (it is the documentation),
 * then the value checkers it points to, then set/derive.
 *
 * Item parsers for env, tolerations, volumes and mounts are in
 * jobparams_items.c; this file holds the generic machinery.
 */
#include "jobparams.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "jobparams_items.h"
#include "yj/jtree.h"
#include "parseopt.h"
#include "smap.h"
#include "k8sname.h"
#include "quantity.h"
#include "tmpl.h"
#include "yj/yj.h"

#define I32MAX 2147483647LL
#define JSON_INT_MAX 9007199254740991LL	/* 2^53-1: exact in a double */

/* ---- checkers for one string value --------------------------------------- */

static int check_image(const char *what, const char *s, struct err *e)
{
	if (!*s)
		return err_set(e, ERR_INPUT, "%s must not be empty", what);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return err_set(e, ERR_INPUT, "%s \"%s\" contains whitespace or a control "
				       "character; an image reference is one word like "
				       "ghcr.io/org/jax:1.0", what, s);
	return 0;
}

static int check_nonempty(const char *what, const char *s, struct err *e)
{
	if (!*s)
		return err_set(e, ERR_INPUT, "%s must not be empty", what);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return err_set(e, ERR_INPUT, "%s contains a control character", what);
	return 0;
}

static int check_any(const char *what, const char *s, struct err *e)
{
	(void)what;
	(void)s;
	(void)e;
	return 0;
}

/* Extended resources are whole numbers of devices. */
static int check_count(const char *what, const char *s, struct err *e)
{
	double v;
	if (quantity_parse(what, s, &v, e) < 0)
		return -1;
	if (v > 9.2e18)
		return err_set(e, ERR_INPUT, "%s \"%s\" is too large", what, s);
	if (!jobparams_is_whole(v))
		return err_set(e, ERR_INPUT, "%s \"%s\" must be a whole number: extended "
			       "resources cannot be split", what, s);
	return 0;
}

/* A resource name for --resource: a domain-prefixed qualified name. */
static int check_resource_name(const char *what, const char *s, struct err *e)
{
	if (!strcmp(s, "cpu") || !strcmp(s, "memory"))
		return err_set(e, ERR_INPUT, "%s \"%s\": use the %s parameter for %s", what, s,
			       s, s);
	if (k8s_check_qualified_name(what, s, e) < 0)
		return -1;
	if (!strchr(s, '/'))
		return err_set(e, ERR_INPUT, "%s \"%s\" needs a domain prefix, like "
			       "example.com/%s or nvidia.com/gpu", what, s, s);
	return 0;
}

/*
 * A Kueue LocalQueue name goes into a label value: an object name (DNS-1123
 * subdomain) that also fits a label value's 63 characters.
 */
static int check_local_queue(const char *what, const char *s, struct err *e)
{
	if (k8s_check_subdomain(what, s, e) < 0 || k8s_check_label_value(what, s, e) < 0)
		return -1;
	return 0;
}

/* ---- the table ------------------------------------------------------------- */

static const char *const restart_policies[] = { "Never", "OnFailure", "Always", "ExitCode", NULL };
static const char *const clean_pod_policies[] = { "None", "Running", "All", NULL };
static const char *const pull_policies[] = { "Always", "IfNotPresent", "Never", NULL };
static const char *const runtime_kinds[] = { "ClusterTrainingRuntime", "TrainingRuntime", NULL };

#define P(...) { __VA_ARGS__ }

static const struct jobparam table[] = {
	P(.name = "name", .flag = "name", .type = JP_STRING, .metavar = "NAME", .group = "job",
	  .help = "job name: a DNS-1035 label (lower-case letters, digits, '-'); with N "
		  "workers {name}-worker-{N-1} must fit in 63 characters",
	  .check = k8s_check_dns1035),
	P(.name = "namespace", .flag = "namespace", .type = JP_STRING, .metavar = "NS",
	  .group = "job", .help = "namespace of the job", .check = k8s_check_dns1123_label),
	P(.name = "labels", .flag = "label", .type = JP_MAP, .metavar = "KEY=VALUE",
	  .group = "job", .help = "label of the job and of its pods (repeatable)",
	  .check = k8s_check_label_value, .check_key = k8s_check_qualified_name,
	  .feeds = "job-labels"),
	P(.name = "annotations", .flag = "annotation", .type = JP_MAP, .metavar = "KEY=VALUE",
	  .group = "job", .help = "annotation of the job (repeatable)",
	  .check = check_any, .check_key = k8s_check_qualified_name),
	P(.name = "pod-annotations", .flag = "pod-annotation", .type = JP_MAP,
	  .metavar = "KEY=VALUE", .group = "job",
	  .help = "annotation of the worker pods (repeatable)",
	  .check = check_any, .check_key = k8s_check_qualified_name),
	P(.name = "workers", .flag = "workers", .type = JP_INT, .metavar = "N", .group = "job",
	  .help = "number of workers = JAX processes", .def = "1", .min = 1, .max = 100000),
	P(.name = "restart-policy", .flag = "restart-policy", .type = JP_ENUM,
	  .metavar = "POLICY", .group = "job",
	  .help = "what to do when a worker fails: Never (the job fails), OnFailure, Always, "
		  "ExitCode (retry exit codes >= 128)",
	  .def = "\"Never\"", .choices = restart_policies),

	P(.name = "image", .flag = "image", .type = JP_STRING, .metavar = "IMAGE",
	  .group = "container", .help = "container image of the workers", .check = check_image),
	P(.name = "image-pull-policy", .flag = "image-pull-policy", .type = JP_ENUM,
	  .metavar = "POLICY", .group = "container", .help = "Always, IfNotPresent or Never",
	  .choices = pull_policies),
	P(.name = "command", .flag = "command", .type = JP_LIST, .metavar = "ARG",
	  .group = "container",
	  .help = "container command, replacing the image's entrypoint: one element per "
		  "flag, or a JSON array (`-- cmd args...` sets it too)",
	  .check = check_any),
	P(.name = "args", .flag = "arg", .type = JP_LIST, .metavar = "ARG", .group = "container",
	  .help = "container argument (repeatable, or a JSON array)", .check = check_any),
	P(.name = "env", .flag = "env", .type = JP_OBJLIST, .metavar = "NAME=VALUE",
	  .group = "container",
	  .help = "environment variable (repeatable; or a JSON list of EnvVar objects)",
	  .item_text = jp_env_text, .item_check = jp_env_check, .item_key = "name"),
	P(.name = "coordinator-port", .flag = "coordinator-port", .type = JP_INT,
	  .metavar = "PORT", .group = "container",
	  .help = "port of the JAX coordinator on worker 0 (COORDINATOR_PORT)",
	  .def = "6666", .min = 1, .max = 65535),

	P(.name = "cpu", .flag = "cpu", .type = JP_QUANTITY, .metavar = "QTY",
	  .group = "resources", .help = "CPU per worker, request = limit (e.g. 4, 500m)",
	  .feeds = "resources"),
	P(.name = "memory", .flag = "memory", .type = JP_QUANTITY, .metavar = "QTY",
	  .group = "resources", .help = "memory per worker, request = limit (e.g. 16Gi)",
	  .feeds = "resources"),
	P(.name = "gpus-per-worker", .flag = "gpus-per-worker", .type = JP_INT, .metavar = "N",
	  .group = "resources", .help = "GPUs per worker (of --gpu-resource)",
	  .min = 0, .max = 1024, .feeds = "resources"),
	P(.name = "gpu-resource", .flag = "gpu-resource", .type = JP_STRING, .metavar = "NAME",
	  .group = "resources", .help = "resource name of a GPU (e.g. amd.com/gpu)",
	  .def = "\"nvidia.com/gpu\"", .check = check_resource_name, .feeds = "resources"),
	P(.name = "extended-resources", .flag = "resource", .type = JP_MAP,
	  .metavar = "NAME=COUNT", .group = "resources",
	  .help = "extended resource per worker, e.g. example.com/fpga=1 (repeatable)",
	  .check = check_count, .check_key = check_resource_name, .feeds = "resources"),

	P(.name = "service-account", .flag = "service-account", .type = JP_STRING,
	  .metavar = "NAME", .group = "pod", .help = "service account of the worker pods",
	  .check = k8s_check_subdomain),
	P(.name = "image-pull-secrets", .flag = "image-pull-secret", .type = JP_LIST,
	  .metavar = "NAME", .group = "pod", .help = "secret to pull the image with (repeatable)",
	  .check = k8s_check_subdomain),
	P(.name = "node-selector", .flag = "node-selector", .type = JP_MAP,
	  .metavar = "KEY=VALUE", .group = "pod", .help = "node label the workers need (repeatable)",
	  .check = k8s_check_label_value, .check_key = k8s_check_qualified_name),
	P(.name = "tolerations", .flag = "toleration", .type = JP_OBJLIST,
	  .metavar = "KEY[=VALUE][:EFFECT]", .group = "pod",
	  .help = "toleration, kubectl-like: key=value:NoSchedule, key:NoExecute, key "
		  "(repeatable; or a JSON list)",
	  .item_text = jp_toleration_text, .item_check = jp_toleration_check),
	P(.name = "volumes", .flag = "volume", .type = JP_OBJLIST, .metavar = "NAME=KIND:ARG",
	  .group = "pod",
	  .help = "pod volume: NAME=pvc:CLAIM, NAME=configmap:NAME, NAME=secret:NAME, "
		  "NAME=emptydir[:Memory], NAME=hostpath:/PATH (repeatable; or a JSON list)",
	  .item_text = jp_volume_text, .item_check = jp_volume_check, .item_key = "name"),
	P(.name = "volume-mounts", .flag = "mount", .type = JP_OBJLIST,
	  .metavar = "NAME:/PATH[:ro]", .group = "pod",
	  .help = "mount a volume into the jax container (repeatable; or a JSON list)",
	  .item_text = jp_mount_text, .item_check = jp_mount_check, .item_key = "mountPath"),

	P(.name = "clean-pod-policy", .flag = "clean-pod-policy", .type = JP_ENUM,
	  .metavar = "POLICY", .group = "run policy",
	  .help = "pods to delete when the job ends: None, Running, All",
	  .choices = clean_pod_policies),
	P(.name = "ttl-seconds-after-finished", .flag = "ttl-seconds-after-finished",
	  .type = JP_INT, .metavar = "N", .group = "run policy",
	  .help = "the operator deletes the job N seconds after it finished",
	  .min = 0, .max = I32MAX),
	P(.name = "active-deadline-seconds", .flag = "active-deadline-seconds", .type = JP_INT,
	  .metavar = "N", .group = "run policy",
	  .help = "the operator fails the job after it ran N seconds", .min = 1,
	  .max = JSON_INT_MAX),
	P(.name = "backoff-limit", .flag = "backoff-limit", .type = JP_INT, .metavar = "N",
	  .group = "run policy", .help = "worker restarts before the job fails",
	  .min = 0, .max = I32MAX),
	P(.name = "suspend", .flag = "suspend", .type = JP_BOOL, .metavar = "BOOL",
	  .group = "run policy", .help = "create the job suspended (no pods until resumed)"),

	P(.name = "local-queue", .flag = "local-queue", .type = JP_STRING, .metavar = "NAME",
	  .group = "scheduling",
	  .help = "Kueue: the LocalQueue to submit to, as the label kueue.x-k8s.io/queue-name "
		  "on the job (never on its pods)",
	  .check = check_local_queue, .feeds = "job-labels"),
	P(.name = "queue", .flag = "queue", .type = JP_STRING, .metavar = "NAME",
	  .group = "scheduling",
	  .help = "JAXJob: the Volcano queue of the gang-scheduling PodGroup "
		  "(runPolicy.schedulingPolicy.queue); for Kueue use local-queue (--local-queue)",
	  .check = check_nonempty),
	P(.name = "min-available", .flag = "min-available", .type = JP_INT, .metavar = "N",
	  .group = "scheduling", .help = "gang scheduling: workers that must start together",
	  .min = 1, .max = I32MAX),
	P(.name = "priority-class", .flag = "priority-class", .type = JP_STRING,
	  .metavar = "NAME", .group = "scheduling", .help = "gang scheduling: priority class",
	  .check = k8s_check_subdomain),
	P(.name = "schedule-timeout-seconds", .flag = "schedule-timeout-seconds",
	  .type = JP_INT, .metavar = "N", .group = "scheduling",
	  .help = "gang scheduling: give up scheduling after N seconds", .min = 0, .max = I32MAX),

	P(.name = "runtime", .flag = "runtime", .type = JP_STRING, .metavar = "NAME",
	  .group = "trainjob (--api trainjob)",
	  .help = "the training runtime the TrainJob runs on (spec.runtimeRef.name)",
	  .def = "\"jax-distributed\"", .check = k8s_check_subdomain),
	P(.name = "runtime-kind", .flag = "runtime-kind", .type = JP_ENUM, .metavar = "KIND",
	  .group = "trainjob (--api trainjob)",
	  .help = "ClusterTrainingRuntime (cluster-wide) or TrainingRuntime (in the job's "
		  "namespace)",
	  .def = "\"ClusterTrainingRuntime\"", .choices = runtime_kinds),
	P(.name = "procs-per-node", .flag = "procs-per-node", .type = JP_INT, .metavar = "N",
	  .group = "trainjob (--api trainjob)",
	  .help = "processes per node (trainer.numProcPerNode); the jax-distributed runtime "
		  "runs one JAX process per node and ignores it", .min = 1, .max = I32MAX),
	P(.name = NULL),
};

const struct jobparam *jobparams_all(void)
{
	return table;
}

const struct jobparam *jobparams_find(const char *name)
{
	for (const struct jobparam *p = table; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

const struct jobparam *jobparams_find_flag(const char *flag)
{
	for (const struct jobparam *p = table; p->name; p++)
		if (!strcmp(p->flag, flag))
			return p;
	return NULL;
}

/* ---- typed values from text ---------------------------------------------- */

static void put(cJSON *obj, const char *name, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, name))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, name, v);
	else
		cJSON_AddItemToObject(obj, name, v);
}

static int int_in_range(const struct jobparam *p, long long n, struct err *e)
{
	if (n < p->min)
		return err_set(e, ERR_INPUT, "%s must be at least %lld, got %lld", p->name, p->min, n);
	if (n > p->max)
		return err_set(e, ERR_INPUT, "%s must be at most %lld, got %lld", p->name, p->max, n);
	return 0;
}

static int parse_int(const struct jobparam *p, const char *text, long long *out, struct err *e)
{
	char *end;
	errno = 0;
	long long n = strtoll(text, &end, 10);
	if (end == text || *end || errno == ERANGE || text[0] == ' ')
		return err_set(e, ERR_INPUT, "%s must be a whole number, got \"%s\"", p->name, text);
	*out = n;
	return int_in_range(p, n, e);
}

/* the literals launch's boolean flags take are the parser's (lib/parseopt.h) */
int jobparams_parse_bool(const char *text, int *out)
{
	return parseopt_bool(text, out);
}

static int parse_bool(const struct jobparam *p, const char *text, int *out, struct err *e)
{
	if (jobparams_parse_bool(text, out) < 0)
		return err_set(e, ERR_INPUT, "%s must be true or false, got \"%s\"", p->name, text);
	return 0;
}

static int check_enum(const struct jobparam *p, const char *text, struct err *e)
{
	struct buf all = BUF_INIT;
	const char *near = NULL;
	for (const char *const *c = p->choices; *c; c++)
		if (!strcmp(*c, text))
			return 0;
	for (const char *const *c = p->choices; *c; c++) {
		if (!strcasecmp(*c, text))
			near = *c;
		buf_addf(&all, "%s%s", all.len ? ", " : "", *c);
	}
	if (near)
		err_set(e, ERR_INPUT, "%s \"%s\" is not valid; did you mean %s? (one of %s)",
			p->name, text, near, all.data);
	else
		err_set(e, ERR_INPUT, "%s \"%s\" is not valid; use one of %s", p->name, text,
			all.data);
	buf_free(&all);
	return -1;
}

/* Text of a scalar from a job file (args: [--steps, 100] has a number). */
static int scalar_text(const char *what, const cJSON *v, struct buf *out, struct err *e)
{
	if (cJSON_IsString(v))
		buf_adds(out, v->valuestring);
	else if (cJSON_IsBool(v))
		buf_adds(out, cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v))
		jtree_number_text(v, JTREE_NUM_TEXT, out);	/* as written: cpu: 0.1 is 0.1 */
	else
		return err_set(e, ERR_INPUT, "%s must be a string, got a %s", what,
			       cJSON_IsArray(v) ? "list" : cJSON_IsObject(v) ? "mapping" : "null");
	return 0;
}

/*
 * A number for a number parameter: its value, as Kubernetes' reader makes
 * it (workers: 0x10 is 16, 017 is 15, 1_000 is 1000; yj_scalar.c). A
 * quantity written in decimal keeps its spelling (cpu: 0.1 stays 0.1, never
 * 0.10000000000000001; 1e3 stays 1e3, a valid quantity); hex, octal, binary
 * and '_' spellings are no quantity text and give the value.
 */
static void number_value_text(const struct jobparam *p, const cJSON *v, struct buf *out)
{
	const char *t = v->valuestring;
	if (p->type == JP_QUANTITY && t && !strpbrk(t, "xXoObB_") &&
	    !(t[strspn(t, "+-")] == '0' && isdigit((unsigned char)t[strspn(t, "+-") + 1])) &&
	    strtod(t, NULL) == v->valuedouble) {
		buf_adds(out, t);
		return;
	}
	jtree_number_text(v, JTREE_NUM_YAML, out);
}

/*
 * JSON given as text (a flag value). Parsed by yj, which is what bounds
 * size and depth for every input of the program (YJ_MAX_DEPTH), so a value
 * can never make a manifest deeper than the emitters accept.
 */
static int parse_json(const char *what, const char *text, cJSON **out, struct err *e)
{
	*out = NULL;
	if (yj_parse_one(text, strlen(text), what, out, e) < 0)
		return -1;
	if (!*out)
		return err_set(e, ERR_INPUT, "%s: no value in \"%s\"", what, text);
	return 0;
}

/* Add one K=V to a mapping parameter. */
static int map_add_text(cJSON *params, const struct jobparam *p, const char *text,
			struct err *e)
{
	const char *eq = strchr(text, '=');
	if (!eq || eq == text)
		return err_set(e, ERR_INPUT, "%s \"%s\" must look like %s", p->name, text, p->metavar);
	char *key = xstrndup(text, (size_t)(eq - text));
	struct buf what = BUF_INIT;
	buf_addf(&what, "%s key", p->name);
	int rc = p->check_key(what.data, key, e);
	buf_reset(&what);
	buf_addf(&what, "%s %s", p->name, key);
	if (rc == 0)
		rc = p->check(what.data, eq + 1, e);
	if (rc == 0) {
		cJSON *map = cJSON_GetObjectItemCaseSensitive(params, p->name);
		if (!cJSON_IsObject(map)) {
			map = cJSON_CreateObject();
			put(params, p->name, map);
		}
		put(map, key, cJSON_CreateString(eq + 1));
	}
	buf_free(&what);
	free(key);
	return rc;
}

/* Append, or replace the item with the same key member (env by name). */
static void objlist_upsert(cJSON *list, const struct jobparam *p, cJSON *item)
{
	const cJSON *k = p->item_key ? cJSON_GetObjectItemCaseSensitive(item, p->item_key) : NULL;
	cJSON *old;
	cJSON_ArrayForEach(old, list) {
		const cJSON *ok = k ? cJSON_GetObjectItemCaseSensitive(old, p->item_key) : NULL;
		if (ok && jtree_equal(ok, k)) {
			cJSON_ReplaceItemViaPointer(list, old, item);
			return;
		}
	}
	cJSON_AddItemToArray(list, item);
}

static cJSON *list_of(cJSON *params, const struct jobparam *p)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(params, p->name);
	if (!cJSON_IsArray(list)) {
		list = cJSON_CreateArray();
		put(params, p->name, list);
	}
	return list;
}

static int set_repeatable_text(cJSON *params, const struct jobparam *p, const char *text,
			       struct err *e)
{
	if (text[0] == '[' || (text[0] == '{' && (p->type == JP_MAP || !strcmp(p->name, "env")))) {
		cJSON *v;
		if (parse_json(p->name, text, &v, e) < 0)
			return -1;
		int rc = jobparams_set_value(params, p, v, e);
		cJSON_Delete(v);
		return rc;
	}
	if (p->type == JP_MAP)
		return map_add_text(params, p, text, e);
	if (p->type == JP_LIST) {
		if (p->check(p->name, text, e) < 0)
			return -1;
		cJSON_AddItemToArray(list_of(params, p), cJSON_CreateString(text));
		return 0;
	}
	cJSON *item = NULL;
	if (p->item_text(p, text, &item, e) < 0)
		return -1;
	objlist_upsert(list_of(params, p), p, item);
	return 0;
}

int jobparams_set_text(cJSON *params, const struct jobparam *p, const char *text,
		       struct err *e)
{
	long long n = 0;
	int b = 0;
	if (!*text) {
		cJSON_DeleteItemFromObjectCaseSensitive(params, p->name);
		return 0;
	}
	switch (p->type) {
	case JP_STRING:
		if (p->check(p->name, text, e) < 0)
			return -1;
		put(params, p->name, cJSON_CreateString(text));
		return 0;
	case JP_INT:
		if (parse_int(p, text, &n, e) < 0)
			return -1;
		put(params, p->name, cJSON_CreateNumber((double)n));
		return 0;
	case JP_BOOL:
		if (parse_bool(p, text, &b, e) < 0)
			return -1;
		put(params, p->name, cJSON_CreateBool(b));
		return 0;
	case JP_ENUM:
		if (check_enum(p, text, e) < 0)
			return -1;
		put(params, p->name, cJSON_CreateString(text));
		return 0;
	case JP_QUANTITY:
		if (quantity_parse(p->name, text, NULL, e) < 0)
			return -1;
		put(params, p->name, cJSON_CreateString(text));
		return 0;
	default:
		return set_repeatable_text(params, p, text, e);
	}
}

/* ---- typed values from job files ----------------------------------------- */

static int set_list_value(cJSON *params, const struct jobparam *p, const cJSON *v,
			  struct err *e)
{
	cJSON *list = cJSON_CreateArray(), *it;
	struct buf s = BUF_INIT, what = BUF_INIT;
	int i = 0;
	cJSON_ArrayForEach(it, v) {
		buf_reset(&s);
		buf_reset(&what);
		buf_addf(&what, "%s[%d]", p->name, i++);
		if (scalar_text(what.data, it, &s, e) < 0 || p->check(what.data, s.data, e) < 0)
			goto fail;
		cJSON_AddItemToArray(list, cJSON_CreateString(s.data));
	}
	put(params, p->name, list);
	buf_free(&s);
	buf_free(&what);
	return 0;
fail:
	cJSON_Delete(list);
	buf_free(&s);
	buf_free(&what);
	return -1;
}

static int set_map_value(cJSON *params, const struct jobparam *p, const cJSON *v,
			 struct err *e)
{
	cJSON *map = cJSON_CreateObject(), *it;
	struct buf s = BUF_INIT, what = BUF_INIT;
	cJSON_ArrayForEach(it, v) {
		buf_reset(&s);
		buf_reset(&what);
		buf_addf(&what, "%s key", p->name);
		if (p->check_key(what.data, it->string, e) < 0)
			goto fail;
		buf_reset(&what);
		buf_addf(&what, "%s %s", p->name, it->string);
		if (scalar_text(what.data, it, &s, e) < 0 || p->check(what.data, s.data, e) < 0)
			goto fail;
		cJSON_AddItemToObject(map, it->string, cJSON_CreateString(s.data));
	}
	put(params, p->name, map);
	buf_free(&s);
	buf_free(&what);
	return 0;
fail:
	cJSON_Delete(map);
	buf_free(&s);
	buf_free(&what);
	return -1;
}

static int set_objlist_value(cJSON *params, const struct jobparam *p, const cJSON *v,
			     struct err *e)
{
	cJSON *list = NULL, *it;
	if (cJSON_IsObject(v) && !strcmp(p->name, "env")) {
		if (jp_env_from_map(v, &list, e) < 0)
			return -1;
	} else {
		list = cJSON_Duplicate(v, 1);
	}
	int i = 0;
	struct smap seen = { 0 };
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsObject(it)) {
			smap_free(&seen);
			cJSON_Delete(list);
			return err_set(e, ERR_INPUT, "%s[%d] must be a mapping", p->name, i);
		}
		if (p->item_check(p, it, e) < 0) {
			smap_free(&seen);
			cJSON_Delete(list);
			return err_prefix(e, "%s[%d]", p->name, i);
		}
		/* string keys (env names) through a hash map: linear in the list */
		const cJSON *b = p->item_key ? cJSON_GetObjectItemCaseSensitive(it, p->item_key) : NULL;
		int dup = cJSON_IsString(b) && smap_get(&seen, b->valuestring);
		for (cJSON *prev = list->child; b && !cJSON_IsString(b) && !dup && prev != it; prev = prev->next)
			dup = jtree_equal(cJSON_GetObjectItemCaseSensitive(prev, p->item_key), b);
		if (dup) {
			err_set(e, ERR_INPUT, "%s: two items have %s \"%s\"", p->name,
				p->item_key, cJSON_IsString(b) ? b->valuestring : "?");
			smap_free(&seen);
			cJSON_Delete(list);
			return -1;
		}
		if (cJSON_IsString(b))
			smap_put(&seen, b->valuestring, (void *)b);
		i++;
	}
	smap_free(&seen);
	put(params, p->name, list);
	return 0;
}

int jobparams_set_value(cJSON *params, const struct jobparam *p, const cJSON *v,
			struct err *e)
{
	if (cJSON_IsNull(v) || cJSON_IsString(v)) {
		cJSON_DeleteItemFromObjectCaseSensitive(params, p->name);
		return cJSON_IsNull(v) ? 0 : jobparams_set_text(params, p, v->valuestring, e);
	}
	int collection = cJSON_IsArray(v) || cJSON_IsObject(v);
	switch (p->type) {
	case JP_LIST:
		if (!cJSON_IsArray(v))
			break;
		return set_list_value(params, p, v, e);
	case JP_MAP:
		if (!cJSON_IsObject(v))
			break;
		return set_map_value(params, p, v, e);
	case JP_OBJLIST:
		if (!cJSON_IsArray(v) && !(cJSON_IsObject(v) && !strcmp(p->name, "env")))
			break;
		return set_objlist_value(params, p, v, e);
	default:
		if (collection)
			break;
		struct buf s = BUF_INIT;
		if (cJSON_IsNumber(v) && (p->type == JP_INT || p->type == JP_QUANTITY))
			number_value_text(p, v, &s);
		else
			scalar_text(p->name, v, &s, e);	/* text: as written (0x1F) */
		int rc = jobparams_set_text(params, p, s.data, e);
		buf_free(&s);
		return rc;
	}
	static const char *const kinds[] = {
		[JP_STRING] = "a string", [JP_INT] = "a whole number", [JP_BOOL] = "true or false",
		[JP_ENUM] = "a string", [JP_QUANTITY] = "a quantity", [JP_LIST] = "a list",
		[JP_MAP] = "a mapping", [JP_OBJLIST] = "a list",
	};
	return err_set(e, ERR_INPUT, "%s must be %s, got a %s", p->name, kinds[p->type],
		       cJSON_IsArray(v) ? "list" : cJSON_IsObject(v) ? "mapping" :
		       cJSON_IsBool(v) ? "boolean" : "number");
}

/* ---- user placeholders ---------------------------------------------------- */

static int check_user_name(const char *name, struct err *e)
{
	const struct jobparam *p = jobparams_find(name);
	char got[TMPL_NAME_MAX + 1];
	struct buf ph = BUF_INIT;
	int optional, ok;
	if (p)
		return err_set(e, ERR_INPUT, "param %s is a built-in parameter; set it with "
			       "--%s", name, p->flag);
	if (!strcmp(name, "resources"))
		return err_set(e, ERR_INPUT, "param resources is derived from cpu, memory, "
			       "gpus-per-worker and extended-resources; set those");
	if (!strcmp(name, "job-labels"))
		return err_set(e, ERR_INPUT, "param job-labels is derived from labels and "
			       "local-queue; set those");
	buf_addf(&ph, "((%s))", name);
	ok = strlen(name) <= TMPL_NAME_MAX && tmpl_is_placeholder(ph.data, got, &optional) &&
	     !optional && !strcmp(got, name);
	buf_free(&ph);
	if (!ok)
		return err_set(e, ERR_INPUT, "param name \"%s\" is not a placeholder name: use "
			       "letters, digits, '_', '-' and '.', starting with a letter", name);
	return 0;
}

int jobparams_set_user_value(cJSON *params, const char *name, const cJSON *v, struct err *e)
{
	if (check_user_name(name, e) < 0)
		return -1;
	put(params, name, cJSON_Duplicate(v, 1));
	return 0;
}

int jobparams_set_user(cJSON *params, const char *arg, struct err *e)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return err_set(e, ERR_INPUT, "param \"%s\" must look like NAME=VALUE "
			       "(or NAME:=JSON for a typed value)", arg);
	int typed = eq[-1] == ':';
	char *name = xstrndup(arg, (size_t)(eq - arg) - (size_t)typed);
	cJSON *v;
	if (typed) {
		struct buf what = BUF_INIT;
		buf_addf(&what, "param %s", name);
		int rc = parse_json(what.data, eq + 1, &v, e);
		buf_free(&what);
		if (rc < 0) {
			free(name);
			return -1;
		}
	} else {
		v = cJSON_CreateString(eq + 1);
	}
	int rc = jobparams_set_user_value(params, name, v, e);
	cJSON_Delete(v);
	free(name);
	return rc;
}

/* ---- template values ------------------------------------------------------ */

/* image-pull-secrets: ["a"] -> [{"name": "a"}] as the pod spec wants. */
static cJSON *name_refs(const cJSON *names)
{
	cJSON *out = cJSON_CreateArray(), *it;
	cJSON_ArrayForEach(it, names) {
		cJSON *ref = cJSON_CreateObject();
		cJSON_AddStringToObject(ref, "name", it->valuestring);
		cJSON_AddItemToArray(out, ref);
	}
	return out;
}

/*
 * The container `resources` block: requests = limits (Guaranteed QoS, and
 * extended resources such as GPUs must have equal requests and limits).
 * null when no resource parameter is set.
 */
static int resources_of(const cJSON *params, cJSON **out, struct err *e)
{
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(params, "cpu");
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(params, "memory");
	const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(params, "gpus-per-worker");
	const cJSON *gres = cJSON_GetObjectItemCaseSensitive(params, "gpu-resource");
	const cJSON *ext = cJSON_GetObjectItemCaseSensitive(params, "extended-resources");
	const char *gpu_name = cJSON_IsString(gres) ? gres->valuestring : "nvidia.com/gpu";
	cJSON *req = cJSON_CreateObject(), *it;
	if (cJSON_IsString(cpu))
		cJSON_AddStringToObject(req, "cpu", cpu->valuestring);
	if (cJSON_IsString(mem))
		cJSON_AddStringToObject(req, "memory", mem->valuestring);
	if (cJSON_IsNumber(gpus) && gpus->valuedouble > 0)
		cJSON_AddNumberToObject(req, gpu_name, gpus->valuedouble);
	cJSON_ArrayForEach(it, ext) {
		if (cJSON_GetObjectItemCaseSensitive(req, it->string)) {
			cJSON_Delete(req);
			return err_set(e, ERR_INPUT, "extended-resources sets %s, which "
				       "gpus-per-worker already sets; use one of them", it->string);
		}
		cJSON_AddStringToObject(req, it->string, it->valuestring);
	}
	if (!req->child) {
		cJSON_Delete(req);
		*out = cJSON_CreateNull();
		return 0;
	}
	*out = cJSON_CreateObject();
	cJSON_AddItemToObject(*out, "limits", cJSON_Duplicate(req, 1));
	cJSON_AddItemToObject(*out, "requests", req);
	return 0;
}

/*
 * The job's own labels: `labels` plus Kueue's queue-name label from
 * local-queue. Kueue reads that label on the job; on pods (with Kueue's pod
 * integration on) it would queue every pod on its own, so the templates put
 * job-labels on metadata and plain labels on the pod templates. null when
 * neither is set.
 */
#define KUEUE_QUEUE_LABEL "kueue.x-k8s.io/queue-name"

static int job_labels_of(const cJSON *params, cJSON **out, struct err *e)
{
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(params, "labels");
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(params, "local-queue");
	const cJSON *had = cJSON_GetObjectItemCaseSensitive(labels, KUEUE_QUEUE_LABEL);

	if (!labels && !q) {
		*out = cJSON_CreateNull();
		return 0;
	}
	if (q && cJSON_IsString(had) && strcmp(had->valuestring, q->valuestring))
		return err_set(e, ERR_INPUT, "labels set %s=%s and local-queue %s; keep "
			       "local-queue only", KUEUE_QUEUE_LABEL, had->valuestring,
			       q->valuestring);
	*out = labels ? cJSON_Duplicate(labels, 1) : cJSON_CreateObject();
	if (q && !had)
		cJSON_AddStringToObject(*out, KUEUE_QUEUE_LABEL, q->valuestring);
	return 0;
}

int jobparams_values(const cJSON *params, cJSON **values_out, struct err *e)
{
	cJSON *values = cJSON_CreateObject(), *res = NULL, *jl = NULL, *it;
	*values_out = NULL;
	for (const struct jobparam *p = table; p->name; p++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, p->name);
		cJSON *out;
		if (v && !strcmp(p->name, "image-pull-secrets"))
			out = name_refs(v);
		else if (v)
			out = cJSON_Duplicate(v, 1);
		else if (p->def)
			out = cJSON_Parse(p->def);
		else
			out = cJSON_CreateNull();
		cJSON_AddItemToObject(values, p->name, out);
	}
	if (resources_of(params, &res, e) < 0 || job_labels_of(params, &jl, e) < 0) {
		cJSON_Delete(res);
		cJSON_Delete(values);
		return -1;
	}
	cJSON_AddItemToObject(values, "resources", res);
	cJSON_AddItemToObject(values, "job-labels", jl);
	cJSON_ArrayForEach(it, params)
		if (!cJSON_GetObjectItemCaseSensitive(values, it->string))
			cJSON_AddItemToObject(values, it->string, cJSON_Duplicate(it, 1));
	*values_out = values;
	return 0;
}

static int was_used(const cJSON *used, const char *name)
{
	return name && cJSON_GetObjectItemCaseSensitive(used, name) != NULL;
}

int jobparams_check_used(const cJSON *params, const cJSON *used, const char *source,
			 struct err *e)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, params) {
		const struct jobparam *p = jobparams_find(it->string);
		if (!p && !was_used(used, it->string))
			return err_set(e, ERR_INPUT, "param %s is set, but %s has no ((%s)) "
				       "placeholder; remove it or fix the name", it->string, source,
				       it->string);
		if (p && !was_used(used, p->name) && !was_used(used, p->feeds)) {
			if (p->feeds)
				return err_set(e, ERR_INPUT, "%s is set, but %s uses neither ((%s)) nor "
					       "((%s)), so it would be ignored", p->name, source,
					       p->name, p->feeds);
			return err_set(e, ERR_INPUT, "%s is set, but %s has no ((%s)) placeholder, "
				       "so it would be ignored", p->name, source, p->name);
		}
	}
	return 0;
}

int jobparams_render(const cJSON *tmpl, const cJSON *params, const char *source,
		     const char *const *known, cJSON **out, struct err *e)
{
	return jobparams_render_owned(cJSON_Duplicate(tmpl, 1), params, source, known, out, e);
}

int jobparams_render_owned(cJSON *doc, const cJSON *params, const char *source,
			   const char *const *known, cJSON **out, struct err *e)
{
	cJSON *values = NULL, *used = cJSON_CreateObject();
	int rc = jobparams_values(params, &values, e);
	if (rc == 0) {
		struct tmpl_ctx ctx = { .source = source, .values = values, .known = known,
					.used = used };
		rc = tmpl_render(doc, &ctx, e);
	}
	if (rc == 0)
		rc = jobparams_check_used(params, used, source, e);
	cJSON_Delete(values);
	cJSON_Delete(used);
	if (rc < 0) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	*out = doc;
	return rc;
}
