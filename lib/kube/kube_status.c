/*
 * kube_status.c - see kube_status.h. The apiserver's Status.message is
 * already written for humans; we add only what it lacks (causes it does not
 * mention) and say what a bare "404 page not found" means.
 */
#include "kube_status.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>
#include <cJSON.h>

#include "buf.h"

static enum err_code code_for(long status)
{
	switch (status) {
	case 401:
	case 403:
		return ERR_AUTH;
	case 404:
		return ERR_NOTFOUND;
	case 409:
		return ERR_CONFLICT;
	default:
		return ERR_API;
	}
}

static const char *str_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Append the causes the message does not already spell out. */
static void fold_causes(struct buf *msg, const cJSON *details)
{
	const cJSON *causes = cJSON_GetObjectItemCaseSensitive(details, "causes");
	const cJSON *c;
	cJSON_ArrayForEach(c, causes) {
		const char *field = str_field(c, "field");
		const char *text = str_field(c, "message");
		if (!text || !*text || strstr(msg->data, text))
			continue;
		buf_adds(msg, "; ");
		if (field && *field && strcmp(field, "<nil>"))
			buf_addf(msg, "%s: ", field);
		buf_adds(msg, text);
	}
}

/* The body is a meta/v1 Status: use its words. Returns 0 if it is not. */
static int from_status(long http_status, const char *body, size_t len, struct err *e)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const char *kind = str_field(j, "kind");
	const char *message = str_field(j, "message");
	if (!kind || strcmp(kind, "Status") || !message) {
		cJSON_Delete(j);
		return 0;
	}
	const char *reason = str_field(j, "reason");
	struct buf msg = BUF_INIT;
	if (*message)
		buf_adds(&msg, message);
	else	/* never an empty "error: " line (found by fuzz/fuzz_api_error.c) */
		buf_addf(&msg, "the API server answered HTTP %ld%s%s without a message",
			 http_status, reason && *reason ? " " : "", reason ? reason : "");
	fold_causes(&msg, cJSON_GetObjectItemCaseSensitive(j, "details"));
	/* the server's 401 says only "Unauthorized": say which fix applies */
	if (http_status == 401)
		buf_adds(&msg, ": the API server rejected the credentials (expired, revoked or wrong token or "
			 "client certificate); refresh the kubeconfig user, or check the pod's service account");
	err_set(e, code_for(http_status), "%s", msg.data);
	if (reason)
		snprintf(e->reason, sizeof(e->reason), "%s", reason);
	buf_free(&msg);
	cJSON_Delete(j);
	return 1;
}

/*
 * A plain 404 on /apis/G/V/[namespaces/N/]P...: name the CRD "P.G" that
 * would serve it, or the group when the path stops short of a resource.
 */
static int describe_api(const char *path, const char *server, struct buf *out)
{
	if (!path || strncmp(path, "/apis/", 6))
		return 0;
	char group[256], version[64], plural[128] = "";
	if (sscanf(path + 6, "%255[^/]/%63[^/?]", group, version) != 2)
		return 0;
	const char *rest = path + 6 + strlen(group) + 1 + strlen(version);
	if (!strncmp(rest, "/namespaces/", 12)) {
		rest = strchr(rest + 12, '/');
		if (!rest)
			rest = "";
	}
	if (*rest == '/')
		sscanf(rest + 1, "%127[^/?]", plural);
	if (!server)
		server = "the API server";
	/* the operators of the two job APIs jaxjob speaks (lib/job/jobapi.h) */
	const char *op = !strcmp(group, "trainer.kubeflow.org") ?
		"Kubeflow Trainer v2 for trainjobs" : "the Kubeflow training operator for jaxjobs";
	if (*plural)
		buf_addf(out, "%s does not serve %s/%s %s: the CustomResourceDefinition "
			 "%s.%s is not installed (install its operator, e.g. %s)", server, group,
			 version, plural, plural, group, op);
	else
		buf_addf(out, "%s does not serve the API %s/%s: its CustomResourceDefinitions "
			 "are not installed", server, group, version);
	return 1;
}

int kube_status_err(long http_status, const char *content_type,
		    const char *body, size_t len, const char *verb,
		    const char *what, const char *path, const char *server,
		    struct err *e)
{
	if (!verb)
		verb = "request";
	if (!what)
		what = "";
	if (len && from_status(http_status, body, len, e)) {
		e->http_status = (int)http_status;
		return -1;
	}
	struct buf api = BUF_INIT;
	int is_text = !content_type || !strncasecmp(content_type, "text/plain", 10);
	if (http_status == 404 && is_text && describe_api(path, server, &api)) {
		err_set(e, ERR_NOTFOUND, "%s", api.data);
		snprintf(e->reason, sizeof(e->reason), "NotFound");
	} else {
		size_t n = 0;
		while (n < len && n < 200 && body[n] != '\n' && body[n] != '\r')
			n++;
		err_set(e, code_for(http_status), "%s %s%sHTTP %ld%s%.*s", verb, what,
			*what ? ": " : "", http_status, n ? ": " : "", (int)n, body ? body : "");
	}
	buf_free(&api);
	e->http_status = (int)http_status;
	return -1;
}

int kube_status_retryable(long http_status)
{
	return http_status == 429 || (http_status >= 500 && http_status <= 599);
}

double kube_retry_after(const char *value, time_t now)
{
	if (!value)
		return -1;
	while (isspace((unsigned char)*value))
		value++;
	if (!*value)
		return -1;
	double s;
	if (isdigit((unsigned char)*value)) {
		char *end;
		long long v = strtoll(value, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (*end || v < 0)
			return -1;
		s = (double)v;
	} else {
		time_t t = curl_getdate(value, NULL);
		if (t == -1)
			return -1;
		s = t > now ? difftime(t, now) : 0;
	}
	return s > 3600 ? 3600 : s;
}

double kube_backoff_after(const struct err *why, unsigned n[2], double retry_after, double rnd)
{
	if (why && !strcmp(why->reason, KUBE_REASON_UNREACHABLE)) {
		double d = kube_backoff(n[1]++, retry_after, rnd);
		return d < KUBE_BACKOFF_UNREACHABLE_S ? d : KUBE_BACKOFF_UNREACHABLE_S;
	}
	n[1] = 0;
	return kube_backoff(n[0]++, retry_after, rnd);
}

double kube_backoff(unsigned attempt, double retry_after, double rnd)
{
	double d = KUBE_BACKOFF_BASE_S * ldexp(1.0, attempt > 30 ? 30 : (int)attempt);
	if (d > KUBE_BACKOFF_CAP_S)
		d = KUBE_BACKOFF_CAP_S;
	if (rnd < 0)
		rnd = 0;
	if (rnd >= 1)
		rnd = 0.999999;
	double wait = d / 2 + rnd * d / 2;
	if (retry_after > wait)
		wait = retry_after;
	return wait;
}
