/*
 * render_params.c - from job documents to jobparams, with Argo CD's
 * overrides, and the parameter announcements shown in Argo CD's UI.
 *
 * Precedence, lowest first (documented in argocd-plugin/README.md):
 *
 *   1. jaxjob-defaults.yaml files, root first     (render_repo.c)
 *   2. the job file
 *   3. ARGOCD_ENV_<NAME>: the Application's plugin.env, for EVERY job;
 *      NAME is the parameter in upper case with '_' for '-'
 *      (GPUS_PER_WORKER -> gpus-per-worker); other names are ignored
 *      because plugin.env may carry settings for other tools
 *   4. ARGOCD_APP_PARAMETERS: the Application's plugin.parameters, the most
 *      specific input (one Application, often one job: `mnist.workers`);
 *      `workers` without a job applies to every job
 *
 * A parameter is what Argo CD's UI edits, so mistakes there must not pass
 * silently: an unknown job or parameter name, or the wrong collection type
 * (a list given as a string), is an error naming the parameter and the fix.
 * Unknown ARGOCD_ENV_* names are not (see 3).
 *
 * Announcements (--params) list, per job, every parameter the job sets
 * (after defaults and overrides) with its current value, so the UI opens
 * with the values the repository holds.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "job/jobparams.h"
#include "render_params.h"
#include "yj/jtree.h"
#include "suggest.h"
#include "yj/yj.h"

#define ENV_PREFIX "ARGOCD_ENV_"

static int unknown_key(const char *key, struct err *e)
{
	struct suggest sg;
	suggest_init(&sg, key);
	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		suggest_add(&sg, p->name);
	if (sg.best)
		return err_set(e, ERR_INPUT, "%s: not a job parameter; did you mean %s?", key, sg.best);
	return err_set(e, ERR_INPUT, "%s: not a job parameter; see `jaxjob launch --help` for the names (a template of your own can add more)", key);
}

/* Job document -> params. Keys outside the vocabulary need a repo template. */
static int doc_to_params(struct render_job *j, struct err *e)
{
	j->params = cJSON_CreateObject();
	for (const cJSON *it = j->doc->child; it; it = it->next) {
		const struct jobparam *p = jobparams_find(it->string);
		int rc;
		if (p)
			rc = jobparams_set_value(j->params, p, it, e);
		else if (j->tmpl)
			rc = jobparams_set_user_value(j->params, it->string, it, e);
		else
			rc = unknown_key(it->string, e);
		if (rc)
			return -1;
	}
	return 0;
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ARGOCD_ENV_GPUS_PER_WORKER=2 -> gpus-per-worker, for every concise job. */
static int apply_env(struct render_set *s, char **environ_, struct err *e)
{
	size_t n = 0;
	for (char **v = environ_; v && *v; v++)
		n++;
	char **sorted = xmalloc((n + 1) * sizeof(*sorted));
	memcpy(sorted, environ_, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_env);	/* same result whatever the env order */
	int rc = 0;
	struct buf name = BUF_INIT;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *kv = sorted[i], *eq = strchr(kv, '=');
		if (strncmp(kv, ENV_PREFIX, strlen(ENV_PREFIX)) || !eq)
			continue;
		buf_reset(&name);
		for (const char *c = kv + strlen(ENV_PREFIX); c < eq; c++)
			buf_addch(&name, *c == '_' ? '-' : (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c));
		const struct jobparam *p = jobparams_find(name.data);
		if (!p)
			continue;
		for (size_t k = 0; rc == 0 && k < s->n; k++) {
			struct render_job *j = &s->v[k];
			if (j->params && jobparams_set_text(j->params, p, eq + 1, e)) {
				err_prefix(e, "%.*s", (int)(eq - kv), kv);
				rc = render_job_err(j, e);
			}
		}
	}
	buf_free(&name);
	free(sorted);
	return rc;
}

static const char *collection_of(const struct jobparam *p)
{
	if (p->type == JP_LIST || p->type == JP_OBJLIST)
		return "array";
	return p->type == JP_MAP ? "map" : "string";
}

/* One Argo CD parameter value onto one job's params. */
static int set_param(struct render_job *j, const struct jobparam *p, const char *pname,
		     const cJSON *item, struct err *e)
{
	const cJSON *str = cJSON_GetObjectItemCaseSensitive(item, "string");
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(item, "array");
	const cJSON *map = cJSON_GetObjectItemCaseSensitive(item, "map");
	if (!p) {	/* a repo template's own placeholder, set by the job file */
		if (!cJSON_IsString(str))
			return err_set(e, ERR_INPUT, "give it as a string");
		cJSON *v = cJSON_CreateString(str->valuestring);
		int rc = jobparams_set_user_value(j->params, pname, v, e);
		cJSON_Delete(v);
		return rc;
	}
	const char *want = collection_of(p);
	const char *got = cJSON_IsString(str) ? "string" : cJSON_IsArray(arr) ? "array" :
			  cJSON_IsObject(map) ? "map" : NULL;
	if (!got)
		return err_set(e, ERR_INPUT, "no value; give one of string, array or map");
	if (strcmp(want, got))
		return err_set(e, ERR_INPUT, "is %s %s parameter, given as %s %s; set it as %s (collectionType %s)",
			       want[0] == 'a' ? "an" : "a", want, got[0] == 'a' ? "an" : "a", got, want, want);
	if (str)
		return jobparams_set_text(j->params, p, str->valuestring, e);
	if (map || p->type == JP_LIST)
		return jobparams_set_value(j->params, p, map ? map : arr, e);
	/*
	 * A list of objects (env, volumes, ...): each item in its text form
	 * (NAME=VALUE, name=pvc:claim) or as a JSON object; the whole list is
	 * then set at once, checked like a job file's list.
	 */
	cJSON *list = cJSON_CreateArray();
	const cJSON *it;
	int rc = 0;
	cJSON_ArrayForEach(it, arr) {
		cJSON *obj = NULL;
		if (!cJSON_IsString(it))
			rc = err_set(e, ERR_INPUT, "array items must be strings");
		else if (it->valuestring[0] == '{' &&
			 (yj_parse_one(it->valuestring, strlen(it->valuestring), "array item", &obj, e) ||
			  !cJSON_IsObject(obj)))
			rc = obj ? err_set(e, ERR_INPUT, "item %.64s is not a JSON object", it->valuestring) : -1;
		else if (!obj)
			rc = p->item_text(p, it->valuestring, &obj, e);
		if (rc) {
			cJSON_Delete(obj);
			break;
		}
		cJSON_AddItemToArray(list, obj);
	}
	if (rc == 0)
		rc = jobparams_set_value(j->params, p, list, e);
	cJSON_Delete(list);
	return rc;
}

static int apply_one_param(struct render_set *s, const cJSON *item, struct err *e)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(item, "name");
	if (!cJSON_IsString(n))
		return err_set(e, ERR_INPUT, "ARGOCD_APP_PARAMETERS: an entry has no name; every parameter needs one");
	const char *full = n->valuestring, *dot = strchr(full, '.');
	char *job = dot ? xstrndup(full, (size_t)(dot - full)) : NULL;
	const char *pname = dot ? dot + 1 : full;
	const struct jobparam *p = jobparams_find(pname);
	int matched = 0, rc = 0;
	for (size_t k = 0; rc == 0 && k < s->n; k++) {
		struct render_job *j = &s->v[k];
		if (job && strcmp(job, j->name))
			continue;
		if (!j->params) {
			if (job)
				rc = err_set(e, ERR_INPUT, "parameter %s: job %s is a plain %s manifest (%s); parameters apply to concise jobs only",
					     full, j->name, j->api->kind, j->file);
			continue;
		}
		int user = !p && j->tmpl && cJSON_GetObjectItemCaseSensitive(j->params, pname);
		if (!p && !user)
			continue;
		matched++;
		if (set_param(j, user ? NULL : p, pname, item, e))
			rc = err_prefix(e, "parameter %s (job %s in %s)", full, j->name, j->file);
	}
	if (rc == 0 && !matched) {
		if (job && !p)
			rc = err_set(e, ERR_INPUT, "parameter %s: %s is not a parameter of job %s; remove it from the Application or use a name from the Parameters tab", full, pname, job);
		else if (job)
			rc = err_set(e, ERR_INPUT, "parameter %s: there is no job named %s in the job files; remove it from the Application or fix the job name", full, job);
		else
			rc = err_set(e, ERR_INPUT, "parameter %s: not a job parameter and not set by any job file; remove it from the Application", full);
	}
	free(job);
	return rc;
}

/*
 * An entry is {name, string|array|map}: one value, no other key (a typo
 * such as "strng" would otherwise leave the parameter without a value).
 */
static int check_entry(const cJSON *it, int i, struct err *e)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name"), *k;
	if (!cJSON_IsObject(it))
		return err_set(e, ERR_INPUT, "ARGOCD_APP_PARAMETERS[%d] is not an object {name, string|array|map}", i);
	if (!cJSON_IsString(n))
		return err_set(e, ERR_INPUT, "ARGOCD_APP_PARAMETERS[%d] has no name; every parameter needs one", i);
	int values = 0;
	cJSON_ArrayForEach(k, it) {
		if (!strcmp(k->string, "name"))
			continue;
		if (strcmp(k->string, "string") && strcmp(k->string, "array") && strcmp(k->string, "map"))
			return err_set(e, ERR_INPUT, "parameter %.128s: \"%.64s\" is not a field of a parameter; use string, array or map",
				       n->valuestring, k->string);
		values++;
	}
	if (values > 1)
		return err_set(e, ERR_INPUT, "parameter %.128s has more than one of string, array and map; give one", n->valuestring);
	return 0;
}

/*
 * A parse error inside ARGOCD_APP_PARAMETERS (a key twice, a \u0000) names a
 * position; say which parameter it is in as well. The text is scanned, not
 * parsed (it failed to parse): the top-level entry holding byte `at`, and
 * that entry's "name" string if it has a plain one. NULL when unsure.
 */
static const char *entry_name_at(const char *json, size_t at, char *name, size_t cap)
{
	int depth = 0, in_str = 0, named = 0;
	const char *key = NULL;

	for (const char *p = json; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1]) {
				p++;
			} else if (*p == '"') {
				in_str = 0;
				/* a key directly in the entry: "name", then ':' and a plain string */
				const char *k = p + 1 + strspn(p + 1, " \t\r\n");
				if (depth == 2 && !named && p - key == 4 && !strncmp(key, "name", 4) &&
				    *k == ':') {
					k++;
					k += strspn(k, " \t\r\n");
					size_t n = *k == '"' ? strcspn(k + 1, "\"\\") : 0;
					if (n && n < cap && k[1 + n] == '"') {
						memcpy(name, k + 1, n);
						name[n] = '\0';
						named = 1;
					}
				}
			}
			continue;
		}
		if (*p == '"') {
			in_str = 1;
			key = p + 1;
		} else if (*p == '[' || *p == '{') {
			if (++depth == 2) {
				if ((size_t)(p - json) > at)
					return NULL;	/* the error lies between entries */
				named = 0;	/* a new entry */
			}
		} else if ((*p == ']' || *p == '}') && --depth == 1 && (size_t)(p - json) >= at) {
			break;		/* the entry holding the error ends here */
		}
	}
	return named && depth >= 1 ? name : NULL;
}

/* "WHAT:LINE:COL: ..." from the parser: the byte offset of LINE:COL in json */
static int error_offset(const char *json, const char *what, const char *msg, size_t *at)
{
	size_t wl = strlen(what);
	unsigned line, col;
	if (strncmp(msg, what, wl) || sscanf(msg + wl, ":%u:%u:", &line, &col) != 2 || !line)
		return -1;
	const char *p = json;
	for (unsigned l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return -1;
	*at = (size_t)(p - json) + (col ? col - 1 : 0);
	return *at < strlen(json) ? 0 : -1;
}

/*
 * ARGOCD_APP_PARAMETERS goes through the same bounded parser as every file
 * (yj: NUL, duplicate keys, nesting and size are errors), and must be one
 * JSON array: trailing data is an error, not ignored. `null` (what the
 * repo-server sends for a plugin section without parameters: json.Marshal
 * of a nil list, reposerver/repository/repository.go getPluginParamEnvs),
 * `[]` and an empty value mean none. A name given twice is an error: one
 * would silently win.
 */
static int apply_params(struct render_set *s, const char *json, struct err *e)
{
	const char *what = "ARGOCD_APP_PARAMETERS";
	if (!json || !json[strspn(json, " \t\r\n")])
		return 0;
	const char *first = json + strspn(json, " \t\r\n");
	if (*first != '[' && strncmp(first, "null", 4))
		return err_set(e, ERR_INPUT, "%s is not a JSON array of {name, string|array|map}", what);
	cJSON *docs = NULL;
	if (yj_parse_stream(json, strlen(json), what, &docs, e)) {
		char name[129];
		size_t at;
		if (strstr(e->msg, "expected <document start>"))	/* `[...] x` */
			err_prefix(e, "%s has data after its JSON array; send one array", what);
		else if (!error_offset(json, what, e->msg, &at) &&
			 entry_name_at(json, at, name, sizeof(name)))
			err_prefix(e, "parameter %s", name);
		return -1;
	}
	int rc = 0, n = cJSON_GetArraySize(docs);
	cJSON *arr = cJSON_GetArrayItem(docs, 0);
	if (n > 1)
		rc = err_set(e, ERR_INPUT, "%s holds more than one JSON value; send one array", what);
	else if (n == 1 && !cJSON_IsArray(arr))
		rc = err_set(e, ERR_INPUT, "%s is not a JSON array of {name, string|array|map}", what);
	int i = 0;
	for (const cJSON *it = rc || !n ? NULL : arr->child; it; it = it->next, i++) {
		if ((rc = check_entry(it, i, e)))
			break;
		const char *name = cJSON_GetObjectItemCaseSensitive(it, "name")->valuestring;
		for (const cJSON *prev = arr->child; prev != it; prev = prev->next)
			if (!strcmp(cJSON_GetObjectItemCaseSensitive(prev, "name")->valuestring, name))
				rc = err_set(e, ERR_INPUT, "parameter %.128s is given twice in %s; keep one", name, what);
		if (rc || (rc = apply_one_param(s, it, e)))
			break;
	}
	cJSON_Delete(docs);
	return rc;
}

/*
 * The rules that only hold under GitOps. (The default namespace is not a
 * parameter: render_job.c sets it on the manifest, so a repository template
 * without ((namespace?)) still works.)
 */
static int finish_job(struct render_job *j, struct err *e)
{
	if (cJSON_GetObjectItemCaseSensitive(j->params, "ttl-seconds-after-finished"))
		return err_set(e, ERR_INPUT, "ttl-seconds-after-finished: Argo CD would re-create (and re-run) the job after the TTL deletes it; remove it from jobs kept in Git");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(j->params, "name");
	if (cJSON_IsString(name) && strcmp(name->valuestring, j->name)) {
		free(j->name);
		j->name = xstrdup(name->valuestring);
	}
	return 0;
}

int render_params_apply(struct render_set *s, const struct render_env *env,
			struct err *e)
{
	for (size_t k = 0; k < s->n; k++) {
		struct render_job *j = &s->v[k];
		if (j->doc && doc_to_params(j, e))
			return render_job_err(j, e);
	}
	if (apply_env(s, env->environ, e) || apply_params(s, env->params_json, e))
		return -1;
	for (size_t k = 0; k < s->n; k++) {
		struct render_job *j = &s->v[k];
		if (j->params && finish_job(j, e))
			return render_job_err(j, e);
	}
	return 0;
}

/* --- announcements ------------------------------------------------------- */

static void scalar_to_text(const cJSON *v, struct buf *out)
{
	if (cJSON_IsString(v)) {
		buf_adds(out, v->valuestring);
	} else if (cJSON_IsBool(v)) {
		buf_adds(out, cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNumber(v)) {
		jtree_number_text(v, JTREE_NUM_TEXT, out);	/* as written */
	} else {
		jtree_json_canonical(v, out);
	}
}

/* An item of a list of objects in the text form Argo CD parameters accept. */
static void item_to_text(const cJSON *it, struct buf *out)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
	if (cJSON_GetArraySize(it) == 2 && cJSON_IsString(n) && cJSON_IsString(v))
		buf_addf(out, "%s=%s", n->valuestring, v->valuestring);	/* env NAME=VALUE */
	else
		scalar_to_text(it, out);
}

static cJSON *announce_one(const struct render_job *j, const cJSON *v)
{
	const struct jobparam *p = jobparams_find(v->string);
	struct buf t = BUF_INIT;
	cJSON *a = cJSON_CreateObject();
	buf_addf(&t, "%s.%s", j->name, v->string);
	cJSON_AddStringToObject(a, "name", t.data);
	buf_reset(&t);
	buf_addf(&t, "%s: %s", j->name, v->string);
	cJSON_AddStringToObject(a, "title", t.data);
	buf_reset(&t);
	buf_addf(&t, "%s (job %s in %s)", p ? p->help : "a placeholder of the job's template",
		 j->name, j->file);
	cJSON_AddStringToObject(a, "tooltip", t.data);
	const char *coll = p ? collection_of(p) : "string";
	cJSON_AddStringToObject(a, "collectionType", coll);
	if (!strcmp(coll, "map")) {
		cJSON *m = cJSON_AddObjectToObject(a, "map");
		for (const cJSON *it = v->child; it; it = it->next) {
			buf_reset(&t);
			scalar_to_text(it, &t);
			cJSON_AddStringToObject(m, it->string, t.data);
		}
	} else if (!strcmp(coll, "array")) {
		cJSON *arr = cJSON_AddArrayToObject(a, "array");
		const cJSON *it;
		cJSON_ArrayForEach(it, v) {
			buf_reset(&t);
			if (cJSON_IsObject(it))
				item_to_text(it, &t);
			else
				scalar_to_text(it, &t);
			cJSON_AddItemToArray(arr, cJSON_CreateString(t.data));
		}
	} else {
		buf_reset(&t);
		scalar_to_text(v, &t);
		cJSON_AddStringToObject(a, "string", t.data);
	}
	buf_free(&t);
	return a;
}

static int cmp_job(const void *a, const void *b)
{
	const struct render_job *x = *(const struct render_job *const *)a;
	const struct render_job *y = *(const struct render_job *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->file, y->file);
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

int render_params_announce(const struct render_set *s, struct buf *out, struct err *e)
{
	(void)e;
	const struct render_job **jobs = xmalloc((s->n + 1) * sizeof(*jobs));
	for (size_t k = 0; k < s->n; k++)
		jobs[k] = &s->v[k];
	qsort(jobs, s->n, sizeof(*jobs), cmp_job);
	cJSON *all = cJSON_CreateArray();
	for (size_t k = 0; k < s->n; k++) {
		const struct render_job *j = jobs[k];
		if (!j->params)
			continue;
		size_t n = (size_t)cJSON_GetArraySize(j->params), i = 0;
		const cJSON **items = xmalloc((n + 1) * sizeof(*items));
		for (const cJSON *v = j->params->child; v; v = v->next)
			items[i++] = v;
		qsort(items, n, sizeof(*items), cmp_item);
		for (i = 0; i < n; i++)
			if (strcmp(items[i]->string, "name"))
				cJSON_AddItemToArray(all, announce_one(j, items[i]));
		free(items);
	}
	free(jobs);
	/* key order of each announcement is fixed by construction: keep it */
	char *text = cJSON_Print(all);
	buf_adds(out, text);
	buf_addch(out, '\n');
	free(text);
	cJSON_Delete(all);
	return 0;
}
