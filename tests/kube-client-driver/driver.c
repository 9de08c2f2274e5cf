/*
 * driver.c - scripted scenarios of the Kubernetes client (lib/kube/)
 * against the project's test API server (tests/kube-apiserver), one TAP
 * line per scenario.
 *
 *     kube-client-driver STATE_DIR [SCENARIO-SUBSTRING]
 *
 * STATE_DIR is what tests/kube-apiserver/start.sh wrote (kubeconfig*,
 * *.token, ca.pem). Faults are injected through the server's /_test/
 * endpoints with the admin credentials, using the client itself.
 * Diagnostics of failing checks go to stderr.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "kube/kube.h"
#include "version.h"

static const char *dir;
static const char *scenario;	/* the name its TAP line will carry */
static int failures_in_scenario;

#define CHECK(cond, ...) check_((cond), #cond, __LINE__, __VA_ARGS__)

static void check_(int ok, const char *expr, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void check_(int ok, const char *expr, int line, const char *fmt, ...)
{
	if (ok)
		return;
	/* the block tests/run-all.sh shows for a failing test starts with this line */
	if (failures_in_scenario++ == 0)
		fprintf(stderr, "--- kube client: %s\n", scenario);
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "#   line %d: check failed: %s: ", line, expr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const char *in_dir(const char *name)
{
	static char p[8][1024];
	static int i;
	i = (i + 1) % 8;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static struct kube_client *client_from(const char *kubeconfig_name)
{
	struct kube_config_opts o = { .kubeconfig = in_dir(kubeconfig_name) };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	if (kube_config_load(&o, &cfg, &e)) {
		fprintf(stderr, "# config %s: %s\n", kubeconfig_name, e.msg);
		kube_config_free(&cfg);
		return NULL;
	}
	struct kube_client *c = kube_client_new(&cfg, &e);
	kube_config_free(&cfg);
	return c;
}

/* ---- the test server's control endpoints ---------------------------------- */

static struct kube_client *admin;

static cJSON *control(enum kube_method m, const char *path, const char *json)
{
	struct kube_request rq;
	kube_request_init(&rq, m, "control");
	buf_adds(&rq.path, path);
	buf_adds(&rq.what, path);
	if (json) {
		buf_adds(&rq.body, json);
		rq.content_type = "application/json";
	}
	struct kube_response rs;
	struct err e = ERR_INIT;
	if (kube_call(admin, &rq, &rs, &e))
		fprintf(stderr, "# control %s: %s\n", path, e.msg);
	cJSON *out = rs.json;
	rs.json = NULL;
	kube_response_free(&rs);
	kube_request_free(&rq);
	return out;
}

static void faults(const char *json)
{
	cJSON_Delete(control(json ? KUBE_POST : KUBE_DELETE, "/_test/faults", json));
}

/* Requests the server logged whose path contains `needle` (a new array). */
static cJSON *requests_matching(const char *needle)
{
	cJSON *all = control(KUBE_GET, "/_test/requests", NULL);
	cJSON *out = cJSON_CreateArray();
	const cJSON *r;
	cJSON_ArrayForEach(r, all) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "path");
		if (cJSON_IsString(p) && strstr(p->valuestring, needle))
			cJSON_AddItemToArray(out, cJSON_Duplicate(r, 1));
	}
	cJSON_Delete(all);
	return out;
}

/* ---- jobs ------------------------------------------------------------------ */

static cJSON *job(const char *name, int workers, const char *sim_args)
{
	char text[2048];
	snprintf(text, sizeof(text),
		 "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\","
		 "\"metadata\":{\"name\":\"%s\",\"labels\":{\"jaxjob.dev/launch-id\":\"id-%s\","
		 "\"suite\":\"kube-client\"}},"
		 "\"spec\":{\"runPolicy\":{\"cleanPodPolicy\":\"None\",\"backoffLimit\":0},"
		 "\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":%d,\"restartPolicy\":\"Never\","
		 "\"template\":{\"spec\":{\"containers\":[{\"name\":\"jax\",\"image\":\"python:3.12\","
		 "\"command\":[\"python3\",\"train.py\",\"%s\"]}]}}}}}}",
		 name, name, workers, sim_args);
	return cJSON_Parse(text);
}

static int create_job(struct kube_client *c, const char *name, int workers, const char *sim)
{
	cJSON *j = job(name, workers, sim);
	cJSON *out = NULL;
	struct err e = ERR_INIT;
	int rc = kube_create(c, &KUBE_JAXJOB, "team-a", j, 0, &out, &e);
	if (rc)
		fprintf(stderr, "# create %s: %s\n", name, e.msg);
	cJSON_Delete(j);
	cJSON_Delete(out);
	return rc;
}

static const char *label_of(const cJSON *obj, const char *key)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(md, "labels");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(l, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *meta(const cJSON *obj, const char *key)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int has_condition(const cJSON *obj, const char *type)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(st, "conditions")) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "type");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(c, "status");
		if (cJSON_IsString(t) && !strcmp(t->valuestring, type) && cJSON_IsString(s) &&
		    !strcmp(s->valuestring, "True"))
			return 1;
	}
	return 0;
}

/* ---- following a job through the loop -------------------------------------- */

struct follow {
	struct kube_client *c;
	int events, added, deleted, succeeded, synced, polling, retrying, failed;
	long last_rv;
	int rv_regressed;
	int timed_out;
	int done;		/* what the scenario waits for happened: see finish() */
	struct err last_err;
	int stop_on_success, stop_on_delete, stop_on_sync;
	struct kube_timer *guard;
};

/*
 * The awaited event came. kube_loop_stop() alone would be lost when the
 * callback runs inside a blocking call (create_job() dispatches the watch
 * too, and a stop asked outside kube_loop_run() is dropped by design), and
 * run_loop() would then wait out its guard for an event already seen: on a
 * busy machine the operator's event can beat the create's own answer.
 */
static void finish(struct follow *f)
{
	f->done = 1;
	kube_loop_stop(f->c);
}

static void follow_event(void *ud, enum kube_event_type t, const cJSON *obj)
{
	struct follow *f = ud;
	f->events++;
	const char *rv = meta(obj, "resourceVersion");
	long n = rv ? atol(rv) : 0;
	if (t != KUBE_DELETED && n <= f->last_rv)
		f->rv_regressed++;
	if (n > f->last_rv)
		f->last_rv = n;
	if (t == KUBE_ADDED)
		f->added++;
	if (t == KUBE_DELETED) {
		f->deleted++;
		if (f->stop_on_delete)
			finish(f);
	}
	if (t != KUBE_DELETED && has_condition(obj, "Succeeded")) {
		f->succeeded++;
		if (f->stop_on_success)
			finish(f);
	}
}

static void follow_state(void *ud, enum kube_watch_state st, const struct err *e)
{
	struct follow *f = ud;
	if (e)
		f->last_err = *e;
	switch (st) {
	case KUBE_WATCH_SYNCED:
		f->synced++;
		if (f->stop_on_sync)
			finish(f);
		break;
	case KUBE_WATCH_POLLING: f->polling++; break;
	case KUBE_WATCH_RETRYING: f->retrying++; break;
	case KUBE_WATCH_RESUMED: break;
	case KUBE_WATCH_FAILED: f->failed++; finish(f); break;
	}
}

static void guard_fired(void *ud)
{
	struct follow *f = ud;
	f->guard = NULL;
	f->timed_out = 1;
	finish(f);
}

/* Watch job `name` until it succeeds (or the guard expires). */
static struct kube_watch *watch_job(struct kube_client *c, struct follow *f, const char *name)
{
	static char sel[256];
	snprintf(sel, sizeof(sel), "metadata.name=%s", name);
	struct kube_watch_opts o = {
		.res = &KUBE_JAXJOB, .ns = "team-a", .sel = { .field_selector = sel },
		.timeout_s = 30, .poll_interval_s = 0.3,
		.on_event = follow_event, .on_state = follow_state, .ud = f,
	};
	struct err e = ERR_INIT;
	f->c = c;
	f->guard = kube_timer_add(c, 40, guard_fired, f);
	return kube_watch_start(c, &o, &e);
}

static void run_loop(struct kube_client *c, struct follow *f)
{
	struct err e = ERR_INIT;
	if (!f || !f->done)
		CHECK(kube_loop_run(c, &e) == 0, "loop: %s", e.msg);
	if (f) {
		f->done = 0;
		kube_timer_cancel(f->guard);
		f->guard = NULL;
		CHECK(!f->timed_out, "the loop hit its 40 s guard");
	}
}

/* watch_job, then run the loop until its first list is done (an event, not a
 * pause): a scenario that creates the job afterwards sees every event of it on
 * the watch. Created before that, on a busy machine the list could already show
 * the job Succeeded, and the drops, 410s or polling under test never happen. */
static struct kube_watch *watch_job_listed(struct kube_client *c, struct follow *f, const char *name)
{
	struct kube_watch *w = watch_job(c, f, name);
	f->stop_on_sync = 1;
	run_loop(c, f);
	CHECK(f->synced == 1 && f->events == 0, "%s: listed before the create: %d syncs, %d events",
	      name, f->synced, f->events);
	f->stop_on_sync = 0;
	f->guard = kube_timer_add(c, 40, guard_fired, f);
	return w;
}

/* ---- scenarios ---------------------------------------------------------------- */

static void s_config(void)
{
	struct kube_client *c = client_from("kubeconfig");
	CHECK(c != NULL, "client");
	if (!c)
		return;
	const struct kube_config *cfg = kube_client_config(c);
	CHECK(!strcmp(cfg->ns, "team-a"), "namespace %s", cfg->ns);
	CHECK(cfg->ca_pem.len > 0, "CA loaded");
	CHECK(!cfg->insecure, "verified");
	kube_client_free(c);
}

static void s_create_conflict_get(void)
{
	cJSON *j = job("kc-create", 1, "SIM_HANG=1");
	cJSON *created = NULL, *got = NULL;
	struct err e = ERR_INIT;
	CHECK(kube_create(admin, &KUBE_JAXJOB, "team-a", j, 0, &created, &e) == 0, "%s", e.msg);
	CHECK(meta(created, "uid") != NULL, "uid in the answer");
	CHECK(kube_create(admin, &KUBE_JAXJOB, "team-a", j, 0, NULL, &e) == -1, "second create");
	CHECK(e.code == ERR_CONFLICT && e.http_status == 409, "code %d %d", e.code, e.http_status);
	CHECK(!strcmp(e.reason, "AlreadyExists"), "reason %s", e.reason);
	CHECK(strstr(e.msg, "jaxjobs.kubeflow.org \"kc-create\" already exists") != NULL, "%s", e.msg);
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-create", &got, &e) == 0, "%s", e.msg);
	CHECK(meta(got, "uid") && meta(created, "uid") && !strcmp(meta(got, "uid"), meta(created, "uid")),
	      "same uid");
	CHECK(label_of(got, "jaxjob.dev/launch-id") &&
	      !strcmp(label_of(got, "jaxjob.dev/launch-id"), "id-kc-create"), "identity label");
	CHECK(kube_delete(admin, &KUBE_JAXJOB, "team-a", "kc-create", KUBE_PROPAGATE_BACKGROUND, NULL, 0,
			  NULL, &e) == 0, "%s", e.msg);
	cJSON_Delete(j);
	cJSON_Delete(created);
	cJSON_Delete(got);
}

/* A DELETE is conditional on the object it was decided on (issue 27). */
static void s_delete_preconditions(void)
{
	cJSON *j = job("kc-precond", 1, "SIM_HANG=1");
	cJSON *created = NULL, *got = NULL, *patch = cJSON_Parse("{\"metadata\":{\"annotations\":{\"x\":\"1\"}}}");
	struct err e = ERR_INIT;
	CHECK(kube_create(admin, &KUBE_JAXJOB, "team-a", j, 0, &created, &e) == 0, "%s", e.msg);
	CHECK(kube_patch(admin, &KUBE_JAXJOB, "team-a", "kc-precond", KUBE_PATCH_MERGE, patch, 0, NULL,
			 &e) == 0, "%s", e.msg);
	struct kube_precond stale = { meta(created, "uid"), meta(created, "resourceVersion") };
	CHECK(kube_delete(admin, &KUBE_JAXJOB, "team-a", "kc-precond", KUBE_PROPAGATE_BACKGROUND, &stale, 0,
			  NULL, &e) == -1 && e.code == ERR_CONFLICT && e.http_status == 409,
	      "a stale resourceVersion is refused with 409: %d %s", e.http_status, e.msg);
	struct kube_precond other = { "00000000-0000-0000-0000-000000000000", NULL };
	err_clear(&e);
	CHECK(kube_delete(admin, &KUBE_JAXJOB, "team-a", "kc-precond", KUBE_PROPAGATE_BACKGROUND, &other, 0,
			  NULL, &e) == -1 && e.code == ERR_CONFLICT, "another uid is refused: %s", e.msg);
	err_clear(&e);
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-precond", &got, &e) == 0, "still there: %s", e.msg);
	struct kube_precond now = { meta(got, "uid"), meta(got, "resourceVersion") };
	CHECK(kube_delete(admin, &KUBE_JAXJOB, "team-a", "kc-precond", KUBE_PROPAGATE_BACKGROUND, &now, 0,
			  NULL, &e) == 0, "the object seen is deleted: %s", e.msg);
	cJSON_Delete(j);
	cJSON_Delete(created);
	cJSON_Delete(got);
	cJSON_Delete(patch);
}

static void s_dry_run(void)
{
	cJSON *j = job("kc-dry", 1, "");
	cJSON *out = NULL;
	struct err e = ERR_INIT;
	CHECK(kube_create(admin, &KUBE_JAXJOB, "team-a", j, KUBE_DRY_RUN, &out, &e) == 0, "%s", e.msg);
	CHECK(meta(out, "name") && !strcmp(meta(out, "name"), "kc-dry"), "object returned");
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-dry", NULL, &e) == -1, "not stored");
	CHECK(e.code == ERR_NOTFOUND, "%s", e.msg);
	cJSON *reqs = requests_matching("/jaxjobs");
	int dry = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, reqs) {
		const cJSON *q = cJSON_GetObjectItemCaseSensitive(r, "query");
		if (cJSON_IsString(q) && strstr(q->valuestring, "dryRun=All"))
			dry++;
	}
	CHECK(dry == 1, "dryRun=All sent once, saw %d", dry);
	cJSON_Delete(reqs);
	cJSON_Delete(j);
	cJSON_Delete(out);
}

static void s_invalid(void)
{
	cJSON *j = job("KC-Invalid", 1, "");
	struct err e = ERR_INIT;
	CHECK(kube_create(admin, &KUBE_JAXJOB, "team-a", j, 0, NULL, &e) == -1, "rejected");
	CHECK(e.http_status == 422 && !strcmp(e.reason, "Invalid"), "%d %s", e.http_status, e.reason);
	CHECK(strstr(e.msg, "JAXJob.kubeflow.org \"KC-Invalid\" is invalid: metadata.name") != NULL,
	      "%s", e.msg);
	cJSON_Delete(j);
}

static void s_crd_missing(void)
{
	static const struct kube_resource widgets = { "nosuch.example.com", "v1", "widgets", "Widget", 1 };
	struct err e = ERR_INIT;
	CHECK(kube_get(admin, &widgets, "team-a", "w", NULL, &e) == -1, "fails");
	CHECK(e.code == ERR_NOTFOUND, "code %d", e.code);
	CHECK(strstr(e.msg, "widgets.nosuch.example.com is not installed") != NULL, "%s", e.msg);
}

static void s_retry_500(void)
{
	create_job(admin, "kc-retry", 1, "SIM_HANG=1");
	faults("{\"errors\":{\"count\":2,\"code\":500,\"match\":\"jaxjobs/kc-retry$\"}}");
	struct kube_request rq;
	struct kube_response rs;
	struct err e = ERR_INIT;
	kube_req_get(&rq, &KUBE_JAXJOB, "team-a", "kc-retry");
	CHECK(kube_call(admin, &rq, &rs, &e) == 0, "%s", e.msg);
	CHECK(rs.status == 200 && rs.attempts == 3, "status %ld after %d attempts", rs.status,
	      rs.attempts);
	kube_response_free(&rs);
	kube_request_free(&rq);
	faults(NULL);
}

static void s_retry_after(void)
{
	cJSON_Delete(control(KUBE_DELETE, "/_test/requests", NULL));
	faults("{\"throttle\":{\"count\":1,\"retryAfter\":1,\"match\":\"jaxjobs/kc-retry$\"}}");
	struct kube_request rq;
	struct kube_response rs;
	struct err e = ERR_INIT;
	kube_req_get(&rq, &KUBE_JAXJOB, "team-a", "kc-retry");
	CHECK(kube_call(admin, &rq, &rs, &e) == 0, "%s", e.msg);
	CHECK(rs.attempts == 2, "%d attempts", rs.attempts);
	cJSON *reqs = requests_matching("jaxjobs/kc-retry");
	CHECK(cJSON_GetArraySize(reqs) == 2, "%d requests", cJSON_GetArraySize(reqs));
	if (cJSON_GetArraySize(reqs) == 2) {
		double t0 = cJSON_GetObjectItem(cJSON_GetArrayItem(reqs, 0), "time")->valuedouble;
		double t1 = cJSON_GetObjectItem(cJSON_GetArrayItem(reqs, 1), "time")->valuedouble;
		CHECK(t1 - t0 >= 0.95, "waited %.3f s, Retry-After was 1 s", t1 - t0);
		const cJSON *ua = cJSON_GetObjectItem(cJSON_GetArrayItem(reqs, 0), "userAgent");
		CHECK(cJSON_IsString(ua) && !strcmp(ua->valuestring, "jaxjob/" JAXJOB_VERSION),
		      "User-Agent %s", cJSON_IsString(ua) ? ua->valuestring : "?");
	}
	cJSON_Delete(reqs);
	kube_response_free(&rs);
	kube_request_free(&rq);
	faults(NULL);
}

static void s_give_up(void)
{
	faults("{\"errors\":{\"count\":1000,\"code\":503,\"match\":\"jaxjobs/kc-retry$\"}}");
	kube_client_set_retry(admin, 1.5);
	struct err e = ERR_INIT;
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == -1, "fails");
	CHECK(e.http_status == 503 && e.code == ERR_API, "%d", e.http_status);
	CHECK(strstr(e.msg, "the server is currently unable to handle the request") != NULL, "%s", e.msg);
	CHECK(strstr(e.msg, "gave up after") != NULL, "%s", e.msg);
	kube_client_set_retry(admin, 30);
	faults(NULL);
}

static void s_server_down(void)
{
	faults("{\"down\":1.5}");
	struct kube_request rq;
	struct kube_response rs;
	struct err e = ERR_INIT;
	kube_req_get(&rq, &KUBE_JAXJOB, "team-a", "kc-retry");
	CHECK(kube_call(admin, &rq, &rs, &e) == 0, "%s", e.msg);
	CHECK(rs.attempts > 1, "%d attempts", rs.attempts);
	kube_response_free(&rs);
	kube_request_free(&rq);
	faults(NULL);
}

static void s_wrong_ca(void)
{
	/* trust the system store instead of the server's own CA */
	struct kube_config_opts o = { .kubeconfig = in_dir("kubeconfig") };
	struct kube_config cfg;
	struct err e = ERR_INIT;
	CHECK(kube_config_load(&o, &cfg, &e) == 0, "%s", e.msg);
	buf_reset(&cfg.ca_pem);
	buf_adds(&cfg.ca_pem, "-----BEGIN CERTIFICATE-----\nnot a ca\n-----END CERTIFICATE-----\n");
	struct kube_client *c = kube_client_new(&cfg, &e);
	struct kube_request rq;
	struct kube_response rs;
	kube_req_get(&rq, &KUBE_JAXJOB, "team-a", "kc-retry");
	CHECK(kube_call(c, &rq, &rs, &e) == -1, "must fail");
	CHECK(e.code == ERR_NETWORK, "code %d: %s", e.code, e.msg);
	CHECK(rs.attempts == 1, "not retried: %d attempts", rs.attempts);
	kube_response_free(&rs);
	kube_request_free(&rq);
	kube_client_free(c);
	kube_config_free(&cfg);

	/* a real CA that did not sign the server certificate */
	CHECK(kube_config_load(&o, &cfg, &e) == 0, "%s", e.msg);
	buf_reset(&cfg.ca_pem);
	struct err ignore = ERR_INIT;
	FILE *f = fopen(in_dir("other-ca.pem"), "r");
	if (f) {
		char chunk[4096];
		size_t n;
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			buf_add(&cfg.ca_pem, chunk, n);
		fclose(f);
	}
	CHECK(cfg.ca_pem.len > 0, "other-ca.pem");
	c = kube_client_new(&cfg, &ignore);
	CHECK(kube_get(c, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == -1, "must fail");
	CHECK(e.code == ERR_NETWORK && strstr(e.msg, "TLS verification") != NULL, "%s", e.msg);
	kube_client_free(c);
	kube_config_free(&cfg);
}

static void s_client_cert(void)
{
	static const struct kube_resource ns = { "", "v1", "namespaces", "Namespace", 0 };
	const char *files[] = { "kubeconfig-cert", "kubeconfig-cert-data", "kubeconfig-tokenfile" };
	for (size_t i = 0; i < 3; i++) {
		struct kube_client *c = client_from(files[i]);
		CHECK(c != NULL, "%s", files[i]);
		if (!c)
			continue;
		cJSON *got = NULL;
		struct err e = ERR_INIT;
		CHECK(kube_get(c, &ns, NULL, "team-a", &got, &e) == 0, "%s: %s", files[i], e.msg);
		CHECK(meta(got, "name") && !strcmp(meta(got, "name"), "team-a"), "%s", files[i]);
		cJSON_Delete(got);
		kube_client_free(c);
	}
}

/* DIR/kubeconfig with its token line replaced by `user_block` and `cluster_line` added. */
static void write_kubeconfig2(const char *name, const char *user_block, const char *cluster_line)
{
	struct buf src = BUF_INIT, out = BUF_INIT;
	FILE *f = fopen(in_dir("kubeconfig"), "r");
	char line[2048];
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "    token: "))
			buf_adds(&out, user_block);
		else
			buf_adds(&out, line);
		if (cluster_line && strstr(line, "    certificate-authority: "))
			buf_adds(&out, cluster_line);
	}
	if (f)
		fclose(f);
	f = fopen(in_dir(name), "w");
	if (f) {
		fputs(out.data, f);
		fclose(f);
	}
	buf_free(&src);
	buf_free(&out);
}

static void write_kubeconfig(const char *name, const char *user_block)
{
	write_kubeconfig2(name, user_block, NULL);
}

static void s_tls_server_name(void)
{
	char block[1200];
	snprintf(block, sizeof(block), "    tokenFile: %s\n", in_dir("admin.token"));
	write_kubeconfig2("kc-sni-ok", block, "    tls-server-name: localhost\n");
	write_kubeconfig2("kc-sni-bad", block, "    tls-server-name: wrong.example\n");
	struct kube_client *ok = client_from("kc-sni-ok");
	struct kube_client *bad = client_from("kc-sni-bad");
	struct err e = ERR_INIT;
	CHECK(ok && kube_get(ok, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "%s", e.msg);
	CHECK(bad && kube_get(bad, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == -1, "wrong name");
	CHECK(e.code == ERR_NETWORK && strstr(e.msg, "wrong.example") != NULL, "%s", e.msg);
	kube_client_free(ok);
	kube_client_free(bad);
}

static void s_token_revoked_and_rotated(void)
{
	struct err e = ERR_INIT;
	cJSON_Delete(control(KUBE_POST, "/_test/users",
			     "{\"name\":\"rot\",\"token\":\"rot-token-1\",\"groups\":[\"system:masters\"]}"));
	/* static token, then revoked: 401 is final */
	write_kubeconfig("kc-static", "    token: rot-token-1\n");
	struct kube_client *c = client_from("kc-static");
	CHECK(kube_get(c, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "%s", e.msg);
	/* token file: rotated by the server (new file), picked up */
	char block[1200];
	snprintf(block, sizeof(block), "    tokenFile: %s\n", in_dir("rot.token"));
	write_kubeconfig("kc-tokenfile", block);
	struct kube_client *tf = client_from("kc-tokenfile");
	CHECK(kube_get(tf, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "%s", e.msg);
	/* exec plugin reading the same file: cached, so only a 401 makes it run again */
	snprintf(block, sizeof(block),
		 "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n"
		 "      args: [-c, 'printf \"{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\","
		 "\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{\\\"token\\\":\\\"%%s\\\"}}\" "
		 "\"$(cat %s)\"']\n", in_dir("rot.token"));
	write_kubeconfig("kc-exec", block);
	struct kube_client *ex = client_from("kc-exec");
	CHECK(ex != NULL, "exec kubeconfig");
	CHECK(ex && kube_get(ex, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "%s", e.msg);

	cJSON_Delete(control(KUBE_POST, "/_test/faults", "{\"rotateToken\":\"rot\"}"));
	CHECK(kube_get(c, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == -1, "revoked");
	CHECK(e.code == ERR_AUTH && e.http_status == 401, "%d %s", e.http_status, e.msg);
	CHECK(kube_get(tf, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "rotated file: %s", e.msg);
	struct kube_request rq;
	struct kube_response rs;
	kube_req_get(&rq, &KUBE_JAXJOB, "team-a", "kc-retry");
	CHECK(ex && kube_call(ex, &rq, &rs, &e) == 0, "exec after 401: %s", e.msg);
	CHECK(rs.attempts == 2, "one 401, then the new token: %d attempts", rs.attempts);
	kube_response_free(&rs);
	kube_request_free(&rq);

	/* a failing plugin: its stderr is not relayed (once per attempt, it was), its last
	 * line is in the one error (issue 27) */
	snprintf(block, sizeof(block),
		 "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n"
		 "      args: [-c, 'echo starting >&2; echo plugin-has-no-credentials >&2; exit 3']\n");
	write_kubeconfig("kc-exec-fail", block);
	struct kube_client *xf = client_from("kc-exec-fail");
	FILE *caught = tmpfile();
	int saved = dup(2);
	char said[256] = "";
	dup2(fileno(caught), 2);
	int xrc = xf ? kube_get(xf, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) : 0;
	dup2(saved, 2);
	close(saved);
	rewind(caught);
	size_t nsaid = fread(said, 1, sizeof(said) - 1, caught);
	said[nsaid] = 0;
	fclose(caught);
	CHECK(xrc == -1 && strstr(e.msg, "(exit status 3): plugin-has-no-credentials"),
	      "a failing exec plugin's last stderr line is in the error: %s", e.msg);
	CHECK(!strstr(said, "plugin-has-no-credentials"), "nothing of it relayed to stderr: %s", said);
	kube_client_free(xf);
	kube_client_free(c);
	kube_client_free(tf);
	kube_client_free(ex);
}

/* Every event of the job comes on a watch of its own (dropped after one). */
static void s_watch_dropped(void)
{
	faults("{\"watchDropAfter\":1}");
	struct follow f = { .stop_on_success = 1 };
	struct kube_watch *w = watch_job_listed(admin, &f, "kc-drop");
	create_job(admin, "kc-drop", 1, "SIM_DURATION=1.5");
	run_loop(admin, &f);
	kube_watch_stop(w);
	CHECK(f.succeeded == 1, "saw Succeeded %d times", f.succeeded);
	CHECK(f.rv_regressed == 0, "%d events out of order or repeated", f.rv_regressed);
	CHECK(f.failed == 0, "%s", f.last_err.msg);
	cJSON *reqs = requests_matching("/jaxjobs");
	int watches = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, reqs)
		watches += cJSON_IsTrue(cJSON_GetObjectItem(r, "watch"));
	CHECK(watches >= 3, "re-watched after each drop: %d watch requests", watches);
	cJSON_Delete(reqs);
	faults(NULL);
}

static void s_watch_gone(void)
{
	struct follow f = { .stop_on_success = 1 };
	faults("{\"watchGone\":1}");
	struct kube_watch *w = watch_job_listed(admin, &f, "kc-gone");
	create_job(admin, "kc-gone", 1, "SIM_DURATION=1");
	run_loop(admin, &f);
	kube_watch_stop(w);
	CHECK(f.succeeded == 1, "saw Succeeded %d times", f.succeeded);
	CHECK(f.synced >= 2, "re-listed after 410: %d syncs", f.synced);
	CHECK(f.added == 1, "the job was ADDED once, %d", f.added);
	CHECK(f.rv_regressed == 0, "%d events out of order", f.rv_regressed);
	faults(NULL);
}

static void s_watch_polling(void)
{
	char block[1200];
	snprintf(block, sizeof(block), "    tokenFile: %s\n", in_dir("nowatch.token"));
	write_kubeconfig("kc-nowatch", block);
	struct kube_client *c = client_from("kc-nowatch");
	struct follow f = { .stop_on_success = 1 };
	struct kube_watch *w = watch_job_listed(c, &f, "kc-poll");
	create_job(admin, "kc-poll", 1, "SIM_DURATION=1");
	run_loop(c, &f);
	kube_watch_stop(w);
	CHECK(f.polling == 1, "polling reported %d times", f.polling);
	CHECK(strstr(f.last_err.msg, "cannot watch") != NULL, "%s", f.last_err.msg);
	CHECK(f.succeeded == 1, "saw Succeeded %d times", f.succeeded);
	CHECK(f.failed == 0, "%s", f.last_err.msg);
	kube_client_free(c);
}

/* Pods of a job: follow each worker's log once it runs. */
struct pods {
	struct follow f;
	struct kube_log *logs[4];
	char uids[4][64];
	int lines[4], ended[4], truncated;
	size_t longest;
	int job_done;
};

static struct pods *cur_pods;

static void log_line_p(void *ud, const char *line, size_t len, int truncated)
{
	int i = (int)(long)ud;
	cur_pods->lines[i]++;
	if (truncated) {
		cur_pods->truncated++;
		if (!strstr(line, "bytes truncated]"))
			cur_pods->truncated += 100;	/* marker missing: fails the check */
	}
	if (len > cur_pods->longest)
		cur_pods->longest = len;
}

static void maybe_done(struct pods *p)
{
	if (p->job_done && p->ended[0] && p->ended[1])
		finish(&p->f);
}

static void log_end(void *ud, const struct err *e)
{
	int i = (int)(long)ud;
	if (e)
		fprintf(stderr, "# log of worker %d ended: %s\n", i, e->msg);
	cur_pods->ended[i] = e ? 2 : 1;
	cur_pods->logs[i] = NULL;
	maybe_done(cur_pods);
}

static int worker_index(const cJSON *pod)
{
	const char *idx = label_of(pod, "training.kubeflow.org/replica-index");
	return idx ? atoi(idx) : -1;
}

static int pod_started(const cJSON *pod)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(pod, "status");
	const cJSON *phase = cJSON_GetObjectItemCaseSensitive(st, "phase");
	return cJSON_IsString(phase) && (!strcmp(phase->valuestring, "Running") ||
					 !strcmp(phase->valuestring, "Succeeded") ||
					 !strcmp(phase->valuestring, "Failed"));
}

static void pod_event(void *ud, enum kube_event_type t, const cJSON *pod)
{
	struct pods *p = ud;
	int i = worker_index(pod);
	if (t == KUBE_DELETED || i < 0 || i > 1 || p->logs[i] || p->ended[i] || !pod_started(pod))
		return;
	struct kube_log_opts o = {
		.ns = "team-a", .pod = meta(pod, "name"), .container = "jax", .max_line = 1000,
		.on_line = log_line_p, .on_end = log_end, .ud = (void *)(long)i,
	};
	struct err e = ERR_INIT;
	p->logs[i] = kube_log_follow(p->f.c, &o, &e);
	CHECK(p->logs[i] != NULL, "%s", e.msg);
}

static void pods_job_event(void *ud, enum kube_event_type t, const cJSON *obj)
{
	struct pods *p = ud;
	if (t != KUBE_DELETED && has_condition(obj, "Succeeded")) {
		p->job_done = 1;
		maybe_done(p);
	}
}

static void s_pods_and_logs(void)
{
	struct pods p;
	memset(&p, 0, sizeof(p));
	cur_pods = &p;
	p.f.c = admin;
	struct kube_watch_opts jo = {
		.res = &KUBE_JAXJOB, .ns = "team-a", .sel = { .field_selector = "metadata.name=kc-logs" },
		.on_event = pods_job_event, .on_state = follow_state, .ud = &p,
	};
	struct kube_watch_opts po = {
		.res = &KUBE_POD, .ns = "team-a",
		.sel = { .label_selector = "training.kubeflow.org/job-name=kc-logs" },
		.on_event = pod_event, .on_state = follow_state, .ud = &p,
	};
	struct err e = ERR_INIT;
	struct kube_watch *jw = kube_watch_start(admin, &jo, &e);
	struct kube_watch *pw = kube_watch_start(admin, &po, &e);
	p.f.guard = kube_timer_add(admin, 40, guard_fired, &p.f);
	create_job(admin, "kc-logs", 2, "SIM_LINES=5 SIM_DURATION=1.5 SIM_BIG_LINE=200000");
	run_loop(admin, &p.f);
	kube_watch_stop(jw);
	kube_watch_stop(pw);
	for (int i = 0; i < 2; i++) {
		kube_log_stop(p.logs[i]);
		/* "connecting", 5 steps, "finished" (+ the big line on worker 0) */
		CHECK(p.lines[i] >= 7, "worker %d: %d lines", i, p.lines[i]);
		CHECK(p.ended[i] == 1, "worker %d log ended cleanly (%d)", i, p.ended[i]);
	}
	CHECK(p.truncated == 1, "one truncated line with its marker (%d)", p.truncated);
	CHECK(p.longest < 1100, "lines bounded: longest %zu", p.longest);
	CHECK(p.job_done, "job succeeded");
}

static void on_signal(void *ud, int signo)
{
	int *got = ud;
	*got = signo;
	kube_loop_stop(admin);
	kube_loop_cancel_call(admin);
}

static void send_term(void *ud)
{
	(void)ud;
	kill(getpid(), SIGTERM);
}

static void s_signal(void)
{
	int got = 0;
	struct follow f = { 0 };
	struct err e = ERR_INIT;
	f.c = admin;
	CHECK(kube_loop_catch_signals(admin, on_signal, &got, &e) == 0, "%s", e.msg);
	struct kube_watch *w = watch_job(admin, &f, "kc-signal");	/* something to wait on */
	kube_timer_add(admin, 0.2, send_term, NULL);
	run_loop(admin, &f);
	kube_watch_stop(w);
	CHECK(got == SIGTERM, "signal %d", got);
}

static void s_signal_cancels_blocking_call(void)
{
	int got = 0;
	struct err e = ERR_INIT;
	CHECK(kube_loop_catch_signals(admin, on_signal, &got, &e) == 0, "%s", e.msg);
	faults("{\"errors\":{\"count\":1000,\"code\":503,\"match\":\"jaxjobs/kc-retry$\"}}");
	kube_timer_add(admin, 0.3, send_term, NULL);
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == -1, "cancelled");
	CHECK(e.code == ERR_CANCELLED, "code %d: %s", e.code, e.msg);
	CHECK(got == SIGTERM, "signal %d", got);
	faults(NULL);
	/* the stop request was consumed: the next blocking call runs normally */
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "%s", e.msg);
}

static void stop_only(void *ud)
{
	kube_loop_stop(ud);
}

static void stop_and_cancel(void *ud)
{
	struct kube_client *c = ud;
	kube_loop_stop(c);
	kube_loop_cancel_call(c);
}

/*
 * A stop or cancel must not outlive what it was meant for: a stop asked
 * during a blocking call (no kube_loop_run) and a cancel that arrives when no
 * call is in flight are dropped, so the call after them - the cleanup DELETE
 * after a SIGTERM - goes through, and so does the next wait.
 */
static void s_stop_and_cancel_do_not_linger(void)
{
	struct err e = ERR_INIT;
	create_job(admin, "kc-linger", 1, "SIM_HANG=1");
	/* a stop from a timer during a blocking call (503s retried): not a cancel */
	faults("{\"errors\":{\"count\":2,\"code\":503,\"match\":\"jaxjobs/kc-linger$\"}}");
	kube_timer_add(admin, 0.05, stop_only, admin);
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-linger", NULL, &e) == 0,
	      "a stop asked during a blocking call cancelled it: %s", e.msg);
	faults(NULL);
	/* stop + cancel (what a signal callback does) while the loop waits: the
	 * stop ends the wait, the cancel is dropped - no call was in flight */
	kube_timer_add(admin, 0, stop_and_cancel, admin);
	CHECK(kube_loop_run(admin, &e) == 0, "%s", e.msg);
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-linger", NULL, &e) == 0,
	      "a cancel asked while no call ran cancelled the next call: %s", e.msg);
	/* the stop asked during the first call did not linger either */
	double t0 = kube_now();
	kube_timer_add(admin, 0.3, stop_only, admin);
	CHECK(kube_loop_run(admin, &e) == 0, "%s", e.msg);
	CHECK(kube_now() - t0 >= 0.25, "a leftover stop ended the next wait at once");
}

struct deleting {
	struct follow f;
	int started, delete_done;
	struct err delete_err;
};

static void delete_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct deleting *d = ud;
	d->delete_done = 1;
	if (e)
		d->delete_err = *e;
	CHECK(rs->json && meta(rs->json, "name"), "the answer names the object");
}

static void delete_on_first_event(void *ud, enum kube_event_type t, const cJSON *obj)
{
	struct deleting *d = ud;
	follow_event(&d->f, t, obj);
	if (d->started)
		return;
	d->started = 1;
	struct kube_request rq;
	kube_req_delete(&rq, &KUBE_JAXJOB, "team-a", "kc-delete", KUBE_PROPAGATE_FOREGROUND, NULL, 0);
	kube_start(d->f.c, &rq, delete_done, d);
	kube_request_free(&rq);
	struct err e = ERR_INIT;
	CHECK(kube_get(d->f.c, &KUBE_JAXJOB, "team-a", "kc-delete", NULL, &e) == -1,
	      "blocking call refused inside a callback");
	CHECK(e.code == ERR_INTERNAL, "%s", e.msg);
}

static void s_async_delete(void)
{
	struct deleting d;
	memset(&d, 0, sizeof(d));
	d.f.stop_on_delete = 1;
	d.f.c = admin;
	create_job(admin, "kc-delete", 1, "SIM_HANG=1");
	struct kube_watch_opts o = {
		.res = &KUBE_JAXJOB, .ns = "team-a", .sel = { .field_selector = "metadata.name=kc-delete" },
		.on_event = delete_on_first_event, .on_state = follow_state, .ud = &d,
	};
	struct err e = ERR_INIT;
	struct kube_watch *w = kube_watch_start(admin, &o, &e);
	d.f.guard = kube_timer_add(admin, 40, guard_fired, &d.f);
	run_loop(admin, &d.f);
	kube_watch_stop(w);
	CHECK(d.delete_done && !d.delete_err.msg[0], "%s", d.delete_err.msg);
	CHECK(d.f.deleted == 1, "DELETED seen %d times", d.f.deleted);
}

/* A watch that tracks metadata only: a DELETED found by a re-list (no
 * live stream: every watch is 410 while the job goes) carries the job's
 * name, namespace, uid and resourceVersion as last seen, and nothing else. */
static const char *or_empty(const char *s)
{
	return s ? s : "";
}

struct meta_run {
	struct follow f;
	char *deleted;		/* the DELETED object, printed */
};

static void meta_event(void *ud, enum kube_event_type t, const cJSON *obj)
{
	struct meta_run *m = ud;
	follow_event(&m->f, t, obj);
	if (t == KUBE_DELETED && !m->deleted) {
		m->deleted = cJSON_PrintUnformatted(obj);
		finish(&m->f);
	}
}

static void s_watch_meta_only(void)
{
	struct meta_run m;
	memset(&m, 0, sizeof(m));
	m.f.c = admin;
	create_job(admin, "kc-meta", 1, "SIM_HANG=1");
	cJSON *live = NULL;
	struct err e = ERR_INIT;
	CHECK(kube_get(admin, &KUBE_JAXJOB, "team-a", "kc-meta", &live, &e) == 0, "%s", e.msg);
	struct kube_watch_opts o = {
		.res = &KUBE_JAXJOB, .ns = "team-a", .sel = { .field_selector = "metadata.name=kc-meta" },
		.on_event = meta_event, .on_state = follow_state, .ud = &m,
	};
	struct kube_watch *w = kube_watch_start(admin, &o, &e);
	kube_watch_track_meta(w);
	m.f.stop_on_sync = 1;
	m.f.guard = kube_timer_add(admin, 40, guard_fired, &m.f);
	run_loop(admin, &m.f);
	m.f.stop_on_sync = 0;
	/* from now on no watch stream lives: the deletion is found by a re-list */
	faults("{\"watchGone\":1000,\"restart\":0.5}");
	CHECK(kube_delete(admin, &KUBE_JAXJOB, "team-a", "kc-meta", KUBE_PROPAGATE_BACKGROUND, NULL,
			  0, NULL, &e) == 0, "%s", e.msg);
	m.f.guard = kube_timer_add(admin, 40, guard_fired, &m.f);
	run_loop(admin, &m.f);
	kube_watch_stop(w);
	faults(NULL);
	cJSON *d = m.deleted ? cJSON_Parse(m.deleted) : NULL;
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(d, "metadata");
	CHECK(d && cJSON_GetArraySize(d) == 1 && cJSON_GetArraySize(md) == 4,
	      "DELETED from the re-list has the metadata alone: %s", m.deleted ? m.deleted : "(none)");
	CHECK(d && !strcmp(or_empty(meta(d, "name")), "kc-meta") && !strcmp(or_empty(meta(d, "namespace")), "team-a") &&
	      !strcmp(or_empty(meta(d, "uid")), or_empty(meta(live, "uid"))), "the job's name, namespace and uid: %s",
	      m.deleted ? m.deleted : "(none)");
	/* the last seen: the operator may have written its status since our GET */
	CHECK(d && atol(or_empty(meta(d, "resourceVersion"))) >= atol(or_empty(meta(live, "resourceVersion"))),
	      "its last resourceVersion seen (%s, GET said %s)", d ? or_empty(meta(d, "resourceVersion")) : "-",
	      or_empty(meta(live, "resourceVersion")));
	cJSON_Delete(d);
	free(m.deleted);
	cJSON_Delete(live);
}

#define BULK_N 20
struct bulk_run {
	struct follow f;
	int answered[BULK_N + 1];	/* [BULK_N]: the request that is not bulk */
	int failed, left;
	int plain_before;		/* bulk answers before the plain one's */
};
static struct bulk_run *cur_bulk;

static void bulk_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct bulk_run *b = cur_bulk;
	long i = (long)ud;
	if (e || rs->status != 200)
		b->failed++;
	b->answered[i]++;
	if (i == BULK_N)
		for (int j = 0; j < BULK_N; j++)
			b->plain_before += b->answered[j];
	if (--b->left == 0)
		finish(&b->f);
}

static struct kube_call *start_get(const char *path, int bulk, long i)
{
	struct kube_request rq;
	kube_request_init(&rq, KUBE_GET, "get");
	buf_adds(&rq.path, path);
	buf_adds(&rq.what, path);
	rq.bulk = bulk;
	struct kube_call *k = kube_start(admin, &rq, bulk_done, (void *)i);
	kube_request_free(&rq);
	return k;
}

/* Many bulk requests at once (a big job's log reads): KUBE_BULK_OPENING
 * open their connections, the others wait their turn, oldest first; every
 * one is answered; a request that is not bulk never waits; a waiting one
 * cancelled is never answered. */
static void s_bulk_turns(void)
{
	struct bulk_run b;
	struct kube_call *calls[BULK_N];
	struct kube_traffic t0, t1;
	memset(&b, 0, sizeof(b));
	cur_bulk = &b;
	b.f.c = admin;
	kube_client_traffic(admin, &t0);
	for (long i = 0; i < BULK_N; i++)
		calls[i] = start_get("/api/v1/namespaces/team-a/pods?limit=1", 1, i);
	start_get("/api/v1/namespaces/team-a/pods?limit=2", 0, BULK_N);
	kube_cancel(calls[BULK_N - 1]);
	b.left = BULK_N;	/* BULK_N - 1 bulk ones and the plain one */
	kube_client_traffic(admin, &t1);
	CHECK(t1.held - t0.held == BULK_N - KUBE_BULK_OPENING, "%lu of %d bulk requests wait "
	      "their turn (%d open at once)", t1.held - t0.held, BULK_N, KUBE_BULK_OPENING);
	b.f.guard = kube_timer_add(admin, 40, guard_fired, &b.f);
	run_loop(admin, &b.f);
	CHECK(!b.failed, "%d requests failed", b.failed);
	for (int i = 0; i < BULK_N - 1; i++)
		CHECK(b.answered[i] == 1, "bulk request %d answered %d times", i, b.answered[i]);
	CHECK(b.answered[BULK_N - 1] == 0, "the cancelled one is never answered");
	CHECK(b.answered[BULK_N] == 1, "the plain request is answered");
	CHECK(b.plain_before < BULK_N - 1, "the plain request did not wait for every bulk one "
	      "(%d answered before it)", b.plain_before);
}

static void s_list_pages(void)
{
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof(name), "kc-page-%d", i);
		cJSON *j = job(name, 1, "SIM_HANG=1");
		cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metadata"), "labels"),
					"page", "yes");
		struct err e = ERR_INIT;
		CHECK(kube_create(admin, &KUBE_JAXJOB, "team-a", j, 0, NULL, &e) == 0, "%s", e.msg);
		cJSON_Delete(j);
	}
	struct kube_list_opts o = { .label_selector = "page=yes", .limit = 1 };
	char *cont = NULL;
	int items = 0, pages = 0;
	struct err e = ERR_INIT;
	do {
		cJSON *page = NULL;
		o.continue_token = cont;
		CHECK(kube_list(admin, &KUBE_JAXJOB, "team-a", &o, &page, &e) == 0, "%s", e.msg);
		free(cont);
		cont = NULL;
		items += cJSON_GetArraySize(cJSON_GetObjectItem(page, "items"));
		pages++;
		const char *next = meta(page, "continue");
		if (next && *next)
			cont = strdup(next);
		cJSON_Delete(page);
	} while (cont && pages < 10);
	free(cont);
	CHECK(items == 3 && pages == 3, "%d items in %d pages", items, pages);
	cJSON *all = NULL;
	o.limit = 0;
	o.continue_token = NULL;
	CHECK(kube_list(admin, &KUBE_JAXJOB, "team-a", &o, &all, &e) == 0, "%s", e.msg);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(all, "items")) == 3, "all pages merged");
	cJSON_Delete(all);
	o.label_selector = "page in (yes";
	CHECK(kube_list(admin, &KUBE_JAXJOB, "team-a", &o, &all, &e) == -1, "bad selector");
	CHECK(e.http_status == 400, "%d %s", e.http_status, e.msg);
}

static void s_patch(void)
{
	struct err e = ERR_INIT;
	cJSON *out = NULL;
	cJSON *merge = cJSON_Parse("{\"spec\":{\"runPolicy\":{\"suspend\":true}}}");
	CHECK(kube_patch(admin, &KUBE_JAXJOB, "team-a", "kc-page-0", KUBE_PATCH_MERGE, merge, 0, &out,
			 &e) == 0, "%s", e.msg);
	const cJSON *rp = cJSON_GetObjectItem(cJSON_GetObjectItem(out, "spec"), "runPolicy");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(rp, "suspend")), "suspended");
	cJSON_Delete(out);
	cJSON *jp = cJSON_Parse("[{\"op\":\"replace\",\"path\":\"/spec/runPolicy/suspend\",\"value\":false}]");
	CHECK(kube_patch(admin, &KUBE_JAXJOB, "team-a", "kc-page-0", KUBE_PATCH_JSON, jp, 0, &out, &e) == 0,
	      "%s", e.msg);
	rp = cJSON_GetObjectItem(cJSON_GetObjectItem(out, "spec"), "runPolicy");
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(rp, "suspend")), "resumed");
	cJSON_Delete(out);
	cJSON_Delete(merge);
	cJSON_Delete(jp);
}

/* Events of a job: what launch watches to fail fast. */
struct events {
	struct follow f;
	int failed_create_service;
};

static void event_event(void *ud, enum kube_event_type t, const cJSON *ev)
{
	struct events *x = ud;
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(ev, "reason");
	if (t != KUBE_DELETED && cJSON_IsString(reason) &&
	    !strcmp(reason->valuestring, "FailedCreateService")) {
		x->failed_create_service++;
		finish(&x->f);
	}
}

static void s_events(void)
{
	struct events x;
	memset(&x, 0, sizeof(x));
	x.f.c = admin;
	struct kube_watch_opts o = {
		.res = &KUBE_EVENT, .ns = "team-a",
		.sel = { .field_selector = "involvedObject.kind=JAXJob,involvedObject.name=kc-events" },
		.on_event = event_event, .on_state = follow_state, .ud = &x,
	};
	struct err e = ERR_INIT;
	struct kube_watch *w = kube_watch_start(admin, &o, &e);
	x.f.guard = kube_timer_add(admin, 40, guard_fired, &x.f);
	create_job(admin, "kc-events", 1, "SIM_FAIL_SERVICE=1");
	run_loop(admin, &x.f);
	kube_watch_stop(w);
	CHECK(x.failed_create_service >= 1, "FailedCreateService seen %d times", x.failed_create_service);
	CHECK(x.f.failed == 0, "%s", x.f.last_err.msg);
}

/* One read of kc-resume's log (exited: no follow), from `since` (NULL: the
 * start) less its first `skip` lines, stopped after `stop_after` lines
 * (0: to the end) with where it could be resumed. */
struct resume_read {
	struct kube_log *log;
	struct buf text;
	long skip, stop_after, lines;
	int ended, has_point;
	char since[KUBE_LOG_SINCE_MAX];
	long point_skip;
};

static void resume_line(void *ud, const char *line, size_t len, int truncated)
{
	struct resume_read *r = ud;
	(void)truncated;
	if (r->skip > 0) {
		r->skip--;
		return;
	}
	buf_add(&r->text, line, len);
	buf_add(&r->text, "\n", 1);
	if (++r->lines == r->stop_after) {
		r->has_point = kube_log_resume_point(r->log, r->since, &r->point_skip);
		kube_log_stop(r->log);
		r->ended = 1;
		kube_loop_stop(admin);
	}
}

static void resume_end(void *ud, const struct err *e)
{
	struct resume_read *r = ud;
	CHECK(e == NULL, "the read ended: %s", e ? e->msg : "");
	r->ended = 1;
	kube_loop_stop(admin);
}

static void read_resumed(struct resume_read *r, const char *since, long skip, long stop_after)
{
	struct kube_log_opts o = {
		.ns = "team-a", .pod = "kc-resume-worker-0", .container = "jax", .since_time = since,
		.once = 1, .timestamps = 1, .on_line = resume_line, .on_end = resume_end, .ud = r,
	};
	struct err e = ERR_INIT;
	memset(r, 0, sizeof(*r));
	buf_init(&r->text);
	r->skip = skip;
	r->stop_after = stop_after;
	r->log = kube_log_follow(admin, &o, &e);
	CHECK(r->log != NULL, "%s", e.msg);
	if (r->log)	/* nothing else runs: it returns when the read ends or stops */
		CHECK(kube_loop_run(admin, &e) == 0, "loop: %s", e.msg);
	CHECK(r->ended, "the read of kc-resume's log did not end: %s", e.msg);
}

/* --log-turn's resume: stopped anywhere, a read taken up at its resume
 * point (the second of its last line, that second's lines skipped) gives
 * the rest of the log exactly - with 20 lines a second, most points fall
 * inside a second that holds several lines. */
static void s_log_resume_point(void)
{
	struct follow f = { .stop_on_success = 1 };
	struct kube_watch *w = watch_job_listed(admin, &f, "kc-resume");
	create_job(admin, "kc-resume", 1, "SIM_LINES=40 SIM_DURATION=2");
	run_loop(admin, &f);
	kube_watch_stop(w);
	struct resume_read all, head, tail;
	read_resumed(&all, NULL, 0, 0);
	CHECK(all.lines >= 40, "the whole log: %ld lines", all.lines);
	long most_skipped = 0;
	for (long k = 1; k < all.lines; k += 3) {
		read_resumed(&head, NULL, 0, k);
		CHECK(head.has_point, "no resume point after %ld lines", k);
		read_resumed(&tail, head.since, head.point_skip, 0);
		struct buf both = BUF_INIT;
		buf_add(&both, head.text.data, head.text.len);
		buf_add(&both, tail.text.data, tail.text.len);
		CHECK(both.len == all.text.len && !memcmp(both.data, all.text.data, both.len),
		      "stopped after %ld lines, resumed at %s skipping %ld: %zu bytes, not the "
		      "log's %zu", k, head.since, head.point_skip, both.len, all.text.len);
		if (head.point_skip > most_skipped)
			most_skipped = head.point_skip;
		buf_free(&both);
		buf_free(&head.text);
		buf_free(&tail.text);
	}
	CHECK(most_skipped > 1, "no resume point fell inside a second of several lines");
	buf_free(&all.text);
}

static void s_watch_errors(void)
{
	struct follow f = { .stop_on_success = 1 };
	struct kube_watch *w = watch_job(admin, &f, "kc-burst");
	faults("{\"errors\":{\"count\":3,\"code\":500,\"match\":\"/jaxjobs$\",\"methods\":[\"GET\"]}}");
	create_job(admin, "kc-burst", 1, "SIM_DURATION=1");
	run_loop(admin, &f);
	kube_watch_stop(w);
	CHECK(f.retrying >= 1, "backed off %d times", f.retrying);
	CHECK(f.succeeded == 1, "saw Succeeded %d times", f.succeeded);
	CHECK(f.failed == 0, "%s", f.last_err.msg);
	faults(NULL);
}

static void s_proxy_env(void)
{
	/* a proxy nobody listens on: the request must try it (curl reads the env) */
	setenv("HTTPS_PROXY", "http://127.0.0.1:9", 1);
	unsetenv("NO_PROXY");
	struct kube_client *c = client_from("kubeconfig");
	struct err e = ERR_INIT;
	kube_client_set_retry(c, 0.5);
	CHECK(kube_get(c, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == -1, "went through the proxy");
	CHECK(e.code == ERR_NETWORK, "%s", e.msg);
	kube_client_free(c);
	setenv("NO_PROXY", "127.0.0.1", 1);
	c = client_from("kubeconfig");
	CHECK(kube_get(c, &KUBE_JAXJOB, "team-a", "kc-retry", NULL, &e) == 0, "NO_PROXY: %s", e.msg);
	kube_client_free(c);
	unsetenv("HTTPS_PROXY");
	unsetenv("NO_PROXY");
}

struct scenario {
	const char *name;
	void (*fn)(void);
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s STATE_DIR [SCENARIO]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	static const struct scenario all[] = {
		{ "config: kubeconfig with token and CA file, namespace from the context", s_config },
		{ "create: 201 with the object, again 409 AlreadyExists, GET finds the same uid and label", s_create_conflict_get },
		{ "delete: preconditions - a stale resourceVersion or another uid is 409, the object seen is deleted", s_delete_preconditions },
		{ "create: server-side dry run returns the object and stores nothing", s_dry_run },
		{ "create: 422 Invalid keeps the API message naming the field", s_invalid },
		{ "get: a plain 404 on an unknown API group says the CRD is not installed", s_crd_missing },
		{ "retry: a burst of 500s is retried until it succeeds", s_retry_500 },
		{ "retry: 429 waits for Retry-After; User-Agent is jaxjob/<version>", s_retry_after },
		{ "retry: persistent 503 gives up at the deadline with the API message", s_give_up },
		{ "retry: a server that drops connections is retried until it is back", s_server_down },
		{ "tls: a wrong CA fails closed, at once, as a TLS verification error", s_wrong_ca },
		{ "auth: client certificate (files and inline data) and token file", s_client_cert },
		{ "tls: tls-server-name is the name verified, the server is still where we connect", s_tls_server_name },
		{ "auth: revoked static token is a final 401; token file and exec plugin recover", s_token_revoked_and_rotated },
		{ "watch: dropped streams resume from the last resourceVersion, nothing repeated", s_watch_dropped },
		{ "watch: 410 Expired re-lists and carries on to Succeeded", s_watch_gone },
		{ "watch: forbidden watch falls back to polling with the same events", s_watch_polling },
		{ "loop: pod watch + log follow of every worker, long line truncated and marked", s_pods_and_logs },
		{ "loop: SIGTERM wakes the loop and reaches the signal callback", s_signal },
		{ "loop: SIGTERM during a blocking call (retrying 503s) cancels it", s_signal_cancels_blocking_call },
		{ "loop: a stop or cancel never outlives its call or wait (cleanup after SIGTERM goes through)", s_stop_and_cancel_do_not_linger },
		{ "loop: async delete from a watch callback; DELETED arrives; blocking calls refused there", s_async_delete },
		{ "watch: 500 bursts on list and watch back off and recover", s_watch_errors },
		{ "watch: events of a job by involvedObject (fail-fast input)", s_events },
		{ "log: a read stopped anywhere and taken up at its resume point gives the rest exactly", s_log_resume_point },
		{ "config: HTTPS_PROXY from the environment is used, NO_PROXY bypasses it", s_proxy_env },
		{ "list: limit/continue pages and kube_list merging them; bad selector is 400", s_list_pages },
		{ "watch: metadata-only tracking: a DELETED a re-list finds carries the metadata last seen", s_watch_meta_only },
		{ "bulk: 20 requests at once open KUBE_BULK_OPENING connections, the rest in turn, each answered once", s_bulk_turns },
		{ "patch: merge patch suspends, JSON patch resumes", s_patch },
	};
	admin = client_from("kubeconfig");
	if (!admin) {
		printf("not ok - kube client: cannot load %s/kubeconfig\n", dir);
		return 0;
	}
	faults(NULL);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (argc > 2 && !strstr(all[i].name, argv[2]))
			continue;
		failures_in_scenario = 0;
		scenario = all[i].name;
		fprintf(stderr, "# %s\n", all[i].name);
		all[i].fn();
		printf("%s - kube client: %s\n", failures_in_scenario ? "not ok" : "ok", all[i].name);
		fflush(stdout);
	}
	kube_client_free(admin);
	return 0;
}
