#!/usr/bin/env bash
# jaxjob launch --api trainjob: a TrainJob's own progress (status.trainerStatus, KEP-2779) is
# preferred over the progress read from the logs - in the progress line, --out-progress and the
# summary - and the logs stay the fallback. The trainer's report is written through the API
# (/status), as the Trainer controller writes it, once the job runs.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start
O=$T/outputs
TS=/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/tj/status

bg_launch tj --api trainjob --name tj --image x/jax:1 --workers 2 --env SIM_LINES=8 --env SIM_DURATION=4 \
	--progress-every 0.1s --out-progress="$O/tj/progress" --out-summary="$O/tj/summary"
wait_err tj "training: step 1/8"
ctl PATCH "$TS" '{"status":{"trainerStatus":{"progressPercentage":42,"estimatedRemainingSeconds":785,"lastUpdatedTime":"2026-11-26T09:00:00Z","metrics":[{"name":"loss","value":"0.31"},{"name":"eval_accuracy","value":"0.9"}]}}}' >/dev/null
expect 'status.trainerStatus gives the progress line: percent, time left, metrics' '
	wait_err tj "trainer: 42% done, 13m05s left, loss 0.31, eval_accuracy 0.9 \(status.trainerStatus\)"'
bg_wait tj; rc=$?
expect '... and the log-derived "training:" lines stop once it is there (none after, no final one)' '
	test $rc = 0 && ! sed -n "/trainer: 42%/,\$p" $T/tj.err | grep -q "training:"'
expect '... --out-progress is the trainer'"'"'s 42, not the logs'"'"' 100' 'test "$(cat $O/tj/progress)" = 42'
expect '... the summary has its progress row' '
	grep -qx "| progress | 42% done, 13m05s left, loss 0.31, eval_accuracy 0.9 |" $O/tj/summary'

bg_launch tl --api trainjob --name tl --image x/jax:1 --workers 1 --env SIM_LINES=4 \
	--out-progress="$O/tl/progress" --out-summary="$O/tl/summary"
bg_wait tl; rc=$?
expect 'without status.trainerStatus the logs are the fallback: progress 100 from step 4/4' '
	test $rc = 0 && test "$(cat $O/tl/progress)" = 100 && ! grep -q "| progress |" $O/tl/summary &&
	grep -q "training: reached step 4/4" $T/tl.err'
