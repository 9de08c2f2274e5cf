/*
 * jcheck.c - see jcheck.h.
 */
#include "jcheck.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jtree.h"
#include "k8sname.h"

const cJSON *jcheck_member(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

const char *jcheck_type_name(const cJSON *v)
{
	if (cJSON_IsArray(v))
		return "a list";
	if (cJSON_IsObject(v))
		return "a mapping";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	return "null";
}

int jcheck_want(const char *path, const cJSON *v, int (*is)(const cJSON *const),
		const char *what, struct err *e)
{
	if (!v)
		return err_set(e, ERR_INPUT, "%s is required", path);
	if (!is(v))
		return err_set(e, ERR_INPUT, "%s must be %s, got %s", path, what,
			       jcheck_type_name(v));
	return 0;
}

/* A whole number within long long, so that a cast is defined. */
static int whole(double d)
{
	return d >= -9.2e18 && d <= 9.2e18 && d == floor(d);
}

int jcheck_int(const char *path, const cJSON *v, long long min, long long max, struct err *e)
{
	if (!v)
		return 0;
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && !whole(v->valuedouble)) {
		struct buf t = BUF_INIT;	/* the number as written, every digit */
		jtree_number_text(v, JTREE_NUM_TEXT, &t);
		err_set(e, ERR_INPUT, "%s must be at %s %lld, got %.64s", path,
			v->valuedouble < 0 ? "least" : "most", v->valuedouble < 0 ? min : max, t.data);
		buf_free(&t);
		return -1;
	}
	if (cJSON_IsNumber(v) && isnan(v->valuedouble)) {
		struct buf t = BUF_INIT;	/* .nan as written */
		jtree_number_text(v, JTREE_NUM_TEXT, &t);
		err_set(e, ERR_INPUT, "%s must be a whole number, got %.64s", path, t.data);
		buf_free(&t);
		return -1;
	}
	if (!cJSON_IsNumber(v) || !whole(v->valuedouble))
		return err_set(e, ERR_INPUT, "%s must be a whole number, got %s", path,
			       cJSON_IsNumber(v) ? "a fraction" : jcheck_type_name(v));
	long long n = (long long)v->valuedouble;
	if (n < min)
		return err_set(e, ERR_INPUT, "%s must be at least %lld, got %lld", path, min, n);
	if (n > max)
		return err_set(e, ERR_INPUT, "%s must be at most %lld, got %lld", path, max, n);
	return 0;
}

int jcheck_enum(const char *path, const cJSON *v, const char *const *choices, struct err *e)
{
	char all[256] = "";
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "%s must be a string, got %s", path,
			       jcheck_type_name(v));
	for (const char *const *c = choices; *c; c++) {
		if (!strcmp(*c, v->valuestring))
			return 0;
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
			 c == choices ? "" : ", ", *c);
	}
	return err_set(e, ERR_INPUT, "%s \"%s\" is not valid; use one of %s", path,
		       v->valuestring, all);
}

int jcheck_string(const char *path, const cJSON *v, size_t min, size_t max, struct err *e)
{
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "%s must be a string, got %s", path,
			       jcheck_type_name(v));
	size_t n = strlen(v->valuestring);
	if (n < min)
		return err_set(e, ERR_INPUT, "%s must not be empty", path);
	if (n > max)
		return err_set(e, ERR_INPUT, "%s must be at most %zu characters, got %zu", path,
			       max, n);
	return 0;
}

int jcheck_only_fields(const char *path, const cJSON *o, const char *const *fields,
		       struct err *e)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, o) {
		const char *const *f = fields;
		while (*f && strcmp(*f, m->string))
			f++;
		if (!*f)
			return err_set(e, ERR_INPUT, "%s.%s is not a field of %s", path, m->string,
				       path);
	}
	return 0;
}

int jcheck_string_map(const char *path, const cJSON *map, int labels, struct err *e)
{
	const cJSON *m;
	char what[320];
	if (!map)
		return 0;
	if (!cJSON_IsObject(map))
		return err_set(e, ERR_INPUT, "%s must be a mapping, got %s", path,
			       jcheck_type_name(map));
	cJSON_ArrayForEach(m, map) {
		snprintf(what, sizeof(what), "%s key", path);
		if (k8s_check_qualified_name(what, m->string, e) < 0)
			return -1;
		snprintf(what, sizeof(what), "%s.%s", path, m->string);
		if (!cJSON_IsString(m))
			return err_set(e, ERR_INPUT, "%s must be a string, got %s", what,
				       jcheck_type_name(m));
		if (labels && k8s_check_label_value(what, m->valuestring, e) < 0)
			return -1;
	}
	return 0;
}

static int check_items(const char *path, const cJSON *list, int max_items, struct err *e)
{
	if (jcheck_want(path, list, cJSON_IsArray, "a list", e) < 0)
		return -1;
	int n = cJSON_GetArraySize(list);
	if (max_items > 0 && n > max_items)
		return err_set(e, ERR_INPUT, "%s must have at most %d items, got %d", path,
			       max_items, n);
	return 0;
}

int jcheck_strings(const char *path, const cJSON *list, int max_items, struct err *e)
{
	const cJSON *it;
	int i = 0;
	if (!list)
		return 0;
	if (check_items(path, list, max_items, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsString(it))
			return err_set(e, ERR_INPUT, "%s[%d] must be a string, got %s; quote it or put "
				       "it inside a string", path, i, jcheck_type_name(it));
		i++;
	}
	return 0;
}

int jcheck_env(const char *path, const cJSON *env, int max_items, struct err *e)
{
	const cJSON *it;
	int i = 0;
	if (!env)
		return 0;
	if (check_items(path, env, max_items, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, env) {
		const cJSON *name = jcheck_member(it, "name"), *value = jcheck_member(it, "value");
		if (!cJSON_IsString(name))
			return err_set(e, ERR_INPUT, "%s[%d].name must be a string", path, i);
		if (value && !cJSON_IsString(value))
			return err_set(e, ERR_INPUT, "%s[%d].value (%s) must be a string, got %s", path,
				       i, name->valuestring, jcheck_type_name(value));
		i++;
	}
	return 0;
}

int jcheck_digits(long long n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

int jcheck_metadata(const cJSON *md, struct err *e)
{
	if (jcheck_want("metadata", md, cJSON_IsObject, "a mapping", e) < 0)
		return -1;
	const cJSON *name = jcheck_member(md, "name"), *ns = jcheck_member(md, "namespace");
	if (jcheck_want("metadata.name", name, cJSON_IsString, "a string", e) < 0 ||
	    k8s_check_dns1035("metadata.name", name->valuestring, e) < 0)
		return -1;
	if (ns && (jcheck_want("metadata.namespace", ns, cJSON_IsString, "a string", e) < 0 ||
		   k8s_check_dns1123_label("metadata.namespace", ns->valuestring, e) < 0))
		return -1;
	const cJSON *ann = jcheck_member(md, "annotations"), *a;
	if (jcheck_string_map("metadata.labels", jcheck_member(md, "labels"), 1, e) < 0 ||
	    jcheck_string_map("metadata.annotations", ann, 0, e) < 0)
		return -1;
	size_t total = 0;
	cJSON_ArrayForEach(a, ann)
		total += strlen(a->string) + strlen(a->valuestring);
	if (total > JCHECK_ANNOTATIONS_MAX)
		return err_set(e, ERR_INPUT, "metadata.annotations are %zu bytes in all, over the API server's limit of %d (256 KiB); "
			       "move large data to a ConfigMap", total, JCHECK_ANNOTATIONS_MAX);
	return 0;
}

/* Kubernetes 1.24 IsEnvVarName: [-._a-zA-Z][-._a-zA-Z0-9]* */
static int env_name_ok(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

int jcheck_env_names(const char *path, const cJSON *env, struct err *e)
{
	const cJSON *it;
	int i = 0;
	cJSON_ArrayForEach(it, env) {
		const cJSON *n = jcheck_member(it, "name");
		if (cJSON_IsString(n) && !env_name_ok(n->valuestring))
			return err_set(e, ERR_INPUT, "%s[%d].name \"%.64s%s\" is not a valid environment variable name: "
				       "use letters, digits, '_', '-' or '.', not starting with a digit",
				       path, i, n->valuestring, strlen(n->valuestring) > 64 ? "..." : "");
		i++;
	}
	return 0;
}

/* A path element ".." (validatePathNoBacksteps). */
static int backsteps(const char *p)
{
	for (const char *c = p; *c;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
		c += n + (end != NULL);
	}
	return 0;
}

int jcheck_pod_rules(const char *path, const cJSON *podspec, struct err *e)
{
	static const char *const lists[] = { "containers", "initContainers", "ephemeralContainers", NULL };
	char p[512];
	const cJSON *it;
	for (const char *const *l = lists; *l; l++) {
		int i = 0;
		cJSON_ArrayForEach(it, jcheck_member(podspec, *l)) {
			snprintf(p, sizeof(p), "%s.%s[%d].env", path, *l, i++);
			if (jcheck_env_names(p, jcheck_member(it, "env"), e) < 0)
				return -1;
		}
	}
	int i = 0;
	cJSON_ArrayForEach(it, jcheck_member(podspec, "volumes")) {
		const cJSON *hp = jcheck_member(jcheck_member(it, "hostPath"), "path");
		if (cJSON_IsString(hp) && backsteps(hp->valuestring))
			return err_set(e, ERR_INPUT, "%s.volumes[%d].hostPath.path must not contain '..' (the API server refuses the pods); "
				       "write the path without it", path, i);
		i++;
	}
	return 0;
}

/* `"value"` for a string, else its type ("a number"), for messages. */
static void describe(const cJSON *v, char *out, size_t size)
{
	if (cJSON_IsString(v))
		snprintf(out, size, "\"%s\"", v->valuestring);
	else
		snprintf(out, size, "%s", jcheck_type_name(v));
}

int jcheck_type(const cJSON *obj, const char *api_version, const char *kind, struct err *e)
{
	const cJSON *av = jcheck_member(obj, "apiVersion"), *k = jcheck_member(obj, "kind");
	char got[256];
	if (!cJSON_IsObject(obj))
		return err_set(e, ERR_INPUT, "a %s must be a mapping, got %s", kind,
			       jcheck_type_name(obj));
	if (!cJSON_IsString(av) || strcmp(av->valuestring, api_version)) {
		describe(av, got, sizeof(got));
		return err_set(e, ERR_INPUT, "apiVersion must be %s, got %s", api_version, got);
	}
	if (!cJSON_IsString(k) || strcmp(k->valuestring, kind)) {
		describe(k, got, sizeof(got));
		return err_set(e, ERR_INPUT, "kind must be %s, got %s", kind, got);
	}
	return 0;
}
