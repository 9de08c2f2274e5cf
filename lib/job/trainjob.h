/*
 * trainjob.h - the TrainJob (trainer.kubeflow.org/v1alpha1, Kubeflow
 * Trainer v2) model: constants, accessors, and trainjob_validate(), which
 * mirrors the TrainJob CRD of Trainer v2.3.0 and the admission checks a
 * TrainJob meets on its way to pods (../shared/reference/jaxjob-api.md §8):
 *
 *  - apiVersion trainer.kubeflow.org/v1alpha1, kind TrainJob;
 *  - metadata.name an RFC 1035 label of at most 63 characters (the CRD's
 *    CEL rules), namespace a DNS-1123 label, labels and annotations;
 *  - the JobSet trap: the TrainJob is accepted, but the JobSet webhook then
 *    refuses a JobSet whose longest pod name `{name}-node-0-{N-1}-abcde`
 *    exceeds 63 characters, and the job waits forever with only an event.
 *    We refuse such names up front and say how long the name may be;
 *  - spec.runtimeRef required: name 1-253 characters, apiGroup
 *    trainer.kubeflow.org, kind ClusterTrainingRuntime or TrainingRuntime
 *    (the webhook's "unsupported runtime");
 *  - spec.trainer: numNodes >= 1, numProcPerNode >= 1 (int32), image at most
 *    500 characters, command/args lists of at most 128 strings, env at most
 *    128 EnvVars, resourcesPerNode a mapping of limits/requests/claims;
 *  - suspend a boolean, activeDeadlineSeconds >= 1, managedBy one of the two
 *    values the CRD allows, runtimePatches at most 16 entries with distinct
 *    non-empty managers;
 *  - unknown fields in spec, runtimeRef, trainer and runtimePatches entries
 *    are typos (the server would drop them).
 *
 * The first problem is reported, naming the JSON path and the value;
 * `status` is ignored, so objects read back from a cluster validate too.
 *
 * trainjob_tidy() is for templates (see templates/trainjob.yaml): a
 * runtime patch lists the replicated job `node` and its container `node`
 * by name, and when no pod parameter is set those items are left holding
 * nothing but their names. Such an item patches nothing, so tidy removes it,
 * then the blocks it empties, then our own patch entry if it is left with
 * only its manager.
 *
 * Ownership: accessors return pointers into the caller's tree; tidy edits
 * it in place.
 */
#ifndef JAXJOB_TRAINJOB_H
#define JAXJOB_TRAINJOB_H

#include <cJSON.h>

#include "buf.h"
#include "err.h"

#define TRAINJOB_GROUP "trainer.kubeflow.org"
#define TRAINJOB_API_VERSION "trainer.kubeflow.org/v1alpha1"
#define TRAINJOB_KIND "TrainJob"
#define TRAINJOB_PLURAL "trainjobs"
#define TRAINJOB_REPLICATED_JOB "node"	/* the trainer step of the JAX runtime */
#define TRAINJOB_CONTAINER "node"
#define TRAINJOB_DEFAULT_RUNTIME "jax-distributed"
#define TRAINJOB_CLUSTER_RUNTIME "ClusterTrainingRuntime"
#define TRAINJOB_NS_RUNTIME "TrainingRuntime"
/* the manager of the runtime patch our template writes */
#define TRAINJOB_PATCH_MANAGER "jaxjob.dev/params"
#define TRAINJOB_MAX_ITEMS 128	/* command, args, env */
#define TRAINJOB_MAX_IMAGE 500
#define TRAINJOB_MAX_PATCHES 16

int trainjob_validate(const cJSON *job, struct err *e);

/* Remove what a rendered runtime patch holds only by name (see above). */
void trainjob_tidy(cJSON *job);

/* spec.runtimeRef.name, or NULL. */
const char *trainjob_runtime_name(const cJSON *job);
/* spec.runtimeRef.kind, or ClusterTrainingRuntime (the API's default). */
const char *trainjob_runtime_kind(const cJSON *job);
/*
 * spec.trainer.numNodes; 1 when unset (the jax-distributed runtime's
 * mlPolicy.numNodes: another runtime may say otherwise), -1 when out of
 * int range (validate first).
 */
int trainjob_nodes(const cJSON *job);
/*
 * struct jobapi's worker_counts: replicas is spec.trainer.numNodes (0 when
 * unset: the runtime decides); the status counts child Jobs, not pods, so
 * the rest stay 0 and it returns 0.
 */
struct jobapi_workers;
int trainjob_worker_counts(const cJSON *job, struct jobapi_workers *w);
/*
 * Characters the JobSet adds to the TrainJob name in the longest pod name
 * for `nodes` nodes: "-node-0-{nodes-1}-abcde".
 */
int trainjob_name_overhead(int nodes);
/* "{name}-node-0-{i}": the pod's hostname (its name has 6 more characters). */
void trainjob_node_name(const char *job_name, int i, struct buf *out);

#endif
