/*
 * kube_request.c - the values below every call: the resources we know,
 * API paths and queries, and the requests and responses (kube_request.h). Nothing here needs a client, so calls, watches and logs
 * (kube_call.c, kube_watch.c, kube_log.c) build their requests here without
 * reaching up into kube_client.c, which uses them in turn.
 */
#include "kube_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "yj/yj.h"

const struct kube_resource KUBE_JAXJOB = { "kubeflow.org", "v1", "jaxjobs", "JAXJob", 1 };
const struct kube_resource KUBE_TRAINJOB = { "trainer.kubeflow.org", "v1alpha1", "trainjobs",
					     "TrainJob", 1 };
const struct kube_resource KUBE_POD = { "", "v1", "pods", "Pod", 1 };
const struct kube_resource KUBE_EVENT = { "", "v1", "events", "Event", 1 };

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
	jtree_json_canonical(obj, &rq->body);
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
		jtree_json_canonical(opts, &rq->body);
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
	jtree_json_canonical(patch, &rq->body);
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
	if (o && o->continue_token && *o->continue_token) {
		kube_query(&rq->path, "continue", o->continue_token);
	} else if (o && o->not_older_than) {
		kube_query(&rq->path, "resourceVersion", o->not_older_than);
		kube_query(&rq->path, "resourceVersionMatch", "NotOlderThan");
	}
	kube_describe(&rq->what, r, NULL);
}

/* ---- blocking conveniences ------------------------------------------------- */

/* Run `rq`, hand the parsed body to *out (when out != NULL), free the rest. */
