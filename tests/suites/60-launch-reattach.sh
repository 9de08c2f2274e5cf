#!/usr/bin/env bash
# jaxjob launch: a retried step re-attaches to the job it created (no second
# job), and a job of the same name launched by someone else is never adopted.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start
O=$T/outputs
unset ARGO_WORKFLOW_UID ARGO_WORKFLOW_NAME KFP_RUN_ID

posts_of() { # NAME: POSTs that tried to create it, since ks_mark
	requests | python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if r["method"] == "POST" and r["path"].endswith("/jaxjobs")))'
}

ks_mark
# attempt 1: the step pod dies (preempted: SIGKILL, no cleanup) while the job runs
export ARGO_WORKFLOW_NAME=train-x7k2p
bg_launch ra1 --name ra1 --image x/jax:1 --workers 2 --env SIM_DURATION=4 --env SIM_LINES=4
wait_for grep -q "Running:" "$T/ra1.err"
kill -KILL "$BG_ra1"
bg_wait ra1
# attempt 2 (a new pod, same workflow): re-attach and see the job through
expect_run 0 'a retried Argo step re-attaches to the running job and exits 0 when it succeeds' ra1b \
	launch --name ra1 --image x/jax:1 --workers 2 --env SIM_DURATION=4 --env SIM_LINES=4 \
	--out-state="$O/ra1/state" --out-job-uid="$O/ra1/uid"
expect '... it says so on stderr' 'grep -q "re-attached to JAXJob team-a/ra1" $T/ra1b.err'
expect '... the same job (uid) and no second one: two POSTs (201, then 409), one job' '
	test "$(posts_of)" -eq 2 &&
	test "$(ctl GET /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs | grep -c "\"uid\"")" -eq 1 &&
	ctl GET /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/ra1 | grep -q "\"uid\": *\"$(cat $O/ra1/uid)\""'
expect '... the job carries the launch-id label and the launch source' '
	ctl GET /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/ra1 >$T/ra1.json &&
	grep -Eq "\"jaxjob.dev/launch-id\": *\"[0-9a-f]{32}\"" $T/ra1.json &&
	grep -q "argo workflow train-x7k2p" $T/ra1.json'
expect '... the worker logs were streamed in full by the second attempt' \
	'test "$(grep -c "^\[worker-[01]\] step [1-4]/4 " $T/ra1b.out)" -eq 8'

# another workflow run, same job name: someone else's job
export ARGO_WORKFLOW_NAME=train-q9z3m
bg_launch hold --name held --image x/jax:1 --env SIM_HANG=1 --on-cancel leave
wait_for grep -q "Running:" "$T/hold.err"
kill -TERM "$BG_hold"
bg_wait hold
export ARGO_WORKFLOW_NAME=train-zzzzz
expect_run 4 'a job of the same name from another pipeline run is refused: exit 4' taken \
	launch --name held --image x/jax:1 --out-state="$O/taken/state" --out-message="$O/taken/message"
expect '... with a message that says whose it is and what to do' '
	grep -q "^error: JAXJob team-a/held already exists and was not launched by this step" $T/taken.err &&
	grep -q "choose another name" $T/taken.err'
expect '... the outputs say Error with that message' '
	test "$(cat $O/taken/state)" = Error && grep -q "not launched by this step" $O/taken/message'
expect '... and the other job is untouched (still running)' 'test "$(job_state held)" = Created,Running'
unset ARGO_WORKFLOW_NAME
expect_exit 4 'a run outside any pipeline never adopts an existing job' \
	launch --name held --image x/jax:1
expect_exit 4 '--identity of another launch is refused too' \
	launch --name held --image x/jax:1 --identity someone-else
ctl DELETE /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/held >/dev/null

expect_exit 0 '--identity: a first run creates the job' launch --name idj --image x/jax:1 --identity run-42
expect_run 0 '... the same --identity re-attaches, even to a finished job, and reports it' idj2 \
	launch --name idj --image x/jax:1 --identity run-42 --out-state="$O/idj/state"
expect '... state Succeeded, no new job' '
	test "$(cat $O/idj/state)" = Succeeded && grep -q "re-attached" $T/idj2.err'
expect_exit 4 '--adopt=false refuses even our own job' \
	launch --name idj --image x/jax:1 --identity run-42 --adopt=false
export KFP_RUN_ID=0f1e2d3c
expect_exit 0 'KFP_RUN_ID is a launch identity as well: first attempt' launch --name kfp1 --image x/jax:1
expect_run 0 '... second attempt re-attaches' kfp2 launch --name kfp1 --image x/jax:1
expect '... and says so' 'grep -q "re-attached to JAXJob team-a/kfp1" $T/kfp2.err'
unset KFP_RUN_ID
