/*
 * render_job.c - one job to one validated JAXJob or TrainJob, and the
 * sorted set.
 *
 * Concise jobs go through the same path as `jaxjob launch`: jobparams
 * values -> template (lib/job/tmpl.h, the built-in template of the job's API -
 * templates/jaxjob.yaml or templates/trainjob.yaml, lib/job/jobapi.h - or a
 * template kept in the repository) -> every set parameter must have reached
 * the template (with a built-in template, a parameter the API has no field
 * for is refused first, with the reason) -> the API's validation. Plain
 * manifests only get the default namespace and the stamps.
 *
 * Naming. A finished JAXJob ignores spec changes, so a changed spec must be
 * a new object: with `nameSuffix: hash` (the default for concise jobs) the
 * name is `<name>-<first 8 hex of sha256(canonical JSON of .spec)>`, like
 * kustomize's generated names. Only the spec (without the suspend flag -
 * spec.runPolicy.suspend or spec.suspend - which must act on the running
 * job) is hashed: labels, annotations
 * and the stamps below can change in place without re-running anything,
 * and the commit is never part of the name (an unrelated commit must not
 * re-run every job). The hashed name is validated like any name; when the
 * suffix pushes it over the limit the error says how long `name` may be.
 *
 * Stamps: annotations jaxjob.dev/source-path (the job file),
 * jaxjob.dev/source-revision (the commit, when known), jaxjob.dev/spec-hash
 * (the full hash), and the label jaxjob.dev/job=<name> shared by every run of
 * a job, to find its history.
 *
 * Output order: namespace, then name - never the order of files on disk.
 * Templates are parsed once per path and copied per job.
 */
#include <stdlib.h>
#include <string.h>

#include "job/jaxjob.h"
#include "job/jobapi.h"
#include "job/jobparams.h"
#include "yj/jtree.h"
#include "render_job.h"
#include "job/jobbuild.h"
#include "job/tmpl.h"
#include "yj/yj.h"

struct tmpl_cache {
	cJSON *trees;		/* path ("\n" + API name = built-in) -> parsed template */
	cJSON *sources;		/* "\n" + API name -> "templates/X.yaml (built in)" */
	const char **known;	/* NULL-terminated vocabulary */
};

/*
 * Put member `m` back into `obj` after `before` (NULL: first), as it was
 * before cJSON_DetachItemViaPointer(). By hand: Debian's cJSON 1.7.15
 * (1.7.15-1+deb12u4) refuses cJSON_InsertItemInArray() on an object, and
 * the item would leak. cJSON keeps head->prev pointing at the tail.
 */
static void put_back(cJSON *obj, cJSON *before, cJSON *m)
{
	if (!before) {
		m->next = obj->child;
		m->prev = obj->child ? obj->child->prev : m;
		if (obj->child)
			obj->child->prev = m;
		obj->child = m;
		return;
	}
	m->prev = before;
	m->next = before->next;
	if (before->next)
		before->next->prev = m;
	else
		obj->child->prev = m;
	before->next = m;
}

/*
 * sha256 of the canonical JSON of .spec without the suspend flag:
 * suspending or resuming a job (by hand or by Kueue) must act on the
 * running job, not start a new one. The flag is taken out of the manifest
 * for the hash and put back where it was (what jobapi_drop_suspend() would
 * delete from a copy; copying the spec of every job cost more than hashing
 * it).
 */
static void spec_hash(const struct jobapi *api, cJSON *manifest, char hex[65])
{
	cJSON *parent = manifest, *flag = NULL, *before = NULL;
	const char *const *k = api->suspend_path;
	for (; parent && k[1]; k++)
		parent = cJSON_IsObject(parent) ? cJSON_GetObjectItemCaseSensitive(parent, *k) : NULL;
	if (cJSON_IsObject(parent))
		flag = cJSON_GetObjectItemCaseSensitive(parent, *k);
	if (flag) {
		before = flag == parent->child ? NULL : flag->prev;
		cJSON_DetachItemViaPointer(parent, flag);
	}
	jtree_sha256_hex(cJSON_GetObjectItemCaseSensitive(manifest, "spec"), hex);
	if (flag)
		put_back(parent, before, flag);
}

/*
 * A copy of the template for `j` (the API's built-in one or from the
 * repository). Built-ins are cached under "\n" + API name, which no
 * repository path can be; their message name is kept in c->sources.
 */
static int template_for(struct tmpl_cache *c, struct gitsrc *src, const struct render_job *j,
			cJSON **out, const char **source, struct err *e)
{
	struct buf key = BUF_INIT;
	if (j->tmpl)
		buf_adds(&key, j->tmpl);
	else
		buf_addf(&key, "\n%s", j->api->name);
	cJSON *hit = cJSON_GetObjectItemCaseSensitive(c->trees, key.data);
	int rc = 0;
	if (!hit && j->tmpl) {
		struct buf text = BUF_INIT;
		rc = gitsrc_read(src, j->tmpl, RENDER_MAX_FILE, &text, e);
		if (rc)
			err_prefix(e, "template");
		else
			rc = tmpl_parse(text.data, text.len, j->tmpl, &hit, e);
		buf_free(&text);
	} else if (!hit) {
		struct buf name = BUF_INIT;
		buf_addf(&name, "%s (built in)", j->api->tmpl_source);
		cJSON_AddStringToObject(c->sources, key.data, name.data);
		buf_free(&name);
		rc = jobapi_template(j->api, NULL, &hit, NULL, e);
	}
	if (rc == 0 && !cJSON_GetObjectItemCaseSensitive(c->trees, key.data))
		cJSON_AddItemToObject(c->trees, key.data, hit);
	if (rc == 0) {
		*out = cJSON_Duplicate(hit, 1);
		*source = j->tmpl ? j->tmpl :
			cJSON_GetObjectItemCaseSensitive(c->sources, key.data)->valuestring;
	}
	buf_free(&key);
	return rc;
}

static cJSON *object_at(cJSON *parent, const char *key)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
	if (!cJSON_IsObject(o)) {
		cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
		o = cJSON_AddObjectToObject(parent, key);
	}
	return o;
}

static void set_string(cJSON *obj, const char *key, const char *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, value);
}

/*
 * The operator derives longer names from the job's: the Service
 * `<name>-worker-<i>` of a JAXJob, the JobSet pod `<name>-node-0-<i>-xxxxx`
 * of a TrainJob (lib/job/jobapi.h). The validators check that too, but only we
 * know the name grew by the suffix, so only we can say how long `name` may be.
 */
static int hashed_name_too_long(const struct render_job *j, struct err *e)
{
	int workers = j->api->workers(j->manifest);
	size_t budget = (size_t)jobapi_name_budget(j->api, workers);
	size_t suffix = 1 + RENDER_HASH_LEN;
	if (strlen(j->final_name) <= budget)
		return 0;
	struct buf child = BUF_INIT;
	j->api->longest_child(j->final_name, workers, &child);
	err_set(e, ERR_INPUT, "name: %s is too long with its -%.*s hash suffix for %d worker%s (%s must fit in 63 characters); shorten `name` to at most %zu characters or set nameSuffix: none",
		j->name, RENDER_HASH_LEN, j->spec_hash, workers, workers == 1 ? "" : "s",
		child.data, budget > suffix ? budget - suffix : 0);
	buf_free(&child);
	return -1;
}

/*
 * What the API server sets on an object it stored (a manifest copied from
 * `kubectl get -o yaml`): sent back, `status` is ignored or refused by
 * server-side apply, a stale resourceVersion is a conflict, and Argo CD
 * shows them as drift forever. They never belong in Git: drop them.
 */
static void drop_server_fields(cJSON *manifest)
{
	static const char *const md_fields[] = {
		"uid", "resourceVersion", "managedFields", "creationTimestamp",
		"generation", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds", NULL
	};
	cJSON *md = cJSON_GetObjectItemCaseSensitive(manifest, "metadata");
	for (const char *const *f = md_fields; *f; f++)
		cJSON_DeleteItemFromObjectCaseSensitive(md, *f);
	cJSON_DeleteItemFromObjectCaseSensitive(manifest, "status");
}

/* Hash name, namespace default, stamps; then validate the result. */
static int finish(struct render_job *j, const struct render_env *env, struct err *e)
{
	drop_server_fields(j->manifest);
	cJSON *md = object_at(j->manifest, "metadata");
	if (env->app_namespace && *env->app_namespace &&
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(md, "namespace")))
		set_string(md, "namespace", env->app_namespace);
	spec_hash(j->api, j->manifest, j->spec_hash);
	struct buf name = BUF_INIT;
	buf_adds(&name, j->name);
	if (j->hash_name)
		buf_addf(&name, "-%.*s", RENDER_HASH_LEN, j->spec_hash);
	set_string(md, "name", name.data);
	j->final_name = buf_detach(&name, NULL);
	cJSON *ann = object_at(md, "annotations");
	set_string(ann, RENDER_ANN_PATH, j->file);
	if (env->revision && *env->revision)
		set_string(ann, RENDER_ANN_REVISION, env->revision);
	set_string(ann, RENDER_ANN_HASH, j->spec_hash);
	set_string(object_at(md, "labels"), RENDER_LABEL_JOB, j->name);
	if (j->hash_name && hashed_name_too_long(j, e))
		return -1;
	return j->api->validate(j->manifest, e);
}

static int cmp_rendered(const void *a, const void *b)
{
	const struct render_job *x = a, *y = b;
	int c = strcmp(x->ns ? x->ns : "", y->ns ? y->ns : "");
	if (c == 0)
		c = strcmp(x->name, y->name);
	if (c == 0)
		c = strcmp(x->final_name, y->final_name);
	if (c == 0)
		c = strcmp(x->file, y->file);
	return c ? c : x->index - y->index;
}

/* After sorting, two jobs with one name in one namespace sit side by side. */
static int check_duplicates(struct render_set *s, struct err *e)
{
	for (size_t k = 1; k < s->n; k++) {
		const struct render_job *a = &s->v[k - 1], *b = &s->v[k];
		if (strcmp(a->ns ? a->ns : "", b->ns ? b->ns : "") || strcmp(a->name, b->name))
			continue;
		err_set(e, ERR_INPUT, "name: %s is also the name of a job in %s (document %d); job names must be unique per namespace, rename one",
			a->name, a->file, a->index + 1);
		return render_job_err(b, e);
	}
	return 0;
}

/* What the build's callbacks need (lib/job/jobbuild.h). */
struct render_build {
	struct render_job *j;
	struct tmpl_cache *c;
	struct gitsrc *src;
	const struct render_env *env;
};

/* A concise job's template, or a plain job's manifest (handed over). */
static int load(void *ud, cJSON **tree, const char **source, struct err *e)
{
	struct render_build *rb = ud;
	if (!rb->j->params) {
		*tree = rb->j->manifest;
		*source = rb->j->file;
		rb->j->manifest = NULL;
		return 0;
	}
	return template_for(rb->c, rb->src, rb->j, tree, source, e);
}

static int finish_cb(void *ud, cJSON *job, struct err *e)
{
	struct render_build *rb = ud;
	rb->j->manifest = job;	/* borrowed until the build hands it over */
	return finish(rb->j, rb->env, e);
}

/* One job through the one build path: params -> template -> tidy -> stamps -> validate. */
static int build(struct render_job *j, struct tmpl_cache *c, struct gitsrc *src,
		 const struct render_env *env, struct err *e)
{
	struct render_build rb = { j, c, src, env };
	struct job_build b = {
		.api = j->api,
		.params = j->params,
		.user_template = j->tmpl != NULL,
		.known = c->known,
		.load = load,
		.finish = finish_cb,
		.ud = &rb,
	};
	cJSON *out = NULL;
	int rc = job_build(&b, &out, e);
	j->manifest = out;	/* NULL on failure: the build freed it */
	return rc;
}

/*
 * Keep the built job as text and free its trees while they are still in
 * the cache: the output is the same bytes render_emit() would have made
 * from the tree, and memory stays proportional to the output.
 */
static int keep_as_text(struct render_job *j, struct err *e)
{
	struct buf y = BUF_INIT;
	const char *ns = jaxjob_namespace(j->manifest);
	if (yj_emit(j->manifest, YJ_SORT_KEYS, &y, e)) {
		/* a refusal (a string that is not UTF-8: a job file's name,
		 * stamped as jaxjob.dev/source-path) appends nothing, but `y`
		 * has grown while it was written: ours to free, as always */
		buf_free(&y);
		return -1;
	}
	j->ns = ns ? xstrdup(ns) : NULL;
	j->yaml = buf_detach(&y, NULL);
	cJSON_Delete(j->manifest);
	cJSON_Delete(j->doc);
	cJSON_Delete(j->params);
	j->manifest = j->doc = j->params = NULL;
	return 0;
}

int render_jobs(struct render_set *s, struct gitsrc *src, const struct render_env *env,
		struct err *e)
{
	struct tmpl_cache c = { cJSON_CreateObject(), cJSON_CreateObject(), NULL };
	size_t n = 0;
	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		n++;
	c.known = xcalloc(n + 1, sizeof(*c.known));
	for (size_t i = 0; i < n; i++)
		c.known[i] = jobparams_all()[i].name;
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < s->n; k++) {
		struct render_job *j = &s->v[k];
		if (build(j, &c, src, env, e) || keep_as_text(j, e))
			rc = render_job_err(j, e);
	}
	cJSON_Delete(c.trees);
	cJSON_Delete(c.sources);
	free(c.known);
	if (rc)
		return rc;
	qsort(s->v, s->n, sizeof(*s->v), cmp_rendered);
	return check_duplicates(s, e);
}

int render_emit(const struct render_set *s, struct buf *out, struct err *e)
{
	(void)e;	/* every job was emitted by render_jobs() */
	for (size_t k = 0; k < s->n; k++) {
		buf_adds(out, "---\n");
		buf_adds(out, s->v[k].yaml);
	}
	return 0;
}
