/*
 * kube_call.c - one API request carried to its end: credentials, transfer,
 * retries with backoff, the error decoded. See kube_client.h for the policy
 * and kube_int.h for the layering.
 *
 * A call is driven by the loop: send → transfer finished → decide:
 *   2xx                              done(NULL)
 *   401, credentials refreshable     refresh, send again (once)
 *   429/5xx/connection failure       backoff timer → send again, while the
 *                                    retry window allows the wait
 *   anything else                    done(err)
 * A streaming call stops retrying once a 2xx response started: from then
 * on the stream belongs to its consumer, and a broken connection is
 * reported to `done` as ERR_NETWORK.
 */
#include "kube_call.h"

#include "kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube_clock.h"
#include "kube_status.h"

struct kube_call {
	struct kube_client *c;
	struct kube_request rq;
	long timeout_s;
	kube_xfer_data_fn *on_data;
	kube_done_fn *done;
	void *ud;
	double started, deadline;
	unsigned attempt;
	int reauthed, finishing;
	int unreachable;	/* the last attempt never reached the server */
	unsigned failures[2];	/* in a row: answered, unanswered (kube_backoff_after) */
	struct kube_xfer *x;
	struct kube_timer *t;
	struct kube_response rs;
	struct err last;	/* why the previous attempt failed */
	struct kube_call *next, **prev;
};

static void call_send(struct kube_call *k);
static void call_xfer_done(void *ud, struct kube_xfer *x);

static void call_unlink(struct kube_call *k)
{
	*k->prev = k->next;
	if (k->next)
		k->next->prev = k->prev;
}

static void call_free(struct kube_call *k)
{
	kube_request_free(&k->rq);
	kube_response_free(&k->rs);
	free(k);
}

static void call_finish(struct kube_call *k, const struct err *e)
{
	k->finishing = 1;
	call_unlink(k);
	k->done(k->ud, &k->rs, e);
	call_free(k);
}

static void call_fail_timer(void *ud)
{
	struct kube_call *k = ud;
	k->t = NULL;
	call_finish(k, &k->last);
}

static void call_retry_timer(void *ud)
{
	struct kube_call *k = ud;
	k->t = NULL;
	call_send(k);
}

/* Before the server first answered, an unreachable server's requests share
 * one window (kube_client_set_contact_window). */
static int in_contact_window(const struct kube_call *k)
{
	const struct kube_client *c = k->c;
	return c->contact.window_s > 0 && !c->contact.answered && k->unreachable;
}

/* Append " (gave up after N attempts in S s)" when retries happened: the
 * whole first-contact wait's, while the server never answered. Requests
 * sent side by side each retry, so that count can be many times the
 * rounds; naming the requests too keeps it from reading as a loop. */
static void note_attempts(const struct kube_call *k, struct err *e)
{
	size_t n = strlen(e->msg);

	if (in_contact_window(k)) {	/* the whole wait's, to the tenth */
		const unsigned a = k->c->contact.attempts, r = k->c->contact.requests;
		if (a >= 2 && r >= 2)
			snprintf(e->msg + n, sizeof(e->msg) - n, " (gave up after %u attempts by %u "
				 "requests in %.1f s)", a, r, kube_now() - k->c->contact.since);
		else if (a >= 2)
			snprintf(e->msg + n, sizeof(e->msg) - n, " (gave up after %u attempts in "
				 "%.1f s)", a, kube_now() - k->c->contact.since);
		return;
	}
	if (k->attempt < 2)
		return;
	snprintf(e->msg + n, sizeof(e->msg) - n, " (gave up after %u attempts in %.0f s)",
		 k->attempt, kube_now() - k->started);
}

/* Wait and send again if the retry window allows; 1 when scheduled. */
static int call_retry(struct kube_call *k, double retry_after)
{
	if (k->rq.retry_s < 0)
		return 0;
	double delay = kube_backoff_after(&k->last, k->failures, retry_after, kube_random(k->c));
	double deadline = k->deadline;
	/* a server nobody answers for: its own, shorter window when set */
	if (k->unreachable && k->c->setup.unreachable_s > 0 && k->started + k->c->setup.unreachable_s < deadline)
		deadline = k->started + k->c->setup.unreachable_s;
	/* never answered yet: one window for every request, from the first */
	if (in_contact_window(k) && k->c->contact.since + k->c->contact.window_s < deadline)
		deadline = k->c->contact.since + k->c->contact.window_s;
	if (kube_now() + delay > deadline)
		return 0;
	kube_response_free(&k->rs);
	k->rs.retry_after = -1;
	k->t = kube_timer_add(k->c, delay, call_retry_timer, k);
	if (k->c->setup.on_retry)
		k->c->setup.on_retry(k->c->setup.on_retry_ud, in_contact_window(k) ? k->c->contact.attempts :
			       k->attempt, delay, &k->last);
	return 1;
}

/*
 * Stream data goes to the consumer with the consumer's ud. The consumer may
 * cancel this very call from inside: nothing touches `k` afterwards.
 */
static size_t call_stream_data(void *ud, const char *data, size_t len)
{
	struct kube_call *k = ud;
	return k->on_data(k->ud, data, len);
}

static void call_send(struct kube_call *k)
{
	struct kube_cred_view cred;
	k->attempt++;
	k->rs.attempts = (int)k->attempt;
	if (!k->c->contact.answered) {
		k->c->contact.attempts++;
		k->c->contact.requests += k->attempt == 1;
	}
	if (kube_creds_get(k->c->setup.creds, &cred, &k->last)) {
		k->t = kube_timer_add(k->c, 0, call_fail_timer, k);
		return;
	}
	struct kube_xfer_opts o = { k->timeout_s, k->on_data ? call_stream_data : NULL,
				    call_xfer_done, k };
	k->x = kube_xfer_start(k->c, &k->rq, &cred, &o, &k->last);
	if (!k->x)
		k->t = kube_timer_add(k->c, 0, call_fail_timer, k);
}

/* ---- deciding what a finished transfer means ----------------------------- */

static int transient_curl_error(CURLcode r)
{
	switch (r) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

/*
 * A TLS handshake that broke because the connection did (reset, EOF) is a
 * network blip, worth retrying; one the peer refused (unknown CA, bad client
 * certificate) is final.
 */
static int transient_tls_error(const struct kube_xfer *x)
{
	static const char *const blips[] = { "reset by peer", "SSL_ERROR_SYSCALL",
					     "unexpected eof", "Broken pipe", "Connection refused" };
	if (x->result != CURLE_SSL_CONNECT_ERROR)
		return 0;
	for (size_t i = 0; i < sizeof(blips) / sizeof(blips[0]); i++)
		if (strstr(x->errbuf, blips[i]))
			return 1;
	return 0;
}

static void curl_failure(const struct kube_call *k, const struct kube_xfer *x, struct err *e)
{
	const struct kube_config *cfg = &k->c->setup.cfg;
	const char *why = x->errbuf[0] ? x->errbuf : curl_easy_strerror(x->result);
	switch (x->result) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		/* final everywhere (calls, watches, log follows): a certificate we
		 * do not trust does not become trusted by asking again */
		err_set(e, ERR_NETWORK, "TLS verification of %s failed: %s; check the "
			"certificate-authority of cluster \"%s\" in %s", cfg->server, why,
			cfg->cluster_name ? cfg->cluster_name : "?", cfg->source ? cfg->source : "?");
		snprintf(e->reason, sizeof(e->reason), "%s", KUBE_REASON_TLS_UNTRUSTED);
		break;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
		err_set(e, ERR_NETWORK, "TLS handshake with %s failed: %s", cfg->server, why);
		break;
	case CURLE_WRITE_ERROR:
		err_set(e, ERR_API, "%s %s: response larger than %zu bytes", k->rq.verb,
			k->rq.what.data, k->rq.body_max ? k->rq.body_max : (size_t)KUBE_BODY_MAX);
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		/* the likely cause, not curl's words twice: nothing listens there,
		 * or the kubeconfig names the wrong server */
		err_set(e, ERR_NETWORK, "cannot reach the API server at %s (%s): is the cluster "
			"running, and is context \"%s\" of %s the one you meant?", cfg->server,
			x->result == CURLE_COULDNT_CONNECT ? "connection refused or no route" :
			"its host name does not resolve",
			cfg->context ? cfg->context : "?", cfg->source ? cfg->source : "?");
		snprintf(e->reason, sizeof(e->reason), "%s", KUBE_REASON_UNREACHABLE);
		break;
	default:
		err_set(e, ERR_NETWORK, "cannot reach %s: %s", cfg->server, why);
	}
}

static int is_json(const struct kube_xfer *x)
{
	return strstr(x->content_type, "json") != NULL ||
	       (x->in.len && x->in.data[0] == '{');
}

/* The response is final: fill k->rs and finish the call. */
static void call_conclude(struct kube_call *k, struct kube_xfer *x)
{
	struct err e = ERR_INIT;
	int ok = x->status >= 200 && x->status < 300;
	if (!k->on_data || !ok) {
		struct buf tmp = k->rs.body;
		k->rs.body = x->in;
		x->in = tmp;
		if (k->rs.body.len && is_json(x))
			k->rs.json = cJSON_ParseWithLength(k->rs.body.data, k->rs.body.len);
	}
	if (ok && !k->on_data && k->rs.body.len && is_json(x) && !k->rs.json) {
		err_set(&e, ERR_API, "%s %s: the server sent malformed JSON", k->rq.verb,
			k->rq.what.data);
		call_finish(k, &e);
		return;
	}
	if (ok) {
		call_finish(k, NULL);
		return;
	}
	kube_status_err(x->status, x->content_type, k->rs.body.data, k->rs.body.len,
			k->rq.verb, k->rq.what.data, k->rq.path.data, k->c->setup.cfg.server, &e);
	note_attempts(k, &e);
	call_finish(k, &e);
}

static void call_xfer_done(void *ud, struct kube_xfer *x)
{
	struct kube_call *k = ud;
	int ok = x->status >= 200 && x->status < 300;
	k->x = NULL;
	k->rs.status = x->status;
	k->rs.retry_after = kube_retry_after(x->retry_after, (time_t)kube_wall_now());
	k->unreachable = 0;
	if (x->status > 0)	/* the server answered: first contact made */
		k->c->contact.answered = 1;
	if (x->result != CURLE_OK) {
		curl_failure(k, x, &k->last);
		k->unreachable = !strcmp(k->last.reason, KUBE_REASON_UNREACHABLE);
		if (k->on_data && ok) {		/* a started stream broke */
			call_finish(k, &k->last);
			return;
		}
		if ((transient_curl_error(x->result) || transient_tls_error(x)) && call_retry(k, -1))
			return;
		note_attempts(k, &k->last);
		call_finish(k, &k->last);
		return;
	}
	if (x->status == 401 && !k->reauthed && kube_creds_invalidate(k->c->setup.creds)) {
		k->reauthed = 1;
		call_send(k);
		return;
	}
	if (kube_status_retryable(x->status) && call_retry(k, k->rs.retry_after))
		return;
	call_conclude(k, x);
}

/* ---- starting, cancelling, waiting ---------------------------------------- */

static struct kube_call *call_new(struct kube_client *c, const struct kube_request *rq,
				  kube_done_fn *done, void *ud)
{
	struct kube_call *k = xcalloc(1, sizeof(*k));
	k->c = c;
	kube_request_copy(&k->rq, rq);
	kube_response_init(&k->rs);
	k->done = done;
	k->ud = ud;
	/* whole seconds for curl, rounded up: never shorter than asked */
	double attempt_s = rq->timeout_s > 0 ? rq->timeout_s : c->setup.request_timeout_s;
	k->timeout_s = attempt_s > 0 ? (long)attempt_s + (attempt_s > (long)attempt_s) :
		KUBE_REQUEST_TIMEOUT_S;
	k->started = kube_now();
	if (c->contact.since == 0)
		c->contact.since = k->started;
	double window = rq->retry_s > 0 ? rq->retry_s : c->setup.retry_s;
	k->deadline = k->started + window;
	k->next = c->calls.list;
	if (c->calls.list)
		c->calls.list->prev = &k->next;
	k->prev = &c->calls.list;
	c->calls.list = k;
	return k;
}

struct kube_call *kube_start(struct kube_client *c, const struct kube_request *rq,
			     kube_done_fn *done, void *ud)
{
	struct kube_call *k = call_new(c, rq, done, ud);
	call_send(k);
	return k;
}

struct kube_call *kube_start_stream(struct kube_client *c, const struct kube_request *rq,
				    long timeout_s, kube_xfer_data_fn *on_data,
				    kube_done_fn *done, void *ud)
{
	struct kube_call *k = call_new(c, rq, done, ud);
	k->timeout_s = timeout_s;
	k->on_data = on_data;
	call_send(k);
	return k;
}

void kube_cancel(struct kube_call *k)
{
	if (!k || k->finishing)
		return;
	kube_xfer_cancel(k->x);
	kube_timer_cancel(k->t);
	call_unlink(k);
	call_free(k);
}

void kube_cancel_all(struct kube_client *c)
{
	while (c->calls.list)
		kube_cancel(c->calls.list);
}

struct sync_wait {
	int done;
	struct kube_response *rs;
	struct err *e;
};

static void sync_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct sync_wait *w = ud;
	struct kube_response tmp = *w->rs;
	*w->rs = *rs;
	*rs = tmp;
	if (e)
		*w->e = *e;
	w->done = e ? -1 : 1;
}

int kube_call(struct kube_client *c, const struct kube_request *rq,
	      struct kube_response *rs, struct err *e)
{
	kube_response_init(rs);
	if (c->loop.driving)
		return err_set(e, ERR_INTERNAL, "blocking %s %s from a loop callback; use "
			       "kube_start()", rq->verb, rq->what.data);
	struct sync_wait w = { 0, rs, e };
	int rc = 0;
	c->calls.blocking++;
	struct kube_call *k = kube_start(c, rq, sync_done, &w);
	while (!w.done) {
		if (c->calls.cancel_requested) {
			kube_cancel(k);
			rc = err_set(e, ERR_CANCELLED, "%s %s: cancelled", rq->verb, rq->what.data);
			break;
		}
		if (kube_loop_step(c, 1.0, e)) {
			kube_cancel(k);
			rc = -1;
			break;
		}
	}
	/* a cancel that came with the answer is moot: it never reaches the next call */
	if (--c->calls.blocking == 0)
		c->calls.cancel_requested = 0;
	if (rc)
		return rc;
	return w.done > 0 ? 0 : -1;
}

void kube_client_set_contact_window(struct kube_client *c, double seconds, double since)
{
	c->contact.window_s = seconds;
	c->contact.since = since;
}

/* Declared in kube_loop.h beside kube_loop_stop(); defined here, with the
 * blocking call it cancels (the `calls` part is this file's to write). */
void kube_loop_cancel_call(struct kube_client *c)
{
	if (c->calls.blocking)
		c->calls.cancel_requested = 1;
}
