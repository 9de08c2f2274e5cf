/*
 * kube_call.h - one API request carried to its end on the client's loop
 * (kube_call.c): blocking or asynchronous, with credentials, retries and the
 * error decoded (the policy: kube_client.h).
 */
#ifndef JAXJOB_KUBE_CALL_H
#define JAXJOB_KUBE_CALL_H

#include <string.h>

#include "err.h"
#include "kube_request.h"

struct kube_client;

/* err.reason of a TLS verification failure of the API server (code ERR_NETWORK). */
#define KUBE_REASON_TLS_UNTRUSTED "TLSVerificationFailed"

static inline int kube_err_tls_untrusted(const struct err *e)
{
	return e && e->code == ERR_NETWORK && !strcmp(e->reason, KUBE_REASON_TLS_UNTRUSTED);
}

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

#endif
