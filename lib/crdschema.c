/*
 * crdschema.c - see crdschema.h.
 *
 * The schema is the compiled-in JSON text, parsed with cJSON per call (about
 * 100 KB; far below the cost of the request it protects) so that nothing is
 * shared between threads. The walk follows the schema, not the value, so it
 * is bounded by the schema's depth; lists and mappings are walked in place.
 *
 * Messages read like the API server's field errors (path, what is wrong)
 * and add the fix. A long value is shortened, never the reason or the fix.
 */
#include "crdschema.h"

#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "jtree.h"
#include "smap.h"
#include "suggest.h"
#include "yj.h"

#define SHOW_MAX 64	/* bytes of a value quoted in a message */

static const cJSON *kw(const cJSON *s, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(s, k);
}

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
		snprintf(out, size, "%.17g", v->valuedouble);
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

static const char *fix_for(const char *type)
{
	if (!strcmp(type, "integer"))
		return "write a whole number, without quotes";
	if (!strcmp(type, "number"))
		return "write a number, without quotes";
	if (!strcmp(type, "string"))
		return "quote it";
	if (!strcmp(type, "boolean"))
		return "write true or false, without quotes";
	if (!strcmp(type, "object"))
		return "give a mapping of fields";
	return "give a list";
}

static int has_type(const cJSON *v, const char *type)
{
	if (!strcmp(type, "object"))
		return cJSON_IsObject(v);
	if (!strcmp(type, "array"))
		return cJSON_IsArray(v);
	if (!strcmp(type, "string"))
		return cJSON_IsString(v);
	if (!strcmp(type, "boolean"))
		return cJSON_IsBool(v);
	if (!strcmp(type, "integer"))
		return is_integer(v);
	if (!strcmp(type, "number"))
		return cJSON_IsNumber(v) && isfinite(v->valuedouble);
	return 1;
}

/* UTF-8 characters, as the API server counts maxLength (runes). */
static size_t runes(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int matches(const char *re, const char *s, struct err *e)
{
	regex_t r;
	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		return err_set(e, ERR_INTERNAL, "crdschema: pattern %s does not compile", re);
	int rc = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return rc;
}

static const char *path_or_root(const struct buf *path)
{
	return path->len ? path->data : "the object";
}

/* Append `.key` (or `[key]` when the key is not a plain name) to path. */
static void push_key(struct buf *path, const char *key)
{
	int plain = *key != 0;
	for (const char *c = key; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
			plain = 0;
	if (plain)
		buf_addf(path, "%s%s", path->len ? "." : "", key);
	else
		buf_addf(path, "[%.*s%s]", SHOW_MAX, key, strlen(key) > SHOW_MAX ? "..." : "");
}

static int check(const cJSON *v, const cJSON *s, struct buf *path, struct err *e);

static int check_type(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	const cJSON *type = kw(s, "type");
	char got[SHOW_MAX + 32];
	if (cJSON_IsNull(v)) {
		if (cJSON_IsTrue(kw(s, "nullable")) || (!cJSON_IsString(type) &&
							  !cJSON_IsTrue(kw(s, "x-kubernetes-int-or-string"))))
			return 1;	/* nothing more to check */
		return err_set(e, ERR_INPUT, "%s must be of type %s, got null; give a value or remove the key",
			       path_or_root(path), cJSON_IsString(type) ? type->valuestring : "integer or string");
	}
	if (cJSON_IsTrue(kw(s, "x-kubernetes-int-or-string"))) {
		if (!cJSON_IsString(v) && !is_integer(v))
			return err_set(e, ERR_INPUT, "%s must be a whole number or a string, got %s; quote it",
				       path_or_root(path), show(v, got, sizeof(got)));
		return 0;
	}
	if (cJSON_IsString(type) && !has_type(v, type->valuestring))
		return err_set(e, ERR_INPUT, "%s must be of type %s, got %s; %s", path_or_root(path),
			       type->valuestring, show(v, got, sizeof(got)), fix_for(type->valuestring));
	return 0;
}

static int check_string(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	const cJSON *x;
	char got[SHOW_MAX + 32];
	const char *str = v->valuestring;
	if ((x = kw(s, "maxLength")) && runes(str) > (size_t)x->valuedouble)
		return err_set(e, ERR_INPUT, "%s may have at most %d characters, got %zu; shorten it",
			       path_or_root(path), x->valueint, runes(str));
	if ((x = kw(s, "minLength")) && runes(str) < (size_t)x->valuedouble)
		return err_set(e, ERR_INPUT, "%s must have at least %d character%s, got %zu",
			       path_or_root(path), x->valueint, x->valueint == 1 ? "" : "s", runes(str));
	if ((x = kw(s, "pattern")) && cJSON_IsString(x)) {
		int m = matches(x->valuestring, str, e);
		if (m < 0)
			return -1;
		if (!m && strstr(x->valuestring, "[KMGTPE]i"))
			return err_set(e, ERR_INPUT, "%s %s is not a quantity; write one such as 500m, 2, 1.5 or 8Gi",
				       path_or_root(path), show(v, got, sizeof(got)));
		if (!m)
			return err_set(e, ERR_INPUT, "%s %s does not match %s; change it to match",
				       path_or_root(path), show(v, got, sizeof(got)), x->valuestring);
	}
	return 0;
}

static int check_number(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	const cJSON *x;
	double d = v->valuedouble;
	const char *p = path_or_root(path);
	if ((x = kw(s, "format")) && cJSON_IsString(x)) {
		if (!strcmp(x->valuestring, "int32") && (d > 2147483647.0 || d < -2147483648.0))
			return err_set(e, ERR_INPUT, "%s must fit in 32 bits (at most 2147483647), got %.17g",
				       p, d);
		if (!strcmp(x->valuestring, "int64") && (d >= 9223372036854775808.0 || d < -9223372036854775808.0))
			return err_set(e, ERR_INPUT, "%s must fit in 64 bits, got %.17g", p, d);
	}
	if ((x = kw(s, "minimum"))) {
		int excl = cJSON_IsTrue(kw(s, "exclusiveMinimum"));
		if (excl ? d <= x->valuedouble : d < x->valuedouble)
			return err_set(e, ERR_INPUT, "%s must be %s %.17g, got %.17g", p,
				       excl ? "greater than" : "greater than or equal to", x->valuedouble, d);
	}
	if ((x = kw(s, "maximum"))) {
		int excl = cJSON_IsTrue(kw(s, "exclusiveMaximum"));
		if (excl ? d >= x->valuedouble : d > x->valuedouble)
			return err_set(e, ERR_INPUT, "%s must be %s %.17g, got %.17g", p,
				       excl ? "less than" : "less than or equal to", x->valuedouble, d);
	}
	return 0;
}

/* The value of key `k` of list-map item `it`, or the key's scalar default. */
static const cJSON *map_key(const cJSON *it, const cJSON *items_schema, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, k);
	if (v)
		return v;
	return kw(kw(kw(items_schema, "properties"), k), "default");
}

/*
 * The identity of a list item: the item itself for a set, its key values
 * (or their defaults) for a map, as canonical JSON; NULL when a map item
 * lacks a key. Items are then compared through a hash map, in linear time.
 */
static char *item_identity(const cJSON *it, int set, const cJSON *keys, const cJSON *is)
{
	struct buf id = BUF_INIT;
	const cJSON *k;
	if (set) {
		yj_json_canonical(it, &id);
		return buf_detach(&id, NULL);
	}
	if (!cJSON_IsObject(it))
		return NULL;
	cJSON_ArrayForEach(k, keys) {
		const cJSON *v = map_key(it, is, k->valuestring);
		if (!v) {
			buf_free(&id);
			return NULL;
		}
		yj_json_canonical(v, &id);
		buf_addch(&id, '\n');
	}
	return buf_detach(&id, NULL);
}

static int check_array(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	const cJSON *x, *is = kw(s, "items");
	int n = cJSON_GetArraySize(v);
	const char *p = path_or_root(path);
	if ((x = kw(s, "maxItems")) && n > x->valueint)
		return err_set(e, ERR_INPUT, "%s may have at most %d items, got %d; remove some", p,
			       x->valueint, n);
	if ((x = kw(s, "minItems")) && n < x->valueint)
		return err_set(e, ERR_INPUT, "%s must have at least %d item%s, got %d", p, x->valueint,
			       x->valueint == 1 ? "" : "s", n);
	const cJSON *lt = kw(s, "x-kubernetes-list-type"), *keys = kw(s, "x-kubernetes-list-map-keys");
	int set = cJSON_IsString(lt) && !strcmp(lt->valuestring, "set");
	int map = cJSON_IsString(lt) && !strcmp(lt->valuestring, "map") && cJSON_IsArray(keys);
	struct smap seen = { 0 };
	char **ids = (set || map) ? xcalloc((size_t)n + 1, sizeof(*ids)) : NULL;
	size_t len = path->len;
	int i = 0, rc = 0;
	for (const cJSON *it = v->child; it && rc == 0; it = it->next, i++) {
		buf_addf(path, "[%d]", i);
		rc = check(it, is, path, e);
		if (rc == 0 && ids && (ids[i] = item_identity(it, set, keys, is))) {
			void *prev = smap_get(&seen, ids[i]);
			if (prev && set) {
				rc = err_set(e, ERR_INPUT, "%s duplicates item %d of a set; each value may appear once: remove one",
					     path->data, (int)((intptr_t)prev - 1));
			} else if (prev) {
				struct buf k = BUF_INIT;
				const cJSON *key;
				cJSON_ArrayForEach(key, keys)
					buf_addf(&k, "%s%s", k.len ? ", " : "", key->valuestring);
				rc = err_set(e, ERR_INPUT, "%s has the same %s as item %d; the API server refuses duplicates: merge or rename them",
					     path->data, k.data, (int)((intptr_t)prev - 1));
				buf_free(&k);
			} else {
				smap_put(&seen, ids[i], (void *)(intptr_t)(i + 1));
			}
		}
		buf_truncate(path, len);
	}
	smap_free(&seen);
	for (int k = 0; ids && k < n; k++)
		free(ids[k]);
	free(ids);
	return rc ? -1 : 0;
}

static int check_object(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	const cJSON *props = kw(s, "properties"), *addl = kw(s, "additionalProperties"), *x;
	int preserve = cJSON_IsTrue(kw(s, "x-kubernetes-preserve-unknown-fields"));
	int n = cJSON_GetArraySize(v);
	const char *p = path_or_root(path);	/* valid until the path grows */
	if ((x = kw(s, "minProperties")) && n < x->valueint)
		return err_set(e, ERR_INPUT, "%s must have at least %d field%s, got %d", p, x->valueint,
			       x->valueint == 1 ? "" : "s", n);
	if ((x = kw(s, "maxProperties")) && n > x->valueint)
		return err_set(e, ERR_INPUT, "%s may have at most %d fields, got %d", p, x->valueint, n);
	cJSON_ArrayForEach(x, kw(s, "required")) {
		if (!cJSON_GetObjectItemCaseSensitive(v, x->valuestring)) {
			push_key(path, x->valuestring);
			return err_set(e, ERR_INPUT, "%s is required; add it", path->data);
		}
	}
	size_t len = path->len;
	for (const cJSON *m = v->child; m; m = m->next) {
		const cJSON *ms = props ? kw(props, m->string) : NULL;
		int is_root = len == 0;
		if (is_root && (!strcmp(m->string, "apiVersion") || !strcmp(m->string, "kind") ||
				!strcmp(m->string, "metadata") || !strcmp(m->string, "status")))
			continue;	/* ObjectMeta and type: jcheck; status: the server's */
		if (!ms && cJSON_IsObject(addl))
			ms = addl;
		push_key(path, m->string);
		if (!ms && !preserve && !cJSON_IsTrue(addl) && (props || cJSON_IsFalse(addl))) {
			const cJSON *best = NULL, *c;
			size_t best_d = 4;	/* at most 3 edits away */
			cJSON_ArrayForEach(c, props) {
				size_t d = suggest_distance(m->string, c->string);
				if (d < best_d) {
					best_d = d;
					best = c;
				}
			}
			buf_truncate(path, len);
			const char *parent = path_or_root(path);
			if (best)
				return err_set(e, ERR_INPUT, "%s%s%s is not a field of %s; did you mean %s? (the API server would drop it silently)",
					       path->data, len ? "." : "", m->string, parent, best->string);
			return err_set(e, ERR_INPUT, "%s%s%s is not a field of %s; remove it (the API server would drop it silently)",
				       path->data, len ? "." : "", m->string, parent);
		}
		int rc = check(m, ms, path, e);
		buf_truncate(path, len);
		if (rc)
			return -1;
	}
	return 0;
}

/* The CEL rules the generator translated (scripts/gen-crdschema.py). */
static int check_rules(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	const cJSON *r;
	char got[SHOW_MAX + 32];
	cJSON_ArrayForEach(r, kw(s, "x-kubernetes-validations")) {
		const cJSON *of = kw(r, "of"), *msg = kw(r, "message"), *x;
		const cJSON *t = v;
		const char *where = path_or_root(path);
		if (cJSON_IsString(of)) {	/* only metadata.name, from the root */
			t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "metadata"), "name");
			where = of->valuestring;
		}
		if (!cJSON_IsString(t))
			continue;	/* the type check reports it */
		const char *m = cJSON_IsString(msg) ? msg->valuestring : "a CRD validation rule fails";
		int ok = 1;
		if ((x = kw(r, "maxLen")))
			ok = runes(t->valuestring) <= (size_t)x->valuedouble;
		if (ok && (x = kw(r, "match"))) {
			if (kw(r, "orEmpty") && !*t->valuestring)
				ok = 1;
			else if ((ok = matches(x->valuestring, t->valuestring, e)) < 0)
				return -1;
		}
		if (ok && (x = kw(r, "in"))) {
			const cJSON *c;
			ok = 0;
			cJSON_ArrayForEach(c, x)
				ok |= !strcmp(c->valuestring, t->valuestring);
		}
		if (!ok)
			return err_set(e, ERR_INPUT, "%s %s: %s (a rule of the CRD)", where,
				       show(t, got, sizeof(got)), m);
	}
	return 0;
}

static int check(const cJSON *v, const cJSON *s, struct buf *path, struct err *e)
{
	if (!s)
		return 0;
	int rc = check_type(v, s, path, e);
	if (rc)
		return rc < 0 ? -1 : 0;
	const cJSON *en = kw(s, "enum"), *c;
	if (en && !cJSON_IsNull(v)) {
		struct buf all = BUF_INIT;
		int found = 0;
		char got[SHOW_MAX + 32];
		cJSON_ArrayForEach(c, en) {
			found |= cJSON_Compare(c, v, 1);
			buf_addf(&all, "%s%s", all.len ? ", " : "", cJSON_IsString(c) ? c->valuestring : "?");
		}
		if (!found) {
			err_set(e, ERR_INPUT, "%s %s is not valid; use one of %s", path_or_root(path),
				show(v, got, sizeof(got)), all.data);
			buf_free(&all);
			return -1;
		}
		buf_free(&all);
	}
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
	cJSON *schema = cJSON_ParseWithLength(src->json, src->len);
	if (!schema)
		return err_set(e, ERR_INTERNAL, "crdschema: the compiled-in schema of %s does not parse",
			       src->kind);
	struct buf path = BUF_INIT;
	int rc = check(obj, schema, &path, e);
	buf_free(&path);
	cJSON_Delete(schema);
	return rc;
}
