/*
 * jobapi.h - the job APIs jaxjob speaks, as data: Training Operator v1's
 * JAXJob (kubeflow.org/v1) and Kubeflow Trainer v2's TrainJob
 * (trainer.kubeflow.org/v1alpha1) on the jax-distributed runtime.
 *
 * The same job parameters (lib/job/jobparams.h) become either object through
 * the API's built-in template; everything that differs between the two is a
 * field of struct jobapi, so launch, render and their tests run one flow
 * over both instead of two copies of it:
 *
 *   what                 JAXJob                          TrainJob
 *   template             templates/jaxjob.yaml           templates/trainjob.yaml
 *   validation           jaxjob_validate()               trainjob_validate()
 *   worker pods          training.kubeflow.org/job-name  jobset.sigs.k8s.io/jobset-name
 *                                                        + replicatedjob-name=node
 *   worker index label   training.kubeflow.org/          batch.kubernetes.io/
 *                          replica-index                   job-completion-index
 *   worker container     jax                             node
 *   suspend              spec.runPolicy.suspend          spec.suspend
 *   longest child name   {name}-worker-{N-1} (Service)   {name}-node-0-{N-1}-xxxxx (pod)
 *
 * Each API is one handler, a `const struct jobapi` in its own file
 * (JOBAPI_JAXJOB in jaxjob.c, JOBAPI_TRAINJOB in trainjob.c), listed once in
 * the registry in jobapi.c; the functions below read any handler, so no
 * caller needs to know which kinds exist (docs/architecture.md, "Adding a
 * third job kind").
 *
 * Parameters without a place in an API are refused with the reason (a
 * TrainJob has no restart policy or coordinator port: the runtime decides);
 * jobapi_check_params() says which and why, instead of the template's
 * generic "has no ((placeholder))".
 *
 * Ownership: everything here is static and read-only.
 */
#ifndef JAXJOB_JOBAPI_H
#define JAXJOB_JOBAPI_H

#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "jobapi_handler.h"
#include "kube/kube_client.h"


/* Is `reason` one of `api`'s creation failure event reasons? */
int jobapi_creation_failure(const struct jobapi *api, const char *reason);

/* By name ("jaxjob", "trainjob"), or NULL. */
const struct jobapi *jobapi_find(const char *name);
/* By the object's apiVersion group and kind, or NULL. */
const struct jobapi *jobapi_of(const cJSON *obj);
/* The worker counts of `job` by its own API's rule (all 0 and returns 0
 * for an object of no API); see struct jobapi's worker_counts. */
int jobapi_worker_counts(const cJSON *job, struct jobapi_workers *w);
/* "jaxjob, trainjob" for messages. */
const char *jobapi_names(void);

/*
 * Every parameter set in `params` must have a place in `api`: one the API
 * refuses is an error naming it, the reason, and the other API when that
 * one has it.
 */
int jobapi_check_params(const struct jobapi *api, const cJSON *params, struct err *e);

/*
 * The template for `api`: the file `path`, or the API's built-in template
 * when `path` is NULL. *source (may be NULL) gets its name for messages
 * (`path` or static storage); *out is the caller's.
 */
int jobapi_template(const struct jobapi *api, const char *path, cJSON **out,
		    const char **source, struct err *e);

/* The label selector of the job's worker pods, appended to `out`. */
void jobapi_pod_selector(const struct jobapi *api, const char *job_name, struct buf *out);

/* The suspend flag of `job` (read), or NULL; and a merge patch setting it. */
const cJSON *jobapi_suspend_flag(const struct jobapi *api, const cJSON *job);
cJSON *jobapi_suspend_patch(const struct jobapi *api, int suspend);
/* Remove the suspend flag from `job` (only the key: its parent stays). */
void jobapi_drop_suspend(const struct jobapi *api, cJSON *job);

/*
 * Which API does the cluster serve (--api auto)? Reads the discovery
 * document of each (GET /apis/<group>/<version>, which any authenticated
 * user may read) and looks for the plural there. *out is the only one
 * served or, when both are, JAXJob: the default API and what existing
 * users were written for (say --api trainjob to prefer Trainer v2).
 * Neither served is ERR_NOTFOUND naming both CRDs; any other failure is the
 * request's error. `both` (may be NULL) is set to 1 when both are served.
 */
int jobapi_discover(struct kube_client *c, const struct jobapi **out, int *both,
		    struct err *e);

/*
 * Does the training runtime a TrainJob refers to exist? A TrainJob naming a
 * missing runtime is accepted by the API server and then never gets a
 * status (only an event), so a launcher must ask first. GET of the
 * ClusterTrainingRuntime (or, for kind TrainingRuntime, the TrainingRuntime
 * in `ns`) named by spec.runtimeRef. 0 when it exists or `api` has no
 * runtimes (JAXJob); otherwise -1 with the request's error, where
 * ERR_NOTFOUND gets a message naming the kind, the name and the fix (403
 * stays ERR_AUTH: a launcher without read access to runtimes may go on).
 */
int jobapi_check_runtime(struct kube_client *c, const struct jobapi *api, const cJSON *job,
			 const char *ns, struct err *e);

/* The longest name `api` allows for a job with `workers` workers. */
int jobapi_name_budget(const struct jobapi *api, int workers);

#endif
