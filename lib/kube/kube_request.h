/*
 * kube_request.h - the values below every call (kube_request.c): the
 * resources we know and their API paths, and a request and its response with
 * their builders. Nothing here needs a client; calls, watches and logs build
 * their requests here, and the client's blocking conveniences too.
 *
 * Resources are plain descriptors, so JAXJob and TrainJob (or any CRD) go
 * through the same code:
 *     kube_path(&p, &KUBE_JAXJOB, "team-a", "mnist", NULL)
 *       -> /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/mnist
 */
#ifndef JAXJOB_KUBE_REQUEST_H
#define JAXJOB_KUBE_REQUEST_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"

/* ---- resources and paths ---------------------------------------------- */

struct kube_resource {
	const char *group;	/* "" for the core API (/api/v1) */
	const char *version;	/* "v1", "v1alpha1" */
	const char *plural;	/* "jaxjobs": the path segment and RBAC resource */
	const char *kind;	/* "JAXJob": for messages */
	int namespaced;
};

extern const struct kube_resource KUBE_JAXJOB;	/* kubeflow.org/v1 jaxjobs */
extern const struct kube_resource KUBE_TRAINJOB;	/* trainer.kubeflow.org/v1alpha1 trainjobs */
extern const struct kube_resource KUBE_POD;	/* v1 pods */
extern const struct kube_resource KUBE_EVENT;	/* v1 events (core) */

/*
 * Append the path of a collection (name == NULL) or an object, optionally a
 * subresource ("status", "log", "scale"). `ns` is ignored for cluster-scoped
 * resources. Segments are percent-encoded.
 */
void kube_path(struct buf *out, const struct kube_resource *r, const char *ns,
	       const char *name, const char *subresource);

/* Append "?key=value" or "&key=value" (value percent-encoded) to a path. */
void kube_query(struct buf *path, const char *key, const char *value);

/* "jaxjobs.kubeflow.org \"x\"" or "pods \"x\"": how the API names an object. */
void kube_describe(struct buf *out, const struct kube_resource *r, const char *name);

/* ---- requests ---------------------------------------------------------- */

enum kube_method { KUBE_GET, KUBE_POST, KUBE_PUT, KUBE_PATCH, KUBE_DELETE };

enum kube_patch_type {
	KUBE_PATCH_MERGE,	/* application/merge-patch+json (RFC 7386) */
	KUBE_PATCH_JSON,	/* application/json-patch+json (RFC 6902) */
};

enum kube_propagation {
	KUBE_PROPAGATE_DEFAULT,	/* server default (Background for CRs) */
	KUBE_PROPAGATE_BACKGROUND,
	KUBE_PROPAGATE_FOREGROUND,
	KUBE_PROPAGATE_ORPHAN,
};

enum kube_req_flags {
	KUBE_DRY_RUN = 1 << 0,	/* ?dryRun=All: validated and admitted, not stored */
};

/*
 * One request. The builders below fill it; kube_request_free() releases the
 * path and body buffers. `what` is used in error messages
 * ("create jaxjobs.kubeflow.org \"x\": ...").
 */
struct kube_request {
	enum kube_method method;
	struct buf path;		/* path + query, e.g. from kube_path() */
	struct buf body;		/* empty = no body */
	const char *content_type;	/* static string; NULL when no body */
	const char *verb;		/* "create", "get", ... (static) */
	struct buf what;		/* the object, for messages */
	double retry_s;			/* 0 = the client's default, < 0 = no retries */
	double timeout_s;		/* one attempt's bound; 0 = the client's
					 * (kube_client_set_request_timeout) */
	size_t body_max;		/* bytes of response body kept; 0 = KUBE_BODY_MAX
					 * (64 MiB). A larger body fails the request (ERR_API,
					 * "response larger than N bytes") without reading more:
					 * a caller that looks often at an answer of unbounded
					 * size (a queue's pending list) bounds what it costs. */
	int bulk;			/* one of many alike (a big job's log reads): when
					 * KUBE_BULK_OPENING such requests are opening their
					 * connection already, it waits its turn (kube_xfer.c) */
};
#define KUBE_BULK_OPENING 8	/* bulk requests opening a connection at once */

struct kube_response {
	long status;		/* HTTP status, 0 when no response arrived */
	struct buf body;	/* raw body */
	cJSON *json;		/* parsed body when it is JSON, else NULL */
	double retry_after;	/* seconds from a Retry-After header, -1 = none */
	int attempts;		/* how many times it was sent */
};

/* An empty request (for paths the builders below do not cover). */
void kube_request_init(struct kube_request *rq, enum kube_method m, const char *verb);
void kube_request_free(struct kube_request *rq);
/* A deep copy (a call keeps its own, kube_call.c). */
void kube_request_copy(struct kube_request *dst, const struct kube_request *src);
void kube_response_init(struct kube_response *rs);
void kube_response_free(struct kube_response *rs);

void kube_req_create(struct kube_request *rq, const struct kube_resource *r,
		     const char *ns, const cJSON *obj, unsigned flags);
void kube_req_get(struct kube_request *rq, const struct kube_resource *r,
		  const char *ns, const char *name);
/*
 * What a destructive request is conditional on: the object the decision was
 * made on. The server refuses the request with 409 Conflict when the object
 * is no longer that one (a DELETE's DeleteOptions.preconditions; a patch's
 * metadata.resourceVersion, optimistic concurrency). Either may be NULL.
 */
struct kube_precond {
	const char *uid;
	const char *resource_version;
};

/* `pre` (may be NULL: unconditional) goes into the DeleteOptions body. */
void kube_req_delete(struct kube_request *rq, const struct kube_resource *r,
		     const char *ns, const char *name, enum kube_propagation p,
		     const struct kube_precond *pre, unsigned flags);
void kube_req_patch(struct kube_request *rq, const struct kube_resource *r,
		    const char *ns, const char *name, enum kube_patch_type t,
		    const cJSON *patch, unsigned flags);

/* Selectors and paging for lists (and watches, kube_watch.h). */
struct kube_list_opts {
	const char *label_selector;	/* "training.kubeflow.org/job-name=x" */
	const char *field_selector;	/* "metadata.name=x" */
	long limit;			/* 0 = no paging */
	const char *continue_token;	/* from a previous page's metadata.continue */
	/*
	 * Lists only (a watch's own list ignores it): a resourceVersion the
	 * answer must be at least as new as (resourceVersionMatch=NotOlderThan),
	 * served from the API server's watch cache without waiting for etcd;
	 * not sent with a continue token (the token holds its own). NULL: a
	 * consistent read, which a 1.31+ server serves from the cache only
	 * once the cache has caught up with etcd - it asks etcd for progress
	 * every 100 ms while a read waits (k8s.io/apiserver v0.36.4
	 * pkg/storage/cacher/progress/watch_progress.go, progressRequestPeriod),
	 * so such a list can take up to 100 ms on a quiet cluster.
	 */
	const char *not_older_than;
};

void kube_req_list(struct kube_request *rq, const struct kube_resource *r,
		   const char *ns, const struct kube_list_opts *o);

#endif
