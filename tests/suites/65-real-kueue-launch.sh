#!/usr/bin/env bash
# jaxjob launch --local-queue against the REAL Kueue (v0.17.1, stack/parts/kueue.sh) on the real
# stack (make check-real): a queued launch says its 1-based place read through the aggregated
# visibility API and runs when quota frees; a request over the ClusterQueue's whole quota ends
# QueueInadmissible (exit 8) from the real Workload's condition; a higher-priority job preempts a
# running one (withinClusterQueue: LowerPriority), which is admitted again: attempt 2, exit 0.
# Workers are the kubelet double's simulated image. Every step waits for the launcher's line or
# the cluster state that answers the previous one.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/suites/65-real.lib"
if [ "$KCP_BACKEND" != stack ] || ! kcp_stack_has kueue; then
	skip "jaxjob launch against the real Kueue" "runs on the real stack with Kueue built, in make check-real"
	exit 0
fi
real_start "jaxjob launch against the real Kueue"
O=$T/outputs
mkdir -p "$O"
KQ=/apis/kueue.x-k8s.io/v1beta2
JOB="--image x/jax:1 --workers 1 --cpu 1 --local-queue q --queue-progress-every 1s"

# wait_err NAME REGEX / wait_out NAME REGEX: a bg launch's stderr / stdout (120 s ceiling)
wait_err() { wait_for -t 120 grep -qE "$2" "$T/$1.err"; }
wait_out() { wait_for -t 120 grep -qE "$2" "$T/$1.out"; }
# run_bg NAME ARGS...: a launch in the background, its exit code in $T/NAME.rc; rc_of NAME
run_bg() {
	local name=$1
	shift
	("$JAXJOB" launch --kubeconfig "$KCP_KUBECONFIG" "$@" >"$T/$name.out" 2>"$T/$name.err"; echo $? >"$T/$name.rc") &
}
rc_of() { wait_for -t 300 test -s "$T/$1.rc"; cat "$T/$1.rc" 2>/dev/null || echo none; }
cq_active() {
	kcp_ctl GET $KQ/clusterqueues/cq | "$KCP_PY" -c '
import json, sys
c = json.load(sys.stdin).get("status", {}).get("conditions", [])
sys.exit(not any(x["type"] == "Active" and x["status"] == "True" for x in c))'
}

# ---- setup: one flavor, a ClusterQueue of 1 cpu that preempts lower priorities, LocalQueue q,
# two WorkloadPriorityClasses
kcp_ctl POST $KQ/resourceflavors '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}}' >/dev/null &&
	kcp_ctl POST $KQ/clusterqueues '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
 "spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"},
  "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}]}}' >/dev/null &&
	kcp_ctl POST $KQ/namespaces/team-a/localqueues '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "team-a"}, "spec": {"clusterQueue": "cq"}}' >/dev/null &&
	kcp_ctl POST $KQ/workloadpriorityclasses '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "lo"}, "value": 10}' >/dev/null &&
	kcp_ctl POST $KQ/workloadpriorityclasses '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "hi"}, "value": 1000}' >/dev/null &&
	wait_for -t 60 cq_active ||
	{ not_ok "real Kueue's queues (ResourceFlavor, ClusterQueue cq of 1 cpu, LocalQueue q) are set up and cq is Active"; exit 1; }

# ---- over the whole quota: 2 cpu on a ClusterQueue of 1 -------------------------------------
t0=$SECONDS
run_bg hx --name hx --image x/jax:1 --workers 1 --cpu 2 --local-queue q --queue-progress-every 1s \
	--queue-hopeless-after 2s --out-state="$O/hx-state" --out-message="$O/hx-message"
rc_hx=$(rc_of hx)
expect "2 cpu on a ClusterQueue of 1: QueueInadmissible, exit 8 (got $rc_hx) from the real Workload's condition" '
	test $rc_hx = 8 && test "$(cat $O/hx-state)" = QueueInadmissible'
expect "... Kueue v0.17.1's pair as the launcher reads it: reason Pending, \"> maximum capacity (1)\"" '
	grep -q "^Kueue will not admit the JAXJob in team-a/q (Pending for 2s): couldn.t assign flavors to pod set worker: insufficient quota for cpu in flavor default-flavor, .* > maximum capacity (1)" $O/hx-message &&
	grep -q "Kueue says it cannot admit it (Pending); ending in 2s unless that changes" $T/hx.err'
expect "... cleaned up per --on-cancel delete (the default)" 'wait_for job_absent hx'
echo "# over-quota case: $((SECONDS - t0)) s"

# ---- positions: qa holds the quota; qb then qc wait, 1st and 2nd -------------------------------
t0=$SECONDS
bg_launch qa --name qa $JOB --env SIM_HANG=1
wait_err qa "Running:"
run_bg qb --name qb $JOB --env SIM_LINES=2 --out-queue-position="$O/qb-position"
wait_err qb "queued [0-9]+s in team-a/q: position 1 in q, 1 in cq: "; qb_first=$?
run_bg qc --name qc $JOB --env SIM_LINES=2 --out-queue-position="$O/qc-position" --out-state="$O/qc-state"
wait_err qc "queued [0-9]+s in team-a/q: position 2 in q, 2 in cq: "; qc_second=$?
# quota frees: qa cancelled (deleted, the default), then qb runs, then qc
kill -TERM "$BG_qa"
bg_wait qa; rc_qa=$?
rc_qb=$(rc_of qb)
rc_qc=$(rc_of qc)
expect "the first queued launch says \"position 1 in q, 1 in cq\", read through the aggregated visibility API" '
	test $qb_first = 0'
expect "... the one queued behind it \"position 2 in q, 2 in cq\"" 'test $qc_second = 0'
expect "quota freed (the running job cancelled, exit $rc_qa): both are admitted in turn and run, exit 0 ($rc_qb, $rc_qc)" '
	test $rc_qa = 5 && test $rc_qb = 0 && test $rc_qc = 0 && test "$(cat $O/qc-state)" = Succeeded &&
	grep -q "admitted by clusterQueue cq after [0-9hm]*s in the queue" $T/qc.err &&
	test "$(worker_log $T/qc.out 0)" = "$(expected_log qc 0 1 2)"'
expect "... their last places seen, 1-based: {\"cluster_queue\":1,\"local_queue\":1} and 2/2 (or 1/1: moved up when qb ran)" '
	test "$(cat $O/qb-position)" = "{\"cluster_queue\":1,\"local_queue\":1}" &&
	grep -qE "^\{\"cluster_queue\":[12],\"local_queue\":[12]\}$" $O/qc-position'
echo "# position case: $((SECONDS - t0)) s"

# ---- preemption: lo runs; hi (higher WorkloadPriorityClass) preempts it; lo again: attempt 2 ---
t0=$SECONDS
run_bg lo --name lo $JOB --label kueue.x-k8s.io/priority-class=lo --env SIM_LINES=20 --env SIM_DURATION=20 \
	--out-preemptions="$O/lo-pre" --out-state="$O/lo-state"
wait_out lo "^\[worker-0\] step 1/20"; lo_ran=$?
run_bg hi --name hi $JOB --label kueue.x-k8s.io/priority-class=hi --env SIM_LINES=2
rc_hi=$(rc_of hi)
rc_lo=$(rc_of lo)
expect "a higher-priority job preempts a running one (withinClusterQueue: LowerPriority) and runs, exit 0 (got $rc_hi)" '
	test $lo_ran = 0 && test $rc_hi = 0 && grep -q "preempted, requeued" $T/lo.err'
expect "... the preempted one is admitted again: attempt 2, Succeeded, exit 0 (got $rc_lo)" '
	test $rc_lo = 0 && test "$(cat $O/lo-state)" = Succeeded &&
	grep -q "admitted again by clusterQueue cq after [0-9hm]*s in the queue: attempt 2" $T/lo.err &&
	grep -q "^\[worker-0\] step 20/20" $T/lo.out'
echo "# lo's preemptions output: $(cat "$O/lo-pre" 2>&1)"
expect "... its preemptions output: 1, Evicted Preempted with Preempted InClusterQueue" '
	"$KCP_PY" -c "
import json, sys
p = json.load(open(sys.argv[1]))
assert p[\"preemptions\"] == 1 and p[\"evicted_reason\"] == \"Preempted\", p
assert p[\"preempted_reason\"] == \"InClusterQueue\", p" $O/lo-pre'
echo "# preemption case: $((SECONDS - t0)) s"
