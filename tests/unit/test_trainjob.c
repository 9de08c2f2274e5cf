/*
 * test_trainjob.c - the TrainJob model and the per-API descriptors:
 *  - trainjob_validate() rule by rule (each CRD rule and the JobSet
 *    pod-name limit), the accessors, trainjob_tidy();
 *  - lib/job/jobapi.h: lookup by name and by object, refused parameters in both
 *    directions, pod selectors, suspend patches, name budgets, built-in
 *    templates;
 *  - the TrainJob status samples in tests/status-samples
 *    validate (skipped without it), and every file in
 *    $JAXJOB_TRAINJOB_FILES (':'-separated; set by
 *    tests/suites/21-trainjob-dry-run.sh for what the CLI produced) does.
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

#include "job/jobapi.h"
#include "job/jobparams.h"
#include "yj/jtree.h"
#include "job/trainjob.h"
#include "yj/yj.h"

/* jaxjob-api.md §8.6 */
static const char minimal[] =
	"{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\","
	"\"metadata\":{\"name\":\"jax-demo\",\"namespace\":\"team-a\"},"
	"\"spec\":{\"runtimeRef\":{\"name\":\"jax-distributed\"},"
	"\"trainer\":{\"numNodes\":2,\"image\":\"nvcr.io/nvidia/jax:25.10-py3\","
	"\"command\":[\"python3\",\"/app/train.py\"],"
	"\"resourcesPerNode\":{\"limits\":{\"nvidia.com/gpu\":1}}}}}";

/* Validate `minimal` with a JSON merge patch applied; message in *e. */
static int check_patched(const char *patch_json, struct err *e)
{
	cJSON *job = cJSON_Parse(minimal), *patch = cJSON_Parse(patch_json);
	assert_non_null(patch);
	jtree_merge_patch(&job, patch);
	err_clear(e);
	int rc = trainjob_validate(job, e);
	cJSON_Delete(patch);
	cJSON_Delete(job);
	return rc;
}

static void the_minimal_job_of_the_reference_is_valid(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(check_patched("{}", &e), 0);
	/* what the server adds on the way back validates too */
	assert_int_equal(check_patched("{\"spec\":{\"managedBy\":\"kueue.x-k8s.io/multikueue\","
				       "\"suspend\":false,\"runtimeRef\":{\"apiGroup\":"
				       "\"trainer.kubeflow.org\",\"kind\":\"TrainingRuntime\"},"
				       "\"runtimePatches\":[{\"manager\":\"a\",\"time\":\"x\"},"
				       "{\"manager\":\"b\",\"trainingRuntimeSpec\":{}}]},"
				       "\"status\":{\"conditions\":7}}", &e), 0);
}

static void each_rule_rejects_with_the_json_path(void **state)
{
	(void)state;
	static const struct { const char *patch, *want; } cases[] = {
		{ "{\"apiVersion\":\"kubeflow.org/v1\"}", "apiVersion must be trainer.kubeflow.org/v1alpha1, got \"kubeflow.org/v1\"" },
		{ "{\"kind\":\"JAXJob\"}", "kind must be TrainJob" },
		{ "{\"metadata\":{\"name\":\"Jax\"}}", "metadata.name \"Jax\"" },
		{ "{\"metadata\":{\"name\":\"1jax\"}}", "metadata.name \"1jax\"" },
		{ "{\"metadata\":{\"namespace\":\"Team\"}}", "metadata.namespace" },
		{ "{\"metadata\":{\"labels\":{\"a\":\"b c\"}}}", "metadata.labels.a" },
		{ "{\"spec\":{\"runtimeRef\":null}}", "spec.runtimeRef is required" },
		{ "{\"spec\":{\"runtimeRef\":{\"name\":null}}}", "spec.runtimeRef.name is required" },
		{ "{\"spec\":{\"runtimeRef\":{\"name\":\"\"}}}", "spec.runtimeRef.name must not be empty" },
		{ "{\"spec\":{\"runtimeRef\":{\"kind\":\"Runtime\"}}}", "spec.runtimeRef.kind \"Runtime\" is not valid; use one of ClusterTrainingRuntime, TrainingRuntime" },
		{ "{\"spec\":{\"runtimeRef\":{\"apiGroup\":\"kubeflow.org\"}}}", "spec.runtimeRef.apiGroup" },
		{ "{\"spec\":{\"runtimeRef\":{\"version\":\"v1\"}}}", "spec.runtimeRef.version is not a field of spec.runtimeRef" },
		{ "{\"spec\":{\"trainer\":{\"numNodes\":0}}}", "spec.trainer.numNodes must be at least 1, got 0" },
		{ "{\"spec\":{\"trainer\":{\"numNodes\":2147483648}}}", "spec.trainer.numNodes must be at most 2147483647" },
		{ "{\"spec\":{\"trainer\":{\"numNodes\":\"2\"}}}", "spec.trainer.numNodes must be a whole number, got a string" },
		{ "{\"spec\":{\"trainer\":{\"numProcPerNode\":0}}}", "spec.trainer.numProcPerNode must be at least 1" },
		{ "{\"spec\":{\"trainer\":{\"image\":\"\"}}}", "spec.trainer.image must not be empty" },
		{ "{\"spec\":{\"trainer\":{\"command\":[\"a\",1]}}}", "spec.trainer.command[1] must be a string, got a number" },
		{ "{\"spec\":{\"trainer\":{\"args\":\"--x\"}}}", "spec.trainer.args must be a list, got a string" },
		{ "{\"spec\":{\"trainer\":{\"env\":[{\"name\":\"A\",\"value\":1}]}}}", "spec.trainer.env[0].value (A) must be a string" },
		{ "{\"spec\":{\"trainer\":{\"resourcesPerNode\":{\"limit\":{}}}}}", "spec.trainer.resourcesPerNode.limit is not a field" },
		{ "{\"spec\":{\"trainer\":{\"resourcesPerNode\":{\"limits\":{\"cpu\":[]}}}}}", "spec.trainer.resourcesPerNode.limits.cpu must be a quantity" },
		{ "{\"spec\":{\"trainer\":{\"replicas\":2}}}", "spec.trainer.replicas is not a field of spec.trainer" },
		{ "{\"spec\":{\"suspend\":\"true\"}}", "spec.suspend must be true or false, got a string" },
		{ "{\"spec\":{\"activeDeadlineSeconds\":0}}", "spec.activeDeadlineSeconds must be at least 1, got 0" },
		{ "{\"spec\":{\"managedBy\":\"me\"}}", "spec.managedBy \"me\" is not valid" },
		{ "{\"spec\":{\"runPolicy\":{}}}", "spec.runPolicy is not a field of spec" },
		{ "{\"spec\":{\"initializer\":{\"data\":{}}}}", "spec.initializer.data is not a field" },
		{ "{\"spec\":{\"runtimePatches\":{}}}", "spec.runtimePatches must be a list" },
		{ "{\"spec\":{\"runtimePatches\":[{}]}}", "spec.runtimePatches[0].manager is required" },
		{ "{\"spec\":{\"runtimePatches\":[{\"manager\":\"\"}]}}", "spec.runtimePatches[0].manager must not be empty" },
		{ "{\"spec\":{\"runtimePatches\":[{\"manager\":\"a\"},{\"manager\":\"a\"}]}}", "spec.runtimePatches[1].manager \"a\" appears twice" },
		{ "{\"spec\":{\"runtimePatches\":[{\"manager\":\"a\",\"spec\":{}}]}}", "spec.runtimePatches[0].spec is not a field" },
	};
	struct err e = ERR_INIT;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = check_patched(cases[i].patch, &e);
		if (rc != -1 || !strstr(e.msg, cases[i].want))
			fail_msg("patch %s: rc=%d msg=\"%s\", want \"%s\"", cases[i].patch, rc, e.msg,
				 cases[i].want);
		assert_int_equal(e.code, ERR_INPUT);
	}
}

static void limits_are_the_crd_limits(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	struct buf p = BUF_INIT;
	/* 500 characters of image, 128 items: accepted; one more: refused */
	for (int extra = 0; extra <= 1; extra++) {
		buf_reset(&p);
		buf_addf(&p, "{\"spec\":{\"trainer\":{\"image\":\"%0*d\"}}}", 500 + extra, 0);
		assert_int_equal(check_patched(p.data, &e), extra ? -1 : 0);
		buf_reset(&p);
		buf_adds(&p, "{\"spec\":{\"trainer\":{\"args\":[");
		for (int i = 0; i < 128 + extra; i++)
			buf_addf(&p, "%s\"a\"", i ? "," : "");
		buf_adds(&p, "]}}}");
		assert_int_equal(check_patched(p.data, &e), extra ? -1 : 0);
		if (extra)
			assert_non_null(strstr(e.msg, "spec.trainer.args must have at most 128 items, got 129"));
		buf_reset(&p);
		buf_adds(&p, "{\"spec\":{\"runtimePatches\":[");
		for (int i = 0; i < 16 + extra; i++)
			buf_addf(&p, "%s{\"manager\":\"m%d\"}", i ? "," : "", i);
		buf_adds(&p, "]}}");
		assert_int_equal(check_patched(p.data, &e), extra ? -1 : 0);
		buf_reset(&p);
		buf_addf(&p, "{\"spec\":{\"runtimeRef\":{\"name\":\"%0*d\"}}}", 253 + extra, 0);
		assert_int_equal(check_patched(p.data, &e), extra ? -1 : 0);
	}
	buf_free(&p);
}

/* {name}-node-0-{N-1}-xxxxx must fit in 63 characters (the JobSet webhook). */
static void name_length_depends_on_the_node_count(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	struct buf p = BUF_INIT;
	static const struct { int nodes, max; } cases[] = {
		{ 1, 48 }, { 10, 48 }, { 11, 47 }, { 100, 47 }, { 101, 46 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int len = cases[i].max; len <= cases[i].max + 1; len++) {
			buf_reset(&p);
			buf_addf(&p, "{\"metadata\":{\"name\":\"j%0*d\"},\"spec\":{\"trainer\":"
				 "{\"numNodes\":%d}}}", len - 1, 0, cases[i].nodes);
			int rc = check_patched(p.data, &e);
			if (rc != (len > cases[i].max ? -1 : 0))
				fail_msg("%d nodes, name of %d: rc=%d %s", cases[i].nodes, len, rc, e.msg);
		}
		assert_non_null(strstr(e.msg, "the limit is 63"));
		char want[64];
		snprintf(want, sizeof(want), "use at most %d characters", cases[i].max);
		assert_non_null(strstr(e.msg, want));
		assert_int_equal(jobapi_name_budget(&JOBAPI_TRAINJOB, cases[i].nodes), cases[i].max);
	}
	/* unset numNodes: the runtime's 1 */
	assert_int_equal(check_patched("{\"metadata\":{\"name\":\"a23456789012345678901234567890123456789012345678\"},"
				       "\"spec\":{\"trainer\":{\"numNodes\":null}}}", &e), 0);
	buf_free(&p);
}

static void accessors_read_the_job(void **state)
{
	(void)state;
	cJSON *job = cJSON_Parse(minimal);
	struct buf b = BUF_INIT;
	assert_string_equal(trainjob_runtime_name(job), "jax-distributed");
	assert_string_equal(trainjob_runtime_kind(job), "ClusterTrainingRuntime");
	assert_int_equal(trainjob_nodes(job), 2);
	trainjob_node_name("jax-demo", 1, &b);
	assert_string_equal(b.data, "jax-demo-node-0-1");
	cJSON_Delete(job);
	job = cJSON_Parse("{\"spec\":{\"runtimeRef\":{\"kind\":\"TrainingRuntime\"}}}");
	assert_null(trainjob_runtime_name(job));
	assert_string_equal(trainjob_runtime_kind(job), "TrainingRuntime");
	assert_int_equal(trainjob_nodes(job), 1);
	cJSON_Delete(job);
	buf_free(&b);
}

/* Render the built-in TrainJob template with flag-style parameters, tidied. */
static cJSON *render(const char *const *flags)
{
	cJSON *params = cJSON_CreateObject(), *tmpl = NULL, *job = NULL;
	struct err e = ERR_INIT;
	for (; *flags; flags += 2)
		assert_int_equal(jobparams_set_text(params, jobparams_find(flags[0]), flags[1], &e), 0);
	assert_int_equal(jobapi_template(&JOBAPI_TRAINJOB, NULL, &tmpl, NULL, &e), 0);
	if (jobparams_render(tmpl, params, "t", NULL, &job, &e))
		fail_msg("%s", e.msg);
	trainjob_tidy(job);
	if (trainjob_validate(job, &e))
		fail_msg("%s", e.msg);
	cJSON_Delete(tmpl);
	cJSON_Delete(params);
	return job;
}

static const cJSON *at(const cJSON *o, const char *path)
{
	char *p = strdup(path), *save = NULL;
	for (char *k = strtok_r(p, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k))
				     : cJSON_GetObjectItemCaseSensitive(o, k);
	free(p);
	return o;
}

#define POD "spec.runtimePatches.0.trainingRuntimeSpec.template.spec.replicatedJobs.0.template.spec.template"

static void tidy_drops_a_patch_that_names_only(void **state)
{
	(void)state;
	static const char *const none[] = { "name", "j", NULL };
	static const char *const vols[] = { "name", "j", "volumes", "shm=emptydir",
					    "image-pull-secrets", "reg", NULL };
	static const char *const mounts[] = { "name", "j", "volumes", "d=pvc:c",
					      "volume-mounts", "d:/d", NULL };
	cJSON *job = render(none);
	assert_null(at(job, "spec.runtimePatches"));
	assert_int_equal((int)at(job, "spec.trainer.numNodes")->valuedouble, 1);
	cJSON_Delete(job);

	/* volumes stay with their written-empty emptyDir; the name-only container goes */
	job = render(vols);
	assert_string_equal(at(job, "spec.runtimePatches.0.manager")->valuestring, TRAINJOB_PATCH_MANAGER);
	assert_string_equal(at(job, "spec.runtimePatches.0.trainingRuntimeSpec.template.spec.replicatedJobs.0.name")->valuestring, "node");
	assert_true(cJSON_IsObject(at(job, POD ".spec.volumes.0.emptyDir")));
	assert_string_equal(at(job, POD ".spec.imagePullSecrets.0.name")->valuestring, "reg");
	assert_null(at(job, POD ".spec.containers"));
	assert_null(at(job, POD ".metadata"));
	cJSON_Delete(job);

	job = render(mounts);
	assert_string_equal(at(job, POD ".spec.containers.0.name")->valuestring, "node");
	assert_string_equal(at(job, POD ".spec.containers.0.volumeMounts.0.mountPath")->valuestring, "/d");
	cJSON_Delete(job);

	/* someone else's entry is theirs, even when it holds nothing */
	job = cJSON_Parse("{\"spec\":{\"runtimePatches\":[{\"manager\":\"kueue\"},"
			  "{\"manager\":\"jaxjob.dev/params\",\"trainingRuntimeSpec\":{\"template\":"
			  "{\"spec\":{\"replicatedJobs\":[{\"name\":\"node\"}]}}}}]}}");
	trainjob_tidy(job);
	assert_int_equal(cJSON_GetArraySize(at(job, "spec.runtimePatches")), 1);
	assert_string_equal(at(job, "spec.runtimePatches.0.manager")->valuestring, "kueue");
	cJSON_Delete(job);
}

static void the_apis_are_data(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	cJSON *o = cJSON_Parse("{\"apiVersion\":\"trainer.kubeflow.org/v2\",\"kind\":\"TrainJob\"}");
	assert_ptr_equal(jobapi_find("trainjob"), &JOBAPI_TRAINJOB);
	assert_ptr_equal(jobapi_find("jaxjob"), &JOBAPI_JAXJOB);
	assert_null(jobapi_find("auto"));
	assert_null(jobapi_find(NULL));
	assert_ptr_equal(jobapi_of(o), &JOBAPI_TRAINJOB);
	cJSON_Delete(o);
	o = cJSON_Parse("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\"}");
	assert_ptr_equal(jobapi_of(o), &JOBAPI_JAXJOB);
	cJSON_Delete(o);
	o = cJSON_Parse("{\"apiVersion\":\"kubeflow.orgx/v1\",\"kind\":\"JAXJob\"}");
	assert_null(jobapi_of(o));
	cJSON_Delete(o);

	jobapi_pod_selector(&JOBAPI_TRAINJOB, "j", &b);
	assert_string_equal(b.data, "jobset.sigs.k8s.io/jobset-name=j,"
			    "jobset.sigs.k8s.io/replicatedjob-name=node");
	buf_reset(&b);
	jobapi_pod_selector(&JOBAPI_JAXJOB, "j", &b);
	assert_string_equal(b.data, "training.kubeflow.org/job-name=j");
	assert_string_equal(JOBAPI_TRAINJOB.container, "node");
	assert_string_equal(JOBAPI_TRAINJOB.pod_index_label, "batch.kubernetes.io/job-completion-index");

	cJSON *p = jobapi_suspend_patch(&JOBAPI_TRAINJOB, 1);
	char *s = cJSON_PrintUnformatted(p);
	assert_string_equal(s, "{\"spec\":{\"suspend\":true}}");
	assert_true(cJSON_IsTrue(jobapi_suspend_flag(&JOBAPI_TRAINJOB, p)));
	assert_null(jobapi_suspend_flag(&JOBAPI_JAXJOB, p));
	free(s);
	cJSON_Delete(p);
	p = jobapi_suspend_patch(&JOBAPI_JAXJOB, 0);
	s = cJSON_PrintUnformatted(p);
	assert_string_equal(s, "{\"spec\":{\"runPolicy\":{\"suspend\":false}}}");
	free(s);
	cJSON_Delete(p);
	/* JAXJob: the Service {name}-worker-{N-1} */
	assert_int_equal(jobapi_name_budget(&JOBAPI_JAXJOB, 10), 54);
	assert_int_equal(jobapi_name_budget(&JOBAPI_JAXJOB, 11), 53);
	buf_free(&b);
}

/* Who counts the workers is the handler's answer, never a guess from the status. */
static void worker_counts_are_asked_of_the_api(void **state)
{
	(void)state;
	struct jobapi_workers w;
	cJSON *o = cJSON_Parse("{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\","
			       "\"spec\":{\"trainer\":{\"numNodes\":3}},"
			       "\"status\":{\"jobsStatus\":[{\"name\":\"node\",\"active\":1}]}}");
	assert_int_equal(jobapi_worker_counts(o, &w), 0);	/* its status counts Jobs */
	assert_int_equal(w.replicas, 3);
	assert_int_equal(w.active + w.succeeded + w.failed, 0);
	cJSON_Delete(o);

	o = cJSON_Parse("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
			"\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{}}},\"status\":{}}");
	assert_int_equal(jobapi_worker_counts(o, &w), 0);	/* no counts yet */
	assert_int_equal(w.replicas, 1);			/* the operator's default */
	cJSON_Delete(o);

	o = cJSON_Parse("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
			"\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},"
			"\"status\":{\"replicaStatuses\":{\"Worker\":{\"active\":2,\"failed\":1}}}}");
	assert_int_equal(jobapi_worker_counts(o, &w), 1);
	assert_int_equal(w.replicas, 4);
	assert_int_equal(w.active, 2);
	assert_int_equal(w.failed, 1);
	assert_int_equal(w.succeeded, 0);
	cJSON_Delete(o);

	o = cJSON_Parse("{\"kind\":\"Pod\",\"status\":{\"replicaStatuses\":{}}}");
	assert_int_equal(jobapi_worker_counts(o, &w), 0);
	assert_int_equal(w.replicas, 0);
	cJSON_Delete(o);
}

static void parameters_without_a_place_are_refused_with_the_reason(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	cJSON *params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "image", "i");
	cJSON_AddNumberToObject(params, "workers", 2);
	assert_int_equal(jobapi_check_params(&JOBAPI_TRAINJOB, params, &e), 0);
	assert_int_equal(jobapi_check_params(&JOBAPI_JAXJOB, params, &e), 0);
	cJSON_AddStringToObject(params, "restart-policy", "OnFailure");
	assert_int_equal(jobapi_check_params(&JOBAPI_TRAINJOB, params, &e), -1);
	assert_string_equal(e.msg, "restart-policy is not supported for a TrainJob: a TrainJob has "
			    "no restart policy: the runtime's Job template and JobSet failure "
			    "policy decide, and a failed pod is replaced, not restarted; remove "
			    "it, or use api jaxjob");
	assert_int_equal(jobapi_check_params(&JOBAPI_JAXJOB, params, &e), 0);
	cJSON_Delete(params);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "runtime", "jax-distributed");
	assert_int_equal(jobapi_check_params(&JOBAPI_JAXJOB, params, &e), -1);
	assert_non_null(strstr(e.msg, "runtime is not supported for a JAXJob"));
	assert_non_null(strstr(e.msg, "use api trainjob"));
	cJSON_Delete(params);
	/* every refusal names a real parameter, and each is placed by the other API's template */
	const struct jobapi *apis[] = { &JOBAPI_JAXJOB, &JOBAPI_TRAINJOB };
	for (int a = 0; a < 2; a++) {
		cJSON *tmpl = NULL;
		struct buf text = BUF_INIT;
		assert_int_equal(jobapi_template(apis[1 - a], NULL, &tmpl, NULL, &e), 0);
		yj_emit(tmpl, 0, &text, &e);
		for (const struct jobapi_refusal *r = apis[a]->refused; r->param; r++) {
			char ph[80];
			assert_non_null(jobparams_find(r->param));
			snprintf(ph, sizeof(ph), "((%s", r->param);
			if (!strstr(text.data, ph))
				fail_msg("%s is refused by %s but not placed by %s", r->param,
					 apis[a]->name, apis[1 - a]->tmpl);
		}
		buf_free(&text);
		cJSON_Delete(tmpl);
	}
}

static void check_file(const char *path)
{
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *docs = NULL, *d;
	if (buf_read_file(&text, path, YJ_MAX_INPUT, &e) || yj_parse_stream(text.data, text.len, path, &docs, &e))
		fail_msg("%s: %s", path, e.msg);
	assert_true(cJSON_GetArraySize(docs) > 0);
	cJSON_ArrayForEach(d, docs)
		if (trainjob_validate(d, &e))
			fail_msg("%s: %s", path, e.msg);
	cJSON_Delete(docs);
	buf_free(&text);
}

static void status_samples_validate(void **state)
{
	(void)state;
	glob_t g;
	/* run from the top of the checkout (tests/suites/10-unit.sh) */
	assert_int_equal(glob("tests/status-samples/trainjob-*.yaml", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 5);
	for (size_t i = 0; i < g.gl_pathc; i++)
		check_file(g.gl_pathv[i]);
	globfree(&g);
}

static void listed_manifests_validate(void **state)
{
	(void)state;
	const char *list = getenv("JAXJOB_TRAINJOB_FILES");
	assert_non_null(list);
	char *copy = strdup(list), *save = NULL;
	int n = 0;
	for (char *f = strtok_r(copy, ":", &save); f; f = strtok_r(NULL, ":", &save), n++)
		check_file(f);
	free(copy);
	assert_true(n > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_minimal_job_of_the_reference_is_valid),
		cmocka_unit_test(each_rule_rejects_with_the_json_path),
		cmocka_unit_test(limits_are_the_crd_limits),
		cmocka_unit_test(name_length_depends_on_the_node_count),
		cmocka_unit_test(accessors_read_the_job),
		cmocka_unit_test(tidy_drops_a_patch_that_names_only),
		cmocka_unit_test(the_apis_are_data),
		cmocka_unit_test(worker_counts_are_asked_of_the_api),
		cmocka_unit_test(parameters_without_a_place_are_refused_with_the_reason),
		cmocka_unit_test(status_samples_validate),
	};
	/* JAXJOB_TRAINJOB_FILES=f1:f2 (set by the suites that produce manifests) runs
	 * only the check of those files, so its exit status is the verdict and
	 * the plain unit run has no test that always skips. */
	const struct CMUnitTest listed[] = {
		cmocka_unit_test(listed_manifests_validate),
	};
	const char *list = getenv("JAXJOB_TRAINJOB_FILES");
	if (list)	/* set but empty: a suite produced nothing, which fails */
		return cmocka_run_group_tests(listed, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
