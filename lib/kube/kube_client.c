/*
 * kube_client.c - see kube_client.h: the client (made, configured, freed
 * with everything still running on it) and the blocking requests (get,
 * create, patch, delete, list) built on kube_call(). A call (a request plus
 * credentials plus the retry policy, driven by the loop; the blocking form
 * steps the loop until it is done) is kube_call.c's; the requests it sends
 * are built by kube_request.c, below the calls, watches and logs.
 */
#include "kube_client.h"

#include "kube_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kube_clock.h"
#include "kube_status.h"
#include "yj/jtree.h"
#include "yj/yj.h"

#define DEFAULT_RETRY_S 30.0

static void set_url_base(struct kube_client *c)
{
	const char *server = c->setup.cfg.server;
	const char *tls = c->setup.cfg.tls_server_name;
	const char *hostp = strstr(server, "://");
	if (!tls || !hostp) {
		c->setup.url_base = xstrdup(server);
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
	c->setup.url_base = buf_detach(&b, NULL);
	buf_addf(&b, "%s:%s:%s:%s", tls, port.data, host.data, port.data);
	c->setup.connect_to = curl_slist_append(NULL, b.data);
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
	if (kube_xfer_init(c, e)) {
		free(c);
		curl_global_cleanup();
		return NULL;
	}
	kube_loop_init(c);
	const char *h1 = getenv("JAXJOB_HTTP1");
	c->setup.http1_only = h1 && *h1 && strcmp(h1, "0");
	c->setup.cfg = *cfg;
	kube_config_init(cfg);
	c->setup.creds = kube_creds_new(&c->setup.cfg);
	set_url_base(c);
	c->setup.retry_s = DEFAULT_RETRY_S;
	return c;
}

const struct kube_config *kube_client_config(const struct kube_client *c)
{
	return &c->setup.cfg;
}

void kube_client_set_retry(struct kube_client *c, double seconds)
{
	c->setup.retry_s = seconds;
}

void kube_client_set_request_timeout(struct kube_client *c, double seconds)
{
	c->setup.request_timeout_s = seconds;
}

void kube_client_set_unreachable_retry(struct kube_client *c, double seconds)
{
	c->setup.unreachable_s = seconds;
}

void kube_client_on_retry(struct kube_client *c,
			  void (*fn)(void *ud, unsigned attempt, double delay_s,
				     const struct err *why),
			  void *ud)
{
	c->setup.on_retry = fn;
	c->setup.on_retry_ud = ud;
}

void kube_client_set_trace(struct kube_client *c,
			   void (*fn)(const char *line, void *ud), void *ud)
{
	c->setup.trace = fn;
	c->setup.trace_ud = ud;
}

void kube_client_traffic(const struct kube_client *c, struct kube_traffic *t)
{
	t->bytes_in = c->traffic.bytes_in;
	t->requests = c->traffic.requests;
	t->held = c->traffic.held;
}

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
	if (c->watches.stop_all)
		c->watches.stop_all(c);
	if (c->logs.stop_all)
		c->logs.stop_all(c);
	kube_cancel_all(c);
	kube_loop_close(c);
	kube_xfer_close(c);
	kube_creds_free(c->setup.creds);
	kube_config_free(&c->setup.cfg);
	free(c->setup.url_base);
	curl_slist_free_all(c->setup.connect_to);
	free(c);
	curl_global_cleanup();
}
