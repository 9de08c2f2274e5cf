/*
 * launch_kfp.h - the training metrics in KFP's executor output.
 *
 * With --kfp-executor-input (the {{$}} placeholder) the last, min and max
 * of every metric are written into the executor output file
 * (ExecutorInput.outputs.outputFile) as the metadata of each output
 * artifact of type system.Metrics; KFP's launcher merges that metadata into
 * the artifact it records (kubeflow/pipelines backend/src/v2/component/
 * launcher_v2.go: execute() -> getExecutorOutputFile(), then
 * uploadOutputArtifacts() -> mergeRuntimeArtifacts()), and the UI shows a
 * system.Metrics artifact's metadata as its scalar metrics. Output
 * parameters are still read from their files: the file holds no
 * parameterValues (collectOutputParameters reads files for those).
 */
#ifndef JAXJOB_LAUNCH_KFP_H
#define JAXJOB_LAUNCH_KFP_H

#include "err.h"

struct metrics;

/*
 * Write the executor output for `executor_input` (KFP's ExecutorInput
 * JSON) with the scalars of `m`; nothing when it declares no
 * system.Metrics artifact. -1 with `e` set when the input is not KFP's or
 * the file cannot be written.
 */
int launch_kfp_write(const struct metrics *m, const char *executor_input, struct err *e);

#endif
