/*
 * health.c - judge JAXJob and TrainJob objects exactly like our Lua checks.
 *
 * The code follows the Lua scripts line for line, and reads the tree the way
 * the Lua sandbox receives it: a JSON null is an absent value (gopher-lua drops
 * nil map values and array items), objects and arrays are both "tables",
 * and a field read on anything but an object gives nothing. Counts are
 * trusted only as integers in [0, 2^31-1]: outside that range gopher-lua,
 * C Lua and printf would print them differently. See health.h for the API.
 */
#include <string.h>

#include "health.h"

/* A value Lua sees as a table. */
static bool is_table(const cJSON *v)
{
	return v && (cJSON_IsObject(v) || cJSON_IsArray(v));
}

/* t[key] as Lua sees it: NULL unless t is an object holding a non-null key. */
static const cJSON *get(const cJSON *t, const char *key)
{
	const cJSON *v;

	if (!t || !cJSON_IsObject(t))
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(t, key);
	if (!v || cJSON_IsNull(v))
		return NULL;
	return v;
}

static bool str_is(const cJSON *v, const char *s)
{
	return v && cJSON_IsString(v) && v->valuestring && !strcmp(v->valuestring, s);
}

/* The Lua scripts' count(): a replica count or generation, else -1. */
static long count(const cJSON *v)
{
	double d;

	if (!v || !cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!(d >= 0 && d <= 2147483647.0))	/* also false for NaN */
		return -1;
	if ((double)(long)d != d)
		return -1;
	return (long)d;
}

/* The condition's message, else its reason, else `fallback`. */
static void cond_text(const cJSON *cond, const char *fallback, struct buf *out)
{
	const cJSON *m = get(cond, "message"), *r = get(cond, "reason");

	if (m && cJSON_IsString(m) && m->valuestring && *m->valuestring)
		buf_adds(out, m->valuestring);
	else if (r && cJSON_IsString(r) && r->valuestring && *r->valuestring)
		buf_adds(out, r->valuestring);
	else
		buf_adds(out, fallback);
}

static void set(struct health_result *out, enum health_status s, const char *msg)
{
	out->status = s;
	buf_adds(&out->message, msg);
}

/* A verdict whose message comes from a condition (see cond_text). */
static void from_cond(struct health_result *out, enum health_status s,
		      const cJSON *cond, const char *fallback)
{
	out->status = s;
	cond_text(cond, fallback, &out->message);
}

/*
 * The first condition with status "True" of each type we know, in list
 * order (never "the last one": the operator re-appends changed conditions
 * and keeps Running=False and Suspended=False around). The order of the
 * types is the precedence of the phase shown by launch (phase_of).
 */
enum cond_type { C_FAILED, C_SUCCEEDED, C_COMPLETE, C_SUSPENDED, C_RESTARTING,
		 C_RUNNING, C_CREATED, C_NTYPES };
static const char *const cond_names[C_NTYPES] = {
	"Failed", "Succeeded", "Complete", "Suspended", "Restarting", "Running",
	"Created",
};

struct cond_scan {
	int tables;			/* entries that are tables (Lua's `seen`) */
	const cJSON *is_true[C_NTYPES];
	const cJSON *created_false;	/* first Created=False (TrainJob) */
	long observed;			/* max observedGeneration, -1 if none */
};

static void scan_conditions(const cJSON *status, struct cond_scan *sc)
{
	const cJSON *conds = get(status, "conditions"), *c;

	memset(sc, 0, sizeof(*sc));
	sc->observed = -1;
	if (!is_table(conds))
		return;
	/* Lua's ipairs over an object visits nothing; over an array, the
	 * non-null items (gopher-lua drops nulls when it builds the table). */
	if (!cJSON_IsArray(conds))
		return;
	cJSON_ArrayForEach(c, conds) {
		if (!is_table(c))
			continue;
		sc->tables++;
		const cJSON *type = get(c, "type"), *st = get(c, "status");
		if (type && cJSON_IsString(type) && type->valuestring) {
			if (str_is(st, "True")) {
				for (int i = 0; i < C_NTYPES; i++)
					if (!strcmp(type->valuestring, cond_names[i]) && !sc->is_true[i])
						sc->is_true[i] = c;
			} else if (!strcmp(type->valuestring, "Created") && str_is(st, "False") &&
				   !sc->created_false) {
				sc->created_false = c;
			}
		}
		long og = count(get(c, "observedGeneration"));
		if (og >= 0 && og > sc->observed)
			sc->observed = og;
	}
}

/* The lifecycle flags of health.h; `success` is Succeeded or Complete. */
static void lifecycle(const struct cond_scan *sc, enum cond_type success,
		      struct health_result *out)
{
	out->failed = sc->is_true[C_FAILED] != NULL;
	out->succeeded = !out->failed && sc->is_true[success];
	out->terminal = out->failed || out->succeeded;
	out->suspended = !out->terminal && sc->is_true[C_SUSPENDED];
}

/*
 * A job Kueue holds carries the label kueue.x-k8s.io/queue-name (its
 * LocalQueue) on itself: suspended with it means queued for admission,
 * without it someone suspended the job. The status is Suspended either way
 * (as for a suspended batch/v1 Job, whoever suspended it;
 * health-checks/README.md argues it); the message says which.
 */
static const char *kueue_queue(const cJSON *obj)
{
	const cJSON *q = get(get(get(obj, "metadata"), "labels"), "kueue.x-k8s.io/queue-name");

	return q && cJSON_IsString(q) && q->valuestring && *q->valuestring ? q->valuestring : NULL;
}

/* Suspended: queued by Kueue, or suspended by someone (the condition's text). */
static void suspended(struct health_result *out, const cJSON *obj, const cJSON *cond,
		      const char *fallback)
{
	const char *q = kueue_queue(obj);

	if (!q) {
		from_cond(out, HEALTH_SUSPENDED, cond, fallback);
		return;
	}
	out->status = HEALTH_SUSPENDED;
	buf_addf(&out->message, "Queued by Kueue in LocalQueue %s: suspended until admitted", q);
}

static bool deleting(const cJSON *obj)
{
	return get(get(obj, "metadata"), "deletionTimestamp") != NULL;
}

/* "N/M workers active" for a running JAXJob (see health.lua). */
static void jaxjob_running(const cJSON *obj, const cJSON *status,
			   const cJSON *running, struct buf *out)
{
	const cJSON *ws = get(get(status, "replicaStatuses"), "Worker");
	const cJSON *wspec = get(get(get(obj, "spec"), "jaxReplicaSpecs"), "Worker");
	long n, m = -1;

	if (!is_table(ws)) {
		cond_text(running, "JAXJob is running", out);
		return;
	}
	n = count(get(ws, "active"));
	if (n < 0)
		n = 0;		/* the operator omits a count of 0 */
	if (is_table(wspec)) {
		const cJSON *r = get(wspec, "replicas");
		m = r ? count(r) : 1;	/* operator default: 1 */
	}
	if (m >= 0)
		buf_addf(out, "%ld/%ld workers active", n, m);
	else
		buf_addf(out, "%ld workers active", n);
}

static void judge_jaxjob(const cJSON *obj, const struct cond_scan *scp,
			 struct health_result *out)
{
	const cJSON *status = get(obj, "status");
	const struct cond_scan sc = *scp;

	lifecycle(&sc, C_SUCCEEDED, out);

	if (out->deleting) {
		set(out, HEALTH_PROGRESSING, "Pending deletion");
	} else if (sc.tables == 0) {
		set(out, HEALTH_PROGRESSING,
		    "Waiting for JAXJob to be accepted by the training operator");
	} else if (out->failed) {
		from_cond(out, HEALTH_DEGRADED, sc.is_true[C_FAILED], "JAXJob failed");
	} else if (out->succeeded) {
		from_cond(out, HEALTH_HEALTHY, sc.is_true[C_SUCCEEDED], "JAXJob succeeded");
	} else if (out->suspended) {
		suspended(out, obj, sc.is_true[C_SUSPENDED], "JAXJob is suspended");
	} else if (sc.is_true[C_RESTARTING]) {
		from_cond(out, HEALTH_PROGRESSING, sc.is_true[C_RESTARTING], "JAXJob is restarting");
	} else if (sc.is_true[C_RUNNING]) {
		out->status = HEALTH_PROGRESSING;
		jaxjob_running(obj, status, sc.is_true[C_RUNNING], &out->message);
	} else if (sc.is_true[C_CREATED]) {
		from_cond(out, HEALTH_PROGRESSING, sc.is_true[C_CREATED], "JAXJob is created");
	} else {
		set(out, HEALTH_PROGRESSING, "Waiting for JAXJob status");
	}
}

/* Any status.jobsStatus[] entry with active > 0. */
static bool trainjob_active(const cJSON *status)
{
	const cJSON *jobs = get(status, "jobsStatus"), *j;

	if (!cJSON_IsArray(jobs))
		return false;
	cJSON_ArrayForEach(j, jobs)
		if (count(get(j, "active")) > 0)
			return true;
	return false;
}

static void judge_trainjob(const cJSON *obj, const struct cond_scan *scp,
			   struct health_result *out)
{
	const cJSON *status = get(obj, "status"), *cf;
	const struct cond_scan sc = *scp;
	long gen = count(get(get(obj, "metadata"), "generation"));

	lifecycle(&sc, C_COMPLETE, out);
	cf = sc.created_false;

	if (out->deleting) {
		set(out, HEALTH_PROGRESSING, "Pending deletion");
	} else if (!is_table(status)) {
		set(out, HEALTH_PROGRESSING,
		    "Waiting for TrainJob to be accepted by the Trainer controller");
	} else if (out->failed) {
		from_cond(out, HEALTH_DEGRADED, sc.is_true[C_FAILED], "TrainJob failed");
	} else if (out->succeeded) {
		from_cond(out, HEALTH_HEALTHY, sc.is_true[C_COMPLETE], "TrainJob completed");
	} else if (gen >= 0 && sc.observed >= 0 && sc.observed < gen) {
		/* The spec changed (e.g. resumed) and the controller has not
		 * caught up: whatever the conditions say is stale. */
		out->status = HEALTH_PROGRESSING;
		buf_addf(&out->message, "Waiting for the Trainer controller to observe "
			 "generation %ld (observed %ld)", gen, sc.observed);
	} else if (cf && (str_is(get(cf, "reason"), "JobsCreationFailed") ||
			  str_is(get(cf, "reason"), "JobsBuildFailed"))) {
		from_cond(out, HEALTH_DEGRADED, cf, "TrainJob failed to create its jobs");
	} else if (out->suspended) {
		suspended(out, obj, sc.is_true[C_SUSPENDED], "TrainJob is suspended");
	} else {
		set(out, HEALTH_PROGRESSING, trainjob_active(status) ?
		    "TrainJob is running" : "Waiting for TrainJob to start");
	}
}

static bool has_prefix(const cJSON *v, const char *prefix)
{
	return v && cJSON_IsString(v) && v->valuestring &&
	       !strncmp(v->valuestring, prefix, strlen(prefix));
}

static enum health_kind kind_of(const cJSON *obj)
{
	const cJSON *api = get(obj, "apiVersion"), *kind = get(obj, "kind");

	if (str_is(kind, "JAXJob") && has_prefix(api, "kubeflow.org/"))
		return HEALTH_KIND_JAXJOB;
	if (str_is(kind, "TrainJob") && has_prefix(api, "trainer.kubeflow.org/"))
		return HEALTH_KIND_TRAINJOB;
	return HEALTH_KIND_OTHER;
}

static const char *str_or(const cJSON *v, const char *dflt)
{
	return v && cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

/*
 * The phase `jaxjob launch` shows: the first type, in the operators'
 * precedence (cond_names' order), with a condition of status "True".
 */
static const char *phase_of(const struct cond_scan *sc)
{
	for (int i = 0; i < C_NTYPES; i++)
		if (sc->is_true[i])
			return cond_names[i];
	return "Pending";
}

int health_judge(const cJSON *obj, struct health_result *out)
{
	struct cond_scan sc;

	buf_reset(&out->message);
	out->terminal = out->succeeded = out->failed = out->suspended = false;
	out->kind = kind_of(obj);
	out->deleting = deleting(obj);
	scan_conditions(get(obj, "status"), &sc);
	out->phase = phase_of(&sc);

	switch (out->kind) {
	case HEALTH_KIND_JAXJOB:
		judge_jaxjob(obj, &sc, out);
		return 0;
	case HEALTH_KIND_TRAINJOB:
		judge_trainjob(obj, &sc, out);
		return 0;
	case HEALTH_KIND_OTHER:
		break;
	}
	out->status = HEALTH_UNKNOWN;
	if (!obj || !cJSON_IsObject(obj))
		buf_adds(&out->message, "not a Kubernetes object");
	else
		buf_addf(&out->message, "no health check for %s (apiVersion %s); "
			 "jaxjob health judges kubeflow.org JAXJob and "
			 "trainer.kubeflow.org TrainJob",
			 str_or(get(obj, "kind"), "<no kind>"),
			 str_or(get(obj, "apiVersion"), "<none>"));
	return -1;
}

void health_result_free(struct health_result *r)
{
	buf_free(&r->message);
}

const char *health_status_name(enum health_status s)
{
	switch (s) {
	case HEALTH_HEALTHY: return "Healthy";
	case HEALTH_SUSPENDED: return "Suspended";
	case HEALTH_PROGRESSING: return "Progressing";
	case HEALTH_MISSING: return "Missing";
	case HEALTH_DEGRADED: return "Degraded";
	case HEALTH_UNKNOWN: return "Unknown";
	}
	return "Unknown";
}

enum health_status health_worst(enum health_status a, enum health_status b)
{
	return a > b ? a : b;
}
