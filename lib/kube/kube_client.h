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
 * The resources, paths and requests are kube_request.h's, a call (blocking
 * or asynchronous) is kube_call.h's; both come with this header.
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
#include "kube_call.h"
#include "kube_config.h"
#include "kube_request.h"
#include "kube_status.h"	/* KUBE_REASON_UNREACHABLE */

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
 * curl's callbacks. And how many bulk requests (kube_request.bulk) waited
 * for their turn to open a connection.
 */
struct kube_traffic {
	unsigned long long bytes_in;
	unsigned long requests;
	unsigned long held;
};
void kube_client_traffic(const struct kube_client *c, struct kube_traffic *t);

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
