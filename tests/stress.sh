#!/usr/bin/env bash
# tests/stress.sh - `make check-stress`: rerun the timing-sensitive suites N
# times under an artificial load and report each run, so the next flaky test is
# found here rather than by CI on a busy machine (issue 21).
#
#   tests/stress.sh [PATTERN...]     the suites (default: STRESS_SUITES below)
#   RUNS=5 LOAD=2 JOBS=16 tests/stress.sh
#
#   RUNS  how many times (default 3)
#   LOAD  busy loops beside the suites, one process each (default 2: on 2 cores
#         the suites get about half the machine, as on a shared CI runner)
#   JOBS  passed to tests/run-all.sh (default: its own)
#
# Each run is one tests/run-all.sh of the suites, its report kept in
# $STRESS_DIR/run-N.log (default build/stress/); one line per run on stdout
# ("run 2/3: 180 passed, 0 failed, 0 skipped, wall 1m41s, load 2"), then the
# total. Exit status 0 only if every run passed. The busy loops are stopped
# by their pids on exit, also when interrupted.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
STRESS_SUITES="50-kube-client 56-kube-http2-real 60-launch-cancel 60-launch-faults 60-launch-run
	65-real-launch 66-real-faults 92-load-chaos 93-fault-matrix-outage 31-apiserver-self 94-stall
	60-launch-kueue 60-launch-kueue-queue 61-launch-trainjob 63-launch-failure 65-real-kueue
	67-real-failure 68-real-safety"
runs=${RUNS:-3} load=${LOAD:-2}
dir=${STRESS_DIR:-$top/build/stress}
mkdir -p "$dir"
if [ $# -gt 0 ]; then suites=("$@"); else read -r -a suites <<<"$(echo $STRESS_SUITES)"; fi

busy=()
stop_load() {
	local p
	for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
	busy=()
}
trap stop_load EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < load; i++)); do
	( exec nice -n 0 bash -c 'while :; do :; done' ) &
	busy+=($!)
done

echo "# stress: $runs run(s) of: ${suites[*]}"
echo "# with $load busy loop(s) beside them, JOBS=${JOBS:-default}, reports in $dir/"
bad=0
for ((r = 1; r <= runs; r++)); do
	"$top/tests/run-all.sh" "${suites[@]}" >"$dir/run-$r.log" 2>&1
	rc=$?
	counts=$(tail -n 1 "$dir/run-$r.log")
	wall=$(sed -n 's/^# wall time \([0-9]*m[0-9]*s\).*/\1/p' "$dir/run-$r.log" | tail -n 1)
	echo "run $r/$runs: $counts, wall ${wall:-?}, load $load"
	if [ "$rc" -ne 0 ]; then
		bad=$((bad + 1))
		sed -n '/^# failures:/,/^# wall time/p' "$dir/run-$r.log" | grep -v '^# wall time' | sed 's/^/  /'
	fi
done
echo "# stress: $((runs - bad)) of $runs run(s) green"
[ "$bad" -eq 0 ]
