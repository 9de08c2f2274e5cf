/*
 * launch_run.h - the live half of `jaxjob launch`: create (or re-attach to)
 * the job, follow it through one event loop (watch the job, watch its pods,
 * follow every worker's log), write the outputs, apply the cleanup policy.
 *
 * `manifest` is the rendered and validated JAXJob (or TrainJob); launch_run
 * does not take ownership. Returns the process exit status (see README:
 * 0 succeeded, 1 job failed, 2 bad input, 3 timeout, 4 API/auth error,
 * 5 cancelled, 6 job deleted by someone else, 7 stuck past the grace period,
 * 8 queued by Kueue past --queue-timeout).
 */
#ifndef JAXJOB_LAUNCH_RUN_H
#define JAXJOB_LAUNCH_RUN_H

#include <cJSON.h>

#include "launch_exit.h"
#include "launch_opts.h"

struct launch_early;
int launch_run(const struct launch_opts *o, const cJSON *manifest, struct launch_early *early);

#endif
