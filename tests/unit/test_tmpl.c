/* test_tmpl.c - the template engine: typed substitution in the parsed tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "yj/jtree.h"
#include "job/tmpl.h"

/* Render YAML `text` with JSON `values`; returns the tree or NULL (err in *e). */
static cJSON *render(const char *text, const char *values, struct err *e, cJSON *used)
{
	cJSON *tree = NULL, *v = cJSON_Parse(values);
	assert_non_null(v);
	assert_int_equal(tmpl_parse(text, strlen(text), "t.yaml", &tree, e), 0);
	struct tmpl_ctx ctx = { "t.yaml", v, NULL, used };
	int rc = tmpl_render(tree, &ctx, e);
	cJSON_Delete(v);
	if (rc < 0) {
		cJSON_Delete(tree);
		return NULL;
	}
	return tree;
}

static void assert_json(const cJSON *tree, const char *want)
{
	cJSON *w = cJSON_Parse(want);
	assert_non_null(w);
	if (!jtree_equal(tree, w)) {
		char *got = cJSON_PrintUnformatted(tree);
		fail_msg("got %s, want %s", got, want);
	}
	cJSON_Delete(w);
}

static void whole_scalar_keeps_the_value_type(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("n: ((n))\nl: ((l))\nm: ((m))\nb: ((b))\ns: ((s))\nq: \"((n))\"\n",
			  "{\"n\":4,\"l\":[\"a\",1],\"m\":{\"k\":\"v\"},\"b\":true,\"s\":\"x\"}",
			  &e, NULL);
	assert_non_null(t);
	assert_json(t, "{\"n\":4,\"l\":[\"a\",1],\"m\":{\"k\":\"v\"},\"b\":true,\"s\":\"x\",\"q\":4}");
	cJSON_Delete(t);
}

static void absent_optional_removes_key_item_and_emptied_blocks(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("a: ((x?))\nkeep: {}\nblock:\n  inner: ((x?))\n  deeper: {z: ((x?))}\n"
			  "list: [1, ((x?)), 3]\nonly: [((x?))]\nb: ((y?))\n",
			  "{\"x\":null,\"y\":2}", &e, NULL);
	assert_non_null(t);
	assert_json(t, "{\"keep\":{},\"list\":[1,3],\"b\":2}");
	cJSON_Delete(t);
}

static void interpolation_inside_longer_strings(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("p: gs://b/((name))/step-((n))-((f))((opt?))\n",
			  "{\"name\":\"mnist\",\"n\":100,\"f\":false}", &e, NULL);
	assert_non_null(t);
	assert_json(t, "{\"p\":\"gs://b/mnist/step-100-false\"}");
	cJSON_Delete(t);
}

static void undefined_optional_names_are_absent(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("a: ((mine?))\nb: [x, ((mine?))]\nc: s((mine?))\n", "{}", &e, NULL);
	assert_non_null(t);
	assert_json(t, "{\"b\":[\"x\"],\"c\":\"s\"}");
	cJSON_Delete(t);
}

static void list_cannot_be_interpolated(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_null(render("a:\n  b: x-((l))\n", "{\"l\":[1]}", &e, NULL));
	assert_non_null(strstr(e.msg, "t.yaml: a.b: placeholder ((l))"));
	assert_non_null(strstr(e.msg, "is a list"));
}

static void unknown_placeholder_suggests_the_near_name(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_null(render("spec:\n  containers:\n  - image: ((imgae))\n",
			   "{\"image\":\"x\"}", &e, NULL));
	assert_string_equal(e.msg, "t.yaml: spec.containers[0].image: unknown placeholder "
			    "((imgae)); did you mean ((image))?");
	assert_null(render("a: ((zzzzzz))\n", "{\"image\":\"x\"}", &e, NULL));
	assert_non_null(strstr(e.msg, "unknown placeholder ((zzzzzz))"));
}

static void known_name_without_value_is_missing_not_unknown(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	const char *known[] = { "image", NULL };
	cJSON *tree = NULL, *v = cJSON_CreateObject();
	assert_int_equal(tmpl_parse("image: ((image))\n", 16, "t.yaml", &tree, &e), 0);
	struct tmpl_ctx ctx = { "t.yaml", v, known, NULL };
	assert_int_equal(tmpl_render(tree, &ctx, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "t.yaml: image: missing required parameter image"));
	cJSON_Delete(tree);
	cJSON_Delete(v);
}

static void placeholders_in_keys_are_an_error(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_null(render("labels:\n  ((k)): v\n", "{\"k\":\"x\"}", &e, NULL));
	assert_non_null(strstr(e.msg, "keys are never substituted"));
}

static void injected_yaml_stays_one_string(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("metadata:\n  name: ((n))\n  note: a ((n))\n",
			  "{\"n\":\"x\\nkind: Secret\\n---\\nb: c\"}", &e, NULL);
	assert_non_null(t);
	assert_int_equal(cJSON_GetArraySize(t), 1);
	assert_null(cJSON_GetObjectItem(t, "kind"));
	const cJSON *md = cJSON_GetObjectItem(t, "metadata");
	assert_int_equal(cJSON_GetArraySize(md), 2);
	assert_string_equal(cJSON_GetObjectItem(md, "name")->valuestring, "x\nkind: Secret\n---\nb: c");
	cJSON_Delete(t);
}

static void values_are_never_scanned_again(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("a: ((v))\nb: [((l))]\nc: x((v))\n",
			  "{\"v\":\"((secret))\",\"l\":{\"k\":\"((secret))\"}}", &e, NULL);
	assert_non_null(t);
	assert_json(t, "{\"a\":\"((secret))\",\"b\":[{\"k\":\"((secret))\"}],\"c\":\"x((secret))\"}");
	cJSON_Delete(t);
}

static void text_that_is_not_a_placeholder_stays(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = render("a: print((1+2))\nb: ((a b))\nc: ((x)\nd: '{{inputs.parameters.x}}'\n"
			  "e: (( spaced ))\n", "{\"spaced\":1}", &e, NULL);
	assert_non_null(t);
	assert_json(t, "{\"a\":\"print((1+2))\",\"b\":\"((a b))\",\"c\":\"((x)\","
		    "\"d\":\"{{inputs.parameters.x}}\",\"e\":1}");
	cJSON_Delete(t);
}

static void used_names_are_recorded(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *used = cJSON_CreateObject();
	cJSON *t = render("a: ((x))\nb: ((y?))\nc: z-((x))\n", "{\"x\":1,\"y\":null,\"w\":2}",
			  &e, used);
	assert_non_null(t);
	assert_non_null(cJSON_GetObjectItem(used, "x"));
	assert_non_null(cJSON_GetObjectItem(used, "y"));
	assert_null(cJSON_GetObjectItem(used, "w"));
	cJSON_Delete(used);
	cJSON_Delete(t);
}

/* Trees built in memory can be deeper than yj allows; the walk must not recurse. */
static void depth_is_bounded_without_recursion(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *v = cJSON_Parse("{\"x\":1}");
	for (int depth = TMPL_MAX_DEPTH - 1; depth <= TMPL_MAX_DEPTH + 50; depth += 51) {
		cJSON *root = cJSON_CreateObject(), *cur = root;
		for (int i = 0; i < depth - 1; i++) {
			cJSON *next = cJSON_CreateObject();
			cJSON_AddItemToObject(cur, "a", next);
			cur = next;
		}
		cJSON_AddStringToObject(cur, "x", "((x))");
		struct tmpl_ctx ctx = { "deep", v, NULL, NULL };
		int rc = tmpl_render(root, &ctx, &e);
		if (depth < TMPL_MAX_DEPTH) {
			assert_int_equal(rc, 0);
			assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cur, "x")));
		} else {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(e.msg, "nested deeper than"));
		}
		cJSON_Delete(root);
	}
	cJSON_Delete(v);
}

static void template_must_be_one_mapping(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *t = NULL;
	assert_int_equal(tmpl_parse("- a\n- b\n", 8, "l.yaml", &t, &e), -1);
	assert_non_null(strstr(e.msg, "l.yaml: a template must be a YAML mapping"));
	assert_int_equal(tmpl_parse("just text\n", 10, "s.yaml", &t, &e), -1);
	assert_non_null(strstr(e.msg, "not a single value"));
	assert_int_equal(tmpl_parse("a: [1, 2\n", 9, "m.yaml", &t, &e), -1);
	assert_non_null(strstr(e.msg, "m.yaml"));
	assert_null(t);
}

static void builtin_default_template_is_embedded(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	size_t len = 0;
	const char *text = tmpl_builtin(TMPL_DEFAULT, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "kind: JAXJob"));
	assert_null(tmpl_builtin("no-such.yaml", NULL));
	cJSON *t = NULL;
	const char *source = NULL;
	assert_int_equal(tmpl_load(NULL, &t, &source, &e), 0);
	assert_string_equal(source, "templates/jaxjob.yaml");
	assert_string_equal(cJSON_GetObjectItem(t, "kind")->valuestring, "JAXJob");
	cJSON_Delete(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_scalar_keeps_the_value_type),
		cmocka_unit_test(absent_optional_removes_key_item_and_emptied_blocks),
		cmocka_unit_test(interpolation_inside_longer_strings),
		cmocka_unit_test(undefined_optional_names_are_absent),
		cmocka_unit_test(list_cannot_be_interpolated),
		cmocka_unit_test(unknown_placeholder_suggests_the_near_name),
		cmocka_unit_test(known_name_without_value_is_missing_not_unknown),
		cmocka_unit_test(placeholders_in_keys_are_an_error),
		cmocka_unit_test(injected_yaml_stays_one_string),
		cmocka_unit_test(values_are_never_scanned_again),
		cmocka_unit_test(text_that_is_not_a_placeholder_stays),
		cmocka_unit_test(used_names_are_recorded),
		cmocka_unit_test(depth_is_bounded_without_recursion),
		cmocka_unit_test(template_must_be_one_mapping),
		cmocka_unit_test(builtin_default_template_is_embedded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
