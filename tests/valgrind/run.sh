#!/usr/bin/env bash
# tests/valgrind/run.sh BUILD [PATTERN...] - the suites under valgrind memcheck
# (`make check-valgrind`). BUILD is a non-sanitizer build (build/vg, made with
# OPT='-O0 -g'). Every program the suites run from it (the jaxjob binary and
# each binary in BUILD/tests/) is replaced by a wrapper that execs
# tests/valgrind/vg.sh, then tests/run-all.sh runs the suites named by
# PATTERNs (default: the unit tests and the CLI suites; the fuzz, fault,
# load and security suites are not about the binary's memory and would only
# be slow). Valgrind reports of every process are collected at the end.
# The last line is "N passed, N failed" over all patterns plus one failure
# per process with a memcheck report. Exit status 0 only if all is clean.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD [PATTERN...]}" && pwd)
shift
patterns=("$@")
# Not by default: 60-launch-cancel and 60-launch-faults signal or fault the
# launch at moments picked with 10 s waits, which valgrind's 20-50x
# slowdown overruns (the signal lands before the handler exists, exit 143).
[ ${#patterns[@]} -eq 0 ] && patterns=(10-unit 20-launch 21-trainjob 25-crd 40-health 50-kube-client 60-launch-run
	60-launch-component 60-launch-reattach 61-launch 70-render 71-render 85-readme)
command -v valgrind >/dev/null || { echo "valgrind is not installed"; echo "0 passed, 1 failed"; exit 1; }

wrap=$build/vg-wrap
rm -rf "$wrap"
mkdir -p "$wrap/tests"
export VG_LOGDIR=$build/vg-logs
rm -rf "$VG_LOGDIR"
mkdir -p "$VG_LOGDIR"
mkwrap() { # REAL WRAPPER
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$top/tests/valgrind/vg.sh" "$1" >"$2"
	chmod +x "$2"
}
mkwrap "$build/jaxjob" "$wrap/jaxjob"
for t in "$build"/tests/*; do
	[ -x "$t" ] && [ -f "$t" ] && mkwrap "$t" "$wrap/tests/${t##*/}"
done

passed=0 failed=0
for p in "${patterns[@]}"; do
	out=$(JAXJOB=$wrap/jaxjob JAXJOB_BUILD=$wrap "$top/tests/run-all.sh" "$p")
	printf '%s\n' "$out" | sed '$d'
	last=$(printf '%s\n' "$out" | tail -n 1)
	passed=$((passed + $(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')))
	failed=$((failed + $(echo "$last" | sed -n 's/.* \([0-9]*\) failed$/\1/p')))
done

procs=$(ls "$VG_LOGDIR" | wc -l)
bad=0
for f in "$VG_LOGDIR"/*.log; do
	[ -s "$f" ] || continue
	bad=$((bad + 1))
	echo "# --- valgrind report $(basename "$f") ---"
	sed 's/^/# /' "$f" | head -n 60
done
echo "# valgrind: $procs processes checked, $bad with memcheck reports"
failed=$((failed + bad))
echo "$passed passed, $failed failed"
# for scripts/reliability-report.sh
echo "$(date -u '+%Y-%m-%d %H:%M UTC'): suites ${patterns[*]}: $passed passed, $((failed - bad)) failed; $procs processes under memcheck, $bad with a memory error or leak report" \
	>"$build/vg-summary.txt"
[ "$failed" -eq 0 ]
