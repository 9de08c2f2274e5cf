/*
 * launch_identity.h - who launched a JAXJob, so that a retried step
 * re-attaches to its own job instead of creating a second one.
 *
 * A pipeline step can run more than once for one logical launch: Argo's
 * retryStrategy starts a new pod, a preempted node restarts the step, KFP
 * retries a task. Each attempt renders the same job name. Creating it again
 * gives 409 AlreadyExists; the question is then "is that job ours?".
 *
 * The identity answers it. It is a hash over what stays the same across the
 * attempts of one step of one pipeline run and differs between runs. The
 * run, first found wins:
 *
 *   --identity VALUE       explicit
 *   --run-id VALUE         given as an input: KFP's whole-value placeholder
 *                          dsl.PIPELINE_JOB_ID_PLACEHOLDER, Argo's
 *                          {{workflow.uid}}
 *   KFP_RUN_ID             KFP run id, when the pipeline maps the pod label
 *                          pipeline/runid into the env (use_field_path_as_env)
 *   ARGO_WORKFLOW_UID      only when the template passes {{workflow.uid}}:
 *                          Argo never sets it in the main container
 *   ARGO_WORKFLOW_NAME     set by Argo in the main container only from
 *                          v4.1.0 (KFP bundles v4.0.8: never there)
 *
 * mixed with the task (--task-name, --task-id: KFP's PIPELINE_TASK_NAME /
 * PIPELINE_TASK_ID placeholders, or an Argo DAG task name), the namespace and
 * the job name (which also tells two steps of one run apart). Per-attempt
 * values (ARGO_NODE_ID, KFP_POD_NAME, KFP_POD_UID, KFP_RETRY_INDEX and the
 * pod name change with every retry) are deliberately NOT part of the hash;
 * the pod name is recorded in an annotation for people, not compared.
 *
 * --name-prefix P names the job P-<10 hex> from the same run and task (not
 * the namespace): the name is unique per run and stable across retries,
 * without string concatenation in the pipeline, which KFP does not do for
 * placeholders (it substitutes them only as a whole value).
 *
 * Outside any pipeline (a laptop run) there is nothing stable to hash: the
 * identity is made unique to this process and `adoptable` is 0, so an
 * existing job of the same name is always refused, never taken over.
 *
 * The job carries the hash as label `jaxjob.dev/launch-id` (32 hex chars, a
 * valid label value, selectable) and the human-readable source as annotation
 * `jaxjob.dev/launch-source`.
 *
 * Ownership: struct launch_identity is plain storage, nothing to free.
 */
#ifndef JAXJOB_LAUNCH_IDENTITY_H
#define JAXJOB_LAUNCH_IDENTITY_H

#include <cJSON.h>

#include "err.h"

#define LAUNCH_ID_LABEL "jaxjob.dev/launch-id"
#define LAUNCH_SOURCE_ANNOTATION "jaxjob.dev/launch-source"
#define LAUNCH_POD_ANNOTATION "jaxjob.dev/launcher-pod"

/* What identifies the step within its run, from the command line (NULL = not given). */
struct launch_task {
	const char *run_id;	/* --run-id */
	const char *task_name;	/* --task-name */
	const char *task_id;	/* --task-id */
};

struct launch_identity {
	char id[33];		/* 32 lower-case hex chars of sha256 + NUL */
	char source[256];	/* e.g. "argo workflow train-x7k2p" (no secrets) */
	char pod[254];		/* our pod name ($HOSTNAME) or "" */
	int adoptable;		/* 1 when a job with this id may be re-attached */
};

/*
 * Derive the identity of this launch. `flag` is --identity (or NULL); the
 * environment is read with getenv(), and the run and task given on the
 * command line (`task` may be NULL). `ns` and `name` are the job's
 * namespace and name (name may be NULL for generateName jobs).
 */
int launch_identity_derive_task(const char *flag, const struct launch_task *task,
				const char *ns, const char *name,
				struct launch_identity *id, struct err *e);

#define LAUNCH_NAME_SUFFIX_HEX 10
#define LAUNCH_NAME_PREFIX_MAX (63 - 1 - LAUNCH_NAME_SUFFIX_HEX)

/*
 * The job name for --name-prefix: "<prefix>-<10 hex>" from a hash of the
 * run and the task (the sources above). No run to hash (a laptop run without
 * --identity or --run-id) is an error: the name would not be stable.
 * `out` holds at least 64 bytes.
 */
int launch_identity_name(const char *prefix, const char *flag, const struct launch_task *task,
			 char *out, size_t outsz, struct err *e);

/*
 * A "{{...}}" in the value of --FLAG: a pipeline placeholder nobody filled
 * in (KFP fills one only when it is a whole input). 0, or -1 with `e` set.
 */
int launch_identity_unfilled(const char *flag, const char *v, struct err *e);

/*
 * After all of launch's flags: --identity, the task (--run-id, --task-name,
 * --task-id) and --name-prefix carry no unfilled placeholder, and a
 * --name-prefix becomes the job's name parameter in `params` (launch_opts.c).
 */
int launch_identity_flags(cJSON *params, const char *identity, const struct launch_task *task,
			  const char *prefix, struct err *e);

/* Add the label and annotations to `job` (metadata is created if missing). */
void launch_identity_stamp(cJSON *job, const struct launch_identity *id);

/* The launch-id label of an object, or NULL. Points into `job`. */
const char *launch_identity_of(const cJSON *job);

/* 1 when `job` carries exactly our id. */
int launch_identity_matches(const cJSON *job, const struct launch_identity *id);

#endif
