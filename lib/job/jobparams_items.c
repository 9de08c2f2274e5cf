/*
 * jobparams_items.c - see jobparams_items.h. Each text form produces the
 * Kubernetes object directly, then goes through the same check as an object
 * from a job file, so both paths accept exactly the same things.
 */
#include "jobparams_items.h"
#include "yj/jtree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "k8sname.h"

/* Only these members may appear in an item (a typo must not vanish). */
int jobparams_is_whole(double d)
{
	return d >= -9.2e18 && d <= 9.2e18 && d == floor(d);
}

static int only_members(const char *what, const cJSON *item, const char *const *allowed,
			struct err *e)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, item) {
		int ok = 0;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = !strcmp(*a, m->string);
		if (!ok)
			return err_set(e, ERR_INPUT, "%s: unknown field \"%s\"", what, m->string);
	}
	return 0;
}

static const char *str_member(const cJSON *item, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int want_string(const char *what, const cJSON *item, const char *name, int required,
		       struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, name);
	if (!v && !required)
		return 0;
	if (!v)
		return err_set(e, ERR_INPUT, "%s: %s is required", what, name);
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "%s: %s must be a string", what, name);
	return 0;
}

/* ---- env ------------------------------------------------------------------ */

/* C_IDENTIFIER-like as Kubernetes long required: [-._a-zA-Z][-._a-zA-Z0-9]* */
static int check_env_name(const char *s, struct err *e)
{
	int ok = *s && !(*s >= '0' && *s <= '9');
	for (const char *p = s; *p && ok; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || strchr("-._", *p);
	if (!ok)
		return err_set(e, ERR_INPUT, "env name \"%s\" is not valid: use letters, digits, "
			       "'_', '-' and '.', not starting with a digit", s);
	return 0;
}

int jp_env_check(const struct jobparam *p, const cJSON *item, struct err *e)
{
	static const char *const allowed[] = { "name", "value", "valueFrom", NULL };
	(void)p;
	if (only_members("env", item, allowed, e) < 0 ||
	    want_string("env", item, "name", 1, e) < 0)
		return -1;
	const char *name = str_member(item, "name");
	if (check_env_name(name, e) < 0)
		return -1;
	const cJSON *vf = cJSON_GetObjectItemCaseSensitive(item, "valueFrom");
	if (cJSON_GetObjectItemCaseSensitive(item, "value") && vf)
		return err_set(e, ERR_INPUT, "env %s: give value or valueFrom, not both", name);
	if (want_string("env", item, "value", 0, e) < 0)
		return err_prefix(e, "env %s", name);
	if (vf && !cJSON_IsObject(vf))
		return err_set(e, ERR_INPUT, "env %s: valueFrom must be a mapping", name);
	return 0;
}

static cJSON *env_var(const char *name, const char *value)
{
	cJSON *item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "name", name);
	cJSON_AddStringToObject(item, "value", value);
	return item;
}

int jp_env_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e)
{
	(void)p;
	const char *eq = strchr(text, '=');
	if (!eq)
		return err_set(e, ERR_INPUT, "env \"%s\" has no '='; write NAME=VALUE "
			       "(e.g. XLA_FLAGS=--xla_dump_to=/tmp)", text);
	char *name = xstrndup(text, (size_t)(eq - text));
	int rc = check_env_name(name, e);
	if (rc == 0)
		*out = env_var(name, eq + 1);
	free(name);
	return rc;
}

int jp_env_from_map(const cJSON *map, cJSON **out, struct err *e)
{
	cJSON *list = cJSON_CreateArray();
	const cJSON *it;
	struct buf num = BUF_INIT;
	cJSON_ArrayForEach(it, map) {
		const char *v = NULL;
		if (cJSON_IsString(it))
			v = it->valuestring;
		else if (cJSON_IsBool(it))
			v = cJSON_IsTrue(it) ? "true" : "false";
		else if (cJSON_IsNumber(it)) {
			buf_reset(&num);
			jtree_number_text(it, JTREE_NUM_TEXT, &num);	/* as written */
			v = num.data;
		}
		if (!v) {
			buf_free(&num);
			cJSON_Delete(list);
			return err_set(e, ERR_INPUT, "env %s must be a string", it->string);
		}
		cJSON_AddItemToArray(list, env_var(it->string, v));
	}
	buf_free(&num);
	*out = list;
	return 0;
}

/* ---- tolerations ----------------------------------------------------------- */

static const char *const effects[] = { "NoSchedule", "PreferNoSchedule", "NoExecute", NULL };

static int check_effect(const char *s, struct err *e)
{
	for (const char *const *x = effects; *x; x++)
		if (!strcmp(*x, s))
			return 0;
	return err_set(e, ERR_INPUT, "toleration effect \"%s\" is not valid; use NoSchedule, "
		       "PreferNoSchedule or NoExecute", s);
}

int jp_toleration_check(const struct jobparam *p, const cJSON *item, struct err *e)
{
	static const char *const allowed[] = {
		"key", "operator", "value", "effect", "tolerationSeconds", NULL
	};
	(void)p;
	if (only_members("toleration", item, allowed, e) < 0 ||
	    want_string("toleration", item, "key", 0, e) < 0 ||
	    want_string("toleration", item, "operator", 0, e) < 0 ||
	    want_string("toleration", item, "value", 0, e) < 0 ||
	    want_string("toleration", item, "effect", 0, e) < 0)
		return -1;
	const char *key = str_member(item, "key"), *op = str_member(item, "operator");
	const char *value = str_member(item, "value"), *effect = str_member(item, "effect");
	const cJSON *secs = cJSON_GetObjectItemCaseSensitive(item, "tolerationSeconds");
	if (op && strcmp(op, "Exists") && strcmp(op, "Equal"))
		return err_set(e, ERR_INPUT, "toleration operator \"%s\" is not valid; use "
			       "Exists or Equal", op);
	int exists = op && !strcmp(op, "Exists");
	if (key && *key && k8s_check_qualified_name("toleration key", key, e) < 0)
		return -1;
	if ((!key || !*key) && !exists)
		return err_set(e, ERR_INPUT, "toleration without a key needs operator Exists");
	if (exists && value && *value)
		return err_set(e, ERR_INPUT, "toleration %s: operator Exists takes no value",
			       key ? key : "");
	if (value && k8s_check_label_value("toleration value", value, e) < 0)
		return -1;
	if (effect && *effect && check_effect(effect, e) < 0)
		return -1;
	if (secs && (!cJSON_IsNumber(secs) ||
		     !jobparams_is_whole(secs->valuedouble)))
		return err_set(e, ERR_INPUT, "toleration %s: tolerationSeconds must be a whole "
			       "number", key ? key : "");
	return 0;
}

/* kubectl taint syntax: key[=value][:Effect] */
int jp_toleration_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e)
{
	char *s = xstrdup(text);
	char *colon = strrchr(s, ':'), *eq;
	cJSON *t = cJSON_CreateObject();
	if (colon)
		*colon = '\0';
	eq = strchr(s, '=');
	if (eq)
		*eq = '\0';
	cJSON_AddStringToObject(t, "key", s);
	cJSON_AddStringToObject(t, "operator", eq ? "Equal" : "Exists");
	if (eq)
		cJSON_AddStringToObject(t, "value", eq + 1);
	if (colon)
		cJSON_AddStringToObject(t, "effect", colon + 1);
	int rc = 0;
	if (!*s || (colon && !colon[1]))
		rc = err_set(e, ERR_INPUT, "toleration \"%s\" names no %s; write "
			     "key=value:NoSchedule, key:NoExecute or key", text,
			     *s ? "effect after ':'" : "key");
	else if (jp_toleration_check(p, t, e) < 0)
		rc = -1;
	free(s);
	if (rc < 0) {
		cJSON_Delete(t);
		return -1;
	}
	*out = t;
	return 0;
}

/* ---- volumes and mounts ------------------------------------------------------ */

int jp_volume_check(const struct jobparam *p, const cJSON *item, struct err *e)
{
	(void)p;
	if (want_string("volume", item, "name", 1, e) < 0)
		return -1;
	const char *name = str_member(item, "name");
	if (k8s_check_dns1123_label("volume name", name, e) < 0)
		return -1;
	int sources = 0;
	const cJSON *m;
	cJSON_ArrayForEach(m, item) {
		if (!strcmp(m->string, "name"))
			continue;
		if (!cJSON_IsObject(m))
			return err_set(e, ERR_INPUT, "volume %s: %s must be a mapping", name, m->string);
		sources++;
	}
	if (sources != 1)
		return err_set(e, ERR_INPUT, "volume %s needs exactly one source (e.g. "
			       "persistentVolumeClaim, configMap, secret, emptyDir), got %d",
			       name, sources);
	return 0;
}

/* NAME=KIND[:ARG] -> a Volume object */
static int volume_source(cJSON *v, const char *name, const char *kind, const char *arg,
			 struct err *e)
{
	cJSON *src = cJSON_CreateObject();
	const char *field = NULL, *member = NULL;
	if (!strcmp(kind, "pvc"))
		field = "persistentVolumeClaim", member = "claimName";
	else if (!strcmp(kind, "configmap"))
		field = "configMap", member = "name";
	else if (!strcmp(kind, "secret"))
		field = "secret", member = "secretName";
	else if (!strcmp(kind, "hostpath"))
		field = "hostPath", member = "path";
	else if (!strcmp(kind, "emptydir"))
		field = "emptyDir", member = arg ? "medium" : NULL;
	if (!field || (member && (!arg || !*arg))) {
		cJSON_Delete(src);
		return err_set(e, ERR_INPUT, "volume %s: \"%s%s%s\" is not a volume source; use "
			       "pvc:CLAIM, configmap:NAME, secret:NAME, emptydir[:Memory] or "
			       "hostpath:/PATH", name, kind, arg ? ":" : "", arg ? arg : "");
	}
	if (member)
		cJSON_AddStringToObject(src, member, arg);
	cJSON_AddItemToObject(v, field, src);
	return 0;
}

int jp_volume_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e)
{
	const char *eq = strchr(text, '=');
	if (!eq || eq == text)
		return err_set(e, ERR_INPUT, "volume \"%s\" must look like NAME=KIND:ARG "
			       "(e.g. data=pvc:my-claim, shm=emptydir:Memory)", text);
	char *name = xstrndup(text, (size_t)(eq - text));
	char *kind = xstrdup(eq + 1);
	char *arg = strchr(kind, ':');
	if (arg)
		*arg++ = '\0';
	cJSON *v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "name", name);
	int rc = volume_source(v, name, kind, arg, e);
	if (rc == 0)
		rc = jp_volume_check(p, v, e);
	free(name);
	free(kind);
	if (rc < 0) {
		cJSON_Delete(v);
		return -1;
	}
	*out = v;
	return 0;
}

int jp_mount_check(const struct jobparam *p, const cJSON *item, struct err *e)
{
	static const char *const allowed[] = {
		"name", "mountPath", "readOnly", "subPath", "subPathExpr", "mountPropagation",
		"recursiveReadOnly", NULL
	};
	(void)p;
	if (only_members("mount", item, allowed, e) < 0 ||
	    want_string("mount", item, "name", 1, e) < 0 ||
	    want_string("mount", item, "mountPath", 1, e) < 0 ||
	    want_string("mount", item, "subPath", 0, e) < 0)
		return -1;
	const char *name = str_member(item, "name"), *path = str_member(item, "mountPath");
	if (k8s_check_dns1123_label("mount volume name", name, e) < 0)
		return -1;
	if (path[0] != '/')
		return err_set(e, ERR_INPUT, "mount %s: path \"%s\" must be absolute", name, path);
	const cJSON *ro = cJSON_GetObjectItemCaseSensitive(item, "readOnly");
	if (ro && !cJSON_IsBool(ro))
		return err_set(e, ERR_INPUT, "mount %s: readOnly must be true or false", name);
	return 0;
}

/* NAME:/PATH[:ro|:rw] */
int jp_mount_text(const struct jobparam *p, const char *text, cJSON **out, struct err *e)
{
	char *s = xstrdup(text);
	char *path = strchr(s, ':'), *mode = NULL;
	int rc = 0;
	if (!path || path == s) {
		free(s);
		return err_set(e, ERR_INPUT, "mount \"%s\" must look like NAME:/PATH[:ro]", text);
	}
	*path++ = '\0';
	mode = strchr(path, ':');
	if (mode)
		*mode++ = '\0';
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "name", s);
	cJSON_AddStringToObject(m, "mountPath", path);
	if (mode && !strcmp(mode, "ro"))
		cJSON_AddTrueToObject(m, "readOnly");
	else if (mode && strcmp(mode, "rw"))
		rc = err_set(e, ERR_INPUT, "mount \"%s\": mode \"%s\" is not ro or rw", text, mode);
	if (rc == 0)
		rc = jp_mount_check(p, m, e);
	free(s);
	if (rc < 0) {
		cJSON_Delete(m);
		return -1;
	}
	*out = m;
	return 0;
}
