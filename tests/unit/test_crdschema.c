/*
 * test_crdschema.c - the compiled-in CRD schemas (lib/job/crdschema.c and the
 * tables scripts/gen-crdschema.py writes into lib/job/crdschema_data.c): the
 * tables keep the promises the walk relies on, and a few checks that need
 * a table feature each (binary search of fields, a list-map key's default,
 * a pattern, a CEL rule) still give the API server's verdict.
 * The full corpus, proved against a real kube-apiserver, is
 * tests/suites/73-crd-corpus.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <regex.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "job/crdschema.h"
#include "job/crdschema_data.h"
#include "err.h"
#include "yj/yj.h"

/* Every node reachable from `s`: fields sorted (strcmp, no duplicates), indices in range. */
static void check_node(const struct crdschema_node *s, int depth)
{
	assert_true(depth < 64);
	assert_true(s->type <= CRD_NUMBER);
	assert_true(s->pattern >= -1 && s->pattern < (int)crdschema_n_patterns);
	for (size_t i = 0; i < s->n_props; i++) {
		if (i)
			assert_true(strcmp(s->props[i - 1].name, s->props[i].name) < 0);
		check_node(s->props[i].schema, depth + 1);
	}
	if (s->flags & CRD_LIST_MAP)
		assert_true(s->n_map_keys > 0 && s->items);
	for (size_t i = 0; i < s->n_rules; i++)
		assert_true(s->rules[i].match >= -1 && s->rules[i].match < (int)crdschema_n_patterns);
	if (s->items)
		check_node(s->items, depth + 1);
	if (s->addl)
		check_node(s->addl, depth + 1);
}

static void tables_are_sorted_and_every_pattern_compiles(void **state)
{
	(void)state;
	int n = 0;
	for (const struct crdschema_src *src = crdschema_srcs; src->kind; src++, n++)
		check_node(src->root, 0);
	assert_int_equal(n, 2);	/* JAXJob, TrainJob */
	for (size_t i = 0; i < crdschema_n_patterns; i++) {
		regex_t r;
		assert_int_equal(regcomp(&r, crdschema_patterns[i], REG_EXTENDED | REG_NOSUB), 0);
		regfree(&r);
	}
}

#define JOB_HEAD "apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: t}\n" \
	"spec:\n  jaxReplicaSpecs:\n    Worker:\n      replicas: 2\n      template:\n" \
	"        spec:\n          containers:\n          - name: jax\n            image: i:1\n"

/* 0, or -1 with the message in e */
static int validate(const char *yaml, struct err *e)
{
	cJSON *doc = NULL;
	err_clear(e);
	assert_int_equal(yj_parse_one(yaml, strlen(yaml), "t.yaml", &doc, e), 0);
	int rc = crdschema_validate(doc, e);
	cJSON_Delete(doc);
	return rc;
}

static void a_valid_job_passes_and_a_close_typo_is_named(void **state)
{
	(void)state;
	struct err e;
	assert_int_equal(validate(JOB_HEAD, &e), 0);
	assert_int_equal(validate(JOB_HEAD "            imagePullPolicey: Always\n", &e), -1);
	assert_string_equal(e.msg, "spec.jaxReplicaSpecs.Worker.template.spec.containers[0].imagePullPolicey "
			    "is not a field of spec.jaxReplicaSpecs.Worker.template.spec.containers[0]; did you "
			    "mean imagePullPolicy? (the API server would drop it silently)");
}

static void a_list_map_key_left_out_counts_as_its_default(void **state)
{
	(void)state;
	struct err e;
	/* ports are a list-map keyed by containerPort and protocol; protocol defaults to TCP */
	assert_int_equal(validate(JOB_HEAD "            ports:\n            - {containerPort: 80, protocol: TCP}\n"
				  "            - {containerPort: 80}\n", &e), -1);
	assert_non_null(strstr(e.msg, "containers[0].ports[1] has the same containerPort, protocol as item 0"));
	assert_int_equal(validate(JOB_HEAD "            ports:\n            - {containerPort: 80, protocol: UDP}\n"
				  "            - {containerPort: 80}\n", &e), 0);
}

static void a_pattern_and_a_cel_rule_are_applied(void **state)
{
	(void)state;
	struct err e;
	assert_int_equal(validate(JOB_HEAD "            resources: {limits: {memory: 4 GB}}\n", &e), -1);
	assert_non_null(strstr(e.msg, "resources.limits.memory \"4 GB\" is not a quantity"));
	assert_int_equal(validate("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
				  "metadata: {name: 9lives}\nspec: {runtimeRef: {name: torch}}\n", &e), -1);
	assert_string_equal(e.msg, "metadata.name \"9lives\": metadata.name must match RFC 1035 DNS label "
			    "format (a rule of the CRD)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_are_sorted_and_every_pattern_compiles),
		cmocka_unit_test(a_valid_job_passes_and_a_close_typo_is_named),
		cmocka_unit_test(a_list_map_key_left_out_counts_as_its_default),
		cmocka_unit_test(a_pattern_and_a_cel_rule_are_applied),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
