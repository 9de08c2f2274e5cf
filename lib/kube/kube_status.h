/*
 * kube_status.h - what the API server says when it says no, and when to ask
 * again.
 *
 * The apiserver answers errors with a meta/v1 Status body
 *   {"kind":"Status","status":"Failure","message":"...","reason":"Invalid",
 *    "details":{"name":..,"group":..,"kind":..,"causes":[{field,message}]},
 *    "code":422}
 * and its `message` is already the line a user should read
 * (`jaxjobs.kubeflow.org "x" is forbidden: User "u" cannot create ...`,
 * `JAXJob.kubeflow.org "X" is invalid: metadata.name: Invalid value: ...`).
 * kube_status_err() copies it into struct err (http_status, reason, msg)
 * and folds in causes whose text the message does not already contain
 * ("...; spec.x: Required value"). Other bodies:
 *   - plain-text "404 page not found" on /apis/<group>/... means the API
 *     group or resource is not served: the CRD is not installed. Said so,
 *     naming the CRD ("https://... does not serve kubeflow.org/v1 jaxjobs:
 *     the CustomResourceDefinition jaxjobs.kubeflow.org is not installed
 *     (install its operator, ...)");
 *   - anything else: "<verb> <what>: HTTP 502: <first line of the body>".
 * Codes: 401/403 ERR_AUTH, 404 ERR_NOTFOUND, 409 ERR_CONFLICT, everything
 * else ERR_API; e->http_status and e->reason (Status.reason, e.g. "Invalid",
 * "AlreadyExists", "Forbidden", "Expired") always tell the exact case, so a
 * caller maps 422 to "bad input" by e->http_status == 422.
 *
 * Retry policy, shared by requests and watches (kube_call.c, kube_watch.c):
 * 429 and 5xx, and connection failures, are retried with exponential
 * backoff and full jitter, honouring Retry-After (seconds or HTTP-date) as a
 * lower bound, until a deadline; everything else is final.
 */
#ifndef JAXJOB_KUBE_STATUS_H
#define JAXJOB_KUBE_STATUS_H

#include <stddef.h>
#include <time.h>

#include "err.h"

/* err.reason when the connection was never made (refused, name not
 * resolved): the request did not leave, so nothing it would have done
 * happened. Set by the client (kube_call.c), read by the backoff below. */
#define KUBE_REASON_UNREACHABLE "Unreachable"

#define KUBE_BACKOFF_BASE_S 0.2	/* first retry after 0.1..0.2 s */
#define KUBE_BACKOFF_CAP_S 10.0	/* never wait longer than this between tries */
/*
 * While nothing answers (connection refused, no route: KUBE_REASON_UNREACHABLE)
 * a try costs the server nothing, so tries come at most this far apart, and
 * they do not raise the backoff of the failures that got an answer: a client
 * reconnects within a second of an API server's restart, and the 503s of a
 * server still starting begin again at the short end.
 */
#define KUBE_BACKOFF_UNREACHABLE_S 1.0

/*
 * Turn a non-2xx response into `e` (always returns -1). `verb` and `what`
 * describe the request for bodies that are not a Status ("create",
 * "jaxjobs.kubeflow.org \"x\""); `path` lets a plain 404 on /apis/G/V/...
 * be recognised as "API not served"; `server` is named in that message.
 * `body` need not be NUL-terminated.
 */
int kube_status_err(long http_status, const char *content_type,
		    const char *body, size_t len, const char *verb,
		    const char *what, const char *path, const char *server,
		    struct err *e);

/* 1 when this HTTP status is worth retrying (429, 5xx), else 0. */
int kube_status_retryable(long http_status);

/*
 * Seconds to wait from a Retry-After header value: delta-seconds ("3") or
 * an HTTP-date (relative to `now`). Returns -1 when absent or malformed;
 * past dates give 0. Values are capped at one hour.
 */
double kube_retry_after(const char *value, time_t now);

/*
 * Delay before retry number `attempt` (0 = first retry): a random value in
 * [d/2, d] with d = min(KUBE_BACKOFF_CAP_S, KUBE_BACKOFF_BASE_S * 2^attempt),
 * raised to `retry_after` when that is larger (retry_after < 0 = none).
 * `rnd` is a uniform random number in [0,1) (tests pass fixed values).
 */
double kube_backoff(unsigned attempt, double retry_after, double rnd);

/* The delay after a failure `why`, from two counts of failures in a row:
 * kube_backoff() of `n[0]` (then counted up) for failures the server
 * answered; for those it did not, kube_backoff() of `n[1]` (counted up too)
 * capped at KUBE_BACKOFF_UNREACHABLE_S. An answered failure restarts n[1]. */
double kube_backoff_after(const struct err *why, unsigned n[2], double retry_after, double rnd);

#endif
