/*
 * crdschema.c - see crdschema.h.
 *
 * The schema is static tables built by the compiler (lib/job/crdschema_data.h):
 * render validates thousands of jobs per run, and parsing the schema's JSON
 * for each was most of its time (issue 26). The only process-wide state is
 * the schemas' regular expressions, compiled once on first use
 * (pthread_once) and read-only after; glibc's regexec() locks a shared
 * regex_t itself (posix/regexec.c, lock_lock), so calls from several
 * threads stay safe. The walk follows the schema, not the value, so it is
 * bounded by the schema's depth; lists and mappings are walked in place,
 * and the walk allocates nothing but, for a list-type set or map, one
 * identity per item: the path is a stack of keys and indices, made into
 * text only for a message.
 *
 * Messages read like the API server's field errors (path, what is wrong)
 * and add the fix. A long value is shortened, never the reason or the fix.
 */
#include "crdschema.h"

#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "crdschema_data.h"
#include "yj/jtree.h"
#include "smap.h"
#include "suggest.h"
#include "yj/yj.h"

#define SHOW_MAX 64	/* bytes of a value quoted in a message */

/* The value for a message: "text" (shortened) or its JSON type. */
static const char *show(const cJSON *v, char *out, size_t size)
{
	if (cJSON_IsString(v)) {
		size_t n = strlen(v->valuestring);
		if (n > SHOW_MAX)
			snprintf(out, size, "\"%.*s...\" (%zu bytes)", SHOW_MAX - 3, v->valuestring, n);
		else
			snprintf(out, size, "\"%s\"", v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		struct buf t = BUF_INIT;	/* as written: 0x1F, .inf */
		jtree_number_text(v, JTREE_NUM_TEXT, &t);
		snprintf(out, size, "%.*s", SHOW_MAX, t.data);
		buf_free(&t);
	} else if (cJSON_IsBool(v)) {
		snprintf(out, size, "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsArray(v)) {
		snprintf(out, size, "a list");
	} else if (cJSON_IsObject(v)) {
		snprintf(out, size, "a mapping");
	} else {
		snprintf(out, size, "null");
	}
	return out;
}

static int is_integer(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble);
}

static const char *const type_names[] = {
	[CRD_ANY] = "any", [CRD_OBJECT] = "object", [CRD_ARRAY] = "array", [CRD_STRING] = "string",
	[CRD_BOOLEAN] = "boolean", [CRD_INTEGER] = "integer", [CRD_NUMBER] = "number",
};

static const char *fix_for(unsigned type)
{
	switch (type) {
	case CRD_INTEGER: return "write a whole number, without quotes";
	case CRD_NUMBER: return "write a number, without quotes";
	case CRD_STRING: return "quote it";
	case CRD_BOOLEAN: return "write true or false, without quotes";
	case CRD_OBJECT: return "give a mapping of fields";
	default: return "give a list";
	}
}

static int has_type(const cJSON *v, unsigned type)
{
	switch (type) {
	case CRD_OBJECT: return cJSON_IsObject(v);
	case CRD_ARRAY: return cJSON_IsArray(v);
	case CRD_STRING: return cJSON_IsString(v);
	case CRD_BOOLEAN: return cJSON_IsBool(v);
	case CRD_INTEGER: return is_integer(v);
	case CRD_NUMBER: return cJSON_IsNumber(v) && isfinite(v->valuedouble);
	default: return 1;
	}
}

/* UTF-8 characters, as the API server counts maxLength (runes). */
static size_t runes(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The schemas' regular expressions, compiled once per process. */
static regex_t *compiled;
static int compiled_ok;
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static void compile_patterns(void)
{
	compiled = xcalloc(crdschema_n_patterns ? crdschema_n_patterns : 1, sizeof(*compiled));
	for (size_t i = 0; i < crdschema_n_patterns; i++)
		if (regcomp(&compiled[i], crdschema_patterns[i], REG_EXTENDED | REG_NOSUB))
			return;	/* compiled_ok stays 0: every match reports it */
	compiled_ok = 1;
}

/* 1 when s matches pattern `id`, 0 when not, -1 (ERR_INTERNAL) when the patterns do not compile. */
static int matches(int id, const char *s, struct err *e)
{
	pthread_once(&compile_once, compile_patterns);
	if (!compiled_ok)
		return err_set(e, ERR_INTERNAL, "crdschema: a compiled-in pattern does not compile (%s)",
			       crdschema_patterns[id]);
	return regexec(&compiled[id], s, 0, NULL, 0) == 0;
}

/*
 * Where the walk is: the keys and indices down to the current value, made
 * into text ("spec.x[2].name") only for a message. Valid jobs, the common
 * case, never format a path.
 */
#define PATH_MAX_DEPTH 64	/* far deeper than any CRD schema (test_crdschema.c) */

struct path {
	size_t n;
	const char *key[PATH_MAX_DEPTH];	/* NULL: an index */
	int index[PATH_MAX_DEPTH];
	struct buf text;
};

static void push_key(struct path *p, const char *key)
{
	if (p->n < PATH_MAX_DEPTH) {
		p->key[p->n] = key;
		p->index[p->n] = 0;
	}
	p->n++;
}

static void push_index(struct path *p, int i)
{
	if (p->n < PATH_MAX_DEPTH) {
		p->key[p->n] = NULL;
		p->index[p->n] = i;
	}
	p->n++;
}

/* `.key` (or `[key]` when the key is not a plain name), `[i]`: "" at the root. */
static const char *path_raw(struct path *p)
{
	buf_reset(&p->text);
	for (size_t i = 0; i < p->n && i < PATH_MAX_DEPTH; i++) {
		const char *key = p->key[i];
		if (!key) {
			buf_addf(&p->text, "[%d]", p->index[i]);
			continue;
		}
		int plain = *key != 0;
		for (const char *c = key; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
				plain = 0;
		if (plain)
			buf_addf(&p->text, "%s%s", p->text.len ? "." : "", key);
		else
			buf_addf(&p->text, "[%.*s%s]", SHOW_MAX, key, strlen(key) > SHOW_MAX ? "..." : "");
	}
	return p->text.data;
}

static const char *path_or_root(struct path *p)
{
	return p->n ? path_raw(p) : "the object";
}

static int check(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e);

static int check_type(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	char got[SHOW_MAX + 32];
	if (cJSON_IsNull(v)) {
		if ((s->flags & CRD_NULLABLE) || (s->type == CRD_ANY && !(s->flags & CRD_INT_OR_STRING)))
			return 1;	/* nothing more to check */
		return err_set(e, ERR_INPUT, "%s must be of type %s, got null; give a value or remove the key",
			       path_or_root(path), s->type != CRD_ANY ? type_names[s->type] : "integer or string");
	}
	if (s->flags & CRD_INT_OR_STRING) {
		if (!cJSON_IsString(v) && !is_integer(v))
			return err_set(e, ERR_INPUT, "%s must be a whole number or a string, got %s; quote it",
				       path_or_root(path), show(v, got, sizeof(got)));
		return 0;
	}
	if (!has_type(v, s->type))
		return err_set(e, ERR_INPUT, "%s must be of type %s, got %s; %s", path_or_root(path),
			       type_names[s->type], show(v, got, sizeof(got)), fix_for(s->type));
	return 0;
}

static int check_string(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	const struct crdschema_bounds *b = s->bounds;
	char got[SHOW_MAX + 32];
	const char *str = v->valuestring;
	if (b && b->max_length != CRD_NO_LIMIT && runes(str) > (size_t)b->max_length)
		return err_set(e, ERR_INPUT, "%s may have at most %lld characters, got %zu; shorten it",
			       path_or_root(path), b->max_length, runes(str));
	if (b && b->min_length != CRD_NO_LIMIT && runes(str) < (size_t)b->min_length)
		return err_set(e, ERR_INPUT, "%s must have at least %lld character%s, got %zu",
			       path_or_root(path), b->min_length, b->min_length == 1 ? "" : "s", runes(str));
	if (s->pattern >= 0) {
		const char *re = crdschema_patterns[s->pattern];
		int m = matches(s->pattern, str, e);
		if (m < 0)
			return -1;
		if (!m && strstr(re, "[KMGTPE]i"))
			return err_set(e, ERR_INPUT, "%s %s is not a quantity; write one such as 500m, 2, 1.5 or 8Gi",
				       path_or_root(path), show(v, got, sizeof(got)));
		if (!m)
			return err_set(e, ERR_INPUT, "%s %s does not match %s; change it to match",
				       path_or_root(path), show(v, got, sizeof(got)), re);
	}
	return 0;
}

static int check_number(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	const struct crdschema_bounds *b = s->bounds;
	double d = v->valuedouble;
	if (s->format == CRD_FMT_INT32 && (d > 2147483647.0 || d < -2147483648.0))
		return err_set(e, ERR_INPUT, "%s must fit in 32 bits (at most 2147483647), got %.17g", path_or_root(path), d);
	if (s->format == CRD_FMT_INT64 && (d >= 9223372036854775808.0 || d < -9223372036854775808.0))
		return err_set(e, ERR_INPUT, "%s must fit in 64 bits, got %.17g", path_or_root(path), d);
	if (b && b->has_minimum && (b->exclusive_minimum ? d <= b->minimum : d < b->minimum))
		return err_set(e, ERR_INPUT, "%s must be %s %.17g, got %.17g", path_or_root(path),
			       b->exclusive_minimum ? "greater than" : "greater than or equal to", b->minimum, d);
	if (b && b->has_maximum && (b->exclusive_maximum ? d >= b->maximum : d > b->maximum))
		return err_set(e, ERR_INPUT, "%s must be %s %.17g, got %.17g", path_or_root(path),
			       b->exclusive_maximum ? "less than" : "less than or equal to", b->maximum, d);
	return 0;
}

/* The schema of property `name`, or NULL (props are sorted: a binary search). */
static const struct crdschema_node *prop(const struct crdschema_node *s, const char *name)
{
	size_t lo = 0, hi = s ? s->n_props : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, s->props[mid].name);
		if (!c)
			return s->props[mid].schema;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/*
 * Append the canonical JSON of list-map key `k` of item `it` to id, or of
 * the key's scalar default (made as a cJSON on the stack: no allocation);
 * 0 when the item has neither.
 */
static int add_map_key(struct buf *id, const cJSON *it, const struct crdschema_node *is, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, k);
	const struct crdschema_node *ks = prop(is, k);
	cJSON def = { 0 };
	if (!v && ks && ks->def.kind) {
		switch (ks->def.kind) {
		case 's':
			def.type = cJSON_String;
			def.valuestring = (char *)ks->def.string;
			break;
		case 'n':
			def.type = cJSON_Number;
			def.valuedouble = ks->def.number;
			def.valueint = (int)ks->def.number;
			break;
		default:
			def.type = ks->def.kind == 't' ? cJSON_True : cJSON_False;
		}
		v = &def;
	}
	if (!v)
		return 0;
	jtree_json_canonical(v, id);
	return 1;
}

/*
 * The identity of a list item: the item itself for a set, its key values
 * (or their defaults) for a map, as canonical JSON; NULL when a map item
 * lacks a key. Items are then compared through a hash map, in linear time.
 */
static char *item_identity(const cJSON *it, const struct crdschema_node *s)
{
	struct buf id = BUF_INIT;
	if (s->flags & CRD_LIST_SET) {
		jtree_json_canonical(it, &id);
		return buf_detach(&id, NULL);
	}
	if (!cJSON_IsObject(it))
		return NULL;
	for (size_t k = 0; k < s->n_map_keys; k++) {
		if (!add_map_key(&id, it, s->items, s->map_keys[k])) {
			buf_free(&id);
			return NULL;
		}
		buf_addch(&id, '\n');
	}
	return buf_detach(&id, NULL);
}

static int duplicate(const struct crdschema_node *s, struct path *path, int prev, struct err *e)
{
	if (s->flags & CRD_LIST_SET)
		return err_set(e, ERR_INPUT, "%s duplicates item %d of a set; each value may appear once: remove one",
			       path_raw(path), prev);
	struct buf k = BUF_INIT;
	for (size_t i = 0; i < s->n_map_keys; i++)
		buf_addf(&k, "%s%s", k.len ? ", " : "", s->map_keys[i]);
	err_set(e, ERR_INPUT, "%s has the same %s as item %d; the API server refuses duplicates: merge or rename them",
		path_raw(path), k.data, prev);
	buf_free(&k);
	return -1;
}

static int check_array(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	const struct crdschema_bounds *b = s->bounds;
	int n = cJSON_GetArraySize(v);
	if (b && b->max_items != CRD_NO_LIMIT && n > b->max_items)
		return err_set(e, ERR_INPUT, "%s may have at most %lld items, got %d; remove some", path_or_root(path),
			       b->max_items, n);
	if (b && b->min_items != CRD_NO_LIMIT && n < b->min_items)
		return err_set(e, ERR_INPUT, "%s must have at least %lld item%s, got %d", path_or_root(path), b->min_items,
			       b->min_items == 1 ? "" : "s", n);
	int unique = (s->flags & (CRD_LIST_SET | CRD_LIST_MAP)) != 0;
	struct smap seen = { 0 };
	char **ids = unique && n ? xcalloc((size_t)n + 1, sizeof(*ids)) : NULL;
	size_t len = path->n;
	int i = 0, rc = 0;
	for (const cJSON *it = v->child; it && rc == 0; it = it->next, i++) {
		push_index(path, i);
		rc = check(it, s->items, path, e);
		if (rc == 0 && ids && (ids[i] = item_identity(it, s))) {
			void *prev = smap_get(&seen, ids[i]);
			if (prev)
				rc = duplicate(s, path, (int)((intptr_t)prev - 1), e);
			else
				smap_put(&seen, ids[i], (void *)(intptr_t)(i + 1));
		}
		path->n = len;
	}
	smap_free(&seen);
	for (int k = 0; ids && k < n; k++)
		free(ids[k]);
	free(ids);
	return rc ? -1 : 0;
}

/* "x is not a field of y", with the nearest field name when one is close. */
static int unknown_field(const struct crdschema_node *s, struct path *path, size_t len, const char *name,
			 struct err *e)
{
	const char *best = NULL;
	size_t best_d = 4;	/* at most 3 edits away */
	for (size_t i = 0; i < s->n_props; i++) {
		size_t d = suggest_distance(name, s->props[i].name);
		if (d < best_d) {
			best_d = d;
			best = s->props[i].name;
		}
	}
	path->n = len;
	struct buf raw = BUF_INIT;	/* the parent's path, twice in the message */
	buf_adds(&raw, path_raw(path));
	const char *parent = path_or_root(path);
	if (best)
		err_set(e, ERR_INPUT, "%s%s%s is not a field of %s; did you mean %s? (the API server would drop it silently)",
			raw.data, len ? "." : "", name, parent, best);
	else
		err_set(e, ERR_INPUT, "%s%s%s is not a field of %s; remove it (the API server would drop it silently)",
			raw.data, len ? "." : "", name, parent);
	buf_free(&raw);
	return -1;
}

static int check_object(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	const struct crdschema_bounds *b = s->bounds;
	int n = cJSON_GetArraySize(v);
	if (b && b->min_props != CRD_NO_LIMIT && n < b->min_props)
		return err_set(e, ERR_INPUT, "%s must have at least %lld field%s, got %d", path_or_root(path), b->min_props,
			       b->min_props == 1 ? "" : "s", n);
	if (b && b->max_props != CRD_NO_LIMIT && n > b->max_props)
		return err_set(e, ERR_INPUT, "%s may have at most %lld fields, got %d", path_or_root(path), b->max_props, n);
	for (size_t i = 0; i < s->n_required; i++) {
		if (!cJSON_GetObjectItemCaseSensitive(v, s->required[i])) {
			push_key(path, s->required[i]);
			return err_set(e, ERR_INPUT, "%s is required; add it", path_raw(path));
		}
	}
	int closed = !(s->flags & (CRD_PRESERVE | CRD_ADDL_TRUE)) && !s->addl &&
		     (s->flags & (CRD_HAS_PROPS | CRD_ADDL_FALSE));
	size_t len = path->n;
	for (const cJSON *m = v->child; m; m = m->next) {
		const struct crdschema_node *ms = prop(s, m->string);
		if (len == 0 && (!strcmp(m->string, "apiVersion") || !strcmp(m->string, "kind") ||
				 !strcmp(m->string, "metadata") || !strcmp(m->string, "status")))
			continue;	/* ObjectMeta and type: jcheck; status: the server's */
		if (!ms)
			ms = s->addl;
		push_key(path, m->string);
		if (!ms && closed)
			return unknown_field(s, path, len, m->string, e);
		int rc = check(m, ms, path, e);
		path->n = len;
		if (rc)
			return -1;
	}
	return 0;
}

/* The CEL rules the generator translated (scripts/gen-crdschema.py). */
static int check_rules(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	char got[SHOW_MAX + 32];
	for (size_t i = 0; i < s->n_rules; i++) {
		const struct crdschema_rule *r = &s->rules[i];
		const cJSON *t = v;
		if (r->of)	/* only metadata.name, from the root */
			t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "metadata"), "name");
		if (!cJSON_IsString(t))
			continue;	/* the type check reports it */
		int ok = 1;
		if (r->max_len != CRD_NO_LIMIT)
			ok = runes(t->valuestring) <= (size_t)r->max_len;
		if (ok && r->match >= 0) {
			if (r->or_empty && !*t->valuestring)
				ok = 1;
			else if ((ok = matches(r->match, t->valuestring, e)) < 0)
				return -1;
		}
		if (ok && r->in) {
			ok = 0;
			for (size_t k = 0; k < r->n_in; k++)
				ok |= !strcmp(r->in[k], t->valuestring);
		}
		if (!ok)
			return err_set(e, ERR_INPUT, "%s %s: %s (a rule of the CRD)", r->of ? r->of : path_or_root(path),
				       show(t, got, sizeof(got)), r->message);
	}
	return 0;
}

static int check_enum(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	for (size_t i = 0; i < s->n_enums; i++)
		if (cJSON_IsString(v) && !strcmp(s->enums[i], v->valuestring))
			return 0;
	struct buf all = BUF_INIT;	/* only for the message */
	char got[SHOW_MAX + 32];
	for (size_t i = 0; i < s->n_enums; i++)
		buf_addf(&all, "%s%s", all.len ? ", " : "", s->enums[i]);
	err_set(e, ERR_INPUT, "%s %s is not valid; use one of %s", path_or_root(path),
		show(v, got, sizeof(got)), all.data);
	buf_free(&all);
	return -1;
}

static int check(const cJSON *v, const struct crdschema_node *s, struct path *path, struct err *e)
{
	if (!s)
		return 0;
	if (path->n >= PATH_MAX_DEPTH)	/* cannot happen with the compiled-in schemas */
		return err_set(e, ERR_INTERNAL, "crdschema: a schema nests deeper than %d levels", PATH_MAX_DEPTH);
	int rc = check_type(v, s, path, e);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (s->n_enums && !cJSON_IsNull(v) && check_enum(v, s, path, e))
		return -1;
	if (cJSON_IsString(v) && check_string(v, s, path, e))
		return -1;
	if (cJSON_IsNumber(v) && check_number(v, s, path, e))
		return -1;
	if (cJSON_IsArray(v) && check_array(v, s, path, e))
		return -1;
	if (cJSON_IsObject(v) && check_object(v, s, path, e))
		return -1;
	return check_rules(v, s, path, e);
}

int crdschema_validate(const cJSON *obj, struct err *e)
{
	const cJSON *av = cJSON_GetObjectItemCaseSensitive(obj, "apiVersion");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
	if (!cJSON_IsString(av) || !cJSON_IsString(kind))
		return 0;
	const struct crdschema_src *src = crdschema_srcs;
	while (src->kind && (strcmp(src->api_version, av->valuestring) || strcmp(src->kind, kind->valuestring)))
		src++;
	if (!src->kind)
		return 0;
	struct path path = { .n = 0, .text = BUF_INIT };
	int rc = check(obj, src->root, &path, e);
	buf_free(&path.text);
	return rc;
}
