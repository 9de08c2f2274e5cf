/*
 * test_health.c - the C health judge beyond the shared vectors: the
 * lifecycle flags `jaxjob launch` relies on, kind dispatch, result reuse, the
 * status order and exit codes, and garbage of every type in every field.
 * (Status and message of each scenario are pinned by the health_test.yaml
 * vectors under health-checks/, run by tests/suites/40-health-vectors.sh.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "health/health.h"
#include "health-checks/health_cmd.h"

static cJSON *parse(const char *json)
{
	cJSON *o = cJSON_Parse(json);
	assert_non_null(o);
	return o;
}

#define JAX(status) "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\"," \
	"\"metadata\":{\"name\":\"j\",\"namespace\":\"ns\"}," \
	"\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},\"status\":" status "}"
#define COND(type, st) "{\"type\":\"" type "\",\"status\":\"" st "\",\"message\":\"" type " " st "\"}"
#define TJ(meta, status) "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\"," \
	"\"metadata\":{\"name\":\"t\"" meta "},\"status\":" status "}"

struct flags {
	enum health_status status;
	bool terminal, succeeded, failed, suspended, deleting;
};

static void check(const char *json, struct flags want, const char *msg)
{
	struct health_result r = HEALTH_RESULT_INIT;
	cJSON *o = parse(json);

	assert_int_equal(health_judge(o, &r), 0);
	assert_string_equal(health_status_name(r.status), health_status_name(want.status));
	assert_int_equal(r.terminal, want.terminal);
	assert_int_equal(r.succeeded, want.succeeded);
	assert_int_equal(r.failed, want.failed);
	assert_int_equal(r.suspended, want.suspended);
	assert_int_equal(r.deleting, want.deleting);
	if (msg)
		assert_string_equal(r.message.data, msg);
	health_result_free(&r);
	cJSON_Delete(o);
}

static void finished_jobs_are_terminal_and_say_how(void **state)
{
	(void)state;
	check(JAX("{\"conditions\":[" COND("Created", "True") "," COND("Running", "False") ","
		  COND("Succeeded", "True") "]}"),
	      (struct flags){ HEALTH_HEALTHY, true, true, false, false, false }, "Succeeded True");
	check(JAX("{\"conditions\":[" COND("Created", "True") "," COND("Failed", "True") "]}"),
	      (struct flags){ HEALTH_DEGRADED, true, false, true, false, false }, "Failed True");
	/* both terminal conditions: failed wins, never "succeeded and failed" */
	check(JAX("{\"conditions\":[" COND("Succeeded", "True") "," COND("Failed", "True") "]}"),
	      (struct flags){ HEALTH_DEGRADED, true, false, true, false, false }, NULL);
	/* suspended after finishing: finished, not suspended */
	check(JAX("{\"conditions\":[" COND("Succeeded", "True") "," COND("Suspended", "True") "]}"),
	      (struct flags){ HEALTH_HEALTHY, true, true, false, false, false }, NULL);
}

static void suspended_and_running_jobs_are_not_terminal(void **state)
{
	(void)state;
	check(JAX("{\"conditions\":[" COND("Created", "True") "," COND("Suspended", "True") "]}"),
	      (struct flags){ HEALTH_SUSPENDED, false, false, false, true, false }, "Suspended True");
	check(JAX("{\"conditions\":[" COND("Suspended", "False") "," COND("Running", "True") "],"
		  "\"replicaStatuses\":{\"Worker\":{\"active\":3}}}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "3/4 workers active");
	check(JAX("{\"conditions\":[" COND("Restarting", "True") "]}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "Restarting True");
	check(JAX("null"), (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "Waiting for JAXJob to be accepted by the training operator");
}

static void a_deleted_job_is_progressing_but_keeps_its_outcome(void **state)
{
	(void)state;
	/* Argo CD shows "Pending deletion"; launch still learns it failed. */
	check("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
	      "\"metadata\":{\"name\":\"j\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
	      "\"status\":{\"conditions\":[" COND("Failed", "True") "]}}",
	      (struct flags){ HEALTH_PROGRESSING, true, false, true, false, true }, "Pending deletion");
	/* deletionTimestamp: null is no deletion (null is nil in Lua) */
	check("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
	      "\"metadata\":{\"deletionTimestamp\":null},\"status\":{\"conditions\":[" COND("Failed", "True") "]}}",
	      (struct flags){ HEALTH_DEGRADED, true, false, true, false, false }, "Failed True");
}

static void trainjob_lifecycle(void **state)
{
	(void)state;
	check(TJ("", "{\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\",\"message\":\"done\"}]}"),
	      (struct flags){ HEALTH_HEALTHY, true, true, false, false, false }, "done");
	check(TJ("", "{\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\",\"reason\":\"FailedJobs\"}]}"),
	      (struct flags){ HEALTH_DEGRADED, true, false, true, false, false }, "FailedJobs");
	/* creation failed: Degraded in Argo CD, but the controller retries */
	check(TJ("", "{\"conditions\":[{\"type\":\"Created\",\"status\":\"False\",\"reason\":\"JobsCreationFailed\"}]}"),
	      (struct flags){ HEALTH_DEGRADED, false, false, false, false, false }, "JobsCreationFailed");
	/* resume not observed yet: the stale Suspended=True is not reported */
	check(TJ(",\"generation\":5", "{\"conditions\":[{\"type\":\"Suspended\",\"status\":\"True\","
		 "\"observedGeneration\":4}]}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, true, false },
	      "Waiting for the Trainer controller to observe generation 5 (observed 4)");
	check(TJ(",\"generation\":5", "{\"conditions\":[{\"type\":\"Suspended\",\"status\":\"True\","
		 "\"observedGeneration\":5}]}"),
	      (struct flags){ HEALTH_SUSPENDED, false, false, false, true, false }, "TrainJob is suspended");
}

static void other_kinds_are_unknown_with_a_clear_message(void **state)
{
	(void)state;
	struct health_result r = HEALTH_RESULT_INIT;
	const char *cases[] = {
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"}}",
		/* right kind, wrong group: not our JAXJob */
		"{\"apiVersion\":\"example.com/v1\",\"kind\":\"JAXJob\"}",
		"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TrainJob\"}",
		"{\"kind\":\"JAXJob\"}",
		"{}",
		"[1,2]",
		"\"JAXJob\"",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *o = parse(cases[i]);
		assert_int_equal(health_judge(o, &r), -1);
		assert_int_equal(r.status, HEALTH_UNKNOWN);
		assert_int_equal(r.kind, HEALTH_KIND_OTHER);
		assert_false(r.terminal);
		assert_true(r.message.len > 0);
		cJSON_Delete(o);
	}
	assert_int_equal(health_judge(NULL, &r), -1);
	assert_string_equal(r.message.data, "not a Kubernetes object");
	cJSON *o = parse(cases[0]);
	health_judge(o, &r);
	assert_non_null(strstr(r.message.data, "no health check for Deployment (apiVersion apps/v1)"));
	cJSON_Delete(o);
	health_result_free(&r);
}

static void a_result_can_be_reused(void **state)
{
	(void)state;
	struct health_result r = HEALTH_RESULT_INIT;
	cJSON *failed = parse(JAX("{\"conditions\":[" COND("Failed", "True") "]}"));
	cJSON *running = parse(JAX("{\"conditions\":[" COND("Running", "True") "]}"));

	health_judge(failed, &r);
	assert_true(r.terminal);
	health_judge(running, &r);
	assert_false(r.terminal);
	assert_false(r.failed);
	assert_int_equal(r.kind, HEALTH_KIND_JAXJOB);
	/* replaced, not appended; no Worker status: the condition's message */
	assert_string_equal(r.message.data, "Running True");
	cJSON_Delete(failed);
	cJSON_Delete(running);
	health_result_free(&r);
}

static void counts_are_trusted_only_as_int32(void **state)
{
	(void)state;
	check(JAX("{\"conditions\":[" COND("Running", "True") "],"
		  "\"replicaStatuses\":{\"Worker\":{\"active\":2147483647}}}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "2147483647/4 workers active");
	check(JAX("{\"conditions\":[" COND("Running", "True") "],"
		  "\"replicaStatuses\":{\"Worker\":{\"active\":2147483648}}}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "0/4 workers active");
	check(JAX("{\"conditions\":[" COND("Running", "True") "],"
		  "\"replicaStatuses\":{\"Worker\":{\"active\":1.5}}}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "0/4 workers active");
	check(JAX("{\"conditions\":[" COND("Running", "True") "],"
		  "\"replicaStatuses\":{\"Worker\":{\"active\":-1e300}}}"),
	      (struct flags){ HEALTH_PROGRESSING, false, false, false, false, false },
	      "0/4 workers active");
}

/*
 * Replace every value of a full object, one at a time, by every JSON type,
 * and judge each mutant: never a crash, a leak or a sanitizer report, and
 * always a verdict with a message.
 */
static const char *const garbage[] = { "null", "true", "0", "-7", "1e308", "\"\"",
				       "\"True\"", "[]", "{}", "[null,1,\"x\",[],{}]" };

static void judge_every_mutant(cJSON *root, cJSON *node, int *judged)
{
	cJSON *child;

	cJSON_ArrayForEach(child, node) {
		for (size_t g = 0; g < sizeof(garbage) / sizeof(garbage[0]); g++) {
			struct health_result r = HEALTH_RESULT_INIT;
			cJSON *copy = cJSON_Duplicate(child, 1), *bad = cJSON_Parse(garbage[g]);
			assert_non_null(bad);
			assert_true(cJSON_ReplaceItemViaPointer(node, child, bad));
			health_judge(root, &r);
			assert_true(r.message.len > 0);
			health_result_free(&r);
			assert_true(cJSON_ReplaceItemViaPointer(node, bad, copy));
			child = copy;
			(*judged)++;
		}
		judge_every_mutant(root, child, judged);
	}
}

static void garbage_anywhere_never_breaks_the_judge(void **state)
{
	(void)state;
	const char *full[] = {
		"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
		"\"metadata\":{\"name\":\"j\",\"generation\":2,\"deletionTimestamp\":\"x\"},"
		"\"spec\":{\"runPolicy\":{\"suspend\":true},\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":2}}},"
		"\"status\":{\"conditions\":[" COND("Created", "True") "," COND("Running", "True") ","
		COND("Restarting", "True") "," COND("Suspended", "True") "," COND("Succeeded", "True") ","
		COND("Failed", "True") "],\"replicaStatuses\":{\"Worker\":{\"active\":1}}}}",
		"{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\","
		"\"metadata\":{\"name\":\"t\",\"generation\":2},"
		"\"status\":{\"conditions\":[{\"type\":\"Created\",\"status\":\"False\",\"reason\":\"JobsBuildFailed\","
		"\"observedGeneration\":1},{\"type\":\"Suspended\",\"status\":\"True\"},"
		"{\"type\":\"Complete\",\"status\":\"True\"},{\"type\":\"Failed\",\"status\":\"True\"}],"
		"\"jobsStatus\":[{\"name\":\"node\",\"active\":1}]}}",
	};
	for (size_t i = 0; i < 2; i++) {
		int judged = 0;
		cJSON *o = parse(full[i]);
		judge_every_mutant(o, o, &judged);
		assert_true(judged > 200);
		cJSON_Delete(o);
	}
}

static void statuses_order_like_argo_cd_and_map_to_exit_codes(void **state)
{
	(void)state;
	assert_int_equal(health_worst(HEALTH_HEALTHY, HEALTH_SUSPENDED), HEALTH_SUSPENDED);
	assert_int_equal(health_worst(HEALTH_PROGRESSING, HEALTH_SUSPENDED), HEALTH_PROGRESSING);
	assert_int_equal(health_worst(HEALTH_DEGRADED, HEALTH_PROGRESSING), HEALTH_DEGRADED);
	assert_int_equal(health_worst(HEALTH_DEGRADED, HEALTH_UNKNOWN), HEALTH_UNKNOWN);
	assert_int_equal(health_exit_code(HEALTH_HEALTHY), 0);
	assert_int_equal(health_exit_code(HEALTH_DEGRADED), 1);
	assert_int_equal(health_exit_code(HEALTH_PROGRESSING), 3);
	assert_int_equal(health_exit_code(HEALTH_SUSPENDED), 4);
	assert_int_equal(health_exit_code(HEALTH_UNKNOWN), 5);
	assert_int_equal(health_exit_code(HEALTH_MISSING), 6);
	assert_string_equal(health_status_name(HEALTH_PROGRESSING), "Progressing");
	assert_string_equal(health_status_name(HEALTH_MISSING), "Missing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finished_jobs_are_terminal_and_say_how),
		cmocka_unit_test(suspended_and_running_jobs_are_not_terminal),
		cmocka_unit_test(a_deleted_job_is_progressing_but_keeps_its_outcome),
		cmocka_unit_test(trainjob_lifecycle),
		cmocka_unit_test(other_kinds_are_unknown_with_a_clear_message),
		cmocka_unit_test(a_result_can_be_reused),
		cmocka_unit_test(counts_are_trusted_only_as_int32),
		cmocka_unit_test(garbage_anywhere_never_breaks_the_judge),
		cmocka_unit_test(statuses_order_like_argo_cd_and_map_to_exit_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
