/*
 * kube_watch.c - see kube_watch.h: LIST, then WATCH from its
 * resourceVersion, for ever, with every way a watch can end handled.
 *
 * State: the remembered resourceVersion, the objects the caller has been
 * told about (key → resourceVersion + last object), and at most one call
 * or timer in flight. Every entry from the loop (call finished, stream
 * data, timer) holds `busy` while user callbacks may run, so that
 * kube_watch_stop() from inside a callback only marks the watch and the
 * entry point frees it on the way out.
 */
#include "kube_watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "kube_int.h"
#include "kube_lines.h"
#include "kube_status.h"

#define WATCH_MAX_EVENT (16u * 1024 * 1024)	/* one JSON event line */
#define WATCH_DEFAULT_TIMEOUT_S 300
#define WATCH_DEFAULT_POLL_S 5.0
#define WATCH_PAGE 500
#define WATCH_QUICK_END_S 1.0	/* a stream that ends sooner, empty, counts as an error */

struct tracked {
	char *key;
	char *rv;
	cJSON *obj;		/* its last state; NULL when meta_only */
	char *meta;		/* meta_only: its metadata packed (meta_pack) */
	int seen;
};

struct kube_watch {
	struct kube_client *c;
	struct kube_watch_opts o;	/* strings below are owned copies */
	char *ns, *label, *field;
	struct buf rv;
	struct tracked *objs;
	size_t n, cap;
	struct kube_call *call;
	struct kube_timer *timer;
	struct kube_lines lines;
	cJSON *acc;		/* list pages so far */
	unsigned failures[2];	/* in a row: answered, unanswered (kube_backoff_after) */
	unsigned expired;	/* 410s since the last healthy stream, for re-list backoff */
	int troubled;		/* RETRYING was reported: RESUMED or SYNCED is due */
	int polling, failed, busy, stopped, listing;
	int meta_only;		/* kube_watch_track_meta(): objects tracked by their metadata only */
	double stream_started;
	unsigned stream_events;
	struct kube_watch *next, **prev;
};

static void start_list(struct kube_watch *w, const char *cont);
static void start_watch(struct kube_watch *w);

static void set_rv(struct kube_watch *w, const char *rv)
{
	if (rv && *rv) {
		buf_reset(&w->rv);
		buf_adds(&w->rv, rv);
	}
}

/* ---- tracked objects ------------------------------------------------------ */

static void obj_key(const cJSON *obj, struct buf *key)
{
	const char *uid = jtree_get_string(obj, "metadata.uid", NULL);
	if (uid)
		buf_adds(key, uid);
	else
		buf_addf(key, "%s/%s", jtree_get_string(obj, "metadata.namespace", ""),
			 jtree_get_string(obj, "metadata.name", ""));
}

static struct tracked *find(struct kube_watch *w, const char *key)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->objs[i].key, key))
			return &w->objs[i];
	return NULL;
}

/*
 * What kube_watch_track_meta() keeps of an object: its metadata's names,
 * uid and resourceVersion - enough to key it and to report its deletion.
 * Packed in one string, each field '+' and its value or '-' when absent,
 * ended by a NUL: ~100 bytes a pod. As a cJSON object (two objects, four
 * strings, their keys and values: ten allocations) it was ~600, 0.6 MB of
 * a 1,000-worker launch's heap (bench/README.md, big jobs, 2026-11-29);
 * the object is made again only for a DELETED a re-list finds (meta_obj).
 */
static const char *const meta_keep[] = { "name", "namespace", "uid", "resourceVersion" };
#define META_KEEP (sizeof(meta_keep) / sizeof(meta_keep[0]))

static char *meta_pack(const cJSON *obj)
{
	const cJSON *m = jtree_get(obj, "metadata");
	struct buf b = BUF_INIT;
	char *out;

	for (size_t i = 0; i < META_KEEP; i++) {
		const char *v = jtree_get_string(m, meta_keep[i], NULL);
		buf_addch(&b, v ? '+' : '-');
		if (v)
			buf_adds(&b, v);
		buf_addch(&b, '\0');
	}
	out = xmalloc(b.len);	/* exactly: the buffer's spare room is not kept */
	memcpy(out, b.data, b.len);
	buf_free(&b);
	return out;
}

static cJSON *meta_obj(const char *packed)
{
	cJSON *out = cJSON_CreateObject(), *m = cJSON_AddObjectToObject(out, "metadata");

	for (size_t i = 0; i < META_KEEP; i++) {
		if (*packed == '+')
			cJSON_AddStringToObject(m, meta_keep[i], packed + 1);
		packed += strlen(packed) + 1;
	}
	return out;
}

static void track_set(const struct kube_watch *w, struct tracked *t, const cJSON *obj)
{
	const char *rv = jtree_get_string(obj, "metadata.resourceVersion", NULL);
	free(t->rv);
	t->rv = xstrdup(rv ? rv : "");
	cJSON_Delete(t->obj);
	free(t->meta);
	t->obj = w->meta_only ? NULL : cJSON_Duplicate(obj, 1);
	t->meta = w->meta_only ? meta_pack(obj) : NULL;
}

static struct tracked *track_add(struct kube_watch *w, const char *key, const cJSON *obj)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 8;
		w->objs = xrealloc(w->objs, w->cap * sizeof(*w->objs));
	}
	struct tracked *t = &w->objs[w->n++];
	memset(t, 0, sizeof(*t));
	t->key = xstrdup(key);
	track_set(w, t, obj);
	return t;
}

/* Remove entry i; its object is handed to the caller (who deletes it). */
static cJSON *track_remove(struct kube_watch *w, size_t i)
{
	cJSON *obj = w->objs[i].meta ? meta_obj(w->objs[i].meta) : w->objs[i].obj;
	free(w->objs[i].meta);
	free(w->objs[i].key);
	free(w->objs[i].rv);
	w->objs[i] = w->objs[--w->n];
	return obj;
}

/* ---- delivering ------------------------------------------------------------ */

static void emit(struct kube_watch *w, enum kube_event_type type, const cJSON *obj)
{
	if (!w->stopped)
		w->o.on_event(w->o.ud, type, obj);
}

static void state(struct kube_watch *w, enum kube_watch_state st, const struct err *e)
{
	if (!w->stopped && w->o.on_state)
		w->o.on_state(w->o.ud, st, e);
}

/* A live event: update what we track, then tell the caller. */
static void apply_event(struct kube_watch *w, enum kube_event_type type, const cJSON *obj)
{
	struct buf key = BUF_INIT;
	obj_key(obj, &key);
	struct tracked *t = find(w, key.data);
	if (type == KUBE_DELETED) {
		if (t)
			cJSON_Delete(track_remove(w, (size_t)(t - w->objs)));
	} else if (t) {
		track_set(w, t, obj);
		type = KUBE_MODIFIED;
	} else {
		track_add(w, key.data, obj);
		type = KUBE_ADDED;
	}
	buf_free(&key);
	emit(w, type, obj);
}

/*
 * A full LIST: tell the caller what changed since what it knows - new
 * objects ADDED, changed ones MODIFIED, vanished ones DELETED.
 */
static void reconcile(struct kube_watch *w, const cJSON *items)
{
	for (size_t i = 0; i < w->n; i++)
		w->objs[i].seen = 0;
	const cJSON *obj;
	cJSON_ArrayForEach(obj, items) {
		struct buf key = BUF_INIT;
		obj_key(obj, &key);
		struct tracked *t = find(w, key.data);
		const char *rv = jtree_get_string(obj, "metadata.resourceVersion", NULL);
		if (!t) {
			track_add(w, key.data, obj)->seen = 1;
			emit(w, KUBE_ADDED, obj);
		} else {
			t->seen = 1;
			if (strcmp(t->rv, rv ? rv : "")) {
				track_set(w, t, obj);
				emit(w, KUBE_MODIFIED, obj);
			}
		}
		buf_free(&key);
	}
	for (size_t i = 0; i < w->n;) {
		if (w->objs[i].seen) {
			i++;
			continue;
		}
		cJSON *gone = track_remove(w, i);
		emit(w, KUBE_DELETED, gone);
		cJSON_Delete(gone);
	}
}

/* ---- lifetime ---------------------------------------------------------------- */

static void watch_free(struct kube_watch *w)
{
	*w->prev = w->next;
	if (w->next)
		w->next->prev = w->prev;
	for (size_t i = 0; i < w->n; i++) {
		free(w->objs[i].key);
		free(w->objs[i].rv);
		free(w->objs[i].meta);
		cJSON_Delete(w->objs[i].obj);
	}
	free(w->objs);
	free(w->ns);
	free(w->label);
	free(w->field);
	buf_free(&w->rv);
	kube_lines_free(&w->lines);
	cJSON_Delete(w->acc);
	free(w);
}

static void enter(struct kube_watch *w)
{
	w->busy++;
}

/* Leave a loop entry point; 1 when the watch is gone. */
static int leave(struct kube_watch *w)
{
	if (--w->busy == 0 && w->stopped) {
		watch_free(w);
		return 1;
	}
	return 0;
}

void kube_watch_stop(struct kube_watch *w)
{
	if (!w || w->stopped)
		return;
	w->stopped = 1;
	kube_cancel(w->call);
	w->call = NULL;
	kube_timer_cancel(w->timer);
	w->timer = NULL;
	if (!w->busy)
		watch_free(w);
}

/* The client's stop_watches (kube_int.h): every watch still on it, at its free. */
static void stop_all(struct kube_client *c)
{
	while (c->watches.list) {
		struct kube_watch *w = c->watches.list;
		w->busy = 0;
		w->stopped = 0;
		kube_watch_stop(w);
	}
}

/* ---- errors and backoff -------------------------------------------------- */

static void resume_timer(void *ud)
{
	struct kube_watch *w = ud;
	w->timer = NULL;
	enter(w);
	if (w->listing || w->polling || !w->rv.len)
		start_list(w, NULL);
	else
		start_watch(w);
	leave(w);
}

static void backoff(struct kube_watch *w, const struct err *e, double retry_after)
{
	w->troubled = 1;
	state(w, KUBE_WATCH_RETRYING, e);
	if (w->stopped)
		return;
	double delay = kube_backoff_after(e, w->failures, retry_after, kube_random(w->c));
	w->timer = kube_timer_add(w->c, delay, resume_timer, w);
}

static int final_error(const struct err *e)
{
	switch (e->http_status) {
	case 400: case 401: case 403: case 404: case 405: case 406: case 415: case 422:
		return 1;
	default:
		return e->http_status == 0 &&
		       (e->code == ERR_CONFIG || e->code == ERR_INTERNAL || e->code == ERR_AUTH ||
			kube_err_tls_untrusted(e));
	}
}

/*
 * 410 Expired/Gone: the resourceVersion we hold is too old for the server
 * (compaction, or a restarted apiserver whose watch cache starts afresh).
 * Resending it can only earn another 410, so the one way on is a fresh LIST,
 * always - whatever errors came before (an outage raises `failures`, and a
 * restart answers every resume with 410). The first re-list goes out at once;
 * repeated ones back off between re-lists, never instead of them, as
 * client-go's reflector does.
 */
static void relist(struct kube_watch *w, const struct err *e)
{
	w->listing = 1;
	buf_reset(&w->rv);
	if (w->expired++ == 0) {
		start_list(w, NULL);
		return;
	}
	w->troubled = 1;
	state(w, KUBE_WATCH_RETRYING, e);
	if (w->stopped)
		return;
	w->timer = kube_timer_add(w->c, kube_backoff(w->expired - 2, -1, kube_random(w->c)),
				  resume_timer, w);
}

static void failed(struct kube_watch *w, const struct err *e, double retry_after)
{
	if (e->http_status == 410) {
		relist(w, e);
	} else if (!w->listing && !w->polling && e->http_status == 403) {
		w->polling = 1;
		state(w, KUBE_WATCH_POLLING, e);
		if (!w->stopped)
			start_list(w, NULL);
	} else if (final_error(e)) {
		w->failed = 1;
		state(w, KUBE_WATCH_FAILED, e);
	} else {
		backoff(w, e, retry_after);
	}
}

/* ---- LIST ------------------------------------------------------------------- */

static void poll_timer(void *ud)
{
	struct kube_watch *w = ud;
	w->timer = NULL;
	enter(w);
	start_list(w, NULL);
	leave(w);
}

static void list_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct kube_watch *w = ud;
	w->call = NULL;
	enter(w);
	if (e) {
		cJSON_Delete(w->acc);
		w->acc = NULL;
		failed(w, e, rs->retry_after);
		leave(w);
		return;
	}
	cJSON *page = rs->json;
	if (!cJSON_IsObject(page)) {	/* never reconcile against nothing: that would "delete" all */
		struct err bad = ERR_INIT;
		err_set(&bad, ERR_API, "list %s: the answer is not a list object", w->o.res->plural);
		bad.http_status = 500;
		failed(w, &bad, -1);
		leave(w);
		return;
	}
	const char *cont = jtree_get_string(page, "metadata.continue", NULL);
	if (!w->acc) {
		w->acc = page;
		rs->json = NULL;
		set_rv(w, jtree_get_string(page, "metadata.resourceVersion", NULL));
	} else {
		cJSON *dst = cJSON_GetObjectItemCaseSensitive(w->acc, "items");
		cJSON *src = cJSON_GetObjectItemCaseSensitive(page, "items");
		while (cJSON_IsArray(dst) && cJSON_GetArraySize(src) > 0)
			cJSON_AddItemToArray(dst, cJSON_DetachItemFromArray(src, 0));
	}
	if (cont && *cont) {
		char *next = xstrdup(cont);
		start_list(w, next);
		free(next);
		leave(w);
		return;
	}
	cJSON *all = w->acc;
	w->acc = NULL;
	w->listing = 0;
	w->failures[0] = w->failures[1] = 0;
	w->troubled = 0;
	reconcile(w, cJSON_GetObjectItemCaseSensitive(all, "items"));
	cJSON_Delete(all);
	state(w, KUBE_WATCH_SYNCED, NULL);
	if (!w->stopped && w->polling)
		w->timer = kube_timer_add(w->c, w->o.poll_interval_s, poll_timer, w);
	else if (!w->stopped)
		start_watch(w);
	leave(w);
}

static void start_list(struct kube_watch *w, const char *cont)
{
	struct kube_list_opts sel = w->o.sel;
	sel.continue_token = cont;
	sel.not_older_than = NULL;	/* a watch starts from a consistent list */
	if (!cont) {
		cJSON_Delete(w->acc);
		w->acc = NULL;
	}
	w->listing = 1;
	struct kube_request rq;
	kube_req_list(&rq, w->o.res, w->ns, &sel);
	rq.retry_s = -1;	/* we back off ourselves, and say so */
	w->call = kube_start(w->c, &rq, list_done, w);
	kube_request_free(&rq);
}

/* ---- WATCH ------------------------------------------------------------------ */

static enum kube_event_type event_type(const char *t, int *known)
{
	*known = 1;
	if (!strcmp(t, "ADDED"))
		return KUBE_ADDED;
	if (!strcmp(t, "MODIFIED"))
		return KUBE_MODIFIED;
	if (!strcmp(t, "DELETED"))
		return KUBE_DELETED;
	*known = 0;
	return KUBE_ADDED;
}

/* The stream said something we cannot go on from: drop it and recover. */
static void stream_abort(struct kube_watch *w, const struct err *e)
{
	kube_cancel(w->call);
	w->call = NULL;
	failed(w, e, -1);
}

static void on_error_event(struct kube_watch *w, const cJSON *status)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(status, "code");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(status, "message");
	struct err e = ERR_INIT;
	err_set(&e, ERR_API, "watch %s: %s", w->o.res->plural,
		cJSON_IsString(msg) ? msg->valuestring : "ERROR event");
	e.http_status = cJSON_IsNumber(code) ? code->valueint : 500;
	if (e.http_status == 403)	/* not a reason to poll: the watch itself was allowed */
		e.http_status = 500;
	stream_abort(w, &e);
}

static int on_line(void *ud, const char *line, size_t len, int truncated)
{
	struct kube_watch *w = ud;
	struct err e = ERR_INIT;
	if (w->stopped || !w->call)
		return 1;
	if (truncated) {
		err_set(&e, ERR_API, "watch %s: an event larger than %u bytes", w->o.res->plural,
			WATCH_MAX_EVENT);
		stream_abort(w, &e);
		return 1;
	}
	cJSON *ev = cJSON_ParseWithLength(line, len);
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
	int known;
	if (!cJSON_IsString(type) || !cJSON_IsObject(obj)) {
		cJSON_Delete(ev);
		if (len == 0)
			return 0;
		err_set(&e, ERR_API, "watch %s: malformed event line", w->o.res->plural);
		stream_abort(w, &e);
		return 1;
	}
	w->stream_events++;
	enum kube_event_type t = event_type(type->valuestring, &known);
	if (!strcmp(type->valuestring, "ERROR")) {
		on_error_event(w, obj);
		cJSON_Delete(ev);
		return 1;
	}
	set_rv(w, jtree_get_string(obj, "metadata.resourceVersion", NULL));
	w->expired = 0;		/* a healthy stream (a BOOKMARK counts) */
	if (w->troubled) {
		w->troubled = 0;
		state(w, KUBE_WATCH_RESUMED, NULL);
		if (w->stopped || !w->call) {
			cJSON_Delete(ev);
			return 1;
		}
	}
	if (known) {
		w->failures[0] = w->failures[1] = 0;
		apply_event(w, t, obj);
	}
	/* BOOKMARK (and types we do not know) only move the resourceVersion */
	cJSON_Delete(ev);
	return w->stopped || !w->call;
}

static size_t stream_data(void *ud, const char *data, size_t len)
{
	struct kube_watch *w = ud;
	enter(w);
	if (!w->stopped)
		kube_lines_feed(&w->lines, data, len, on_line, w);
	leave(w);
	return len;
}

static void stream_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct kube_watch *w = ud;
	w->call = NULL;
	enter(w);
	if (e) {
		failed(w, e, rs->retry_after);
	} else if (!w->stream_events && kube_now() - w->stream_started < WATCH_QUICK_END_S) {
		struct err quick = ERR_INIT;
		err_set(&quick, ERR_NETWORK, "watch %s: the server ended the stream at once",
			w->o.res->plural);
		backoff(w, &quick, -1);
	} else {
		start_watch(w);		/* timeoutSeconds reached: carry on from the last RV */
	}
	leave(w);
}

static void start_watch(struct kube_watch *w)
{
	struct kube_list_opts sel = { w->label, w->field, 0, NULL, NULL };
	struct kube_request rq;
	char num[32];
	kube_req_list(&rq, w->o.res, w->ns, &sel);
	rq.verb = "watch";
	kube_query(&rq.path, "watch", "1");
	kube_query(&rq.path, "allowWatchBookmarks", "true");
	if (w->rv.len)
		kube_query(&rq.path, "resourceVersion", w->rv.data);
	snprintf(num, sizeof(num), "%d", w->o.timeout_s);
	kube_query(&rq.path, "timeoutSeconds", num);
	rq.retry_s = -1;
	kube_lines_free(&w->lines);
	kube_lines_init(&w->lines, WATCH_MAX_EVENT);
	w->stream_started = kube_now();
	w->stream_events = 0;
	w->call = kube_start_stream(w->c, &rq, w->o.timeout_s + 60L, stream_data, stream_done, w);
	kube_request_free(&rq);
}

/* ---- start -------------------------------------------------------------------- */

static void first_timer(void *ud)
{
	struct kube_watch *w = ud;
	w->timer = NULL;
	enter(w);
	if (w->rv.len)
		start_watch(w);
	else
		start_list(w, NULL);
	leave(w);
}

struct kube_watch *kube_watch_start(struct kube_client *c, const struct kube_watch_opts *opts,
				    struct err *e)
{
	if (!opts->res || !opts->on_event) {
		err_set(e, ERR_INTERNAL, "kube_watch_start: resource and on_event are required");
		return NULL;
	}
	struct kube_watch *w = xcalloc(1, sizeof(*w));
	w->c = c;
	w->o = *opts;
	w->ns = opts->ns ? xstrdup(opts->ns) : NULL;
	w->label = opts->sel.label_selector ? xstrdup(opts->sel.label_selector) : NULL;
	w->field = opts->sel.field_selector ? xstrdup(opts->sel.field_selector) : NULL;
	w->o.ns = w->ns;
	w->o.sel.label_selector = w->label;
	w->o.sel.field_selector = w->field;
	w->o.sel.continue_token = NULL;
	w->o.resource_version = NULL;
	if (w->o.sel.limit <= 0)
		w->o.sel.limit = WATCH_PAGE;
	if (w->o.timeout_s <= 0)
		w->o.timeout_s = WATCH_DEFAULT_TIMEOUT_S;
	if (w->o.poll_interval_s <= 0)
		w->o.poll_interval_s = WATCH_DEFAULT_POLL_S;
	buf_init(&w->rv);
	set_rv(w, opts->resource_version);
	if (w->rv.len && cJSON_IsObject(opts->known)) {
		struct buf key = BUF_INIT;
		obj_key(opts->known, &key);
		track_add(w, key.data, opts->known);
		buf_free(&key);
	}
	w->o.known = NULL;
	kube_lines_init(&w->lines, WATCH_MAX_EVENT);
	w->next = c->watches.list;
	if (c->watches.list)
		c->watches.list->prev = &w->next;
	w->prev = &c->watches.list;
	c->watches.list = w;
	c->watches.stop_all = stop_all;
	w->timer = kube_timer_add(c, 0, first_timer, w);
	return w;
}

void kube_watch_track_meta(struct kube_watch *w)
{
	if (w)
		w->meta_only = 1;
}
