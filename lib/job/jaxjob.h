/*
 * jaxjob.h - the JAXJob (kubeflow.org/v1) model: names and constants of the
 * API, accessors for the parts a client needs, and jaxjob_validate(), which
 * mirrors the training operator's validating webhook and CRD schema plus the
 * checks upstream forgot (../shared/reference/jaxjob-api.md §2-3, §9-10):
 *
 *  - apiVersion kubeflow.org/v1, kind JAXJob;
 *  - metadata.name a DNS-1035 label, short enough that the operator's
 *    per-worker Service `{name}-worker-{N-1}` fits in 63 characters (upstream
 *    accepts longer names, then the Services fail and workers hang);
 *    namespace a DNS-1123 label; label keys/values and annotation values;
 *  - spec has only runPolicy and jaxReplicaSpecs; the only replica key is
 *    exactly `Worker` (the webhook sees the un-defaulted object);
 *  - replicas >= 1 (upstream would mark a 0-replica job Succeeded at once);
 *  - restartPolicy in Always|OnFailure|Never|ExitCode, cleanPodPolicy in
 *    All|Running|None (no enum in the CRD: we check);
 *  - a container named `jax`, every container with a name and an image,
 *    every port a containerPort in 1..65535, every volumeMount naming a
 *    volume of the pod;
 *  - runPolicy integers whole and non-negative (activeDeadlineSeconds >= 1),
 *    suspend a boolean; unknown fields in spec/runPolicy/Worker are typos.
 *
 * Errors name the JSON path and the value, e.g.
 *   spec.jaxReplicaSpecs.Worker.replicas must be at least 1, got 0
 * and stop at the first problem (one line for the user). `status` is
 * ignored, so objects read back from a cluster validate too.
 *
 * Ownership: nothing here allocates except jaxjob_worker_name() into the
 * caller's buffer; accessors return pointers into the caller's tree.
 */
#ifndef JAXJOB_JAXJOB_H
#define JAXJOB_JAXJOB_H

#include <cJSON.h>

#include "buf.h"
#include "err.h"

#define JAXJOB_API_VERSION "kubeflow.org/v1"
#define JAXJOB_KIND "JAXJob"
#define JAXJOB_PLURAL "jaxjobs"
#define JAXJOB_REPLICA "Worker"
#define JAXJOB_CONTAINER "jax"
#define JAXJOB_PORT_NAME "jaxjob-port"
#define JAXJOB_DEFAULT_PORT 6666

int jaxjob_validate(const cJSON *job, struct err *e);

/* metadata.name / metadata.namespace, or NULL. */
const char *jaxjob_name(const cJSON *job);
const char *jaxjob_namespace(const cJSON *job);
/* spec.jaxReplicaSpecs.Worker, or NULL. */
const cJSON *jaxjob_worker_spec(const cJSON *job);
/* Worker replicas (1 when unset, as the operator defaults); -1 if there is no
 * Worker or replicas is out of int range (validate first). */
int jaxjob_workers(const cJSON *job);
/*
 * struct jobapi's worker_counts: replicas from the Worker spec (1 when
 * unset, 0 without a Worker), active/succeeded/failed from
 * status.replicaStatuses.Worker; 1 when status.replicaStatuses exists.
 */
struct jobapi_workers;
int jaxjob_worker_counts(const cJSON *job, struct jobapi_workers *w);
/* The container named jax in the Worker pod template, or NULL. */
const cJSON *jaxjob_container(const cJSON *job);
/* "{name}-worker-{i}": the pod and Service name of worker i, appended to out. */
void jaxjob_worker_name(const char *job_name, int i, struct buf *out);

#endif
