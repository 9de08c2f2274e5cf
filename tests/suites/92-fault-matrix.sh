#!/usr/bin/env bash
# The fault matrix (issue #8): `jaxjob launch` against the Kubernetes API test
# server while it misbehaves (tests/kube-apiserver/README.md, "Faults"). One
# TAP line per cell; each cell states its expected outcome and checks
#   - the exit code, and the state and exit code written to the outputs;
#   - no duplicate job: exactly one successful create (POST -> 201);
#   - no orphaned job: the job is gone with --delete-after=always, kept with
#     the default (never) - except where the cell says why not;
#   - every worker's log complete and no line printed twice, where logs are
#     part of the cell.
# Durations differ from the issue's wording to keep `make check` short:
#   API server down 5 s (FAULT_DOWN_SECONDS; the issue says 30 s: the same
#   code path - the watch backs off and resumes - only longer; run
#   FAULT_DOWN_SECONDS=30 tests/run-all.sh 92-fault for the full length);
#   1,000 workers with --logs first (1,000 pods, pod watch and worker counts
#   at that scale; every worker's log stream at 1,000 is in bench/load.sh).
#
# The cells run in four parts, each its own suite with its own server, so
# that they run side by side (parts 2 and 4, 1,000 workers, only in
# `make check-long`): part 1 here (the protocol
# faults), parts 2 and 4 in 93-fault-matrix-scale.sh and
# 93-fault-matrix-scale-fast.sh (1,000 workers), part 3 in
# 93-fault-matrix-outage.sh (outages, credentials, certificates). The whole
# matrix in one go: FAULT_PARTS='1 2 3 4' tests/suites/92-fault-matrix.sh
FAULT_PARTS=${FAULT_PARTS:-1}
part_of() {
	case $1 in
	workers-1000) echo 2 ;;
	workers-1000-fast) echo 4 ;;
	server-down | token-rotated | failed-worker | tls-changed) echo 3 ;;
	*) echo 1 ;;
	esac
}
. "$JAXJOB_TOP/tests/suites/90-reliability.lib"
ks_start
register_secrets
DOWN=${FAULT_DOWN_SECONDS:-5}

running() { case "$(job_state "$1")" in *Running*) return 0 ;; *) return 1 ;; esac; }

# cell NAME RC STATE POLICY HOOK -- LAUNCH-ARGS...
#   POLICY: gone (--delete-after=always), kept (default never), any
#   HOOK: a function run once the job is Running (or "-")
#   Extra checks: the function check_NAME, if defined, runs last.
cell() {
	local name=$1 want_rc=$2 want_state=$3 policy=$4 hook=$5
	case " $FAULT_PARTS " in *" $(part_of "$name") "*) ;; *) return 0 ;; esac
	shift 6
	local d=$KEEP/$name why=
	mkdir -p "$d"
	ks_mark
	local extra=()
	[ "$policy" = gone ] && extra=(--delete-after=always)
	launch --name "$name" --image x/jax:1 --timeout "${CELL_TIMEOUT:-120}" "${extra[@]}" \
		--out-state "$d/state" --out-exit-code "$d/exit-code" --out-workers "$d/workers" \
		--out-job-json "$d/job.json" --out-summary "$d/summary.md" "$@" >"$d/stdout" 2>"$d/stderr" &
	local pid=$!
	if [ "$hook" != - ]; then
		wait_for running "$name" || why="$why; the job never ran"
		"$hook" "$name"
	fi
	wait "$pid"
	local rc=$?
	[ "$rc" -eq "$want_rc" ] || why="$why; exit $rc, want $want_rc"
	[ "$(cat "$d/state" 2>/dev/null)" = "$want_state" ] || why="$why; state output '$(cat "$d/state" 2>/dev/null)', want $want_state"
	[ "$(cat "$d/exit-code" 2>/dev/null)" = "$rc" ] || why="$why; exit-code output '$(cat "$d/exit-code" 2>/dev/null)'"
	local n
	n=$(posts)
	[ "$n" = 1 ] || why="$why; $n jobs created"
	local st
	st=$(job_state "$name")
	case "$policy" in
	gone) [ "$st" = absent ] || why="$why; job left behind ($st) despite --delete-after=always" ;;
	kept) [ "$st" != absent ] || why="$why; job deleted although the policy keeps it" ;;
	esac
	if declare -F "check_$name" >/dev/null; then
		local more
		more=$("check_$name" "$d" 2>&1) || why="$why; $more"
	fi
	CELL_DESC="fault cell $name: $CELL_WHAT -> exit $want_rc, $want_state, 1 job created, job $policy"
	if [ -z "$why" ]; then
		ok "$CELL_DESC"
	else
		not_ok "$CELL_DESC"
		{ echo "--- $name:${why#;}"; tail -n 15 "$d/stderr"; } >&2
	fi
}

# logs_complete DIR WORKERS LINES: each worker's SIM_LINES step lines and its
# "finished" line exactly once, nothing printed twice
logs_complete() {
	local d=$1 n=$2 lines=$3 w
	for ((w = 0; w < n; w++)); do
		[ "$(grep -c "^\[worker-$w\] step [0-9]*/$lines " "$d/stdout")" -eq "$lines" ] ||
			{ echo "worker-$w: $(grep -c "^\[worker-$w\] step" "$d/stdout") of $lines step lines"; return 1; }
		[ "$(grep -c "^\[worker-$w\] INFO:sim:worker $w finished" "$d/stdout")" -eq 1 ] ||
			{ echo "worker-$w: finished line missing or repeated"; return 1; }
	done
	[ -z "$(sort "$d/stdout" | uniq -d | head -n 1)" ] || { echo "a log line printed twice"; return 1; }
}

answered() { # METHOD CODE: requests since ks_mark answered with CODE
	requests | python3 -c 'import json, sys
print(sum(1 for r in json.load(sys.stdin) if r["method"] == sys.argv[1] and r.get("code") == int(sys.argv[2])))' "$1" "$2"
}

# --- the cells ------------------------------------------------------------------
CELL_WHAT='every watch stream cut after 2 events'
fault '{"watchDropAfter": 2}'
check_watch-drop() { logs_complete "$1" 3 4; }
cell watch-drop 0 Succeeded gone - -- --workers 3 --env SIM_LINES=4 --env SIM_DURATION=2 -- python t.py
fault '{"watchDropAfter": null}'

CELL_WHAT='410 Gone on the next 3 watches'
fault '{"watchGone": 3}'
check_gone-410() { logs_complete "$1" 2 3; }
cell gone-410 0 Succeeded kept - -- --workers 2 --env SIM_LINES=3 -- python t.py
fault '{"watchGone": null}'

CELL_WHAT='a burst of 6 HTTP 500 on any request'
fault '{"errors": {"code": 500, "count": 6}}'
check_burst-500() { logs_complete "$1" 2 3 && [ "$(answered GET 500)$(answered POST 500)" != 00 ]; }
cell burst-500 0 Succeeded gone - -- --workers 2 --env SIM_LINES=3 -- python t.py
fault '{"errors": null}'

CELL_WHAT='3 HTTP 503 (Retry-After 1) on the create itself'
fault '{"errors": {"code": 503, "count": 3, "methods": ["POST"], "match": "jaxjobs", "retryAfter": 1}}'
check_create-503() { [ "$(answered POST 503)" = 3 ] || { echo "$(answered POST 503) POSTs got 503, want 3"; return 1; }; }
cell create-503 0 Succeeded kept - -- --workers 2 --env SIM_LINES=2 -- python t.py
fault '{"errors": null}'

CELL_WHAT='429 Too Many Requests with Retry-After on the next 4 requests'
fault '{"throttle": {"count": 4, "retryAfter": 1}}'
check_throttle-429() { [ "$(( $(answered GET 429) + $(answered POST 429) ))" = 4 ] || { echo "429s answered: not 4"; return 1; }; }
cell throttle-429 0 Succeeded gone - -- --workers 2 --env SIM_LINES=2 -- python t.py
fault '{"throttle": null}'

CELL_WHAT="API server down ${DOWN}s while the job runs, then back"
go_down() { fault "{\"down\": $DOWN}"; }
check_server-down() { logs_complete "$1" 2 6; }
cell server-down 0 Succeeded gone go_down -- --workers 2 --env SIM_LINES=6 --env SIM_DURATION=$((DOWN + 2)) -- python t.py

CELL_WHAT='token rotated mid-run (kubeconfig tokenFile, re-read)'
ctl POST /_test/users '{"name": "rot", "groups": ["system:masters"]}' >/dev/null
register_secrets
sed "s#tokenFile: .*#tokenFile: $KS/rot.token#" "$KS/kubeconfig-tokenfile" >"$T/kc-rot"
# worker-1 starts only once the token was rotated (holdLateWorkers), so the launch's
# follow of its log is a request that must carry the new token - whatever the load
rotate() {
	cp "$KS/rot.token" "$T/rot.old"
	fault '{"rotateToken": "rot"}'
	ROT_MARK=$(ctl GET /_test/state | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')
	fault '{"holdLateWorkers": null}'
}
check_token-rotated() {
	! cmp -s "$KS/rot.token" "$T/rot.old" || { echo "the token did not change"; return 1; }
	local after
	after=$(ctl GET "/_test/requests?since=$ROT_MARK" | python3 -c 'import json,sys
print(sum(1 for r in json.load(sys.stdin) if r["user"] == "rot" and r.get("code") == 200))')
	[ "$after" -gt 0 ] || { echo "no request with the new token after the rotation"; return 1; }
	logs_complete "$1" 2 3
}
fault '{"holdLateWorkers": true}'
(
	launch() { "$JAXJOB" launch --kubeconfig "$T/kc-rot" "$@"; }
	cell token-rotated 0 Succeeded kept rotate -- --workers 2 --env SIM_LINES=3 --env SIM_DURATION=3 \
		--env SIM_LATE_WORKER=1 --env SIM_LATE_DELAY=0 -- python t.py
)
fault '{"holdLateWorkers": null}'
{ tr -d '\n' <"$KS/rot.token"; echo; } | "$JAXJOB_TOP/tests/lib/append-locked" "$SECRETS_LIST"

CELL_WHAT='slow log streams (300 ms before every line)'
fault '{"logDelayMs": 300}'
check_slow-logs() { logs_complete "$1" 2 5; }
cell slow-logs 0 Succeeded gone - -- --workers 2 --env SIM_LINES=5 --env SIM_DURATION=1 -- python t.py
fault '{"logDelayMs": null}'

CELL_WHAT='a 10 MB log line'
check_big-line() {
	grep -q "^\[worker-0\] x* \[\.\.\. [0-9]* bytes truncated\]$" "$1/stdout" || { echo "no truncated line"; return 1; }
	[ "$(wc -c <"$1/stdout")" -lt 1000000 ] || { echo "stdout holds $(wc -c <"$1/stdout") bytes"; return 1; }
	grep -q "^\[worker-0\] INFO:sim:worker 0 finished" "$1/stdout" || { echo "worker-0 lost its lines after the big one"; return 1; }
	logs_complete "$1" 2 3
}
cell big-line 0 Succeeded kept - -- --workers 2 --env SIM_LINES=3 --env SIM_BIG_LINE=10485760 -- python t.py

CELL_WHAT='1,000 workers (--logs first)'
check_workers-1000() {
	[ "$(cat "$1/workers")" = '{"active":0,"failed":0,"replicas":1000,"succeeded":1000}' ] ||
		{ echo "workers output $(cat "$1/workers")"; return 1; }
	logs_complete "$1" 1 1
}
cell workers-1000 0 Succeeded gone - -- --workers 1000 --logs first --env SIM_LINES=1 --env SIM_DURATION=2 -- python t.py

# 1,000 fast workers, every log: most pods have exited before their log is
# reached (read once, at most LAUNCH_LOG_STREAMS_MAX streams at a time) and
# the job is Succeeded before the last ones: every line must still arrive
CELL_WHAT='1,000 workers of 0.5 s, every log (exited pods read once, streams capped)'
check_workers-1000-fast() { logs_complete "$1" 1000 3; }
# (--timeout bounds the drain too: beside a JOBS=16 check-long and two busy loops the double
# was still serving the 1,000 logs when 120 s ran out - every log moving, none lost)
CELL_TIMEOUT=900 cell workers-1000-fast 0 Succeeded gone - -- --workers 1000 --env SIM_LINES=3 --env SIM_DURATION=0.5 -- python t.py

CELL_WHAT='a failing worker under a dropped watch (the failure is still reported)'
fault '{"watchDropAfter": 1}'
cell failed-worker 1 Failed kept - -- --workers 2 --env SIM_FAIL_WORKER=1 --env SIM_EXIT=3 -- python t.py
fault '{"watchDropAfter": null}'

# Last: the server's certificate changes (new CA) while the job runs. The
# launch must never talk to the server under a certificate its kubeconfig
# does not trust, and must not retry it either (the same failure at start is
# final): exit 4 at once, outputs written, and it says that it cannot clean
# up (the job is left as is). --timeout 60: a retry loop would end there
# with exit 3 instead of hanging the suite.
CELL_WHAT='TLS certificate changed mid-run (fail closed: no request gets through)'
ctl POST /_test/users '{"name": "tlsuser", "groups": ["system:masters"]}' >/dev/null
register_secrets
sed "s#token: .*#token: $(cat "$KS/tlsuser.token")#" "$KS/kubeconfig" >"$T/kc-tls"
new_cert() {
	TLS_MARK=$(ctl GET /_test/state | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')
	fault '{"rotateCert": true, "down": 0.5}'
	cp "$KS/ca-rotated.pem" "$KS/ca.pem"	# for ctl; the launch has the old CA in memory
}
check_tls-changed() {
	local after
	after=$(ctl GET "/_test/requests?since=$TLS_MARK" | python3 -c 'import json,sys
print(sum(1 for r in json.load(sys.stdin) if r["user"] == "tlsuser"))')
	[ "$after" = 0 ] || { echo "$after requests got through after the certificate changed"; return 1; }
	grep -q 'TLS verification of .* failed' "$1/stderr" || { echo "stderr does not say TLS verification failed"; return 1; }
	grep -q 'left as is' "$1/stderr" || { echo "stderr does not say the job is left as is"; return 1; }
}
(
	launch() { "$JAXJOB" launch --kubeconfig "$T/kc-tls" "$@"; }
	cell tls-changed 4 Error kept new_cert -- --timeout 60 --workers 2 --env SIM_HANG=1 -- python t.py
)
exit 0
