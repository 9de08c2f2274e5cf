/*
 * crdschema_data.h - the shape of the compiled-in CRD schemas: static tables
 * that scripts/gen-crdschema.py writes into lib/job/crdschema_data.c and
 * lib/job/crdschema.c walks. Private to those two files.
 *
 * Why tables and not the schema's JSON: validation runs once per job, and a
 * repository may hold thousands (render). Parsing 60 kB of JSON per job was
 * 86 % of render's time (issue 26); these tables are read-only data, built by
 * the compiler, shared by every call and every thread, and cost nothing to
 * set up. Identical subschemas (most `{"type": "string"}`) are one node.
 *
 * A node holds only what lib/job/crdschema.c checks: a keyword it does not read
 * (anyOf, x-kubernetes-map-type, x-kubernetes-embedded-resource, a format
 * other than int32/int64) is not carried; a keyword the generator does not
 * know stops it, so a CRD update cannot lose a check silently.
 */
#ifndef JAXJOB_CRDSCHEMA_DATA_H
#define JAXJOB_CRDSCHEMA_DATA_H

#include <stddef.h>

enum crdschema_type {
	CRD_ANY,		/* no `type`: anything */
	CRD_OBJECT,
	CRD_ARRAY,
	CRD_STRING,
	CRD_BOOLEAN,
	CRD_INTEGER,
	CRD_NUMBER,
};

enum crdschema_format { CRD_FMT_NONE, CRD_FMT_INT32, CRD_FMT_INT64 };

/* crdschema_node.flags */
enum {
	CRD_NULLABLE = 1 << 0,		/* nullable: true */
	CRD_INT_OR_STRING = 1 << 1,	/* x-kubernetes-int-or-string */
	CRD_PRESERVE = 1 << 2,		/* x-kubernetes-preserve-unknown-fields */
	CRD_HAS_PROPS = 1 << 3,		/* `properties` present (maybe empty) */
	CRD_ADDL_TRUE = 1 << 4,		/* additionalProperties: true */
	CRD_ADDL_FALSE = 1 << 5,	/* additionalProperties: false */
	CRD_LIST_SET = 1 << 6,		/* x-kubernetes-list-type: set */
	CRD_LIST_MAP = 1 << 7,		/* list-type map with list-map-keys */
};

/* A limit that is absent. */
#define CRD_NO_LIMIT (-1LL)

/* The rarely present bounds; NULL in a node that has none. */
struct crdschema_bounds {
	long long min_length, max_length;	/* runes */
	long long min_items, max_items;
	long long min_props, max_props;
	int has_minimum, has_maximum;
	int exclusive_minimum, exclusive_maximum;
	double minimum, maximum;
};

/* A scalar `default`: what a list-map key that is absent stands for. */
struct crdschema_default {
	char kind;		/* 0: none, 's' string, 'n' number, 't' true, 'f' false */
	const char *string;
	double number;
};

/* One CEL rule, as the generator translated it (see scripts/gen-crdschema.py). */
struct crdschema_rule {
	int match;		/* pattern index, -1: none */
	int or_empty;		/* self == '' passes */
	long long max_len;	/* CRD_NO_LIMIT: none */
	const char *const *in;	/* NULL: none */
	size_t n_in;
	const char *of;		/* "metadata.name" (from the root), or NULL: self */
	const char *message;
};

struct crdschema_prop;

struct crdschema_node {
	unsigned char type;		/* enum crdschema_type */
	unsigned char format;		/* enum crdschema_format */
	unsigned short flags;
	int pattern;			/* pattern index, -1: none */
	const struct crdschema_bounds *bounds;
	const struct crdschema_prop *props;	/* sorted by name (strcmp) */
	size_t n_props;
	const struct crdschema_node *items;	/* NULL: items unchecked */
	const struct crdschema_node *addl;	/* additionalProperties schema */
	const char *const *required;
	size_t n_required;
	const char *const *enums;	/* string values only */
	size_t n_enums;
	const char *const *map_keys;	/* with CRD_LIST_MAP */
	size_t n_map_keys;
	const struct crdschema_rule *rules;
	size_t n_rules;
	struct crdschema_default def;
};

struct crdschema_prop {
	const char *name;
	const struct crdschema_node *schema;
};

struct crdschema_src {
	const char *api_version;	/* group/version */
	const char *kind;
	const struct crdschema_node *root;
};

/* The compiled-in schemas, ended by a zero entry. */
extern const struct crdschema_src crdschema_srcs[];
/* Every regular expression the schemas use (pattern, CEL matches), by index. */
extern const char *const crdschema_patterns[];
extern const size_t crdschema_n_patterns;

#endif
