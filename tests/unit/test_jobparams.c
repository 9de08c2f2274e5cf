/* test_jobparams.c - the parameter vocabulary: table, text and typed values,
 * derived template values, and the value checkers behind them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "job/jobparams.h"
#include "yj/jtree.h"
#include "k8sname.h"
#include "quantity.h"
#include "job/tmpl.h"

static void assert_json(const cJSON *got, const char *want)
{
	cJSON *w = cJSON_Parse(want);
	assert_non_null(w);
	if (!jtree_equal(got, w)) {
		char *g = cJSON_PrintUnformatted(got);
		fail_msg("got %s, want %s", g, want);
	}
	cJSON_Delete(w);
}

/* Set `name` from text; returns rc, error in *e. */
static int set(cJSON *params, const char *name, const char *text, struct err *e)
{
	const struct jobparam *p = jobparams_find(name);
	assert_non_null(p);
	return jobparams_set_text(params, p, text, e);
}

static void table_is_complete_and_consistent(void **state)
{
	(void)state;
	int n = 0;
	for (const struct jobparam *p = jobparams_all(); p->name; p++, n++) {
		char ph[TMPL_NAME_MAX + 8], got[TMPL_NAME_MAX + 1];
		int opt;
		assert_non_null(p->flag);
		assert_non_null(p->help);
		assert_non_null(p->group);
		assert_non_null(p->metavar);
		snprintf(ph, sizeof(ph), "((%s))", p->name);
		assert_true(tmpl_is_placeholder(ph, got, &opt));
		for (const char *c = p->name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || *c == '-');
		assert_ptr_equal(jobparams_find(p->name), p);
		assert_ptr_equal(jobparams_find_flag(p->flag), p);
		if (p->type == JP_ENUM)
			assert_non_null(p->choices);
		if (p->type == JP_MAP)
			assert_true(p->check && p->check_key);
		if (p->type == JP_STRING || p->type == JP_LIST)
			assert_non_null(p->check);
		if (p->type == JP_OBJLIST)
			assert_true(p->item_text && p->item_check);
	}
	/* issue #2 item 5: everything a pipeline author sets */
	static const char *const must[] = {
		"name", "namespace", "labels", "annotations", "image", "command", "args", "env",
		"workers", "restart-policy", "cpu", "memory", "gpus-per-worker", "gpu-resource",
		"extended-resources", "node-selector", "tolerations", "service-account",
		"image-pull-secrets", "volumes", "volume-mounts", "clean-pod-policy",
		"ttl-seconds-after-finished", "active-deadline-seconds", "backoff-limit", "queue",
		"local-queue",
		"min-available", "priority-class", "schedule-timeout-seconds", "suspend",
		"coordinator-port", "image-pull-policy", NULL
	};
	for (int i = 0; must[i]; i++)
		assert_non_null(jobparams_find(must[i]));
	assert_true(n >= 32);
}

static void ints_are_parsed_and_range_checked(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(set(p, "workers", "4", &e), 0);
	assert_json(p, "{\"workers\":4}");
	assert_int_equal(set(p, "workers", "0", &e), -1);
	assert_string_equal(e.msg, "workers must be at least 1, got 0");
	assert_int_equal(set(p, "workers", "four", &e), -1);
	assert_string_equal(e.msg, "workers must be a whole number, got \"four\"");
	assert_int_equal(set(p, "coordinator-port", "70000", &e), -1);
	assert_string_equal(e.msg, "coordinator-port must be at most 65535, got 70000");
	assert_int_equal(set(p, "workers", "", &e), 0);	/* empty unsets */
	assert_json(p, "{}");
	cJSON_Delete(p);
}

static void quantities_follow_kubernetes(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	double v = 0;
	static const char *const good[] = { "4", "500m", "16Gi", "1.5", ".5", "1e3", "1E", "2Ki", "0", NULL };
	for (int i = 0; good[i]; i++)
		assert_int_equal(quantity_parse("memory", good[i], NULL, &e), 0);
	assert_int_equal(quantity_parse("memory", "16Gi", &v, &e), 0);
	assert_true(v == 16.0 * 1024 * 1024 * 1024);
	assert_int_equal(quantity_parse("cpu", "500m", &v, &e), 0);
	assert_true(v > 0.49 && v < 0.51);
	assert_int_equal(quantity_parse("memory", "4 GB", NULL, &e), -1);
	assert_string_equal(e.msg, "memory \"4 GB\" is not a Kubernetes quantity; write 4G or 4Gi");
	assert_int_equal(quantity_parse("memory", "4gb", NULL, &e), -1);
	assert_non_null(strstr(e.msg, "write 4G or 4Gi"));
	assert_int_equal(quantity_parse("memory", "-1", NULL, &e), -1);
	assert_non_null(strstr(e.msg, "negative"));
	assert_int_equal(quantity_parse("memory", "lots", NULL, &e), -1);
	assert_int_equal(quantity_parse("memory", "1Gib2", NULL, &e), -1);
	assert_int_equal(quantity_parse("memory", "", NULL, &e), -1);
}

static void names_follow_kubernetes(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(k8s_check_dns1035("name", "mnist-1", &e), 0);
	assert_int_equal(k8s_check_dns1035("name", "1mnist", &e), -1);
	assert_int_equal(k8s_check_dns1035("name", "Mnist", &e), -1);
	assert_int_equal(k8s_check_dns1035("name", "mnist-", &e), -1);
	assert_int_equal(k8s_check_dns1123_label("namespace", "1team", &e), 0);
	assert_int_equal(k8s_check_subdomain("sa", "a.b-c.d", &e), 0);
	assert_int_equal(k8s_check_subdomain("sa", "a..b", &e), -1);
	assert_int_equal(k8s_check_qualified_name("key", "app.kubernetes.io/name", &e), 0);
	assert_int_equal(k8s_check_qualified_name("key", "Team_A.x", &e), 0);
	assert_int_equal(k8s_check_qualified_name("key", "/x", &e), -1);
	assert_int_equal(k8s_check_qualified_name("key", "a/b/c", &e), -1);
	assert_int_equal(k8s_check_label_value("v", "", &e), 0);
	assert_int_equal(k8s_check_label_value("v", "x\nkind: Secret", &e), -1);
	char long_name[70];
	memset(long_name, 'a', 64);
	long_name[64] = '\0';
	assert_int_equal(k8s_check_dns1035("name", long_name, &e), -1);
	assert_non_null(strstr(e.msg, "is 64 characters; the limit is 63"));
}

static void env_repeats_replace_by_name_and_accept_json(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(set(p, "env", "A=1", &e), 0);
	assert_int_equal(set(p, "env", "B=x=y", &e), 0);
	assert_int_equal(set(p, "env", "A=3", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "env"),
		    "[{\"name\":\"A\",\"value\":\"3\"},{\"name\":\"B\",\"value\":\"x=y\"}]");
	assert_int_equal(set(p, "env", "FOO", &e), -1);
	assert_non_null(strstr(e.msg, "env \"FOO\" has no '='"));
	assert_int_equal(set(p, "env", "{\"X\":\"1\",\"N\":2}", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "env"),
		    "[{\"name\":\"X\",\"value\":\"1\"},{\"name\":\"N\",\"value\":\"2\"}]");
	assert_int_equal(set(p, "env", "[{\"name\":\"P\",\"valueFrom\":{\"fieldRef\":"
			 "{\"fieldPath\":\"metadata.name\"}}}]", &e), 0);
	assert_int_equal(set(p, "env", "[{\"name\":\"P\",\"value\":\"1\",\"valueFrom\":{}}]", &e), -1);
	assert_int_equal(set(p, "env", "[{\"name\":\"P\",\"valu\":\"1\"}]", &e), -1);
	assert_non_null(strstr(e.msg, "unknown field \"valu\""));
	assert_int_equal(set(p, "env", "[{\"name\":\"P\"},{\"name\":\"P\"}]", &e), -1);
	assert_int_equal(set(p, "env", "1X=2", &e), -1);
	assert_int_equal(set(p, "env", "[1,", &e), -1);
	assert_non_null(strstr(e.msg, "env:"));
	cJSON_Delete(p);
}

static void maps_merge_keys_and_check_them(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(set(p, "labels", "team=ml", &e), 0);
	assert_int_equal(set(p, "labels", "app.kubernetes.io/part-of=x", &e), 0);
	assert_int_equal(set(p, "labels", "team=nlp", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "labels"),
		    "{\"team\":\"nlp\",\"app.kubernetes.io/part-of\":\"x\"}");
	assert_int_equal(set(p, "labels", "bad key=x", &e), -1);
	assert_int_equal(set(p, "labels", "k=x\nkind: Secret", &e), -1);
	assert_int_equal(set(p, "labels", "novalue", &e), -1);
	assert_int_equal(set(p, "annotations", "note=any text: here", &e), 0);
	assert_int_equal(set(p, "node-selector", "{\"pool\":\"gpu\"}", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "node-selector"), "{\"pool\":\"gpu\"}");
	assert_int_equal(set(p, "extended-resources", "example.com/fpga=2", &e), 0);
	assert_int_equal(set(p, "extended-resources", "fpga=2", &e), -1);
	assert_non_null(strstr(e.msg, "domain prefix"));
	assert_int_equal(set(p, "extended-resources", "example.com/fpga=0.5", &e), -1);
	assert_int_equal(set(p, "extended-resources", "memory=1", &e), -1);
	cJSON_Delete(p);
}

static void tolerations_take_the_kubectl_forms(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(set(p, "tolerations", "gpu=true:NoSchedule", &e), 0);
	assert_int_equal(set(p, "tolerations", "dedicated:NoExecute", &e), 0);
	assert_int_equal(set(p, "tolerations", "spot=yes", &e), 0);
	assert_int_equal(set(p, "tolerations", "example.com/any", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "tolerations"),
		    "[{\"key\":\"gpu\",\"operator\":\"Equal\",\"value\":\"true\",\"effect\":\"NoSchedule\"},"
		    "{\"key\":\"dedicated\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"},"
		    "{\"key\":\"spot\",\"operator\":\"Equal\",\"value\":\"yes\"},"
		    "{\"key\":\"example.com/any\",\"operator\":\"Exists\"}]");
	assert_int_equal(set(p, "tolerations", "gpu=true:NoScheduel", &e), -1);
	assert_non_null(strstr(e.msg, "effect \"NoScheduel\""));
	assert_int_equal(set(p, "tolerations", ":NoSchedule", &e), -1);
	assert_int_equal(set(p, "tolerations", "[{\"operator\":\"Exists\"}]", &e), 0);
	assert_int_equal(set(p, "tolerations", "[{\"key\":\"a\",\"operator\":\"Exists\",\"value\":\"x\"}]", &e), -1);
	cJSON_Delete(p);
}

static void volumes_and_mounts_from_short_forms(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(set(p, "volumes", "data=pvc:claim-1", &e), 0);
	assert_int_equal(set(p, "volumes", "shm=emptydir:Memory", &e), 0);
	assert_int_equal(set(p, "volumes", "tmp=emptydir", &e), 0);
	assert_int_equal(set(p, "volumes", "cfg=configmap:c", &e), 0);
	assert_int_equal(set(p, "volumes", "key=secret:s", &e), 0);
	assert_int_equal(set(p, "volumes", "host=hostpath:/data", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "volumes"),
		    "[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"claim-1\"}},"
		    "{\"name\":\"shm\",\"emptyDir\":{\"medium\":\"Memory\"}},"
		    "{\"name\":\"tmp\",\"emptyDir\":{}},"
		    "{\"name\":\"cfg\",\"configMap\":{\"name\":\"c\"}},"
		    "{\"name\":\"key\",\"secret\":{\"secretName\":\"s\"}},"
		    "{\"name\":\"host\",\"hostPath\":{\"path\":\"/data\"}}]");
	assert_int_equal(set(p, "volumes", "data=nfs:x", &e), -1);
	assert_int_equal(set(p, "volumes", "data=pvc", &e), -1);
	assert_int_equal(set(p, "volumes", "Data=pvc:x", &e), -1);
	assert_int_equal(set(p, "volume-mounts", "data:/data:ro", &e), 0);
	assert_int_equal(set(p, "volume-mounts", "shm:/dev/shm", &e), 0);
	assert_json(cJSON_GetObjectItem(p, "volume-mounts"),
		    "[{\"name\":\"data\",\"mountPath\":\"/data\",\"readOnly\":true},"
		    "{\"name\":\"shm\",\"mountPath\":\"/dev/shm\"}]");
	assert_int_equal(set(p, "volume-mounts", "data:relative", &e), -1);
	assert_int_equal(set(p, "volume-mounts", "data:/x:rx", &e), -1);
	assert_int_equal(set(p, "volume-mounts", "data", &e), -1);
	cJSON_Delete(p);
}

static void typed_values_from_job_files(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	cJSON *v = cJSON_Parse("{\"workers\":\"4\",\"args\":[\"--steps\",100,true],"
			       "\"suspend\":true,\"cpu\":2,\"labels\":{\"a\":\"b\",\"n\":1},"
			       "\"env\":{\"A\":1}}");
	const cJSON *it;
	cJSON_ArrayForEach(it, v)
		assert_int_equal(jobparams_set_value(p, jobparams_find(it->string), it, &e), 0);
	assert_json(p, "{\"workers\":4,\"args\":[\"--steps\",\"100\",\"true\"],\"suspend\":true,"
		    "\"cpu\":\"2\",\"labels\":{\"a\":\"b\",\"n\":\"1\"},"
		    "\"env\":[{\"name\":\"A\",\"value\":\"1\"}]}");
	cJSON *bad = cJSON_Parse("{\"workers\":4.5,\"command\":{\"a\":1},\"labels\":[1],\"suspend\":[]}");
	cJSON_ArrayForEach(it, bad)
		assert_int_equal(jobparams_set_value(p, jobparams_find(it->string), it, &e), -1);
	assert_string_equal(e.msg, "suspend must be true or false, got a list");
	cJSON *null = cJSON_CreateNull();
	assert_int_equal(jobparams_set_value(p, jobparams_find("workers"), null, &e), 0);
	assert_null(cJSON_GetObjectItem(p, "workers"));
	cJSON_Delete(null);
	cJSON_Delete(bad);
	cJSON_Delete(v);
	cJSON_Delete(p);
}

static void user_params_are_strings_or_typed_json(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject();
	assert_int_equal(jobparams_set_user(p, "dataset=gs://b/d", &e), 0);
	assert_int_equal(jobparams_set_user(p, "steps:=1000", &e), 0);
	assert_int_equal(jobparams_set_user(p, "tags:=[\"a\"]", &e), 0);
	assert_int_equal(jobparams_set_user(p, "ver=1.10", &e), 0);
	assert_json(p, "{\"dataset\":\"gs://b/d\",\"steps\":1000,\"tags\":[\"a\"],\"ver\":\"1.10\"}");
	assert_int_equal(jobparams_set_user(p, "image=x", &e), -1);
	assert_non_null(strstr(e.msg, "built-in parameter; set it with --image"));
	assert_int_equal(jobparams_set_user(p, "1x=y", &e), -1);
	assert_int_equal(jobparams_set_user(p, "novalue", &e), -1);
	assert_int_equal(jobparams_set_user(p, "j:={bad", &e), -1);
	char deep[400];
	memset(deep, '[', 200);
	memset(deep + 200, ']', 199);
	deep[399] = '\0';
	assert_int_equal(jobparams_set_user(p, "d:=[[]]", &e), 0);
	assert_int_equal(jobparams_set_user_value(p, "e", cJSON_GetObjectItem(p, "d"), &e), 0);
	char arg[420];
	snprintf(arg, sizeof(arg), "d:=%s]", deep);
	assert_int_equal(jobparams_set_user(p, arg, &e), -1);	/* deeper than yj allows */
	assert_non_null(strstr(e.msg, "nesting deeper"));
	cJSON_DeleteItemFromObject(p, "d");
	cJSON_DeleteItemFromObject(p, "e");
	cJSON_Delete(p);
}

static void values_have_defaults_nulls_and_derived_shapes(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject(), *v = NULL;
	assert_int_equal(jobparams_values(p, &v, &e), 0);
	assert_json(cJSON_GetObjectItem(v, "workers"), "1");
	assert_json(cJSON_GetObjectItem(v, "restart-policy"), "\"Never\"");
	assert_json(cJSON_GetObjectItem(v, "coordinator-port"), "6666");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(v, "image")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(v, "resources")));
	cJSON_Delete(v);
	assert_int_equal(set(p, "cpu", "4", &e), 0);
	assert_int_equal(set(p, "memory", "16Gi", &e), 0);
	assert_int_equal(set(p, "gpus-per-worker", "2", &e), 0);
	assert_int_equal(set(p, "gpu-resource", "amd.com/gpu", &e), 0);
	assert_int_equal(set(p, "extended-resources", "example.com/fpga=1", &e), 0);
	assert_int_equal(set(p, "image-pull-secrets", "reg", &e), 0);
	assert_int_equal(jobparams_set_user(p, "mine=x", &e), 0);
	assert_int_equal(jobparams_values(p, &v, &e), 0);
	const char *req = "{\"cpu\":\"4\",\"memory\":\"16Gi\",\"amd.com/gpu\":2,\"example.com/fpga\":\"1\"}";
	assert_json(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "resources"), "requests"), req);
	assert_json(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "resources"), "limits"), req);
	assert_json(cJSON_GetObjectItem(v, "image-pull-secrets"), "[{\"name\":\"reg\"}]");
	assert_json(cJSON_GetObjectItem(v, "mine"), "\"x\"");
	cJSON_Delete(v);
	assert_int_equal(set(p, "gpus-per-worker", "0", &e), 0);
	assert_int_equal(set(p, "extended-resources", "amd.com/gpu=1", &e), 0);
	assert_int_equal(jobparams_values(p, &v, &e), 0);
	cJSON_Delete(v);
	assert_int_equal(set(p, "gpus-per-worker", "1", &e), 0);
	assert_int_equal(jobparams_values(p, &v, &e), -1);
	assert_non_null(strstr(e.msg, "amd.com/gpu"));
	cJSON_Delete(p);
}

static void a_parameter_the_template_ignores_is_an_error(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject(), *used = cJSON_CreateObject();
	assert_int_equal(set(p, "cpu", "1", &e), 0);
	assert_int_equal(jobparams_check_used(p, used, "my.yaml", &e), -1);
	assert_string_equal(e.msg, "cpu is set, but my.yaml uses neither ((cpu)) nor "
			    "((resources)), so it would be ignored");
	cJSON_AddTrueToObject(used, "resources");
	assert_int_equal(jobparams_check_used(p, used, "my.yaml", &e), 0);
	assert_int_equal(jobparams_set_user(p, "steps=1", &e), 0);
	assert_int_equal(jobparams_check_used(p, used, "my.yaml", &e), -1);
	assert_non_null(strstr(e.msg, "param steps is set, but my.yaml has no ((steps))"));
	cJSON_Delete(used);
	cJSON_Delete(p);
}

static void render_the_default_template(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *p = cJSON_CreateObject(), *tmpl = NULL, *job = NULL;
	const char *source;
	assert_int_equal(tmpl_load(NULL, &tmpl, &source, &e), 0);
	assert_int_equal(set(p, "name", "mnist", &e), 0);
	assert_int_equal(jobparams_render(tmpl, p, source, NULL, &job, &e), -1);
	assert_non_null(strstr(e.msg, "missing required parameter image"));
	assert_null(job);
	assert_int_equal(set(p, "image", "ghcr.io/x/jax:1", &e), 0);
	assert_int_equal(set(p, "workers", "4", &e), 0);
	assert_int_equal(jobparams_render(tmpl, p, source, NULL, &job, &e), 0);
	assert_json(job, "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
		    "\"metadata\":{\"name\":\"mnist\"},\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":"
		    "{\"replicas\":4,\"restartPolicy\":\"Never\",\"template\":{\"spec\":{\"containers\":"
		    "[{\"name\":\"jax\",\"image\":\"ghcr.io/x/jax:1\",\"ports\":[{\"name\":\"jaxjob-port\","
		    "\"containerPort\":6666}]}]}}}}}}");
	cJSON_Delete(job);
	cJSON_Delete(tmpl);
	cJSON_Delete(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_is_complete_and_consistent),
		cmocka_unit_test(ints_are_parsed_and_range_checked),
		cmocka_unit_test(quantities_follow_kubernetes),
		cmocka_unit_test(names_follow_kubernetes),
		cmocka_unit_test(env_repeats_replace_by_name_and_accept_json),
		cmocka_unit_test(maps_merge_keys_and_check_them),
		cmocka_unit_test(tolerations_take_the_kubectl_forms),
		cmocka_unit_test(volumes_and_mounts_from_short_forms),
		cmocka_unit_test(typed_values_from_job_files),
		cmocka_unit_test(user_params_are_strings_or_typed_json),
		cmocka_unit_test(values_have_defaults_nulls_and_derived_shapes),
		cmocka_unit_test(a_parameter_the_template_ignores_is_an_error),
		cmocka_unit_test(render_the_default_template),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
