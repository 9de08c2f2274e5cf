/*
 * kube_client.c - see kube_client.h: resources and paths, the client, and
 * the requests (get, create, patch, delete, list) built on kube_call(). A
 * call (a request plus credentials plus the retry policy, driven by the
 * loop; the blocking form steps the loop until it is done) is kube_call.c's.
 */
#include "kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "kube_status.h"
#include "jtree.h"
#include "yj.h"

const struct kube_resource KUBE_JAXJOB = { "kubeflow.org", "v1", "jaxjobs", "JAXJob", 1 };
const struct kube_resource KUBE_TRAINJOB = { "trainer.kubeflow.org", "v1alpha1", "trainjobs",
					     "TrainJob", 1 };
const struct kube_resource KUBE_POD = { "", "v1", "pods", "Pod", 1 };
const struct kube_resource KUBE_EVENT = { "", "v1", "events", "Event", 1 };

#define DEFAULT_RETRY_S 30.0

/* ---- paths ---------------------------------------------------------------- */

static void add_escaped(struct buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p)) {
			buf_addch(out, (char)*p);
		} else {
			buf_addch(out, '%');
			buf_addch(out, hex[*p >> 4]);
			buf_addch(out, hex[*p & 15]);
		}
	}
}

void kube_path(struct buf *out, const struct kube_resource *r, const char *ns,
	       const char *name, const char *subresource)
{
	if (*r->group)
		buf_addf(out, "/apis/%s/%s", r->group, r->version);
	else
		buf_addf(out, "/api/%s", r->version);
	if (r->namespaced && ns) {
		buf_adds(out, "/namespaces/");
		add_escaped(out, ns);
	}
	buf_addf(out, "/%s", r->plural);
	if (name) {
		buf_addch(out, '/');
		add_escaped(out, name);
		if (subresource)
			buf_addf(out, "/%s", subresource);
	}
}

void kube_query(struct buf *path, const char *key, const char *value)
{
	buf_addch(path, strchr(path->data, '?') ? '&' : '?');
	buf_adds(path, key);
	buf_addch(path, '=');
	add_escaped(path, value);
}

void kube_describe(struct buf *out, const struct kube_resource *r, const char *name)
{
	buf_adds(out, r->plural);
	if (*r->group)
		buf_addf(out, ".%s", r->group);
	if (name)
		buf_addf(out, " \"%s\"", name);
}

/* ---- the client ------------------------------------------------------------ */

/*
 * tls-server-name: curl verifies (and sends SNI for) the host of the URL, so
 * requests go to https://<tls-server-name>:<port> and CURLOPT_CONNECT_TO
 * sends the connection to the configured server. The Host header then
 * carries the TLS name, which the apiserver does not look at.
 */
static void set_url_base(struct kube_client *c)
{
	const char *server = c->cfg.server;
	const char *tls = c->cfg.tls_server_name;
	const char *hostp = strstr(server, "://");
	if (!tls || !hostp) {
		c->url_base = xstrdup(server);
		return;
	}
	hostp += 3;
	const char *end = hostp + strcspn(hostp, "/");
	const char *colon = NULL;
	for (const char *p = hostp; p < end; p++)	/* last ':' outside [ipv6] */
		if (*p == ':' && !memchr(p, ']', (size_t)(end - p)))
			colon = p;
	int https = !strncmp(server, "https", 5);
	struct buf host = BUF_INIT, port = BUF_INIT, b = BUF_INIT;
	buf_add(&host, hostp, (size_t)((colon ? colon : end) - hostp));
	if (colon)
		buf_add(&port, colon + 1, (size_t)(end - colon - 1));
	else
		buf_adds(&port, https ? "443" : "80");
	buf_addf(&b, "%s://%s:%s%.*s", https ? "https" : "http", tls, port.data,
		 (int)strlen(end), end);
	c->url_base = buf_detach(&b, NULL);
	buf_addf(&b, "%s:%s:%s:%s", tls, port.data, host.data, port.data);
	c->connect_to = curl_slist_append(NULL, b.data);
	buf_free(&b);
	buf_free(&host);
	buf_free(&port);
}

struct kube_client *kube_client_new(struct kube_config *cfg, struct err *e)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		err_set(e, ERR_INTERNAL, "curl_global_init failed");
		return NULL;
	}
	struct kube_client *c = xcalloc(1, sizeof(*c));
	c->out_fd = -1;
	c->multi = curl_multi_init();
	if (!c->multi) {
		free(c);
		curl_global_cleanup();
		err_set(e, ERR_INTERNAL, "curl_multi_init failed");
		return NULL;
	}
	/*
	 * One connection carries every stream when the server speaks HTTP/2
	 * (see kube_xfer_start). curl's own cap on streams per connection is
	 * 100; the server's SETTINGS (250 on a default kube-apiserver, Go's
	 * http2 default) should be the limit, so ours is set above it.
	 */
	curl_multi_setopt(c->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
	curl_multi_setopt(c->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);
	const char *h1 = getenv("JAXJOB_HTTP1");
	c->http1_only = h1 && *h1 && strcmp(h1, "0");
	c->cfg = *cfg;
	kube_config_init(cfg);
	c->creds = kube_creds_new(&c->cfg);
	set_url_base(c);
	c->retry_s = DEFAULT_RETRY_S;
	c->rnd_state = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
	return c;
}

const struct kube_config *kube_client_config(const struct kube_client *c)
{
	return &c->cfg;
}

void kube_client_set_retry(struct kube_client *c, double seconds)
{
	c->retry_s = seconds;
}

double kube_client_retry(const struct kube_client *c)
{
	return c->retry_s;
}

void kube_client_set_unreachable_retry(struct kube_client *c, double seconds)
{
	c->unreachable_s = seconds;
}

void kube_client_on_retry(struct kube_client *c,
			  void (*fn)(void *ud, unsigned attempt, double delay_s,
				     const struct err *why),
			  void *ud)
{
	c->on_retry = fn;
	c->on_retry_ud = ud;
}

long kube_client_connections(const struct kube_client *c)
{
	long n = c->connects;
	for (const struct kube_xfer *x = c->xfers; x; x = x->next) {
		long k = 0;
		if (!curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &k) && k > 0)
			n += k;
	}
	return n;
}

void kube_client_set_trace(struct kube_client *c,
			   void (*fn)(const char *line, void *ud), void *ud)
{
	c->trace = fn;
	c->trace_ud = ud;
}

double kube_random(struct kube_client *c)
{
	return (double)rand_r(&c->rnd_state) / ((double)RAND_MAX + 1.0);
}

/* ---- requests -------------------------------------------------------------- */

void kube_request_init(struct kube_request *rq, enum kube_method m, const char *verb)
{
	memset(rq, 0, sizeof(*rq));
	rq->method = m;
	rq->verb = verb;
	buf_init(&rq->path);
	buf_init(&rq->body);
	buf_init(&rq->what);
}

void kube_request_free(struct kube_request *rq)
{
	buf_free(&rq->path);
	buf_free(&rq->body);
	buf_free(&rq->what);
}

void kube_request_copy(struct kube_request *dst, const struct kube_request *src)
{
	*dst = *src;
	buf_init(&dst->path);
	buf_init(&dst->body);
	buf_init(&dst->what);
	buf_add(&dst->path, src->path.data, src->path.len);
	buf_add(&dst->body, src->body.data, src->body.len);
	buf_add(&dst->what, src->what.data, src->what.len);
}

void kube_response_free(struct kube_response *rs)
{
	buf_free(&rs->body);
	cJSON_Delete(rs->json);
	rs->json = NULL;
	rs->status = 0;
}

void kube_response_init(struct kube_response *rs)
{
	memset(rs, 0, sizeof(*rs));
	buf_init(&rs->body);
	rs->retry_after = -1;
}

static void add_flags(struct buf *path, unsigned flags)
{
	if (flags & KUBE_DRY_RUN)
		kube_query(path, "dryRun", "All");
}

void kube_req_create(struct kube_request *rq, const struct kube_resource *r,
		     const char *ns, const cJSON *obj, unsigned flags)
{
	kube_request_init(rq, KUBE_POST, "create");
	kube_path(&rq->path, r, ns, NULL, NULL);
	add_flags(&rq->path, flags);
	yj_json_canonical(obj, &rq->body);
	rq->content_type = "application/json";
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(md, "name");
	kube_describe(&rq->what, r, cJSON_IsString(name) ? name->valuestring : NULL);
}

void kube_req_get(struct kube_request *rq, const struct kube_resource *r,
		  const char *ns, const char *name)
{
	kube_request_init(rq, KUBE_GET, "get");
	kube_path(&rq->path, r, ns, name, NULL);
	kube_describe(&rq->what, r, name);
}

void kube_req_delete(struct kube_request *rq, const struct kube_resource *r,
		     const char *ns, const char *name, enum kube_propagation p,
		     const struct kube_precond *pre, unsigned flags)
{
	static const char *const policy[] = { NULL, "Background", "Foreground", "Orphan" };
	kube_request_init(rq, KUBE_DELETE, "delete");
	kube_path(&rq->path, r, ns, name, NULL);
	if (policy[p])
		kube_query(&rq->path, "propagationPolicy", policy[p]);
	add_flags(&rq->path, flags);
	kube_describe(&rq->what, r, name);
	if (pre && (pre->uid || pre->resource_version)) {
		cJSON *opts = cJSON_CreateObject();
		cJSON *pc = cJSON_AddObjectToObject(opts, "preconditions");
		cJSON_AddStringToObject(opts, "apiVersion", "v1");
		cJSON_AddStringToObject(opts, "kind", "DeleteOptions");
		if (pre->uid)
			cJSON_AddStringToObject(pc, "uid", pre->uid);
		if (pre->resource_version)
			cJSON_AddStringToObject(pc, "resourceVersion", pre->resource_version);
		yj_json_canonical(opts, &rq->body);
		rq->content_type = "application/json";
		cJSON_Delete(opts);
	}
}

void kube_req_patch(struct kube_request *rq, const struct kube_resource *r,
		    const char *ns, const char *name, enum kube_patch_type t,
		    const cJSON *patch, unsigned flags)
{
	kube_request_init(rq, KUBE_PATCH, "patch");
	kube_path(&rq->path, r, ns, name, NULL);
	add_flags(&rq->path, flags);
	yj_json_canonical(patch, &rq->body);
	rq->content_type = t == KUBE_PATCH_JSON ? "application/json-patch+json"
						: "application/merge-patch+json";
	kube_describe(&rq->what, r, name);
}

void kube_req_list(struct kube_request *rq, const struct kube_resource *r,
		   const char *ns, const struct kube_list_opts *o)
{
	kube_request_init(rq, KUBE_GET, "list");
	kube_path(&rq->path, r, ns, NULL, NULL);
	if (o && o->label_selector)
		kube_query(&rq->path, "labelSelector", o->label_selector);
	if (o && o->field_selector)
		kube_query(&rq->path, "fieldSelector", o->field_selector);
	if (o && o->limit > 0) {
		char n[32];
		snprintf(n, sizeof(n), "%ld", o->limit);
		kube_query(&rq->path, "limit", n);
	}
	if (o && o->continue_token && *o->continue_token)
		kube_query(&rq->path, "continue", o->continue_token);
	kube_describe(&rq->what, r, NULL);
}

/* ---- blocking conveniences ------------------------------------------------- */

/* Run `rq`, hand the parsed body to *out (when out != NULL), free the rest. */
static int run(struct kube_client *c, struct kube_request *rq, cJSON **out, struct err *e)
{
	struct kube_response rs;
	int rc = kube_call(c, rq, &rs, e);
	if (out) {
		*out = rc ? NULL : rs.json;
		if (!rc)
			rs.json = NULL;
	}
	kube_response_free(&rs);
	kube_request_free(rq);
	return rc;
}

int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const cJSON *obj, unsigned flags, cJSON **out, struct err *e)
{
	struct kube_request rq;
	kube_req_create(&rq, r, ns, obj, flags);
	return run(c, &rq, out, e);
}

int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns,
	     const char *name, cJSON **out, struct err *e)
{
	struct kube_request rq;
	kube_req_get(&rq, r, ns, name);
	return run(c, &rq, out, e);
}

int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
		const char *name, enum kube_propagation p, const struct kube_precond *pre,
		unsigned flags, cJSON **out, struct err *e)
{
	struct kube_request rq;
	kube_req_delete(&rq, r, ns, name, p, pre, flags);
	return run(c, &rq, out, e);
}

int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
	       const char *name, enum kube_patch_type t, const cJSON *patch,
	       unsigned flags, cJSON **out, struct err *e)
{
	struct kube_request rq;
	kube_req_patch(&rq, r, ns, name, t, patch, flags);
	return run(c, &rq, out, e);
}

/* Move the items of `page` to the end of `all`'s items. */
static void append_items(cJSON *all, cJSON *page)
{
	cJSON *dst = cJSON_GetObjectItemCaseSensitive(all, "items");
	cJSON *src = cJSON_GetObjectItemCaseSensitive(page, "items");
	if (!cJSON_IsArray(dst)) {
		cJSON_DeleteItemFromObjectCaseSensitive(all, "items");
		dst = cJSON_AddArrayToObject(all, "items");
	}
	while (cJSON_IsArray(src) && cJSON_GetArraySize(src) > 0)
		cJSON_AddItemToArray(dst, cJSON_DetachItemFromArray(src, 0));
}

static const char *continue_of(const cJSON *list)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(list, "metadata");
	const cJSON *cont = cJSON_GetObjectItemCaseSensitive(md, "continue");
	return cJSON_IsString(cont) && *cont->valuestring ? cont->valuestring : NULL;
}

int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
	      const struct kube_list_opts *o, cJSON **out, struct err *e)
{
	struct kube_list_opts page = o ? *o : (struct kube_list_opts){ 0 };
	int all_pages = page.limit == 0;
	if (all_pages)
		page.limit = 500;
	cJSON *all = NULL;
	char *cont = page.continue_token ? xstrdup(page.continue_token) : NULL;
	for (;;) {
		struct kube_request rq;
		cJSON *got;
		page.continue_token = cont;
		kube_req_list(&rq, r, ns, &page);
		int rc = run(c, &rq, &got, e);
		free(cont);
		cont = NULL;
		if (rc || !cJSON_IsObject(got)) {
			cJSON_Delete(got);
			cJSON_Delete(all);
			*out = NULL;
			return rc ? -1 : err_set(e, ERR_API, "list %s: the answer is not a list",
						 r->plural);
		}
		if (!all)
			all = got;
		else
			append_items(all, got);
		const char *next = continue_of(got);
		if (next && all_pages)
			cont = xstrdup(next);
		if (got != all)
			cJSON_Delete(got);
		if (!cont)
			break;
	}
	if (all_pages) {
		cJSON *md = cJSON_GetObjectItemCaseSensitive(all, "metadata");
		cJSON_DeleteItemFromObjectCaseSensitive(md, "continue");
		cJSON_DeleteItemFromObjectCaseSensitive(md, "remainingItemCount");
	}
	*out = all;
	return 0;
}

int kube_get_raw(struct kube_client *c, const char *path, struct buf *out, struct err *e)
{
	struct kube_request rq;
	kube_request_init(&rq, KUBE_GET, "get");
	buf_adds(&rq.path, path);
	buf_adds(&rq.what, path);
	struct kube_response rs;
	int rc = kube_call(c, &rq, &rs, e);
	if (!rc)
		buf_add(out, rs.body.data, rs.body.len);
	kube_response_free(&rs);
	kube_request_free(&rq);
	return rc;
}

void kube_client_free(struct kube_client *c)
{
	if (!c)
		return;
	kube_watch_stop_all(c);
	kube_log_stop_all(c);
	kube_cancel_all(c);
	for (struct kube_xfer *x = c->xfers; x; x = x->next)
		kube_xfer_cancel(x);
	for (struct kube_timer *t = c->timers; t; t = t->next)
		t->dead = 1;
	kube_loop_release_signals(c);
	kube_loop_reap(c);
	curl_multi_cleanup(c->multi);
	kube_creds_free(c->creds);
	kube_config_free(&c->cfg);
	free(c->url_base);
	curl_slist_free_all(c->connect_to);
	free(c);
	curl_global_cleanup();
}
