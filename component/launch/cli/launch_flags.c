/*
 * launch_flags.c - run_flags[]: every run setting of `jaxjob launch` (what
 * is not a job parameter), with its metavar, help group, kind and where its
 * value goes in struct launch_opts. One row makes the flag, its --help line
 * and its --help=json entry (launch_help.c); the values are read by
 * launch_values.c. A new output file is one OUT(field) row here plus its
 * row in launch_outputs.c.
 */
#include "launch_opts_int.h"

static const char *const api_names[] = { "jaxjob", "trainjob", "auto", NULL };
static const char *const format_names[] = { "yaml", "json", NULL };
static const char *const logs_names[] = { "all", "first", "none", NULL };
static const char *const delete_names[] = { "never", "success", "always", NULL };
static const char *const cancel_names[] = { "delete", "suspend", "leave", NULL };
static const char *const outcome_names[] = { "exit-code", "outputs", NULL };
static const char *const metrics_names[] = { "auto", "patterns", "none", NULL };
static const char *const metrics_from_names[] = { "first", "any", "all", NULL };

#define OFF(f) offsetof(struct launch_opts, f)
#define OUT(f) (offsetof(struct launch_opts, out) + offsetof(struct launch_outputs, f))
#define MET(f) (offsetof(struct launch_opts, metrics) + offsetof(struct launch_metrics_opts, f))

const struct run_flag launch_run_flags[] = {
	{ "template", "FILE", "template", RF_STR, OFF(template_path), NULL,
	  "job template with ((placeholders)) (default: the built-in templates/jaxjob.yaml, "
	  "or templates/trainjob.yaml with --api trainjob)" },
	{ "param", "NAME=VALUE", "template", RF_SPECIAL, 0, NULL,
	  "value of a user template's own ((NAME)); NAME:=JSON for a typed value (repeatable)" },
	{ "patch", "JSON|@FILE", "template", RF_SPECIAL, 0, NULL,
	  "JSON merge patch (RFC 7386) applied to the rendered job last; @FILE reads JSON or YAML" },
	{ "api", "API", "template", RF_ENUM, OFF(api), api_names,
	  "job API: jaxjob (kubeflow.org/v1 JAXJob), trainjob (trainer.kubeflow.org/v1alpha1 "
	  "TrainJob on a training runtime), auto (what the cluster serves; jaxjob when both) "
	  "(default jaxjob)" },

	{ "launch-args", "JSON", "template", RF_SPECIAL, 0, NULL,
	  "more options as a JSON list of words, read where it stands, e.g. "
	  "'[\"--queue=research\", \"--toleration\", \"gpu:NoSchedule\"]': every option through one "
	  "value, for engines that pass one value per argument (an Argo parameter); "
	  "empty or [] = none" },

	{ "dry-run", NULL, "what to do", RF_BOOL, OFF(dry_run), NULL,
	  "print the job that would be created and exit; touch no cluster" },
	{ "server-dry-run", NULL, "what to do", RF_BOOL, OFF(server_dry_run), NULL,
	  "have the API server validate the job, create nothing" },
	{ "output", "FORMAT", "what to do", RF_ENUM, OFF(format), format_names,
	  "-o: format of --dry-run: yaml or json (default yaml)" },

	{ "kubeconfig", "FILE", "cluster", RF_STR, OFF(kubeconfig), NULL,
	  "kubeconfig file (default: $KUBECONFIG, in-cluster service account, ~/.kube/config)" },
	{ "context", "NAME", "cluster", RF_STR, OFF(context), NULL, "kubeconfig context" },
	{ "insecure-skip-tls-verify", NULL, "cluster", RF_BOOL, OFF(insecure_skip_tls_verify), NULL,
	  "do not verify the API server's certificate (never the default)" },

	{ "timeout", "DURATION", "waiting and cleanup", RF_DURATION, OFF(timeout_s), NULL,
	  "give up after DURATION of run (90s, 30m, 2h, 1h30m or seconds; 0 = never): state "
	  "Timeout; time queued by Kueue does not count" },
	{ "queue-timeout", "DURATION", "waiting and cleanup", RF_DURATION, OFF(queue_timeout_s), NULL,
	  "give up when Kueue has held the job queued (suspended, not admitted) for DURATION in "
	  "all: state QueueTimeout; --on-cancel delete deletes it, suspend and leave leave "
	  "it queued (default 0 = wait for ever)" },
	{ "queue-progress-every", "DURATION", "waiting and cleanup", RF_DURATION, OFF(queue_every_s),
	  NULL, "while Kueue holds the job, say \"queued 12m in NS/QUEUE: reason\" this often "
	  "(default 1m; 0 = only when the reason changes); with Kueue's visibility API, also "
	  "the job's place: \"position 3 in q, 7 in cq\"" },
	{ "queue-hopeless-after", "DURATION", "waiting and cleanup", RF_DURATION,
	  OFF(queue_hopeless_s), NULL,
	  "end the step when Kueue says it cannot admit the job (ExceedsMaxQuota, "
	  "NoMatchingFlavor; older Kueue: \"> maximum capacity\") for all of DURATION: "
	  "state QueueInadmissible, cleaned up per --on-cancel (default 1m; 0 = wait anyway)" },
	{ "logs", "WHICH", "waiting and cleanup", RF_ENUM, OFF(logs), logs_names,
	  "worker logs to stream: all, first (worker 0), none (default all). At most 64 logs "
	  "are followed at once: with more workers running, the others' lines appear when a "
	  "followed worker exits (each log is then read from its start: none is lost); for a "
	  "big job, --log-turn shows every worker's lines within a bounded delay, "
	  "--log-workers picks the ones to follow live" },
	{ "log-turn", "DURATION", "waiting and cleanup", RF_DURATION, OFF(log_turn_s), NULL,
	  "with more workers running than the 64 logs followed at once: a followed worker "
	  "hands its stream to a waiting one after DURATION and waits its next turn, so "
	  "every worker's lines appear within about (running workers / 64) x DURATION, and "
	  "none is lost or repeated (a turn takes the log up where it stood: sinceTime, the "
	  "second of its last line, skipping that second's lines printed); 0 = a followed "
	  "worker keeps its stream until it exits (default 0)" },
	{ "log-workers", "SET", "waiting and cleanup", RF_SPECIAL, 0, NULL,
	  "with --logs all: follow only these workers' logs, by replica index: 0-7,255 (at most "
	  "32 ranges); with 64 workers or fewer in it, each one's lines appear as they are "
	  "written (default: every worker)" },
	{ "delete-after", "WHEN", "waiting and cleanup", RF_ENUM, OFF(delete_after), delete_names,
	  "delete the finished job: never, success, always (default never)" },
	{ "on-cancel", "ACTION", "waiting and cleanup", RF_ENUM, OFF(on_cancel), cancel_names,
	  "on timeout or SIGTERM/SIGINT: delete the job, suspend it, or leave it (default delete)" },
	{ "fail-fast-after", "DURATION", "waiting and cleanup", RF_DURATION, OFF(fail_fast_s), NULL,
	  "fail when the job cannot start (image pull error, unschedulable) for this long: state Stuck (default 5m; 0 = never)" },
	{ "delete-timeout", "DURATION", "waiting and cleanup", RF_DURATION, OFF(delete_wait_s), NULL,
	  "how long the cleanup may take: the look at the job, the delete or suspend (retried) and the wait for its confirmation (default 20s: it fits in the pod's 30 s termination grace period)" },
	{ "log-drain", "DURATION", "waiting and cleanup", RF_DURATION, OFF(log_drain_s), NULL,
	  "after the job finished, how long to wait for the workers' log streams to end without "
	  "any finished worker's log moving on (the wait starts again at each line or log end "
	  "of a finished worker: a slow server's 1,000 logs are read to the end; a stream cut "
	  "by an outage reconnects with backoff); a worker whose log is still incomplete then "
	  "is named in a warning and in the outputs; SIGTERM cuts it short (default 30s; "
	  "0 = do not wait)" },
	{ "identity", "ID", "waiting and cleanup", RF_STR, OFF(identity), NULL,
	  "launch identity (default: derived from the pipeline run), to re-attach on retry" },
	{ "run-id", "ID", "waiting and cleanup", RF_OPTSTR, OFF(task.run_id), NULL,
	  "the pipeline run, for the identity and --name-prefix (KFP: "
	  "dsl.PIPELINE_JOB_ID_PLACEHOLDER as a whole input; Argo: {{workflow.uid}}); "
	  "empty = from the environment (KFP_RUN_ID, ARGO_WORKFLOW_UID, ARGO_WORKFLOW_NAME)" },
	{ "task-name", "NAME", "waiting and cleanup", RF_OPTSTR, OFF(task.task_name), NULL,
	  "the step within the run, mixed into the identity (KFP: "
	  "dsl.PIPELINE_TASK_NAME_PLACEHOLDER; Argo: the DAG task's name)" },
	{ "task-id", "ID", "waiting and cleanup", RF_OPTSTR, OFF(task.task_id), NULL,
	  "more of the same, e.g. dsl.PIPELINE_TASK_ID_PLACEHOLDER (KFP's DAG execution: tells "
	  "ParallelFor iterations apart) or an Argo loop item" },
	{ "name-prefix", "PREFIX", "waiting and cleanup", RF_OPTSTR, OFF(name_prefix), NULL,
	  "name the job PREFIX-<10 hex chars> from the run and task: unique per run, the "
	  "same for every retry (instead of --name; needs a run: --run-id, --identity or "
	  "the environment)" },
	{ "outcome", "HOW", "waiting and cleanup", RF_ENUM, OFF(outcome), outcome_names,
	  "how the step reports a job that ended: exit-code (the exit status says how, "
	  "listed at the end of --help) or outputs (exit 0, the outcome only in the outputs "
	  "state/reason/exit_code, so the pipeline can branch on it; bad input and API errors, "
	  "where no job ran and ended, keep their exit status) (default exit-code)" },
	{ "adopt", "BOOL", "waiting and cleanup", RF_BOOL, OFF(adopt), NULL,
	  "re-attach to the job this step created in an earlier attempt (default true)" },
	{ "quiet", NULL, "waiting and cleanup", RF_BOOL, OFF(quiet), NULL,
	  "no progress lines, worker logs only" },

	{ "out-state", "FILE", "outputs", RF_STR, OUT(state), NULL,
	  "write the final state: Succeeded, Failed, Timeout, Cancelled, ..." },
	{ "out-reason", "FILE", "outputs", RF_STR, OUT(reason), NULL, "write the condition reason" },
	{ "out-message", "FILE", "outputs", RF_STR, OUT(message), NULL, "write the condition message" },
	{ "out-job-json", "FILE", "outputs", RF_STR, OUT(job_json), NULL,
	  "write the final JAXJob object as JSON" },
	{ "out-manifest", "FILE", "outputs", RF_STR, OUT(manifest), NULL,
	  "write the manifest that was created (YAML)" },
	{ "out-job-name", "FILE", "outputs", RF_STR, OUT(job_name), NULL, "write the job name" },
	{ "out-job-namespace", "FILE", "outputs", RF_STR, OUT(job_namespace), NULL,
	  "write the job namespace" },
	{ "out-job-uid", "FILE", "outputs", RF_STR, OUT(job_uid), NULL, "write the job UID" },
	{ "out-start-time", "FILE", "outputs", RF_STR, OUT(start_time), NULL,
	  "write the start time (RFC 3339)" },
	{ "out-completion-time", "FILE", "outputs", RF_STR, OUT(completion_time), NULL,
	  "write the completion time (RFC 3339)" },
	{ "out-queue-time", "FILE", "outputs", RF_STR, OUT(queue_time), NULL,
	  "write the seconds Kueue held the job queued (0 without a queue)" },
	{ "out-run-time", "FILE", "outputs", RF_STR, OUT(run_time), NULL,
	  "write the seconds of the wait the job was not queued" },
	{ "out-queue-position", "FILE", "outputs", RF_STR, OUT(queue_position), NULL,
	  "write the job's place in its queue as last seen, 1-based, as JSON "
	  "{\"local_queue\":3,\"cluster_queue\":7} (Kueue's visibility API; {} when never seen)" },
	{ "out-preemptions", "FILE", "outputs", RF_STR, OUT(preemptions), NULL,
	  "write Kueue's evictions of the job as JSON {\"preemptions\":N,\"evicted_reason\":.., "
	  "\"preempted_reason\":.. (InClusterQueue, InCohortReclamation, ...),\"message\":..}: "
	  "the count and the last one" },
	{ "out-progress", "FILE", "outputs", RF_STR, OUT(progress), NULL,
	  "write the percent done (0-100): a TrainJob's status.trainerStatus, else from the "
	  "logs' step/total, else empty" },
	{ "out-duration", "FILE", "outputs", RF_STR, OUT(duration), NULL,
	  "write the run time in seconds" },
	{ "out-workers", "FILE", "outputs", RF_STR, OUT(workers), NULL,
	  "write worker counts as JSON {\"active\":..,\"succeeded\":..,\"failed\":..}" },
	{ "out-summary", "FILE", "outputs", RF_STR, OUT(summary), NULL,
	  "write a Markdown summary for the pipeline UI" },
	{ "out-exit-code", "FILE", "outputs", RF_STR, OUT(exit_code), NULL,
	  "write the exit code of this step" },
	{ "out-failure", "FILE", "outputs", RF_STR, OUT(failure), NULL,
	  "write why the job failed as JSON: the first failing worker, pod, node, exit_code, "
	  "signal, reason, category, finished_at, exception, last_lines, collateral (the "
	  "workers that failed after it); {} when it did not fail" },
	{ "out-failure-category", "FILE", "outputs", RF_STR, OUT(failure_category), NULL,
	  "write the failure's category: oom, evicted, preempted, image, scheduling, config, "
	  "application, coordination, deadline, backoff, unknown; empty when it did not fail" },
	{ "failure-lines", "N", "outputs", RF_SPECIAL, 0, NULL,
	  "how many of the failing worker's last log lines the failure outputs quote "
	  "(default 20, at most 500)" },

	{ "metrics", "MODE", "training metrics", RF_ENUM, MET(mode), metrics_names,
	  "read training metrics from the workers' logs: auto (the common shapes, see "
	  "component/README.md, plus --metric patterns), patterns (only --metric), none (default auto)" },
	{ "metric", "NAME=REGEX", "training metrics", RF_METRIC, 0, NULL,
	  "a metric of your own: a POSIX extended regex with one capture group, the number "
	  "(repeatable; or several in one value, one per line, blank lines ignored); NAME step "
	  "(or a --metric-step name) is the step counter" },
	{ "metric-step", "NAME", "training metrics", RF_METRIC, 0, NULL,
	  "another key that counts steps, besides step, global_step, iteration, iter (repeatable, "
	  "or a JSON list of names)" },
	{ "metrics-from", "WHICH", "training metrics", RF_ENUM, MET(from), metrics_from_names,
	  "whose lines count: first (worker 0), any (all workers, one series), all (a series per "
	  "worker, NAME@N) (default first)" },
	{ "total-steps", "N", "training metrics", RF_METRIC, 0, NULL,
	  "the step count of the whole run, for progress and ETA (default: from the log, e.g. "
	  "\"step 100/5000\")" },
	{ "progress-every", "DURATION", "training metrics", RF_DURATION, MET(progress_s), NULL,
	  "at most one training progress line on stderr per DURATION (step, values, steps/s, ETA; "
	  "0 = none) (default 10s)" },
	{ "metrics-points", "N", "training metrics", RF_METRIC, 0, NULL,
	  "points per metric in the CSV and the chart, chosen by LTTB (10-5000, default 300)" },
	{ "kfp-executor-input", "JSON", "training metrics", RF_STR, MET(kfp_executor_input), NULL,
	  "KFP's {{$}}: the last/min/max values go into the metadata of the step's system.Metrics "
	  "outputs (the scalars KFP's UI shows); the placeholder itself, unreplaced, is ignored" },
	{ "out-metrics", "FILE", "training metrics", RF_STR, OUT(metrics), NULL,
	  "write the metrics as JSON: per metric last, min, max and their steps; step, steps/s" },
	{ "out-metrics-csv", "FILE", "training metrics", RF_STR, OUT(metrics_csv), NULL,
	  "write the series as CSV metric,step,value (at most --metrics-points per metric)" },
	{ "out-metrics-chart", "FILE", "training metrics", RF_STR, OUT(metrics_chart), NULL,
	  "write an SVG line chart of the metrics (self-contained; light and dark themes)" },
	{ "out-metrics-report", "FILE", "training metrics", RF_STR, OUT(metrics_report), NULL,
	  "write the Markdown summary with the metrics table and the chart embedded (for KFP's "
	  "Markdown viewer)" },
	{ NULL, NULL, NULL, RF_STR, 0, NULL, NULL },
};

_Static_assert(sizeof(enum launch_logs) == sizeof(int), "enums are stored as int");

