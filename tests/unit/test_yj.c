/* test_yj.c - YAML <-> JSON: typing, quoting, bounds, errors, round trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "yj/yj.h"
#include "yj/jtree.h"

/* ---- helpers ---- */

static cJSON *parse_ok(const char *yaml)
{
	cJSON *doc = NULL;
	struct err e = ERR_INIT;
	if (yj_parse_one(yaml, strlen(yaml), "t.yaml", &doc, &e)) {
		print_error("unexpected error for %s: %s\n", yaml, e.msg);
		fail();
	}
	return doc;
}

/* Parse must fail with `code` and a message containing every `...` part. */
static void parse_fails_n(const char *yaml, size_t len, enum err_code code,
			  const char *want1, const char *want2)
{
	cJSON *docs = NULL;
	struct err e = ERR_INIT;
	int rc = yj_parse_stream(yaml, len, "t.yaml", &docs, &e);
	if (rc == 0) {
		print_error("expected failure for %.60s\n", yaml);
		cJSON_Delete(docs);
		fail();
	}
	assert_null(docs);
	if (e.code != code || (want1 && !strstr(e.msg, want1)) ||
	    (want2 && !strstr(e.msg, want2))) {
		print_error("got %s \"%s\", wanted %s with \"%s\" \"%s\"\n",
			    err_code_name(e.code), e.msg, err_code_name(code),
			    want1 ? want1 : "", want2 ? want2 : "");
		fail();
	}
	assert_null(strchr(e.msg, '\n'));
}

static void parse_fails(const char *yaml, enum err_code code, const char *want1,
			const char *want2)
{
	parse_fails_n(yaml, strlen(yaml), code, want1, want2);
}

static char *canon(const cJSON *doc)
{
	struct buf b = BUF_INIT;
	jtree_json_canonical(doc, &b);
	return buf_detach(&b, NULL);
}

static void assert_canon(const cJSON *doc, const char *want)
{
	char *got = canon(doc);
	if (strcmp(got, want) != 0) {
		print_error("canonical JSON\n got: %s\nwant: %s\n", got, want);
		free(got);
		fail();
	}
	free(got);
}

static char *emit(const cJSON *doc, unsigned flags)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	if (yj_emit(doc, flags, &b, &e)) {
		print_error("emit failed: %s\n", e.msg);
		fail();
	}
	return buf_detach(&b, NULL);
}

/* emit (sorted and as-is) -> parse -> equal; returns the sorted text */
static char *round_trip(const cJSON *doc)
{
	char *text = NULL;
	for (unsigned flags = 0; flags <= YJ_SORT_KEYS; flags += YJ_SORT_KEYS) {
		char *y = emit(doc, flags);
		cJSON *docs = NULL;
		struct err e = ERR_INIT;
		if (yj_parse_stream(y, strlen(y), "emitted", &docs, &e)) {
			print_error("re-parse failed: %s\n%s", e.msg, y);
			fail();
		}
		cJSON *back = cJSON_GetArrayItem(docs, 0);
		int n = cJSON_GetArraySize(docs);
		if (cJSON_IsNull(doc) ? n != 0 : (n != 1 || !jtree_equal(doc, back))) {
			char *a = canon(doc), *b = back ? canon(back) : xstrdup("(none)");
			print_error("round trip changed the tree\nemitted:\n%s\nbefore: %s\nafter:  %s\n",
				    y, a, b);
			fail();
		}
		cJSON_Delete(docs);
		if (flags)
			text = y;
		else
			free(y);
	}
	return text;
}

/* ---- typing ---- */

/*
 * Null and booleans: the YAML 1.2 core schema. Numbers: as Kubernetes'
 * reader (go-yaml v2) takes them, YAML 1.1 spellings included (yj_scalar.c).
 */
static void plain_scalars_read_as_kubernetes_reads_them(void **state)
{
	(void)state;
	static const char *const table[][2] = {
		{ "~", "null" }, { "null", "null" }, { "Null", "null" },
		{ "NULL", "null" }, { "", "null" }, { "nULL", "\"nULL\"" },
		{ "true", "true" }, { "True", "true" }, { "TRUE", "true" },
		{ "false", "false" }, { "FALSE", "false" }, { "tRUE", "\"tRUE\"" },
		{ "yes", "\"yes\"" }, { "no", "\"no\"" }, { "on", "\"on\"" },
		{ "off", "\"off\"" }, { "y", "\"y\"" }, { "n", "\"n\"" },
		{ "0", "0" }, { "-0", "0" }, { "42", "42" }, { "+12", "12" },
		{ "-17", "-17" }, { "0x1f", "31" }, { "0xFF", "255" },
		{ "0o17", "15" }, { "0o8", "\"0o8\"" }, { "0x", "\"0x\"" },
		{ "0xZZ", "\"0xZZ\"" }, { "1_000", "1000" }, { "1_000.5", "1000.5" },
		{ "0b101", "5" }, { "-0b101", "-5" }, { "0B11", "3" }, { "0X1F", "31" },
		{ "0O17", "15" }, { "+0x1F", "31" }, { "0x_1F", "31" }, { "0644", "420" },
		{ "-007", "-7" }, { "09", "9" }, { "08.5", "8.5" }, { "0b", "\"0b\"" },
		{ "_1", "\"_1\"" }, { "1__0", "10" }, { "0b102", "\"0b102\"" },
		{ "1e3", "1000" }, { "1E-2", "0.01" }, { "1e+3", "1000" },
		{ ".5", "0.5" }, { "-.5", "-0.5" }, { "3.", "3" }, { "1.5", "1.5" },
		{ "12e", "\"12e\"" }, { "1.2.3", "\"1.2.3\"" }, { ".", "\".\"" },
		{ "nan", "\"nan\"" }, { "inf", "\"inf\"" },
		{ "2024-01-01", "\"2024-01-01\"" }, { "1:30", "\"1:30\"" },
		{ "9007199254740993", "9007199254740993" },	/* integers keep every digit */
		{ "12345678901234567890", "12345678901234567890" },
		{ "58138187140201144", "58138187140201144" },
		{ "0xFFFFFFFFFFFFFFFF", "1.8446744073709552e+19" },
		{ "0x1FFFFFFFFFFFFFFFFF", "\"0x1FFFFFFFFFFFFFFFFF\"" },	/* past 64 bits: text */
		{ "18446744073709551615", "18446744073709551615" },
		{ "'1'", "\"1\"" }, { "\"true\"", "\"true\"" }, { "'~'", "\"~\"" },
		{ "!!str 1", "\"1\"" }, { "!!str true", "\"true\"" },
		{ "!!int \"3\"", "3" }, { "!!float 1", "1" }, { "!!bool 'false'", "false" },
		{ "!!null ''", "null" }, { "! 12", "\"12\"" }, { "!!binary aW1n", "\"img\"" },
		{ "hello world", "\"hello world\"" }, { "a: b", NULL },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (!table[i][1])
			continue;
		char yaml[128], want[128];
		snprintf(yaml, sizeof(yaml), "v: %s\n", table[i][0]);
		snprintf(want, sizeof(want), "{\"v\":%s}", table[i][1]);
		cJSON *doc = parse_ok(yaml);
		assert_canon(doc, want);
		cJSON_Delete(doc);
	}
}

/* A number keeps its source text where it becomes text (issue 13). */
static void numbers_keep_their_text(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("a: 0.1\nb: 1.10\nc: 18446744073709551617\nd: 1e3\ne: -0\n");
	char *y = round_trip(doc);
	/* YAML keeps what was written, except an exponent (YAML 1.1 would read a string) */
	assert_string_equal(y, "a: 0.1\nb: 1.10\nc: 18446744073709551617\nd: 1000\ne: -0\n");
	free(y);
	struct buf t = BUF_INIT;
	jtree_number_text(cJSON_GetObjectItem(doc, "b"), JTREE_NUM_TEXT, &t);
	jtree_number_text(cJSON_GetObjectItem(doc, "d"), JTREE_NUM_TEXT, &t);
	assert_string_equal(t.data, "1.101e3");
	buf_free(&t);
	/* canonical JSON: one spelling per value, big integers exact */
	assert_canon(doc, "{\"a\":0.1,\"b\":1.1,\"c\":18446744073709551617,\"d\":1000,\"e\":0}");
	/* a value changed in the tree no longer uses the stale text */
	cJSON_SetNumberValue(cJSON_GetObjectItem(doc, "a"), 2);
	assert_canon(doc, "{\"a\":2,\"b\":1.1,\"c\":18446744073709551617,\"d\":1000,\"e\":0}");
	cJSON_Delete(doc);
	parse_fails("v: 1e400\n", ERR_INPUT, "t.yaml:1:4: number 1e400 is out of range", NULL);
	parse_fails("v: -1e400\n", ERR_INPUT, "out of range", NULL);
}

/* JSON's surrogate-pair escapes (Python's json.dumps) are valid input. */
static void json_surrogate_pairs_are_characters(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("{\"a\": \"x\\ud83d\\udca5y\", \"b\": [\"\\uD83D\\uDE00\", 'q\\ud83d\\udca5'],"
			      " \"c\": plain\\ud83d\\udca5}");
	assert_string_equal(cJSON_GetObjectItem(doc, "a")->valuestring, "x\xf0\x9f\x92\xa5y");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "b"), 0)->valuestring, "\xf0\x9f\x98\x80");
	/* single-quoted and plain scalars have no escapes: the text stays */
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "b"), 1)->valuestring, "q\\ud83d\\udca5");
	assert_string_equal(cJSON_GetObjectItem(doc, "c")->valuestring, "plain\\ud83d\\udca5");
	cJSON_Delete(doc);
	parse_fails("v: \"\\ud83d alone\"\n", ERR_PARSE, "t.yaml:1:", "half of a UTF-16 surrogate pair");
	parse_fails("v: \"\\udca5\\ud83d\"\n", ERR_PARSE, "half of a UTF-16 surrogate pair", NULL);
	struct buf many = BUF_INIT;
	buf_adds(&many, "v: \"");
	for (int i = 0; i <= YJ_MAX_SURROGATE_PASSES; i++)
		buf_adds(&many, "\\ud83d\\udca5");
	buf_adds(&many, "\"\n");
	parse_fails(many.data, ERR_LIMIT, "surrogate-pair escapes", NULL);
	buf_free(&many);
}

static void special_floats_parse_and_emit_as_yaml_specials(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("a: .inf\nb: -.Inf\nc: +.INF\nd: .NaN\ne: -0.0\n");
	assert_true(isinf(cJSON_GetObjectItem(doc, "a")->valuedouble));
	assert_true(cJSON_GetObjectItem(doc, "b")->valuedouble < 0);
	assert_true(isinf(cJSON_GetObjectItem(doc, "c")->valuedouble));
	assert_true(isnan(cJSON_GetObjectItem(doc, "d")->valuedouble));
	char *y = round_trip(doc);
	assert_string_equal(y, "a: .inf\nb: -.inf\nc: .inf\nd: .nan\ne: -0.0\n");
	free(y);
	/* JSON has no NaN/Inf: canonical JSON writes null */
	assert_canon(doc, "{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":0}");
	cJSON_Delete(doc);
}

static void tags_that_do_not_fit_the_value_are_errors(void **state)
{
	(void)state;
	parse_fails("v: !!int abc\n", ERR_INPUT, "t.yaml:1:4:", "!!int");
	parse_fails("v: !!int 1.5\n", ERR_INPUT, "not a valid", NULL);
	parse_fails("v: !!bool yes\n", ERR_INPUT, "bool", NULL);
	parse_fails("v: !!null 0\n", ERR_INPUT, "null", NULL);
}

/*
 * A number keeps the text it was written with: where it becomes text (an
 * env value, a label) the text, where it stays a number its value, which is
 * what Kubernetes' reader makes of it (0644 is YAML 1.1 octal there: 420).
 */
static void numbers_keep_their_text_and_have_kubernetes_values(void **state)
{
	(void)state;
	static const char *const written[] = {
		"0644", "0x1F", "0o17", "1_000", "0b101", "+1", ".5", "1E3", ".inf", "-.Inf", ".nan", "0.1",
	};
	static const char *const yaml[] = {
		"420", "31", "15", "1000", "5", "1", "0.5", "1000", ".inf", "-.inf", ".nan", "0.1",
	};
	for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++) {
		char in[64];
		snprintf(in, sizeof(in), "v: %s\n", written[i]);
		cJSON *doc = parse_ok(in);
		const cJSON *v = cJSON_GetObjectItem(doc, "v");
		struct buf t = BUF_INIT, y = BUF_INIT;
		assert_true(cJSON_IsNumber(v));
		jtree_number_text(v, JTREE_NUM_TEXT, &t);
		jtree_number_text(v, JTREE_NUM_YAML, &y);
		assert_string_equal(t.data, written[i]);
		assert_string_equal(y.data, yaml[i]);
		buf_free(&t);
		buf_free(&y);
		cJSON_Delete(doc);
	}
	/* a number changed after parsing never shows its stale text */
	cJSON *doc = parse_ok("v: 0x1F\n");
	cJSON *v = cJSON_GetObjectItem(doc, "v");
	struct buf t = BUF_INIT;
	v->valuedouble = 7;
	jtree_number_text(v, JTREE_NUM_TEXT, &t);
	assert_string_equal(t.data, "7");
	buf_free(&t);
	cJSON_Delete(doc);
}

/* Tags other than the core types' are refused, naming where; !!binary is decoded. */
static void unknown_tags_are_refused_with_their_path(void **state)
{
	(void)state;
	parse_fails("a:\n  b: [x, !custom y]\n", ERR_INPUT, "t.yaml:2:10: a.b[1]: tag !custom is not a tag", NULL);
	parse_fails("v: !!python/object:os.system x\n", ERR_INPUT, "v: tag !!python/object:os.system", NULL);
	parse_fails("v: !!set {a, b}\n", ERR_INPUT, "v: tag !!set", NULL);
	parse_fails("v: !!omap [a: 1]\n", ERR_INPUT, "!!omap", NULL);
	parse_fails("v: !!timestamp 2024-01-01\n", ERR_INPUT, "!!timestamp", NULL);
	parse_fails("!local k: v\n", ERR_INPUT, "tag !local", NULL);
	parse_fails("v: !!binary aW1\n", ERR_INPUT, "v: !!binary value is not valid base64", NULL);
	parse_fails("v: !!binary /w==\n", ERR_INPUT, "not UTF-8 text", NULL);
	parse_fails("v: !!binary AA==\n", ERR_INPUT, "not UTF-8 text", NULL);	/* a NUL */
	cJSON *doc = parse_ok("a: !!binary |\n  aW1n\n  LXY=\nb: !!map {c: !!seq [!!str 1]}\nc: ! 12\n");
	assert_canon(doc, "{\"a\":\"img-v\",\"b\":{\"c\":[\"1\"]},\"c\":\"12\"}");
	cJSON_Delete(doc);
}

static void keys_are_strings_even_when_they_look_like_numbers(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("1: a\ntrue: b\n~: c\n0x10: d\n");
	assert_canon(doc, "{\"0x10\":\"d\",\"1\":\"a\",\"true\":\"b\",\"~\":\"c\"}");
	free(round_trip(doc));
	cJSON_Delete(doc);
}

/* ---- quoting ---- */

static void tricky_strings_round_trip_as_strings(void **state)
{
	(void)state;
	static const char *const quoted[] = {
		"", "yes", "No", "ON", "off", "y", "N", "true", "False", "null",
		"Null", "~", "0777", "0x1f", "0o17", "1e3", ".5", "-.5", "+1",
		"1_000", "0b101", "1:30", "2024-01-01", "2024-01-01T10:00:00Z",
		".inf", "-.inf", ".NaN", "12", "-3", "3.14", " lead", "trail ",
		"a: b", "a #b", "#x", "- x", "-", "? x", "?", ":x", "x:",
		"[a]", "{a}", "*ref", "&anc", "!tag", "|", ">", "%", "@", "`",
		"'q", "\"q", ",", "<<", "=", "---", "--- x", "...", "line1\nline2",
		"trailing newline\n", "tab\there", "cr\rhere", "bell\a",
		"del\x7f", "nel\xc2\x85", "ls\xe2\x80\xa8", "bom\xef\xbb\xbf",
		"back\\slash \"quotes\" # ", "\n", " ", "0.0.1a",
	};
	static const char *const plain[] = {
		"hello", "hello world", "--flag=1", "-x", "a:b", "a#b",
		"kubeflow.org/v1", "ghcr.io/x/y:latest", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
		"python3", "x-y_z", "Always", "e", "E1", "inf", "nan",
	};
	for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]) + sizeof(plain) / sizeof(plain[0]); i++) {
		int must_quote = i < sizeof(quoted) / sizeof(quoted[0]);
		const char *s = must_quote ? quoted[i] : plain[i - sizeof(quoted) / sizeof(quoted[0])];
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "k", s);
		cJSON_AddStringToObject(doc, s, "as key");
		char *y = round_trip(doc);
		const char *val = strstr(y, "k: ");
		assert_non_null(val);
		if (must_quote != (val[3] == '"' || val[3] == '|')) {
			print_error("string \"%s\" emitted as %s", s, val);
			fail();
		}
		free(y);
		cJSON_Delete(doc);
	}
	/* alone as a document, too (column 0: "---" and "..." matter there) */
	for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++) {
		cJSON *s = cJSON_CreateString(quoted[i]);
		free(round_trip(s));
		cJSON_Delete(s);
	}
}

static void multi_line_strings_use_literal_blocks_when_safe(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("{script: \"set -e\\npython3 train.py \\\"$@\\\"\\n\", "
			      "nonl: \"a\\n  b\", keep: \"x\\n\\n\", "
			      "list: [\"one\\ntwo\\n\"], lead: \" a\\nb\", "
			      "blank: \"a\\n \\nb\", tab: \"a\\n\\tb\"}");
	char *y = round_trip(doc);
	assert_string_equal(y,
		"blank: \"a\\n \\nb\"\n"
		"keep: |+\n"
		"  x\n"
		"\n"
		"lead: \" a\\nb\"\n"
		"list:\n"
		"- |\n"
		"  one\n"
		"  two\n"
		"nonl: |-\n"
		"  a\n"
		"    b\n"
		"script: |\n"
		"  set -e\n"
		"  python3 train.py \"$@\"\n"
		"tab: \"a\\n\\tb\"\n");
	free(y);
	cJSON_Delete(doc);
	static const char *const texts[] = {
		"a\nb", "a\nb\n", "a\n\n", "a\n\n\n", "a\n\nb", "#x\ny", "- a\n- b\n",
		"a: b\nc", "key:\n  nested\n", "---\nx", "x\n...\n", "x\n---\n",
		"caf\xc3\xa9\n\xe6\x97\xa5\n", "trailing \nspaces  \n", "\"q\"\n'q'\n",
		"|\n>", "\n", "\n\na", " \n", "a\n ", "a\r\nb", "x\n\xc2\x85y",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		cJSON *top = cJSON_CreateString(texts[i]);
		free(round_trip(top));
		cJSON *m = cJSON_CreateObject(), *l = cJSON_CreateArray();
		cJSON_AddStringToObject(m, "k", texts[i]);
		cJSON_AddItemToObject(m, "l", l);
		cJSON_AddItemToArray(l, cJSON_CreateString(texts[i]));
		cJSON_AddItemToArray(l, cJSON_Duplicate(m, 1));
		cJSON_AddStringToObject(m, "z", "after");
		free(round_trip(m));
		cJSON_Delete(m);
		cJSON_Delete(top);
	}
}

static void numbers_print_as_integers_or_shortest_round_trip(void **state)
{
	(void)state;
	static const struct { double v; const char *yaml; } table[] = {
		{ 0, "0" }, { 1, "1" }, { -42, "-42" }, { 0.1, "0.1" },
		{ 1.5, "1.5" }, { 9007199254740992.0, "9007199254740992" },
		{ -9007199254740992.0, "-9007199254740992" },
		{ 1e20, "1.0e+20" }, { 1e-7, "1.0e-07" }, { 1.0 / 3, "0.3333333333333333" },
		{ 123456789.125, "123456789.125" },
		/* past 2^53: %.17g prints digits only, which must read back exactly */
		{ 58138187140201144.0, "58138187140201144" },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		cJSON *n = cJSON_CreateNumber(table[i].v);
		char *y = round_trip(n);
		char want[64];
		snprintf(want, sizeof(want), "%s\n", table[i].yaml);
		assert_string_equal(y, want);
		free(y);
		cJSON_Delete(n);
	}
	/* any double comes back bit for bit */
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double d;
		memcpy(&d, &x, sizeof(d));
		if (isnan(d))
			continue;
		cJSON *n = cJSON_CreateNumber(d);
		char *y = emit(n, 0);
		cJSON *back = parse_ok(y);
		if (memcmp(&back->valuedouble, &d, sizeof(d)) != 0 &&
		    !(d == 0 && back->valuedouble == 0)) {
			print_error("%.17g emitted as %s read back as %.17g\n", d, y,
				    back->valuedouble);
			fail();
		}
		free(y);
		cJSON_Delete(back);
		cJSON_Delete(n);
	}
}

static void non_utf8_strings_cannot_be_emitted(void **state)
{
	(void)state;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "bad", "x\xff");
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	buf_adds(&b, "keep");
	assert_int_equal(yj_emit(doc, 0, &b, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "UTF-8"));
	assert_string_equal(b.data, "keep");	/* nothing appended */
	buf_free(&b);
	cJSON_Delete(doc);
}

static void keys_past_the_1024_character_limit_become_explicit(void **state)
{
	(void)state;
	char key[2001];
	memset(key, 'k', 2000);
	key[2000] = '\0';
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, key, 1);
	cJSON *list = cJSON_AddArrayToObject(doc, "list");
	cJSON *item = cJSON_CreateObject();
	cJSON_AddItemToArray(list, item);
	key[0] = 'a';
	cJSON *m = cJSON_AddObjectToObject(item, key);
	key[0] = 'b';
	cJSON_AddItemToObject(m, key, cJSON_Parse("[1, {\"x\": \"y\"}]"));
	key[0] = '1';	/* quoted as well */
	cJSON_AddStringToObject(m, key, "v");
	char *y = round_trip(doc);
	assert_memory_equal(y, "? kkkk", 6);
	assert_non_null(strstr(y, "\n: 1\n"));
	free(y);
	cJSON_Delete(doc);
}

static void trees_with_duplicate_keys_cannot_be_emitted(void **state)
{
	(void)state;
	cJSON *doc = cJSON_Parse("{\"a\":{\"k\":1,\"j\":0,\"k\":2}}");
	for (unsigned flags = 0; flags <= YJ_SORT_KEYS; flags += YJ_SORT_KEYS) {
		struct buf b = BUF_INIT;
		struct err e = ERR_INIT;
		assert_int_equal(yj_emit(doc, flags, &b, &e), -1);
		assert_int_equal(e.code, ERR_INPUT);
		assert_non_null(strstr(e.msg, "duplicate key \"k\""));
		assert_int_equal(b.len, 0);
		buf_free(&b);
	}
	cJSON_Delete(doc);
}

/* ---- layout and determinism ---- */

static void emission_is_kubectl_style_block_yaml(void **state)
{
	(void)state;
	cJSON *doc = parse_ok(
		"{kind: JAXJob, spec: {containers: [{name: jax, args: [--a, '1'], env: []}],"
		" nested: [[1, 2], {}], empty: {}}, list: [{a: 1, b: {c: d}}]}");
	char *y = emit(doc, 0);
	assert_string_equal(y,
		"kind: JAXJob\n"
		"spec:\n"
		"  containers:\n"
		"  - name: jax\n"
		"    args:\n"
		"    - --a\n"
		"    - \"1\"\n"
		"    env: []\n"
		"  nested:\n"
		"  - - 1\n"
		"    - 2\n"
		"  - {}\n"
		"  empty: {}\n"
		"list:\n"
		"- a: 1\n"
		"  b:\n"
		"    c: d\n");
	free(y);
	y = emit(doc, YJ_SORT_KEYS);
	assert_string_equal(y,
		"kind: JAXJob\n"
		"list:\n"
		"- a: 1\n"
		"  b:\n"
		"    c: d\n"
		"spec:\n"
		"  containers:\n"
		"  - args:\n"
		"    - --a\n"
		"    - \"1\"\n"
		"    env: []\n"
		"    name: jax\n"
		"  empty: {}\n"
		"  nested:\n"
		"  - - 1\n"
		"    - 2\n"
		"  - {}\n");
	char *again = emit(doc, YJ_SORT_KEYS);
	assert_string_equal(y, again);
	free(again);
	free(y);
	cJSON_Delete(doc);
}

static void empty_collections_and_scalar_documents(void **state)
{
	(void)state;
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();
	cJSON *s = cJSON_CreateString("x");
	char *y1 = round_trip(o), *y2 = round_trip(a), *y3 = round_trip(s);
	assert_string_equal(y1, "{}\n");
	assert_string_equal(y2, "[]\n");
	assert_string_equal(y3, "x\n");
	free(y1);
	free(y2);
	free(y3);
	cJSON_Delete(o);
	cJSON_Delete(a);
	cJSON_Delete(s);
}

static void streams_get_a_separator_per_document(void **state)
{
	(void)state;
	cJSON *docs = NULL;
	struct err e = ERR_INIT;
	const char *in = "a: 1\n---\n- x\n";
	assert_int_equal(yj_parse_stream(in, strlen(in), "s", &docs, &e), 0);
	struct buf b = BUF_INIT;
	assert_int_equal(yj_emit_stream(docs, 0, &b, &e), 0);
	assert_string_equal(b.data, "---\na: 1\n---\n- x\n");
	/* all or nothing */
	cJSON_AddItemToArray(docs, cJSON_CreateString("\xfe"));
	buf_reset(&b);
	assert_int_equal(yj_emit_stream(docs, 0, &b, &e), -1);
	assert_int_equal(b.len, 0);
	buf_free(&b);
	cJSON_Delete(docs);
}

/* ---- streams, anchors, merges ---- */

static void multi_document_streams_drop_empty_documents(void **state)
{
	(void)state;
	const char *in = "a: 1\n---\n---\nnull\n---\n# only a comment\n---\nb: 2\n...\n---\n[3]\n";
	cJSON *docs = NULL;
	struct err e = ERR_INIT;
	assert_int_equal(yj_parse_stream(in, strlen(in), "s", &docs, &e), 0);
	assert_canon(docs, "[{\"a\":1},{\"b\":2},[3]]");
	cJSON_Delete(docs);
	assert_int_equal(yj_parse_stream("", 0, "s", &docs, &e), 0);
	assert_int_equal(cJSON_GetArraySize(docs), 0);
	cJSON_Delete(docs);
	assert_int_equal(yj_parse_stream(NULL, 0, "s", &docs, &e), 0);
	assert_int_equal(cJSON_GetArraySize(docs), 0);
	cJSON_Delete(docs);
	/* a UTF-8 byte order mark is not content */
	assert_int_equal(yj_parse_stream("\xef\xbb\xbfk: v\n", 8, "s", &docs, &e), 0);
	assert_canon(docs, "[{\"k\":\"v\"}]");
	cJSON_Delete(docs);

	cJSON *one = NULL;
	assert_int_equal(yj_parse_one(in, strlen(in), "jobs.yaml", &one, &e), -1);
	assert_null(one);
	assert_non_null(strstr(e.msg, "jobs.yaml"));
	assert_non_null(strstr(e.msg, "found 3"));
	assert_int_equal(yj_parse_one("", 0, "empty.yaml", &one, &e), -1);
	assert_non_null(strstr(e.msg, "found 0"));
}

static void anchors_are_copied_and_merge_keys_applied(void **state)
{
	(void)state;
	cJSON *doc = parse_ok(
		"base: &b {image: x, env: [{name: A, value: '1'}]}\n"
		"copy: *b\n"
		"over: &o {image: y, extra: 1}\n"
		"merged:\n"
		"  <<: *b\n"
		"  image: z\n"
		"multi:\n"
		"  <<: [*o, *b]\n"
		"inline:\n"
		"  <<: {k: v}\n"
		"quoted: {'<<': kept}\n"
		"s: &s scalar\n"
		"t: *s\n"
		"redef: &s again\n"
		"u: *s\n");
	assert_canon(doc,
		"{\"base\":{\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"image\":\"x\"},"
		"\"copy\":{\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"image\":\"x\"},"
		"\"inline\":{\"k\":\"v\"},"
		"\"merged\":{\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"image\":\"z\"},"
		"\"multi\":{\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"extra\":1,\"image\":\"y\"},"
		"\"over\":{\"extra\":1,\"image\":\"y\"},"
		"\"quoted\":{\"<<\":\"kept\"},"
		"\"redef\":\"again\",\"s\":\"scalar\",\"t\":\"scalar\",\"u\":\"again\"}");
	/* copies are independent trees */
	cJSON *copy = cJSON_GetObjectItem(doc, "copy");
	cJSON *base = cJSON_GetObjectItem(doc, "base");
	assert_ptr_not_equal(copy->child, base->child);
	free(round_trip(doc));
	cJSON_Delete(doc);
	/* anchors on keys, and an anchored merge source reused later */
	doc = parse_ok("&k name: a\nother: *k\nm: {<<: &src {p: 1}, q: 2}\nn: *src\n");
	assert_canon(doc, "{\"m\":{\"p\":1,\"q\":2},\"n\":{\"p\":1},\"name\":\"a\",\"other\":\"name\"}");
	cJSON_Delete(doc);
}

static void bad_aliases_and_merges_are_errors(void **state)
{
	(void)state;
	parse_fails("a: *nope\n", ERR_INPUT, "t.yaml:1:4:", "*nope");
	parse_fails("a: &x [1, *x]\n", ERR_INPUT, "*x", NULL);
	parse_fails("a: &x 1\n---\nb: *x\n", ERR_INPUT, "t.yaml:3:4:", NULL);
	parse_fails("a: {<<: 1}\n", ERR_INPUT, "merge", NULL);
	parse_fails("a: {<<: [{x: 1}, 2]}\n", ERR_INPUT, "merge", NULL);
}

static void billion_laughs_stops_at_the_alias_bound(void **state)
{
	(void)state;
	struct buf y = BUF_INIT;
	buf_adds(&y, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
	for (int i = 1; i < 10; i++) {
		buf_addf(&y, "l%d: &l%d [", i, i);
		for (int j = 0; j < 10; j++)
			buf_addf(&y, "%s*l%d", j ? ", " : "", i - 1);
		buf_adds(&y, "]\n");
	}
	parse_fails(y.data, ERR_LIMIT, "aliases expand to more than", "100000");
	/* the first four levels (about 12k nodes) are fine */
	buf_reset(&y);
	buf_adds(&y, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
	for (int i = 1; i < 4; i++) {
		buf_addf(&y, "l%d: &l%d [", i, i);
		for (int j = 0; j < 10; j++)
			buf_addf(&y, "%s*l%d", j ? ", " : "", i - 1);
		buf_adds(&y, "]\n");
	}
	cJSON *doc = parse_ok(y.data);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "l3"), 9), 9)), 10);
	cJSON_Delete(doc);
	buf_free(&y);
}

/* ---- bounds ---- */

/* One large anchored string aliased many times: few nodes, many bytes. */
static void aliases_are_bounded_in_bytes(void **state)
{
	(void)state;
	struct buf y = BUF_INIT;
	buf_adds(&y, "a: &a \"");
	for (int i = 0; i < 64 * 1024; i++)
		buf_addch(&y, 'x');
	buf_adds(&y, "\"\nb: [");
	for (int i = 0; i < 70; i++)	/* 70 x 64 KiB > 4 MiB */
		buf_adds(&y, i ? ", *a" : "*a");
	buf_adds(&y, "]\n");
	parse_fails(y.data, ERR_LIMIT, "aliases expand to more than 4194304 bytes", "YJ_MAX_ALIAS_BYTES");
	/* 60 copies (3.75 MiB) are fine */
	char *cut = strstr(y.data, "b: [");
	buf_truncate(&y, (size_t)(cut - y.data));
	buf_adds(&y, "b: [");
	for (int i = 0; i < 60; i++)
		buf_adds(&y, i ? ", *a" : "*a");
	buf_adds(&y, "]\n");
	cJSON *doc = parse_ok(y.data);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "b")), 60);
	cJSON_Delete(doc);
	buf_free(&y);
}

static void nesting_is_bounded_without_using_the_stack(void **state)
{
	(void)state;
	struct buf y = BUF_INIT;
	for (int i = 0; i < YJ_MAX_DEPTH; i++)
		buf_addch(&y, '[');
	for (int i = 0; i < YJ_MAX_DEPTH; i++)
		buf_addch(&y, ']');
	cJSON *doc = parse_ok(y.data);
	free(round_trip(doc));
	cJSON_Delete(doc);

	buf_reset(&y);
	for (int i = 0; i <= YJ_MAX_DEPTH; i++)
		buf_addch(&y, '[');
	for (int i = 0; i <= YJ_MAX_DEPTH; i++)
		buf_addch(&y, ']');
	parse_fails(y.data, ERR_LIMIT, "t.yaml:1:65:", "deeper than 64");

	buf_reset(&y);
	for (int i = 0; i < 100000; i++)
		buf_adds(&y, "{a: [");
	parse_fails(y.data, ERR_LIMIT, "deeper than", NULL);

	/* an alias may not smuggle depth in either */
	buf_reset(&y);
	buf_adds(&y, "deep: &d ");
	for (int i = 0; i < 40; i++)
		buf_addch(&y, '[');
	for (int i = 0; i < 40; i++)
		buf_addch(&y, ']');
	buf_adds(&y, "\nuse: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[*d]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n");
	parse_fails(y.data, ERR_LIMIT, "alias *d", NULL);
	buf_free(&y);

	/* trees built by hand are checked when emitted */
	cJSON *root = cJSON_CreateArray(), *n = root;
	for (int i = 0; i < 200; i++) {
		cJSON *c = cJSON_CreateArray();
		cJSON_AddItemToArray(n, c);
		n = c;
	}
	cJSON_AddItemToArray(n, cJSON_CreateNumber(1));
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	assert_int_equal(yj_emit(root, 0, &out, &e), -1);
	assert_int_equal(e.code, ERR_LIMIT);
	assert_int_equal(out.len, 0);
	buf_free(&out);
	cJSON_Delete(root);
}

static void input_size_is_bounded(void **state)
{
	(void)state;
	size_t n = YJ_MAX_INPUT + 1;
	char *big = xmalloc(n);
	memset(big, ' ', n);
	big[0] = 'a';
	cJSON *docs = NULL;
	struct err e = ERR_INIT;
	assert_int_equal(yj_parse_stream(big, n, "big.yaml", &docs, &e), -1);
	assert_int_equal(e.code, ERR_LIMIT);
	assert_non_null(strstr(e.msg, "big.yaml"));
	assert_non_null(strstr(e.msg, "8388608"));
	free(big);

	/* a 50 MB file is refused before it is read */
	char path[] = "/tmp/yj-big-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 50 * 1024 * 1024), 0);
	close(fd);
	struct buf b = BUF_INIT;
	assert_int_equal(buf_read_file(&b, path, YJ_MAX_INPUT, &e), -1);
	unlink(path);
	assert_int_equal(e.code, ERR_LIMIT);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "8 MiB"));
	assert_int_equal(b.len, 0);

	assert_int_equal(buf_read_file(&b, "/nonexistent/x.yaml", YJ_MAX_INPUT, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	assert_non_null(strstr(e.msg, "/nonexistent/x.yaml"));
	buf_free(&b);
}

static void read_file_reads_the_whole_file(void **state)
{
	(void)state;
	char path[] = "/tmp/yj-small-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct buf text = BUF_INIT;
	for (int i = 0; i < 20000; i++)
		buf_addf(&text, "k%d: %d\n", i, i);
	assert_int_equal(write(fd, text.data, text.len), (ssize_t)text.len);
	close(fd);
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	buf_adds(&b, "prefix");
	assert_int_equal(buf_read_file(&b, path, YJ_MAX_INPUT, &e), 0);
	unlink(path);
	assert_int_equal(b.len, text.len + 6);
	assert_memory_equal(b.data + 6, text.data, text.len);
	/* a mapping that big also has its keys checked for duplicates fast */
	cJSON *doc = parse_ok(text.data);
	assert_int_equal(cJSON_GetArraySize(doc), 20000);
	cJSON_Delete(doc);
	buf_free(&b);
	buf_free(&text);
}

/* ---- errors ---- */

static void nul_bytes_are_errors(void **state)
{
	(void)state;
	parse_fails_n("a: b\nc: d\0e\n", 11, ERR_PARSE, "t.yaml:2:5:", "NUL");
}

static void duplicate_and_non_scalar_keys_are_errors(void **state)
{
	(void)state;
	parse_fails("a: 1\nb: 2\na: 3\n", ERR_INPUT, "t.yaml:3:1:", "duplicate mapping key \"a\"");
	parse_fails("{x: 1, x: 2}", ERR_INPUT, "duplicate", NULL);
	parse_fails("1: a\n'1': b\n", ERR_INPUT, "duplicate", NULL);
	/* past the size where the key set is hashed */
	parse_fails("{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, c: 11}",
		    ERR_INPUT, "duplicate mapping key \"c\"", NULL);
	parse_fails("? [a]\n: 1\n", ERR_INPUT, "t.yaml:1:3:", "keys must be scalars");
	parse_fails("{{a: 1}: x}", ERR_INPUT, "keys must be scalars", NULL);
	parse_fails("l: &l [1]\nm: {*l : x}\n", ERR_INPUT, "keys must be scalars", NULL);
	/* merged keys never count as duplicates: explicit ones win */
	cJSON *doc = parse_ok("b: &b {x: 1}\nm: {x: 2, <<: *b}\n");
	assert_canon(doc, "{\"b\":{\"x\":1},\"m\":{\"x\":2}}");
	cJSON_Delete(doc);
}

static void malformed_yaml_reports_line_and_column(void **state)
{
	(void)state;
	parse_fails("a:\n\tb: 1\n", ERR_PARSE, "t.yaml:2:1:", "tabs");
	parse_fails("a: 1\nb: [1, 2\n", ERR_PARSE, "t.yaml:", NULL);
	parse_fails("a: b: c\n", ERR_PARSE, "t.yaml:1:5:", "mapping values are not allowed");
	parse_fails("a: 1\n  b: 2\n", ERR_PARSE, "t.yaml:2:", NULL);
	parse_fails("a: \"unterminated\n", ERR_PARSE, "t.yaml:", "quoted scalar");
	parse_fails_n("a: \xff\xfe\n", 6, ERR_PARSE, "t.yaml:1:4:", "UTF-8");
}

static void unicode_survives_both_ways(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("name: h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\x89\n"
			      "esc: \"\\u00e9\\x41\\U0001F389\\N\"\n");
	assert_string_equal(cJSON_GetObjectItem(doc, "name")->valuestring,
			    "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\x89");
	assert_string_equal(cJSON_GetObjectItem(doc, "esc")->valuestring,
			    "\xc3\xa9" "A\xf0\x9f\x8e\x89\xc2\x85");
	free(round_trip(doc));
	cJSON_Delete(doc);
}

/* ---- JSON ---- */

static void canonical_json_sorts_keys_and_prints_integers(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("{b: [1, 2.5, x, 1e3, 9007199254740992, 1e20, -0.0], "
			      "a: {d: null, c: true, e: false}, \"q\\\"\": \"tab\\tnl\\n\\u0001\"}");
	assert_canon(doc,
		"{\"a\":{\"c\":true,\"d\":null,\"e\":false},"
		"\"b\":[1,2.5,\"x\",1000,9007199254740992,1e+20,0],"
		"\"q\\\"\":\"tab\\tnl\\n\\u0001\"}");
	struct buf b = BUF_INIT;
	jtree_json_pretty(doc, &b);
	assert_string_equal(b.data,
		"{\n"
		"  \"a\": {\n"
		"    \"c\": true,\n"
		"    \"d\": null,\n"
		"    \"e\": false\n"
		"  },\n"
		"  \"b\": [\n"
		"    1,\n"
		"    2.5,\n"
		"    \"x\",\n"
		"    1000,\n"
		"    9007199254740992,\n"
		"    1e+20,\n"
		"    0\n"
		"  ],\n"
		"  \"q\\\"\": \"tab\\tnl\\n\\u0001\"\n"
		"}\n");
	/* canonical JSON is valid JSON that reads back to the same tree */
	buf_reset(&b);
	jtree_json_canonical(doc, &b);
	cJSON *back = cJSON_Parse(b.data);
	assert_true(jtree_equal(doc, back));
	cJSON_Delete(back);
	buf_reset(&b);
	cJSON *empty = parse_ok("{a: {}, b: []}");
	jtree_json_pretty(empty, &b);
	assert_string_equal(b.data, "{\n  \"a\": {},\n  \"b\": []\n}\n");
	cJSON_Delete(empty);
	buf_free(&b);
	cJSON_Delete(doc);
}

static void json_input_is_yaml(void **state)
{
	(void)state;
	cJSON *doc = parse_ok("{\"apiVersion\": \"v1\", \"items\": [1, 2.5, true, null, \"s\"], \"o\": {}}");
	assert_canon(doc, "{\"apiVersion\":\"v1\",\"items\":[1,2.5,true,null,\"s\"],\"o\":{}}");
	cJSON_Delete(doc);
}

/* ---- random trees (a deterministic xorshift, so failures reproduce) ---- */

static uint64_t rnd_state = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state % n);
}

static char *random_string(void)
{
	static const char *const frag[] = {
		"a", " ", ":", ": ", " #", "#", "-", "- ", "?", "\n", "\n\n", "\t",
		"\r", "'", "\"", "\\", "|", ">", "%", "@", "`", "!", "&", "*", "[",
		"{", ",", "~", "yes", "on", "null", "true", "0", "0777", "0x1f", "1e3",
		".5", ".inf", "2024-01-01", "1:30", "<<", "=", "---", "...",
		"\xc3\xa9", "\xe2\x80\xa8", "\xc2\x85", "\xef\xbb\xbf", "\x01", "\x7f",
	};
	struct buf b = BUF_INIT;
	for (unsigned n = rnd(6); n > 0; n--)
		buf_adds(&b, frag[rnd(sizeof(frag) / sizeof(frag[0]))]);
	return buf_detach(&b, NULL);
}

static cJSON *random_tree(int depth)
{
	unsigned kind = rnd(depth > 6 ? 4 : 7);
	cJSON *n;
	if (kind == 0)
		return cJSON_CreateNull();
	if (kind == 1)
		return cJSON_CreateBool(rnd(2));
	if (kind == 2) {
		double v;
		memcpy(&v, &rnd_state, sizeof(v));
		return cJSON_CreateNumber(isnan(v) ? 0.5 : rnd(2) ? v : (double)rnd(1000) - 500);
	}
	if (kind == 3) {
		char *s = random_string();
		n = cJSON_CreateString(s);
		free(s);
		return n;
	}
	n = kind < 5 ? cJSON_CreateObject() : cJSON_CreateArray();
	for (unsigned i = rnd(5); i > 0; i--) {
		if (cJSON_IsArray(n)) {
			cJSON_AddItemToArray(n, random_tree(depth + 1));
			continue;
		}
		char *k = random_string();
		if (!cJSON_GetObjectItemCaseSensitive(n, k))
			cJSON_AddItemToObject(n, k, random_tree(depth + 1));
		free(k);
	}
	return n;
}

static void random_trees_round_trip(void **state)
{
	(void)state;
	for (int i = 0; i < 3000; i++) {
		cJSON *t = random_tree(0);
		free(round_trip(t));
		cJSON_Delete(t);
	}
}

/* ---- reference files ---- */

static int ref_files;

static int round_trip_file(const char *path, const struct stat *st, int type,
			   struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".yaml") != 0)
		return 0;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *docs = NULL;
	if (buf_read_file(&b, path, YJ_MAX_INPUT, &e) || yj_parse_stream(b.data, b.len, path, &docs, &e)) {
		print_error("%s\n", e.msg);
		fail();
	}
	assert_true(cJSON_GetArraySize(docs) > 0);
	free(round_trip(docs));
	for (cJSON *d = docs->child; d; d = d->next)
		free(round_trip(d));
	ref_files++;
	cJSON_Delete(docs);
	buf_free(&b);
	return 0;
}

static void reference_files_round_trip(void **state)
{
	(void)state;
	/* the upstream files `make test-deps` fetches, and our own status samples */
	const char *data = getenv("JAXJOB_TESTDATA");
	if (!data || !*data)
		skip();
	static const char *const dirs[] = {
		"/upstream-examples", "/status-samples", "/crds", "tests/status-samples",
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s%s", dirs[i][0] == '/' ? data : "", dirs[i]);
		int before = ref_files;
		assert_int_equal(nftw(dir, round_trip_file, 16, FTW_PHYS), 0);
		assert_true(ref_files > before);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_scalars_read_as_kubernetes_reads_them),
		cmocka_unit_test(special_floats_parse_and_emit_as_yaml_specials),
		cmocka_unit_test(tags_that_do_not_fit_the_value_are_errors),
		cmocka_unit_test(numbers_keep_their_text_and_have_kubernetes_values),
		cmocka_unit_test(unknown_tags_are_refused_with_their_path),
		cmocka_unit_test(keys_are_strings_even_when_they_look_like_numbers),
		cmocka_unit_test(tricky_strings_round_trip_as_strings),
		cmocka_unit_test(multi_line_strings_use_literal_blocks_when_safe),
		cmocka_unit_test(numbers_print_as_integers_or_shortest_round_trip),
		cmocka_unit_test(non_utf8_strings_cannot_be_emitted),
		cmocka_unit_test(keys_past_the_1024_character_limit_become_explicit),
		cmocka_unit_test(trees_with_duplicate_keys_cannot_be_emitted),
		cmocka_unit_test(emission_is_kubectl_style_block_yaml),
		cmocka_unit_test(empty_collections_and_scalar_documents),
		cmocka_unit_test(streams_get_a_separator_per_document),
		cmocka_unit_test(multi_document_streams_drop_empty_documents),
		cmocka_unit_test(anchors_are_copied_and_merge_keys_applied),
		cmocka_unit_test(bad_aliases_and_merges_are_errors),
		cmocka_unit_test(billion_laughs_stops_at_the_alias_bound),
		cmocka_unit_test(aliases_are_bounded_in_bytes),
		cmocka_unit_test(nesting_is_bounded_without_using_the_stack),
		cmocka_unit_test(input_size_is_bounded),
		cmocka_unit_test(read_file_reads_the_whole_file),
		cmocka_unit_test(nul_bytes_are_errors),
		cmocka_unit_test(duplicate_and_non_scalar_keys_are_errors),
		cmocka_unit_test(malformed_yaml_reports_line_and_column),
		cmocka_unit_test(unicode_survives_both_ways),
		cmocka_unit_test(canonical_json_sorts_keys_and_prints_integers),
		cmocka_unit_test(numbers_keep_their_text),
		cmocka_unit_test(json_surrogate_pairs_are_characters),
		cmocka_unit_test(json_input_is_yaml),
		cmocka_unit_test(random_trees_round_trip),
		cmocka_unit_test(reference_files_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
