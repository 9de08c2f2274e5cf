/*
 * kube_client.h - talking to the Kubernetes API: resources, paths, and
 * requests with retries, blocking or asynchronous, all on ONE curl multi.
 *
 * A struct kube_client owns the configuration, the credentials, one curl
 * multi handle (every request, watch and log stream shares its connection
 * pool; HTTP/1.1, so each open stream holds one connection) and the event
 * loop's state (kube_loop.h). There are no threads: blocking
 * calls drive the same loop until their own request is done.
 *
 * Resources are plain descriptors, so JAXJob and TrainJob (or any CRD) go
 * through the same code:
 *     kube_path(&p, &KUBE_JAXJOB, "team-a", "mnist", NULL)
 *       -> /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/mnist
 *
 * Every request:
 *   - sends `User-Agent: jaxjob/<version>`, `Accept: application/json`,
 *     the current credentials (kube_auth.h), verifies TLS against the
 *     cluster CA unless the configuration explicitly disables it;
 *   - is retried on 429, 5xx and connection failures with backoff + jitter,
 *     honouring Retry-After, until `retry_s` seconds after it started
 *     (kube_status.h); a 401 refreshes refreshable credentials (token file,
 *     exec plugin) and retries once; other 4xx are final;
 *   - on failure fills struct err from the API's Status body (kube_status.h).
 *     A server certificate that fails verification is final, never retried
 *     (at start or mid-run: a changed certificate must fail closed), and
 *     marked with reason KUBE_REASON_TLS_UNTRUSTED (kube_err_tls_untrusted()).
 * A retried POST may have reached the server the first time: a create can
 * then fail with 409 AlreadyExists for our own object. Callers that create
 * must handle 409 anyway (launch compares its identity label).
 *
 * Nothing is logged (the core never prints): with kube_client_set_trace()
 * the caller gets the method, path, status and timing of each request as
 * a line of text, never headers or bodies.
 *
 * Ownership: cJSON trees returned through `out` parameters belong to the
 * caller (cJSON_Delete). Objects passed in (`const cJSON *`) are only read.
 * In asynchronous completions the response is borrowed for the duration of
 * the callback; take `resp->json` by setting it to NULL to keep it.
 */
#ifndef JAXJOB_KUBE_CLIENT_H
#define JAXJOB_KUBE_CLIENT_H

#include <stddef.h>
#include <string.h>
#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "kube_config.h"
#include "kube_status.h"	/* KUBE_REASON_UNREACHABLE */

/* err.reason of a TLS verification failure of the API server (code ERR_NETWORK). */
#define KUBE_REASON_TLS_UNTRUSTED "TLSVerificationFailed"

static inline int kube_err_tls_untrusted(const struct err *e)
{
	return e && e->code == ERR_NETWORK && !strcmp(e->reason, KUBE_REASON_TLS_UNTRUSTED);
}

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

/* ---- the client -------------------------------------------------------- */

struct kube_client;

/*
 * Take over `cfg` (its members now belong to the client; `*cfg` is zeroed)
 * and set up curl. Fails only on curl initialisation problems.
 */
struct kube_client *kube_client_new(struct kube_config *cfg, struct err *e);

/* Stop and free everything still running (watches, logs, timers, requests). */
void kube_client_free(struct kube_client *c);

const struct kube_config *kube_client_config(const struct kube_client *c);

/* Default retry window for requests (seconds, default 30). */
void kube_client_set_retry(struct kube_client *c, double seconds);

/* The longest one attempt of a request may take (seconds; 0, the default:
 * 60 s). A caller with a deadline of its own (a cleanup within a pod's
 * grace period) sets it, so that a server that never answers cannot hold
 * one attempt past that deadline. Streams (watches, log follows) keep
 * their own bounds. */
void kube_client_set_request_timeout(struct kube_client *c, double seconds);

/* A shorter window for failures that never reached the server (connection
 * refused, host name not resolved: KUBE_REASON_UNREACHABLE), so that a wrong
 * kubeconfig fails fast while a loaded or restarting server still gets the
 * whole retry window. 0 (the default) = the same window. */
void kube_client_set_unreachable_retry(struct kube_client *c, double seconds);

/*
 * One window for first contact: until the server has answered one request
 * (any HTTP status), the requests that cannot reach it
 * (KUBE_REASON_UNREACHABLE) share ONE retry window of `seconds` from
 * `since` (kube_now() clock: when the caller began to wait, e.g. its own
 * start; 0: the first request's start), instead of each starting its own;
 * a request made after it ran out is tried once. Their attempts are counted
 * together: the on_retry callback gets the running count, and a request
 * that gives up says "(gave up after N attempts by R requests in S.S s)"
 * for the whole wait ("by R requests" when more than one took part). Once the server has answered, nothing changes. 0 seconds (the
 * default): off.
 */
void kube_client_set_contact_window(struct kube_client *c, double seconds, double since);

/*
 * Called each time a request failed and is sent again after `delay_s`
 * (attempt = the one that failed, `why` = its error), so a front-end can
 * say what it waits for; NULL to stop. The core never prints.
 */
void kube_client_on_retry(struct kube_client *c,
			  void (*fn)(void *ud, unsigned attempt, double delay_s,
				     const struct err *why),
			  void *ud);

/* Hand `fn` one line per finished request, "kube: GET /path -> 200 (12 ms)"
 * (no newline, no headers or bodies); NULL turns it off. */
void kube_client_set_trace(struct kube_client *c,
			   void (*fn)(const char *line, void *ud), void *ud);

/*
 * What the client received, for a front-end's own accounting (a benchmark
 * reads it from launch's summary): the bytes of every response's headers and
 * body as curl hands them over - after TLS and HTTP/2 framing, watch and log
 * streams included, whether or not the caller kept them - and the requests
 * sent (each attempt of a retried request counts). Two counters, bumped in
 * curl's callbacks.
 */
struct kube_traffic {
	unsigned long long bytes_in;
	unsigned long requests;
};
void kube_client_traffic(const struct kube_client *c, struct kube_traffic *t);

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
};

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
};

void kube_req_list(struct kube_request *rq, const struct kube_resource *r,
		   const char *ns, const struct kube_list_opts *o);

/*
 * Blocking: run the request (with retries) to completion. 2xx → 0, `rs`
 * holds the response (free it). Otherwise -1, `e` set, `rs` still holds the
 * last response (status may be 0 for connection failures).
 * May NOT be called from a loop callback (ERR_INTERNAL): use kube_start().
 * If kube_loop_stop() is called (e.g. by a signal callback) while it runs, it
 * returns -1 with ERR_CANCELLED; the request may or may not have taken effect.
 */
int kube_call(struct kube_client *c, const struct kube_request *rq,
	      struct kube_response *rs, struct err *e);

/*
 * Asynchronous: start the request; `done` is called from the loop when it
 * finished (after retries), with e == NULL on 2xx. `rq` is copied. Returns
 * a handle valid until `done` returns, for kube_cancel().
 */
struct kube_call;
typedef void kube_done_fn(void *ud, struct kube_response *rs, const struct err *e);
struct kube_call *kube_start(struct kube_client *c, const struct kube_request *rq,
			     kube_done_fn *done, void *ud);
/* Abandon a started request; `done` is not called. */
void kube_cancel(struct kube_call *call);

/* ---- blocking conveniences (builder + kube_call) ----------------------- */

/* POST; *out = the created (or dry-run) object. */
int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const cJSON *obj, unsigned flags, cJSON **out, struct err *e);
int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns,
	     const char *name, cJSON **out, struct err *e);
/* *out (may be NULL) = the server's answer: the object being deleted or a Status. */
int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const char *name, enum kube_propagation p, const struct kube_precond *pre,
		unsigned flags, cJSON **out, struct err *e);
int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
	       const char *name, enum kube_patch_type t, const cJSON *patch,
	       unsigned flags, cJSON **out, struct err *e);
/*
 * LIST. With o->limit == 0 follows `continue` tokens and returns one list
 * object holding every item (metadata.resourceVersion of the first page).
 */
int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
	      const struct kube_list_opts *o, cJSON **out, struct err *e);

/* GET of a non-JSON body (e.g. a pod log without follow) into `out`. */
int kube_get_raw(struct kube_client *c, const char *path, struct buf *out,
		 struct err *e);

#endif
