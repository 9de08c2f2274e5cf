/* test_diagnose.c - why a job failed, from pods, events and log lines: the
 * first failing worker (by finishedAt, ties and undated ones by index), its category, its
 * exception and last lines, the workers that failed after it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "health/diagnose.h"

/* A worker pod: `state` is the JSON of containerStatuses[0].state. */
static void pod(struct diag *d, int i, const char *state, const char *extra_status)
{
	char text[2048];
	cJSON *p;

	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"name\":\"j-worker-%d\"},\"spec\":{\"nodeName\":\"node-a\"},"
		 "\"status\":{%s%s\"containerStatuses\":[{\"name\":\"jax\",\"restartCount\":0,"
		 "\"state\":%s}]}}", i, extra_status ? extra_status : "", extra_status ? "," : "",
		 state);
	p = cJSON_Parse(text);
	assert_non_null(p);
	diag_pod(d, i, p, "jax");
	cJSON_Delete(p);
}

static void term(struct diag *d, int i, int code, const char *reason, const char *at)
{
	char s[256];
	snprintf(s, sizeof(s), "{\"terminated\":{\"exitCode\":%d,\"reason\":\"%s\","
		 "\"finishedAt\":\"2026-11-26T%sZ\"}}", code, reason, at);
	pod(d, i, s, NULL);
}

static void line(struct diag *d, int i, const char *s)
{
	diag_line(d, i, s, strlen(s));
}

static void headline_is(const struct diag_failure *f, const char *want)
{
	struct buf b = BUF_INIT;
	diag_headline(f, &b);
	assert_string_equal(b.data ? b.data : "", want);
	buf_free(&b);
}

static void oom_first_and_the_rest_collateral(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	(void)state;

	for (int i = 0; i < 4; i++)
		pod(d, i, "{\"running\":{}}", NULL);
	term(d, 0, 1, "Error", "12:01:12");
	term(d, 3, 1, "Error", "12:01:13");
	term(d, 2, 137, "OOMKilled", "12:01:07");
	term(d, 1, 1, "Error", "12:01:12");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.index, 2);
	assert_int_equal(f.category, DIAG_OOM);
	assert_int_equal(f.exit_code, 137);
	assert_int_equal(f.signal, 9);
	assert_string_equal(f.node, "node-a");
	headline_is(&f, "worker-2 OOMKilled (exit 137) on node-a at 12:01:07; "
		    "3 workers failed after it");
	/* in order of failure, ties by index */
	assert_int_equal(f.ncollateral, 3);
	assert_int_equal(f.collateral[0].index, 0);
	assert_int_equal(f.collateral[1].index, 1);
	assert_int_equal(f.collateral[2].index, 3);
	diag_failure_free(&f);
	diag_free(d);
}

static void traceback_exception_and_last_lines(void **state)
{
	struct diag *d = diag_new(3);
	struct diag_failure f;
	cJSON *j;
	char *text;
	(void)state;

	pod(d, 0, "{\"running\":{}}", NULL);
	line(d, 0, "step 1 loss=0.5");
	line(d, 0, "Traceback (most recent call last):");
	line(d, 0, "  File \"train.py\", line 9, in <module>");
	line(d, 0, "    main()");
	line(d, 0, "ValueError: learning rate must be positive, got -1");
	term(d, 0, 1, "Error", "12:00:00");
	assert_int_equal(diag_result(d, "JAXJob j is failed because 1 Worker replica(s) failed.",
				     &f), 1);
	assert_int_equal(f.category, DIAG_APPLICATION);
	assert_string_equal(f.exception, "ValueError: learning rate must be positive, got -1");
	assert_int_equal(f.nlines, 3);
	assert_string_equal(f.lines[0], "  File \"train.py\", line 9, in <module>");
	assert_string_equal(f.lines[2], "ValueError: learning rate must be positive, got -1");
	headline_is(&f, "worker-0 Error (exit 1) on node-a at 12:00:00: ValueError: learning "
		    "rate must be positive, got -1");
	j = diag_failure_json(&f);
	text = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(text, "\"worker\":0,\"pod\":\"j-worker-0\",\"node\":\"node-a\","
			       "\"exit_code\":1,\"signal\":null,\"reason\":\"Error\","
			       "\"category\":\"application\""));
	assert_non_null(strstr(text, "\"collateral\":[]"));
	cJSON_free(text);
	cJSON_Delete(j);
	diag_failure_free(&f);
	diag_free(d);
}

static void chained_traceback_takes_the_last(void **state)
{
	const char *lines[] = {
		"Traceback (most recent call last):", "  File \"a.py\", line 1", "KeyError: 'x'",
		"", "During handling of the above exception, another exception occurred:", "",
		"Traceback (most recent call last):", "  File \"a.py\", line 3",
		"RuntimeError: lookup failed", "I1126 shutting down",
	};
	size_t lens[10], n = 0;
	(void)state;

	for (int i = 0; i < 10; i++)
		lens[i] = strlen(lines[i]);
	assert_string_equal(diag_exception(lines, lens, 10, &n), "RuntimeError: lookup failed");
	assert_int_equal(n, strlen("RuntimeError: lookup failed"));
	/* the header scrolled out: the last exception-shaped line */
	assert_string_equal(diag_exception(lines + 7, lens + 7, 3, &n),
			    "RuntimeError: lookup failed");
	/* prose is not an exception */
	const char *prose[] = { "Error: nothing", "step 3 error rate: 0.1" };
	size_t plens[] = { strlen(prose[0]), strlen(prose[1]) };
	assert_string_equal(diag_exception(prose, plens, 2, &n), "Error: nothing");
	assert_null(diag_exception(prose + 1, plens + 1, 1, &n));
}

static void coordination_cascade_names_the_first(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	(void)state;

	for (int i = 0; i < 3; i++)
		pod(d, i, "{\"running\":{}}", NULL);
	line(d, 0, "RuntimeError: CUDA error: an illegal memory access was encountered");
	term(d, 0, 1, "Error", "12:00:00");
	for (int i = 1; i < 3; i++) {
		line(d, i, "jax.errors.JaxRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. "
		     "Id: step_10");
		term(d, i, 1, "Error", "12:00:05");
	}
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.index, 0);
	assert_int_equal(f.category, DIAG_APPLICATION);
	assert_int_equal(f.ncollateral, 2);
	headline_is(&f, "worker-0 Error (exit 1) on node-a at 12:00:00: RuntimeError: CUDA "
		    "error: an illegal memory access was encountered; 2 workers failed after it");
	diag_failure_free(&f);
	diag_free(d);
}

static void same_second_victim_is_not_the_cause(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	(void)state;

	line(d, 0, "Task /job:jax_worker/replica:0/task:1 heartbeat timeout. This indicates "
	     "that the remote task has failed");
	term(d, 0, 1, "Error", "12:00:00");
	line(d, 1, "ZeroDivisionError: division by zero");
	term(d, 1, 1, "Error", "12:00:00");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.index, 1);
	diag_failure_free(&f);
	/* alone, a timeout is the category */
	struct diag *e = diag_new(20);
	line(e, 0, "The following tasks are unhealthy (stopped sending heartbeats):");
	term(e, 0, 1, "Error", "12:00:00");
	assert_int_equal(diag_result(e, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_COORDINATION);
	diag_failure_free(&f);
	diag_free(e);
	diag_free(d);
}

/* Two workers that cannot pull one image: which the kubelets report first
 * is their order, not the job's; the diagnosis names the lower index, and
 * diag_first_of (the launcher's stuck message) by the same rule. */
static void workers_failing_alike_by_index(void **state)
{
	static const char pull[] = "{\"waiting\":{\"reason\":\"ErrImagePull\",\"message\":\"no\"}}";
	struct diag *d = diag_new(20);
	struct diag_failure f;
	int both[] = { 1, 0 }, one[] = { 3 }, coord[] = { 2, 3 };
	(void)state;

	pod(d, 0, "{\"waiting\":{\"reason\":\"ContainerCreating\"}}", NULL);
	pod(d, 1, pull, NULL);
	pod(d, 0, pull, NULL);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.index, 0);
	assert_int_equal(f.ncollateral, 1);
	assert_int_equal(f.collateral[0].index, 1);
	diag_failure_free(&f);
	assert_int_equal(diag_first_of(d, both, 2), 0);
	assert_int_equal(diag_first_of(d, one, 1), 3);	/* unseen: still named */
	assert_int_equal(diag_first_of(d, both, 0), -1);
	assert_int_equal(diag_first_of(NULL, both, 2), 0);
	/* a dated failure before an undated one; a coordination victim last */
	term(d, 2, 1, "Error", "12:00:05");
	assert_int_equal(diag_first_of(d, (int[]){ 0, 2 }, 2), 2);
	term(d, 3, 1, "Error", "12:00:05");
	line(d, 2, "DEADLINE_EXCEEDED: Barrier timed out");
	assert_int_equal(diag_first_of(d, coord, 2), 3);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.index, 3);
	diag_failure_free(&f);
	diag_free(d);
}

static void evicted_image_config_scheduling(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	char *t;
	cJSON *j;
	(void)state;

	pod(d, 0, "{\"terminated\":{\"exitCode\":137,\"reason\":\"Error\","
	    "\"finishedAt\":\"2026-11-26T12:00:09Z\"}}",
	    "\"phase\":\"Failed\",\"reason\":\"Evicted\",\"message\":\"The node was low on "
	    "resource: memory.\"");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_EVICTED);
	assert_string_equal(f.reason, "Evicted");
	diag_failure_free(&f);
	diag_free(d);

	d = diag_new(20);
	pod(d, 1, "{\"waiting\":{\"reason\":\"ErrImagePull\",\"message\":\"not found\"}}", NULL);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_IMAGE);
	assert_int_equal(f.exit_code, -1);
	headline_is(&f, "worker-1 ErrImagePull on node-a: not found");
	j = diag_failure_json(&f);
	t = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(t, "\"exit_code\":null"));
	assert_non_null(strstr(t, "\"finished_at\":null"));
	cJSON_free(t);
	cJSON_Delete(j);
	diag_failure_free(&f);
	diag_free(d);

	d = diag_new(20);
	pod(d, 0, "{\"waiting\":{\"reason\":\"CreateContainerConfigError\","
	    "\"message\":\"secret \\\"hf-token\\\" not found\"}}", NULL);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_CONFIG);
	assert_string_equal(f.message, "secret \"hf-token\" not found");
	diag_failure_free(&f);
	/* the kubelet's event says less than the pod: the pod's reason stays */
	cJSON *fe = cJSON_Parse("{\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"j-worker-0\"},"
				"\"reason\":\"Failed\",\"message\":\"Error: secret \\\"hf-token\\\" not found\"}");
	diag_event(d, fe);
	cJSON_Delete(fe);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_string_equal(f.reason, "CreateContainerConfigError");
	diag_failure_free(&f);
	diag_free(d);

	/* an event about a pod that never started */
	d = diag_new(20);
	pod(d, 0, "{\"waiting\":{\"reason\":\"ContainerCreating\"}}", NULL);
	cJSON *ev = cJSON_Parse("{\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"j-worker-0\"},"
				"\"reason\":\"FailedMount\",\"type\":\"Warning\",\"message\":"
				"\"MountVolume.SetUp failed for volume \\\"data\\\"\"}");
	diag_event(d, ev);
	cJSON_Delete(ev);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_CONFIG);
	assert_string_equal(f.reason, "FailedMount");
	diag_failure_free(&f);
	diag_free(d);

	d = diag_new(20);
	pod(d, 0, "{\"waiting\":{\"reason\":\"ContainerCreating\"}}",
	    "\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":"
	    "\"Unschedulable\",\"message\":\"0/1 nodes are available\"}]");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_SCHEDULING);
	diag_failure_free(&f);
	diag_free(d);
}

static void preempted_and_oom_node_event(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	cJSON *ev;
	(void)state;

	pod(d, 0, "{\"terminated\":{\"exitCode\":143,\"reason\":\"Error\","
	    "\"finishedAt\":\"2026-11-26T12:00:09Z\"}}",
	    "\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
	    "\"PreemptionByScheduler\",\"message\":\"preempted by a higher priority pod\"}]");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_PREEMPTED);
	assert_int_equal(f.signal, 15);
	diag_failure_free(&f);
	diag_free(d);

	d = diag_new(20);
	ev = cJSON_Parse("{\"involvedObject\":{\"kind\":\"Node\",\"name\":\"node-a\"},"
			 "\"reason\":\"OOMKilling\",\"message\":\"Memory cgroup out of memory\"}");
	diag_event(d, ev);
	cJSON_Delete(ev);
	term(d, 0, 137, "Error", "12:00:01");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.category, DIAG_OOM);
	diag_failure_free(&f);
	diag_free(d);
}

static void restart_then_failure_reports_the_last_container(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	(void)state;

	pod(d, 0, "{\"running\":{}}", NULL);
	line(d, 0, "first run");
	pod(d, 0, "{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},\"lastState\":"
	    "{\"terminated\":{\"exitCode\":137,\"reason\":\"Error\",\"finishedAt\":"
	    "\"2026-11-26T12:00:01Z\"}}", NULL);
	pod(d, 0, "{\"running\":{}}", NULL);	/* it runs again: not failed now */
	assert_int_equal(diag_result(d, NULL, &f), 0);
	diag_failure_free(&f);
	diag_container(d, 0);
	line(d, 0, "second run");
	line(d, 0, "ERROR: out of patience");
	term(d, 0, 3, "Error", "12:00:09");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.exit_code, 3);
	assert_string_equal(f.finished_at, "2026-11-26T12:00:09Z");
	assert_int_equal(f.nlines, 2);
	assert_string_equal(f.lines[0], "second run");
	diag_failure_free(&f);
	diag_free(d);
}

static void ring_is_bounded_and_keeps_whole_lines(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	char s[64], big[20000];
	(void)state;

	for (int i = 0; i < 100000; i++) {
		snprintf(s, sizeof(s), "step %d loss=0.%04d", i, i % 10000);
		line(d, 7, s);
	}
	term(d, 7, 2, "Error", "12:00:00");
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.nlines, 20);
	assert_string_equal(f.lines[19], "step 99999 loss=0.9999");
	assert_string_equal(f.lines[0], "step 99980 loss=0.9980");
	diag_failure_free(&f);
	/* one huge line is cut, and does not push out the line before it */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	line(d, 7, "before");
	line(d, 7, big);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_string_equal(f.lines[f.nlines - 2], "before");
	assert_int_equal(strlen(f.lines[f.nlines - 1]), DIAG_RING_BYTES(20) / 4);
	diag_failure_free(&f);
	diag_free(d);
}

/* The job failed on its backoff limit: worker `index` is named, with `code`. */
static void backoff_names(struct diag *d, int index, int code)
{
	struct diag_failure f;

	assert_int_equal(diag_result(d, "Job j has failed because it has reached the specified "
				     "backoff limit", &f), 1);
	assert_int_equal(f.category, DIAG_BACKOFF);
	assert_int_equal(f.index, index);
	assert_int_equal(f.exit_code, code);
	diag_failure_free(&f);
}

static void deadline_backoff_and_success(void **state)
{
	struct diag *d = diag_new(20);
	struct diag_failure f;
	cJSON *j;
	char *t;
	(void)state;

	/* the operator's words for activeDeadlineSeconds, no worker failed */
	assert_int_equal(diag_result(d, "Job j has failed because it was active longer than "
				     "specified deadline", &f), 1);
	assert_int_equal(f.category, DIAG_DEADLINE);
	diag_failure_free(&f);
	term(d, 0, 2, "Error", "12:00:00");
	assert_int_equal(diag_result(d, "Job j has failed because it has reached the specified "
				     "backoff limit", &f), 1);
	assert_int_equal(f.category, DIAG_APPLICATION);	/* the worker says more */
	diag_failure_free(&f);
	diag_free(d);

	/* the limit hit while the worker was restarting: it is named, category backoff */
	d = diag_new(20);
	pod(d, 1, "{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},\"lastState\":"
	    "{\"terminated\":{\"exitCode\":2,\"reason\":\"Error\",\"finishedAt\":"
	    "\"2026-11-26T12:00:01Z\"}}", NULL);
	pod(d, 1, "{\"running\":{}}", NULL);
	backoff_names(d, 1, 2);
	assert_int_equal(diag_result(d, NULL, &f), 0);	/* not failed now, nothing else says so */
	diag_failure_free(&f);
	diag_free(d);

	/* the restart seen only in the next container's lastState (a watch that
	 * trailed it): named all the same, and once however often it is seen */
	d = diag_new(20);
	term(d, 0, 1, "Error", "12:00:05");
	for (int k = 0; k < 2; k++)
		pod(d, 1, "{\"running\":{}},\"lastState\":{\"terminated\":{\"exitCode\":2,"
		    "\"reason\":\"Error\",\"finishedAt\":\"2026-11-26T12:00:01Z\"}}", NULL);
	pod(d, 0, "{\"running\":{}}", NULL);
	backoff_names(d, 1, 2);
	diag_free(d);

	d = diag_new(20);
	for (int i = 0; i < 2; i++)
		term(d, i, 0, "Completed", "12:00:00");
	assert_int_equal(diag_result(d, NULL, &f), 0);
	assert_int_equal(f.category, DIAG_NONE);
	j = diag_failure_json(&f);
	t = cJSON_PrintUnformatted(j);
	assert_string_equal(t, "{}");
	cJSON_free(t);
	cJSON_Delete(j);
	diag_failure_free(&f);
	diag_free(d);
}

/* A worker's words are kept as the API says them, each cut at its bound
 * (reason 63 bytes, message 255, finishedAt 39), and a worker that said
 * nothing has none: no reason but the default, no message, no time. */
static void words_bounded_and_absent_when_unsaid(void **state)
{
	struct diag *d = diag_new(5);
	struct diag_failure f;
	char reason[100], message[400], st[1024];
	(void)state;

	memset(reason, 'R', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	memset(message, 'm', sizeof(message) - 1);
	message[sizeof(message) - 1] = '\0';
	pod(d, 1, "{\"running\":{}}", NULL);
	snprintf(st, sizeof(st), "{\"terminated\":{\"exitCode\":2,\"reason\":\"%s\","
		 "\"message\":\"%s\",\"finishedAt\":\"2026-11-26T12:00:00Z\"}}", reason, message);
	pod(d, 0, st, NULL);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_int_equal(f.index, 0);
	assert_int_equal(strlen(f.reason), 63);
	assert_int_equal(strlen(f.message), 255);
	assert_string_equal(f.finished_at, "2026-11-26T12:00:00Z");
	diag_failure_free(&f);
	diag_free(d);

	/* exit 1 with no reason, message or time said */
	d = diag_new(5);
	pod(d, 0, "{\"terminated\":{\"exitCode\":1,\"reason\":\"\"}}", NULL);
	assert_int_equal(diag_result(d, NULL, &f), 1);
	assert_string_equal(f.reason, "Failed");
	assert_null(f.message);
	assert_null(f.finished_at);
	diag_failure_free(&f);
	diag_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oom_first_and_the_rest_collateral),
		cmocka_unit_test(traceback_exception_and_last_lines),
		cmocka_unit_test(chained_traceback_takes_the_last),
		cmocka_unit_test(coordination_cascade_names_the_first),
		cmocka_unit_test(same_second_victim_is_not_the_cause),
		cmocka_unit_test(evicted_image_config_scheduling),
		cmocka_unit_test(workers_failing_alike_by_index),
		cmocka_unit_test(preempted_and_oom_node_event),
		cmocka_unit_test(restart_then_failure_reports_the_last_container),
		cmocka_unit_test(ring_is_bounded_and_keeps_whole_lines),
		cmocka_unit_test(deadline_backoff_and_success),
		cmocka_unit_test(words_bounded_and_absent_when_unsaid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
