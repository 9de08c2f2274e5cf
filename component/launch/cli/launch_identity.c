/*
 * launch_identity.c - see launch_identity.h for what the identity means and
 * why per-attempt values stay out of it.
 */
#include "launch_identity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "digest.h"
#include "job/jobparams.h"
#include "k8sname.h"
#include "kube/kube_clock.h"

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/*
 * The hash input is a list of "key=value\n" lines, so that no combination of
 * values can collide with another by shifting text across a boundary (values
 * holding a newline are rejected by the caller's sources: env values and
 * Kubernetes names cannot be confused that way in practice, and the flag is
 * hashed last).
 */
static void hash_hex(const struct buf *in, char out[33])
{
	char full[65];

	digest_sha256_hex(in->data, in->len, full);
	memcpy(out, full, 32);	/* the first 128 bits */
	out[32] = '\0';
}

/*
 * The run: --run-id, else the pipeline environment. Adds its line to
 * `material` and describes it in `source`; 0 when there is none. The lines
 * for the environment are the ones earlier versions hashed, so a job
 * launched by an older jaxjob is still recognised.
 */
static int run_of(const struct launch_task *t, struct buf *material, char *source, size_t n)
{
	const char *wf_uid = env_nonempty("ARGO_WORKFLOW_UID");
	const char *wf_name = env_nonempty("ARGO_WORKFLOW_NAME");
	const char *kfp_run = env_nonempty("KFP_RUN_ID");

	if (t && t->run_id) {
		buf_addf(material, "run-id=%s\n", t->run_id);
		snprintf(source, n, "run %s", t->run_id);
	} else if (kfp_run) {
		buf_addf(material, "kfp-run=%s\n", kfp_run);
		snprintf(source, n, "kfp run %s", kfp_run);
	} else if (wf_uid) {
		buf_addf(material, "argo-workflow-uid=%s\n", wf_uid);
		snprintf(source, n, "argo workflow %s (uid %s)", wf_name ? wf_name : "?", wf_uid);
	} else if (wf_name) {
		buf_addf(material, "argo-workflow=%s\n", wf_name);
		snprintf(source, n, "argo workflow %s", wf_name);
	} else {
		return 0;
	}
	return 1;
}

/* The task within the run, when given: mixed in after the run. */
static void task_of(const struct launch_task *t, struct buf *material, char *source, size_t n)
{
	size_t len = strlen(source);

	if (!t || (!t->task_name && !t->task_id))
		return;
	if (t->task_name)
		buf_addf(material, "task-name=%s\n", t->task_name);
	if (t->task_id)
		buf_addf(material, "task-id=%s\n", t->task_id);
	if (len < n)
		snprintf(source + len, n - len, " task %s%s%s", t->task_name ? t->task_name : "",
			 t->task_name && t->task_id ? "/" : "", t->task_id ? t->task_id : "");
}

/* The identity inputs are single lines: a newline could shift text between lines. */
static int check_line(const char *flag, const char *v, struct err *e)
{
	if (v && strchr(v, '\n'))
		return err_set(e, ERR_INPUT, "--%s must be one line", flag);
	return 0;
}

static int check_task(const struct launch_task *t, struct err *e)
{
	if (!t)
		return 0;
	if (check_line("run-id", t->run_id, e) || check_line("task-name", t->task_name, e) ||
	    check_line("task-id", t->task_id, e))
		return -1;
	return 0;
}

int launch_identity_derive_task(const char *flag, const struct launch_task *task,
				const char *ns, const char *name,
				struct launch_identity *id, struct err *e)
{
	struct buf m = BUF_INIT;
	const char *host = env_nonempty("HOSTNAME");

	memset(id, 0, sizeof(*id));
	if (flag && !*flag)
		return err_set(e, ERR_INPUT, "--identity must not be empty; "
			       "leave it out to derive it from the pipeline");
	if (check_line("identity", flag, e) || check_task(task, e))
		return -1;
	snprintf(id->pod, sizeof(id->pod), "%s", host ? host : "");
	buf_addf(&m, "namespace=%s\nname=%s\n", ns ? ns : "", name ? name : "");
	if (flag) {
		buf_addf(&m, "identity=%s\n", flag);
		snprintf(id->source, sizeof(id->source), "--identity");
		task_of(task, &m, id->source, sizeof(id->source));
		id->adoptable = 1;
	} else if (run_of(task, &m, id->source, sizeof(id->source))) {
		task_of(task, &m, id->source, sizeof(id->source));
		id->adoptable = 1;
	} else {
		/*
		 * No pipeline around us: unique per process, never adoptable.
		 * The value only needs to differ from any other launch, not to
		 * be secret, so pid + time + host is enough. A task alone says
		 * nothing about the run, so it does not make this adoptable.
		 */
		buf_addf(&m, "local=%s/%ld/%.6f\n", host ? host : "", (long)getpid(),
			 kube_wall_now());
		snprintf(id->source, sizeof(id->source), "local run (no pipeline environment)");
		id->adoptable = 0;
	}
	hash_hex(&m, id->id);
	buf_free(&m);
	return 0;
}

int launch_identity_name(const char *prefix, const char *flag, const struct launch_task *task,
			 char *out, size_t outsz, struct err *e)
{
	struct buf m = BUF_INIT;
	char source[256] = "", hex[33];

	if (check_line("identity", flag, e) || check_task(task, e))
		return -1;
	buf_addf(&m, "name-prefix=%s\n", prefix);
	if (flag && *flag) {
		buf_addf(&m, "identity=%s\n", flag);
	} else if (!run_of(task, &m, source, sizeof(source))) {
		buf_free(&m);
		return err_set(e, ERR_INPUT, "--name-prefix needs the run, to derive a name that "
			       "stays the same across retries: give --run-id (KFP: "
			       "dsl.PIPELINE_JOB_ID_PLACEHOLDER; Argo: {{workflow.uid}}) or "
			       "--identity, or set KFP_RUN_ID; or give --name instead");
	}
	task_of(task, &m, source, sizeof(source));
	hash_hex(&m, hex);
	buf_free(&m);
	snprintf(out, outsz, "%s-%.*s", prefix, LAUNCH_NAME_SUFFIX_HEX, hex);
	return 0;
}

static cJSON *object_child(cJSON *parent, const char *key)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(parent, key);
	if (cJSON_IsObject(c))
		return c;
	if (c)
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
	return cJSON_AddObjectToObject(parent, key);
}

static void set_string(cJSON *obj, const char *key, const char *val)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, val);
}

void launch_identity_stamp(cJSON *job, const struct launch_identity *id)
{
	cJSON *meta = object_child(job, "metadata");
	set_string(object_child(meta, "labels"), LAUNCH_ID_LABEL, id->id);
	cJSON *ann = object_child(meta, "annotations");
	set_string(ann, LAUNCH_SOURCE_ANNOTATION, id->source);
	if (id->pod[0])
		set_string(ann, LAUNCH_POD_ANNOTATION, id->pod);
}

const char *launch_identity_of(const cJSON *job)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, LAUNCH_ID_LABEL);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int launch_identity_matches(const cJSON *job, const struct launch_identity *id)
{
	const char *v = launch_identity_of(job);
	return v && strcmp(v, id->id) == 0;
}

/*
 * A "{{...}}" that reached us was not filled in: KFP substitutes its
 * placeholders only when one is the whole value of an input (driver
 * resolve.go, a switch on the whole string), so f"mnist-{PLACEHOLDER}"
 * arrives literally. Say so instead of a confusing name error later.
 */
int launch_identity_unfilled(const char *flag, const char *v, struct err *e)
{
	if (!v || !strstr(v, "{{"))
		return 0;
	return err_set(e, ERR_INPUT, "--%s \"%.120s\" holds a placeholder nobody filled in: KFP "
		       "fills one only when it is the whole value of an input; pass "
		       "name_prefix=\"...\" and run_id=dsl.PIPELINE_JOB_ID_PLACEHOLDER (each alone) "
		       "instead of building the string in the pipeline", flag, v);
}

/*
 * After all flags: the identity inputs carry no unfilled placeholder, and
 * --name-prefix becomes the job name (the name parameter), derived from the
 * run and the task (launch_identity_name).
 */
int launch_identity_flags(cJSON *params, const char *identity, const struct launch_task *task,
			  const char *prefix, struct err *e)
{
	const cJSON *given = cJSON_GetObjectItemCaseSensitive(params, "name");
	char name[80];

	if (launch_identity_unfilled("identity", identity, e) || launch_identity_unfilled("run-id", task->run_id, e) ||
	    launch_identity_unfilled("task-name", task->task_name, e) || launch_identity_unfilled("task-id", task->task_id, e) ||
	    launch_identity_unfilled("name-prefix", prefix, e))
		return -1;
	if (!prefix)
		return 0;
	if (cJSON_IsString(given) && *given->valuestring)
		return err_set(e, ERR_INPUT, "both --name and --name-prefix are given; keep one "
			       "(--name-prefix derives the name from the run)");
	if (k8s_check_dns1035("--name-prefix", prefix, e) < 0)
		return -1;
	if (strlen(prefix) > LAUNCH_NAME_PREFIX_MAX)
		return err_set(e, ERR_INPUT, "--name-prefix \"%s\" is %zu characters; at most %d "
			       "fit before the -<%d hex> suffix (fewer with many workers: "
			       "{name}-worker-{N-1} must fit in 63)", prefix,
			       strlen(prefix), LAUNCH_NAME_PREFIX_MAX, LAUNCH_NAME_SUFFIX_HEX);
	if (launch_identity_name(prefix, identity, task, name, sizeof(name), e) < 0)
		return -1;
	return jobparams_set_text(params, jobparams_find("name"), name, e);
}
