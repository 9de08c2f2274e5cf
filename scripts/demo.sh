#!/usr/bin/env bash
# scripts/demo.sh - `make demo`: render the launch examples with
# `build/jaxjob launch --dry-run` and show what each one creates.
#
# Part 1 touches no cluster: it prints the JAXJob of each script under
# examples/launch/ and checks it against the manifest committed beside it
# (examples/launch/NAME.yaml), so a change in what launch produces is seen
# here first.
#
# Part 2 runs the main job end to end against the Kubernetes API test server
# (tests/kube-apiserver, with its simulated training operator): a 4-worker
# JAXJob whose streamed logs, progress and outputs are shown, then a job whose
# worker fails, which must end with exit 1 and say why. The server is stopped
# on the way out, whatever happens.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export JAXJOB=${JAXJOB:-$top/build/jaxjob}

say() { printf '\n==> %s\n' "$*"; }

say "the issue's command"
echo "\$ jaxjob launch --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py"
"$JAXJOB" launch --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 \
	-- python train.py

failed=0
for script in "$top"/examples/launch/*.sh; do
	name=$(basename "$script" .sh)
	say "examples/launch/$name.sh --dry-run"
	out=$("$script" --dry-run)
	printf '%s\n' "$out" | sed -n '1,12p'
	echo "  ... ($(printf '%s\n' "$out" | wc -l) lines)"
	if printf '%s\n' "$out" | cmp -s - "$top/examples/launch/$name.yaml"; then
		echo "  = examples/launch/$name.yaml"
	else
		echo "  DIFFERS from examples/launch/$name.yaml" >&2
		failed=1
	fi
done

say "bad input is refused with one line and exit 2"
set +e
"$JAXJOB" launch --dry-run --name mnist --image ghcr.io/x/jax:1 --memory '4 GB'
echo "  (exit $?)"
set -e

# ---- part 2: a real run against the test API server --------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/jaxjob-demo.XXXXXX")
cleanup() {
	"$top/tests/kube-apiserver/stop.sh" "$work/server" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
say "start the Kubernetes API test server (simulated training operator) in $work/server"
"$top/tests/kube-apiserver/start.sh" "$work/server"
echo "  serving at $(cat "$work/server/url")"
kc="$work/server/kubeconfig"

show_outputs() { # DIR
	local f
	for f in state reason message job-name job-uid start-time completion-time duration workers exit-code; do
		printf '  %-16s %s\n' "$f" "$(cat "$1/$f" 2>/dev/null)"
	done
	echo "  summary.md:"
	sed 's/^/    /' "$1/summary.md"
}

say "a 4-worker JAXJob: logs of every worker on stdout, progress on stderr"
echo "\$ jaxjob launch --name mnist --image ghcr.io/x/jax:1 --workers 4 --env SIM_LINES=3 --out-...=$work/out/... -- python train.py"
outs() {
	local d=$1
	echo "--out-state=$d/state --out-reason=$d/reason --out-message=$d/message --out-job-name=$d/job-name" \
		"--out-job-uid=$d/job-uid --out-start-time=$d/start-time --out-completion-time=$d/completion-time" \
		"--out-duration=$d/duration --out-workers=$d/workers --out-exit-code=$d/exit-code" \
		"--out-summary=$d/summary.md --out-job-json=$d/job.json"
}
set +e
# shellcheck disable=SC2046
"$JAXJOB" launch --kubeconfig "$kc" --name mnist --image ghcr.io/x/jax:1 --workers 4 \
	--env SIM_LINES=3 --env SIM_DURATION=2 --env SIM_LATE_WORKER=3 --env SIM_LATE_DELAY=1 \
	$(outs "$work/out/mnist") -- python train.py
rc=$?
set -e
echo "  (exit $rc)"
say "its outputs"
show_outputs "$work/out/mnist"
[ "$rc" -eq 0 ] || { echo "demo: the 4-worker job should have succeeded (exit $rc)" >&2; failed=1; }

say "a JAXJob whose worker 2 fails with exit code 3: the step fails too, and says why"
echo "\$ jaxjob launch --name mnist-broken --image ghcr.io/x/jax:1 --workers 4 --env SIM_FAIL_WORKER=2 --env SIM_EXIT=3 ..."
set +e
# shellcheck disable=SC2046
"$JAXJOB" launch --kubeconfig "$kc" --name mnist-broken --image ghcr.io/x/jax:1 --workers 4 \
	--env SIM_LINES=2 --env SIM_FAIL_WORKER=2 --env SIM_EXIT=3 --delete-after always \
	$(outs "$work/out/broken") -- python train.py
rc=$?
set -e
echo "  (exit $rc: 1 = the job failed, as expected)"
say "its outputs"
show_outputs "$work/out/broken"
if [ "$rc" -ne 1 ] || [ "$(cat "$work/out/broken/state")" != Failed ]; then
	echo "demo: the failing job should have ended with exit 1 and state Failed (exit $rc)" >&2
	failed=1
fi

say "done: $([ $failed -eq 0 ] && echo 'everything behaved as expected' || echo 'SOMETHING DIFFERED, see above')"
exit $failed
