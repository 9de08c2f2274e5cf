#!/usr/bin/env bash
# jaxjob launch says why a job failed, against a REAL kube-apiserver (its own control plane,
# ../shared/tools/kube-control-plane; the training operator and the kubelet simulated through the
# API by tests/realserver/operator.py): the same scenarios as 63-launch-failure on the double -
# OOMKilled, a Python traceback, an eviction, an image pull failure, a missing Secret
# (CreateContainerConfigError: the simulated kubelet GETs the Secret), a coordination cascade, a
# worker that dies of the coordination service itself, a restart then a failure - plus a
# TrainJob (pods through the JobSet labels) and a success.
# Every launch runs at once; each case waits for its own launch to end, never for a time.
# run-all: after 66-real-faults
# (one real control plane at a time: each costs a CPU for tens of seconds on a 2-core machine)
. "$JAXJOB_TOP/tests/suites/65-real.lib"
real_start "real control plane: why a job failed"
. "$JAXJOB_TOP/tests/suites/failure.lib"
SECRET_ENV='[{"name":"HF_TOKEN","valueFrom":{"secretKeyRef":{"name":"hf-token","key":"token"}}}]'

# shellcheck disable=SC2046
{
bg_launch oom --name oom --image x/jax:1 --workers 4 --env SIM_FAIL_WORKER=2 --env SIM_EXIT=137 \
	--env SIM_FAILURE=oom $(fouts oom) -- python train.py
bg_launch tb --name tb --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 --env SIM_EXIT=1 \
	--env SIM_FAILURE=traceback $(fouts tb) -- python train.py
bg_launch ev --name ev --image x/jax:1 --workers 2 --env SIM_FAIL_WORKER=1 --env SIM_EXIT=137 \
	--env SIM_FAILURE=evict $(fouts ev) -- python train.py
bg_launch img --name img --image x/image-pull-error:1 --workers 2 --fail-fast-after 2s \
	$(fouts img) -- python train.py
bg_launch sec --name sec --image x/jax:1 --workers 2 --fail-fast-after 2s --env "$SECRET_ENV" \
	$(fouts sec) -- python train.py
bg_launch cas --name cas --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=0 --env SIM_EXIT=1 \
	--env SIM_FAILURE=cascade --env SIM_CASCADE_DELAY=5 $(fouts cas) -- python train.py
bg_launch rst --name rst --image x/jax:1 --workers 2 --restart-policy ExitCode \
	--env SIM_FAIL_WORKER=1 --env SIM_RESTART=1 --env SIM_EXIT=3 $(fouts rst) -- python train.py
tj=
real_trainjob && tj=tj && bg_launch tj --api trainjob --name tj --image x/jax:1 --workers 2 --env SIM_FAIL_WORKER=1 \
	--env SIM_EXIT=1 --env SIM_FAILURE=traceback $(fouts tj) -- python train.py
bg_launch crd --name crd --image x/jax:1 --workers 2 --env SIM_FAIL_WORKER=1 --env SIM_EXIT=1 \
	--env SIM_FAILURE=coordination $(fouts crd) -- python train.py
bg_launch fine --name fine --image x/jax:1 --workers 2 $(fouts fine) -- python train.py
}
ended() { # NAME CODE DESCRIPTION
	local rc
	bg_wait "$1"
	rc=$?
	if [ "$rc" -eq "$2" ]; then ok "$3"; else
		not_ok "$3"
		{ echo "--- $3: exit $rc, want $2"; tail -n 20 "$T/$1.err"; } >&2
	fi
}

ended oom 1 'a worker killed by the kernel for memory: the job fails (exit 1)'
expect 'oom: worker-2, OOMKilled, exit 137, its last line; stderr leads with the cause' '
	check oom 2 oom 137 "allocating activations" &&
	grep -q "Failed: JAXJobFailed: worker-2 OOMKilled (exit 137) on [a-z0-9.-]* at [0-9:]* - " "$T/oom.err"'
ended tb 1 'a Python exception: the job fails'
expect 'traceback: worker-1, application, exit 1, the exception line picked out' \
	'check tb 1 application 1 "^ValueError: loss is NaN" "ValueError: loss is NaN at step 3 (worker 1)"'
ended ev 1 'an evicted pod: the job fails'
expect 'evicted: worker-1, evicted, exit 137, the kubelet'"'"'s reason and message' '
	check ev 1 evicted 137 "saving checkpoint" &&
	"$PY" -c "import json,sys; f=json.load(open(sys.argv[1])); assert f[\"reason\"] == \"Evicted\" and \"low on resource\" in f[\"message\"], f" "$O/ev/failure"'
ended img 7 'an image that cannot be pulled: stuck (exit 7)'
expect 'image: worker-0 of two that cannot pull (one rule names it), image, no exit code, the pull message' \
	'check img 0 image - "image-pull-error"'
ended sec 7 'a missing Secret: CreateContainerConfigError, stuck (exit 7)'
expect 'config: worker-0, config, the missing secret named' \
	'check sec 0 config - "secret \"hf-token\" not found" && grep -q "\"reason\": \"CreateContainerConfigError\"" "$O/sec/failure"'
ended cas 1 'a coordination cascade: worker 0 dies, the others share its fate'
expect 'cascade: worker-0 and its exception are named, not a victim'"'"'s timeout' \
	'check cas 0 application 1 "^ValueError" "ValueError: loss is NaN at step 3 (worker 0)"'
expect 'cascade: the others are collateral, or named still running' '
	for w in 1 2; do grep -q "\"worker\": $w" "$O/cas/failure" || grep -q "worker-$w still running" "$T/cas.err" || exit 1; done'
ended rst 1 'a restart, then a failure: the job fails'
expect 'restart: worker-1, exit 3 of its last run, that run'"'"'s lines only' '
	check rst 1 application 3 "failed with exit code 3" && ! grep -q "crashed (exit code 137" "$O/rst/failure"'
if [ -n "$tj" ]; then
	ended tj 1 'a TrainJob whose worker raises: the job fails'
	expect 'trainjob: worker-1 (through the JobSet labels), application, the exception' \
		'check tj 1 application 1 "^ValueError" "ValueError: loss is NaN at step 3 (worker 1)"'
else
	skip 'a TrainJob whose worker raises: the job fails, the worker and exception named' "$TRAINJOB_WHY"
fi
ended crd 1 'a worker that dies of JAX'"'"'s coordination service: the job fails'
expect 'coordination: worker-1, category coordination, JAX'"'"'s fatal line last' \
	'check crd 1 coordination 1 "Terminating process because the JAX distributed service detected fatal errors"'
ended fine 0 'a job that succeeds'
expect 'success: --out-failure is {}, the category empty, no "Why it failed"' '
	test "$(cat "$O/fine/failure")" = "{}" && test ! -s "$O/fine/category" && ! grep -q "Why it failed" "$O/fine/summary"'
for n in oom sec cas; do cp "$T/$n.err" "$JAXJOB_TMP/67-real-failure-$n.err" 2>/dev/null; done
