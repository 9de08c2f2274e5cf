/*
 * fuzz_health.c - libFuzzer target for the health judge (lib/health/health.c),
 * the code Argo CD's view and `jaxjob launch`'s "is it finished?" rely on.
 *
 * Input: byte 0 picks where the rest (JSON) goes, so the fuzzer spends its
 * time on status content instead of rediscovering apiVersion/kind:
 *   0: the whole object;  1: `status` of a JAXJob;  2: `status.conditions`
 *   of a JAXJob;  3: `status` of a TrainJob;  4: `metadata` of a JAXJob
 *   with a Failed condition.
 * Contracts (health.h): never fails on a JAXJob/TrainJob, whatever the
 * status; lifecycle flags consistent (terminal == succeeded || failed,
 * failed beats succeeded, suspended only when not terminal); the same
 * verdict when judged again into a reused result.
 */
#include "fuzz_common.h"
#include "health/health.h"
#include "health_cmd.h"

static const char *const wrappers[] = {
	"%s",
	"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"metadata\":{\"name\":\"j\"},\"status\":%s}",
	"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},\"status\":{\"conditions\":%s}}",
	"{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\",\"metadata\":{\"generation\":2},\"status\":%s}",
	"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"metadata\":%s,\"status\":{\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\",\"reason\":\"r\"}]}}",
};

static void check_result(const struct health_result *r, int rc)
{
	if (r->kind == HEALTH_KIND_OTHER) {
		FUZZ_CHECK(rc == -1 && r->status == HEALTH_UNKNOWN, "other kinds are Unknown, rc -1");
		return;
	}
	FUZZ_CHECK(rc == 0, "judging a JAXJob/TrainJob failed");
	FUZZ_CHECK(r->status != HEALTH_UNKNOWN && r->status != HEALTH_MISSING,
		   "a JAXJob/TrainJob got %s", health_status_name(r->status));
	FUZZ_CHECK(r->terminal == (r->succeeded || r->failed), "terminal != succeeded || failed");
	FUZZ_CHECK(!(r->succeeded && r->failed), "both succeeded and failed");
	FUZZ_CHECK(!(r->suspended && r->terminal), "suspended and terminal");
	FUZZ_CHECK(r->message.len == strlen(r->message.data), "NUL inside the message");
	if (r->deleting)
		FUZZ_CHECK(r->status == HEALTH_PROGRESSING, "deleting but not Progressing");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0] % (sizeof(wrappers) / sizeof(wrappers[0]));
	char *text = fuzz_strndup(data + 1, size - 1);
	struct buf doc = BUF_INIT;
	buf_addf(&doc, wrappers[mode], text);
	free(text);
	cJSON *obj = cJSON_ParseWithLength(doc.data, doc.len);
	buf_free(&doc);
	if (!obj)
		return 0;
	struct health_result r = HEALTH_RESULT_INIT, again = HEALTH_RESULT_INIT;
	int rc = health_judge(obj, &r);
	check_result(&r, rc);
	/* reuse: judge something else into `again` first, then this object */
	cJSON *other = cJSON_Parse("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"status\":"
				   "{\"conditions\":[{\"type\":\"Succeeded\",\"status\":\"True\",\"message\":\"done\"}]}}");
	health_judge(other, &again);
	int rc2 = health_judge(obj, &again);
	FUZZ_CHECK(rc == rc2 && r.status == again.status && r.kind == again.kind &&
		   r.terminal == again.terminal && r.succeeded == again.succeeded &&
		   r.failed == again.failed && r.suspended == again.suspended &&
		   r.deleting == again.deleting && !strcmp(r.message.data, again.message.data),
		   "a reused result gives another verdict");
	FUZZ_CHECK(health_worst(r.status, HEALTH_HEALTHY) == r.status, "worst(x, Healthy) != x");
	int code = health_exit_code(r.status);
	FUZZ_CHECK(code >= 0 && code <= 6 && code != 2, "exit code %d", code);
	health_result_free(&r);
	health_result_free(&again);
	cJSON_Delete(other);
	cJSON_Delete(obj);
	return 0;
}
