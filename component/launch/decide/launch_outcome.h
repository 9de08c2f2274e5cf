/*
 * launch_outcome.h - how a `jaxjob launch` run ends, decided in one place:
 * the outcome table (one row per way a run can end: its state, its exit
 * code, how its message is put together) and launch_outcome_decide(), the
 * one function that turns what the steps reported into the outcome the
 * outputs, the summary, the last stderr line and the exit status read.
 * As argocd-plugin/render.c's exit_code(): no step picks an exit code.
 *
 * The steps report, they do not decide: a step before the wait returns an
 * error value (struct err, turned into a cause by launch_cause_of_err()),
 * the wait and the ending a fact (a struct launch_cause: the row, a
 * reason, the cause in words). The flow (launch_run.c) hands the cause
 * and the failure diagnosis's headline to launch_outcome_decide() once.
 *
 * Adding a row is one line in LAUNCH_OUTCOMES below: its name (the enum
 * is LAUNCH_OUTCOME_<name>), state, exit code (launch_exit.h; a new code
 * goes there and in the README's exit-code section too), whether the job
 * ran and ended so (--outcome outputs then exits 0), where the failure
 * diagnosis goes in the message, whether it is said as an `error:` line,
 * the reason when the step gives none, and what it means (`--help` lists
 * each exit code with its rows' meanings, launch_outcome_exit_help(); the
 * docs' table says the same). Then the step that sees it reports that row;
 * tests/unit/test_launch_hub.c fails until some case reaches it.
 */
#ifndef JAXJOB_LAUNCH_OUTCOME_H
#define JAXJOB_LAUNCH_OUTCOME_H

#include "err.h"
#include "launch_exit.h"

/* Where the failure diagnosis's headline goes in the message. */
enum launch_outcome_diag {
	OUTCOME_DIAG_NONE,	/* not diagnosed: nothing failed, or nothing ran */
	OUTCOME_DIAG_KEEP,	/* diagnosed, the message kept (it names the worker already) */
	OUTCOME_DIAG_FIRST,	/* the cause first: "<headline> - <message>" */
	OUTCOME_DIAG_AFTER,	/* what ended the wait first: "<message>; a worker
				 * had already failed: <headline>" */
};

/* One line a row: name, state, exit code, the job ran and ended so,
 * where the diagnosis goes (OUTCOME_DIAG_<...>), said as an error: line,
 * the reason when the step gives none, what it means. */
#define LAUNCH_OUTCOMES(X) \
	X(SUCCEEDED, "Succeeded", LAUNCH_EXIT_SUCCEEDED, 1, NONE, 0, "", "the job succeeded") \
	X(FAILED, "Failed", LAUNCH_EXIT_JOB_FAILED, 1, FIRST, 0, "", "the job failed") \
	X(BAD_INPUT, "Error", LAUNCH_EXIT_BAD_INPUT, 0, NONE, 1, "BadInput", "bad input: nothing was created") \
	X(TIMEOUT, "Timeout", LAUNCH_EXIT_TIMEOUT, 1, AFTER, 0, "Timeout", "--timeout reached (queue time not counted)") \
	X(API_ERROR, "Error", LAUNCH_EXIT_API_ERROR, 0, AFTER, 1, "", "the API server refused, failed or could not be reached") \
	X(CANCELLED, "Cancelled", LAUNCH_EXIT_CANCELLED, 1, AFTER, 0, "Cancelled", "cancelled by SIGTERM or SIGINT") \
	X(DELETED, "Deleted", LAUNCH_EXIT_JOB_LOST, 1, AFTER, 0, "Deleted", "the job was deleted by someone else") \
	X(STUCK, "Stuck", LAUNCH_EXIT_STUCK, 1, KEEP, 0, "", "stuck past --fail-fast-after, or rejected for good") \
	X(QUEUE_TIMEOUT, "QueueTimeout", LAUNCH_EXIT_QUEUE_TIMEOUT, 1, AFTER, 0, "QueueTimeout", "queued by Kueue past --queue-timeout") \
	X(QUEUE_INADMISSIBLE, "QueueInadmissible", LAUNCH_EXIT_QUEUE_TIMEOUT, 1, AFTER, 0, "QueueInadmissible", "Kueue says it cannot admit the job, for all of --queue-hopeless-after") \
	X(DRY_RUN, "DryRun", LAUNCH_EXIT_SUCCEEDED, 0, NONE, 0, "", "--server-dry-run: accepted by the server")

#define LAUNCH_OUTCOME_ENUM(name, ...) LAUNCH_OUTCOME_##name,
enum launch_outcome_row { LAUNCH_OUTCOMES(LAUNCH_OUTCOME_ENUM) LAUNCH_OUTCOME_ROWS };
#undef LAUNCH_OUTCOME_ENUM

/* One row of the table. */
struct launch_outcome_def {
	const char *name;		/* "QUEUE_TIMEOUT" */
	const char *state;		/* the `state` output */
	int exit_code;
	int ended;			/* the job ran and ended so */
	enum launch_outcome_diag diag;
	int error_line;			/* said as "error: <message>" */
	const char *reason;		/* when the step gives none */
	const char *meaning;
};
const struct launch_outcome_def *launch_outcome_def(enum launch_outcome_row row);

/* What a step, the wait or the ending reports: which way the run ends,
 * why (a reason; "" for the row's), and the cause in words. */
struct launch_cause {
	enum launch_outcome_row row;
	char reason[128];
	char msg[1024];
	int unread;	/* the job could not be read since it was last seen, so
			 * it was left as is: the message says so */
};

void launch_cause_set(struct launch_cause *c, enum launch_outcome_row row, const char *reason,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A step's error as a cause of `row`: its reason the error's (the API's
 * Status reason, or the step's own), else for an API error the code's
 * name (NotFound, Network...), else the row's; its message the cause. */
void launch_cause_of_err(struct launch_cause *c, enum launch_outcome_row row, const struct err *e);

/* The outcome, decided: what the outputs, the summary and the exit read. */
struct launch_outcome_end {
	enum launch_outcome_row row;
	const char *state;
	int exit_code;
	char reason[128];
	char message[1024];
};

/*
 * THE decision: the row's state and exit code, the reason (the cause's,
 * else the row's), the message (the cause, "as last seen" when `unread`,
 * and the diagnosis's `headline` where the row puts it; NULL/"" none).
 */
void launch_outcome_decide(const struct launch_cause *c, const char *headline,
			   struct launch_outcome_end *out);

/*
 * The process's exit status: the outcome's exit code; with --outcome
 * outputs (`in_outputs`), 0 for a job that ran and ended (the `ended`
 * column: failed, timeout, cancelled, deleted, stuck, queued too long),
 * said on stderr, because KFP's launcher hands a step's outputs on only
 * when the command exits 0; bad input and API errors keep their codes, so
 * the engine's retry still sees them.
 */
int launch_outcome_exit(int in_outputs, const struct launch_outcome_end *out);

/*
 * The exit statuses for `--help`, from the table: one line per row,
 * "  N  meaning", by exit code (rows of one code in table order), appended
 * to `b`. The help and the flags state no exit code of their own.
 */
struct buf;
void launch_outcome_exit_help(struct buf *b);

#endif
