/*
 * launch_run.h - the live half of `jaxjob launch`: create (or re-attach to)
 * the job, follow it through one event loop (watch the job, watch its pods,
 * follow every worker's log), write the outputs, apply the cleanup policy.
 *
 * `manifest` is the rendered and validated JAXJob (or TrainJob) of `api`
 * (chosen once, by the command); launch_run does not take ownership. It
 * fills `outcome` (the outcome table's row, launch_outcome.h, with its
 * state, reason and message, as the outputs say it) and returns its exit
 * code.
 */
#ifndef JAXJOB_LAUNCH_RUN_H
#define JAXJOB_LAUNCH_RUN_H

#include <cJSON.h>

#include "job/jobapi.h"
#include "cli/launch_opts.h"
#include "decide/launch_outcome.h"

struct launch_early;
int launch_run(const struct launch_opts *o, const struct jobapi *api, const cJSON *manifest,
	       struct launch_early *early, struct launch_outcome_end *outcome);

#endif
