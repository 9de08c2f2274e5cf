#!/usr/bin/env bash
# The drills of issue 27 ("never act on a guess") on a real kube-apiserver (tests/realserver/kcp.sh:
# the real stack in make check-real, ../shared's 1.24 plane with the simulated operator otherwise):
#   - preconditions: the real server refuses a DELETE with a stale resourceVersion (409), and every
#     DELETE and suspend PATCH the launch sends carries the uid/resourceVersion it decided on (the
#     audit log at level Request shows the request bodies);
#   - a job that succeeded while the launch was stopped (SIGSTOP) across two API server restarts,
#     then SIGTERM during the second: reported Succeeded, not deleted; and with the server down
#     longer than --delete-timeout: left as is, said so, never deleted on a guess;
#   - SIGTERM with stdout a pipe nobody reads: exit 5, the job deleted per --on-cancel, the lines
#     not written counted;
#   - SIGTERM/SIGINT at moments from 0 to 500 ms after main() began (the event: the process shows
#     both signals blocked in /proc/PID/status): always exit 5 with outputs, never 143/130, and no
#     job left behind. JAXJOB_LONG=1 sweeps every millisecond.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/suites/65-real.lib"
real_start "real control plane safety drills"
O=$T/outputs
mkdir -p "$O"

# ---- the audit log at level Request for our jobs (request bodies), set by restarting the apiserver
# through a wrapper that swaps in this suite's policy (up.sh rewrites its own at every start)
if [ "$KCP_BACKEND" = stack ]; then
	# stack/parts/controlplane.sh appends APISERVER_EXTRA_ARGS: the last --audit-policy-file wins
	export APISERVER_EXTRA_ARGS="${APISERVER_EXTRA_ARGS:-} --audit-policy-file $T/audit-policy.yaml"
else
	mkdir -p "$T/kcp-bin"
	ln -s "$KCP_TOOL/bin/kube-controller-manager" "$T/kcp-bin/kube-controller-manager"
	cat >"$T/kcp-bin/kube-apiserver" <<-EOF
	#!/bin/sh
	prev=
	for a in "\$@"; do
		shift
		if [ "\$prev" = --audit-policy-file ]; then set -- "\$@" "$T/audit-policy.yaml"; else set -- "\$@" "\$a"; fi
		prev=\$a
	done
	exec "$KCP_TOOL/bin/kube-apiserver" "\$@"
	EOF
	chmod +x "$T/kcp-bin/kube-apiserver"
	export KCP_BIN=$T/kcp-bin
fi
cat >"$T/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Request
  resources: [{group: kubeflow.org, resources: [jaxjobs]}]
  verbs: [delete, patch]
- level: Metadata
EOF
kcp_kill_apiserver && kcp_start_apiserver || echo "restart with the Request audit policy failed" >&2

# every DELETE/PATCH of a jaxjob by the launch, with its request body: "verb name body" a line
mutations() {
	"$KCP_PY" - "$KCP_AUDIT_LOG" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if not (e.get('userAgent') or '').startswith('jaxjob/') or e.get('verb') not in ('delete', 'patch'):
        continue
    if (e.get('objectRef') or {}).get('resource') != 'jaxjobs' or e.get('stage') != 'ResponseComplete':
        continue
    print(e['verb'], e['objectRef'].get('name'), (e.get('responseStatus') or {}).get('code'),
          json.dumps(e.get('requestObject'), sort_keys=True))
PY
}

# ---- 1. the real server refuses a stale resourceVersion
kcp_ctl POST "$J" '{"apiVersion":"kubeflow.org/v1","kind":"JAXJob","metadata":{"name":"pre"},
  "spec":{"jaxReplicaSpecs":{"Worker":{"replicas":1,"template":{"spec":{"containers":[{"name":"jax",
  "image":"x/jax:1","env":[{"name":"SIM_HANG","value":"1"}]}]}}}}}}' >"$T/pre.json"
rv=$("$KCP_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["resourceVersion"])' "$T/pre.json")
kcp_ctl PATCH "$J/pre" '{"metadata":{"annotations":{"touched":"1"}}}' >/dev/null
if ! kcp_ctl DELETE "$J/pre" "{\"preconditions\":{\"resourceVersion\":\"$rv\"}}" >"$T/pre-del.out" &&
	grep -q '"code":409' "$T/pre-del.out" && [ "$(job_state pre)" != absent ]; then
	ok "the real API server refuses a DELETE whose resourceVersion precondition is stale (409)"
else
	not_ok "the real API server refuses a DELETE whose resourceVersion precondition is stale (409)"
	cat "$T/pre-del.out" >&2
fi
kcp_ctl DELETE "$J/pre" >/dev/null

# ---- 2. a job that succeeded while the launch was stopped, SIGTERM during the second restart
drill_restarts() { # NAME DELETE-TIMEOUT BRING-BACK(yes|no)
	local name=$1 pid
	bg_launch "$name" --name "$name" --image x/jax:1 --workers 2 --env SIM_LINES=3 --env SIM_DURATION=8 \
		--delete-timeout "$2" --out-state "$O/$name.state" --out-summary "$O/$name.md"
	eval "pid=\$BG_${name//-/_}"
	# (the real operator writes Running after the workers' first lines can be read: either says it runs)
	wait_until grep -qE "Running|training: step" "$T/$name.err" || echo "$name: never Running" >&2
	kill -STOP "$pid"
	# restart 1 while the launch is stopped: its connections die with the apiserver, so the
	# job's success (made through the new one) reaches it by no event it already holds
	kcp_kill_apiserver && kcp_start_apiserver
	wait_until job_state_is "$name" Succeeded || echo "$name: the job did not succeed" >&2
	kcp_kill_apiserver				# restart 2 begins
	kill -CONT "$pid"
	kill -TERM "$pid"
	[ "$3" = yes ] && kcp_start_apiserver
	bg_wait "$name"
	echo $? >"$O/$name.rc"
	[ "$3" = yes ] || kcp_start_apiserver
}
job_state_is() { case ",$(job_state "$1")," in *",$2,"*) return 0 ;; esac; return 1; }

drill_restarts safe-back 60s yes
if [ "$(cat "$O/safe-back.rc")" = 0 ] && [ "$(cat "$O/safe-back.state")" = Succeeded ] &&
	job_state_is safe-back Succeeded && grep -q "had already succeeded" "$T/safe-back.err"; then
	ok "stopped across two apiserver restarts, SIGTERM in the second: the Succeeded job is reported Succeeded and kept"
else
	not_ok "stopped across two apiserver restarts, SIGTERM in the second: the Succeeded job is reported Succeeded and kept"
	{ echo "rc $(cat "$O/safe-back.rc") state $(cat "$O/safe-back.state") job $(job_state safe-back)"; tail -n 15 "$T/safe-back.err"; } >&2
fi

drill_restarts safe-down 3s no
if [ "$(cat "$O/safe-down.rc")" = 5 ] && job_state_is safe-down Succeeded &&
	grep -q "left as is, not deleted on a guess" "$T/safe-down.err" &&
	grep -q "left as is: its state could not be read" "$O/safe-down.md"; then
	ok "the server down past --delete-timeout after SIGTERM: the job is left, and the step says so"
else
	not_ok "the server down past --delete-timeout after SIGTERM: the job is left, and the step says so"
	{ echo "rc $(cat "$O/safe-down.rc") job $(job_state safe-down)"; tail -n 15 "$T/safe-down.err"; } >&2
fi

# ---- 2b. SIGTERM after the verdict while the API server is away (issue 40): the step was
# stopped, the job succeeded meanwhile, the server froze, then SIGTERM. The step cannot tell
# a cancel from a finish until the server answers; when it does, the job had finished, and
# the logs are still read within the signal's grace: every line printed once, exit 0.
name=grace
bg_launch "$name" --name "$name" --image x/jax:1 --workers 2 --env SIM_LINES=5 --env SIM_DURATION=4 \
	--out-state "$O/$name.state" --out-summary "$O/$name.md"
pid=$BG_grace
wait_until grep -qE "Running|training: step" "$T/$name.err" || echo "$name: never Running" >&2
kill -STOP "$pid"
wait_until job_state_is "$name" Succeeded || echo "$name: the job did not succeed" >&2
apiserver=$(cat "$KCP_DIR/pids/apiserver.pid")
kill -STOP "$apiserver"		# the server away: connections open, nothing answered
kill -CONT "$pid"
kill -TERM "$pid"
wait_until grep -q "SIGTERM received" "$T/$name.err" || echo "$name: the signal was not seen" >&2
kill -CONT "$apiserver"
bg_wait "$name"
rc=$?
expect "SIGTERM after the verdict, the server away: exit 0 (got $rc), Succeeded" \
	"test $rc -eq 0 && test \"\$(cat $O/$name.state)\" = Succeeded"
expect '... and every line of both workers printed once, within the signal'"'"'s grace' "
	for w in 0 1; do
		expected_log $name \$w 2 5 >$T/$name.want.\$w && worker_log $T/$name.out \$w >$T/$name.got.\$w &&
		diff $T/$name.want.\$w $T/$name.got.\$w || exit 1
	done
	! grep -q 'incomplete' $T/$name.err"
expect '... and the summary says how much was read: every line, none incomplete' "
	n=\$(grep -c '^\[worker-[01]\] ' $T/$name.out) &&
	grep -q \"^| log lines | \$n written |\\\$\" $O/$name.md && ! grep -q '^| logs incomplete' $O/$name.md"

# ---- 3. SIGTERM with stdout a pipe nobody reads
stalled() { # NAME
	local name=$1 fifo=$T/$1.fifo reader pid rc
	mkfifo "$fifo"
	cat "$fifo" >/dev/null &
	reader=$!
	"$JAXJOB" launch --kubeconfig "$KCP_KUBECONFIG" --name "$name" --image x/jax:1 --workers 4 \
		--env SIM_LINES=20000 --env SIM_DURATION=60 --out-state "$O/$name.state" \
		--out-summary "$O/$name.md" >"$fifo" 2>"$T/$name.err" &
	pid=$!
	wait_until [ -e "$T/$name.err" ]	# both ends of the FIFO are open
	kill -STOP "$reader"
	wait_until -t 120 grep -q "stdout is not being read" "$T/$name.err" || echo "$name: never stalled" >&2
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	kill -CONT "$reader"
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
	echo "$rc"
}
for i in 1 2 3; do
	rc=$(stalled "stall-$i")
	if [ "$rc" = 5 ] && [ "$(cat "$O/stall-$i.state")" = Cancelled ] &&
		grep -q "deleting JAXJob team-a/stall-$i" "$T/stall-$i.err" &&
		grep -q "log lines not written" "$O/stall-$i.md"; then
		ok "SIGTERM with stdout unread ($i): exit 5, the job deleted per --on-cancel, unwritten lines counted"
	else
		not_ok "SIGTERM with stdout unread ($i): exit 5, the job deleted per --on-cancel, unwritten lines counted"
		{ echo "rc $rc"; tail -n 12 "$T/stall-$i.err"; } >&2
	fi
done

# ---- 4. a signal at any moment of the start
# jaxjob's own code has begun - the earliest moment the program can promise anything - when
# SigBlk is exactly SIGTERM (bit 15) and SIGINT (bit 2) (jaxjob.c hold_signals; before it the
# loader and the sanitizer runtime run, and they block every signal for moments: a mask with
# these two bits among all the others is not ours), or, that window missed by a slow poll, when
# both are caught (SigCgt: the run's handler, launch_run.c prepare)
if [ -n "${JAXJOB_LONG:-}" ]; then
	delays=$(seq 0 500)
else
	delays="0 1 2 3 5 8 13 21 34 55 89 144 233 377 500"
fi
n=0 bad=
for d in $delays; do
	for sig in TERM INT; do
		n=$((n + 1))
		name=sig-$n
		"$JAXJOB" launch --kubeconfig "$KCP_KUBECONFIG" --name "$name" --image x/jax:1 --workers 1 \
			--env SIM_DURATION=30 --out-state "$O/$name.state" >/dev/null 2>"$T/$name.err" &
		pid=$!
		until jaxjob_begun "$pid" || ! kill -0 "$pid" 2>/dev/null; do :; done
		# sleep-free: busy-wait on the clock from the event, in ms
		t_end=$(( $(date +%s%N) / 1000000 + d ))
		while [ $(( $(date +%s%N) / 1000000 )) -lt "$t_end" ]; do :; done
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		st=$(cat "$O/$name.state" 2>/dev/null)
		if [ "$rc" != 5 ] || [ "$st" != Cancelled ]; then
			bad="$bad $sig@${d}ms:rc=$rc,state=$st"
		fi
	done
done
left=$(kcp_ctl GET "$J?labelSelector=jaxjob.dev/launch-id" | "$KCP_PY" -c '
import json, sys
print(" ".join(i["metadata"]["name"] for i in json.load(sys.stdin)["items"]
               if i["metadata"]["name"].startswith("sig-") and not i["metadata"].get("deletionTimestamp")))')
if [ -z "$bad" ] && [ -z "$left" ]; then
	ok "SIGTERM/SIGINT at $n moments from main() to 500 ms: exit 5 and outputs every time, no job left behind"
else
	not_ok "SIGTERM/SIGINT at $n moments from main() to 500 ms: exit 5 and outputs every time, no job left behind"
	echo "wrong:$bad; jobs left: $left" >&2
fi

# ---- a suspend after a timeout: conditional too
expect_exit 3 "--timeout with --on-cancel suspend: exit 3, the job suspended" \
	launch --name susp --image x/jax:1 --workers 1 --env SIM_HANG=1 --timeout 4s --on-cancel suspend
expect "the suspended job is kept, suspended" \
	'kcp_ctl GET "$J/susp" | grep -q "\"suspend\":true"'

# ---- 5. what the server received: every suspend PATCH carries the resourceVersion it was decided
# on (the audit log at level Request has the patch body). A DELETE's DeleteOptions are not in a
# 1.24 apiserver's audit log for a custom resource, even at level Request (requestObject absent:
# checked here with a DELETE whose precondition it refused), so the DELETEs' preconditions are
# asserted from the test double's request log (60-launch-cancel) and the real server's 409 above.
mutations >"$T/mutations"
if grep -q '^patch susp ' "$T/mutations" &&
	! grep -E '^patch ' "$T/mutations" | grep -Evq '"resourceVersion": "[0-9]+"'; then
	ok "audit log: every suspend PATCH of a job by the launch carries the resourceVersion it was decided on"
else
	not_ok "audit log: every suspend PATCH of a job by the launch carries the resourceVersion it was decided on"
	grep '^patch ' "$T/mutations" >&2
fi
# and in the code: no DELETE of a job without preconditions
if ! grep -n 'kube_delete(' "$JAXJOB_TOP"/component/launch/*/*.c | grep -v '&pre' | grep -q .; then
	ok "component/: every kube_delete() of a job passes its preconditions"
else
	not_ok "component/: every kube_delete() of a job passes its preconditions"
	grep -n 'kube_delete(' "$JAXJOB_TOP"/component/launch/*/*.c >&2
fi
