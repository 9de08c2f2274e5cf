/* test_jtree.c - path lookup, merge patch, key sorting, equality, hashing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "yj/jtree.h"
#include "yj/yj.h"

static cJSON *json(const char *text)
{
	cJSON *n = cJSON_Parse(text);
	if (!n) {
		print_error("bad JSON in test: %s\n", text);
		fail();
	}
	return n;
}

static void assert_canon(const cJSON *doc, const char *want)
{
	struct buf b = BUF_INIT;
	jtree_json_canonical(doc, &b);
	if (strcmp(b.data, want) != 0) {
		print_error(" got: %s\nwant: %s\n", b.data, want);
		buf_free(&b);
		fail();
	}
	buf_free(&b);
}

/* ---- merge patch ---- */

static void merge_patch_follows_rfc7386_appendix_a(void **state)
{
	(void)state;
	static const char *const cases[][3] = {
		{ "{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}" },
		{ "{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}" },
		{ "{\"a\":\"b\"}", "{\"a\":null}", "{}" },
		{ "{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}" },
		{ "{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}" },
		{ "{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}" },
		{ "{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}" },
		{ "{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}" },
		{ "[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]" },
		{ "{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]" },
		{ "{\"a\":\"foo\"}", "null", "null" },
		{ "{\"a\":\"foo\"}", "\"bar\"", "\"bar\"" },
		{ "{\"e\":null}", "{\"a\":1}", "{\"a\":1,\"e\":null}" },
		{ "[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}" },
		{ "{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *target = json(cases[i][0]);
		cJSON *patch = json(cases[i][1]);
		cJSON *patch_copy = cJSON_Duplicate(patch, 1);
		jtree_merge_patch(&target, patch);
		assert_canon(target, cases[i][2]);
		assert_true(jtree_equal(patch, patch_copy));	/* patch untouched */
		cJSON_Delete(target);
		cJSON_Delete(patch);
		cJSON_Delete(patch_copy);
	}
}

static void merge_patch_keeps_key_order_and_accepts_null_target(void **state)
{
	(void)state;
	cJSON *t = json("{\"x\":1,\"spec\":{\"a\":1,\"b\":2},\"z\":3}");
	cJSON *p = json("{\"spec\":{\"a\":9},\"x\":[1],\"new\":{\"k\":null,\"v\":1}}");
	jtree_merge_patch(&t, p);
	char *s = cJSON_PrintUnformatted(t);
	assert_string_equal(s, "{\"x\":[1],\"spec\":{\"a\":9,\"b\":2},\"z\":3,\"new\":{\"v\":1}}");
	free(s);
	cJSON_Delete(t);

	cJSON *none = NULL;
	jtree_merge_patch(&none, p);
	assert_canon(none, "{\"new\":{\"v\":1},\"spec\":{\"a\":9},\"x\":[1]}");
	cJSON_Delete(none);
	cJSON_Delete(p);
}

/* ---- paths ---- */

/* A key known only at run time (a label, an annotation) becomes one step,
 * however many '.', '[', ']' or '\\' it holds. */
static void path_add_key_escapes_one_step(void **state)
{
	(void)state;
	static const char *const keys[] = {
		"training.kubeflow.org/replica-index", "a[0]", "b\\c", "x]y", "plain",
	};
	cJSON *doc = json("{\"metadata\":{\"labels\":{\"training.kubeflow.org/replica-index\":\"3\","
			  "\"a[0]\":\"br\",\"b\\\\c\":\"bs\",\"x]y\":\"sq\",\"plain\":\"p\","
			  "\"training\":{\"kubeflow\":\"wrong\"}}}}");
	static const char *const want[] = { "3", "br", "bs", "sq", "p" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct buf path = BUF_INIT;
		buf_adds(&path, "metadata.labels");
		jtree_path_add_key(&path, keys[i]);
		assert_string_equal(jtree_get_string(doc, path.data, "?"), want[i]);
		buf_free(&path);
	}
	/* on an empty path the key is the first step, no leading '.' */
	struct buf root = BUF_INIT;
	jtree_path_add_key(&root, "metadata");
	assert_string_equal(root.data, "metadata");
	buf_free(&root);
	/* unescaped, the dots walk into the wrong (or no) object */
	assert_string_equal(jtree_get_string(doc, "metadata.labels.training.kubeflow.org/replica-index",
					     "?"), "?");
	cJSON_Delete(doc);
}

static void get_walks_dot_paths_and_indices(void **state)
{
	(void)state;
	cJSON *doc = json(
		"{\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},"
		"\"status\":{\"conditions\":[{\"type\":\"Created\"},{\"type\":\"Running\",\"ok\":true}]},"
		"\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/x\":\"dot\",\"a[0]\":\"br\",\"b\\\\c\":\"bs\"}},"
		"\"m\":[[1,2],[3,{\"deep\":\"yes\"}]],\"big\":1e30,\"half\":2.5,\"neg\":-7}");
	assert_int_equal(jtree_get_int(doc, "spec.jaxReplicaSpecs.Worker.replicas", -1), 4);
	assert_string_equal(jtree_get_string(doc, "status.conditions[0].type", "?"), "Created");
	assert_string_equal(jtree_get_string(doc, "status.conditions[1].type", "?"), "Running");
	assert_true(cJSON_IsTrue(jtree_get(doc, "status.conditions[1].ok")));
	assert_null(jtree_get(doc, "status.conditions[0].ok"));
	assert_string_equal(jtree_get_string(doc, "metadata.annotations.kubectl\\.kubernetes\\.io/x", "?"), "dot");
	assert_string_equal(jtree_get_string(doc, "metadata.annotations.a\\[0\\]", "?"), "br");
	assert_string_equal(jtree_get_string(doc, "metadata.annotations.b\\\\c", "?"), "bs");
	assert_string_equal(jtree_get_string(doc, "m[1][1].deep", "?"), "yes");
	assert_int_equal(jtree_get_int(doc, "m[0][1]", 0), 2);
	assert_ptr_equal(jtree_get(doc, ""), doc);
	assert_ptr_equal(jtree_get(doc, NULL), doc);
	assert_ptr_equal(jtree_get_mut(doc, "spec"), cJSON_GetObjectItem(doc, "spec"));
	assert_int_equal(jtree_get_int(doc, "neg", 0), -7);

	/* absent, wrong type, malformed: the default */
	static const char *const missing[] = {
		"nope", "spec.nope", "status.conditions[2].type", "status.conditions[-1]",
		"status.conditions.type", "spec[0]", "spec..jaxReplicaSpecs", ".spec",
		"spec.", "status.conditions[0", "status.conditions[]", "status.conditions[x]",
		"status.conditions[0]type", "metadata.annotations.kubectl.kubernetes.io/x",
		"status.conditions[99999999999999999999]", "half.x",
	};
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		if (jtree_get(doc, missing[i])) {
			print_error("path %s should find nothing\n", missing[i]);
			fail();
		}
	}
	assert_null(jtree_get(NULL, "a"));
	assert_int_equal(jtree_get_int(doc, "big", 5), 5);	/* out of range */
	assert_int_equal(jtree_get_int(doc, "half", 5), 5);	/* not integral */
	assert_int_equal(jtree_get_int(doc, "status", 5), 5);
	assert_string_equal(jtree_get_string(doc, "half", "def"), "def");
	assert_null(jtree_get_string(doc, "nope", NULL));
	cJSON_Delete(doc);
}

/* ---- sorting, equality, hashing ---- */

static void members_come_in_tree_or_key_order(void **state)
{
	(void)state;
	cJSON *doc = json("{\"b\":1,\"a\":2,\"c\":3,\"a\":4}");
	size_t n;
	const cJSON **v = jtree_members(doc, 0, &n);
	assert_int_equal(n, 4);
	assert_string_equal(v[0]->string, "b");
	assert_string_equal(v[3]->string, "a");
	free(v);
	v = jtree_members(doc, 1, &n);
	assert_string_equal(v[0]->string, "a");
	assert_int_equal(v[0]->valueint, 2);	/* equal keys: tree order */
	assert_int_equal(v[1]->valueint, 4);
	assert_string_equal(v[3]->string, "c");
	free(v);
	cJSON *arr = json("[3,1,2]");
	v = jtree_members(arr, 1, &n);	/* arrays never reorder */
	assert_int_equal(v[0]->valueint, 3);
	free(v);
	v = jtree_members(NULL, 1, &n);
	assert_int_equal(n, 0);
	free(v);
	cJSON_Delete(arr);
	cJSON_Delete(doc);
}

static void equal_ignores_key_order_but_not_values(void **state)
{
	(void)state;
	cJSON *a = json("{\"x\":[1,{\"p\":true,\"q\":null}],\"y\":\"s\"}");
	cJSON *b = json("{\"y\":\"s\",\"x\":[1,{\"q\":null,\"p\":true}]}");
	assert_true(jtree_equal(a, b));
	static const char *const different[] = {
		"{\"y\":\"s\",\"x\":[1,{\"q\":null,\"p\":false}]}",
		"{\"y\":\"s\",\"x\":[{\"q\":null,\"p\":true},1]}",
		"{\"y\":\"s\",\"x\":[1,{\"q\":null,\"p\":true}],\"z\":1}",
		"{\"y\":\"t\",\"x\":[1,{\"q\":null,\"p\":true}]}",
		"{\"y\":\"s\",\"x\":[1.5,{\"q\":null,\"p\":true}]}",
		"{\"y\":\"s\",\"x\":[\"1\",{\"q\":null,\"p\":true}]}",
		"{\"y\":\"s\",\"w\":[1,{\"q\":null,\"p\":true}]}",
		"{\"y\":\"s\",\"x\":[1,{\"q\":null,\"p\":true},2]}",
	};
	for (size_t i = 0; i < sizeof(different) / sizeof(different[0]); i++) {
		cJSON *c = json(different[i]);
		assert_false(jtree_equal(a, c));
		assert_false(jtree_equal(c, a));
		cJSON_Delete(c);
	}
	cJSON *n1 = cJSON_CreateNumber(NAN), *n2 = cJSON_CreateNumber(NAN);
	assert_true(jtree_equal(n1, n2));
	assert_false(jtree_equal(n1, NULL));
	assert_true(jtree_equal(NULL, NULL));
	cJSON_Delete(n1);
	cJSON_Delete(n2);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void sha256_hashes_the_canonical_form(void **state)
{
	(void)state;
	char h1[65], h2[65], h3[65];
	cJSON *empty = json("{}");
	jtree_sha256_hex(empty, h1);
	/* sha256("{}") */
	assert_string_equal(h1, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
	cJSON *a = json("{\"b\":1.0,\"a\":[1,2]}");
	cJSON *b = json("{\"a\":[1,2],\"b\":1}");
	cJSON *c = json("{\"a\":[2,1],\"b\":1}");
	jtree_sha256_hex(a, h1);
	jtree_sha256_hex(b, h2);
	jtree_sha256_hex(c, h3);
	assert_string_equal(h1, h2);
	assert_string_not_equal(h1, h3);
	assert_int_equal(strlen(h1), 64);
	cJSON_Delete(empty);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_patch_follows_rfc7386_appendix_a),
		cmocka_unit_test(merge_patch_keeps_key_order_and_accepts_null_target),
		cmocka_unit_test(get_walks_dot_paths_and_indices),
		cmocka_unit_test(path_add_key_escapes_one_step),
		cmocka_unit_test(members_come_in_tree_or_key_order),
		cmocka_unit_test(equal_ignores_key_order_but_not_values),
		cmocka_unit_test(sha256_hashes_the_canonical_form),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
