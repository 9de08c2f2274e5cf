#!/usr/bin/env bash
# scripts/compare-launch.sh OLD_BINARY NEW_BINARY [SCENARIO...]
#
# Does a refactor of `jaxjob launch` preserve its behaviour? Runs every scenario the Kubernetes
# API test server (tests/kube-apiserver/) offers to a launch with each binary against its own
# fresh server, every --out-* flag set, and compares what a user or a pipeline sees: the exit
# code, every output file, stdout (worker lines) and stderr. Times, durations, uids,
# resourceVersions, launch ids, rates, ports and random name suffixes are masked
# (scripts/compare-launch-mask.py); stdout is compared per worker (the interleaving of workers
# is the scheduler's, not the launcher's).
#
# Signals and faults are sent on an event (a line on stderr, a request in the server's log, a
# job state), never after a fixed time. Some scenarios still vary run to run (whether a
# "Pending: 0/2" or a "Created: 0/2" line comes first, which worker's end is seen first): when
# OLD and NEW differ, each binary runs the scenario RUNS (default 3) times. If each binary then
# repeats itself, the difference is the change's ("differs"). Otherwise it is judged file by
# file on line sets: a line every NEW run printed and no OLD run did, or every OLD run printed
# and no NEW run did, is a difference ("differs beyond variance"); else "same within
# variance", and the line says where OLD differed from itself.
#
# Prints one line per scenario and exits 1 on any difference. Environment: JOBS (scenarios in
# parallel, default 2: each runs one server and one launch at a time), KEEP=DIR keeps every
# run's files there (default: a temporary directory, removed unless something differs).
# A tool, not a test: it is not part of `make check`.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
MASK="$TOP/scripts/compare-launch-mask.py"
PY=/usr/bin/python3

# ---------------------------------------------------------------- one side of one scenario
if [ "${1:-}" = --side ]; then
	BIN=$2 D=$3 SC=$4
	KS=$D/ks
	mkdir -p "$D/o"
	unset ARGO_WORKFLOW_UID ARGO_WORKFLOW_NAME KFP_RUN_ID JAXJOB_TMP
	J=/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs
	up() {
		"$TOP/tests/kube-apiserver/start.sh" "$KS" "$@" >"$D/ks.log" 2>&1 ||
			{ echo "the test server did not start" >"$D/side-error"; exit 1; }
		# the server's request log is kept as evidence (requests.json, not compared)
		trap '"$PY" "$TOP/tests/kube-apiserver/kclient.py" "$KS" GET /_test/requests >"$D/requests.json" 2>/dev/null
			"$TOP/tests/kube-apiserver/stop.sh" "$KS" >/dev/null 2>&1' EXIT
		KC=$KS/kubeconfig
	}
	ctl() { "$PY" "$TOP/tests/kube-apiserver/kclient.py" "$KS" "$@" >/dev/null; }
	OUTS=()
	for n in completion-time duration exit-code failure failure-category job-json job-name \
		job-namespace job-uid manifest message metrics metrics-chart metrics-csv metrics-report \
		progress queue-time reason run-time start-time state summary workers; do
		OUTS+=("--out-$n=$D/o/$n")
	done
	# L ARGS: the compared launch, in the foreground; B ARGS: in the background, W waits for it
	L() { "$BIN" launch --kubeconfig "$KC" "${OUTS[@]}" "$@" >"$D/out" 2>"$D/err"; echo $? >"$D/rc"; }
	B() { "$BIN" launch --kubeconfig "$KC" "${OUTS[@]}" "$@" >"$D/out" 2>"$D/err" & PID=$!; }
	W() { wait "$PID"; echo $? >"$D/rc"; }
	# P NAME ARGS: an earlier launch of the scenario (not compared), in the background
	P() { local n=$1; shift; "$BIN" launch --kubeconfig "$KC" "$@" >"$D/$n.out" 2>"$D/$n.err" & PPID_=$!; }
	# until CMD: poll an event (a line, a request, a state); 90 s is a ceiling against hangs
	until_() {
		local end=$((SECONDS + 90))
		until "$@" >/dev/null 2>&1; do
			[ "$SECONDS" -lt "$end" ] || { echo "event never came: $*" >>"$D/side-error"; return 1; }
			sleep 0.05 # sleep-ok: the poll interval of an event wait
		done
	}
	ev() { until_ grep -Eq "$1" "${2:-$D/err}"; }	# REGEX [FILE]: a line on stderr
	seen_() { # METHOD PATH_REGEX: the server logged such a request
		"$PY" -c '
import json, re, sys
sys.path.insert(0, sys.argv[1])
import kclient
st, val, _ = kclient.Client(sys.argv[2]).req("GET", "/_test/requests")
sys.exit(0 if any(e["method"] == sys.argv[3] and re.search(sys.argv[4], e["path"]) for e in val) else 1)
' "$TOP/tests/kube-apiserver" "$KS" "$1" "$2"
	}
	seen() { until_ seen_ "$@"; }
	state_() { # KIND NAME: the job's True conditions, "absent"
		"$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import kclient
st, val, _ = kclient.Client(sys.argv[2]).req("GET", "/_test/state")
for j in val[sys.argv[3]]:
    if j["name"] == sys.argv[4]:
        print(",".join(j["conditions"])); break
else:
    print("absent")' "$TOP/tests/kube-apiserver" "$KS" "$1" "$2"
	}
	is_state() { [ "$(state_ "$1" "$2")" = "$3" ]; }
	SK() { "$PY" "$TOP/tests/kueue/simkueue.py" --ks "$KS" "$@" >/dev/null; }
	users() { ctl POST /_test/users "$1"; sed "s|^\(    token: \).*|\1$(cat "$KS/$2.token")|" "$KC" >"$D/kc-$2"; }
	. "$TOP/scripts/compare-launch-scenarios.sh"
	"sc_$SC"
	exit 0
fi

# ---------------------------------------------------------------- one scenario, both sides
. "$TOP/scripts/compare-launch-scenarios.sh"
if [ "${1:-}" = --one ]; then
	OLD=$2 NEW=$3 SC=$4 R=$5/$4
	mkdir -p "$R"
	side() { "$0" --side "$1" "$R/$2" "$SC"; "$PY" "$MASK" norm "$R/$2"; }
	side "$OLD" old1; side "$NEW" new1
	if line=$("$PY" "$MASK" cmp "$R/old1" "$R/new1"); then
		printf '%-24s same\n' "$SC"
		exit 0
	fi
	# a difference: is it timing? RUNS runs of each binary (OLD against itself shows the variance)
	olds=("$R/old1") news=("$R/new1")
	for i in $(seq 2 "${RUNS:-3}"); do
		side "$OLD" "old$i"; side "$NEW" "new$i"
		olds+=("$R/old$i") news+=("$R/new$i")
	done
	var=none newvar=none
	for o in "${olds[@]:1}"; do
		if v=$("$PY" "$MASK" cmp "$R/old1" "$o"); then :; else var=$v; break; fi
	done
	for o in "${news[@]:1}"; do
		if v=$("$PY" "$MASK" cmp "$R/new1" "$o"); then :; else newvar=$v; break; fi
	done
	if [ "$var" = none ] && [ "$newvar" = none ]; then	# each binary repeats itself: not timing
		printf '%-24s differs: %s\n' "$SC" "$line"
		exit 1
	fi
	if res=$("$PY" "$MASK" within "${olds[@]}" -- "${news[@]}"); then
		printf '%-24s same within variance (old vs old: %s; new vs new: %s)\n' "$SC" "$var" "$newvar"
		exit 0
	fi
	printf '%-24s differs beyond variance: %s (old vs old: %s; new vs new: %s)\n' "$SC" "$res" "$var" "$newvar"
	exit 1
fi

# ---------------------------------------------------------------- all scenarios
[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [SCENARIO...]" >&2; exit 2; }
OLD=$(readlink -f "$1") NEW=$(readlink -f "$2")
shift 2
for b in "$OLD" "$NEW"; do
	[ -x "$b" ] || { echo "error: $b is not an executable jaxjob binary" >&2; exit 2; }
done
# shellcheck disable=SC2046
[ $# -gt 0 ] || set -- $(declare -F | sed -n 's/^declare -f sc_//p' | sort)
if [ -n "${KEEP:-}" ]; then R=$KEEP; mkdir -p "$R"; else R=$(mktemp -d /tmp/compare-launch.XXXXXX); fi
printf '%s\n' "$@" | xargs -P "${JOBS:-2}" -I{} "$0" --one "$OLD" "$NEW" {} "$R" | tee "$R/table"
n=$(grep -c ' differs' "$R/table")
echo "$(wc -l <"$R/table") scenarios, $n differ; runs kept in $R"
if [ "$n" -eq 0 ] && [ -z "${KEEP:-}" ]; then rm -rf "$R"; fi
[ "$n" -eq 0 ]
