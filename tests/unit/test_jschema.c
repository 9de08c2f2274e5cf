/* test_jschema.c - schema tables: unknown fields, types, bounds, table order decides. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "yj/jschema.h"

static const char *const colours[] = { "red", "blue", NULL };

static int even(const char *path, const cJSON *v, struct err *e)
{
	if (v && (!cJSON_IsNumber(v) || (long long)v->valuedouble % 2))
		return err_set(e, ERR_INPUT, "%s must be even", path);
	return 0;
}

static const struct jschema_field inner[] = {
	{ .name = "n", .type = JS_INT, .min = 1, .max = 9 },
	{ .name = NULL },
};

static const struct jschema_field outer[] = {
	{ .name = "colour", .type = JS_ENUM, .choices = colours },
	{ .name = "on", .type = JS_BOOL },
	{ .name = "name", .type = JS_STRING, .min = 1, .max = 4 },
	{ .name = "inner", .type = JS_MAP, .fields = inner },
	{ .name = "pair", .type = JS_FN, .fn = even },
	{ .name = "free", .type = JS_ANY },
	{ .name = NULL },
};

static int check(const char *json, int required, struct err *e)
{
	cJSON *v = json ? cJSON_Parse(json) : NULL;
	err_clear(e);
	int rc = jschema_check("spec", v, required, outer, e);
	cJSON_Delete(v);
	return rc;
}

static void tables_check_types_bounds_and_fields(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(check("{\"colour\":\"red\",\"on\":true,\"name\":\"ab\",\"inner\":{\"n\":3},"
			       "\"pair\":4,\"free\":[1,{}]}", 1, &e), 0);
	assert_int_equal(check(NULL, 0, &e), 0);
	assert_int_equal(check(NULL, 1, &e), -1);
	assert_string_equal(e.msg, "spec is required");
	assert_int_equal(check("[]", 0, &e), -1);
	assert_string_equal(e.msg, "spec must be a mapping, got a list");
	assert_int_equal(check("{\"colur\":\"red\"}", 0, &e), -1);
	assert_string_equal(e.msg, "spec.colur is not a field of spec");
	assert_int_equal(check("{\"inner\":{\"n\":10}}", 0, &e), -1);
	assert_string_equal(e.msg, "spec.inner.n must be at most 9, got 10");
	assert_int_equal(check("{\"on\":\"yes\"}", 0, &e), -1);
	assert_string_equal(e.msg, "spec.on must be true or false, got a string");
	assert_int_equal(check("{\"pair\":3}", 0, &e), -1);
	assert_string_equal(e.msg, "spec.pair must be even");
	assert_int_equal(check("{\"name\":\"toolong\"}", 0, &e), -1);
	assert_non_null(strstr(e.msg, "spec.name"));
}

static void the_table_order_decides_which_error_is_reported(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	/* written in the other order, but colour comes first in the table */
	assert_int_equal(check("{\"inner\":{\"n\":0},\"colour\":\"green\"}", 0, &e), -1);
	assert_string_equal(e.msg, "spec.colour \"green\" is not valid; use one of red, blue");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_check_types_bounds_and_fields),
		cmocka_unit_test(the_table_order_decides_which_error_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
