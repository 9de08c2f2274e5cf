/*
 * yj_emit.c - cJSON trees out as YAML (yj_emit, yj_emit_stream); the layout
 * and quoting rules are in yj.h, the parser is yj_parse.c.
 *
 * Emission is hand-written rather than libyaml's emitter: we want exactly
 * kubectl's layout (sequences not indented under their key, "- name: x"), no
 * line folding, and one quoting rule of our own (plain_safe) that is
 * stricter than any single YAML version. It recurses, bounded by YJ_MAX_DEPTH.
 * Numbers are spelled by jtree_fmt_number(), shared with the JSON writer.
 */
#include "yj.h"
#include "jtree.h"
#include "yj_scalar.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decode one UTF-8 sequence; returns its length, 0 if invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
	if (!n || s[0] > 0xF4)
		return 0;
	uint32_t v = s[0] & (0x7F >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (v < min[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

/* Characters a YAML reader rejects or treats as line breaks: escape them. */
static int must_escape(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF ||
	       cp == 0xFFFE || cp == 0xFFFF;
}

static int ieq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

/*
 * May `s` be written as a plain scalar? Deliberately stricter than any one
 * YAML version: a string that YAML 1.1 or 1.2 could read as null, bool,
 * number, timestamp or merge key is quoted, and so is anything starting
 * with a digit or a sign-and-digit, or with an indicator character.
 * Returns -1 for invalid UTF-8.
 */
static int plain_safe(const char *s)
{
	static const char *const words[] = {
		"y", "n", "yes", "no", "on", "off", "true", "false", "null",
		"~", "<<", "=", ".inf", "-.inf", "+.inf", ".nan", NULL
	};
	size_t len = strlen(s);
	int b;
	double num;
	if (!len || yj_resolve_plain(s, &b, &num) != SK_STRING)
		return 0;
	for (const char *const *w = words; *w && strchr("yYnNoOtTfF~<=.+-", s[0]); w++)
		if (ieq(s, *w))
			return 0;
	if ((s[0] >= '0' && s[0] <= '9') ||
	    (strchr("-+.", s[0]) && (s[1] == '.' || (s[1] >= '0' && s[1] <= '9'))))
		return 0;
	if (strchr(",[]{}#&*!|>'\"%@`?:", s[0]) ||
	    (s[0] == '-' && (s[1] == '\0' || s[1] == ' ')))
		return 0;
	if (!strncmp(s, "---", 3) || !strncmp(s, "...", 3))
		return 0;
	if (s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
		return 0;
	if (strstr(s, ": ") || strstr(s, " #"))
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);
		if (!n)
			return -1;
		if (must_escape(cp))
			return 0;
		p += n;
	}
	return 1;
}

static void emit_quoted(struct buf *out, const char *s)
{
	buf_addch(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);	/* validated by plain_safe */
		if (cp == '"' || cp == '\\') {
			buf_addch(out, '\\');
			buf_addch(out, (char)cp);
		} else if (cp == '\n') {
			buf_adds(out, "\\n");
		} else if (cp == '\t') {
			buf_adds(out, "\\t");
		} else if (cp == '\r') {
			buf_adds(out, "\\r");
		} else if (must_escape(cp)) {
			buf_addf(out, cp < 0x80 ? "\\x%02X" : "\\u%04X", (unsigned)cp);
		} else {
			buf_add(out, p, n);
		}
		p += n;
	}
	buf_addch(out, '"');
}

struct emitter {
	unsigned flags;
	struct buf *out;
	struct err *e;
	const char *path_hint;	/* last key, for messages */
};

static int emit_string(struct emitter *em, const char *s)
{
	int ok = plain_safe(s);
	if (ok < 0)
		return err_set(em->e, ERR_INPUT,
			       "string under key \"%s\" is not valid UTF-8; YAML cannot carry it",
			       em->path_hint ? em->path_hint : "");
	if (ok)
		buf_adds(em->out, s);
	else
		emit_quoted(em->out, s);
	return 0;
}

/*
 * Can `s` be a literal block scalar ("|")? Multi-line scripts and
 * descriptions read and diff far better that way than as one escaped line,
 * so we use it when nothing can go wrong: valid, printable text with no
 * tab or CR, a first line not starting with a space (the reader guesses the
 * indentation from it) and no line made only of spaces (the reader would
 * count those spaces as indentation).
 */
static int literal_ok(const char *s)
{
	if (!strchr(s, '\n') || s[0] == ' ' || s[0] == '\n')
		return 0;
	const unsigned char *p = (const unsigned char *)s;
	int line_blank = 1, line_len = 0;
	while (*p) {
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);
		if (!n || cp == '\t' || cp == '\r' || (cp != '\n' && must_escape(cp)))
			return 0;
		if (cp == '\n') {
			if (line_len && line_blank)
				return 0;
			line_blank = 1;
			line_len = 0;
		} else {
			line_blank &= cp == ' ';
			line_len++;
		}
		p += n;
	}
	return !(line_len && line_blank);
}

/* "|", "|-" or "|+" by the trailing newlines, then the lines at `indent`. */
static void emit_literal(struct buf *out, const char *s, int indent)
{
	size_t len = strlen(s), nl = 0;
	while (nl < len && s[len - 1 - nl] == '\n')
		nl++;
	buf_adds(out, nl == 0 ? "|-" : nl == 1 ? "|" : "|+");
	for (const char *p = s; *p;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		buf_addch(out, '\n');
		if (n) {
			for (int i = 0; i < indent; i++)
				buf_addch(out, ' ');
			buf_add(out, p, n);
		}
		p += n + (end ? 1 : 0);
	}
	/* the caller's line end is the newline of the last line */
}

static int is_collection(const cJSON *n)
{
	return cJSON_IsArray(n) || cJSON_IsObject(n);
}

/* A scalar or an empty collection: fits on the current line. */
static int emit_inline(struct emitter *em, const cJSON *n, int indent)
{
	if (cJSON_IsObject(n)) {
		buf_adds(em->out, "{}");
	} else if (cJSON_IsArray(n)) {
		buf_adds(em->out, "[]");
	} else if (cJSON_IsString(n) && literal_ok(n->valuestring)) {
		emit_literal(em->out, n->valuestring, indent);
	} else if (cJSON_IsString(n)) {
		return emit_string(em, n->valuestring);
	} else if (cJSON_IsNumber(n)) {
		jtree_number_text(n, JTREE_NUM_YAML, em->out);	/* as written */
	} else if (cJSON_IsTrue(n)) {
		buf_adds(em->out, "true");
	} else if (cJSON_IsFalse(n)) {
		buf_adds(em->out, "false");
	} else if (cJSON_IsNull(n)) {
		buf_adds(em->out, "null");
	} else {
		return err_set(em->e, ERR_INTERNAL,
			       "cannot emit a raw or invalid JSON node as YAML");
	}
	return 0;
}

/*
 * The members of `n` in emission order: as in the tree, or sorted. Caller
 * frees. Duplicate keys (cJSON_Parse keeps them) are refused here: the YAML
 * would not read back.
 */
static int ordered_children(const cJSON *n, int sort, const cJSON ***out,
			    size_t *count, struct err *e)
{
	size_t k;
	const cJSON **v = jtree_members(n, 1, &k);
	for (size_t i = 1; cJSON_IsObject(n) && i < k; i++)
		if (!strcmp(v[i]->string, v[i - 1]->string)) {
			err_set(e, ERR_INPUT,
				"duplicate key \"%s\" in the object to emit", v[i]->string);
			free(v);
			return -1;
		}
	if (!sort && cJSON_IsObject(n)) {
		free(v);
		v = jtree_members(n, 0, &k);
	}
	*out = v;
	*count = k;
	return 0;
}

static void indent_to(struct buf *out, int indent)
{
	static const char spaces[] = "                                ";	/* 32 */
	for (; indent > 32; indent -= 32)
		buf_add(out, spaces, 32);
	buf_add(out, spaces, (size_t)indent);
}

/*
 * Write a mapping key and its ':'. YAML caps implicit keys at 1024
 * characters (libyaml gives up looking for the ':' after that), so a longer
 * key becomes an explicit one: "? key" then ":" on its own line. Returns 1
 * for an explicit key, 0 for an implicit one, -1 on error.
 */
static int emit_key(struct emitter *em, const char *key, int indent)
{
	size_t start = em->out->len;
	em->path_hint = key;
	if (emit_string(em, key))
		return -1;
	if (em->out->len - start < 1000) {
		buf_addch(em->out, ':');
		return 0;
	}
	buf_grow(em->out, 2);
	memmove(em->out->data + start + 2, em->out->data + start,
		em->out->len - start + 1);
	memcpy(em->out->data + start, "? ", 2);
	em->out->len += 2;
	buf_addch(em->out, '\n');
	indent_to(em->out, indent);
	buf_addch(em->out, ':');
	return 1;
}

/*
 * Emit the non-empty collection `n` in block style at column `indent`. With
 * `inline_first` the cursor already sits after "- " at that column.
 */
static int emit_block(struct emitter *em, const cJSON *n, int indent,
		      int inline_first, int depth)
{
	if (depth > YJ_MAX_DEPTH)
		return err_set(em->e, ERR_LIMIT,
			       "document nests deeper than %d levels; flatten it",
			       YJ_MAX_DEPTH);
	const cJSON **v = NULL;
	size_t k = 0;
	int is_map = cJSON_IsObject(n);
	if (ordered_children(n, em->flags & YJ_SORT_KEYS, &v, &k, em->e))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++) {
		const cJSON *c = v[i];
		int explicit_key = 0;
		if (i > 0 || !inline_first)
			indent_to(em->out, indent);
		if (is_map) {
			explicit_key = emit_key(em, c->string, indent);
			if (explicit_key < 0) {
				rc = -1;
				break;
			}
		} else {
			buf_addch(em->out, '-');
		}
		if (is_collection(c) && c->child && !is_map) {
			/* "- - x" and "- key: v" */
			buf_addch(em->out, ' ');
			rc = emit_block(em, c, indent + 2, 1, depth + 1);
		} else if (is_collection(c) && c->child) {
			/* kubectl style: a sequence sits at its key's column */
			int at = cJSON_IsArray(c) && !explicit_key ? indent : indent + 2;
			buf_addch(em->out, '\n');
			rc = emit_block(em, c, at, 0, depth + 1);
		} else {
			buf_addch(em->out, ' ');
			rc = emit_inline(em, c, indent + 2);
			buf_addch(em->out, '\n');
		}
	}
	free(v);
	return rc;
}

int yj_emit(const cJSON *doc, unsigned flags, struct buf *out, struct err *e)
{
	struct emitter em = { flags, out, e, NULL };
	size_t start = out->len;
	int rc;
	if (is_collection(doc) && doc->child) {
		rc = emit_block(&em, doc, 0, 0, 1);
	} else {
		rc = emit_inline(&em, doc, 2);
		buf_addch(out, '\n');
	}
	if (rc)
		buf_truncate(out, start);
	return rc;
}

int yj_emit_stream(const cJSON *docs, unsigned flags, struct buf *out,
		   struct err *e)
{
	size_t start = out->len;
	for (const cJSON *d = docs ? docs->child : NULL; d; d = d->next) {
		buf_adds(out, "---\n");
		if (yj_emit(d, flags, out, e)) {
			buf_truncate(out, start);
			return -1;
		}
		if (out->len - start > YJ_MAX_OUTPUT) {
			buf_truncate(out, start);
			return err_set(e, ERR_LIMIT, "the output would be more than %u bytes (%u MiB, the limit YJ_MAX_OUTPUT); split the input",
				       YJ_MAX_OUTPUT, YJ_MAX_OUTPUT >> 20);
		}
	}
	return 0;
}
