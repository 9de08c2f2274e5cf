/*
 * trainjob.c - see trainjob.h. Validation walks top-down like jaxjob.c, so
 * the first error is the most basic one; the checks themselves are jcheck's.
 */
#include "trainjob.h"

#include <stdio.h>
#include <string.h>

#include "jcheck.h"
#include "jobapi.h"

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

static int check_runtime_ref(const cJSON *ref, struct err *e)
{
	static const char *const fields[] = { "name", "apiGroup", "kind", NULL };
	static const char *const kinds[] = { TRAINJOB_CLUSTER_RUNTIME, TRAINJOB_NS_RUNTIME, NULL };
	static const char *const groups[] = { TRAINJOB_GROUP, NULL };
	const char *p = "spec.runtimeRef";
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

static int check_resources(const cJSON *r, struct err *e)
{
	static const char *const fields[] = { "limits", "requests", "claims", NULL };
	const char *p = "spec.trainer.resourcesPerNode";
	if (!r)
		return 0;
	if (jcheck_want(p, r, cJSON_IsObject, "a mapping", e) < 0 ||
	    jcheck_only_fields(p, r, fields, e) < 0 ||
	    check_quantities("spec.trainer.resourcesPerNode.limits", jcheck_member(r, "limits"), e) < 0 ||
	    check_quantities("spec.trainer.resourcesPerNode.requests", jcheck_member(r, "requests"),
			     e) < 0)
		return -1;
	const cJSON *claims = jcheck_member(r, "claims");
	if (claims && jcheck_want("spec.trainer.resourcesPerNode.claims", claims, cJSON_IsArray,
				  "a list", e) < 0)
		return -1;
	return 0;
}

static int check_trainer(const cJSON *t, struct err *e)
{
	static const char *const fields[] = {
		"image", "command", "args", "env", "numNodes", "numProcPerNode",
		"resourcesPerNode", NULL
	};
	const char *p = "spec.trainer";
	if (!t)
		return 0;
	if (jcheck_want(p, t, cJSON_IsObject, "a mapping", e) < 0 ||
	    jcheck_only_fields(p, t, fields, e) < 0 ||
	    jcheck_string("spec.trainer.image", jcheck_member(t, "image"), 1, TRAINJOB_MAX_IMAGE,
			  e) < 0 ||
	    jcheck_strings("spec.trainer.command", jcheck_member(t, "command"), TRAINJOB_MAX_ITEMS,
			   e) < 0 ||
	    jcheck_strings("spec.trainer.args", jcheck_member(t, "args"), TRAINJOB_MAX_ITEMS, e) < 0 ||
	    jcheck_env("spec.trainer.env", jcheck_member(t, "env"), TRAINJOB_MAX_ITEMS, e) < 0 ||
	    jcheck_int("spec.trainer.numNodes", jcheck_member(t, "numNodes"), 1, JCHECK_I32MAX,
		       e) < 0 ||
	    jcheck_int("spec.trainer.numProcPerNode", jcheck_member(t, "numProcPerNode"), 1,
		       JCHECK_I32MAX, e) < 0)
		return -1;
	return check_resources(jcheck_member(t, "resourcesPerNode"), e);
}

static int check_patches(const cJSON *list, struct err *e)
{
	static const char *const fields[] = { "manager", "time", "trainingRuntimeSpec", NULL };
	const cJSON *it;
	char p[64], q[96];
	int i = 0;
	if (!list)
		return 0;
	if (jcheck_want("spec.runtimePatches", list, cJSON_IsArray, "a list", e) < 0)
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
	}
	return 0;
}

static int check_spec(const cJSON *spec, struct err *e)
{
	static const char *const fields[] = {
		"runtimeRef", "initializer", "trainer", "runtimePatches", "suspend",
		"activeDeadlineSeconds", "managedBy", NULL
	};
	static const char *const managers[] = {
		"trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue", NULL
	};
	static const char *const init_fields[] = { "dataset", "model", NULL };
	if (jcheck_want("spec", spec, cJSON_IsObject, "a mapping", e) < 0 ||
	    jcheck_only_fields("spec", spec, fields, e) < 0 ||
	    check_runtime_ref(jcheck_member(spec, "runtimeRef"), e) < 0 ||
	    check_trainer(jcheck_member(spec, "trainer"), e) < 0 ||
	    check_patches(jcheck_member(spec, "runtimePatches"), e) < 0 ||
	    jcheck_int("spec.activeDeadlineSeconds", jcheck_member(spec, "activeDeadlineSeconds"), 1,
		       JCHECK_JSON_INT_MAX, e) < 0 ||
	    jcheck_enum("spec.managedBy", jcheck_member(spec, "managedBy"), managers, e) < 0)
		return -1;
	const cJSON *suspend = jcheck_member(spec, "suspend"), *init = jcheck_member(spec, "initializer");
	if (suspend && jcheck_want("spec.suspend", suspend, cJSON_IsBool, "true or false", e) < 0)
		return -1;
	if (init && (jcheck_want("spec.initializer", init, cJSON_IsObject, "a mapping", e) < 0 ||
		     jcheck_only_fields("spec.initializer", init, init_fields, e) < 0))
		return -1;
	return 0;
}

int trainjob_validate(const cJSON *job, struct err *e)
{
	if (jcheck_type(job, TRAINJOB_API_VERSION, TRAINJOB_KIND, e) < 0 ||
	    jcheck_metadata(jcheck_member(job, "metadata"), e) < 0 ||
	    check_spec(jcheck_member(job, "spec"), e) < 0)
		return -1;
	return check_name_length(
		jcheck_member(jcheck_member(job, "metadata"), "name")->valuestring,
		trainjob_nodes(job), e);
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
