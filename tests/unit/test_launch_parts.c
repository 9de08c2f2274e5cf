/* test_launch_parts.c - launch's pure parts: identity, log line streams,
 * outputs (atomic files, values, summary), progress phase. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "buf.h"
#include "err.h"
#include "kube/kube_log_place.h"
#include "component/launch/decide/launch_failure.h"
#include "component/launch/cli/launch_identity.h"
#include "component/launch/spokes/launch_logs.h"
#include "component/launch/outputs/launch_outputs.h"
#include "component/launch/outputs/launch_progress.h"
#include "component/launch/decide/launch_verdict.h"

/* The "Why it failed" section: the lines in a fence no line can close, the
 * newest lines kept when they do not all fit, nothing for {} */
static void failure_section_fences_and_keeps_the_last_lines(void **state)
{
	struct buf md = BUF_INIT, big = BUF_INIT;
	cJSON *f = cJSON_Parse("{\"worker\":2,\"pod\":\"j-worker-2\",\"node\":\"n\",\"category\":"
			       "\"application\",\"exception\":\"ValueError: a|b\",\"last_lines\":"
			       "[\"```\",\"ValueError: a|b\"],\"collateral\":[{\"worker\":0}]}");
	cJSON *lines;
	(void)state;

	launch_failure_summary(f, "worker-2 Error (exit 1)", &md);
	assert_non_null(strstr(md.data, "#### Why it failed\n\nworker-2 Error (exit 1)\n"));
	assert_non_null(strstr(md.data, "| exception | ValueError: a\\|b |"));
	assert_non_null(strstr(md.data, "| failed after it | worker-0 |"));
	assert_non_null(strstr(md.data, "\n````text\n```\nValueError: a|b\n````\n"));
	buf_reset(&md);
	/* 500 lines of 400 bytes: far more than the section's 32 kB */
	cJSON_DeleteItemFromObjectCaseSensitive(f, "last_lines");
	lines = cJSON_AddArrayToObject(f, "last_lines");
	for (int i = 0; i < 500; i++) {
		buf_reset(&big);
		buf_addf(&big, "line %03d ", i);
		while (big.len < 400)
			buf_addch(&big, 'x');
		cJSON_AddItemToArray(lines, cJSON_CreateString(big.data));
	}
	launch_failure_summary(f, "m", &md);
	assert_true(md.len < 33 * 1024);
	assert_non_null(strstr(md.data, "line 499 "));
	assert_null(strstr(md.data, "line 000 "));
	buf_reset(&md);
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	launch_failure_summary(f, "m", &md);
	assert_int_equal(md.len, 0);
	cJSON_Delete(f);
	buf_free(&md);
	buf_free(&big);
}

static void clear_pipeline_env(void)
{
	unsetenv("ARGO_WORKFLOW_UID");
	unsetenv("ARGO_WORKFLOW_NAME");
	unsetenv("KFP_RUN_ID");
	unsetenv("ARGO_NODE_ID");
}

static void retries_of_one_argo_step_share_an_identity(void **state)
{
	(void)state;
	struct launch_identity a, b, c;
	struct err e = ERR_INIT;

	clear_pipeline_env();
	setenv("ARGO_WORKFLOW_NAME", "train-x7k2p", 1);
	setenv("ARGO_NODE_ID", "train-x7k2p-111", 1);
	setenv("HOSTNAME", "train-x7k2p-step-111", 1);
	assert_int_equal(launch_identity_derive_task(NULL, NULL, "team-a", "mnist", &a, &e), 0);
	/* the retry: new node id and pod name, same workflow */
	setenv("ARGO_NODE_ID", "train-x7k2p-222", 1);
	setenv("HOSTNAME", "train-x7k2p-step-222", 1);
	assert_int_equal(launch_identity_derive_task(NULL, NULL, "team-a", "mnist", &b, &e), 0);
	assert_string_equal(a.id, b.id);
	assert_int_equal(strlen(a.id), 32);
	assert_true(a.adoptable);
	assert_non_null(strstr(a.source, "train-x7k2p"));
	assert_string_equal(b.pod, "train-x7k2p-step-222");
	/* another run of the same pipeline is someone else */
	setenv("ARGO_WORKFLOW_NAME", "train-q9z3m", 1);
	assert_int_equal(launch_identity_derive_task(NULL, NULL, "team-a", "mnist", &c, &e), 0);
	assert_string_not_equal(a.id, c.id);
	/* another step (job name) of the same run too */
	setenv("ARGO_WORKFLOW_NAME", "train-x7k2p", 1);
	assert_int_equal(launch_identity_derive_task(NULL, NULL, "team-a", "eval", &c, &e), 0);
	assert_string_not_equal(a.id, c.id);
	clear_pipeline_env();
}

static void flag_wins_and_local_runs_are_never_adoptable(void **state)
{
	(void)state;
	struct launch_identity a, b;
	struct err e = ERR_INIT;

	clear_pipeline_env();
	setenv("KFP_RUN_ID", "run-1", 1);
	assert_int_equal(launch_identity_derive_task("mine", NULL, "ns", "j", &a, &e), 0);
	assert_string_equal(a.source, "--identity");
	unsetenv("KFP_RUN_ID");
	assert_int_equal(launch_identity_derive_task("mine", NULL, "ns", "j", &b, &e), 0);
	assert_string_equal(a.id, b.id);

	assert_int_equal(launch_identity_derive_task(NULL, NULL, "ns", "j", &a, &e), 0);
	assert_false(a.adoptable);
	assert_int_equal(launch_identity_derive_task(NULL, NULL, "ns", "j", &b, &e), 0);
	assert_string_not_equal(a.id, b.id);

	assert_int_equal(launch_identity_derive_task("", NULL, "ns", "j", &a, &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "--identity"));
}

static void stamp_adds_label_and_annotations_and_match_compares(void **state)
{
	(void)state;
	struct launch_identity id, other;
	struct err e = ERR_INIT;
	cJSON *job = cJSON_Parse("{\"metadata\":{\"name\":\"j\",\"labels\":{\"a\":\"b\"}}}");

	clear_pipeline_env();
	assert_int_equal(launch_identity_derive_task("x", NULL, "ns", "j", &id, &e), 0);
	assert_int_equal(launch_identity_derive_task("y", NULL, "ns", "j", &other, &e), 0);
	assert_false(launch_identity_matches(job, &id));
	launch_identity_stamp(job, &id);
	assert_string_equal(launch_identity_of(job), id.id);
	assert_true(launch_identity_matches(job, &id));
	assert_false(launch_identity_matches(job, &other));
	const cJSON *labels = cJSON_GetObjectItem(cJSON_GetObjectItem(job, "metadata"), "labels");
	assert_string_equal(cJSON_GetObjectItem(labels, "a")->valuestring, "b");
	const cJSON *ann = cJSON_GetObjectItem(cJSON_GetObjectItem(job, "metadata"), "annotations");
	assert_string_equal(cJSON_GetObjectItem(ann, LAUNCH_SOURCE_ANNOTATION)->valuestring, "--identity");
	cJSON_Delete(job);
}

/* ---- log streams ------------------------------------------------------- */

/* What the lines become on a stdout that is a regular file. A line may
 * begin with a kubelet timestamp, which is taken off as kube_log does; the
 * flags launch_logstream_line returned are or-ed into *flags (if given). */
static char *feed_lines_flags(struct launch_logstream *s, const char *const *lines, int *flags)
{
	struct launch_stdout out;
	FILE *f = tmpfile();
	char *mem = xcalloc(1, 4096);

	launch_stdout_init(&out, fileno(f));
	for (; *lines; lines++) {
		double when = 0;
		size_t len = strlen(*lines), n = kube_log_stamp(*lines, len, &when);
		int r = launch_logstream_line(s, n ? when : 0, *lines + n, len - n, &out);
		if (flags)
			*flags |= r;
	}
	launch_stdout_free(&out);
	rewind(f);
	assert_true(fread(mem, 1, 4095, f) < 4095);
	fclose(f);
	return mem;
}

static char *feed_lines(struct launch_logstream *s, const char *const *lines)
{
	return feed_lines_flags(s, lines, NULL);
}

/* A pipe nobody reads: lines queue, nothing blocks, the rest is counted. */
static void unread_stdout_never_blocks(void **state)
{
	(void)state;
	struct launch_stdout out;
	struct buf lost = BUF_INIT;
	char line[128];
	int p[2];

	signal(SIGPIPE, SIG_IGN);	/* as jaxjob.c does for launch */
	assert_int_equal(pipe(p), 0);
	launch_stdout_init(&out, p[1]);
	assert_true(out.nonblocking);
	/* 1 MiB of lines into a 64 KiB pipe: returns each time */
	for (int i = 0; i < 8192; i++) {
		int n = snprintf(line, sizeof(line), "[worker-%d] %0100d\n", i % 3, i);
		launch_stdout_line(&out, i % 3, line, (size_t)n);
	}
	assert_true(out.q.len - out.off > 0);
	unsigned long n = launch_stdout_lost(&out, &lost);
	assert_true(n > 0 && n < 8192);
	assert_non_null(strstr(lost.data, "worker-0: "));
	assert_non_null(strstr(lost.data, "worker-2: "));
	buf_free(&lost);
	/* the reader goes away: EPIPE closes it, later lines are counted */
	close(p[0]);
	launch_stdout_line(&out, 1, "[worker-1] x\n", 13);
	assert_true(out.closed);
	launch_stdout_line(&out, 1, "[worker-1] y\n", 13);
	assert_int_equal(launch_stdout_lost(&out, &lost), n + 2);
	buf_free(&lost);
	launch_stdout_free(&out);
	close(p[1]);
}

static void lines_are_prefixed_with_the_worker(void **state)
{
	(void)state;
	struct launch_logstream s;
	const char *lines[] = { "step 1", "", "step 2", NULL };
	launch_logstream_init(&s, 3, 0);
	char *out = feed_lines(&s, lines);
	assert_string_equal(out, "[worker-3] step 1\n[worker-3] \n[worker-3] step 2\n");
	assert_int_equal(s.printed, 3);
	free(out);
}

static void resumed_follow_does_not_repeat_lines(void **state)
{
	(void)state;
	struct launch_logstream s;
	const char *first[] = { "a", "b", NULL };
	const char *again[] = { "a", "b", "c", "d", NULL };
	const char *third[] = { "a", "b", "c", "d", "e", NULL };

	launch_logstream_init(&s, 0, 0);
	char *out = feed_lines(&s, first);
	free(out);
	launch_logstream_resume(&s);
	out = feed_lines(&s, again);
	assert_string_equal(out, "[worker-0] c\n[worker-0] d\n");
	free(out);
	launch_logstream_resume(&s);
	out = feed_lines(&s, third);
	assert_string_equal(out, "[worker-0] e\n");
	free(out);
}

/*
 * A follow resumed from the log's start after a clean end reads the pod's
 * current container: when that is a newer one (restarted before the pod
 * watch said so), its first line is not the first line printed, and it is
 * stamped after every line printed: all its lines are new, and the stream
 * counts the restart ahead of the pod watch. The same container's log is
 * skipped as far as printed; a log whose first line is stamped earlier (a
 * rotated log) is not taken for a restart.
 */
/* Feed lines; what was printed and the flags returned are as wanted. */
static void feed_expect(struct launch_logstream *s, const char *const *lines, const char *want,
			int want_flags)
{
	int flags = 0;
	char *out = feed_lines_flags(s, lines, &flags);

	assert_string_equal(out, want);
	assert_int_equal(flags, want_flags);
	free(out);
}

static void resumed_follow_sees_a_newer_container(void **state)
{
	(void)state;
	struct launch_logstream s;
	const char *run0[] = { "2026-11-28T10:00:01.5Z a", "2026-11-28T10:00:02Z crashed", NULL };
	const char *run1[] = { "2026-11-28T10:00:03.25Z a", "2026-11-28T10:00:04Z b", NULL };
	const char *run1_more[] = { "2026-11-28T10:00:03.25Z a", "2026-11-28T10:00:04Z b",
				    "2026-11-28T10:00:05Z done", NULL };
	const char *rotated[] = { "2026-11-28T10:00:03.5Z b2", "2026-11-28T10:00:04Z b",
				  "2026-11-28T10:00:05Z done", "2026-11-28T10:00:06Z e", NULL };
	const char *since[] = { "2026-11-28T10:00:06Z e", "2026-11-28T10:00:07Z f", NULL };
	const int printed = LAUNCH_LINE_PRINTED;

	launch_logstream_init(&s, 1, 0);
	feed_expect(&s, run0, "[worker-1] a\n[worker-1] crashed\n", printed);
	launch_logstream_resume(&s);
	feed_expect(&s, run1, "[worker-1] a\n[worker-1] b\n", printed | LAUNCH_LINE_NEWER);
	assert_int_equal(s.restarts, 1);
	assert_true(s.ahead);
	/* the same (newer) container again: what was printed of it is skipped */
	launch_logstream_resume(&s);
	feed_expect(&s, run1_more, "[worker-1] done\n", printed);
	/* a first line stamped before the last printed one: no restart */
	launch_logstream_resume(&s);
	feed_expect(&s, rotated, "[worker-1] e\n", printed);
	/* a sinceTime resume does not begin at the log's first line: no check */
	launch_logstream_resume_since(&s, 1);
	feed_expect(&s, since, "[worker-1] f\n", printed);
	assert_int_equal(s.restarts, 1);
}

/* ---- outputs ----------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT;
	char tmp[4096];
	size_t n;
	if (!f)
		return NULL;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	return buf_detach(&b, NULL);
}

static const char *JOB =
	"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"metadata\":{\"name\":\"mnist\",\"namespace\":\"team-a\",\"uid\":\"u-1\"},"
	"\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},"
	"\"status\":{\"startTime\":\"2026-01-02T03:04:05Z\","
	"\"completionTime\":\"2026-01-02T03:05:15Z\","
	"\"replicaStatuses\":{\"Worker\":{\"succeeded\":3,\"failed\":1}},"
	"\"conditions\":[{\"type\":\"Created\",\"status\":\"True\"},"
	"{\"type\":\"Running\",\"status\":\"False\"},{\"type\":\"Failed\",\"status\":\"True\","
	"\"reason\":\"JAXJobFailed\",\"message\":\"1 | 2\"}]}}";

/* The outcome, as the table decides it (launch_outcome.h). */
static void decided(struct launch_result *r, enum launch_outcome_row row, const char *reason,
		    const char *msg)
{
	struct launch_cause c;

	launch_cause_set(&c, row, reason, "%s", msg);
	launch_outcome_decide(&c, NULL, &r->outcome);
}

static void outputs_are_written_into_new_directories(void **state)
{
	(void)state;
	char dir[] = "/tmp/jaxjob-unit-XXXXXX";
	struct buf p[6] = { BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT };
	struct launch_outputs o;
	struct launch_result r;
	struct err e = ERR_INIT;
	cJSON *job = cJSON_Parse(JOB);

	assert_non_null(mkdtemp(dir));
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	buf_addf(&p[0], "%s/state/data", dir);
	buf_addf(&p[1], "%s/a/b/duration", dir);
	buf_addf(&p[2], "%s/workers.json", dir);
	buf_addf(&p[3], "%s/summary.md", dir);
	buf_addf(&p[4], "%s/exit", dir);
	buf_addf(&p[5], "%s/uid", dir);
	o.state = p[0].data;
	o.duration = p[1].data;
	o.workers = p[2].data;
	o.summary = p[3].data;
	o.exit_code = p[4].data;
	o.job_uid = p[5].data;
	r.job = job;
	decided(&r, LAUNCH_OUTCOME_FAILED, "JAXJobFailed", "JAXJob mnist is failed");
	launch_workers_of(job, &r.workers);	/* as the ending counts them */
	struct launch_verdict v;
	launch_verdict_of(job, &v);
	assert_string_equal(v.phase, "Failed");
	assert_true(v.terminal && !v.succeeded);
	assert_string_equal(v.reason, "JAXJobFailed");
	assert_int_equal(launch_outputs_write(&o, &r, &e), 0);

	char *s = slurp(o.state);
	assert_string_equal(s, "Failed");
	free(s);
	s = slurp(o.duration);
	assert_string_equal(s, "70.000");
	free(s);
	s = slurp(o.workers);
	assert_string_equal(s, "{\"active\":0,\"failed\":1,\"replicas\":4,\"succeeded\":3}");
	free(s);
	s = slurp(o.exit_code);
	assert_string_equal(s, "1");
	free(s);
	s = slurp(o.job_uid);
	assert_string_equal(s, "u-1");
	free(s);
	s = slurp(o.summary);
	assert_non_null(strstr(s, "### JAXJob team-a/mnist: Failed"));
	assert_non_null(strstr(s, "| workers | 4 requested: 3 succeeded, 1 failed, 0 active |"));
	free(s);

	/* an output path that cannot be written does not stop the others */
	buf_reset(&p[0]);
	buf_addf(&p[0], "%s/exit/state", dir);	/* "exit" is a file */
	o.state = p[0].data;
	unlink(o.summary);
	assert_int_equal(launch_outputs_write(&o, &r, &e), -1);
	assert_int_equal(e.code, ERR_IO);
	s = slurp(o.summary);
	assert_non_null(s);
	free(s);

	for (int i = 0; i < 6; i++)
		buf_free(&p[i]);
	cJSON_Delete(job);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void unknown_values_are_empty_not_missing(void **state)
{
	(void)state;
	char dir[] = "/tmp/jaxjob-unit-XXXXXX";
	struct buf p = BUF_INIT;
	struct launch_outputs o;
	struct launch_result r;
	struct err e = ERR_INIT;

	assert_non_null(mkdtemp(dir));
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	buf_addf(&p, "%s/start", dir);
	o.start_time = p.data;
	decided(&r, LAUNCH_OUTCOME_API_ERROR, "Forbidden", "no");
	assert_int_equal(launch_outputs_write(&o, &r, &e), 0);
	struct stat st;
	assert_int_equal(stat(p.data, &st), 0);
	assert_int_equal(st.st_size, 0);
	unlink(p.data);
	rmdir(dir);
	buf_free(&p);
}

/* a job never created: the STRUCT output is "{}" and the NUMBER_DOUBLE duration
 * 0.000, which KFP parses; "" it does not */
static void job_json_of_no_job_is_an_empty_object(void **state)
{
	(void)state;
	char dir[] = "/tmp/jaxjob-unit-XXXXXX";
	struct buf p = BUF_INIT, d = BUF_INIT;
	struct launch_outputs o;
	struct launch_result r;
	struct err e = ERR_INIT;

	assert_non_null(mkdtemp(dir));
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	buf_addf(&p, "%s/job_json", dir);
	buf_addf(&d, "%s/duration", dir);
	o.job_json = p.data;
	o.duration = d.data;
	decided(&r, LAUNCH_OUTCOME_API_ERROR, "Forbidden", "no");
	assert_int_equal(launch_outputs_write(&o, &r, &e), 0);
	char *s = slurp(p.data);
	assert_string_equal(s, "{}");
	free(s);
	s = slurp(d.data);
	assert_string_equal(s, "0.000");
	free(s);
	unlink(p.data);
	unlink(d.data);
	rmdir(dir);
	buf_free(&p);
	buf_free(&d);
}

static void outcome_outputs_turns_job_endings_into_exit_0(void **state)
{
	(void)state;
	static const enum launch_outcome_row ended[] = {
		LAUNCH_OUTCOME_FAILED, LAUNCH_OUTCOME_TIMEOUT, LAUNCH_OUTCOME_CANCELLED,
		LAUNCH_OUTCOME_DELETED, LAUNCH_OUTCOME_STUCK, LAUNCH_OUTCOME_QUEUE_TIMEOUT,
	};
	static const enum launch_outcome_row kept[] = {	/* bad input and API errors still */
		LAUNCH_OUTCOME_BAD_INPUT, LAUNCH_OUTCOME_API_ERROR,	/* fail the step, so */
		LAUNCH_OUTCOME_SUCCEEDED, LAUNCH_OUTCOME_DRY_RUN,	/* engines retry them */
	};
	struct launch_result r;

	for (size_t i = 0; i < sizeof(ended) / sizeof(ended[0]); i++) {
		decided(&r, ended[i], NULL, "");
		assert_int_not_equal(r.outcome.exit_code, 0);
		assert_int_equal(launch_outcome_exit(1, &r.outcome), 0);
		assert_int_equal(launch_outcome_exit(0, &r.outcome), r.outcome.exit_code);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		decided(&r, kept[i], NULL, "");
		assert_int_equal(launch_outcome_exit(1, &r.outcome), r.outcome.exit_code);
	}
}

/* --run-id/--task-*: retries of one task share the identity and the name; runs and tasks differ */
static void run_and_task_inputs_give_identity_and_name(void **state)
{
	(void)state;
	struct launch_task t1 = { "run-a", "train", "17" }, t2 = { "run-b", "train", "17" };
	struct launch_task t3 = { "run-a", "train", "18" };
	struct launch_identity a, b;
	struct err e = ERR_INIT;
	char n1[64], n1b[64], n2[64], n3[64];

	clear_pipeline_env();
	setenv("HOSTNAME", "pod-1", 1);
	assert_int_equal(launch_identity_name("mnist", NULL, &t1, n1, sizeof(n1), &e), 0);
	assert_int_equal(strlen(n1), strlen("mnist-") + LAUNCH_NAME_SUFFIX_HEX);
	assert_int_equal(strncmp(n1, "mnist-", 6), 0);
	assert_int_equal(launch_identity_derive_task(NULL, &t1, "ns", n1, &a, &e), 0);
	assert_true(a.adoptable);
	assert_string_equal(a.source, "run run-a task train/17");
	/* the retry: another pod, the same inputs */
	setenv("HOSTNAME", "pod-2", 1);
	assert_int_equal(launch_identity_name("mnist", NULL, &t1, n1b, sizeof(n1b), &e), 0);
	assert_string_equal(n1, n1b);
	assert_int_equal(launch_identity_derive_task(NULL, &t1, "ns", n1b, &b, &e), 0);
	assert_string_equal(a.id, b.id);
	/* another run, another task id: other names */
	assert_int_equal(launch_identity_name("mnist", NULL, &t2, n2, sizeof(n2), &e), 0);
	assert_int_equal(launch_identity_name("mnist", NULL, &t3, n3, sizeof(n3), &e), 0);
	assert_string_not_equal(n1, n2);
	assert_string_not_equal(n1, n3);
	/* --run-id wins over the environment */
	setenv("KFP_RUN_ID", "run-z", 1);
	assert_int_equal(launch_identity_name("mnist", NULL, &t1, n1b, sizeof(n1b), &e), 0);
	assert_string_equal(n1, n1b);
	/* the environment alone gives the run too (use_field_path_as_env) */
	struct launch_task none = { NULL, NULL, NULL };
	assert_int_equal(launch_identity_name("mnist", NULL, &none, n2, sizeof(n2), &e), 0);
	clear_pipeline_env();
	/* no run at all: refused, naming the fix */
	assert_int_equal(launch_identity_name("mnist", NULL, &none, n2, sizeof(n2), &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_non_null(strstr(e.msg, "--run-id"));
	/* a task alone does not make a local run adoptable */
	struct launch_task only_task = { NULL, "train", NULL };
	assert_int_equal(launch_identity_derive_task(NULL, &only_task, "ns", "j", &a, &e), 0);
	assert_false(a.adoptable);
	/* the identity of an env-only run is what it was before --run-id existed */
	setenv("ARGO_WORKFLOW_NAME", "train-x7k2p", 1);
	assert_int_equal(launch_identity_derive_task(NULL, NULL, "team-a", "mnist", &a, &e), 0);
	assert_int_equal(launch_identity_derive_task(NULL, &none, "team-a", "mnist", &b, &e), 0);
	assert_string_equal(a.id, b.id);
	clear_pipeline_env();
	err_clear(&e);
	struct launch_task nl = { "a\nb", NULL, NULL };
	assert_int_equal(launch_identity_derive_task(NULL, &nl, "ns", "j", &a, &e), -1);
	assert_non_null(strstr(e.msg, "--run-id"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(job_json_of_no_job_is_an_empty_object),
		cmocka_unit_test(failure_section_fences_and_keeps_the_last_lines),
		cmocka_unit_test(outcome_outputs_turns_job_endings_into_exit_0),
		cmocka_unit_test(run_and_task_inputs_give_identity_and_name),
		cmocka_unit_test(retries_of_one_argo_step_share_an_identity),
		cmocka_unit_test(flag_wins_and_local_runs_are_never_adoptable),
		cmocka_unit_test(stamp_adds_label_and_annotations_and_match_compares),
		cmocka_unit_test(lines_are_prefixed_with_the_worker),
		cmocka_unit_test(unread_stdout_never_blocks),
		cmocka_unit_test(resumed_follow_does_not_repeat_lines),
		cmocka_unit_test(resumed_follow_sees_a_newer_container),
		cmocka_unit_test(outputs_are_written_into_new_directories),
		cmocka_unit_test(unknown_values_are_empty_not_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
