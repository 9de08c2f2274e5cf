/*
 * launch_exit.h - the exit codes of `jaxjob launch` (README: 0 succeeded,
 * 1 job failed, 2 bad input, 3 timeout, 4 API/auth error, 5 cancelled,
 * 6 job deleted by someone else, 7 stuck past the grace period, 8 Kueue
 * will not run it: queue timeout or inadmissible).
 *
 * A header of its own, below the outcome table (launch_outcome.h), the one
 * place that names them: every other part of the launch reads the
 * outcome's row, state and exit code, never these names.
 */
#ifndef JAXJOB_LAUNCH_EXIT_H
#define JAXJOB_LAUNCH_EXIT_H

enum launch_exit {
	LAUNCH_EXIT_SUCCEEDED = 0,
	LAUNCH_EXIT_JOB_FAILED = 1,
	LAUNCH_EXIT_BAD_INPUT = 2,
	LAUNCH_EXIT_TIMEOUT = 3,
	LAUNCH_EXIT_API_ERROR = 4,
	LAUNCH_EXIT_CANCELLED = 5,
	LAUNCH_EXIT_JOB_LOST = 6,
	LAUNCH_EXIT_STUCK = 7,
	LAUNCH_EXIT_QUEUE_TIMEOUT = 8,	/* Kueue will not run it: queued past --queue-timeout
				 * (QueueTimeout), or a request it cannot admit
				 * for all of --queue-hopeless-after (QueueInadmissible) */
};

#endif
