/*
 * test_jaxjob.c - the JAXJob model: jaxjob_validate() rule by rule, the
 * accessors, and real manifests:
 *  - the upstream examples in $JAXJOB_TESTDATA/upstream-examples must
 *    validate and round-trip through yj (YAML and canonical JSON) unchanged;
 *  - every file listed in $JAXJOB_VALIDATE_FILES (':'-separated; set by
 *    tests/suites/25-crd-schema.sh for the manifests the CLI produced and
 *    the examples) must validate.
 * Both are skipped when their variable is empty.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "job/jaxjob.h"
#include "job/jobapi.h"
#include "yj/jtree.h"
#include "yj/yj.h"

static const char minimal[] =
	"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
	"\"metadata\":{\"name\":\"jaxjob-demo\",\"namespace\":\"team-a\"},"
	"\"spec\":{\"runPolicy\":{\"cleanPodPolicy\":\"None\",\"backoffLimit\":0},"
	"\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":2,\"restartPolicy\":\"Never\","
	"\"template\":{\"spec\":{\"containers\":[{\"name\":\"jax\",\"image\":\"img:1\","
	"\"command\":[\"python3\",\"train.py\"],"
	"\"ports\":[{\"name\":\"jaxjob-port\",\"containerPort\":6666}]}]}}}}}}";

/* Apply a merge-style edit: `path` is dot-separated, `json` the new value
 * ("DELETE" removes it). Returns the validation result, message in *e. */
static int check_with(const char *path, const char *json, struct err *e)
{
	cJSON *job = cJSON_Parse(minimal), *node = job;
	char *p = strdup(path), *save = NULL, *tok = strtok_r(p, ".", &save);
	for (;;) {
		char *next = strtok_r(NULL, ".", &save);
		if (!next) {
			cJSON_DeleteItemFromObjectCaseSensitive(node, tok);
			if (strcmp(json, "DELETE"))
				cJSON_AddItemToObject(node, tok, cJSON_Parse(json));
			break;
		}
		node = cJSON_IsArray(node) ? cJSON_GetArrayItem(node, atoi(tok))
					   : cJSON_GetObjectItemCaseSensitive(node, tok);
		assert_non_null(node);
		tok = next;
	}
	err_clear(e);
	int rc = jaxjob_validate(job, e);
	free(p);
	cJSON_Delete(job);
	return rc;
}

#define W "spec.jaxReplicaSpecs.Worker"
#define C W ".template.spec.containers.0"

static void the_minimal_job_of_the_reference_is_valid(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(check_with("metadata.name", "\"jaxjob-demo\"", &e), 0);
}

static const struct {
	const char *path, *json, *msg;
} bad[] = {
	{ "apiVersion", "\"kubeflow.org/v2\"", "apiVersion must be kubeflow.org/v1, got \"kubeflow.org/v2\"" },
	{ "kind", "\"TFJob\"", "kind must be JAXJob, got \"TFJob\"" },
	{ "metadata.name", "DELETE", "metadata.name is required" },
	{ "metadata.name", "\"Mnist\"", "metadata.name \"Mnist\" is not a valid name" },
	{ "metadata.name", "\"1mnist\"", "metadata.name \"1mnist\" is not a valid name" },
	{ "metadata.namespace", "\"Team\"", "metadata.namespace \"Team\" is not a valid name" },
	{ "metadata.labels", "{\"a\":\"x y\"}", "metadata.labels.a \"x y\" is not a valid label value" },
	{ "metadata.labels", "{\"a\":1}", "metadata.labels.a must be a string" },
	{ "spec.successPolicy", "{}", "spec.successPolicy is not a field of spec" },
	{ "spec.jaxReplicaSpecs", "DELETE", "spec.jaxReplicaSpecs is required" },
	{ "spec.jaxReplicaSpecs.worker", "{}", "spec.jaxReplicaSpecs.worker is not supported" },
	{ "spec.jaxReplicaSpecs.Master", "{}", "spec.jaxReplicaSpecs.Master is not supported" },
	{ W, "null", "spec.jaxReplicaSpecs.Worker must be a mapping, got null" },
	{ W ".replicas", "0", "spec.jaxReplicaSpecs.Worker.replicas must be at least 1, got 0" },
	{ W ".replicas", "-3", "spec.jaxReplicaSpecs.Worker.replicas must be at least 1, got -3" },
	{ W ".replicas", "2.5", "spec.jaxReplicaSpecs.Worker.replicas must be a whole number, got a fraction" },
	{ W ".replicas", "\"2\"", "spec.jaxReplicaSpecs.Worker.replicas must be a whole number, got a string" },
	{ W ".restartPolicy", "\"never\"", "spec.jaxReplicaSpecs.Worker.restartPolicy \"never\" is not valid; use one of Always, OnFailure, Never, ExitCode" },
	{ W ".replica", "1", "spec.jaxReplicaSpecs.Worker.replica is not a field of" },
	{ W ".template", "DELETE", "spec.jaxReplicaSpecs.Worker.template is required" },
	{ W ".template.spec.containers", "[]", "containers must have a container named jax" },
	{ C ".name", "\"main\"", "containers must have a container named jax" },
	{ C ".name", "DELETE", "containers[0].name is required" },
	{ C ".image", "DELETE", "containers[0].image is required (container jax)" },
	{ C ".image", "\"\"", "containers[0].image is required (container jax)" },
	{ C ".ports", "[{\"name\":\"p\"}]", "containers[0].ports[0].containerPort is required" },
	{ C ".ports", "[{\"containerPort\":70000}]", "containerPort must be at most 65535, got 70000" },
	{ C ".volumeMounts", "[{\"name\":\"data\",\"mountPath\":\"/d\"}]", "volumeMounts[0].name \"data\" names no volume of the pod" },
	{ C ".args", "[\"--steps\",1000]", "containers[0].args[1] must be a string, got a number" },
	{ C ".command", "\"python train.py\"", "containers[0].command must be a list, got a string" },
	{ C ".env", "[{\"name\":\"N\",\"value\":4}]", "containers[0].env[0].value (N) must be a string, got a number" },
	{ "spec.runPolicy.cleanPodPolicy", "\"Always\"", "spec.runPolicy.cleanPodPolicy \"Always\" is not valid; use one of All, Running, None" },
	{ "spec.runPolicy.ttlSecondsAfterFinished", "-1", "spec.runPolicy.ttlSecondsAfterFinished must be at least 0, got -1" },
	{ "spec.runPolicy.activeDeadlineSeconds", "0", "spec.runPolicy.activeDeadlineSeconds must be at least 1, got 0" },
	{ "spec.runPolicy.backoffLimit", "-1", "spec.runPolicy.backoffLimit must be at least 0, got -1" },
	{ "spec.runPolicy.suspend", "\"yes\"", "spec.runPolicy.suspend must be true or false, got a string" },
	{ "spec.runPolicy.cleanPodPolcy", "\"All\"", "spec.runPolicy.cleanPodPolcy is not a field of spec.runPolicy" },
	{ "spec.runPolicy.schedulingPolicy", "{\"minAvailable\":0}", "schedulingPolicy.minAvailable must be at least 1, got 0" },
	{ "spec.runPolicy.schedulingPolicy", "{\"queue\":5}", "schedulingPolicy.queue must be a string" },
};

static void each_rule_rejects_with_the_json_path(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (check_with(bad[i].path, bad[i].json, &e) != -1)
			fail_msg("%s = %s was accepted", bad[i].path, bad[i].json);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s = %s: got \"%s\", want \"%s\"", bad[i].path, bad[i].json,
				 e.msg, bad[i].msg);
		assert_int_equal(e.code, ERR_INPUT);
	}
}

/* {name}-worker-{N-1} must fit in 63: 54 chars for up to 10 workers. */
static void name_length_depends_on_the_worker_count(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	char name[80], json[96];
	memset(name, 'a', sizeof(name));
	name[54] = '\0';
	snprintf(json, sizeof(json), "\"%s\"", name);
	assert_int_equal(check_with("metadata.name", json, &e), 0);
	assert_int_equal(check_with(W ".replicas", "10", &e), 0);
	cJSON *job = cJSON_Parse(minimal);
	cJSON *md = cJSON_GetObjectItem(job, "metadata");
	cJSON_ReplaceItemInObject(md, "name", cJSON_CreateString(name));
	cJSON *w = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "spec"),
							     "jaxReplicaSpecs"), "Worker");
	cJSON_ReplaceItemInObject(w, "replicas", cJSON_CreateNumber(10));
	assert_int_equal(jaxjob_validate(job, &e), 0);
	cJSON_ReplaceItemInObject(w, "replicas", cJSON_CreateNumber(11));
	assert_int_equal(jaxjob_validate(job, &e), -1);
	assert_non_null(strstr(e.msg, "is too long for 11 workers"));
	assert_non_null(strstr(e.msg, "64 characters, the limit is 63; use at most 53"));
	name[60] = '\0';
	memset(name, 'b', 60);
	cJSON_ReplaceItemInObject(md, "name", cJSON_CreateString(name));
	cJSON_DeleteItemFromObject(w, "replicas");	/* operator default: 1 */
	assert_int_equal(jaxjob_validate(job, &e), -1);
	assert_non_null(strstr(e.msg, "is too long for 1 worker:"));
	cJSON_Delete(job);
}

static void status_is_ignored_and_accessors_read_the_job(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *job = cJSON_Parse(minimal);
	cJSON_AddItemToObject(job, "status", cJSON_Parse("{\"conditions\":[{\"type\":\"Created\"}]}"));
	assert_int_equal(jaxjob_validate(job, &e), 0);
	assert_string_equal(jaxjob_name(job), "jaxjob-demo");
	assert_string_equal(jaxjob_namespace(job), "team-a");
	assert_int_equal(jaxjob_workers(job), 2);
	assert_string_equal(cJSON_GetObjectItem(jaxjob_container(job), "image")->valuestring, "img:1");
	struct buf b = BUF_INIT;
	jaxjob_worker_name("mnist", 3, &b);
	assert_string_equal(b.data, "mnist-worker-3");
	buf_free(&b);
	cJSON_Delete(job);
	cJSON *empty = cJSON_CreateObject();
	assert_null(jaxjob_name(empty));
	assert_int_equal(jaxjob_workers(empty), -1);
	assert_null(jaxjob_container(empty));
	assert_int_equal(jaxjob_validate(empty, &e), -1);
	cJSON_Delete(empty);
}

/* Validate every document of `path`; with `roundtrip`, also yj round-trips. */
static void check_file(const char *path, int roundtrip)
{
	struct err e = ERR_INIT;
	struct buf text = BUF_INIT, out = BUF_INIT;
	cJSON *docs = NULL, *doc;
	if (buf_read_file(&text, path, YJ_MAX_INPUT, &e) < 0 || yj_parse_stream(text.data, text.len, path, &docs, &e) < 0)
		fail_msg("%s: %s", path, e.msg);
	assert_true(cJSON_GetArraySize(docs) > 0);
	cJSON_ArrayForEach(doc, docs) {
		if (jaxjob_validate(doc, &e) < 0)
			fail_msg("%s: %s", path, e.msg);
		if (!roundtrip)
			continue;
		cJSON *back = NULL;
		buf_reset(&out);
		assert_int_equal(yj_emit(doc, YJ_SORT_KEYS, &out, &e), 0);
		assert_int_equal(yj_parse_one(out.data, out.len, "emitted", &back, &e), 0);
		assert_true(jtree_equal(doc, back));
		cJSON_Delete(back);
		buf_reset(&out);
		jtree_json_canonical(doc, &out);
		back = cJSON_Parse(out.data);
		assert_non_null(back);
		assert_true(jtree_equal(doc, back));
		cJSON_Delete(back);
	}
	cJSON_Delete(docs);
	buf_free(&text);
	buf_free(&out);
}

static void upstream_examples_validate_and_round_trip(void **state)
{
	(void)state;
	const char *data = getenv("JAXJOB_TESTDATA");
	if (!data || !*data)
		skip();
	static const char *const depth[] = { "/*.yaml", "/*/*.yaml", "/*/*/*.yaml", "/*/*/*/*.yaml" };
	glob_t g;
	memset(&g, 0, sizeof(g));
	for (size_t i = 0; i < 4; i++) {
		char pat[4096];
		snprintf(pat, sizeof(pat), "%s/upstream-examples%s", data, depth[i]);
		glob(pat, i ? GLOB_APPEND : 0, NULL, &g);
	}
	assert_true(g.gl_pathc >= 2);
	for (size_t i = 0; i < g.gl_pathc; i++)
		check_file(g.gl_pathv[i], 1);
	globfree(&g);
}

static void listed_manifests_validate(void **state)
{
	(void)state;
	const char *list = getenv("JAXJOB_VALIDATE_FILES");
	assert_non_null(list);
	char *copy = strdup(list), *save = NULL;
	int n = 0;
	for (char *f = strtok_r(copy, ":", &save); f; f = strtok_r(NULL, ":", &save), n++)
		check_file(f, 1);
	free(copy);
	assert_true(n > 0);
}

/* Each API names its operator's creation failures; the other's are not its own. */
static void creation_failures_are_the_apis(void **state)
{
	(void)state;
	assert_true(jobapi_creation_failure(&JOBAPI_JAXJOB, "FailedCreatePod"));
	assert_true(jobapi_creation_failure(&JOBAPI_JAXJOB, "FailedCreateService"));
	assert_false(jobapi_creation_failure(&JOBAPI_JAXJOB, "TrainJobResourcesCreationFailed"));
	assert_true(jobapi_creation_failure(&JOBAPI_TRAINJOB, "TrainJobResourcesCreationFailed"));
	assert_false(jobapi_creation_failure(&JOBAPI_TRAINJOB, "FailedCreatePod"));
	assert_false(jobapi_creation_failure(&JOBAPI_JAXJOB, "BackOff"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_minimal_job_of_the_reference_is_valid),
		cmocka_unit_test(each_rule_rejects_with_the_json_path),
		cmocka_unit_test(name_length_depends_on_the_worker_count),
		cmocka_unit_test(status_is_ignored_and_accessors_read_the_job),
		cmocka_unit_test(upstream_examples_validate_and_round_trip),
	};
	/* JAXJOB_VALIDATE_FILES=f1:f2 (set by the suites that produce manifests) runs
	 * only the check of those files, so its exit status is the verdict and
	 * the plain unit run has no test that always skips. */
	const struct CMUnitTest listed[] = {
		cmocka_unit_test(listed_manifests_validate),
		cmocka_unit_test(creation_failures_are_the_apis),
	};
	const char *list = getenv("JAXJOB_VALIDATE_FILES");
	if (list)	/* set but empty: a suite produced nothing, which fails */
		return cmocka_run_group_tests(listed, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
