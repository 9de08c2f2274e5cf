/*
 * fuzz_watch_decoder.c - libFuzzer target for the watch stream decoder:
 * lib/kube/kube_watch.c (event lines, ERROR/410 handling, re-list and
 * reconciliation, bookmarks) on top of lib/kube/kube_lines.c (lines from
 * arbitrary chunks), driven through a FAKE transport defined below.
 *
 * The real watch is linked (not copied); what it calls of the client and
 * loop (kube_start, kube_start_stream, kube_cancel, timers, kube_now, ...)
 * is replaced by fakes that hand its callbacks the fuzzer's bytes, so no
 * socket, curl or thread is involved. The Makefile links this target with
 * buf, err, kube_lines, kube_status and kube_watch objects only.
 *
 * Input layout:
 *   byte 0     flags: bit 0 = start with a LIST (else resume from RV "1");
 *              bits 1-3 = line limit for the kube_lines check (8 << n)
 *   byte 1     number of chunk sizes n (low 4 bits)
 *   n bytes    chunk sizes (1..256, used in turn)
 *   rest       payload; with a LIST, the LIST response body comes first,
 *              up to the first NUL byte; the rest is the watch stream
 *
 * Contracts checked:
 *   - the watch keeps at most one call and one timer in flight and frees
 *     both when stopped (and everything else: LeakSanitizer);
 *   - the caller's view stays consistent: ADDED only for an object it does
 *     not know, MODIFIED only for one it knows (also across a 410 re-list);
 *   - when the stream needed no recovery (no RETRYING/FAILED/POLLING, no
 *     stream aborted by an ERROR or malformed line: after those the rest
 *     of a chunk is rightly dropped), the events are exactly the same
 *     whatever the chunking;
 *   - kube_lines: chunked and whole feeding give the same lines, equal to
 *     a reference splitter (cut at the limit with the documented marker,
 *     CR before LF dropped).
 */
#include "fuzz_common.h"
#include "kube/kube_int.h"
#include "kube/kube_lines.h"
#include "kube/kube_loop.h"
#include "kube/kube_watch.h"

/* ---- the fake transport ------------------------------------------------ */

enum { CALL_LIST, CALL_STREAM };

struct kube_call {
	int kind;
	kube_done_fn *done;
	kube_xfer_data_fn *on_data;
	void *ud;
};

static struct kube_call *g_call;
static struct kube_timer *g_timer;
static double g_now;

double kube_now(void)
{
	return g_now;
}

double kube_random(struct kube_client *c)
{
	(void)c;
	return 0.5;
}

void kube_query(struct buf *path, const char *key, const char *value)
{
	buf_addf(path, "%c%s=%s", strchr(path->data, '?') ? '&' : '?', key, value);
}

void kube_req_list(struct kube_request *rq, const struct kube_resource *r,
		   const char *ns, const struct kube_list_opts *o)
{
	memset(rq, 0, sizeof(*rq));
	buf_init(&rq->path);
	buf_init(&rq->body);
	buf_init(&rq->what);
	buf_addf(&rq->path, "/apis/%s/%s/namespaces/%s/%s", r->group, r->version,
		 ns ? ns : "", r->plural);
	if (o && o->continue_token)
		kube_query(&rq->path, "continue", o->continue_token);
	rq->method = KUBE_GET;
	rq->verb = "list";
}

void kube_request_free(struct kube_request *rq)
{
	buf_free(&rq->path);
	buf_free(&rq->body);
	buf_free(&rq->what);
}

static struct kube_call *new_call(int kind, kube_done_fn *done, kube_xfer_data_fn *on_data,
				  void *ud)
{
	FUZZ_CHECK(g_call == NULL, "a second call while one is in flight");
	g_call = calloc(1, sizeof(*g_call));
	g_call->kind = kind;
	g_call->done = done;
	g_call->on_data = on_data;
	g_call->ud = ud;
	return g_call;
}

struct kube_call *kube_start(struct kube_client *c, const struct kube_request *rq,
			     kube_done_fn *done, void *ud)
{
	(void)c;
	(void)rq;
	return new_call(CALL_LIST, done, NULL, ud);
}

struct kube_call *kube_start_stream(struct kube_client *c, const struct kube_request *rq,
				    long timeout_s, kube_xfer_data_fn *on_data,
				    kube_done_fn *done, void *ud)
{
	(void)c;
	(void)timeout_s;
	FUZZ_CHECK(strstr(rq->path.data, "watch=1") != NULL, "a stream that is not a watch");
	return new_call(CALL_STREAM, done, on_data, ud);
}

void kube_cancel(struct kube_call *call)
{
	if (!call)
		return;
	FUZZ_CHECK(call == g_call, "cancel of a call that is not in flight");
	free(call);
	g_call = NULL;
}

struct kube_timer *kube_timer_add(struct kube_client *c, double after_s, kube_timer_fn *fn,
				  void *ud)
{
	FUZZ_CHECK(g_timer == NULL, "a second timer while one is pending");
	FUZZ_CHECK(after_s >= 0 && after_s <= 3600, "timer in %g s", after_s);
	g_timer = calloc(1, sizeof(*g_timer));
	g_timer->c = c;
	g_timer->when = g_now + after_s;
	g_timer->fn = fn;
	g_timer->ud = ud;
	return g_timer;
}

void kube_timer_cancel(struct kube_timer *t)
{
	if (!t)
		return;
	FUZZ_CHECK(t == g_timer, "cancel of a timer that is not pending");
	free(t);
	g_timer = NULL;
}

static const struct kube_resource jaxjobs = { "kubeflow.org", "v1", "jaxjobs", "JAXJob", 1 };

static void resp_init(struct kube_response *rs)
{
	memset(rs, 0, sizeof(*rs));
	buf_init(&rs->body);
	rs->retry_after = -1;
}

static void resp_free(struct kube_response *rs)
{
	buf_free(&rs->body);
	cJSON_Delete(rs->json);
	rs->json = NULL;
}

/* ---- the caller's side ------------------------------------------------- */

struct view {
	struct buf log;		/* "A key rv\n" per event */
	struct buf keys;	/* known keys, each "<key>\n" (found whole: key_at) */
	unsigned trouble;	/* RETRYING/FAILED/POLLING reports */
};

static const char *meta(const cJSON *obj, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(obj, "metadata"), k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Where the known key `key` (len bytes, no '\n') starts in v->keys, or NULL.
 * Entries are compared whole: a substring search would take the seam of two
 * entries for a key ("a\nb\n" holds "\n\n", the framing of uid ""). */
static char *key_at(struct view *v, const char *key, size_t len)
{
	char *p = v->keys.data, *end = v->keys.data + v->keys.len;
	while (p && p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(nl - p) == len && !memcmp(p, key, len))
			return p;
		p = nl + 1;
	}
	return NULL;
}

static void on_event(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct view *v = ud;
	FUZZ_CHECK(cJSON_IsObject(obj), "an event without an object");
	struct buf key = BUF_INIT;
	if (meta(obj, "uid"))
		buf_adds(&key, meta(obj, "uid"));
	else
		buf_addf(&key, "%s/%s", meta(obj, "namespace") ? meta(obj, "namespace") : "",
			 meta(obj, "name") ? meta(obj, "name") : "");
	/* keys holding '\n' cannot be told apart here: skip the view check */
	int plain = memchr(key.data, '\n', key.len) == NULL;
	char *at = plain ? key_at(v, key.data, key.len) : NULL;
	if (type == KUBE_ADDED) {
		FUZZ_CHECK(!plain || !at, "ADDED for an object the caller knows");
		if (plain) {
			buf_add(&v->keys, key.data, key.len);
			buf_addch(&v->keys, '\n');
		}
	} else if (type == KUBE_MODIFIED) {
		FUZZ_CHECK(!plain || at, "MODIFIED for an object the caller does not know");
	} else if (at) {
		size_t n = key.len + 1;
		memmove(at, at + n, v->keys.len - (size_t)(at - v->keys.data) - n);
		buf_truncate(&v->keys, v->keys.len - n);
	}
	buf_addf(&v->log, "%c %s %s\n", "AMD"[type], key.data,
		 meta(obj, "resourceVersion") ? meta(obj, "resourceVersion") : "-");
	buf_free(&key);
}

static void on_state(void *ud, enum kube_watch_state st, const struct err *e)
{
	struct view *v = ud;
	if (st != KUBE_WATCH_SYNCED && st != KUBE_WATCH_RESUMED) {
		v->trouble++;
		FUZZ_CHECK(e != NULL, "state %d without an error", st);
		fuzz_check_err(e, "watch state");
	}
}

/* ---- one run ----------------------------------------------------------- */

struct input {
	int list;
	const uint8_t *sizes;
	size_t nsizes;
	const char *list_body;	/* NUL-terminated copy, or NULL */
	const char *stream;
	size_t stream_len;
};

static void deliver_list(struct kube_call *call, const struct input *in, unsigned *lists)
{
	struct kube_response rs;
	resp_init(&rs);
	struct err e = ERR_INIT;
	g_call = NULL;
	(*lists)++;
	rs.json = in->list_body ? cJSON_Parse(in->list_body) : NULL;
	if (rs.json) {
		rs.status = 200;
		call->done(call->ud, &rs, NULL);
	} else {
		rs.status = 500;
		err_set(&e, ERR_API, "list: HTTP 500");
		e.http_status = 500;
		call->done(call->ud, &rs, &e);
	}
	free(call);
	resp_free(&rs);
}

/* Feed the stream to the watch; `chunked` = use the input's chunk sizes. */
static void run(const struct input *in, int chunked, struct view *v)
{
	struct kube_client c;
	memset(&c, 0, sizeof(c));
	struct kube_watch_opts o;
	memset(&o, 0, sizeof(o));
	o.res = &jaxjobs;
	o.ns = "team-a";
	o.sel.field_selector = "metadata.name=j";
	o.resource_version = in->list ? NULL : "1";
	o.on_event = on_event;
	o.on_state = on_state;
	o.ud = v;
	g_now = 1000;
	struct err e = ERR_INIT;
	struct kube_watch *w = kube_watch_start(&c, &o, &e);
	FUZZ_CHECK(w != NULL, "kube_watch_start: %s", e.msg);

	size_t off = 0, k = 0;
	unsigned lists = 0;
	/* `steps` bounds timers and lists (a stream of empty watches could
	 * go on for ever); chunks are bounded by the stream's length */
	for (int steps = 0; steps < 200;) {
		if (!g_call && g_timer) {
			steps++;
			struct kube_timer *t = g_timer;
			g_timer = NULL;
			g_now = t->when > g_now ? t->when : g_now;
			kube_timer_fn *fn = t->fn;
			void *ud = t->ud;
			free(t);
			fn(ud);
			continue;
		}
		if (!g_call)
			break;		/* failed for good */
		struct kube_call *call = g_call;
		if (call->kind == CALL_LIST) {
			if (lists >= 4)
				break;
			steps++;
			deliver_list(call, in, &lists);
			continue;
		}
		if (off >= in->stream_len)
			break;
		/* one chunk; the call may be cancelled inside (stream_abort) */
		size_t n = in->stream_len - off;
		if (chunked && in->nsizes) {
			size_t want = (size_t)in->sizes[k++ % in->nsizes] + 1;
			n = want < n ? want : n;
		}
		size_t used = call->on_data(call->ud, in->stream + off, n);
		FUZZ_CHECK(used == n || g_call != call, "stream data not taken");
		if (g_call != call)	/* aborted: the rest of this chunk is gone */
			v->trouble++;
		off += n;
		if (g_call == call && off >= in->stream_len) {
			struct kube_response rs;
			resp_init(&rs);
			rs.status = 200;
			g_call = NULL;
			g_now += 2;	/* a stream that ran a while: timeoutSeconds */
			call->done(call->ud, &rs, NULL);
			free(call);
			resp_free(&rs);
		}
	}
	kube_watch_stop(w);
	FUZZ_CHECK(g_call == NULL, "a call left after kube_watch_stop");
	FUZZ_CHECK(g_timer == NULL, "a timer left after kube_watch_stop");
	FUZZ_CHECK(c.watches.list == NULL, "the watch is still linked to the client");
}

/* ---- kube_lines against a reference splitter --------------------------- */

static int collect_line(void *ud, const char *line, size_t len, int truncated)
{
	struct buf *out = ud;
	FUZZ_CHECK(line[len] == '\0', "line not NUL-terminated");
	buf_addf(out, "%d:%zu:", truncated, len);
	buf_add(out, line, len);
	buf_addch(out, '\n');
	return 0;
}

static void reference_lines(const char *p, size_t len, size_t max, struct buf *out)
{
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && p[i] != '\n')
			continue;
		size_t n = i - start;
		if (i == len && n == 0)
			break;
		struct buf line = BUF_INIT;
		int truncated = n > max;
		if (truncated) {
			buf_add(&line, p + start, max);
			buf_addf(&line, " [... %zu bytes truncated]", n - max);
		} else {
			buf_add(&line, p + start, n && p[start + n - 1] == '\r' ? n - 1 : n);
		}
		collect_line(out, line.data, line.len, truncated);
		buf_free(&line);
		start = i + 1;
	}
}

static void check_lines(const struct input *in, size_t max)
{
	struct buf a = BUF_INIT, b = BUF_INIT, want = BUF_INIT;
	struct kube_lines l;
	kube_lines_init(&l, max);
	size_t off = 0, k = 0;
	while (off < in->stream_len) {
		size_t n = in->stream_len - off;
		if (in->nsizes) {
			size_t s = (size_t)in->sizes[k++ % in->nsizes] + 1;
			n = s < n ? s : n;
		}
		FUZZ_CHECK(kube_lines_feed(&l, in->stream + off, n, collect_line, &a) == n,
			   "kube_lines_feed stopped on its own");
		FUZZ_CHECK(l.cur.len <= max, "buffered %zu bytes with a limit of %zu", l.cur.len, max);
		off += n;
	}
	kube_lines_finish(&l, collect_line, &a);
	kube_lines_free(&l);
	kube_lines_init(&l, max);
	kube_lines_feed(&l, in->stream, in->stream_len, collect_line, &b);
	kube_lines_finish(&l, collect_line, &b);
	kube_lines_free(&l);
	reference_lines(in->stream, in->stream_len, max, &want);
	FUZZ_CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len), "chunking changed the lines");
	FUZZ_CHECK(a.len == want.len && !memcmp(a.data, want.data, a.len),
		   "lines differ from the reference splitter");
	buf_free(&a);
	buf_free(&b);
	buf_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct input in;
	memset(&in, 0, sizeof(in));
	in.list = data[0] & 1;
	size_t max = (size_t)8 << ((data[0] >> 1) & 7);
	in.nsizes = data[1] & 15;
	if (size < 2 + in.nsizes)
		return 0;
	in.sizes = data + 2;
	const char *p = (const char *)data + 2 + in.nsizes;
	size_t len = size - 2 - in.nsizes;
	char *list_body = NULL;
	if (in.list) {
		const char *nul = memchr(p, '\0', len);
		size_t n = nul ? (size_t)(nul - p) : len;
		list_body = fuzz_strndup((const uint8_t *)p, n);
		in.list_body = list_body;
		p += nul ? n + 1 : n;
		len -= nul ? n + 1 : n;
	}
	in.stream = p;
	in.stream_len = len;

	struct view a = { BUF_INIT, BUF_INIT, 0 }, b = { BUF_INIT, BUF_INIT, 0 };
	run(&in, 1, &a);
	run(&in, 0, &b);
	if (!a.trouble && !b.trouble)
		FUZZ_CHECK(a.log.len == b.log.len && !memcmp(a.log.data, b.log.data, a.log.len),
			   "chunking changed the events:\n%s---\n%s", a.log.data, b.log.data);
	check_lines(&in, max);
	buf_free(&a.log);
	buf_free(&a.keys);
	buf_free(&b.log);
	buf_free(&b.keys);
	free(list_body);
	return 0;
}
