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

#include "kube.h"
#include "launch_exit.h"
#include "launch_opts.h"

/* kube_config_load's options from the flags: the same for every client of a launch. */
void launch_config_opts(const struct launch_opts *o, struct kube_config_opts *ko);

/*
 * The run's connection, opened before the job is built: the kubeconfig is
 * read, the client made and the SelfSubjectRulesReview of the namespace the
 * flags and kubeconfig name is sent, pushed as far as the TLS handshake goes
 * without waiting (kube_loop_poke) - so the server works on the handshake
 * while launch builds and validates the job. Read-only: nothing is created
 * before launch_run() decides to. NULL when any of it fails; launch_run()
 * then does it all itself and reports the problem as before. `early` may be
 * NULL; launch_run() takes its client; free it after launch_run() returns.
 */
struct launch_early;
struct launch_early *launch_early_start(const struct launch_opts *o);
void launch_early_free(struct launch_early *early);

int launch_run(const struct launch_opts *o, const cJSON *manifest, struct launch_early *early);

#endif
