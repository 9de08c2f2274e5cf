/*
 * jobapi_handler.h - what one job API is, as data: struct jobapi, the
 * handler a kind fills in (JOBAPI_JAXJOB in jaxjob.c, JOBAPI_TRAINJOB in
 * trainjob.c), and the counts and refusals it speaks in.
 *
 * Apart from jobapi.h so that the handlers stand below the registry that
 * lists them: jobapi.c names each handler, and a handler needs only this
 * type, never the registry's functions (otherwise jobapi.c and the
 * handlers would reach each other: a circle in the graph of modules,
 * scripts/module-graph.sh). Callers include jobapi.h, which includes this.
 *
 * Ownership: everything here is static and read-only.
 */
#ifndef JAXJOB_JOBAPI_HANDLER_H
#define JAXJOB_JOBAPI_HANDLER_H

#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "kube/kube_client.h"

struct kube_client;

/* Worker counts of a job: replicas wanted (spec), the rest from the status. */
struct jobapi_workers {
	int replicas, active, succeeded, failed;
};

/* A parameter an API has no field for, and why. */
struct jobapi_refusal {
	const char *param;
	const char *why;
};

struct jobapi {
	const char *name;		/* "jaxjob" | "trainjob": --api and job files' `api:` */
	const char *project;		/* who serves it, for messages: "Kubeflow Trainer v2" */
	const char *kind;		/* "JAXJob" */
	const char *api_version;	/* "kubeflow.org/v1" */
	const struct kube_resource *res;
	const char *tmpl;		/* its built-in template (tmpl_builtin name) */
	const char *tmpl_source;	/* the same as named in messages */
	int (*validate)(const cJSON *job, struct err *e);
	void (*tidy)(cJSON *job);	/* after rendering a template, or NULL */
	int (*workers)(const cJSON *job);	/* worker pods wanted, -1 unknown */
	/*
	 * Worker counts as the object says them (absent numbers are 0). Returns
	 * 1 when its status counts worker pods, 0 when it does not (a
	 * TrainJob's counts child Jobs; a new JAXJob has no counts yet): then
	 * a launcher counts the pods it watches instead.
	 */
	int (*worker_counts)(const cJSON *job, struct jobapi_workers *w);
	/* characters the operator adds to the job name in its longest child name */
	int (*name_overhead)(int workers);
	/* that name, said for messages: "Service NAME-worker-3" */
	void (*longest_child)(const char *job_name, int workers, struct buf *out);
	const char *const *suspend_path;	/* NULL-terminated keys of the suspend flag */
	/* the reasons of the operator's Warning events on the job that say it
	 * cannot create what the job needs (pods, Services): NULL-terminated */
	const char *const *creation_failures;

	/* the worker pods */
	const char *pod_job_label;	/* a label whose value is the job name */
	const char *pod_selector_more;	/* ANDed to the selector, or NULL */
	const char *pod_index_label;	/* the worker index */
	const char *container;		/* the worker container (logs, exit codes) */

	const struct jobapi_refusal *refused;	/* ended by a NULL param */

	/* before a create: does what the job refers to exist? (NULL: nothing to check) */
	int (*check_runtime)(struct kube_client *c, const cJSON *job, const char *ns,
			     struct err *e);
};

extern const struct jobapi JOBAPI_JAXJOB;
extern const struct jobapi JOBAPI_TRAINJOB;

#endif
