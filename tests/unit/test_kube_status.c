/* test_kube_status.c - API Status bodies into errors; Retry-After; backoff bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <cmocka.h>

#include "kube/kube_client.h"
#include "kube/kube_status.h"

#define JAXJOBS "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs"
#define SERVER "https://127.0.0.1:6443"

static int decode(long status, const char *ctype, const char *body, const char *path,
		  struct err *e)
{
	return kube_status_err(status, ctype, body, strlen(body), "create",
			       "jaxjobs.kubeflow.org \"x\"", path, SERVER, e);
}

/* Bodies as recorded in tests/apiserver-conformance/recordings (02, 04, 10). */
static void already_exists_keeps_the_api_words(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(decode(409, "application/json",
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		"\"message\":\"jaxjobs.kubeflow.org \\\"jaxjob-mnist\\\" already exists\","
		"\"reason\":\"AlreadyExists\",\"details\":{\"name\":\"jaxjob-mnist\","
		"\"group\":\"kubeflow.org\",\"kind\":\"jaxjobs\"},\"code\":409}\n", JAXJOBS, &e), -1);
	assert_int_equal(e.code, ERR_CONFLICT);
	assert_int_equal(e.http_status, 409);
	assert_string_equal(e.reason, "AlreadyExists");
	assert_string_equal(e.msg, "jaxjobs.kubeflow.org \"jaxjob-mnist\" already exists");
}

static void forbidden_is_an_auth_error_naming_verb_and_resource(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	decode(403, "application/json",
	       "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	       "\"message\":\"jaxjobs.kubeflow.org is forbidden: User \\\"nobody\\\" cannot create "
	       "resource \\\"jaxjobs\\\" in API group \\\"kubeflow.org\\\" in the namespace "
	       "\\\"team-a\\\"\",\"reason\":\"Forbidden\",\"details\":{\"group\":\"kubeflow.org\","
	       "\"kind\":\"jaxjobs\"},\"code\":403}\n", JAXJOBS, &e);
	assert_int_equal(e.code, ERR_AUTH);
	assert_string_equal(e.reason, "Forbidden");
	assert_non_null(strstr(e.msg, "cannot create resource \"jaxjobs\""));
}

static void invalid_does_not_repeat_causes_already_in_the_message(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	decode(422, "application/json",
	       "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	       "\"message\":\"JAXJob.kubeflow.org \\\"jaxjob-no-specs\\\" is invalid: "
	       "[spec.jaxReplicaSpecs: Required value, \\u003cnil\\u003e: Invalid value: \\\"null\\\": "
	       "some validation rules were not checked]\",\"reason\":\"Invalid\",\"details\":{"
	       "\"name\":\"jaxjob-no-specs\",\"group\":\"kubeflow.org\",\"kind\":\"JAXJob\","
	       "\"causes\":[{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\","
	       "\"field\":\"spec.jaxReplicaSpecs\"},{\"reason\":\"FieldValueInvalid\",\"message\":"
	       "\"Invalid value: \\\"null\\\": some validation rules were not checked\","
	       "\"field\":\"\\u003cnil\\u003e\"}]},\"code\":422}\n", JAXJOBS, &e);
	assert_int_equal(e.code, ERR_API);
	assert_int_equal(e.http_status, 422);
	assert_string_equal(e.reason, "Invalid");
	assert_string_equal(e.msg, "JAXJob.kubeflow.org \"jaxjob-no-specs\" is invalid: "
			    "[spec.jaxReplicaSpecs: Required value, <nil>: Invalid value: \"null\": "
			    "some validation rules were not checked]");
}

static void causes_missing_from_the_message_are_folded_in(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	decode(422, "application/json",
	       "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"JAXJob.kubeflow.org "
	       "\\\"x\\\" is invalid\",\"reason\":\"Invalid\",\"details\":{\"causes\":["
	       "{\"field\":\"spec.runPolicy.backoffLimit\",\"message\":\"must be >= 0\"},"
	       "{\"field\":\"\\u003cnil\\u003e\",\"message\":\"rule failed\"}]},\"code\":422}",
	       JAXJOBS, &e);
	assert_string_equal(e.msg, "JAXJob.kubeflow.org \"x\" is invalid; "
			    "spec.runPolicy.backoffLimit: must be >= 0; rule failed");
}

static void plain_404_on_a_group_path_means_crd_missing(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	decode(404, "text/plain; charset=utf-8", "404 page not found\n", JAXJOBS, &e);
	assert_int_equal(e.code, ERR_NOTFOUND);
	assert_int_equal(e.http_status, 404);
	assert_non_null(strstr(e.msg, "jaxjobs.kubeflow.org is not installed"));
	assert_non_null(strstr(e.msg, SERVER));
	assert_non_null(strstr(e.msg, "kubeflow.org/v1 jaxjobs"));
	/* a Status 404 is an ordinary "not found" */
	decode(404, "application/json",
	       "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"jaxjobs.kubeflow.org "
	       "\\\"x\\\" not found\",\"reason\":\"NotFound\",\"code\":404}", JAXJOBS "/x", &e);
	assert_string_equal(e.msg, "jaxjobs.kubeflow.org \"x\" not found");
	assert_string_equal(e.reason, "NotFound");
}

static void other_bodies_give_verb_object_status_and_first_line(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	decode(502, "text/html", "<html>Bad Gateway</html>\nmore\n", JAXJOBS, &e);
	assert_int_equal(e.code, ERR_API);
	assert_string_equal(e.msg, "create jaxjobs.kubeflow.org \"x\": HTTP 502: <html>Bad Gateway</html>");
	decode(503, NULL, "", JAXJOBS, &e);
	assert_string_equal(e.msg, "create jaxjobs.kubeflow.org \"x\": HTTP 503");
}

static void retryable_statuses(void **state)
{
	(void)state;
	assert_true(kube_status_retryable(429));
	assert_true(kube_status_retryable(500));
	assert_true(kube_status_retryable(503));
	assert_true(kube_status_retryable(504));
	assert_false(kube_status_retryable(409));
	assert_false(kube_status_retryable(403));
	assert_false(kube_status_retryable(422));
	assert_false(kube_status_retryable(200));
}

static void retry_after_seconds_and_dates(void **state)
{
	(void)state;
	time_t now = 1795000000;	/* 2026-11-18 */
	assert_true(kube_retry_after("3", now) == 3.0);
	assert_true(kube_retry_after(" 120 ", now) == 120.0);
	assert_true(kube_retry_after("0", now) == 0.0);
	assert_true(kube_retry_after(NULL, now) < 0);
	assert_true(kube_retry_after("", now) < 0);
	assert_true(kube_retry_after("soon", now) < 0);
	assert_true(kube_retry_after("-1", now) < 0);
	assert_true(kube_retry_after("5s", now) < 0);
	assert_true(kube_retry_after("99999999", now) == 3600.0);
	struct tm tm;
	time_t later = now + 42;
	char date[64];
	gmtime_r(&later, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	assert_true(kube_retry_after(date, now) == 42.0);
	assert_true(kube_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now) == 0.0);
}

static void backoff_grows_is_jittered_capped_and_honours_retry_after(void **state)
{
	(void)state;
	double prev_hi = 0;
	for (unsigned a = 0; a < 40; a++) {
		double d = KUBE_BACKOFF_BASE_S * (double)(1ull << (a < 30 ? a : 30));
		if (d > KUBE_BACKOFF_CAP_S)
			d = KUBE_BACKOFF_CAP_S;
		double lo = kube_backoff(a, -1, 0.0), hi = kube_backoff(a, -1, 0.999999);
		assert_true(lo >= d / 2 - 1e-9 && lo <= d / 2 + 1e-9);
		assert_true(hi <= d + 1e-9 && hi >= d * 0.999);
		assert_true(hi >= prev_hi - 1e-9);
		assert_true(hi <= KUBE_BACKOFF_CAP_S);
		prev_hi = hi;
		double mid = kube_backoff(a, -1, 0.5);
		assert_true(mid > lo && mid < hi);
	}
	assert_true(kube_backoff(0, 30, 0.5) == 30.0);		/* Retry-After is a floor */
	assert_true(kube_backoff(10, 0.5, 0.0) == 5.0);		/* ...not a ceiling */
	assert_true(kube_backoff(0, -1, 7.0) <= KUBE_BACKOFF_BASE_S);	/* rnd clamped */
}

/* an outage refuses connections for a while, then the server answers 503 while it starts */
static void unreachable_retries_stay_short_and_do_not_raise_the_backoff(void **state)
{
	(void)state;
	struct err down = ERR_INIT, busy = ERR_INIT;
	unsigned n[2] = { 0, 0 };
	double d = 0;

	snprintf(down.reason, sizeof(down.reason), "%s", KUBE_REASON_UNREACHABLE);
	snprintf(busy.reason, sizeof(busy.reason), "ServiceUnavailable");
	/* while nothing answers: growing, then never more than a second apart */
	for (int i = 0; i < 50; i++) {
		d = kube_backoff_after(&down, n, -1, 0.999);
		assert_true(d <= KUBE_BACKOFF_UNREACHABLE_S);
	}
	assert_true(d > KUBE_BACKOFF_UNREACHABLE_S / 2);
	assert_int_equal(n[0], 0);
	/* the first answered failure after it starts at the short end */
	assert_true(kube_backoff_after(&busy, n, -1, 0.999) <= KUBE_BACKOFF_BASE_S);
	assert_int_equal(n[0], 1);
	assert_int_equal(n[1], 0);
	for (int i = 0; i < 20; i++)
		kube_backoff_after(&busy, n, -1, 0.999);
	assert_true(kube_backoff_after(&busy, n, -1, 0.999) > 5);
	/* Retry-After from an answering server is still a floor */
	assert_true(kube_backoff_after(&busy, n, 30, 0.0) == 30.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(already_exists_keeps_the_api_words),
		cmocka_unit_test(unreachable_retries_stay_short_and_do_not_raise_the_backoff),
		cmocka_unit_test(forbidden_is_an_auth_error_naming_verb_and_resource),
		cmocka_unit_test(invalid_does_not_repeat_causes_already_in_the_message),
		cmocka_unit_test(causes_missing_from_the_message_are_folded_in),
		cmocka_unit_test(plain_404_on_a_group_path_means_crd_missing),
		cmocka_unit_test(other_bodies_give_verb_object_status_and_first_line),
		cmocka_unit_test(retryable_statuses),
		cmocka_unit_test(retry_after_seconds_and_dates),
		cmocka_unit_test(backoff_grows_is_jittered_capped_and_honours_retry_after),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
