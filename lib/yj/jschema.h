/*
 * jschema.h - a part of a job's schema as a table, walked by one function
 * (the way jobparams.h describes parameters): which fields a mapping may
 * have, and for each its type and bounds. jaxjob.c's runPolicy and
 * trainjob.c's spec, trainer and resources are tables of this kind instead
 * of hand-written chains of jcheck calls.
 *
 * Order: fields are checked in table order after the mapping itself
 * (present if required, a mapping, no unknown fields), so the table's order
 * decides which of several errors is reported, as a hand-written check
 * would. Every check is a jcheck.h call with the field's full path, so the
 * messages are jcheck's ("spec.runPolicy.backoffLimit must be at least 0,
 * got -1").
 *
 * Ownership: tables are static and read-only.
 */
#ifndef JAXJOB_JSCHEMA_H
#define JAXJOB_JSCHEMA_H

#include <cJSON.h>

#include "err.h"

enum jschema_type {
	JS_ANY,		/* allowed, not checked here */
	JS_INT,		/* whole number in [min, max] */
	JS_ENUM,	/* a string from `choices` */
	JS_BOOL,	/* true or false */
	JS_STRING,	/* a string (min/max bytes when max > 0) */
	JS_STRINGS,	/* a list of strings, at most max items (0: any) */
	JS_ENV,		/* a list of EnvVars, at most max items */
	JS_LIST,	/* a list (items not checked here) */
	JS_MAP,		/* a mapping with the fields of `fields` */
	JS_FN,		/* checked by `fn` (called also when absent: NULL) */
};

struct jschema_field {
	const char *name;		/* NULL ends a table */
	enum jschema_type type;
	long long min, max;
	const char *const *choices;		/* JS_ENUM */
	const struct jschema_field *fields;	/* JS_MAP */
	int (*fn)(const char *path, const cJSON *v, struct err *e);	/* JS_FN */
};

/*
 * Check the mapping `v` at `path` against `fields`: absent is fine unless
 * `required`; then a mapping, no member outside `fields`, each field in
 * table order.
 */
int jschema_check(const char *path, const cJSON *v, int required,
		  const struct jschema_field *fields, struct err *e);

#endif
