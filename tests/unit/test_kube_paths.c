/* test_kube_paths.c - REST paths, queries and request builders of the kube client. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "kube/kube_client.h"

static void paths_for_custom_core_and_cluster_resources(void **state)
{
	(void)state;
	static const struct kube_resource ns = { "", "v1", "namespaces", "Namespace", 0 };
	struct buf p = BUF_INIT;
	kube_path(&p, &KUBE_JAXJOB, "team-a", NULL, NULL);
	assert_string_equal(p.data, "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs");
	buf_reset(&p);
	kube_path(&p, &KUBE_TRAINJOB, "team-a", "t1", "status");
	assert_string_equal(p.data, "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/t1/status");
	buf_reset(&p);
	kube_path(&p, &KUBE_POD, "team-a", "mnist-worker-0", "log");
	assert_string_equal(p.data, "/api/v1/namespaces/team-a/pods/mnist-worker-0/log");
	buf_reset(&p);
	kube_path(&p, &ns, "ignored", "team-a", NULL);
	assert_string_equal(p.data, "/api/v1/namespaces/team-a");
	buf_reset(&p);
	kube_path(&p, &KUBE_JAXJOB, "a b", "x/y", NULL);	/* segments are escaped */
	assert_string_equal(p.data, "/apis/kubeflow.org/v1/namespaces/a%20b/jaxjobs/x%2Fy");
	buf_free(&p);
}

static void queries_are_escaped_and_chained(void **state)
{
	(void)state;
	struct buf p = BUF_INIT;
	buf_adds(&p, "/api/v1/namespaces/team-a/events");
	kube_query(&p, "fieldSelector", "involvedObject.kind=JAXJob,involvedObject.name=mnist");
	kube_query(&p, "labelSelector", "app in (a,b)");
	assert_string_equal(p.data, "/api/v1/namespaces/team-a/events"
			    "?fieldSelector=involvedObject.kind%3DJAXJob%2CinvolvedObject.name%3Dmnist"
			    "&labelSelector=app%20in%20%28a%2Cb%29");
	buf_free(&p);
	struct buf d = BUF_INIT;
	kube_describe(&d, &KUBE_JAXJOB, "mnist");
	assert_string_equal(d.data, "jaxjobs.kubeflow.org \"mnist\"");
	buf_reset(&d);
	kube_describe(&d, &KUBE_POD, NULL);
	assert_string_equal(d.data, "pods");
	buf_free(&d);
}

static void builders_set_method_body_type_and_query(void **state)
{
	(void)state;
	struct kube_request rq;
	cJSON *job = cJSON_Parse("{\"kind\":\"JAXJob\",\"metadata\":{\"name\":\"m\"},\"apiVersion\":\"kubeflow.org/v1\"}");
	kube_req_create(&rq, &KUBE_JAXJOB, "team-a", job, KUBE_DRY_RUN);
	assert_int_equal(rq.method, KUBE_POST);
	assert_string_equal(rq.path.data, "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs?dryRun=All");
	assert_string_equal(rq.content_type, "application/json");
	assert_string_equal(rq.body.data,
			    "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"metadata\":{\"name\":\"m\"}}");
	assert_string_equal(rq.what.data, "jaxjobs.kubeflow.org \"m\"");
	kube_request_free(&rq);

	kube_req_delete(&rq, &KUBE_JAXJOB, "team-a", "m", KUBE_PROPAGATE_FOREGROUND, NULL, 0);
	assert_int_equal(rq.method, KUBE_DELETE);
	assert_string_equal(rq.path.data,
			    "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/m?propagationPolicy=Foreground");
	assert_int_equal(rq.body.len, 0);
	kube_request_free(&rq);
	/* conditional on the object seen: DeleteOptions.preconditions in the body */
	struct kube_precond pre = { "u-1", "42" };
	kube_req_delete(&rq, &KUBE_JAXJOB, "team-a", "m", KUBE_PROPAGATE_FOREGROUND, &pre, 0);
	assert_string_equal(rq.content_type, "application/json");
	assert_string_equal(rq.body.data, "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\","
			    "\"preconditions\":{\"resourceVersion\":\"42\",\"uid\":\"u-1\"}}");
	kube_request_free(&rq);
	kube_req_delete(&rq, &KUBE_JAXJOB, "team-a", "m", KUBE_PROPAGATE_DEFAULT, NULL, 0);
	assert_string_equal(rq.path.data, "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/m");
	kube_request_free(&rq);

	cJSON *patch = cJSON_Parse("{\"spec\":{\"runPolicy\":{\"suspend\":true}}}");
	kube_req_patch(&rq, &KUBE_JAXJOB, "team-a", "m", KUBE_PATCH_MERGE, patch, 0);
	assert_int_equal(rq.method, KUBE_PATCH);
	assert_string_equal(rq.content_type, "application/merge-patch+json");
	kube_request_free(&rq);
	kube_req_patch(&rq, &KUBE_JAXJOB, "team-a", "m", KUBE_PATCH_JSON, patch, 0);
	assert_string_equal(rq.content_type, "application/json-patch+json");
	kube_request_free(&rq);

	/* a continue token carries its own resourceVersion: none is sent beside it */
	struct kube_list_opts o = { "training.kubeflow.org/job-name=m", "status.phase=Running", 2, "tok",
				    "41" };
	kube_req_list(&rq, &KUBE_POD, "team-a", &o);
	assert_string_equal(rq.path.data, "/api/v1/namespaces/team-a/pods"
			    "?labelSelector=training.kubeflow.org%2Fjob-name%3Dm"
			    "&fieldSelector=status.phase%3DRunning&limit=2&continue=tok");
	assert_string_equal(rq.verb, "list");
	kube_request_free(&rq);
	/* the first page: from the watch cache, not older than what was seen */
	o.continue_token = NULL;
	kube_req_list(&rq, &KUBE_POD, "team-a", &o);
	assert_string_equal(rq.path.data, "/api/v1/namespaces/team-a/pods"
			    "?labelSelector=training.kubeflow.org%2Fjob-name%3Dm"
			    "&fieldSelector=status.phase%3DRunning&limit=2"
			    "&resourceVersion=41&resourceVersionMatch=NotOlderThan");
	kube_request_free(&rq);
	cJSON_Delete(job);
	cJSON_Delete(patch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paths_for_custom_core_and_cluster_resources),
		cmocka_unit_test(queries_are_escaped_and_chained),
		cmocka_unit_test(builders_set_method_body_type_and_query),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
