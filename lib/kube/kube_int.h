/*
 * kube_int.h - internals shared by the files of lib/kube/ only (front-ends never
 * include it): the client struct, one HTTP transfer on the multi handle,
 * and streaming calls.
 *
 * Included by: kube_call.c kube_client.c kube_log.c kube_loop.c kube_watch.c kube_xfer.c
 *
 * Layers, bottom up:
 *   kube_xfer  (kube_xfer.c)   one easy handle on the multi: sends a request,
 *                              collects headers and body; for streams hands
 *                              data to on_data from the loop, never from
 *                              inside curl; finished → on_done, then freed;
 *   the loop   (kube_loop.c)   timers, signals, the dispatch step that hands
 *                              the transfers' data and ends to their owners;
 *   kube_call  (kube_call.c)   a request with credentials and the retry
 *                              policy: one or more xfers, backoff timers;
 *   requests   (kube_request.c, kube_request.h) paths and request and
 *              response values, below the calls and below this header (no
 *              client needed); the blocking get/create/patch/delete/list on
 *              calls, and the client itself, are kube_client.c's (on top);
 *   watches and logs           built on calls (kube_watch.c, kube_log.c).
 *
 * Deferred freeing: a cancelled xfer or timer is only marked dead and
 * unlinked at the end of the dispatch step, so callbacks may cancel anything
 * (including the transfer that is calling them) without dangling pointers.
 */
#ifndef JAXJOB_KUBE_INT_H
#define JAXJOB_KUBE_INT_H

#include <curl/curl.h>

#include "kube_auth.h"
#include "kube_call.h"
#include "kube_config.h"
#include "kube_loop.h"
#include "kube_request.h"

#define KUBE_STREAM_PENDING_MAX (256 * 1024)	/* undelivered stream bytes before pausing */
#define KUBE_STREAM_KEEP_CAP (16 * 1024)	/* a drained stream buffer above this is freed */
#define KUBE_STREAM_BUFFER (8L * 1024)		/* curl's receive buffer of a stream (watch, log) */
#define KUBE_UPLOAD_BUFFER (16L * 1024)		/* curl's send buffer of a transfer: its minimum */
#define KUBE_BODY_MAX (64u * 1024 * 1024)	/* an ordinary response body */
#define KUBE_CONNECT_TIMEOUT_S 10L
#define KUBE_REQUEST_TIMEOUT_S 60L

struct kube_xfer;
/* Stream data, only for 2xx responses. Return how many bytes were used. */
typedef size_t kube_xfer_data_fn(void *ud, const char *data, size_t len);
typedef void kube_xfer_done_fn(void *ud, struct kube_xfer *x);

struct kube_xfer {
	struct kube_client *c;
	CURL *easy;
	struct curl_slist *headers;
	struct buf req_body;
	struct buf in;		/* body (ordinary) or undelivered stream data */
	char errbuf[CURL_ERROR_SIZE];
	char retry_after[64];
	char content_type[128];
	long status;
	CURLcode result;
	int finished, paused, dead;
	int get;		/* a GET: nothing to send once the request is out */
	int bulk;		/* kube_request.bulk: waits while others open (held) */
	int held;		/* not on the multi handle yet: its turn to open comes */
	int connected;		/* its request went out (curl's pretransfer time) */
	unsigned long seq;	/* order of start, for the held ones' turns */
	int head_done;		/* the response's header block has ended (on_header) */
	int trimmed;		/* its idle send buffers given back (xfer_trim) */
	double started;
	size_t body_max;	/* an ordinary body's bound (kube_request.body_max) */
	kube_xfer_data_fn *on_data;	/* NULL: collect the whole body */
	kube_xfer_done_fn *on_done;
	void *ud;
	struct kube_xfer *next;
};

struct kube_timer {
	struct kube_client *c;
	double when;
	kube_timer_fn *fn;
	void *ud;
	int dead;
	struct kube_timer *next;
};

/*
 * The client's state, in parts. Each part has ONE writer, the file named
 * beside it: another file reads a part, or asks its writer through a
 * function of that file, never assigns to it (tests/suites/12-kube-state.sh
 * greps for a write from anywhere else, and for a member outside the parts).
 */

/* kube_client.c: what the client was made with and the caller set on it */
struct kube_setup {
	struct kube_config cfg;
	struct kube_creds *creds;
	char *url_base;		/* scheme://host:port requests go to (tls-server-name) */
	struct curl_slist *connect_to;	/* maps url_base's host to the server's */
	int http1_only;		/* JAXJOB_HTTP1=1: never offer HTTP/2 */
	double retry_s;
	double request_timeout_s;	/* one attempt's bound; 0: KUBE_REQUEST_TIMEOUT_S */
	double unreachable_s;	/* kube_client_set_unreachable_retry(), 0 = retry_s */
	void (*trace)(const char *line, void *ud);	/* or NULL */
	void *trace_ud;
	void (*on_retry)(void *ud, unsigned attempt, double delay_s, const struct err *why);
	void *on_retry_ud;
};

/* kube_call.c: the first-contact window (kube_client_set_contact_window()) */
struct kube_contact {
	double window_s;	/* 0: off */
	double since;		/* the first request's start, 0 none yet */
	unsigned attempts;	/* every attempt sent since */
	unsigned requests;	/* the requests those attempts were of */
	int answered;		/* the server has answered a request */
};

/* kube_call.c: the calls in flight and the blocking one */
struct kube_calls {
	struct kube_call *list;
	int blocking;		/* > 0 inside a blocking call (kube_call) */
	int cancel_requested;	/* kube_loop_cancel_call(): only while blocking */
};

/* kube_xfer.c: the transfers on curl's multi handle */
struct kube_xfers {
	CURLM *multi;
	struct kube_xfer *list;
	unsigned long seq;	/* transfers started, for kube_xfer.seq */
};

/* kube_loop.c: timers, signals, the writable fd, the dispatch step */
struct kube_loop_state {
	struct kube_timer *timers;
	double deaf_s;		/* time spent dispatching (not listening), summed */
	double dispatch_at;	/* start of the dispatch in progress, 0 outside one */
	int driving;		/* > 0 while the loop runs (callbacks may be called) */
	int running;		/* > 0 inside kube_loop_run() */
	int stop_requested;	/* kube_loop_stop(): only while running */
	kube_signal_fn *on_signal;
	void *signal_ud;
	int out_fd;		/* kube_loop_watch_writable(), -1 none */
	kube_fd_fn *out_fn;
	void *out_ud;
	unsigned rnd_state;	/* kube_random() */
};

/* kube_xfer.c: what was sent and received (kube_client_traffic() hands a copy) */
struct kube_counters {
	unsigned long long bytes_in;	/* response headers and bodies, as curl hands them */
	unsigned long requests;		/* attempts sent */
	unsigned long held;		/* bulk transfers that waited their turn */
};

/*
 * kube_watch.c, kube_log.c: the watches and log streams still on the
 * client, and how kube_client_free() stops them. Both are the client's users
 * (their headers include kube_client.h), so the client calls neither by
 * name: each sets its stop-all here when it adds to its list (no circle
 * between the client and its users).
 */
struct kube_watches {
	struct kube_watch *list;
	void (*stop_all)(struct kube_client *c);
};
struct kube_logs {
	struct kube_log *list;
	void (*stop_all)(struct kube_client *c);
	int hold;		/* kube_log_hold_all() */
	double hold_at;		/* kube_now() when the hold began, 0 none */
	double held_s;		/* the holds that ended, summed (deaf time too) */
};

struct kube_client {
	struct kube_setup setup;	/* kube_client.c */
	struct kube_contact contact;	/* kube_call.c */
	struct kube_calls calls;	/* kube_call.c */
	struct kube_xfers xfers;	/* kube_xfer.c */
	struct kube_counters traffic;	/* kube_xfer.c: bumped in curl's callbacks */
	struct kube_loop_state loop;	/* kube_loop.c */
	struct kube_watches watches;	/* kube_watch.c */
	struct kube_logs logs;		/* kube_log.c */
};

/* Request options a transfer needs beyond the kube_request. */
struct kube_xfer_opts {
	long timeout_s;		/* total; 0 = none (streams) */
	kube_xfer_data_fn *on_data;
	kube_xfer_done_fn *on_done;
	void *ud;
};

/* Start a transfer with the given credentials (kube_xfer.c). */
struct kube_xfer *kube_xfer_start(struct kube_client *c, const struct kube_request *rq,
				  const struct kube_cred_view *cred,
				  const struct kube_xfer_opts *o, struct err *e);
/* Abort; on_done is not called. Memory is reclaimed by the loop. */
void kube_xfer_cancel(struct kube_xfer *x);

/* Run one poll + perform + dispatch step, waiting at most max_wait_s. */
int kube_loop_step(struct kube_client *c, double max_wait_s, struct err *e);

/*
 * A call whose 2xx body is streamed to on_data (watch, log follow) instead of
 * collected; retries apply until the first 2xx response. `done` gets e ==
 * NULL when the stream ended cleanly.
 */
struct kube_call *kube_start_stream(struct kube_client *c, const struct kube_request *rq,
				    long timeout_s, kube_xfer_data_fn *on_data,
				    kube_done_fn *done, void *ud);

/* Put back the signal dispositions kube_loop_catch_signals() replaced. */
void kube_loop_release_signals(struct kube_client *c);

/* The loop's part: set up (kube_client_new), and closed with its timers
 * and signal handlers (kube_client_free). */
void kube_loop_init(struct kube_client *c);
void kube_loop_close(struct kube_client *c);

/* The transfers' part (kube_xfer.c): the multi handle made and closed with
 * every transfer still on it; one wait (poll + perform, at most wait_s, also
 * for `extra` fds); whether any transfer is live; and the three moves of
 * the loop's dispatch step: collect the finished, hand stream data and ends
 * on, free the dead. */
int kube_xfer_init(struct kube_client *c, struct err *e);
void kube_xfer_close(struct kube_client *c);
int kube_xfer_wait(struct kube_client *c, struct curl_waitfd *extra, unsigned nextra,
		   double wait_s, struct err *e);
int kube_xfer_busy(const struct kube_client *c);
void kube_xfer_collect(struct kube_client *c);
void kube_xfer_dispatch(struct kube_client *c);
void kube_xfer_reap(struct kube_client *c);

/* Cancel every call still pending (kube_client_free). */
void kube_cancel_all(struct kube_client *c);

/*
 * Seconds the loop has spent not listening to the network (dispatching
 * callbacks: writing log lines to a slow stdout, say), summed since the
 * client was made, including the dispatch in progress. A stream's quiet time
 * is its wall time without data minus the deaf time in between.
 */
double kube_loop_deaf(const struct kube_client *c);

/* Uniform random number in [0,1) for jitter. */
double kube_random(struct kube_client *c);


#endif
