#!/usr/bin/env bash
# jaxjob launch and Kueue on the test double, what a person waiting in a queue asks next
# (issue 33): where am I (the visibility API's positions, both versions, 403 and 404 said once,
# bad answers ignored), will I ever run (ExceedsMaxQuota, older Kueue's "> maximum capacity":
# QueueInadmissible, exit 8, after the grace; Suspended waits), and why was I preempted (the
# count and the reasons in the outputs). Kueue is tests/kueue/simkueue.py acting through the
# API; the visibility API is the double's (tests/kube-apiserver/visibility.py).
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start --crds kubeflow.org,trainer.kubeflow.org,kueue.x-k8s.io
O=$T/outputs
mkdir -p "$O"
SK() { /usr/bin/python3 "$JAXJOB_TOP/tests/kueue/simkueue.py" --ks "$KS" "$@"; }
JOB="--image x/jax:1 --workers 1 --local-queue q --queue-progress-every 1s"
# how many visibility requests USER sent since the mark
vis_requests() { # USER
	requests | /usr/bin/python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if r["user"] == sys.argv[1] and "pendingworkloads" in r["path"]))' "$1"
}

SK setup team-a q cq >/dev/null && SK setup team-a q2 cq >/dev/null ||
	{ echo "not ok - the simulated Kueue sets up its queues"; exit 1; }

# --- the position: in q and in cq, dropping as others are admitted --------------------------
ctl POST /_test/config '{"visibility": ["v1beta2", "v1beta1"]}' >/dev/null
SK other team-a aaa-1 q && SK other team-a aaa-2 q && SK other team-a aaa-0 q2
bg_launch qp --name qp $JOB --env SIM_LINES=2 --out-queue-position="$O/qp-position" \
	--out-summary="$O/qp-summary" --out-state="$O/qp-state"
SK hold team-a JAXJob qp q >/dev/null
expect 'a queued launch says its place: 3rd in its LocalQueue, 4th in the ClusterQueue' '
	wait_err qp "queued [0-9]+s in team-a/q: position 3 in q, 4 in cq: couldn.t assign flavors"'
SK admit-other team-a aaa-1 cq
expect '... another Workload admitted: the position drops, said at once' '
	wait_err qp "queued [0-9]+s in team-a/q: position 2 in q, 3 in cq: "'
SK admit-other team-a aaa-0 cq
expect '... and again (the other LocalQueue'"'"'s Workload leaves the ClusterQueue'"'"'s line)' '
	wait_err qp "position 2 in q, 2 in cq: "'
SK other team-a zzz-urgent q --priority 10
expect '... a higher-priority Workload comes in: the place goes back, printed as it is' '
	wait_err qp "position 3 in q, 3 in cq: "'
SK admit team-a JAXJob qp cq
bg_wait qp; rc=$?
expect '... admitted, it runs (exit 0); queue_position is the last place seen' '
	test $rc = 0 && test "$(cat $O/qp-position)" = "{\"cluster_queue\":3,\"local_queue\":3}"'
expect '... and the summary'"'"'s queue section has it' '
	grep -q "| queue position | 3 in q, 3 in its ClusterQueue (last seen) |" $O/qp-summary'
expect '... a look costs one page of at most 100 (limit and offset are sent)' '
	requests | /usr/bin/python3 -c "import json,sys; sys.exit(not any(r[\"query\"] == \"limit=100&offset=0\" for r in json.load(sys.stdin)))"'
cp "$T/qp.err" "$T/kueue-position.err"

# --- only v1beta1 served (an older Kueue): the position still comes -----------------------
ctl POST /_test/config '{"visibility": ["v1beta1"]}' >/dev/null
bg_launch q1 --name q1 $JOB --queue-timeout 6s --on-cancel leave --out-queue-position="$O/q1-position"
SK hold team-a JAXJob q1 q >/dev/null
bg_wait q1; rc=$?
expect 'only v1beta1 served: v1beta2 answers 404, v1beta1 gives the place' '
	test $rc = 8 && grep -qE "position [0-9]+ in q, [0-9]+ in cq" $T/q1.err &&
	grep -q "\"local_queue\"" $O/q1-position'

# --- 404: no APIService; 403: no grant. One line each, the run goes on ----------------------
ctl POST /_test/config '{"visibility": []}' >/dev/null
ctl POST /_test/users '{"name": "nf", "allow": ["* *"]}' >/dev/null
kubeconfig_as "$KS/nf.token" "$T/nf.kubeconfig"
"$JAXJOB" launch --kubeconfig "$T/nf.kubeconfig" --name nf $JOB --env SIM_LINES=1 \
	--out-queue-position="$O/nf-position" >"$T/nf.out" 2>"$T/nf.err" & BG_nf=$!
SK hold team-a JAXJob nf q >/dev/null
wait_err nf "queued [3-9]s in team-a/q" >/dev/null
SK admit team-a JAXJob nf cq
wait "$BG_nf"; rc=$?
expect 'no visibility API (404): one line saying so, the run goes on (exit 0), {} as position' '
	test $rc = 0 && test "$(grep -c "no queue position: this cluster does not serve Kueue.s visibility API" $T/nf.err)" = 1 &&
	test "$(cat $O/nf-position)" = "{}" && ! grep -q "position [0-9]" $T/nf.err'
expect '... asked twice (v1beta2, then v1beta1), then never again' 'test "$(vis_requests nf)" = 2'

ctl POST /_test/config '{"visibility": ["v1beta2", "v1beta1"]}' >/dev/null
ctl POST /_test/users '{"name": "nv", "allow": ["* *"], "deny": ["get localqueues/pendingworkloads"]}' >/dev/null
kubeconfig_as "$KS/nv.token" "$T/nv.kubeconfig"
"$JAXJOB" launch --kubeconfig "$T/nv.kubeconfig" --name nv $JOB --env SIM_LINES=1 \
	>"$T/nv.out" 2>"$T/nv.err" & BG_nv=$!
SK hold team-a JAXJob nv q >/dev/null
wait_err nv "queued [3-9]s in team-a/q" >/dev/null
SK admit team-a JAXJob nv cq
wait "$BG_nv"; rc=$?
expect 'no grant (403): one line naming the rule to grant, the run goes on (exit 0)' '
	test $rc = 0 && test "$(grep -c "no queue position: .*forbidden.*grant get on localqueues/pendingworkloads in API group visibility.kueue.x-k8s.io" $T/nv.err)" = 1'
expect '... one request, no repeated 403s' 'test "$(vis_requests nv)" = 1'

# --- bad answers: malformed, cut off, without items, too large: a warning, never a crash -----
for mode in malformed truncated noitems huge; do
	ctl POST /_test/config "{\"visibilityAnswer\": \"$mode\"}" >/dev/null
	# (--queue-timeout runs from the create: room for a loaded machine's simulated Kueue)
	bg_launch b$mode --name b$mode $JOB --queue-timeout 6s --on-cancel leave
	SK hold team-a JAXJob b$mode q >/dev/null
	bg_wait b$mode; rc=$?
	expect "a $mode visibility answer: one warning, ignored, the run goes on (exit 8 at --queue-timeout)" '
		test $rc = 8 && test "$(grep -c "warning: Kueue.s visibility API (v1beta2 pendingworkloads of LocalQueue team-a/q)" $T/b$mode.err)" = 1 &&
		! grep -q "position [0-9]" $T/b$mode.err'
done
expect '... the huge one was cut off at the bound, not read whole' 'grep -q "response larger than 262144 bytes" $T/bhuge.err'
ctl POST /_test/config '{"visibilityAnswer": "ok"}' >/dev/null

# --- will it ever run: ExceedsMaxQuota for the whole grace → QueueInadmissible, exit 8 ------
MAXQ="couldn't assign flavors to pod set worker: insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered podsets requests (0) + current podset request (16) > maximum capacity (8)"
bg_launch hx --name hx $JOB --queue-hopeless-after 2s --out-state="$O/hx-state" \
	--out-reason="$O/hx-reason" --out-message="$O/hx-message" --out-exit-code="$O/hx-exit"
SK hold team-a JAXJob hx q >/dev/null
SK pending team-a JAXJob hx ExceedsMaxQuota "$MAXQ"
bg_wait hx; rc=$?
expect 'ExceedsMaxQuota held for the grace: exit 8, state and reason QueueInadmissible' '
	test $rc = 8 && test "$(cat $O/hx-state)" = QueueInadmissible &&
	test "$(cat $O/hx-reason)" = QueueInadmissible && test "$(cat $O/hx-exit)" = 8'
expect '... the message quotes Kueue'"'"'s reason and message and names the fix' '
	grep -q "^Kueue will not admit the JAXJob in team-a/q (ExceedsMaxQuota for 2s): couldn.t assign flavors .* > maximum capacity (8); ask for fewer GPUs or workers, or use another queue (--local-queue)$" $O/hx-message'
expect '... the queued line said what it means, and the grace was announced' '
	grep -q "queued [0-9]*s in team-a/q: position [0-9]* in q, [0-9]* in cq: inadmissible: ExceedsMaxQuota: " $T/hx.err &&
	grep -q "Kueue says it cannot admit it (ExceedsMaxQuota); ending in 2s unless that changes" $T/hx.err'
expect '... cleaned up per --on-cancel (delete, the default)' 'test "$(job_state hx)" = absent'

bg_launch ho --name ho $JOB --queue-hopeless-after 2s --on-cancel leave --out-state="$O/ho-state"
SK hold team-a JAXJob ho q >/dev/null
SK pending team-a JAXJob ho Pending "couldn't assign flavors to pod set worker: insufficient quota for cpu in flavor default-flavor, request > maximum capacity (24 > 8)"
bg_wait ho; rc=$?
expect 'older Kueue (reason Pending, "> maximum capacity" in the message): QueueInadmissible too' '
	test $rc = 8 && test "$(cat $O/ho-state)" = QueueInadmissible'
expect '... --on-cancel leave leaves it in its queue' 'job_state ho | grep -q Suspended'

bg_launch hs --name hs $JOB --queue-hopeless-after 1s --queue-timeout 6s --on-cancel leave \
	--out-state="$O/hs-state"
SK hold team-a JAXJob hs q >/dev/null
SK pending team-a JAXJob hs Suspended "LocalQueue q is stopped"
bg_wait hs; rc=$?
expect 'Suspended (a stopped queue) is not hopeless: said as a hold, ended only by --queue-timeout' '
	test $rc = 8 && test "$(cat $O/hs-state)" = QueueTimeout &&
	grep -q "queued [0-9]*s in team-a/q: .*held by an admin (queue stopped): Suspended: LocalQueue q is stopped" $T/hs.err &&
	! grep -q "cannot admit it" $T/hs.err'

bg_launch hz --name hz $JOB --queue-hopeless-after 0 --queue-timeout 6s --on-cancel leave \
	--out-state="$O/hz-state"
SK hold team-a JAXJob hz q >/dev/null
SK pending team-a JAXJob hz NoMatchingFlavor "flavor default-flavor doesn't match node affinity"
bg_wait hz; rc=$?
expect '--queue-hopeless-after 0: NoMatchingFlavor is said, the step waits (to --queue-timeout)' '
	test $rc = 8 && test "$(cat $O/hz-state)" = QueueTimeout &&
	grep -q "inadmissible: NoMatchingFlavor: flavor default-flavor doesn.t match node affinity" $T/hz.err'

# --- preempted, then admitted: preemptions 1 and the reasons in the outputs -------------------
bg_launch pr --name pr $JOB --env SIM_LINES=8 --env SIM_DURATION=8 --out-preemptions="$O/pr-pre" \
	--out-summary="$O/pr-summary"
SK hold team-a JAXJob pr q >/dev/null
wait_err pr "queued [0-9]+s in team-a/q" && SK admit team-a JAXJob pr cq
wait_out pr "^\[worker-0\] step 1/8" >/dev/null
SK preempt team-a JAXJob pr --why InCohortReclamation
expect 'a preemption: the queued line after it names the Preempted reason' '
	wait_err pr "queued [0-9]+s in team-a/q \([0-9ms]+ in all\): .*Preempted \(InCohortReclamation\): Preempted to accommodate a workload"'
SK admit team-a JAXJob pr cq
bg_wait pr; rc=$?
expect '... admitted again and Succeeded; preemptions 1 with both reasons and the message' '
	test $rc = 0 && /usr/bin/python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))
assert p[\"preemptions\"] == 1 and p[\"evicted_reason\"] == \"Preempted\", p
assert p[\"preempted_reason\"] == \"InCohortReclamation\", p
assert \"reclamation within the cohort\" in p[\"message\"], p" $O/pr-pre'
expect '... and the summary says it' '
	grep -q "| preemptions | 1, the last: Preempted (InCohortReclamation): Preempted to accommodate" $O/pr-summary'
expect 'a run never preempted: preemptions 0' '
	bg_launch p0 --name p0 $JOB --env SIM_LINES=1 --out-preemptions="$O/p0-pre" &&
	SK hold team-a JAXJob p0 q >/dev/null && wait_err p0 "queued in team-a/q" &&
	SK admit team-a JAXJob p0 cq && bg_wait p0 && test "$(cat $O/p0-pre)" = "{\"preemptions\":0}"'

# --- without Workload read, Kueue's Stopped event on the admitted job counts the preemption ----
ctl POST /_test/users '{"name": "nowl", "allow": ["* *"], "deny": ["* workloads"]}' >/dev/null
kubeconfig_as "$KS/nowl.token" "$T/nowl.kubeconfig"
"$JAXJOB" launch --kubeconfig "$T/nowl.kubeconfig" --name pw $JOB --env SIM_LINES=8 --env SIM_DURATION=8 \
	--out-preemptions="$O/pw-pre" >"$T/pw.out" 2>"$T/pw.err" & BG_pw=$!
SK hold team-a JAXJob pw q >/dev/null
wait_err pw "queued in team-a/q: waiting for Kueue to admit it" >/dev/null && SK admit team-a JAXJob pw cq
wait_out pw "^\[worker-0\] step 1/8" >/dev/null
SK preempt team-a JAXJob pw
wait_err pw "preempted, requeued" >/dev/null && SK admit team-a JAXJob pw cq
wait "$BG_pw"; rc=$?
expect 'no Workload read: the Stopped event counts it, preemptions 1, evicted_reason Preempted' '
	test $rc = 0 && /usr/bin/python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))
assert p[\"preemptions\"] == 1 and p[\"evicted_reason\"] == \"Preempted\", p
assert p[\"message\"].startswith(\"Preempted to accommodate a workload\"), p" $O/pw-pre'
