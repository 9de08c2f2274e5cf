/*
 * jschema.c - see jschema.h.
 */
#include "jschema.h"

#include <stdio.h>
#include <stdlib.h>

#include "jcheck.h"

#define JSCHEMA_MAX_FIELDS 32	/* per mapping: the tables are ours */

static int check_field(const char *path, const struct jschema_field *f, const cJSON *v,
		       struct err *e)
{
	if (f->type == JS_FN)
		return f->fn(path, v, e);
	if (!v)
		return 0;
	switch (f->type) {
	case JS_ANY:
	case JS_FN:
		return 0;
	case JS_INT:
		return jcheck_int(path, v, f->min, f->max, e);
	case JS_ENUM:
		return jcheck_enum(path, v, f->choices, e);
	case JS_BOOL:
		return jcheck_want(path, v, cJSON_IsBool, "true or false", e);
	case JS_STRING:
		if (f->max > 0)
			return jcheck_string(path, v, (size_t)f->min, (size_t)f->max, e);
		return jcheck_want(path, v, cJSON_IsString, "a string", e);
	case JS_STRINGS:
		return jcheck_strings(path, v, (int)f->max, e);
	case JS_ENV:
		if (jcheck_env(path, v, (int)f->max, e) < 0)
			return -1;
		return jcheck_env_names(path, v, e);	/* the apiserver's rule for the pods to come */
	case JS_LIST:
		return jcheck_want(path, v, cJSON_IsArray, "a list", e);
	case JS_MAP:
		return jschema_check(path, v, 0, f->fields, e);
	}
	return 0;
}

int jschema_check(const char *path, const cJSON *v, int required,
		  const struct jschema_field *fields, struct err *e)
{
	const char *names[JSCHEMA_MAX_FIELDS + 1];
	size_t n = 0;
	char sub[256];

	if (!v && !required)
		return 0;
	for (; fields[n].name; n++) {
		if (n == JSCHEMA_MAX_FIELDS)
			abort();	/* a table of ours outgrew the bound: raise it */
		names[n] = fields[n].name;
	}
	names[n] = NULL;
	if (jcheck_want(path, v, cJSON_IsObject, "a mapping", e) < 0 ||
	    jcheck_only_fields(path, v, names, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s.%s", path, fields[i].name);
		if (check_field(sub, &fields[i], jcheck_member(v, fields[i].name), e) < 0)
			return -1;
	}
	return 0;
}
