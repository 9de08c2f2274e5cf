/*
 * fuzz_api_error.c - libFuzzer target for lib/kube/kube_status.c: turning what an
 * API server (or a proxy in front of it) answers into struct err, and the
 * Retry-After / backoff arithmetic.
 *
 * Input: bytes 0-1 the HTTP status (0..999), byte 2 picks the content type
 * and the request path (so a plain "404 page not found" on /apis/... can be
 * reached), byte 3 the retry attempt; the rest is the body. The body's first
 * line, NUL-terminated, is also tried as a Retry-After value.
 * Contracts: kube_status_err() always returns -1 with a one-line message and
 * the status recorded; Retry-After is -1 or within [0, 3600]; a backoff is
 * never negative, never above max(cap, Retry-After), and never below the
 * Retry-After it was given.
 */
#include <time.h>

#include "fuzz_common.h"
#include "kube/kube_status.h"

static const char *const ctypes[] = { "application/json", "text/plain; charset=utf-8", NULL,
				      "application/json;charset=utf-8" };
static const char *const paths[] = {
	"/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs",
	"/api/v1/namespaces/team-a/pods/x/log",
	NULL,
	"/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/j?watch=1",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	long status = ((long)data[0] << 8 | data[1]) % 1000;
	const char *ctype = ctypes[data[2] & 3];
	const char *path = paths[(data[2] >> 2) & 3];
	unsigned attempt = data[3];
	const char *body = (const char *)data + 4;
	size_t len = size - 4;

	struct err e = ERR_INIT;
	int rc = kube_status_err(status, ctype, body, len, "create", "jaxjobs.kubeflow.org \"j\"",
				 path, "https://127.0.0.1:6443", &e);
	FUZZ_CHECK(rc == -1, "kube_status_err returned %d", rc);
	fuzz_check_err(&e, "kube_status_err");
	FUZZ_CHECK(e.http_status == status, "http_status %d, want %ld", e.http_status, status);
	FUZZ_CHECK(memchr(e.reason, '\0', sizeof(e.reason)) != NULL, "reason not terminated");
	int r = kube_status_retryable(status);
	FUZZ_CHECK(r == (status == 429 || (status >= 500 && status <= 599)),
		   "retryable(%ld) = %d", status, r);

	const char *nl = memchr(body, '\n', len);
	char *value = fuzz_strndup((const uint8_t *)body, nl ? (size_t)(nl - body) : len);
	double ra = kube_retry_after(value, (time_t)1700000000);
	FUZZ_CHECK(ra == -1 || (ra >= 0 && ra <= 3600), "Retry-After %s -> %g", value, ra);
	free(value);
	double rnd = (double)(attempt % 100) / 100.0;
	double d = kube_backoff(attempt, ra, rnd);
	double hi = ra > KUBE_BACKOFF_CAP_S ? ra : KUBE_BACKOFF_CAP_S;
	FUZZ_CHECK(d >= 0 && d <= hi, "backoff %g out of [0, %g]", d, hi);
	if (ra >= 0)
		FUZZ_CHECK(d >= ra, "backoff %g below Retry-After %g", d, ra);
	return 0;
}
