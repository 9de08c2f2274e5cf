/*
 * jobapi.c - see jobapi.h: the registry of the job APIs (their handlers,
 * struct jobapi, live in jaxjob.c and trainjob.c) and the functions that
 * read any handler.
 */
#include "jobapi.h"

#include <stdio.h>
#include <string.h>

#include "yj/jcheck.h"
#include "tmpl.h"

/* ---- functions ------------------------------------------------------------ */

/* The registry: every job API, the default (--api auto's preference) first. */
static const struct jobapi *const all[] = { &JOBAPI_JAXJOB, &JOBAPI_TRAINJOB, NULL };

const struct jobapi *jobapi_find(const char *name)
{
	for (int i = 0; name && all[i]; i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

int jobapi_worker_counts(const cJSON *job, struct jobapi_workers *w)
{
	const struct jobapi *api = jobapi_of(job);

	memset(w, 0, sizeof(*w));
	return api ? api->worker_counts(job, w) : 0;
}

const char *jobapi_names(void)
{
	static char names[128];
	if (!names[0])
		for (int i = 0; all[i]; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", all[i]->name);
	return names;
}

/* The group of "group/version" must be the API's; any version will do. */
const struct jobapi *jobapi_of(const cJSON *obj)
{
	const cJSON *av = jcheck_member(obj, "apiVersion"), *kind = jcheck_member(obj, "kind");
	if (!cJSON_IsString(av) || !cJSON_IsString(kind))
		return NULL;
	for (int i = 0; all[i]; i++) {
		size_t g = strlen(all[i]->res->group);
		if (!strcmp(kind->valuestring, all[i]->kind) &&
		    !strncmp(av->valuestring, all[i]->res->group, g) && av->valuestring[g] == '/')
			return all[i];
	}
	return NULL;
}

static const char *refusal(const struct jobapi *api, const char *param)
{
	for (const struct jobapi_refusal *r = api->refused; r->param; r++)
		if (!strcmp(r->param, param))
			return r->why;
	return NULL;
}

int jobapi_check_params(const struct jobapi *api, const cJSON *params, struct err *e)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, params) {
		const char *why = refusal(api, it->string);
		if (!why)
			continue;
		const char *alt = NULL;	/* the first other API that has a place for it */
		for (int i = 0; all[i] && !alt; i++)
			if (all[i] != api && !refusal(all[i], it->string))
				alt = all[i]->name;
		return err_set(e, ERR_INPUT, "%s is not supported for a %s: %s; remove it%s%s",
			       it->string, api->kind, why, alt ? ", or use api " : "",
			       alt ? alt : "");
	}
	return 0;
}

int jobapi_template(const struct jobapi *api, const char *path, cJSON **out,
		    const char **source, struct err *e)
{
	size_t len = 0;
	const char *text;
	if (path)
		return tmpl_load(path, out, source, e);
	*out = NULL;
	text = tmpl_builtin(api->tmpl, &len);
	if (!text)
		return err_set(e, ERR_INTERNAL, "built-in template %s is missing", api->tmpl);
	if (source)
		*source = api->tmpl_source;
	return tmpl_parse(text, len, api->tmpl_source, out, e);
}

void jobapi_pod_selector(const struct jobapi *api, const char *job_name, struct buf *out)
{
	buf_addf(out, "%s=%s", api->pod_job_label, job_name);
	if (api->pod_selector_more)
		buf_addf(out, ",%s", api->pod_selector_more);
}

const cJSON *jobapi_suspend_flag(const struct jobapi *api, const cJSON *job)
{
	const cJSON *v = job;
	for (const char *const *k = api->suspend_path; v && *k; k++)
		v = jcheck_member(v, *k);
	return v;
}

void jobapi_drop_suspend(const struct jobapi *api, cJSON *job)
{
	cJSON *v = job;
	const char *const *k = api->suspend_path;
	for (; v && k[1]; k++)
		v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, *k) : NULL;
	if (cJSON_IsObject(v))
		cJSON_DeleteItemFromObjectCaseSensitive(v, *k);
}

cJSON *jobapi_suspend_patch(const struct jobapi *api, int suspend)
{
	cJSON *patch = cJSON_CreateObject(), *at = patch;
	const char *const *k = api->suspend_path;
	for (; k[1]; k++)
		at = cJSON_AddObjectToObject(at, *k);
	cJSON_AddBoolToObject(at, *k, suspend);
	return patch;
}

int jobapi_name_budget(const struct jobapi *api, int workers)
{
	return 63 - api->name_overhead(workers);
}

/* ---- discovery --------------------------------------------------------------- */

/* 1 served, 0 not served (404, or the group without the plural), -1 error. */
static int served(struct kube_client *c, const struct jobapi *api, struct err *e)
{
	struct buf path = BUF_INIT, body = BUF_INIT;
	cJSON *doc = NULL, *r;
	int rc = 0;
	buf_addf(&path, "/apis/%s/%s", api->res->group, api->res->version);
	if (kube_get_raw(c, path.data, &body, e) < 0) {
		rc = e->code == ERR_NOTFOUND ? 0 : -1;
		goto out;
	}
	doc = cJSON_ParseWithLength(body.data, body.len);
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "resources")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "name"));
		if (name && !strcmp(name, api->res->plural))
			rc = 1;
	}
out:
	cJSON_Delete(doc);
	buf_free(&path);
	buf_free(&body);
	return rc;
}

int jobapi_discover(struct kube_client *c, const struct jobapi **out, int *both,
		    struct err *e)
{
	struct buf none = BUF_INIT;
	int n = 0;
	*out = NULL;
	for (int i = 0; all[i]; i++) {
		int rc = served(c, all[i], e);
		if (rc < 0) {
			buf_free(&none);
			return -1;
		}
		if (rc && !*out)
			*out = all[i];	/* registry order: the default API first */
		n += rc;
		buf_addf(&none, "%s%s/%s %s (%s)", !i ? "" : all[i + 1] ? ", " : " nor ",
			 all[i]->res->group, all[i]->res->version, all[i]->res->plural,
			 all[i]->project);
	}
	err_clear(e);
	if (both)
		*both = n > 1;
	if (!*out)
		err_set(e, ERR_NOTFOUND, "--api auto: the cluster serves neither %s; install one "
			"of them", none.data);
	buf_free(&none);
	return *out ? 0 : -1;
}
int jobapi_check_runtime(struct kube_client *c, const struct jobapi *api, const cJSON *job,
			 const char *ns, struct err *e)
{
	return api->check_runtime ? api->check_runtime(c, job, ns, e) : 0;
}

int jobapi_creation_failure(const struct jobapi *api, const char *reason)
{
	for (const char *const *r = api->creation_failures; r && *r; r++)
		if (strcmp(*r, reason) == 0)
			return 1;
	return 0;
}
