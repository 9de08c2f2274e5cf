/*
 * kube_xfer.c - see kube_int.h: the transfers on curl's multi handle, one
 * easy handle each. The parts of the client's state written here are
 * `xfers` (the multi handle, the list) and `traffic` (the counters, bumped
 * in curl's callbacks). The loop (kube_loop.c) waits on the transfers
 * through kube_xfer_wait() and, in its dispatch step, has them collected,
 * handed on and freed (kube_xfer_collect, kube_xfer_dispatch, kube_xfer_reap).
 *
 * curl's own callbacks (write, header) only copy bytes into the transfer;
 * everything that reaches user code happens in the dispatch step after
 * curl_multi_perform() has returned. That is what lets callbacks start and
 * stop transfers freely (curl forbids multi calls from inside its
 * callbacks).
 */
#include "kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include "version.h"

/* ---- curl callbacks: copy bytes, nothing else --------------------------- */

static int is_2xx(long s)
{
	return s >= 200 && s < 300;
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
	struct kube_xfer *x = ud;
	size_t len = size * n;
	if (!x->status)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
	int streaming = x->on_data && is_2xx(x->status);
	if (streaming && x->in.len >= KUBE_STREAM_PENDING_MAX) {
		x->paused = 1;
		return CURL_WRITEFUNC_PAUSE;
	}
	if (!streaming && x->in.len + len > x->body_max)
		return 0;	/* CURLE_WRITE_ERROR: reported as "response too large" */
	buf_add(&x->in, p, len);
	x->c->traffic.bytes_in += len;	/* taken (a paused chunk comes again) */
	return len;
}

static void copy_header(const char *v, size_t n, char *dst, size_t cap)
{
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct kube_xfer *x = ud;
	size_t len = size * n;
	x->c->traffic.bytes_in += len;
	if (len >= 5 && !memcmp(p, "HTTP/", 5)) {	/* a new response (after 100) */
		x->retry_after[0] = x->content_type[0] = '\0';
		x->status = 0;
		x->head_done = 0;
	} else if (len <= 2 && (len == 0 || p[0] == '\r' || p[0] == '\n')) {
		x->head_done = 1;	/* the blank line: the request is out */
	} else if (len > 12 && !strncasecmp(p, "Retry-After:", 12)) {
		copy_header(p + 12, len - 12, x->retry_after, sizeof(x->retry_after));
	} else if (len > 13 && !strncasecmp(p, "Content-Type:", 13)) {
		copy_header(p + 13, len - 13, x->content_type, sizeof(x->content_type));
	}
	return len;
}

/* ---- transfers ---------------------------------------------------------- */

static const char *method_name(enum kube_method m)
{
	static const char *const names[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };
	return names[m];
}

static void set_tls(struct kube_xfer *x, const struct kube_config *cfg,
		    const struct kube_cred_view *cred)
{
	CURL *h = x->easy;
	if (cfg->insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (cfg->ca_pem.len) {
		/* trust the cluster CA only, as kubectl does: no system store */
		struct curl_blob ca = { cfg->ca_pem.data, cfg->ca_pem.len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
		curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
	}
	if (cred->cert_pem && cred->cert_pem->len) {
		struct curl_blob cert = { cred->cert_pem->data, cred->cert_pem->len, CURL_BLOB_COPY };
		struct curl_blob key = { cred->key_pem->data, cred->key_pem->len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
}

static void set_headers(struct kube_xfer *x, const struct kube_request *rq,
			const struct kube_cred_view *cred)
{
	struct curl_slist *l = NULL;
	l = curl_slist_append(l, "Accept: application/json");
	l = curl_slist_append(l, "Expect:");
	if (rq->content_type) {
		struct buf h = BUF_INIT;
		buf_addf(&h, "Content-Type: %s", rq->content_type);
		l = curl_slist_append(l, h.data);
		buf_free(&h);
	}
	if (cred->token && *cred->token) {
		struct buf h = BUF_INIT;
		buf_addf(&h, "Authorization: Bearer %s", cred->token);
		l = curl_slist_append(l, h.data);
		OPENSSL_cleanse(h.data, h.len);
		buf_free(&h);
	}
	x->headers = l;
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, l);
}

static void set_method(struct kube_xfer *x, const struct kube_request *rq)
{
	CURL *h = x->easy;
	if (rq->body.len || rq->method == KUBE_POST || rq->method == KUBE_PUT ||
	    rq->method == KUBE_PATCH) {
		buf_add(&x->req_body, rq->body.data, rq->body.len);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, x->req_body.data);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->req_body.len);
	}
	if (rq->method != KUBE_GET && rq->method != KUBE_POST)
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method_name(rq->method));
	x->get = rq->method == KUBE_GET && !rq->body.len;
}

/* A transfer's memory and its easy handle, not yet on the multi. */
static struct kube_xfer *xfer_new(struct kube_client *c, const struct kube_request *rq,
				  const struct kube_xfer_opts *o, struct err *e)
{
	struct kube_xfer *x = xcalloc(1, sizeof(*x));
	x->c = c;
	buf_init(&x->req_body);
	buf_init(&x->in);
	x->on_data = o->on_data;
	x->body_max = rq->body_max ? rq->body_max : KUBE_BODY_MAX;
	x->on_done = o->on_done;
	x->ud = o->ud;
	x->easy = curl_easy_init();
	if (!x->easy) {
		free(x);
		err_set(e, ERR_INTERNAL, "curl_easy_init failed");
		return NULL;
	}
	return x;
}

/* Where it goes and how: URL, protocol, timeouts, buffers, callbacks. */
static void set_transport(struct kube_xfer *x, const struct kube_request *rq,
			  const struct kube_xfer_opts *o)
{
	const struct kube_setup *set = &x->c->setup;
	CURL *h = x->easy;
	struct buf url = BUF_INIT;
	buf_addf(&url, "%s%s", set->url_base, rq->path.data);
	curl_easy_setopt(h, CURLOPT_URL, url.data);
	buf_free(&url);
	curl_easy_setopt(h, CURLOPT_PRIVATE, x);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "jaxjob/" JAXJOB_VERSION);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/*
	 * HTTP/2 when the server picks it in the TLS handshake (ALPN; the
	 * kube-apiserver does), multiplexed on one connection per client:
	 * every watch and log stream of a launch rides one TLS connection up
	 * to the server's SETTINGS_MAX_CONCURRENT_STREAMS (250 on a default
	 * kube-apiserver), then curl opens the next one. PIPEWAIT makes the
	 * transfers started together wait for the first handshake instead of
	 * each opening its own connection. Plain http:// and servers without
	 * h2 in ALPN (the test double) get HTTP/1.1, one connection per
	 * stream as before. Backpressure on one stream (on_write pausing it)
	 * in curl 7.88 stops the whole connection until the next dispatch
	 * drains it: dispatch_xfers() always consumes and unpauses in the
	 * same step, so other streams wait at most one loop step.
	 */
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, set->http1_only ? (long)CURL_HTTP_VERSION_1_1
								: (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(h, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, KUBE_CONNECT_TIMEOUT_S);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, o->timeout_s);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 10L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	/* A stream (watch, log follow) lives as long as the launch, one per
	 * worker: its receive buffer is most of what a worker costs in memory
	 * (curl's default 16 kB, 360 kB of heap at 16 workers). Its data comes
	 * a line or an event at a time; 8 kB halves that and costs nothing
	 * measurable at 10,000 lines/s (bench/README.md "metrics"). */
	if (o->on_data)
		curl_easy_setopt(h, CURLOPT_BUFFERSIZE, KUBE_STREAM_BUFFER);
	/* curl 7.88 gives every transfer a 64 kB send buffer (its
	 * UPLOADBUFFER_DEFAULT; an HTTP/1.1 request's head is written through
	 * it) and keeps it until the handle is freed: with 64 log streams open
	 * that was 4.4 MB, a third of a 1,000-worker launch's heap
	 * (bench/README.md "big jobs"). What we send is a request head and a
	 * small JSON body; curl's minimum, 16 kB, sends either in one piece. */
	curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, KUBE_UPLOAD_BUFFER);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	if (set->cfg.proxy_url)
		curl_easy_setopt(h, CURLOPT_PROXY, set->cfg.proxy_url);
	if (set->connect_to)
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, set->connect_to);
}

/*
 * Bulk transfers (kube_request.bulk: a big job's log follows, reads and
 * tail reads) open their connections KUBE_BULK_OPENING at a time. On
 * HTTP/1.1 each transfer that finds no idle connection opens one of its
 * own, and a TLS handshake in flight holds ~35 kB that a connection in use
 * does not (OpenSSL's handshake buffer and BIO, the key exchange, curl's
 * send buffer): when 64 workers of a 1,000-worker job exit together, 64
 * tail reads opened 64 connections beside the 64 follows, and that burst
 * was the launch's peak (bench/README.md, big jobs, 2026-11-29). A held
 * transfer has its easy handle but is not on the multi handle; it is
 * added, oldest first, when one of the opening ones has sent its request
 * (curl's pretransfer time: connected, TLS done) or ended. An opening
 * transfer is bounded by the connect timeout, so the wait is too. Other
 * requests (watches, the job's reads and writes) never wait. On HTTP/2
 * the requests are streams of one connection and turns come at once.
 */
static int bulk_opening(const struct kube_client *c)
{
	int n = 0;
	for (const struct kube_xfer *x = c->xfers.list; x; x = x->next)
		if (x->bulk && !x->held && !x->dead && !x->finished && !x->connected)
			n++;
	return n;
}

static void note_connected(struct kube_xfer *x)
{
	curl_off_t pre = 0;
	if (x->connected || x->held || x->dead || x->finished)
		return;
	if (x->head_done || (curl_easy_getinfo(x->easy, CURLINFO_PRETRANSFER_TIME_T, &pre) ==
			     CURLE_OK && pre > 0))
		x->connected = 1;
}

static void release_held(struct kube_client *c)
{
	int opening = bulk_opening(c);
	while (opening < KUBE_BULK_OPENING) {
		struct kube_xfer *next = NULL;
		for (struct kube_xfer *x = c->xfers.list; x; x = x->next)
			if (x->held && !x->dead && (!next || x->seq < next->seq))
				next = x;
		if (!next)
			return;
		next->held = 0;
		next->started = kube_now();
		CURLMcode mc = curl_multi_add_handle(c->xfers.multi, next->easy);
		if (mc != CURLM_OK) {	/* ends as a failed transfer, in the next dispatch */
			next->finished = 1;
			next->result = CURLE_FAILED_INIT;
			snprintf(next->errbuf, sizeof(next->errbuf), "curl_multi_add_handle: %s",
				 curl_multi_strerror(mc));
			continue;
		}
		opening++;
	}
}

struct kube_xfer *kube_xfer_start(struct kube_client *c, const struct kube_request *rq,
				  const struct kube_cred_view *cred,
				  const struct kube_xfer_opts *o, struct err *e)
{
	struct kube_xfer *x = xfer_new(c, rq, o, e);
	if (!x)
		return NULL;
	set_transport(x, rq, o);
	set_tls(x, &c->setup.cfg, cred);
	set_headers(x, rq, cred);
	set_method(x, rq);
	x->bulk = rq->bulk;
	x->seq = ++c->xfers.seq;
	x->started = kube_now();
	if (x->bulk && bulk_opening(c) >= KUBE_BULK_OPENING) {
		x->held = 1;	/* its turn comes in release_held() */
		c->traffic.held++;
	} else {
		CURLMcode mc = curl_multi_add_handle(c->xfers.multi, x->easy);
		if (mc != CURLM_OK) {
			curl_slist_free_all(x->headers);
			curl_easy_cleanup(x->easy);
			buf_free(&x->req_body);
			free(x);
			err_set(e, ERR_INTERNAL, "curl_multi_add_handle: %s", curl_multi_strerror(mc));
			return NULL;
		}
	}
	x->next = c->xfers.list;
	c->xfers.list = x;
	c->traffic.requests++;
	return x;
}

void kube_xfer_cancel(struct kube_xfer *x)
{
	if (!x || x->dead)
		return;
	x->dead = 1;
	if (!x->held)
		curl_multi_remove_handle(x->c->xfers.multi, x->easy);
}

static void xfer_free(struct kube_xfer *x)
{
	if (!x->finished && !x->dead && !x->held)
		curl_multi_remove_handle(x->c->xfers.multi, x->easy);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	buf_free(&x->req_body);
	buf_free(&x->in);
	free(x);
}

/* ---- the multi handle ---------------------------------------------------- */

int kube_xfer_init(struct kube_client *c, struct err *e)
{
	c->xfers.multi = curl_multi_init();
	if (!c->xfers.multi)
		return err_set(e, ERR_INTERNAL, "curl_multi_init failed");
	/*
	 * One connection carries every stream when the server speaks HTTP/2
	 * (see set_transport). curl's own cap on streams per connection is
	 * 100; the server's SETTINGS (250 on a default kube-apiserver, Go's
	 * http2 default) should be the limit, so ours is set above it.
	 */
	curl_multi_setopt(c->xfers.multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
	curl_multi_setopt(c->xfers.multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);
	return 0;
}

void kube_xfer_close(struct kube_client *c)
{
	for (struct kube_xfer *x = c->xfers.list; x; x = x->next)
		kube_xfer_cancel(x);
	kube_xfer_reap(c);
	curl_multi_cleanup(c->xfers.multi);
	c->xfers.multi = NULL;
}

int kube_xfer_wait(struct kube_client *c, struct curl_waitfd *extra, unsigned nextra,
		   double wait_s, struct err *e)
{
	CURLMcode mc = curl_multi_poll(c->xfers.multi, extra, nextra, (int)(wait_s * 1000 + 0.999),
				       NULL);
	int running;
	if (mc == CURLM_OK)
		mc = curl_multi_perform(c->xfers.multi, &running);
	if (mc != CURLM_OK)
		return err_set(e, ERR_INTERNAL, "curl multi: %s", curl_multi_strerror(mc));
	return 0;
}

int kube_xfer_busy(const struct kube_client *c)
{
	for (const struct kube_xfer *x = c->xfers.list; x; x = x->next)
		if (!x->dead)
			return 1;
	return 0;
}

/* ---- the dispatch: ends collected, data and ends handed on ---------------- */

/*
 * A GET whose response has begun sends nothing more on its connection, yet
 * two send buffers stay with it for as long as it lives, ~33 kB, which on
 * HTTP/1.1 (one connection per transfer: the test double, an HTTP/1.1
 * proxy) is a third of what each of a big job's 64 open log streams costs
 * (bench/README.md, big jobs, 2026-11-29):
 *   - curl 7.88's upload buffer (16 kB at least, KUBE_UPLOAD_BUFFER): an
 *     HTTP/1.1 request over TLS is copied into it to be sent
 *     (Curl_buffer_send, lib/http.c) and it is freed only with the handle
 *     or at the transfer's end (multi_done, lib/multi.c). Setting
 *     CURLOPT_UPLOAD_BUFFERSIZE frees it ("force a realloc next
 *     opportunity", lib/setopt.c), and curl allocates it again should the
 *     handle ever send (Curl_get_upload_buffer, lib/transfer.c; all curl
 *     7.88.1). Newer curls have no such buffer; the call is then harmless.
 *   - OpenSSL's write buffer (16.7 kB): curl asks for SSL_MODE_RELEASE_BUFFERS,
 *     but the buffer is set up again after the handshake to read the
 *     server's TLS 1.3 session tickets and is released only after a write,
 *     which a stream never makes. SSL_free_buffers() gives back both
 *     buffers when neither holds pending data (0 otherwise: asked again at
 *     the next dispatch); OpenSSL sets them up again on the next read or
 *     write (ssl3_read_n, do_ssl3_write; OpenSSL 3.0).
 * Done here, after curl_multi_perform() has returned, never inside curl's
 * callbacks. Not on HTTP/2: no upload buffer there, and its one connection
 * is written to all the time.
 */
static void xfer_trim(struct kube_xfer *x)
{
	long version = 0;
	struct curl_tlssessioninfo *tls = NULL;

	if (x->dead || x->finished || x->trimmed > 0 || !x->get || !x->head_done)
		return;
	if (curl_easy_getinfo(x->easy, CURLINFO_HTTP_VERSION, &version) != CURLE_OK ||
	    version == CURL_HTTP_VERSION_2_0) {
		x->trimmed = 1;
		return;
	}
	if (x->trimmed == 0)
		curl_easy_setopt(x->easy, CURLOPT_UPLOAD_BUFFERSIZE, KUBE_UPLOAD_BUFFER);
	if (curl_easy_getinfo(x->easy, CURLINFO_TLS_SSL_PTR, &tls) != CURLE_OK || !tls ||
	    tls->backend != CURLSSLBACKEND_OPENSSL || !tls->internals ||
	    SSL_free_buffers(tls->internals))
		x->trimmed = 1;
	else
		x->trimmed = -1;	/* the curl buffer is back; OpenSSL's next time */
}

void kube_xfer_collect(struct kube_client *c)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(c->xfers.multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		struct kube_xfer *x = NULL;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		x->finished = 1;
		x->result = m->data.result;
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
		curl_multi_remove_handle(c->xfers.multi, x->easy);
	}
}

static void trace(const struct kube_xfer *x)
{
	char *url = NULL;
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &url);
	const char *path = url ? url + strlen(x->c->setup.url_base) : "?";
	char *method = NULL;
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_METHOD, &method);
	struct buf line = BUF_INIT;
	buf_addf(&line, "kube: %s %s -> %ld%s%s (%.0f ms)", method ? method : "?", path,
		 x->status, x->result ? " " : "", x->result ? curl_easy_strerror(x->result) : "",
		 (kube_now() - x->started) * 1000);
	x->c->setup.trace(line.data, x->c->setup.trace_ud);
	buf_free(&line);
}

/* Hand buffered stream data to its consumer; finished transfers to on_done. */
void kube_xfer_dispatch(struct kube_client *c)
{
	for (struct kube_xfer *x = c->xfers.list; x; x = x->next) {
		note_connected(x);
		if (x->trimmed <= 0)
			xfer_trim(x);
		if (!x->dead && x->on_data && is_2xx(x->status) && x->in.len) {
			size_t used = x->on_data(x->ud, x->in.data, x->in.len);
			buf_consume(&x->in, used);
		}
		/*
		 * A burst (a worker's backlog arriving at once) grows the buffer
		 * up to the pause bound; give it back once drained, or every
		 * stream of a big job keeps its largest burst for its lifetime.
		 */
		if (!x->in.len && x->in.cap > KUBE_STREAM_KEEP_CAP)
			buf_free(&x->in);
		if (!x->dead && x->paused && x->in.len < KUBE_STREAM_PENDING_MAX / 2) {
			x->paused = 0;
			curl_easy_pause(x->easy, CURLPAUSE_CONT);
		}
		/* a finished stream whose consumer holds its data (kube_log_hold_all)
		 * ends once the data is taken, never with it */
		if (!x->dead && x->finished && !(x->on_data && is_2xx(x->status) && x->in.len)) {
			if (c->setup.trace)
				trace(x);
			x->dead = 1;
			x->on_done(x->ud, x);
		}
	}
}

void kube_xfer_reap(struct kube_client *c)
{
	for (struct kube_xfer **p = &c->xfers.list; *p;) {
		struct kube_xfer *x = *p;
		if (x->dead) {
			*p = x->next;
			xfer_free(x);
		} else {
			p = &x->next;
		}
	}
	release_held(c);
}
