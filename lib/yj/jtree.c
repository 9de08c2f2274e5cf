/*
 * jtree.c - see jtree.h.
 */
#include "jtree.h"
#include "yj_scalar.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "digest.h"

/* ---------------------------------------------------------------------- */
/* Paths.                                                                 */

/* Parse "[digits]" at *p; returns the index or -1. */
static long parse_index(const char **p)
{
	const char *s = *p + 1;
	long v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (LONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s != ']')
		return -1;
	*p = s + 1;
	return v;
}

/* Copy one key (unescaping) from *p into `key`; returns 0, or -1 if empty. */
static int parse_key(const char **p, struct buf *key)
{
	const char *s = *p;
	buf_reset(key);
	while (*s && *s != '.' && *s != '[') {
		if (*s == '\\' && s[1])
			s++;
		buf_addch(key, *s++);
	}
	*p = s;
	return key->len ? 0 : -1;
}

cJSON *jtree_get_mut(cJSON *root, const char *path)
{
	struct buf key = BUF_INIT;
	const char *p = path ? path : "";
	cJSON *n = root;
	int first = 1;
	while (n && *p) {
		if (*p == '[') {
			long i = parse_index(&p);
			n = (i >= 0 && i <= INT_MAX && cJSON_IsArray(n)) ?
			    cJSON_GetArrayItem(n, (int)i) : NULL;
		} else {
			if (!first && *p++ != '.')
				n = NULL;
			else if (parse_key(&p, &key) || !cJSON_IsObject(n))
				n = NULL;
			else
				n = cJSON_GetObjectItemCaseSensitive(n, key.data);
		}
		first = 0;
	}
	buf_free(&key);
	return n;
}

void jtree_path_add_key(struct buf *path, const char *key)
{
	if (path->len)
		buf_addch(path, '.');
	for (; *key; key++) {
		if (strchr(".[]\\", *key))
			buf_addch(path, '\\');
		buf_addch(path, *key);
	}
}

const cJSON *jtree_get(const cJSON *root, const char *path)
{
	/* lookups never write; one walker serves both constnesses */
	return jtree_get_mut((cJSON *)root, path);
}

const char *jtree_get_string(const cJSON *root, const char *path,
			     const char *def)
{
	const cJSON *n = jtree_get(root, path);
	return cJSON_IsString(n) ? n->valuestring : def;
}

long long jtree_get_int(const cJSON *root, const char *path, long long def)
{
	const cJSON *n = jtree_get(root, path);
	if (!cJSON_IsNumber(n))
		return def;
	double v = n->valuedouble;
	/* 2^63 is the first double beyond LLONG_MAX */
	if (v != floor(v) || v < -9223372036854775808.0 || v >= 9223372036854775808.0)
		return def;
	return (long long)v;
}

/* ---------------------------------------------------------------------- */
/* Merge patch (RFC 7386 section 2).                                      */

static cJSON *xdup(const cJSON *n)
{
	cJSON *d = cJSON_Duplicate(n, 1);
	if (!d)
		buf_die_oom(0);	/* only allocation can fail here */
	return d;
}

void jtree_merge_patch(cJSON **target, const cJSON *patch)
{
	if (!patch)
		return;
	if (!cJSON_IsObject(patch)) {
		cJSON_Delete(*target);
		*target = xdup(patch);
		return;
	}
	if (!cJSON_IsObject(*target)) {
		cJSON_Delete(*target);
		*target = cJSON_CreateObject();
	}
	cJSON *t = *target;
	for (const cJSON *p = patch->child; p; p = p->next) {
		cJSON *cur = cJSON_GetObjectItemCaseSensitive(t, p->string);
		if (cJSON_IsNull(p)) {
			if (cur)
				cJSON_Delete(cJSON_DetachItemViaPointer(t, cur));
			continue;
		}
		if (cur && cJSON_IsObject(cur) && cJSON_IsObject(p)) {
			cJSON *keep = cur;	/* merged in place, keeps its position */
			jtree_merge_patch(&keep, p);
			continue;
		}
		cJSON *val = NULL;	/* a new object value still drops its nulls */
		jtree_merge_patch(&val, p);
		if (cur)
			cJSON_ReplaceItemViaPointer(t, cur, val);
		else
			cJSON_AddItemToObject(t, p->string, val);
	}
}

/* ---------------------------------------------------------------------- */
/* Key sorting, equality, hashing.                                        */

struct keyed {
	const cJSON *node;
	size_t pos;	/* tie-break: qsort is not stable */
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->node->string, y->node->string);
	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

const cJSON **jtree_members(const cJSON *n, int sorted, size_t *count)
{
	size_t k = 0;
	for (const cJSON *it = n ? n->child : NULL; it; it = it->next)
		k++;
	const cJSON **v = xmalloc((k ? k : 1) * sizeof(*v));
	*count = k;
	if (!sorted || !cJSON_IsObject(n) || k < 2) {
		k = 0;
		for (const cJSON *it = n ? n->child : NULL; it; it = it->next)
			v[k++] = it;
		return v;
	}
	struct keyed *kv = xmalloc(k * sizeof(*kv));
	k = 0;
	for (const cJSON *it = n->child; it; it = it->next, k++) {
		kv[k].node = it;
		kv[k].pos = k;
	}
	qsort(kv, k, sizeof(*kv), cmp_keyed);
	for (size_t i = 0; i < k; i++)
		v[i] = kv[i].node;
	free(kv);
	return v;
}

static int objects_equal(const cJSON *a, const cJSON *b)
{
	size_t na, nb;
	const cJSON **va = jtree_members(a, 1, &na);
	const cJSON **vb = jtree_members(b, 1, &nb);
	int eq = na == nb;
	for (size_t i = 0; eq && i < na; i++)
		eq = strcmp(va[i]->string, vb[i]->string) == 0 &&
		     jtree_equal(va[i], vb[i]);
	free(va);
	free(vb);
	return eq;
}

int jtree_equal(const cJSON *a, const cJSON *b)
{
	if (!a || !b)
		return a == b;
	int ta = a->type & 0xFF, tb = b->type & 0xFF;
	if (ta != tb)
		return 0;
	if (cJSON_IsNumber(a))
		return a->valuedouble == b->valuedouble ||
		       (isnan(a->valuedouble) && isnan(b->valuedouble));
	if (cJSON_IsString(a) || cJSON_IsRaw(a))
		return strcmp(a->valuestring ? a->valuestring : "",
			      b->valuestring ? b->valuestring : "") == 0;
	if (cJSON_IsArray(a)) {
		const cJSON *x = a->child, *y = b->child;
		for (; x && y; x = x->next, y = y->next)
			if (!jtree_equal(x, y))
				return 0;
		return !x && !y;
	}
	if (cJSON_IsObject(a))
		return objects_equal(a, b);
	return 1;	/* null, true, false: the type says it all */
}

void jtree_sha256_hex(const cJSON *root, char out[65])
{
	struct buf json = BUF_INIT;
	jtree_json_canonical(root, &json);
	digest_sha256_hex(json.data, json.len, out);
	buf_free(&json);
}

/* ---------------------------------------------------------------------- */
/* Numbers, shared by the YAML and JSON writers.                          */

/*
 * Integral values up to 2^53 print as integers; anything else as the
 * shortest %.15g..%.17g form that reads back to the same double. For YAML a
 * mantissa gets a ".0" when it has an exponent but no dot, because YAML 1.1
 * float syntax requires the dot ("1e+20" would be a string there).
 */
void jtree_fmt_number(double v, int yaml, char out[48])
{
	if (isnan(v)) {
		strcpy(out, yaml ? ".nan" : "null");
		return;
	}
	if (isinf(v)) {
		strcpy(out, !yaml ? "null" : v < 0 ? "-.inf" : ".inf");
		return;
	}
	if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
		if (v == 0 && signbit(v) && yaml)
			strcpy(out, "-0.0");
		else
			snprintf(out, 48, "%.0f", v == 0 ? 0.0 : v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, 48, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	char *e = strchr(out, 'e');
	if (yaml && e && !strchr(out, '.')) {
		memmove(e + 2, e, strlen(e) + 1);
		e[0] = '.';
		e[1] = '0';
	}
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? ; *has_exp set */
static int json_number_syntax(const char *s, int *has_exp)
{
	const char *p = s + (*s == '-');
	*has_exp = 0;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return 0;
	if (*p == '.') {
		size_t n = strspn(p + 1, "0123456789");
		if (!n)
			return 0;
		p += 1 + n;
	}
	if (*p == 'e' || *p == 'E') {
		*has_exp = 1;
		p++;
		p += *p == '+' || *p == '-';
		size_t n = strspn(p, "0123456789");
		if (!n)
			return 0;
		p += n;
	}
	return *p == '\0';
}

/*
 * Is `t` (the text yj_parse kept with a number) still the spelling of `v`?
 * Read as the parser read it (yj_scalar.h: 0x1F, 0o17, 1_000, .inf), so a
 * number changed after parsing never shows stale text.
 */
static int text_means(const char *t, double v)
{
	int b;
	double d;
	if (yj_resolve_plain(t, &b, &d) != SK_NUMBER)
		return 0;
	return d == v || (isnan(d) && isnan(v));
}

void jtree_number_text(const cJSON *n, int mode, struct buf *out)
{
	const char *t = n->valuestring;
	char num[48];
	int has_exp = 0;
	int big = fabs(n->valuedouble) >= 9007199254740992.0;
	/*
	 * JSON is canonical (hashes, request bodies): one spelling per value,
	 * so only an integer past 2^53, which a double cannot hold, keeps its
	 * digits. YAML keeps what was written unless YAML 1.1 would misread it.
	 */
	if (t && *t && text_means(t, n->valuedouble) &&
	    (mode == JTREE_NUM_TEXT ||
	     (json_number_syntax(t, &has_exp) && !has_exp &&
	      (mode == JTREE_NUM_YAML || (big && !strchr(t, '.')))))) {
		buf_adds(out, t);
		return;
	}
	jtree_fmt_number(n->valuedouble, mode == JTREE_NUM_YAML, num);
	buf_adds(out, num);
}

/* ---------------------------------------------------------------------- */
/* JSON writer (yj.h's YAML writer is its sibling).                      */

static void json_string(struct buf *out, const char *s)
{
	buf_addch(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t run = 0;	/* bytes that need no escape, copied at once */
		while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\' && p[run] != 0xC0)
			run++;
		if (run) {
			buf_add(out, p, run);
			p += run - 1;
			continue;
		}
		switch (*p) {
		case '"': buf_adds(out, "\\\""); break;
		case '\\': buf_adds(out, "\\\\"); break;
		case '\b': buf_adds(out, "\\b"); break;
		case '\f': buf_adds(out, "\\f"); break;
		case '\n': buf_adds(out, "\\n"); break;
		case '\r': buf_adds(out, "\\r"); break;
		case '\t': buf_adds(out, "\\t"); break;
		case 0xC0:	/* YJ_NUL (yj.h: YJ_KEEP_NUL), never valid UTF-8 otherwise */
			if (p[1] == 0x80) {
				buf_adds(out, "\\u0000");
				p++;
				break;
			}
			buf_addch(out, (char)*p);
			break;
		default:
			buf_addf(out, "\\u%04x", *p);
		}
	}
	buf_addch(out, '"');
}

static void json_newline(struct buf *out, int pretty, int indent)
{
	if (pretty) {
		buf_addch(out, '\n');
		for (int i = 0; i < indent; i++)
			buf_addch(out, ' ');
	}
}

/* Recursion depth is that of the tree: ours are bounded by YJ_MAX_DEPTH,
 * cJSON_Parse's by CJSON_NESTING_LIMIT. */
static void json_write(const cJSON *n, int pretty, int indent, struct buf *out)
{
	if (cJSON_IsArray(n) || cJSON_IsObject(n)) {
		int is_map = cJSON_IsObject(n);
		size_t k;
		const cJSON **v = jtree_members(n, 1, &k);
		buf_addch(out, is_map ? '{' : '[');
		for (size_t i = 0; i < k; i++) {
			if (i)
				buf_addch(out, ',');
			json_newline(out, pretty, indent + 2);
			if (is_map) {
				json_string(out, v[i]->string);
				buf_adds(out, pretty ? ": " : ":");
			}
			json_write(v[i], pretty, indent + 2, out);
		}
		if (k)
			json_newline(out, pretty, indent);
		buf_addch(out, is_map ? '}' : ']');
		free(v);
	} else if (cJSON_IsString(n)) {
		json_string(out, n->valuestring);
	} else if (cJSON_IsNumber(n)) {
		jtree_number_text(n, JTREE_NUM_JSON, out);	/* as written */
	} else if (cJSON_IsTrue(n)) {
		buf_adds(out, "true");
	} else if (cJSON_IsFalse(n)) {
		buf_adds(out, "false");
	} else if (cJSON_IsRaw(n) && n->valuestring) {
		buf_adds(out, n->valuestring);
	} else {
		buf_adds(out, "null");
	}
}

void jtree_json_canonical(const cJSON *doc, struct buf *out)
{
	json_write(doc, 0, 0, out);
}

void jtree_json_pretty(const cJSON *doc, struct buf *out)
{
	json_write(doc, 1, 0, out);
	buf_addch(out, '\n');
}
