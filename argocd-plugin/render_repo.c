/*
 * render_repo.c - the repository format for training jobs.
 *
 *   <app dir>/.../NAME.jaxjob.yaml   job files: one job per YAML document
 *   <any dir>/jaxjob-defaults.yaml   defaults for the jobs in that directory
 *                                    and below (root first, nearest last)
 *
 * A document is either a concise job (the keys of lib/job/jobparams.h, plus
 * `template:`, `nameSuffix:` and `api:` jaxjob|trainjob) or a plain JAXJob or
 * TrainJob manifest (it has `kind`), passed through after validation. Defaults are merged under the job with
 * JSON merge-patch rules: mappings (labels, node-selector) merge key by key,
 * anything else is replaced, and `key: null` removes an inherited value.
 *
 * `template:` paths are relative to the file that writes them and are turned
 * into repository-relative paths right here, so that a defaults file can
 * name a template for jobs living deeper in the tree; a path that climbs out
 * of the repository is refused (gitsrc_path_join).
 *
 * Listing comes sorted from gitsrc, so the order of files on disk never
 * changes the result. Defaults are parsed once per directory and cached.
 */
#include <stdlib.h>
#include <string.h>

#include "yj/jcheck.h"
#include "yj/jtree.h"
#include "render_repo.h"
#include "yj/yj.h"

struct loader {
	struct gitsrc *src;
	cJSON *defaults;	/* dir -> merged defaults object (cache) */
	struct render_set *out;
};

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup("");
}

/* Make `template:` of `doc` (written in a file in `dir`) repository-relative. */
static int fix_template(cJSON *doc, const char *dir, struct err *e)
{
	cJSON *t = cJSON_GetObjectItemCaseSensitive(doc, RENDER_KEY_TEMPLATE);
	if (!t || cJSON_IsNull(t))
		return 0;
	if (!cJSON_IsString(t))
		return err_set(e, ERR_INPUT, "template: must be a path to a template file, relative to this file");
	struct buf p = BUF_INIT;
	if (gitsrc_path_join(dir, t->valuestring, &p, e)) {
		buf_free(&p);
		return err_prefix(e, "template");
	}
	cJSON_SetValuestring(t, p.data);
	buf_free(&p);
	return 0;
}

static int read_yaml(struct gitsrc *src, const char *path, cJSON **docs,
		     struct err *e)
{
	struct buf text = BUF_INIT;
	int rc = gitsrc_read(src, path, RENDER_MAX_FILE, &text, e);
	if (rc == 0)
		rc = yj_parse_stream(text.data, text.len, path, docs, e);
	buf_free(&text);
	return rc;
}

/* The merged defaults that apply to files in `dir` (owned by the cache). */
static const cJSON *defaults_for(struct loader *l, const char *dir, struct err *e)
{
	const cJSON *hit = cJSON_GetObjectItemCaseSensitive(l->defaults, dir);
	if (hit)
		return hit;
	cJSON *d;
	if (*dir) {
		char *parent = dir_of(dir);
		const cJSON *up = defaults_for(l, parent, e);
		free(parent);
		if (!up)
			return NULL;
		d = cJSON_Duplicate(up, 1);
	} else {
		d = cJSON_CreateObject();
	}
	struct buf path = BUF_INIT;
	buf_addf(&path, "%s%s%s", dir, *dir ? "/" : "", RENDER_DEFAULTS_FILE);
	if (gitsrc_present(l->src, path.data)) {	/* same rules as a job file */
		cJSON *docs = NULL;
		int rc = read_yaml(l->src, path.data, &docs, e);
		if (rc && e->code == ERR_NOTFOUND)
			err_set(e, ERR_INPUT, "'%s' is a symbolic link to nothing; remove it or point it at a file in the repository", path.data);
		const cJSON *doc = rc ? NULL : cJSON_GetArrayItem(docs, 0);
		if (rc == 0 && (cJSON_GetArraySize(docs) != 1 || !cJSON_IsObject(doc)))
			rc = err_set(e, ERR_INPUT, "%s: must be one mapping of job parameters (like a job file without a name)", path.data);
		if (rc == 0 && cJSON_GetObjectItemCaseSensitive(doc, "name"))
			rc = err_set(e, ERR_INPUT, "%s: name: defaults cannot name a job; move `name` into the job files", path.data);
		if (rc == 0 && fix_template((cJSON *)doc, dir, e))
			rc = err_prefix(e, "%s", path.data);
		if (rc == 0)
			jtree_merge_patch(&d, doc);
		cJSON_Delete(docs);
		if (rc) {
			cJSON_Delete(d);
			buf_free(&path);
			return NULL;
		}
	}
	buf_free(&path);
	cJSON_AddItemToObject(l->defaults, dir, d);
	return d;
}

static struct render_job *add_job(struct render_set *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	struct render_job *j = &s->v[s->n++];
	memset(j, 0, sizeof(*j));
	j->hash_name = 1;
	return j;
}

/* A plain JAXJob or TrainJob document: checked for kind and name; the rest later. */
static int load_plain(struct render_job *j, cJSON *doc, struct err *e)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(doc, "kind");
	const cJSON *api = cJSON_GetObjectItemCaseSensitive(doc, "apiVersion");
	j->api = jobapi_of(doc);
	if (!j->api || !cJSON_IsString(api) || strcmp(api->valuestring, j->api->api_version))
		return err_set(e, ERR_INPUT, "kind: only kubeflow.org/v1 JAXJob and trainer.kubeflow.org/v1alpha1 TrainJob manifests can be passed through, got %s %s; use a concise job or move other resources out of *.jaxjob.yaml",
			       cJSON_IsString(api) ? api->valuestring : "(no apiVersion)",
			       cJSON_IsString(kind) ? kind->valuestring : "(no kind)");
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(md, "name");
	if (!cJSON_IsString(name) || !*name->valuestring)
		return err_set(e, ERR_INPUT, "metadata.name: missing; give the %s a name", j->api->kind);
	j->name = xstrdup(name->valuestring);
	const cJSON *ann = cJSON_GetObjectItemCaseSensitive(md, "annotations");
	const cJSON *suffix = cJSON_GetObjectItemCaseSensitive(ann, RENDER_ANN_SUFFIX);
	j->hash_name = cJSON_IsString(suffix) && !strcmp(suffix->valuestring, "hash");
	j->manifest = doc;
	return 0;
}

/* A concise job: defaults under the document, render keys taken out. */
static int load_concise(struct render_job *j, cJSON *doc, const cJSON *defaults,
			const char *dir, struct err *e)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
	if (!cJSON_IsString(name) || !*name->valuestring) {
		cJSON_Delete(doc);
		return err_set(e, ERR_INPUT, "name: missing; add `name: my-job` (a DNS-1035 label)");
	}
	j->name = xstrdup(name->valuestring);
	if (fix_template(doc, dir, e)) {
		cJSON_Delete(doc);
		return -1;
	}
	j->doc = cJSON_Duplicate(defaults, 1);
	jtree_merge_patch(&j->doc, doc);
	cJSON_Delete(doc);
	cJSON *t = cJSON_DetachItemFromObjectCaseSensitive(j->doc, RENDER_KEY_TEMPLATE);
	if (cJSON_IsString(t))
		j->tmpl = xstrdup(t->valuestring);
	cJSON_Delete(t);
	cJSON *ns = cJSON_DetachItemFromObjectCaseSensitive(j->doc, RENDER_KEY_NAME_SUFFIX);
	int rc = 0;
	if (ns && (!cJSON_IsString(ns) || (strcmp(ns->valuestring, "hash") && strcmp(ns->valuestring, "none"))))
		rc = err_set(e, ERR_INPUT, "nameSuffix: must be hash or none");
	else if (ns)
		j->hash_name = !strcmp(ns->valuestring, "hash");
	cJSON_Delete(ns);
	/* `api: null` never gets here: the merge removed the key, so the default holds */
	cJSON *api = cJSON_DetachItemFromObjectCaseSensitive(j->doc, RENDER_KEY_API);
	j->api = api ? jobapi_find(cJSON_GetStringValue(api)) : &JOBAPI_JAXJOB;
	if (!j->api && rc == 0)
		rc = err_set(e, ERR_INPUT, "api: must be one of %s, got %s%s%s", jobapi_names(),
			     cJSON_IsString(api) ? "\"" : "", cJSON_IsString(api) ? api->valuestring :
			     jcheck_type_name(api), cJSON_IsString(api) ? "\"" : "");
	cJSON_Delete(api);
	return rc;
}

static int load_file(struct loader *l, const char *path, struct err *e)
{
	char *dir = dir_of(path);
	cJSON *docs = NULL;
	int rc = -1;
	const cJSON *defaults = defaults_for(l, dir, e);
	if (!defaults || read_yaml(l->src, path, &docs, e))
		goto out;
	if (cJSON_GetArraySize(docs) == 0) {
		err_set(e, ERR_INPUT, "%s: no job in this file; add one or remove the file", path);
		goto out;
	}
	for (int i = 0; cJSON_GetArraySize(docs) > 0; i++) {
		cJSON *doc = cJSON_DetachItemFromArray(docs, 0);
		if (l->out->n >= RENDER_MAX_JOBS) {
			cJSON_Delete(doc);
			err_set(e, ERR_LIMIT, "more than %d jobs; split the application", RENDER_MAX_JOBS);
			goto out;
		}
		struct render_job *j = add_job(l->out);
		j->file = xstrdup(path);
		j->index = i;
		int bad;
		if (!cJSON_IsObject(doc)) {
			cJSON_Delete(doc);
			bad = err_set(e, ERR_INPUT, "must be a mapping of job parameters or a JAXJob or TrainJob manifest");
		} else if (cJSON_GetObjectItemCaseSensitive(doc, "kind") ||
			   cJSON_GetObjectItemCaseSensitive(doc, "apiVersion")) {
			bad = load_plain(j, doc, e);
			if (bad && !j->manifest)
				cJSON_Delete(doc);
		} else {
			bad = load_concise(j, doc, defaults, dir, e);
		}
		if (bad) {
			render_job_err(j, e);
			goto out;
		}
	}
	rc = 0;
out:
	cJSON_Delete(docs);
	free(dir);
	return rc;
}

static int is_job_file(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base), k = strlen(RENDER_JOB_SUFFIX);
	return n > k && !strcmp(base + n - k, RENDER_JOB_SUFFIX);
}

int render_repo_load(struct gitsrc *src, const char *app, struct render_set *out,
		     struct err *e)
{
	struct gitsrc_paths files = GITSRC_PATHS_INIT;
	struct loader l = { src, cJSON_CreateObject(), out };
	int rc = gitsrc_list(src, app, &files, e);
	for (size_t i = 0; rc == 0 && i < files.n; i++) {
		size_t n = strlen(files.v[i]);
		if (files.v[i][n - 1] == '/') {	/* a directory */
			files.v[i][n - 1] = '\0';
			if (is_job_file(files.v[i]))
				rc = err_set(e, ERR_INPUT, "'%s' is a directory, not a job file; rename it (a *%s entry is read, never skipped)",
					     files.v[i], RENDER_JOB_SUFFIX);
		} else if (is_job_file(files.v[i])) {
			rc = load_file(&l, files.v[i], e);
		}
	}
	if (rc == 0 && out->n == 0)
		rc = err_set(e, ERR_INPUT, "no job files (*%s) under %s; add one, or point the Application at the right path (an empty render would prune every job)",
			     RENDER_JOB_SUFFIX, *app ? app : "the application directory");
	gitsrc_paths_free(&files);
	cJSON_Delete(l.defaults);
	return rc;
}
