#!/usr/bin/env bash
# bench/safety-drills.sh [BINARY] - the timing side of issue 27's drills on the REAL
# kube-apiserver (tests/realserver/kcp.sh), figures for bench/README.md (the suite
# tests/suites/68-real-safety.sh asserts the behaviour; this measures it):
#   stall     RUNS times: stdout a FIFO whose reader is stopped, 4 workers x 20,000 lines;
#             SIGTERM once the launch says stdout is not read; the time from the signal to
#             the exit, and the exit code (5 expected)
#   sweep     SIGTERM and SIGINT at every millisecond from 0 to SWEEP_MS after main() began
#             (the event: both signals show in /proc/PID/status SigBlk); the exit codes seen
#             (5 expected every time, never 143/130) and the jobs left behind (none)
#   restarts  RUNS times (68-real-safety runs it once per variant): a launch is stopped
#             (SIGSTOP) while its job runs, the API server restarts (its connections die with
#             it), the job succeeds through the new one, the server is killed again, and the
#             launch is continued and sent SIGTERM while it is down. Alternately the server
#             comes back within --delete-timeout (the launch must report Succeeded, exit 0, and
#             keep the job) or stays down past it (3 s: exit 5, the job left as is - never
#             deleted). Every run's stderr is kept in $KEEP (build/bench/restart-drill/).
# Environment: DRILLS ("stall sweep restarts"), RUNS (20), SWEEP_MS (100), STEP_MS (1).
# Default BINARY: build/jaxjob.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
RUNS=${RUNS:-20}
SWEEP_MS=${SWEEP_MS:-100}
STEP_MS=${STEP_MS:-1}
DRILLS=${DRILLS:-stall sweep restarts}
KEEP=${KEEP:-$top/build/bench/restart-drill}
export JAXJOB_TOP=$top JAXJOB_SHARED=${JAXJOB_SHARED:-$top/../shared}
export JAXJOB_TMP=$(mktemp -d)
. "$top/tests/realserver/kcp.sh"
kcp_check || { echo "no control plane: $KCP_WHY" >&2; exit 1; }
T=$JAXJOB_TMP
trap 'kcp_down; rm -rf "$T"' EXIT
kcp_up "$T/kcp" >"$T/up.log" 2>&1 || { cat "$T/up.log" >&2; exit 1; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# ---- stall
drill() { case " $DRILLS " in *" $1 "*) return 0 ;; esac; return 1; }
if drill stall; then
codes= times=
for i in $(seq 1 "$RUNS"); do
	name=stall-$i fifo=$T/stall-$i.fifo
	mkfifo "$fifo"
	cat "$fifo" >/dev/null &
	reader=$!
	"$BIN" launch --kubeconfig "$KCP_KUBECONFIG" --name "$name" --image x/jax:1 --workers 4 \
		--env SIM_LINES=20000 --env SIM_DURATION=60 >"$fifo" 2>"$T/$name.err" &
	pid=$!
	until [ -e "$T/$name.err" ]; do :; done
	kill -STOP "$reader"
	until grep -q "stdout is not being read" "$T/$name.err" || ! kill -0 "$pid" 2>/dev/null; do
		sleep 0.02	# sleep-ok: poll interval
	done
	t0=$(ms)
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	t1=$(ms)
	kill -CONT "$reader"; kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
	codes="$codes $rc" times="$times $((t1 - t0))"
done
echo "stall: $RUNS runs; exit codes:$(echo $codes | tr ' ' '\n' | sort | uniq -c | awk '{printf " %s x%s", $2, $1}')"
echo "stall: SIGTERM -> exit ms, sorted:$(echo $times | tr ' ' '\n' | sort -n | tr '\n' ' ')"
fi

# ---- sweep
if drill sweep; then
declare -A seen=()
n=0
for d in $(seq 0 "$STEP_MS" "$SWEEP_MS"); do
	for sig in TERM INT; do
		n=$((n + 1))
		"$BIN" launch --kubeconfig "$KCP_KUBECONFIG" --name "sw-$n" --image x/jax:1 --workers 1 \
			--env SIM_DURATION=30 >/dev/null 2>"$T/sw-$n.err" &
		pid=$!
		until jaxjob_begun "$pid" || ! kill -0 "$pid" 2>/dev/null; do :; done
		end=$(( $(ms) + d ))
		while [ "$(ms)" -lt "$end" ]; do :; done
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		seen[$sig:$rc]=$(( ${seen[$sig:$rc]:-0} + 1 ))
	done
done
left=$(kcp_ctl GET "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs" | /usr/bin/python3 -c '
import json, sys
print(sum(1 for i in json.load(sys.stdin)["items"] if i["metadata"]["name"].startswith("sw-")
          and not i["metadata"].get("deletionTimestamp")))')
echo "sweep: $n launches, signal at 0..${SWEEP_MS} ms in ${STEP_MS} ms steps after main(); exit codes:$(for k in "${!seen[@]}"; do printf ' SIG%s->%s x%s' "${k%%:*}" "${k#*:}" "${seen[$k]}"; done); jobs left behind: $left"
fi

# ---- restarts
state() { # NAME: the job's True conditions, or absent
	kcp_ctl GET "/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
try:
    o = json.load(sys.stdin)
except ValueError:
    o = {}
c = [x["type"] for x in (o.get("status") or {}).get("conditions") or [] if x.get("status") == "True"]
print(",".join(c) if o.get("kind") == "JAXJob" else "absent")'
}
drill restarts || exit 0
mkdir -p "$KEEP"
good=0 bad=0
for i in $(seq 1 "$RUNS"); do
	variant=back timeout=60s
	[ $((i % 2)) = 0 ] && variant=down timeout=3s
	name=rd-$i err=$KEEP/$name.err
	"$BIN" launch --kubeconfig "$KCP_KUBECONFIG" --name "$name" --image x/jax:1 --workers 2 \
		--env SIM_LINES=3 --env SIM_DURATION=8 --delete-timeout "$timeout" \
		--out-state "$T/$name.state" >/dev/null 2>"$err" &
	pid=$!
	until grep -q "Running" "$err" 2>/dev/null; do sleep 0.05; done	# sleep-ok: poll interval
	kill -STOP "$pid"
	kcp_kill_apiserver && kcp_start_apiserver
	until state "$name" | grep -q Succeeded; do sleep 0.2; done		# sleep-ok: poll interval
	kcp_kill_apiserver
	kill -CONT "$pid"
	kill -TERM "$pid"
	[ "$variant" = back ] && kcp_start_apiserver
	wait "$pid"
	rc=$?
	[ "$variant" = down ] && kcp_start_apiserver
	st=$(state "$name")
	case "$variant:$rc" in
	back:0 | down:5) ok=1 ;;
	*) ok=0 ;;
	esac
	case ",$st," in *,Succeeded,*) ;; *) ok=0 ;; esac
	if [ $ok = 1 ]; then good=$((good + 1)); else bad=$((bad + 1)); fi
	echo "run $i ($variant): exit $rc, state $(cat "$T/$name.state" 2>/dev/null), job now $st: $([ $ok = 1 ] && echo ok || echo WRONG)"
done
echo "restart drill: $good of $RUNS as expected ($bad wrong); no run may delete the Succeeded job"
