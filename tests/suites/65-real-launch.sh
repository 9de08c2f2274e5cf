#!/usr/bin/env bash
# jaxjob launch against a REAL kube-apiserver 1.24 + etcd + garbage collector
# (../shared/tools/kube-control-plane), the operator and kubelet simulated through the API
# (tests/realserver/operator.py): every operator scenario, all workers' logs line for line,
# cancel by suspend and by foreground deletion through the real garbage collector, re-attach,
# a TrainJob, the shipped Role with a token minted by the TokenRequest API (kcp_token), and the request
# count of a long job from the apiserver's audit log (a 10 s job, not the issue's 60 s: a
# watch-driven launch makes the same requests however long the job runs, and the suite's time
# budget is small; bench/realserver.sh runs the 60 s job). The scenarios run side by side on one
# control plane (different jobs), then the assertions.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/suites/65-real.lib"
real_start "real control plane launch scenarios"
O=$T/outputs
HANG="--image x/jax:1 --workers 2 --env SIM_HANG=1"

# ---- setup: the shipped pipeline-step RBAC, a minted token; a namespace whose quota rejects Services
kubectl apply --validate=false -f "$JAXJOB_TOP/deploy/pipeline-step/rbac.yaml" >/dev/null &&
	kcp_token team-a jaxjob-launcher "$KCP_DIR/sa.token" &&
	kcp_secret "$KCP_DIR/sa.token" &&
	sed "s|token: \"[^\"]*\"|token: \"$(cat "$KCP_DIR/sa.token")\"|; s/namespace: default/namespace: team-a/" \
		"$KCP_DIR/admin-token.kubeconfig" >"$KCP_DIR/kubeconfig-sa" || echo "setup of the shipped Role failed" >&2
kubectl create namespace svcq >/dev/null &&
	kubectl -n svcq create quota object-counts --hard services=0 >/dev/null &&
	# no quota controller runs (kcm has only the GC, namespace and SA controllers): write the
	# status it would, so the ResourceQuota admission plugin enforces the quota
	kcp_ctl PATCH /api/v1/namespaces/svcq/resourcequotas/object-counts/status \
		'{"status": {"hard": {"services": "0"}, "used": {"services": "0"}}}' >/dev/null ||
	echo "setup of the Service quota failed" >&2

t_start=$SECONDS
# ---- every scenario at once (different jobs on one control plane) -----------------------------
# the long job is counted: its requests are told apart by its identity (the service account)
bg_launch_as "$KCP_DIR/kubeconfig-sa" cnt --name cnt --image x/jax:1 --workers 2 \
	--env SIM_DURATION=10 --env SIM_LINES=4 --out-state="$O/cnt/state" -- python train.py
bg_launch ok3 --name ok3 --image x/jax:1 --workers 3 --env SIM_LINES=20 --env SIM_DURATION=3 \
	--out-state="$O/ok3/state" --out-exit-code="$O/ok3/exit" -- python train.py
bg_launch late --name late --image x/jax:1 --workers 3 --env SIM_LATE_WORKER=2 --env SIM_LATE_DELAY=3 \
	--env SIM_LINES=3
bg_launch bad --name bad --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 --env SIM_EXIT=3 \
	--out-state="$O/bad/state" --out-reason="$O/bad/reason" --out-message="$O/bad/message"
bg_launch rst --name rst --image x/jax:1 --workers 2 --restart-policy ExitCode --env SIM_RESTART=1 \
	--env SIM_FAIL_WORKER=0 --env SIM_LINES=4 --out-state="$O/rst/state"
bg_launch ip --name ip --image sim/image-pull-error:1 --workers 2 --fail-fast-after 3s \
	--out-state="$O/ip/state" --out-reason="$O/ip/reason" --out-message="$O/ip/message"
bg_launch svc --name svc --namespace svcq --image x/jax:1 --workers 2 --env SIM_LINES=2 \
	--fail-fast-after 3s --on-cancel leave --out-reason="$O/svc/reason" --out-message="$O/svc/message"
tj=
real_trainjob && tj=tj && bg_launch tj --api trainjob --name tj --image x/jax:1 --workers 2 --env SIM_LINES=3 \
	--out-state="$O/tj/state" --out-reason="$O/tj/reason"
# the real kube-scheduler (stack only): a worker no Node can hold (the kubelet double's Nodes
# have 8 cpu) fails the launch fast from the scheduler's own PodScheduled=False condition
hog=
[ "$KCP_BACKEND" = stack ] && hog=hog && bg_launch hog --name hog --image x/jax:1 --workers 2 --cpu 64 \
	--fail-fast-after 3s --out-state="$O/hog/state" --out-reason="$O/hog/reason" --out-message="$O/hog/message"
bg_launch sus --name sus $HANG --on-cancel suspend
bg_launch fg --name fg $HANG
export ARGO_WORKFLOW_NAME=real-x7k2p	# the re-attach identity
bg_launch ra --name ra --image x/jax:1 --workers 2 --env SIM_DURATION=5 --env SIM_LINES=4
# a kubelet that ends the follow streams 10 min after the containers exited (a real one: ~1 s):
# never within this suite, so the launch can only end by deciding, not by the streams' end
bg_launch eof --name eof --image x/jax:1 --workers 2 --env SIM_LINES=20 --env SIM_DURATION=2 \
	--env SIM_EOF_DELAY=600 --timeout 300s --out-state="$O/eof/state"

# cancel when Running: suspend / foreground delete; kill -9 the re-attach step's first attempt
for n in sus fg ra; do wait_for grep -q "Running:" "$T/$n.err"; done
kill -TERM "$BG_sus" "$BG_fg"
kill -KILL "$BG_ra"
bg_wait ra 2>/dev/null
bg_launch ra2 --name ra --image x/jax:1 --workers 2 --env SIM_DURATION=5 --env SIM_LINES=4 \
	--out-job-uid="$O/ra/uid"
unset ARGO_WORKFLOW_NAME

for n in ok3 late bad rst ip svc $tj $hog sus fg ra2 cnt eof; do
	bg_wait $n
	eval "rc_$n=$?"
	echo "# $n ended at +$((SECONDS - t_start)) s"
done
# the kubelet's end of the eof job's streams (its .exited markers) had not come when it ended
eof_streams_open=$(for w in 0 1; do [ -e "$FAKE_KUBELET_LOG_ROOT/team-a/eof-worker-$w/jax.log.exited" ] || echo "$w"; done | wc -l)

# ---- succeed, logs line for line, late worker ---------------------------------------------
expect "a 3-worker job that succeeds exits 0 (got $rc_ok3), outputs Succeeded/0" \
	"test $rc_ok3 -eq 0 && test \"\$(cat $O/ok3/state)\" = Succeeded && test \"\$(cat $O/ok3/exit)\" = 0"
expect "3 workers' logs line for line: every line in order, exactly once (22 lines each)" '
	for w in 0 1 2; do
		expected_log ok3 $w 3 20 >"$T/ok3.want.$w" && worker_log "$T/ok3.out" $w >"$T/ok3.got.$w" &&
		test "$(wc -l <"$T/ok3.want.$w")" -eq 22 && diff "$T/ok3.want.$w" "$T/ok3.got.$w" || exit 1
	done
	! grep -v "^\[worker-[0-2]\] " "$T/ok3.out"'
expect "a late worker (created 3 s after the others) is followed too: exit 0 (got $rc_late), all its lines" "
	test $rc_late -eq 0 && expected_log late 2 3 3 >$T/late.want && worker_log $T/late.out 2 >$T/late.got &&
	diff $T/late.want $T/late.got"

# ---- exit when decided: the end of an exited worker's log is read, not waited for ---------------
expect "streams the kubelet ends 10 min late: Succeeded (exit $rc_eof), every line of both workers once, in order" "
	test $rc_eof -eq 0 && test \"\$(cat $O/eof/state)\" = Succeeded &&
	for w in 0 1; do
		expected_log eof \$w 2 20 >$T/eof.want.\$w && worker_log $T/eof.out \$w >$T/eof.got.\$w &&
		diff $T/eof.want.\$w $T/eof.got.\$w || exit 1
	done"
expect "... and it ended with the job, while the kubelet still held both streams open ($eof_streams_open of 2)" \
	"test $eof_streams_open -eq 2"
expect '... by one read of each exited worker'"'"'s last 32 lines with timestamps (audit log)' "
	kcp_audit jaxjob/ | \"\$KCP_PY\" -c '
import json, sys
tails = [r for r in map(json.loads, sys.stdin) if \"/pods/eof-worker-\" in r[\"uri\"] and \"tailLines=32\" in r[\"uri\"]]
assert sorted(r[\"uri\"].split(\"/pods/\")[1].split(\"/\")[0] for r in tails) == [\"eof-worker-0\", \"eof-worker-1\"], tails
assert all(\"follow\" not in r[\"uri\"] and \"timestamps=true\" in r[\"uri\"] for r in tails), tails'"
expect '... and no read of a log end by any launch here was cancelled: all answered 200 (a cancelled read is an HTTP 500 in the audit log)' "
	kcp_audit jaxjob/ | \"\$KCP_PY\" -c '
import json, sys
tails = [r for r in map(json.loads, sys.stdin) if \"/log?\" in r[\"uri\"] and \"tailLines=\" in r[\"uri\"]]
assert tails and all(r[\"code\"] == 200 for r in tails), [(r[\"uri\"], r[\"code\"]) for r in tails if r[\"code\"] != 200]'"

# ---- fail, restart, image pull, Service rejected ------------------------------------------------
expect "a job whose worker exits 3 exits 1 (got $rc_bad): Failed, JAXJobFailed, the worker and its code named" "
	test $rc_bad -eq 1 && test \"\$(cat $O/bad/state)\" = Failed && test \"\$(cat $O/bad/reason)\" = JAXJobFailed &&
	grep -q 'Worker replica(s) failed' $O/bad/message && grep -q 'worker-1 (bad-worker-1) exited with code 3' $T/bad.err"
expect '... the failed job is kept (--delete-after=never)' 'case "$(job_state bad)" in *Failed*) ;; *) exit 1 ;; esac'
expect "restart-then-succeed (ExitCode, worker 0 crashes with 137 once): exit 0 (got $rc_rst)" \
	"test $rc_rst -eq 0 && test \"\$(cat $O/rst/state)\" = Succeeded"
expect '... the crashed and the re-created pod'"'"'s logs both streamed, each line once' '
	test "$(grep -c "^\[worker-0\] ERROR:sim:worker 0 crashed (exit code 137" $T/rst.out)" -eq 1 &&
	test "$(grep -c "^\[worker-0\] INFO:sim:worker 0 finished" $T/rst.out)" -eq 1 &&
	test "$(grep -c "^\[worker-0\] step 4/4 " $T/rst.out)" -eq 1 &&
	kubectl -n team-a get events --field-selector reason=JAXJobRestarting -o name | grep -q . ||
	{ worker_log $T/rst.out 0; exit 1; }'
expect "an image that cannot be pulled fails fast: exit 7 (got $rc_ip), Stuck, the kubelet's reason and image" "
	test $rc_ip -eq 7 && test \"\$(cat $O/ip/state)\" = Stuck &&
	grep -Eq '^(ErrImagePull|ImagePullBackOff)\$' $O/ip/reason && grep -q image-pull-error $O/ip/message"
expect '... and the job was deleted (--on-cancel=delete), its pods too' \
	'test "$(job_state ip)" = absent && wait_for pods_gone ip'
expect "a Service the API rejects (ResourceQuota services=0): exit 7 (got $rc_svc), reason FailedCreateService" "
	test $rc_svc -eq 7 && test \"\$(cat $O/svc/reason)\" = FailedCreateService"
expect "... with the API server's own words (exceeded quota) in the message" \
	"grep -q 'exceeded quota: object-counts' $O/svc/message"
expect '... --on-cancel=leave kept the job' \
	'kcp_ctl GET /apis/kubeflow.org/v1/namespaces/svcq/jaxjobs/svc >/dev/null'
kcp_ctl DELETE /apis/kubeflow.org/v1/namespaces/svcq/jaxjobs/svc >/dev/null

# ---- the real scheduler ---------------------------------------------------------------------------
if [ -n "$hog" ]; then
	expect "a worker no Node can hold (64 cpu): exit 7 (got $rc_hog), Stuck, reason Unschedulable from the real scheduler" "
		test $rc_hog -eq 7 && test \"\$(cat $O/hog/state)\" = Stuck && test \"\$(cat $O/hog/reason)\" = Unschedulable"
	expect '... with the scheduler'"'"'s own words: Insufficient cpu, nodes are available' \
		"grep -q 'Insufficient cpu' $O/hog/message && grep -q 'nodes are available' $O/hog/message"
fi

# ---- TrainJob -----------------------------------------------------------------------------------
[ -n "$tj" ] || skip "a 2-node TrainJob completes" "$TRAINJOB_WHY"
[ -z "$tj" ] || expect "a 2-node TrainJob completes: exit 0 (got $rc_tj), AllJobsCompleted, both nodes' logs" "
	test $rc_tj -eq 0 && test \"\$(cat $O/tj/state)\" = Succeeded && test \"\$(cat $O/tj/reason)\" = AllJobsCompleted &&
	test \"\$(grep -c '^\[worker-[01]\] step [1-3]/3 ' $T/tj.out)\" -eq 6"

# ---- cancel: suspend, foreground deletion through the real garbage collector ---------------------
expect "SIGTERM with --on-cancel=suspend: exit 5 (got $rc_sus)" "test $rc_sus -eq 5"
expect '... spec.runPolicy.suspend is true, the operator says Suspended, the pods are gone' '
	kcp_ctl GET $J/sus | grep -q "\"suspend\":true" &&
	wait_for eval "job_state sus | grep -q Suspended" && wait_for pods_gone sus'
expect "SIGTERM with the default --on-cancel=delete: exit 5 (got $rc_fg), deletion confirmed" \
	"test $rc_fg -eq 5 && grep -q 'deleted JAXJob team-a/fg' $T/fg.err"
# (On the real stack the garbage collector can drop the job's foregroundDeletion finalizer
# before its graph holds the pods - its pod informer behind on a loaded machine - and delete
# them next as dependents of a gone owner: seen once under ASan in make check-real. So there
# the pods are waited for.)
if [ "$KCP_BACKEND" = stack ]; then
	expect '... the job is gone when launch exits, and its pods go after it (the real GC)' \
		'test "$(job_state fg)" = absent && wait_for pods_gone fg'
else
	expect '... when launch exits, the job AND its pods are gone (foreground: the real GC deleted the pods first)' \
		'test "$(job_state fg)" = absent && test -z "$(pods_of fg)"'
fi
expect '... the pods were deleted gracefully: the kubelet stopped their containers (last line: SIGTERM)' \
	'for w in 0 1; do tail -n 1 "$FAKE_KUBELET_LOG_ROOT/team-a/fg-worker-$w/jax.log" | grep -q "received SIGTERM" || exit 1; done'
expect '... the workers'"'"' Services went with the job (ownerReferences, GC)' \
	'wait_for eval "test -z \"\$(kubectl -n team-a get services -l training.kubeflow.org/job-name=fg -o name)\""'

# ---- re-attach --------------------------------------------------------------------------------------
expect "a retried step re-attaches after the first was killed (-9): exit 0 (got $rc_ra2)" \
	"test $rc_ra2 -eq 0 && grep -q 're-attached to JAXJob team-a/ra' $T/ra2.err"
expect '... the same job (uid), every worker'"'"'s log in full, each line once' "
	kcp_ctl GET $J/ra | grep -q \"\$(cat $O/ra/uid)\" &&
	test \"\$(grep -c '^\[worker-[01]\] step [1-4]/4 ' $T/ra2.out)\" -eq 8 &&
	test -z \"\$(sort $T/ra2.out | uniq -d)\""

# ---- the shipped Role, a minted token, the request count of a long job ------------------------------
expect "a 10 s job under the shipped Role (deploy/pipeline-step) with a TokenRequest token: exit 0 (got $rc_cnt)" \
	"test $rc_cnt -eq 0 && test \"\$(cat $O/cnt/state)\" = Succeeded"
kcp_audit jaxjob/ | "$KCP_PY" -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["user"] == "system:serviceaccount:team-a:jaxjob-launcher":
        print(l.strip())' >"$T/cnt.requests"
n=$(grep -vc selfsubject "$T/cnt.requests")
# 8 on a quiet machine: one POST, one WATCH each for the job, its pods, its events (from the
# create's resourceVersion, no LIST), one log follow per worker and one read of each exited
# worker's last lines (kube_log_complete); plus one access review. A log
# follow opened before the container started gets the kubelet's 400 "waiting to start" and is
# retried every 0.5 s (launch_workers.c), so a starved machine (minutes of ContainerCreating)
# adds follows: the bound catches a loop (20 drops per worker at most), not the weather.
expect "its requests, from the audit log: $n besides access reviews (8 when idle); no polling, no denial" "
	\"\$KCP_PY\" - '$T/cnt.requests' <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
work = [r for r in reqs if 'selfsubject' not in r['uri']]
for r in work:
    print(r['verb'], r['code'], r['uri'][:160], file=sys.stderr)
gets = [r for r in work if r['verb'] == 'get' and '/jaxjobs/cnt' in r['uri'].split('?')[0]]
denied = [r for r in reqs if r['code'] in (401, 403)]
watches = [r for r in work if r['verb'] == 'watch']
logs = [r for r in work if '/log' in r['uri']]
assert len([r for r in work if r['verb'] == 'create']) == 1, 'one POST'
assert len(gets) <= 1, 'no polling of the job'
assert not denied, 'no request denied'
assert 2 <= len(logs) <= 2 * 21, 'a log follow per worker, a bounded number of retries'
assert len(watches) <= 6, 'one watch each for job, pods, events (+ a reconnect each at most)'
assert len(work) - len(logs) <= 10, 'a handful of requests besides the log follows'
PY"
cp "$T/cnt.requests" "$JAXJOB_TMP/65-real-cnt.requests" 2>/dev/null
echo "# requests of the 10 s job: $(wc -l <"$T/cnt.requests") (see 65-real-cnt.requests)"
