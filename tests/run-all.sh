#!/usr/bin/env bash
# tests/run-all.sh - run the suites in tests/suites/, in parallel, and count.
#
#   tests/run-all.sh                 every suite
#   tests/run-all.sh PATTERN...      the suites whose file name contains any PATTERN
#   JOBS=1 tests/run-all.sh          one suite at a time (default: 4 x nproc;
#                                    most suites wait on servers and sleeps)
#
# A suite is an executable tests/suites/NN-name.{sh,py} that prints TAP lines
# on stdout: "ok - description", "not ok - description", or
# "ok - description # SKIP reason" when it cannot run here (for example
# ../shared is absent in a user's clone: the reason says so). Anything else it
# prints is kept but not counted. A suite fails when it exits non-zero without
# having reported a failure (a crash is never silent) and when it reported
# nothing at all (a suite that ran nothing is not green).
#
# Suites are independent unless one says otherwise in a comment line:
#   # run-all: after 20-launch-dry-run 21-trainjob-dry-run
#   # run-all: after all
# It then starts once those (or all others) have finished. A suite that
# starts a real kube control plane (etcd, kube-apiserver, controller manager:
# a few hundred MB and a core's worth of CPU while it settles) says
#   # run-all: uses control-plane
# and at most CONTROL_PLANES of those run at once (default 2): three or four
# control planes and the ASan suites on 2 cores starve each other into
# timeouts that a quiet machine never shows; one at a time would chain five
# suites (~4 min) and break the 5-minute budget of make check. A suite that
# says "# run-all: long" (minutes of CPU: 1,000-worker cells) runs only with
# JAXJOB_LONG=1 (`make check-long`); otherwise it is one SKIP line saying so. The longest suites
# of the previous run start first ($JAXJOB_BUILD/suite-times; on a first run
# the rough figures in tests/suite-times). Each suite runs
# in its own process group and its own TMPDIR; whatever it leaves running is
# killed when it exits (and named on stderr). Reports come out in file-name
# order, each suite's lines together, whatever order the suites finish in.
#
# Environment given to suites:
#   JAXJOB        the binary under test (sanitizer build in `make check`)
#   JAXJOB_BUILD  its build directory (unit test binaries in $JAXJOB_BUILD/tests)
#   JAXJOB_TOP    the repository top
#   JAXJOB_SHARED ../shared when present, else empty (JAXJOB_NO_SHARED=1
#                 pretends it is absent, as in a user's clone); only the 1.24
#                 control plane (tests/realserver/kcp.sh) is still taken from it
#   JAXJOB_TESTDATA, JAXJOB_KFP_PYTHON, JAXJOB_KFP_NEWEST_PYTHON, JAXJOB_DEPS_WHY
#                 the test dependencies from the registries (`make test-deps`;
#                 tests/lib/deps.sh), empty where not made yet
#   ARGOCD_TOOLS  the folder of argocd-lua and argocd-cmp (72-argocd-real), as
#                 given, else ../shared/tools/argocd/bin where present
#   JAXJOB_TMP    a scratch directory shared by the run, removed afterwards;
#                 a suite keeps its files under a name of its own in it
#   TMPDIR        $JAXJOB_TMP/tmp.SUITE, the suite's own
#   JAXJOB_PYTHON the Python the suites start, chosen once (below); `python3`
#                 on PATH is it too ($JAXJOB_TMP/bin first on PATH)
# (JAXJOB_RUN_START, seconds since the epoch, makes the wall time line count
# from then: make check sets it before it builds.)
#
# Output: per suite its failures, skips and a count line; then the skips with
# their reasons, the failures, the wall time, and as the last line
# "N passed, N failed, N skipped". Exit status is 0 only if nothing failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export JAXJOB_TOP=$top
export JAXJOB=${JAXJOB:-$top/build/jaxjob}
export JAXJOB_BUILD=${JAXJOB_BUILD:-$top/build}
if [ -z "${JAXJOB_NO_SHARED:-}" ] && [ -d "$top/../shared/reference" ]; then
	export JAXJOB_SHARED=$(cd "$top/../shared" && pwd)
else
	export JAXJOB_SHARED=
fi
. "$top/tests/lib/deps.sh"
# Argo CD's engine reproductions (72-argocd-real): the team's build where there is one
if [ -z "${ARGOCD_TOOLS:-}" ] && [ -n "$JAXJOB_SHARED" ] && [ -x "$JAXJOB_SHARED/tools/argocd/bin/argocd-lua" ]; then
	export ARGOCD_TOOLS=$JAXJOB_SHARED/tools/argocd/bin
fi
export JAXJOB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/jaxjob-tests.XXXXXX")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# --- the Python the suites start (thousands of times), chosen once ---------
# The first of /usr/bin/python3 and python3 on PATH that imports the modules
# the suites import beyond the standard library; resolved to the interpreter
# itself (sys.executable), so a version manager's shim (pyenv: ~350 ms a
# start, /usr/bin/python3 ~35 ms) is never on the path of a suite.
py_mods=yaml,jsonschema
JAXJOB_PYTHON= py_note=
for cand in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
	[ -n "$cand" ] && [ -x "$cand" ] || continue
	exe=$("$cand" -c "import sys, $py_mods; print(sys.executable)" 2>/dev/null) || continue
	[ -x "$exe" ] || exe=$cand
	JAXJOB_PYTHON=$exe py_note=$cand; [ "$exe" = "$cand" ] || py_note="$cand -> $exe"
	py_note="$py_note ($("$exe" -c 'import platform; print(platform.python_version())'); $py_mods)"
	break
done
if [ -z "$JAXJOB_PYTHON" ]; then	# the suites that need the modules say so when they fail
	JAXJOB_PYTHON=$(command -v python3 || echo /usr/bin/python3)
	py_note="$JAXJOB_PYTHON (no candidate imports $py_mods: scripts/install-deps.sh installs them)"
fi
export JAXJOB_PYTHON
mkdir -p "$JAXJOB_TMP/bin" && ln -sf "$JAXJOB_PYTHON" "$JAXJOB_TMP/bin/python3"
export PATH=$JAXJOB_TMP/bin:$PATH
echo "# python: $py_note"
jobs=${JOBS:-$(( $(nproc 2>/dev/null || echo 2) * 4 ))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
cp_max=${CONTROL_PLANES:-2}
[ "$cp_max" -ge 1 ] 2>/dev/null || cp_max=1
t0=$(date +%s.%N)

# --- which suites, in which order ------------------------------------------
suites=()
for suite in "$top"/tests/suites/*; do
	[ -f "$suite" ] && [ -x "$suite" ] || continue
	name=$(basename "$suite")
	if [ $# -gt 0 ]; then
		match=
		for p in "$@"; do case "$name" in *"$p"*) match=1 ;; esac; done
		[ -n "$match" ] || continue
	fi
	suites+=("$name")
done
if [ ${#suites[@]} -eq 0 ]; then
	echo "run-all: no suite in tests/suites/ matches: $*" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

declare -A after=() state=() pid_of=() started=() uses_cp=()
times_file=$JAXJOB_BUILD/suite-times
declare -A last_time=()
for f in "$top/tests/suite-times" "$times_file"; do	# the machine's own times win
	[ -r "$f" ] || continue
	while read -r s n; do
		case "$s" in '#'* | '') continue ;; esac
		last_time[$s]=$n
	done <"$f"
done
for s in "${suites[@]}"; do
	after[$s]=$(sed -n 's/^# run-all: after //p' "$top/tests/suites/$s" | head -n 1)
	grep -q '^# run-all: uses control-plane' "$top/tests/suites/$s" && uses_cp[$s]=1
	state[$s]=pending
	if [ -z "${JAXJOB_LONG:-}" ] && grep -q '^# run-all: long' "$top/tests/suites/$s"; then
		# reported like a suite that ran and skipped, saying how to run it
		echo "ok - $s # SKIP long: make check-long (JAXJOB_LONG=1) runs it" >"$JAXJOB_TMP/$s.out"
		: >"$JAXJOB_TMP/$s.err"
		echo 0 >"$JAXJOB_TMP/$s.rc"
		echo 0 >"$JAXJOB_TMP/$s.secs"
		state[$s]=done
	fi
done
# start order: longest first by the last run's times (unknown: in between)
mapfile -t order < <(for s in "${suites[@]}"; do echo "${last_time[$s]:-30} $s"; done | sort -k1,1nr -k2 | cut -d' ' -f2)

cleanup() {
	local p
	for p in "${!pid_of[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	# interrupted: let the stopped suites end (their last writes land) before removing
	local end=$((SECONDS + 5)) left=1
	while [ "$left" ] && [ "$SECONDS" -lt "$end" ]; do
		left=
		for p in "${!pid_of[@]}"; do kill -0 -- "-$p" 2>/dev/null && left=1; done
		[ -z "$left" ] || sleep 0.05	# sleep-ok: poll interval (until the suites' groups are gone)
	done
	rm -rf "$JAXJOB_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ready() { # SUITE: are the suites it runs after finished, is a control plane free?
	local dep s n=0
	if [ -n "${uses_cp[$1]:-}" ]; then
		for s in "${!uses_cp[@]}"; do [ "${state[$s]}" = running ] && n=$((n + 1)); done
		[ "$n" -lt "$cp_max" ] || return 1
	fi
	for dep in ${after[$1]}; do
		if [ "$dep" = all ]; then
			for s in "${suites[@]}"; do
				[ "$s" = "$1" ] || [ "${state[$s]}" = done ] || return 1
			done
		else
			for s in "${suites[@]}"; do
				case "$s" in "$dep".*|"$dep") [ "${state[$s]}" = done ] || return 1 ;; esac
			done
		fi
	done
	return 0
}

start() { # SUITE
	local s=$1
	mkdir -p "$JAXJOB_TMP/tmp.$s"
	started[$s]=$(date +%s.%N)
	# exec setsid: the suite leads its own process group (pid = pgid), so
	# what it leaves behind can be found and stopped (-w: should setsid have
	# to fork, it still waits for the suite and passes on its status).
	( cd "$top" && TMPDIR=$JAXJOB_TMP/tmp.$s exec setsid -w "$top/tests/suites/$s" \
		>"$JAXJOB_TMP/$s.out" 2>"$JAXJOB_TMP/$s.err" </dev/null ) &
	pid_of[$!]=$s
	state[$s]=running
}

# the live processes of group PID ("pid stat args", cut), zombies left out: they are gone
# already, only not reaped yet
group_left() {
	ps -o pid=,stat=,args= -g "$1" 2>/dev/null | awk '$2 !~ /^Z/' | cut -c 1-120
}

finish() { # PID STATUS
	local p=$1 rc=$2 s=${pid_of[$1]} left
	unset "pid_of[$p]"
	left=$(group_left "$p")
	if [ -n "$left" ]; then
		echo "run-all: $s left process(es) running; stopped them:" >>"$JAXJOB_TMP/$s.err"
		printf '%s\n' "$left" >>"$JAXJOB_TMP/$s.err"
		printf '%s\n' "$left" | sed "s/^ */# $s left running (stopped): /" >>"$JAXJOB_TMP/$s.note"
		kill -TERM -- "-$p" 2>/dev/null
		# until they are gone (two seconds at most), then SIGKILL what is still there
		local end=$((SECONDS + 2))
		while [ -n "$(group_left "$p")" ] && [ "$SECONDS" -lt "$end" ]; do
			sleep 0.05	# sleep-ok: poll interval (until the group's processes are gone)
		done
		kill -KILL -- "-$p" 2>/dev/null
	fi
	echo "$rc" >"$JAXJOB_TMP/$s.rc"
	awk -v a="${started[$s]}" -v b="$(date +%s.%N)" 'BEGIN { printf "%d\n", b - a + 0.5 }' >"$JAXJOB_TMP/$s.secs"
	state[$s]=done
}

# --- report one suite (called in file-name order) ----------------------------
# failure_detail SUITE: what a failing check said. The tap helpers write a block that starts
# "--- DESCRIPTION" to stderr for each failure; the suite's last lines alone can miss it (a
# suite goes on after a failure, and CI shows only the end of the log), so each failing
# check's own block comes first, then the suite's last lines.
failure_detail() {
	local s=$1 desc
	while IFS= read -r desc; do
		# the block is "--- DESCRIPTION" (expect, the driver) or "--- DESCRIPTION: expected
		# exit ..." (expect_exit); it runs to the next block, 30 lines at most. (The text
		# goes through the environment: awk -v would read its backslashes as escapes.)
		S=$s D="--- $desc" awk '
			!n && ($0 == ENVIRON["D"] || index($0, ENVIRON["D"] ": ") == 1) {
				n = NR; print "# --- what " ENVIRON["S"] " said of: " substr(ENVIRON["D"], 5) " ---" }
			n && NR > n && /^--- / { exit }
			n { print "# " $0; if (NR - n >= 29) exit }' "$JAXJOB_TMP/$s.err"
	done < <(sed -n 's/^not ok - //p' "$JAXJOB_TMP/$s.out" | head -n 5)
	echo "# --- stderr of $s (last 20 lines) ---"
	tail -n 20 "$JAXJOB_TMP/$s.err" | sed 's/^/# /'
}

passed=0 failed=0 skipped=0
failures=() skips=()
report() { # SUITE
	local s=$1 rc line s_pass=0 s_fail=0 s_skip=0
	rc=$(cat "$JAXJOB_TMP/$s.rc")
	echo "# suite $s"
	while IFS= read -r line; do
		case "$line" in
		"not ok"*)
			s_fail=$((s_fail + 1)); failures+=("$s: $line"); echo "$line" ;;
		"ok"*"# SKIP"*|"ok"*"# skip"*)
			s_skip=$((s_skip + 1)); skips+=("$s: ${line#ok - }"); echo "$line" ;;
		"ok"*)
			s_pass=$((s_pass + 1)) ;;
		esac
	done <"$JAXJOB_TMP/$s.out"
	if [ "$rc" -ne 0 ] && [ "$s_fail" -eq 0 ]; then
		s_fail=1
		failures+=("$s: exited with status $rc without reporting a failure")
	fi
	if [ $((s_pass + s_fail + s_skip)) -eq 0 ]; then
		s_fail=1
		failures+=("$s: reported no test at all (a suite that ran nothing fails)")
	fi
	[ -f "$JAXJOB_TMP/$s.note" ] && cat "$JAXJOB_TMP/$s.note"
	[ "$s_fail" -ne 0 ] && failure_detail "$s"
	echo "# $s: $s_pass passed, $s_fail failed, $s_skip skipped ($(cat "$JAXJOB_TMP/$s.secs")s)"
	passed=$((passed + s_pass)); failed=$((failed + s_fail)); skipped=$((skipped + s_skip))
}

# --- the scheduler ------------------------------------------------------------
next_report=0
flush() { # report every finished suite at the head of the file-name order
	while [ "$next_report" -lt ${#suites[@]} ] && [ "${state[${suites[$next_report]}]}" = done ]; do
		report "${suites[$next_report]}"
		next_report=$((next_report + 1))
	done
}
while :; do
	for s in "${order[@]}"; do
		[ ${#pid_of[@]} -lt "$jobs" ] || break
		[ "${state[$s]}" = pending ] && ready "$s" && start "$s"
	done
	if [ ${#pid_of[@]} -eq 0 ]; then
		pending=
		for s in "${suites[@]}"; do [ "${state[$s]}" = pending ] && pending+=" $s"; done
		[ -z "$pending" ] && break
		# what is left waits for a suite that is not in this run: start it anyway
		for s in $pending; do start "$s"; break; done
	fi
	wait -n -p done_pid
	rc=$?
	[ -n "${done_pid:-}" ] && [ -n "${pid_of[$done_pid]+x}" ] && finish "$done_pid" "$rc"
	flush
done
flush
if [ "$next_report" -lt ${#suites[@]} ]; then
	failed=$((failed + 1))
	failures+=("run-all: stopped before every suite had finished (a bug in tests/run-all.sh)")
fi

# the times of this run order the next one (only a full run's are kept)
if [ $# -eq 0 ] && [ -d "$JAXJOB_BUILD" ]; then
	for s in "${suites[@]}"; do	# a long suite skipped keeps its last time
		n=$(cat "$JAXJOB_TMP/$s.secs")
		[ "$n" = 0 ] && [ -n "${last_time[$s]:-}" ] && n=${last_time[$s]}
		echo "$s $n"
	done >"$times_file.tmp" &&
		mv "$times_file.tmp" "$times_file"
fi

if [ ${#skips[@]} -gt 0 ]; then
	echo "# skipped (suite: test # SKIP reason):"
	printf '#   %s\n' "${skips[@]}"
fi
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
mmss() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { s = b - a; printf "%dm%02ds", s / 60, s % 60 }'; }
# JAXJOB_RUN_START (make check sets it before building): the whole run's time
echo "# wall time $(mmss "${JAXJOB_RUN_START:-$t0}")${JAXJOB_RUN_START:+ (build and suites; suites $(mmss "$t0"))} with JOBS=$jobs CONTROL_PLANES=$cp_max on $(nproc 2>/dev/null || echo '?') cores"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
