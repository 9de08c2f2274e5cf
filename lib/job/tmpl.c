/*
 * tmpl.c - see tmpl.h.
 *
 * One iterative depth-first walk over the tree. Each stack frame is a
 * mapping or sequence with a cursor on its next child; the cursor is saved
 * before a child is handled, so the child may be replaced or removed
 * without breaking the iteration. When a frame is done and removals left
 * it empty, the frame's own node is removed from its parent (post-order),
 * which is how optional values prune whole blocks.
 */
#include "tmpl.h"
#include "smap.h"
#include "yj/jtree.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "suggest.h"
#include "yj/yj.h"

struct frame {
	cJSON *node;	/* the mapping or sequence */
	cJSON *next;	/* next child to visit */
	cJSON *cur;	/* child being visited (for paths in messages) */
	int removed;	/* did we remove one of its children? */
};

struct walk {
	const struct tmpl_ctx *ctx;
	struct err *e;
	struct frame *st;
	size_t depth, cap;
	size_t bytes;		/* put in by substitutions, against TMPL_MAX_BYTES */
	/*
	 * ctx->values and ctx->used by name: a template has a few dozen
	 * placeholders and the values about seventy members, looked up per
	 * placeholder per job (cJSON objects are lists).
	 */
	struct smap values, used;
};

/* ---- placeholder syntax ------------------------------------------------ */

static int name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int name_char(int c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/*
 * Match a placeholder starting exactly at s ("((..."). Returns its length,
 * or 0 if the text there is not a well-formed placeholder.
 */
static size_t match_at(const char *s, char *name, int *optional)
{
	const char *p = s + 2, *start;
	if (s[0] != '(' || s[1] != '(')
		return 0;
	while (*p == ' ')
		p++;
	if (!name_start((unsigned char)*p))
		return 0;
	start = p;
	while (name_char((unsigned char)*p))
		p++;
	size_t n = (size_t)(p - start);
	if (n > TMPL_NAME_MAX)
		return 0;
	*optional = 0;
	if (*p == '?') {
		*optional = 1;
		p++;
	}
	while (*p == ' ')
		p++;
	if (p[0] != ')' || p[1] != ')')
		return 0;
	memcpy(name, start, n);
	name[n] = '\0';
	return (size_t)(p + 2 - s);
}

/* Find the next placeholder at or after s; its offset in *at, length returned. */
static size_t find_next(const char *s, size_t *at, char *name, int *optional)
{
	for (const char *p = strstr(s, "(("); p; p = strstr(p + 1, "((")) {
		size_t n = match_at(p, name, optional);
		if (n) {
			*at = (size_t)(p - s);
			return n;
		}
	}
	return 0;
}

int tmpl_is_placeholder(const char *s, char *name, int *optional)
{
	size_t n = match_at(s, name, optional);
	return n && s[n] == '\0';
}

/* ---- messages ---------------------------------------------------------- */

static size_t index_of(const cJSON *parent, const cJSON *child)
{
	size_t i = 0;
	for (const cJSON *c = parent->child; c && c != child; c = c->next)
		i++;
	return i;
}

/* The JSON path of the child being visited: spec.containers[0].image */
static void path_of(const struct walk *w, struct buf *out)
{
	for (size_t i = 0; i < w->depth; i++) {
		const struct frame *f = &w->st[i];
		if (!f->cur)
			break;
		if (cJSON_IsArray(f->node))
			buf_addf(out, "[%zu]", index_of(f->node, f->cur));
		else
			buf_addf(out, "%s%s", out->len ? "." : "", f->cur->string);
	}
	if (!out->len)
		buf_adds(out, "(top)");
}

/* The known or given name closest to `name`, if close enough to be a typo. */
static const char *closest(const struct tmpl_ctx *ctx, const char *name)
{
	struct suggest sg;
	const cJSON *v;

	suggest_init(&sg, name);
	for (size_t i = 0; ctx->known && ctx->known[i]; i++)
		suggest_add(&sg, ctx->known[i]);
	cJSON_ArrayForEach(v, ctx->values)
		suggest_add(&sg, v->string);
	return sg.best;
}

static int is_known(const struct tmpl_ctx *ctx, const char *name)
{
	for (size_t i = 0; ctx->known && ctx->known[i]; i++)
		if (!strcmp(ctx->known[i], name))
			return 1;
	return cJSON_GetObjectItemCaseSensitive(ctx->values, name) != NULL;
}

__attribute__((format(printf, 2, 3)))
static int fail(const struct walk *w, const char *fmt, ...)
{
	struct buf path = BUF_INIT, msg = BUF_INIT;
	va_list ap;
	path_of(w, &path);
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	err_set(w->e, ERR_INPUT, "%s: %s: %s", w->ctx->source ? w->ctx->source : "template",
		path.data, msg.data);
	buf_free(&path);
	buf_free(&msg);
	return -1;
}

/* ---- substitution ------------------------------------------------------ */

/* The value for `name`, NULL if absent; errors for unknown/required names. */
static int lookup(struct walk *w, const char *name, int optional, const cJSON **out)
{
	const cJSON *v = smap_get(&w->values, name);
	int known = v || is_known(w->ctx, name);	/* a value makes it known */
	if (w->ctx->used && !smap_get(&w->used, name)) {
		cJSON *seen = cJSON_AddTrueToObject(w->ctx->used, name);
		if (seen)
			smap_put(&w->used, seen->string, seen);
	}
	/*
	 * An optional name nobody defines is a user template's own optional
	 * value that was not given: absent. (A typo there is caught when the
	 * user sets the real parameter: jobparams_check_used() reports it.)
	 */
	if (optional && !known) {
		*out = NULL;
		return 0;
	}
	if (!known) {
		const char *near = closest(w->ctx, name);
		if (near)
			return fail(w, "unknown placeholder ((%s)); did you mean ((%s))?", name, near);
		return fail(w, "unknown placeholder ((%s)): no built-in parameter has that "
			    "name and no value was given for it", name);
	}
	if (v && cJSON_IsNull(v))
		v = NULL;
	if (!v && !optional)
		return fail(w, "missing required parameter %s (placeholder ((%s)); "
			    "((%s?)) would make it optional)", name, name, name);
	*out = v;
	return 0;
}

/* Append a scalar as text; lists and mappings cannot be interpolated. */
static int add_text(const struct walk *w, const char *name, const cJSON *v, struct buf *b)
{
	if (!v)
		return 0;
	if (cJSON_IsString(v)) {
		buf_adds(b, v->valuestring);
	} else if (cJSON_IsBool(v)) {
		buf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNumber(v)) {
		jtree_number_text(v, JTREE_NUM_TEXT, b);	/* as written */
	} else {
		return fail(w, "placeholder ((%s)) is inside a longer string, but parameter %s "
			    "is a %s; only strings, numbers and booleans can be interpolated",
			    name, name, cJSON_IsArray(v) ? "list" : "mapping");
	}
	return 0;
}

/* A string with placeholders inside longer text: build the new text. */
/* Bytes of a value's text (strings, keys, a little per node). */
static size_t value_bytes(const cJSON *n, size_t stop)
{
	size_t b = 16 + (n->string ? strlen(n->string) : 0) +
		   (cJSON_IsString(n) ? strlen(n->valuestring) : 0);
	for (const cJSON *it = n->child; it && b <= stop; it = it->next)
		b += value_bytes(it, stop);
	return b;
}

/* A value used many times can multiply a small input: bound the output. */
static int charge(struct walk *w, size_t bytes)
{
	w->bytes += bytes;
	if (w->bytes > TMPL_MAX_BYTES)
		return fail(w, "placeholders expand to more than %u bytes (%u MiB, the limit TMPL_MAX_BYTES); "
			    "use a large value in fewer places", TMPL_MAX_BYTES, TMPL_MAX_BYTES >> 20);
	return 0;
}

static int interpolate(struct walk *w, cJSON *item)
{
	struct buf out = BUF_INIT;
	const char *s = item->valuestring;
	char name[TMPL_NAME_MAX + 1];
	int optional;
	size_t at = 0;
	for (size_t n = find_next(s, &at, name, &optional); n;
	     n = find_next(s, &at, name, &optional)) {
		const cJSON *v = NULL;
		buf_add(&out, s, at);
		if (lookup(w, name, optional, &v) < 0 || add_text(w, name, v, &out) < 0) {
			buf_free(&out);
			return -1;
		}
		s += at + n;
	}
	buf_adds(&out, s);
	if (charge(w, out.len) < 0) {
		buf_free(&out);
		return -1;
	}
	if (!cJSON_SetValuestring(item, out.data)) {
		buf_free(&out);
		return fail(w, "%s", "out of memory");
	}
	buf_free(&out);
	return 0;
}

enum { KEEP, REMOVE };

/*
 * Handle one string child of `parent`. Returns KEEP or REMOVE (the caller
 * detaches it), or -1 on error. A whole-scalar placeholder is swapped for a
 * copy of the value; the copy takes over the key.
 */
static int subst_string(struct walk *w, cJSON *parent, cJSON *item)
{
	char name[TMPL_NAME_MAX + 1];
	int optional;
	size_t at;
	if (!find_next(item->valuestring, &at, name, &optional))
		return KEEP;
	if (!tmpl_is_placeholder(item->valuestring, name, &optional))
		return interpolate(w, item) < 0 ? -1 : KEEP;
	const cJSON *v = NULL;
	if (lookup(w, name, optional, &v) < 0)
		return -1;
	if (!v)
		return REMOVE;
	if (charge(w, value_bytes(v, TMPL_MAX_BYTES)) < 0)
		return -1;
	cJSON *copy = cJSON_Duplicate(v, 1);
	if (!copy)
		return fail(w, "%s", "out of memory");
	/* cJSON_Duplicate copied the value's own key ("workers"): drop it */
	if (!(copy->type & cJSON_StringIsConst))
		cJSON_free(copy->string);
	copy->type &= ~cJSON_StringIsConst;
	copy->string = item->string;
	copy->type |= item->type & cJSON_StringIsConst;
	item->string = NULL;
	cJSON_ReplaceItemViaPointer(parent, item, copy);
	w->st[w->depth - 1].cur = copy;
	return KEEP;
}

static int check_key(const struct walk *w, const cJSON *item)
{
	char name[TMPL_NAME_MAX + 1];
	int optional;
	size_t at;
	if (item->string && find_next(item->string, &at, name, &optional))
		return fail(w, "placeholder ((%s)) in a mapping key: keys are never substituted; "
			    "use a mapping parameter for the whole mapping instead", name);
	return 0;
}

static void push(struct walk *w, cJSON *node)
{
	if (w->depth == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->st = xrealloc(w->st, w->cap * sizeof(*w->st));
	}
	w->st[w->depth++] = (struct frame){ node, node->child, NULL, 0 };
}

/* A frame is finished: prune its node if our removals emptied it. */
static void pop(struct walk *w)
{
	struct frame done = w->st[--w->depth];
	if (w->depth == 0 || !done.removed || done.node->child)
		return;
	struct frame *parent = &w->st[w->depth - 1];
	cJSON_Delete(cJSON_DetachItemViaPointer(parent->node, done.node));
	parent->removed = 1;
}

/* Visit the next child of the top frame. */
static int step(struct walk *w)
{
	struct frame *f = &w->st[w->depth - 1];
	cJSON *item = f->next;
	f->next = item->next;
	f->cur = item;
	if (check_key(w, item) < 0)
		return -1;
	if (cJSON_IsString(item)) {
		int r = subst_string(w, f->node, item);
		if (r < 0)
			return -1;
		if (r == REMOVE) {
			cJSON_Delete(cJSON_DetachItemViaPointer(f->node, item));
			f->removed = 1;
		}
	} else if (cJSON_IsArray(item) || cJSON_IsObject(item)) {
		if (w->depth >= TMPL_MAX_DEPTH)
			return fail(w, "nested deeper than %d levels", TMPL_MAX_DEPTH);
		push(w, item);
	}
	return 0;
}

/* Index an object's members by name; the first of duplicate keys wins, as in cJSON. */
static void index_members(struct smap *m, const cJSON *obj)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, obj)
		if (it->string && !smap_get(m, it->string))
			smap_put(m, it->string, (void *)it);
}

int tmpl_render(cJSON *tree, const struct tmpl_ctx *ctx, struct err *e)
{
	struct walk w = { ctx, e, NULL, 0, 0, 0, { 0 }, { 0 } };
	int rc = 0;
	if (!cJSON_IsObject(tree))
		return err_set(e, ERR_INPUT, "%s: the template must be a YAML mapping",
			       ctx->source ? ctx->source : "template");
	index_members(&w.values, ctx->values);
	index_members(&w.used, ctx->used);
	push(&w, tree);
	while (w.depth > 0 && rc == 0) {
		if (w.st[w.depth - 1].next)
			rc = step(&w);
		else
			pop(&w);
	}
	free(w.st);
	smap_free(&w.values);
	smap_free(&w.used);
	return rc;
}

/* ---- loading ------------------------------------------------------------ */

int tmpl_parse(const char *text, size_t len, const char *source, cJSON **out,
	       struct err *e)
{
	cJSON *doc = NULL;
	*out = NULL;
	if (yj_parse_one(text, len, source, &doc, e) < 0)
		return -1;
	if (!cJSON_IsObject(doc)) {
		const char *what = cJSON_IsArray(doc) ? "a list" : "a single value";
		cJSON_Delete(doc);
		return err_set(e, ERR_INPUT, "%s: a template must be a YAML mapping "
			       "(apiVersion, kind, metadata, spec), not %s", source, what);
	}
	*out = doc;
	return 0;
}

const char *tmpl_builtin(const char *name, size_t *len)
{
	for (const struct tmpl_builtin_file *f = tmpl_builtin_files; f->name; f++) {
		if (!strcmp(f->name, name)) {
			if (len)
				*len = f->len;
			return f->text;
		}
	}
	return NULL;
}

int tmpl_load(const char *path, cJSON **out, const char **source_out, struct err *e)
{
	static const char builtin_source[] = "templates/" TMPL_DEFAULT;
	*out = NULL;
	if (!path) {
		size_t len = 0;
		const char *text = tmpl_builtin(TMPL_DEFAULT, &len);
		if (!text)
			return err_set(e, ERR_INTERNAL, "built-in template %s is missing", TMPL_DEFAULT);
		if (source_out)
			*source_out = builtin_source;
		return tmpl_parse(text, len, builtin_source, out, e);
	}
	struct buf text = BUF_INIT;
	if (source_out)
		*source_out = path;
	if (buf_read_file(&text, path, YJ_MAX_INPUT, e) < 0) {
		buf_free(&text);
		return err_prefix(e, "template");
	}
	int rc = tmpl_parse(text.data, text.len, path, out, e);
	buf_free(&text);
	return rc;
}
