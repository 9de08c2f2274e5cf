#!/usr/bin/env bash
# jaxjob launch and Kueue against a REAL kube-apiserver 1.24 (tests/realserver/kcp.sh) with
# Kueue's CRDs from ../shared/reference/kueue/crds installed and Kueue played through the API by
# tests/kueue/simkueue.py (the same script as 60-launch-kueue on the double): queued past
# --timeout then admitted; --queue-timeout; preempted mid-run, requeued, admitted again,
# Succeeded; a missing LocalQueue; a Role without Workload read. Every step waits for the
# launcher's line that answers the previous one.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/suites/65-real.lib"
# a simulated Kueue must not run beside the real one (stack/parts/kueue.sh, which the stack backend starts)
if [ "$KCP_BACKEND" = stack ]; then
	skip "real control plane with Kueue" "the real Kueue runs on the stack: 65-real-kueue-launch and 65-real-operators cover it"
	exit 0
fi
KUEUE_CRDS=${JAXJOB_SHARED:+$JAXJOB_SHARED/reference/kueue/crds}
if [ -z "$KUEUE_CRDS" ] || [ ! -d "$KUEUE_CRDS" ]; then
	skip "real control plane with Kueue" "the simulated-Kueue drills need ../shared's 1.24 plane; make check-real runs the real Kueue (65-real-kueue-launch, 65-real-operators)"
	exit 0
fi
real_start "real control plane with Kueue"
O=$T/outputs
SK() { /usr/bin/python3 "$JAXJOB_TOP/tests/kueue/simkueue.py" --server "$KUBE_SERVER" --ca "$KUBE_CA" \
	--token-file "$KUBE_TOKEN_FILE" "$@"; }
JOB="--image x/jax:1 --workers 2 --local-queue q --queue-progress-every 1s"

# wait_line NAME REGEX [COUNT] / wait_out NAME REGEX: a bg launch's stderr / stdout (120 s ceiling)
count_lines() { test "$(grep -cE "$2" "$T/$1.err")" -ge "${3:-1}"; }
wait_line() { wait_for -t 120 count_lines "$@"; }
wait_out() { wait_for -t 120 grep -qE "$2" "$T/$1.out"; }

# run_bg NAME KUBECONFIG ARGS...: a launch in the background, its exit code in $T/NAME.rc;
# rc_of NAME: wait for it (a file, not `wait`: the status of a child that ended long before,
# thousands of forks ago, is not always still known to the shell)
run_bg() {
	local name=$1 kc=$2
	shift 2
	("$JAXJOB" launch --kubeconfig "$kc" "$@" >"$T/$name.out" 2>"$T/$name.err"; echo $? >"$T/$name.rc") &
}
rc_of() { wait_for -t 300 test -s "$T/$1.rc"; cat "$T/$1.rc" 2>/dev/null || echo none; }

# ---- setup: Kueue's CRDs (create: too big for apply's annotation), queues, a Role without Workloads
kubectl create --validate=false -f "$KUEUE_CRDS" >/dev/null &&
	kcp_wait_established workloads.kueue.x-k8s.io localqueues.kueue.x-k8s.io clusterqueues.kueue.x-k8s.io &&
	SK setup team-a q cq >/dev/null ||
	{ not_ok "Kueue's CRDs install on the real apiserver and the queues are created"; exit 1; }
ok "Kueue's CRDs (../shared/reference/kueue/crds) install on the real apiserver, queues created"
kubectl -n team-a create serviceaccount nowl >/dev/null &&
	kubectl -n team-a create role nowl --verb=create,get,list,watch,delete,patch --resource=jaxjobs.kubeflow.org >/dev/null &&
	kubectl -n team-a create role nowl-pods --verb=list,watch --resource=pods,events >/dev/null &&
	kubectl -n team-a create role nowl-logs --verb=get --resource=pods/log,localqueues.kueue.x-k8s.io >/dev/null &&
	for r in nowl nowl-pods nowl-logs; do
		kubectl -n team-a create rolebinding "$r" --role="$r" --serviceaccount=team-a:nowl >/dev/null || exit 1
	done &&
	kcp_token team-a nowl "$KCP_DIR/nowl.token" &&
	kcp_secret "$KCP_DIR/nowl.token" &&
	sed "s|token: \"[^\"]*\"|token: \"$(cat "$KCP_DIR/nowl.token")\"|; s/namespace: default/namespace: team-a/" \
		"$KCP_DIR/admin-token.kubeconfig" >"$KCP_DIR/kubeconfig-nowl" || echo "setup of the Role without Workloads failed" >&2

# ---- the scenarios side by side (different jobs), then the assertions -------------------------
# --timeout 15s: it runs from the create until the simulated Kueue holds the job, which took
# over 3 s on a loaded machine (the run timed out before it was queued), and again from the
# admission to its end (8 s did not cover both beside two busy loops)
run_bg qa "$KCP_KUBECONFIG" --name qa $JOB --env SIM_LINES=3 --timeout 15s --queue-timeout 150s --out-state="$O/qa/state" \
	--out-queue-time="$O/qa/queue-time" --out-run-time="$O/qa/run-time"
run_bg qt "$KCP_KUBECONFIG" --name qt $JOB --queue-timeout 10s --out-state="$O/qt/state"
run_bg pr "$KCP_KUBECONFIG" --name pr $JOB --env SIM_LINES=6 --env SIM_DURATION=4 --timeout 120s --queue-timeout 150s --out-state="$O/pr/state" \
	--out-preemptions="$O/pr/preemptions"
run_bg nw "$KCP_DIR/kubeconfig-nowl" --name nw $JOB --env SIM_LINES=2 --queue-timeout 150s
# qt first: its --queue-timeout runs from its create, and once it has run out the job is
# deleted and a hold waits 60 s for it in vain (with 3 s, behind qa's hold, it did under load)
SK hold team-a JAXJob qt q >/dev/null
SK hold team-a JAXJob qa q >"$T/qa.wl"
SK hold team-a JAXJob pr q >/dev/null
SK hold team-a JAXJob nw q >/dev/null
# the reasons that end a wait early, or do not (started after the holds above: qt's 10 s
# --queue-timeout runs from its create)
run_bg hx "$KCP_KUBECONFIG" --name hx $JOB --queue-hopeless-after 2s --out-state="$O/hx/state" --out-message="$O/hx/message"
run_bg ho "$KCP_KUBECONFIG" --name ho $JOB --queue-hopeless-after 2s --out-state="$O/ho/state"
# (its --queue-timeout runs from the create, while the holds before its own are made: long
# enough for a loaded control plane, and it is left, not deleted, should it run out before)
run_bg hs "$KCP_KUBECONFIG" --name hs $JOB --queue-hopeless-after 1s --queue-timeout 60s --on-cancel leave \
	--out-state="$O/hs/state"
SK hold team-a JAXJob hx q >/dev/null
SK hold team-a JAXJob ho q >/dev/null
SK hold team-a JAXJob hs q >/dev/null
SK pending team-a JAXJob hs Suspended "ClusterQueue cq is inactive"
SK pending team-a JAXJob hx ExceedsMaxQuota "couldn't assign flavors to pod set worker: insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered podsets requests (0) + current podset request (16) > maximum capacity (8)"
SK pending team-a JAXJob ho Pending "couldn't assign flavors to pod set worker: insufficient quota for cpu in flavor default-flavor, request > maximum capacity (24 > 8)"

# queued past --timeout, then admitted
wait_line qa "queued (1[6-9]|[2-9][0-9])s in team-a/q: couldn.t assign flavors"; qa_waited=$?
qa_state=$(job_state qa)
SK admit team-a JAXJob qa cq
# preempted mid-run, admitted again
wait_line pr "queued [0-9]+s in team-a/q" && SK admit team-a JAXJob pr cq
wait_out pr "^\[worker-0\] step 1/6"; pr_ran=$?
SK preempt team-a JAXJob pr --why InCohortFairSharing
wait_line pr "preempted, requeued"; pr_requeued=$?
wait_line pr "queued [0-9]+s in team-a/q \([0-9ms]+ in all\): Preempted" && SK admit team-a JAXJob pr cq
# no Workload read
wait_line nw "queued in team-a/q: waiting for Kueue to admit it" && SK admit team-a JAXJob nw cq
rc_qa=$(rc_of qa)
rc_qt=$(rc_of qt)
rc_pr=$(rc_of pr)
rc_nw=$(rc_of nw)
rc_hx=$(rc_of hx)
rc_ho=$(rc_of ho)
rc_hs=$(rc_of hs)
launch --name lq --image x/jax:1 --local-queue nosuch \
	>"$T/lq.out" 2>"$T/lq.err"; rc_lq=$?

expect "queued longer than --timeout 15s: still queued, neither deleted nor failed ($qa_state)" '
	test $qa_waited = 0 && echo "$qa_state" | grep -q Suspended && ! grep -q Timeout $T/qa.err'
expect "... admitted, it ran and Succeeded (exit $rc_qa)" '
	test $rc_qa = 0 && test "$(cat $O/qa/state)" = Succeeded &&
	test "$(grep -c "admitted by clusterQueue cq after [0-9hm]*s in the queue" $T/qa.err)" = 1 &&
	! grep -q "kueue: Started" $T/qa.err ||
	{ echo "qa exit $rc_qa, state $(cat $O/qa/state 2>&1); its stderr:"; tail -n 25 $T/qa.err; false; } >&2'
expect '... queue time (> 15 s) and run time apart in the outputs' '
	awk "BEGIN{exit !($(cat $O/qa/queue-time) > 15.0 && $(cat $O/qa/run-time) > 0)}"'
expect '... its Workload: Kueue'"'"'s name, the job as controller owner, on the real apiserver' '
	grep -qE "^jaxjob-qa-[0-9a-f]{5}$" $T/qa.wl'
expect "--queue-timeout 10s: exit 8, QueueTimeout, the job deleted (got $rc_qt)" '
	test $rc_qt = 8 && test "$(cat $O/qt/state)" = QueueTimeout && test "$(job_state qt)" = absent'
expect "preempted mid-run: preempted, requeued, admitted again, Succeeded (exit $rc_pr)" '
	test $pr_ran = 0 && test $pr_requeued = 0 && test $rc_pr = 0 &&
	test "$(cat $O/pr/state)" = Succeeded &&
	grep -q "preempted, requeued (Preempted (InCohortFairSharing): Preempted to accommodate a workload" $T/pr.err &&
	grep -q "admitted again by clusterQueue cq after [0-9hm]*s in the queue: attempt 2" $T/pr.err &&
	grep -q "^\[worker-0\] step 6/6" $T/pr.out'
expect "... its preemptions output: 1, Evicted Preempted with Preempted InCohortFairSharing" '
	/usr/bin/python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))
assert p[\"preemptions\"] == 1 and p[\"evicted_reason\"] == \"Preempted\", p
assert p[\"preempted_reason\"] == \"InCohortFairSharing\" and \"Fair Sharing\" in p[\"message\"], p" $O/pr/preemptions'
expect "ExceedsMaxQuota for the whole --queue-hopeless-after: exit 8, QueueInadmissible, deleted (got $rc_hx)" '
	test $rc_hx = 8 && test "$(cat $O/hx/state)" = QueueInadmissible && test "$(job_state hx)" = absent &&
	grep -q "(ExceedsMaxQuota for 2s): couldn.t assign flavors .*; ask for fewer GPUs or workers, or use another queue" $O/hx/message'
expect "older Kueue, Pending with \"> maximum capacity\": QueueInadmissible too (got $rc_ho)" '
	test $rc_ho = 8 && test "$(cat $O/ho/state)" = QueueInadmissible'
expect "a stopped queue (Suspended) is waited for: ended by --queue-timeout, not as hopeless (got $rc_hs)" '
	test $rc_hs = 8 && test "$(cat $O/hs/state)" = QueueTimeout &&
	grep -q "held by an admin (queue stopped): Suspended: ClusterQueue cq is inactive" $T/hs.err'
expect "no visibility API on this apiserver: one line, the run went on" '
	test "$(grep -c "no queue position: this cluster does not serve Kueue.s visibility API" $T/qa.err)" = 1'
expect "a Role without Workload read: named before the create, still Queued, then Succeeded (exit $rc_nw)" '
	grep -q "warning: cannot list workloads.kueue.x-k8s.io in namespace team-a" $T/nw.err &&
	grep -q "queued in team-a/q: waiting for Kueue to admit it (its Workload cannot be read)" $T/nw.err &&
	test $rc_nw = 0'
expect "... Kueue's Started event said, from a watch of the job's own events (involvedObject.uid selector on 1.24)" '
	grep -q "kueue: Started: Admitted by clusterQueue cq" $T/nw.err && ! grep -q "cannot watch the events" $T/nw.err'
# One run's watches receive none of another job's Normal events (issue 32): seven queue-labelled
# jobs share team-a here, their pods' and Kueue's Normal events among them. The apiserver applies
# a watch's field selector, so its audit log (every launch's event request, with its selector)
# and its answer to the same selector tell what each watch could receive.
kcp_audit jaxjob/ >"$T/launch.audit"
EW() { /usr/bin/python3 "$JAXJOB_TOP/tests/tools/event_watches.py" "$@" <"$T/launch.audit"; }
expect "the queue-labelled runs that read Workloads read the namespace's events only with type=Warning, never all of them" '
	EW admin "type=Warning"'
expect "... the one without Workload read: type=Warning, and its own job's Normal events (involvedObject.uid)" '
	EW system:serviceaccount:team-a:nowl "type=Warning" "involvedObject.uid=[0-9a-f-]+,type=Normal"'
expect "... the real apiserver answers that selector with nw's events alone, Kueue's Started among them" '
	sel=$(/usr/bin/python3 -c "
import json, re, sys, urllib.parse
for line in open(sys.argv[1]):
    a = json.loads(line)
    s = urllib.parse.parse_qs((a[\"uri\"] or \"\").partition(\"?\")[2]).get(\"fieldSelector\", [\"\"])[0]
    if a[\"user\"].endswith(\":nowl\") and s.startswith(\"involvedObject.uid=\"):
        print(urllib.parse.quote(s)); break" $T/launch.audit) && test -n "$sel" &&
	kcp_ctl GET "/api/v1/namespaces/team-a/events?fieldSelector=$sel" | /usr/bin/python3 -c "
import json, sys
got = [(e[\"involvedObject\"][\"name\"], e[\"reason\"]) for e in json.load(sys.stdin)[\"items\"]]
sys.exit(not (got and {n for n, _ in got} == {\"nw\"} and (\"nw\", \"Started\") in got))"'
expect "a missing LocalQueue: exit 4 before the create (got $rc_lq), one error line, no job" '
	test $rc_lq = 4 &&
	grep -qx "error: LocalQueue \"nosuch\" does not exist in namespace \"team-a\" (label kueue.x-k8s.io/queue-name): Kueue would hold the JAXJob for ever; create the LocalQueue or name an existing one" $T/lq.err &&
	test "$(job_state lq)" = absent'
