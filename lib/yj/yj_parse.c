/*
 * yj_parse.c - YAML text into cJSON trees (yj_parse_stream, yj_parse_one);
 * the rules are in yj.h, the writer is yj_emit.c.
 *
 * libyaml hands us a flat stream of events; we build the cJSON tree
 * with an explicit stack of open collections (struct frame), never by
 * recursion, so input nesting cannot exhaust the C stack before the depth
 * bound trips. Each completed node goes through one function, attach(), which
 * registers its anchor, then places it as document root, sequence element,
 * mapping key or mapping value. Every completed node carries two numbers: how
 * many cJSON nodes it holds and how tall it is. Anchors remember both, so an
 * alias is priced (YJ_MAX_ALIAS_NODES) and measured (YJ_MAX_DEPTH) before it
 * is copied, never after. Anchor names and each mapping's keys are looked up
 * in a string map (smap.h).
 */
#include "yj.h"
#include "smap.h"
#include "yj_scalar.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static cJSON *xcheck(cJSON *n)
{
	if (!n)
		buf_die_oom(0);	/* cJSON fails only when malloc does */
	return n;
}

/* ---------------------------------------------------------------------- */
/* Parser state.                                                          */

struct frame {
	cJSON *node;		/* the open collection */
	int is_map;
	char *key;		/* mapping: key awaiting its value (owned) */
	int key_is_merge;	/* that key is a plain "<<" */
	yaml_mark_t key_mark;	/* where that key was written */
	char *anchor;		/* anchor of this collection (owned) */
	size_t nodes;		/* cJSON nodes so far, this one included */
	int height;		/* 1 + tallest child */
	struct smap keys;	/* mapping: keys seen (borrowed from cJSON) */
	cJSON *merges;		/* mapping: values of "<<" keys, in order */
};

struct anchor {
	cJSON *node;		/* lives in the tree or in ctx->keep */
	size_t nodes;
	int height;
	char name[];		/* smap key */
};

struct ctx {
	const char *source;
	const char *data;
	size_t len;
	struct err *e;
	struct frame *stack;
	int depth;		/* frames in use */
	cJSON *root;
	int have_root;
	struct smap anchors;	/* name -> struct anchor * (owned) */
	cJSON *keep;		/* nodes anchors point at outside the tree */
	size_t alias_nodes;
	size_t alias_bytes;
	unsigned flags;		/* enum yj_parse_flags */
};

static int fail_at(struct ctx *c, enum err_code code, yaml_mark_t m,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail_at(struct ctx *c, enum err_code code, yaml_mark_t m,
		   const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(c->e, code, "%s:%zu:%zu: %s", c->source,
		       m.line + 1, m.column + 1, msg);
}

static void free_anchors(struct ctx *c)
{
	for (size_t i = 0; i < c->anchors.cap; i++)
		if (c->anchors.slots[i].key)
			free(c->anchors.slots[i].val);
	smap_free(&c->anchors);
	cJSON_Delete(c->keep);
	c->keep = NULL;
}

static void pop_frame(struct ctx *c)
{
	struct frame *f = &c->stack[--c->depth];
	free(f->key);
	free(f->anchor);
	smap_free(&f->keys);
	cJSON_Delete(f->merges);
}

/* Drop everything of the current document (after an error or at its end). */
static void reset_document(struct ctx *c)
{
	while (c->depth > 0) {
		/* open collections join their parent only when they end */
		cJSON *n = c->stack[c->depth - 1].node;
		pop_frame(c);
		cJSON_Delete(n);
	}
	free_anchors(c);
	cJSON_Delete(c->root);
	c->root = NULL;
	c->have_root = 0;
	c->alias_nodes = 0;
}

static void keep_node(struct ctx *c, cJSON *n)
{
	if (!c->keep)
		c->keep = xcheck(cJSON_CreateArray());
	cJSON_AddItemToArray(c->keep, n);
}

static void add_anchor(struct ctx *c, const char *name, cJSON *node,
		       size_t nodes, int height)
{
	size_t nl = strlen(name);
	struct anchor *a = xmalloc(sizeof(*a) + nl + 1);
	memcpy(a->name, name, nl + 1);
	a->node = node;
	a->nodes = nodes;
	a->height = height;
	struct anchor *old = smap_get(&c->anchors, name);
	smap_put(&c->anchors, a->name, a);	/* a later anchor wins */
	free(old);
}

static int key_from_node(struct ctx *c, const cJSON *n, yaml_mark_t m,
			 char **out)
{
	char tmp[64];
	if (cJSON_IsString(n)) {
		*out = xstrdup(n->valuestring);
	} else if (cJSON_IsNumber(n)) {
		snprintf(tmp, sizeof(tmp), "%.17g", n->valuedouble);
		*out = xstrdup(tmp);
	} else if (cJSON_IsBool(n)) {
		*out = xstrdup(cJSON_IsTrue(n) ? "true" : "false");
	} else if (cJSON_IsNull(n)) {
		*out = xstrdup("null");
	} else {
		return fail_at(c, ERR_INPUT, m,
			       "mapping keys must be scalars, found a %s; use a string key",
			       cJSON_IsArray(n) ? "sequence" : "mapping");
	}
	return 0;
}

static int add_merge_source(struct ctx *c, struct frame *f, cJSON *n,
			    yaml_mark_t m)
{
	int ok = cJSON_IsObject(n);
	if (cJSON_IsArray(n)) {
		ok = 1;
		for (cJSON *it = n->child; it; it = it->next)
			ok &= cJSON_IsObject(it);
	}
	if (!ok) {
		cJSON_Delete(n);
		return fail_at(c, ERR_INPUT, m,
			       "merge key \"<<\" needs a mapping or a sequence of mappings; quote it to use \"<<\" as a plain key");
	}
	if (!f->merges)
		f->merges = xcheck(cJSON_CreateArray());
	cJSON_AddItemToArray(f->merges, n);
	return 0;
}

static int key_seen(struct frame *f, const char *key)
{
	if (f->keys.cap)
		return smap_get(&f->keys, key) != NULL;
	/* small mappings: a scan beats hashing; build the set past 8 keys */
	int n = 0;
	for (cJSON *it = f->node->child; it; it = it->next, n++)
		if (strcmp(it->string, key) == 0)
			return 1;
	if (n >= 8)
		for (cJSON *it = f->node->child; it; it = it->next)
			smap_put(&f->keys, it->string, it);
	return 0;
}

/* A completed scalar (or alias copy) in key position becomes f->key. */
static int attach_key(struct ctx *c, struct frame *f, cJSON *n, int anchored,
		      int plain_merge, yaml_mark_t m)
{
	char *key = NULL;
	int rc = key_from_node(c, n, m, &key);
	if (anchored)
		keep_node(c, n);	/* aliases may copy it later */
	else
		cJSON_Delete(n);
	if (rc)
		return -1;
	f->key = key;
	f->key_is_merge = plain_merge;
	f->key_mark = m;
	return 0;
}

/* A completed value under f->key: a member, or a "<<" merge source. */
static int attach_value(struct ctx *c, struct frame *f, cJSON *n, int anchored,
			yaml_mark_t m)
{
	char *key = f->key;
	f->key = NULL;
	if (f->key_is_merge) {
		f->key_is_merge = 0;
		free(key);
		if (anchored) {	/* the anchor keeps the original */
			cJSON *copy = xcheck(cJSON_Duplicate(n, 1));
			keep_node(c, n);
			n = copy;
		}
		return add_merge_source(c, f, n, m);
	}
	if (key_seen(f, key)) {
		int rc = fail_at(c, ERR_INPUT, f->key_mark,
				 "duplicate mapping key \"%s\"; each key may appear once",
				 key);
		free(key);
		cJSON_Delete(n);
		return rc;
	}
	cJSON_AddItemToObject(f->node, key, n);
	free(key);
	if (f->keys.cap)
		smap_put(&f->keys, f->node->child->prev->string, n);
	return 0;
}

/*
 * Place a completed node: document root, sequence element, mapping key or
 * mapping value. Takes ownership of `n` (also on error). `plain_merge` is
 * set when `n` is the plain scalar "<<" (a merge key).
 */
static int attach(struct ctx *c, cJSON *n, size_t nodes, int height,
		  const char *anchor, int plain_merge, yaml_mark_t m)
{
	struct frame *f = c->depth ? &c->stack[c->depth - 1] : NULL;

	if (anchor)
		add_anchor(c, anchor, n, nodes, height);
	if (!f) {
		c->root = n;
		c->have_root = 1;
		return 0;
	}
	if (f->is_map && !f->key)
		return attach_key(c, f, n, anchor != NULL, plain_merge, m);
	if (!f->is_map || !f->key_is_merge) {
		/* merge sources are counted by apply_merges, key by key */
		f->nodes += nodes;
		if (height + 1 > f->height)
			f->height = height + 1;
	}
	if (!f->is_map) {
		cJSON_AddItemToArray(f->node, n);
		return 0;
	}
	return attach_value(c, f, n, anchor != NULL, m);
}

static size_t count_nodes(const cJSON *n)
{
	size_t k = 1;
	for (const cJSON *it = n->child; it; it = it->next)
		k += count_nodes(it);	/* depth is bounded by YJ_MAX_DEPTH */
	return k;
}

static int tree_height(const cJSON *n)
{
	int h = 0;
	for (const cJSON *it = n->child; it; it = it->next) {
		int ch = tree_height(it) + 1;
		if (ch > h)
			h = ch;
	}
	return (cJSON_IsArray(n) || cJSON_IsObject(n)) ? (h ? h : 1) : 0;
}

/*
 * Bytes of text a copy of `n` holds (its strings and keys, 8 per node):
 * what it adds to the output. Node counts have their own bound.
 */
static size_t tree_bytes(const cJSON *n, size_t stop)
{
	size_t b = 8 + (n->string ? strlen(n->string) : 0) +
		   (n->valuestring ? strlen(n->valuestring) : 0);
	for (const cJSON *it = n->child; it && b <= stop; it = it->next)
		b += tree_bytes(it, stop);
	return b;
}

/*
 * Aliases are priced in nodes and in bytes: one large anchored string
 * aliased a few thousand times is few nodes and gigabytes of output.
 */
static int charge_alias(struct ctx *c, const cJSON *copied, size_t nodes, yaml_mark_t m)
{
	c->alias_nodes += nodes;
	if (c->alias_nodes > YJ_MAX_ALIAS_NODES)
		return fail_at(c, ERR_LIMIT, m,
			       "aliases expand to more than %d nodes (billion laughs?); use fewer aliases",
			       YJ_MAX_ALIAS_NODES);
	c->alias_bytes += tree_bytes(copied, YJ_MAX_ALIAS_BYTES);
	if (c->alias_bytes > YJ_MAX_ALIAS_BYTES)
		return fail_at(c, ERR_LIMIT, m,
			       "aliases expand to more than %u bytes (%u MiB, the limit YJ_MAX_ALIAS_BYTES); anchor less data or use fewer aliases",
			       YJ_MAX_ALIAS_BYTES, YJ_MAX_ALIAS_BYTES >> 20);
	return 0;
}

/* Apply "<<" merge keys: explicit keys win, then earlier sources win. */
static int apply_merges(struct ctx *c, struct frame *f, yaml_mark_t m)
{
	for (cJSON *src = f->merges->child; src; src = src->next) {
		cJSON *one = cJSON_IsArray(src) ? src->child : src;
		for (; one; one = cJSON_IsArray(src) ? one->next : NULL) {
			for (cJSON *it = one->child; it; it = it->next) {
				if (key_seen(f, it->string))
					continue;
				size_t k = count_nodes(it);
				if (charge_alias(c, it, k, m))
					return -1;
				cJSON_AddItemToObject(f->node, it->string,
						      xcheck(cJSON_Duplicate(it, 1)));
				if (f->keys.cap)
					smap_put(&f->keys, f->node->child->prev->string,
						 f->node->child->prev);
				f->nodes += k;
				int h = tree_height(it) + 1;
				if (h > f->height)
					f->height = h;
			}
		}
	}
	return 0;
}

/* Where the parser is, for a message: "spec.env[2].value" (the keys awaiting values). */
static void key_path(const struct ctx *c, struct buf *out)
{
	for (int i = 0; i < c->depth; i++) {
		const struct frame *f = &c->stack[i];
		if (!f->is_map)
			buf_addf(out, "[%d]", cJSON_GetArraySize(f->node));
		else if (f->key)
			buf_addf(out, "%s%.64s", out->len ? "." : "", f->key);
	}
}

#define YJ_BINARY_TAG "tag:yaml.org,2002:binary"

/*
 * The tags a document may carry: none, the non-specific "!", and the YAML
 * core types on what they type (!!str, !!int, !!float, !!bool, !!null,
 * !!binary on scalars, !!map and !!seq on collections). Anything else -
 * !!set, !!omap, !!timestamp, !!python/object, !custom - would be dropped
 * without a word by Kubernetes' reader too (go-yaml v2 keeps the plain
 * value); refused here, with where it is.
 */
static int tag_ok(struct ctx *c, const yaml_char_t *tag, const char *const *allowed, yaml_mark_t m)
{
	if (!tag || !strcmp((const char *)tag, "!"))
		return 0;
	for (; *allowed; allowed++)
		if (!strcmp((const char *)tag, *allowed))
			return 0;
	struct buf path = BUF_INIT;
	key_path(c, &path);
	const char *t = (const char *)tag;
	int core = !strncmp(t, "tag:yaml.org,2002:", 18);
	fail_at(c, ERR_INPUT, m, "%s%s%s%.64s is not a tag jaxjob reads; remove it (only !!str, !!int, !!float, !!bool, !!null, !!binary, !!map and !!seq are)",
		path.data, path.len ? ": tag " : "tag ", core ? "!!" : "", core ? t + 18 : t);
	buf_free(&path);
	return -1;
}

static int start_collection(struct ctx *c, int is_map, yaml_char_t *anchor,
			    const yaml_char_t *tag, yaml_mark_t m)
{
	static const char *const map_tags[] = { YAML_MAP_TAG, NULL };
	static const char *const seq_tags[] = { YAML_SEQ_TAG, NULL };
	if (tag_ok(c, tag, is_map ? map_tags : seq_tags, m))
		return -1;
	struct frame *top = c->depth ? &c->stack[c->depth - 1] : NULL;
	if (top && top->is_map && !top->key)
		return fail_at(c, ERR_INPUT, m,
			       "mapping keys must be scalars, found a %s; use a string key",
			       is_map ? "mapping" : "sequence");
	if (c->depth >= YJ_MAX_DEPTH)
		return fail_at(c, ERR_LIMIT, m,
			       "nesting deeper than %d levels; flatten the document",
			       YJ_MAX_DEPTH);
	struct frame *f = &c->stack[c->depth++];
	memset(f, 0, sizeof(*f));
	f->node = xcheck(is_map ? cJSON_CreateObject() : cJSON_CreateArray());
	f->is_map = is_map;
	f->anchor = anchor ? xstrdup((char *)anchor) : NULL;
	f->nodes = 1;
	f->height = 1;
	return 0;
}

static int end_collection(struct ctx *c, yaml_mark_t m)
{
	struct frame *f = &c->stack[c->depth - 1];
	if (f->merges && apply_merges(c, f, m))
		return -1;
	cJSON *n = f->node;
	size_t nodes = f->nodes;
	int height = f->height;
	char *anchor = f->anchor;
	f->anchor = NULL;
	pop_frame(c);
	int rc = attach(c, n, nodes, height, anchor, 0, m);
	free(anchor);
	return rc;
}

static int tag_is(const yaml_char_t *tag, const char *name)
{
	return tag && strcmp((const char *)tag, name) == 0;
}

/* The typed node for a scalar in value position, or NULL after fail_at. */
static cJSON *typed_scalar(struct ctx *c, yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	const yaml_char_t *tag = ev->data.scalar.tag;
	yaml_mark_t m = ev->start_mark;
	int b = 0;
	double num = 0;
	enum yj_scalar_kind k = SK_STRING;
	int want = tag_is(tag, YAML_INT_TAG) || tag_is(tag, YAML_FLOAT_TAG) ? SK_NUMBER :
		   tag_is(tag, YAML_BOOL_TAG) ? SK_BOOL :
		   tag_is(tag, YAML_NULL_TAG) ? SK_NULL : -1;

	if (tag_is(tag, YAML_STR_TAG) || tag_is(tag, "!"))
		k = SK_STRING;
	else if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE || want >= 0)
		k = yj_resolve_plain(s, &b, &num);	/* other tags are refused before */
	if (want >= 0 && ((int)k != want ||
			  (tag_is(tag, YAML_INT_TAG) && num != floor(num)))) {
		fail_at(c, ERR_INPUT, m,
			"\"%.40s\" is not a valid !!%s; fix the value or drop the tag",
			s, (const char *)tag + strlen("tag:yaml.org,2002:"));
		return NULL;
	}
	switch (k) {
	case SK_NULL:
		return xcheck(cJSON_CreateNull());
	case SK_BOOL:
		return xcheck(cJSON_CreateBool(b));
	case SK_NUMBER: {
		/* .inf and .nan are words; a written number out of range is not */
		if (isinf(num) && !strchr(s, 'i') && !strchr(s, 'I')) {
			fail_at(c, ERR_INPUT, m,
				"number %.40s%s is out of range (a double holds up to about 1.8e308); quote it if it is text",
				s, strlen(s) > 40 ? "..." : "");
			return NULL;
		}
		cJSON *n = xcheck(cJSON_CreateNumber(num));
		/*
		 * The text kept as written (jtree_number_text): where the number
		 * becomes text (an env value, a label) 0.1 stays 0.1, 0x1F stays
		 * 0x1F and .inf stays .inf; where it stays a number, the value.
		 */
		n->valuestring = xstrdup(s);
		return n;
	}
	default:
		return xcheck(cJSON_CreateString(s));
	}
}

/*
 * A scalar holding NUL characters: with YJ_KEEP_NUL, a string (a key, or a
 * quoted value that no tag makes another type) gets each NUL as YJ_NUL;
 * anything else is refused.
 */
static int nul_scalar(struct ctx *c, yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const yaml_char_t *tag = ev->data.scalar.tag;
	yaml_mark_t m = ev->start_mark;
	struct frame *top = c->depth ? &c->stack[c->depth - 1] : NULL;
	int is_key = top && top->is_map && !top->key;
	int is_string = is_key || (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE &&
				   (!tag || tag_is(tag, YAML_STR_TAG) || tag_is(tag, "!")));
	if (!(c->flags & YJ_KEEP_NUL) || !is_string)
		return fail_at(c, ERR_INPUT, m, "NUL character in a scalar; remove it");
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < len; i++) {
		if (s[i])
			buf_addch(&b, s[i]);
		else
			buf_adds(&b, YJ_NUL);
	}
	cJSON *n = xcheck(cJSON_CreateString(b.data));
	buf_free(&b);
	return attach(c, n, 1, 0, (const char *)ev->data.scalar.anchor, 0, m);
}

/* 0 when s[0..n) is valid UTF-8 (no overlongs, no surrogates), else -1. */
static int yj_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		unsigned c = *p, len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 :
				       c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
		if (!len || (size_t)(end - p) < len)
			return -1;
		unsigned v = len == 1 ? c : c & (0xFF >> (len + 1));
		for (unsigned i = 1; i < len; i++) {
			if ((p[i] & 0xC0) != 0x80)
				return -1;
			v = (v << 6) | (p[i] & 0x3F);
		}
		if ((len == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) ||
		    (len == 4 && (v < 0x10000 || v > 0x10FFFF)))
			return -1;
		p += len;
	}
	return 0;
}

/* Go's base64.StdEncoding.DecodeString: padding required, '\r' and '\n' skipped. */
static int base64_std(const char *s, struct buf *out)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0, pad = 0, n = 0;
	for (; *s; s++) {
		if (*s == '\r' || *s == '\n')
			continue;
		n++;
		if (*s == '=') {
			pad++;
			continue;
		}
		const char *at = strchr(abc, *s);
		if (!at || pad)
			return -1;
		acc = (acc << 6) | (unsigned)(at - abc);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addch(out, (char)((acc >> bits) & 0xff));
		}
	}
	return n % 4 || pad > 2 || (pad && bits < 2 * pad) ? -1 : 0;
}

/*
 * A !!binary scalar, decoded as Kubernetes' reader decodes it (go.yaml.in/
 * yaml/v2 v2.4.2 decode.go:419-423: base64.StdEncoding, the bytes as the
 * string), or refused when
 * the bytes are not text a string can carry (UTF-8 without NUL).
 */
static int binary_scalar(struct ctx *c, yaml_event_t *ev)
{
	yaml_mark_t m = ev->start_mark;
	struct buf b = BUF_INIT, path = BUF_INIT;
	int rc = 0;
	key_path(c, &path);
	if (base64_std((const char *)ev->data.scalar.value, &b))
		rc = fail_at(c, ERR_INPUT, m, "%s%s!!binary value is not valid base64; fix it, or drop the tag for text",
			     path.data, path.len ? ": " : "");
	else if (memchr(b.data, 0, b.len) || yj_utf8_valid(b.data, b.len) < 0)
		rc = fail_at(c, ERR_INPUT, m, "%s%s!!binary value decodes to bytes that are not UTF-8 text; a manifest field holds text: give the text itself",
			     path.data, path.len ? ": " : "");
	else
		rc = attach(c, xcheck(cJSON_CreateString(b.data)), 1, 0,
			    (const char *)ev->data.scalar.anchor, 0, m);
	buf_free(&b);
	buf_free(&path);
	return rc;
}

static int scalar_event(struct ctx *c, yaml_event_t *ev)
{
	static const char *const scalar_tags[] = {
		YAML_STR_TAG, YAML_INT_TAG, YAML_FLOAT_TAG, YAML_BOOL_TAG, YAML_NULL_TAG,
		YJ_BINARY_TAG, NULL
	};
	const char *s = (const char *)ev->data.scalar.value;
	const char *anchor = (const char *)ev->data.scalar.anchor;
	yaml_mark_t m = ev->start_mark;

	if (tag_ok(c, ev->data.scalar.tag, scalar_tags, m))
		return -1;
	if (tag_is(ev->data.scalar.tag, YJ_BINARY_TAG))
		return binary_scalar(c, ev);

	if (strlen(s) != ev->data.scalar.length)
		return nul_scalar(c, ev);
	/* keys are JSON strings: take them as written ("0x10" stays "0x10") */
	struct frame *top = c->depth ? &c->stack[c->depth - 1] : NULL;
	if (top && top->is_map && !top->key) {
		int merge = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			    !ev->data.scalar.tag && strcmp(s, "<<") == 0;
		return attach(c, xcheck(cJSON_CreateString(s)), 1, 0, anchor, merge, m);
	}
	cJSON *n = typed_scalar(c, ev);
	return n ? attach(c, n, 1, 0, anchor, 0, m) : -1;
}

static int alias_event(struct ctx *c, yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	yaml_mark_t m = ev->start_mark;
	struct anchor *a = smap_get(&c->anchors, name);
	if (!a)
		return fail_at(c, ERR_INPUT, m,
			       "alias *%s has no anchor &%s before it (aliases cannot point into their own node)",
			       name, name);
	if (c->depth + a->height > YJ_MAX_DEPTH)
		return fail_at(c, ERR_LIMIT, m,
			       "alias *%s makes nesting deeper than %d levels; flatten the document",
			       name, YJ_MAX_DEPTH);
	if (charge_alias(c, a->node, a->nodes, m))
		return -1;
	cJSON *copy = xcheck(cJSON_Duplicate(a->node, 1));
	return attach(c, copy, a->nodes, a->height, NULL, 0, m);
}

static void linecol(const char *data, size_t len, size_t off, size_t *line,
		    size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (data[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)data[i] & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

static int u_escape(const char *p, unsigned lo, unsigned hi, unsigned *out);

static int parser_error(struct ctx *c, yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "malformed YAML";
	if (p->error == YAML_READER_ERROR) {
		size_t line, col;
		linecol(c->data, c->len, p->problem_offset, &line, &col);
		return err_set(c->e, ERR_PARSE, "%s:%zu:%zu: %s; the input must be UTF-8 text",
			       c->source, line, col, problem);
	}
	if (p->error == YAML_MEMORY_ERROR)
		return err_set(c->e, ERR_INTERNAL, "%s: out of memory", c->source);
	yaml_mark_t m = p->problem_mark;
	const char *hint = "";
	unsigned half;
	if (p->problem && strstr(p->problem, "invalid Unicode character escape") && m.index >= 2 &&
	    m.index + 4 <= c->len && u_escape(c->data + m.index - 2, 0xd800, 0xdfff, &half))
		return err_set(c->e, ERR_PARSE, "%s:%zu:%zu: \\u%04x is half of a UTF-16 surrogate pair; "
			       "give both halves (\\ud83d\\udca5) or the character itself",
			       c->source, m.line + 1, m.column - 1, half);
	if (m.index < c->len && c->data[m.index] == '\t')
		hint = "; tabs are not allowed for indentation, use spaces";
	if (p->context)
		return err_set(c->e, ERR_PARSE, "%s:%zu:%zu: %s (%s started at line %zu)%s",
			       c->source, m.line + 1, m.column + 1, problem,
			       p->context, p->context_mark.line + 1, hint);
	return err_set(c->e, ERR_PARSE, "%s:%zu:%zu: %s%s", c->source,
		       m.line + 1, m.column + 1, problem, hint);
}

/* One event; returns 1 at stream end, 0 to go on, -1 on error. */
static int handle_event(struct ctx *c, yaml_event_t *ev, cJSON *docs)
{
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		reset_document(c);
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		if (c->have_root && !cJSON_IsNull(c->root)) {
			cJSON_AddItemToArray(docs, c->root);
			c->root = NULL;
		}
		reset_document(c);
		return 0;
	case YAML_MAPPING_START_EVENT:
		return start_collection(c, 1, ev->data.mapping_start.anchor,
					ev->data.mapping_start.tag, ev->start_mark);
	case YAML_SEQUENCE_START_EVENT:
		return start_collection(c, 0, ev->data.sequence_start.anchor,
					ev->data.sequence_start.tag, ev->start_mark);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		return end_collection(c, ev->start_mark);
	case YAML_SCALAR_EVENT:
		return scalar_event(c, ev);
	case YAML_ALIAS_EVENT:
		return alias_event(c, ev);
	default:
		return 0;
	}
}

static int check_input(const char *data, size_t len, const char *source,
		       struct err *e)
{
	if (len > YJ_MAX_INPUT)
		return err_set(e, ERR_LIMIT,
			       "%s: input is %zu bytes, more than the limit of %u bytes (%u MiB); split it",
			       source, len, YJ_MAX_INPUT, YJ_MAX_INPUT >> 20);
	const char *nul = memchr(data, '\0', len);
	if (nul) {
		size_t line, col;
		linecol(data, len, (size_t)(nul - data), &line, &col);
		return err_set(e, ERR_PARSE,
			       "%s:%zu:%zu: NUL byte in the input; YAML must be UTF-8 text without NULs",
			       source, line, col);
	}
	return 0;
}

/* "\uXXXX" at p with a value in [lo, hi] (p has at least 6 bytes). */
static int u_escape(const char *p, unsigned lo, unsigned hi, unsigned *out)
{
	unsigned v = 0;
	if (p[0] != '\\' || p[1] != 'u')
		return 0;
	for (int i = 2; i < 6; i++) {
		char ch = p[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ?
			(ch | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		v = v * 16 + (unsigned)d;
	}
	*out = v;
	return v >= lo && v <= hi;
}

/* A JSON surrogate pair escape (\ud83d\udca5) at data[i]: its code point. */
static unsigned long surrogate_pair(const char *data, size_t len, size_t i)
{
	unsigned hi, lo;
	if (i + 12 > len || !u_escape(data + i, 0xd800, 0xdbff, &hi) ||
	    !u_escape(data + i + 6, 0xdc00, 0xdfff, &lo))
		return 0;
	return 0x10000 + (((unsigned long)hi - 0xd800) << 10) + (lo - 0xdc00);
}

/*
 * One pass of libyaml over the input. *pair_at is set when the only
 * problem is a JSON surrogate-pair escape, which YAML does not have
 * (libyaml refuses \ud83d); the caller rewrites it and parses again.
 */
static int parse_pass(const char *data, size_t len, const char *source, unsigned flags,
		      cJSON **docs_out, size_t *pair_at, struct err *e)
{
	struct frame stack[YJ_MAX_DEPTH];
	struct ctx c = { .source = source, .data = data, .len = len, .e = e,
			 .stack = stack, .flags = flags };
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return err_set(e, ERR_LIMIT, "%s: out of memory", source);
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	cJSON *docs = xcheck(cJSON_CreateArray());
	int rc = 0;
	while (rc == 0) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			/* libyaml's mark is past the "\\u" */
			size_t at = p.problem_mark.index >= 2 ? p.problem_mark.index - 2 : 0;
			if (p.error == YAML_SCANNER_ERROR && p.problem &&
			    strstr(p.problem, "invalid Unicode character escape") &&
			    surrogate_pair(data, len, at)) {
				*pair_at = at;
				rc = -1;
				break;
			}
			rc = parser_error(&c, &p);
			break;
		}
		rc = handle_event(&c, &ev, docs);
		yaml_event_delete(&ev);
	}
	reset_document(&c);
	yaml_parser_delete(&p);
	if (rc < 0) {
		cJSON_Delete(docs);
		return -1;
	}
	*docs_out = docs;
	return 0;
}

int yj_parse_stream(const char *data, size_t len, const char *source,
		    cJSON **docs_out, struct err *e)
{
	return yj_parse_stream_flags(data, len, source, 0, docs_out, e);
}

int yj_parse_stream_flags(const char *data, size_t len, const char *source,
			  unsigned flags, cJSON **docs_out, struct err *e)
{
	*docs_out = NULL;
	if (!source)
		source = "<input>";
	if (!data)	/* memchr and libyaml want a pointer even for 0 bytes */
		data = "";
	if (check_input(data, len, source, e))
		return -1;
	/*
	 * JSON writes characters beyond U+FFFF as surrogate pairs (Python's
	 * json.dumps: "\ud83d\udca5"); YAML spells them \U0001f4a5. libyaml
	 * stops at the first pair inside a double-quoted scalar and says where,
	 * so only real escapes are rewritten (never text in plain or single-
	 * quoted scalars); the passes are bounded by YJ_MAX_SURROGATE_PASSES.
	 */
	struct buf copy = BUF_INIT;
	const char *text = data;
	size_t at = (size_t)-1;
	int rc;
	for (int pass = 0;; pass++) {
		rc = parse_pass(text, len, source, flags, docs_out, &at, e);
		if (rc == 0 || at == (size_t)-1)
			break;
		if (pass == YJ_MAX_SURROGATE_PASSES) {
			rc = err_set(e, ERR_LIMIT, "%s: more than %d surrogate-pair escapes (\\ud83d\\udca5); write those characters as UTF-8",
				     source, YJ_MAX_SURROGATE_PASSES);
			break;
		}
		unsigned long cp = surrogate_pair(text, len, at);
		char esc[11];
		snprintf(esc, sizeof(esc), "\\U%08lX", cp);
		struct buf next = BUF_INIT;
		buf_add(&next, text, at);
		buf_add(&next, esc, 10);
		buf_add(&next, text + at + 12, len - at - 12);
		buf_free(&copy);
		copy = next;
		text = copy.data;
		len = copy.len;
		at = (size_t)-1;
	}
	buf_free(&copy);
	return rc;
}

int yj_parse_one(const char *data, size_t len, const char *source,
		 cJSON **doc_out, struct err *e)
{
	cJSON *docs;
	*doc_out = NULL;
	if (yj_parse_stream(data, len, source, &docs, e))
		return -1;
	int n = cJSON_GetArraySize(docs);
	if (n != 1) {
		cJSON_Delete(docs);
		return err_set(e, ERR_INPUT,
			       "%s: expected exactly one YAML document, found %d",
			       source ? source : "<input>", n);
	}
	*doc_out = cJSON_DetachItemFromArray(docs, 0);
	cJSON_Delete(docs);
	return 0;
}
