#!/usr/bin/env bash
# jaxjob launch and Kueue on the test double: a job held by Kueue (queue-name label, suspended,
# Workload not admitted) is Queued, not stuck and not timed out; queue time is not run time;
# --queue-timeout has its own exit code; preemption requeues, it does not fail the job; without
# read access to Workloads the run says so and still tells queued from running.
# Kueue is tests/kueue/simkueue.py, acting through the API; every step waits for the
# launcher's line that answers the previous one.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start --crds kubeflow.org,trainer.kubeflow.org,kueue.x-k8s.io
O=$T/outputs
SK() { /usr/bin/python3 "$JAXJOB_TOP/tests/kueue/simkueue.py" --ks "$KS" "$@"; }
# --local-queue: the queue-name label on the job only; launch creates it suspended, as Kueue's
# webhook would
JOB="--image x/jax:1 --workers 2 --local-queue q --queue-progress-every 1s"

SK setup team-a q cq >/dev/null || { echo "not ok - the simulated Kueue sets up its queues"; exit 1; }

# --- queued, longer than --timeout, then admitted -----------------------------------------
# --timeout 15s, not 2: it runs from the create until the simulated Kueue holds the job (a
# Python start and two API writes, over 2 s on a loaded 2-core machine) and again from the
# admission to the end (6 s did not cover both in a fresh-clone check beside two busy loops)
bg_launch qa --name qa $JOB --env SIM_LINES=3 --timeout 15s $(outs "$O/qa") \
	--out-queue-time="$O/qa/queue-time" --out-run-time="$O/qa/run-time"
SK hold team-a JAXJob qa q >"$T/qa.wl"
expect 'a held job is Queued with the Workload'"'"'s pending reason' \
	'wait_err qa "queued [0-9]+s in team-a/q: couldn.t assign flavors to pod set worker: insufficient unused quota"'
expect '... said again while it waits, past the 15 s --timeout' \
	'wait_err qa "queued (1[6-9]|[2-9][0-9])s in team-a/q: couldn.t assign" 1'
expect '... neither deleted nor failed by --timeout while queued' \
	'kill -0 $BG_qa && job_state qa | grep -q Suspended && ! grep -q "Timeout" $T/qa.err'
expect '... no worker pod and no fail-fast while queued' '! grep -qE "Running:|failing in" $T/qa.err'
SK admit team-a JAXJob qa cq
bg_wait qa; rc=$?
expect '... admitted, it runs and succeeds (exit 0)' 'test $rc = 0 && test "$(cat $O/qa/state)" = Succeeded'
expect '... the admission is said once, with its ClusterQueue (from the Workload: no echo of Kueue'"'"'s Started event)' '
	test "$(grep -c "admitted by clusterQueue cq after [0-9]*s in the queue" $T/qa.err)" = 1 &&
	! grep -q "kueue: Started" $T/qa.err'
expect '... the outputs give queue time and run time apart (queued > the 15 s --timeout)' '
	awk "BEGIN{exit !($(cat $O/qa/queue-time) > 15.0 && $(cat $O/qa/run-time) > 0)}"'
expect '... and the summary has both rows' 'grep -q "| queued | [0-9.]* s in q |" $O/qa/summary &&
	grep -q "| run time | [0-9.]* s |" $O/qa/summary'
expect '... launch created it suspended, as Kueue'"'"'s webhook would (the label alone was asked)' '
	grep -q "^    suspend: true$" $O/qa/manifest'
expect '... the Workload has Kueue'"'"'s name and the job as its controller owner' '
	grep -qE "^jaxjob-qa-[0-9a-f]{5}$" $T/qa.wl &&
	ctl GET /apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/$(cat $T/qa.wl) |
	grep -q "\"controller\": *true"'
cp "$T/qa.err" "$T/kueue-queued.err"

# --- SIGTERM while queued: cancelled, and the ending says Queued (the hub's queue state) -----
bg_launch qs --name qs $JOB --out-message="$O/qs/message"
SK hold team-a JAXJob qs q >/dev/null
wait_err qs "queued in team-a/q: " >/dev/null
kill -TERM "$BG_qs"
bg_wait qs; rc=$?
expect 'SIGTERM while Kueue holds the job: exit 5, "while the job was Queued", not its Suspended flag' '
	test $rc = 5 && grep -q "cancelled by signal 15 while the job was Queued" $O/qs/message'

# --- --queue-timeout: exit 8, the job deleted per --on-cancel delete, or left queued -------
bg_launch qt --name qt $JOB --queue-timeout 2s --out-state="$O/qt/state" --out-message="$O/qt/message" \
	--out-exit-code="$O/qt/exit"
SK hold team-a JAXJob qt q >/dev/null
bg_wait qt; rc=$?
expect '--queue-timeout ends a queued wait with exit 8, state QueueTimeout' '
	test $rc = 8 && test "$(cat $O/qt/state)" = QueueTimeout && test "$(cat $O/qt/exit)" = 8 &&
	grep -q "queue-timeout of 2s reached while the job was queued in team-a/q: couldn.t assign" $O/qt/message'
expect '... and --on-cancel delete (the default) deleted it' 'test "$(job_state qt)" = absent'
bg_launch ql --name ql $JOB --queue-timeout 1s --on-cancel leave
SK hold team-a JAXJob ql q >/dev/null
bg_wait ql; rc=$?
expect '... --on-cancel leave leaves it queued (exit 8)' 'test $rc = 8 && job_state ql | grep -q Suspended'

# --- preempted mid-run, requeued, admitted again, Succeeded ----------------------------------
# The preemption must land while the workers run: 12 s, not 3, because on a busy 2-core
# machine the simulated Kueue (a Python start and three API writes) took longer than a 3 s job
# (the job Succeeded first and the test failed in 2 of 3 loaded runs).
bg_launch pr --name pr $JOB --env SIM_LINES=6 --env SIM_DURATION=12 --timeout 90s \
	--out-state="$O/pr/state"
SK hold team-a JAXJob pr q >/dev/null
wait_err pr "queued [0-9]+s in team-a/q" && SK admit team-a JAXJob pr cq
expect 'a preemption mid-run: the workers were running first' 'wait_out pr "^\[worker-0\] step 1/6"'
SK preempt team-a JAXJob pr
expect '... "preempted, requeued (reason)", queued again, not failed' '
	wait_err pr "preempted, requeued \(Preempted \(InClusterQueue\): Preempted to accommodate a workload" &&
	wait_err pr "queued [0-9]+s in team-a/q \([0-9ms]+ in all\): Preempted \(InClusterQueue\): " && kill -0 $BG_pr'
SK admit team-a JAXJob pr cq
bg_wait pr; rc=$?
expect '... admitted again: attempt 2, and the job Succeeded (exit 0)' '
	test $rc = 0 && test "$(cat $O/pr/state)" = Succeeded &&
	grep -q "admitted again by clusterQueue cq after [0-9]*s in the queue: attempt 2" $T/pr.err'
expect '... the second attempt'"'"'s worker logs follow the first'"'"'s, after a marker line' '
	test "$(grep -c "^\[worker-0\] INFO:sim:worker 0 of 2 connecting" $T/pr.out)" = 2 &&
	sed -n "/^\[jaxjob\] attempt 2: re-admitted after preemption/,\$p" $T/pr.out |
	grep -q "^\[worker-0\] INFO:sim:worker 0 of 2 connecting" &&
	grep -q "^\[worker-0\] step 6/6" $T/pr.out'
cp "$T/pr.err" "$T/kueue-preempted.err"

# --- no read access to Workloads: said before the create, still queued, then runs ----------
ctl POST /_test/users '{"name": "nowl", "allow": ["* *"], "deny": ["* workloads"]}' >/dev/null
kubeconfig_as "$KS/nowl.token" "$T/nowl.kubeconfig"
"$JAXJOB" launch --kubeconfig "$T/nowl.kubeconfig" --name nw $JOB --env SIM_LINES=2 \
	>"$T/nw.out" 2>"$T/nw.err" & BG_nw=$!
SK hold team-a JAXJob nw q >/dev/null
expect 'without Workload read: the preflight names what is missing' '
	wait_err nw "warning: cannot list workloads.kueue.x-k8s.io in namespace team-a: .*grant get, list, watch"'
expect '... and the job is still Queued (from its suspend flag)' '
	wait_err nw "queued in team-a/q: waiting for Kueue to admit it \(its Workload cannot be read\)"'
SK admit team-a JAXJob nw cq
wait "$BG_nw"; rc=$?
expect '... admitted, it runs to Succeeded, no Workload request sent' '
	test $rc = 0 && grep -q "admitted after" $T/nw.err &&
	requests | /usr/bin/python3 -c "import json,sys; sys.exit(any(r[\"user\"] == \"nowl\" and \"workloads\" in r[\"path\"] for r in json.load(sys.stdin)))"'
expect '... Kueue'"'"'s Started event said, from a watch of the job'"'"'s own Normal events (uid field selector)' '
	grep -q "kueue: Started: Admitted by clusterQueue cq" $T/nw.err &&
	requests | /usr/bin/python3 "$JAXJOB_TOP/tests/tools/event_watches.py" nowl \
		"type=Warning" "involvedObject.uid=[0-9a-f-]+,type=Normal"'

# --- a crowd: one run's watches receive none of another job's Normal events ---------------
# Two queue-labelled launches in one namespace; crowd-b runs to the end (its pods' Scheduled,
# Pulled, Started..., the operator's and Kueue's Normal events) while crowd-a is queued, then
# crowd-a runs. crowd-a's identity (user crowda) tells its requests apart in the request log.
ctl POST /_test/users '{"name": "crowda", "allow": ["* *"]}' >/dev/null
kubeconfig_as "$KS/crowda.token" "$T/crowda.kubeconfig"
"$JAXJOB" launch --kubeconfig "$T/crowda.kubeconfig" --name crowd-a $JOB --env SIM_LINES=2 \
	--out-summary="$O/ca/summary" >"$T/ca.out" 2>"$T/ca.err" & BG_ca=$!
bg_launch cb --name crowd-b $JOB --env SIM_LINES=2
SK hold team-a JAXJob crowd-a q >/dev/null
SK hold team-a JAXJob crowd-b q >/dev/null
wait_err ca "queued in team-a/q: " >/dev/null
SK admit team-a JAXJob crowd-b cq
bg_wait cb; rc_cb=$?
SK admit team-a JAXJob crowd-a cq
wait "$BG_ca"; rc_ca=$?
expect 'two queue-labelled launches in one namespace both Succeed (exit 0, 0)' \
	'test "$rc_ca $rc_cb" = "0 0"'
expect '... the other job did write Normal events (its pods'"'"', Kueue'"'"'s Started)' '
	ctl GET "/api/v1/namespaces/team-a/events?fieldSelector=type%3DNormal" | /usr/bin/python3 -c "
import json, sys
got = {(e[\"involvedObject\"][\"name\"], e[\"reason\"]) for e in json.load(sys.stdin)[\"items\"]}
sys.exit(not {(\"crowd-b-worker-0\", \"Scheduled\"), (\"crowd-b\", \"Started\")} <= got)"'
expect '... the queue-labelled run watched the namespace'"'"'s events only with type=Warning, never all of them' '
	requests | /usr/bin/python3 "$JAXJOB_TOP/tests/tools/event_watches.py" crowda "type=Warning"'
expect '... and none of its watches delivered an object of the other job (its own did arrive)' '
	requests | /usr/bin/python3 -c "
import json, sys
mine = [r for r in json.load(sys.stdin) if r[\"user\"] == \"crowda\" and r[\"watch\"]]
got = [n for r in mine for n in r.get(\"delivered\", [])]
sys.exit(not (any(n.startswith(\"crowd-a\") for n in got) and
              not any(n.startswith(\"crowd-b\") for n in got)))"'
expect '... its summary counts the requests it sent (as many as the server logged of it) and the bytes it got' '
	n=$(requests | /usr/bin/python3 -c "import json,sys; print(sum(r[\"user\"] == \"crowda\" for r in json.load(sys.stdin)))") &&
	grep -qE "^\| API traffic \| $n requests, [1-9][0-9]* bytes received \|$" $O/ca/summary'

# --- a job without the queue label that a person suspended is not "queued" ----------------
bg_launch ps --name ps --image x/jax:1 --workers 1 --suspend --timeout 2s
bg_wait ps; rc=$?
expect 'a job suspended by a person (no queue label) is not Queued: --timeout applies (exit 3)' '
	test $rc = 3 && ! grep -q "queued" $T/ps.err'

# --- the preflight: the LocalQueue must exist (when it can be read) --------------------------
expect_run 4 'a missing LocalQueue: exit 4 before the create' lq \
	launch --name lq --image x/jax:1 --local-queue nosuch
expect '... one error line naming the queue, the label and the fix; no job created' '
	grep -qx "error: LocalQueue \"nosuch\" does not exist in namespace \"team-a\" (label kueue.x-k8s.io/queue-name): Kueue would hold the JAXJob for ever; create the LocalQueue or name an existing one" $T/lq.err &&
	test "$(job_state lq)" = absent'
ctl POST /_test/users '{"name": "nolq", "allow": ["* *"], "deny": ["get localqueues"]}' >/dev/null
kubeconfig_as "$KS/nolq.token" "$T/nolq.kubeconfig"
"$JAXJOB" launch --kubeconfig "$T/nolq.kubeconfig" --name nl --image x/jax:1 --local-queue nosuch \
	--queue-timeout 1s --on-cancel delete >"$T/nl.out" 2>"$T/nl.err" & BG_nl=$!
SK hold team-a JAXJob nl nosuch >/dev/null
wait "$BG_nl"; rc=$?
expect '... a LocalQueue that cannot be read: said, not checked, the job created (and queued)' '
	grep -q "warning: cannot get localqueues.kueue.x-k8s.io in namespace team-a: whether LocalQueue nosuch exists is not checked" $T/nl.err &&
	grep -q "created JAXJob team-a/nl" $T/nl.err && test $rc = 8'

# --- a TrainJob (Kueue's supported path): queued, then admitted --------------------------------
bg_launch tq --api trainjob --name tq --image x/jax:1 --workers 2 --env SIM_LINES=2 --local-queue q \
	--timeout 15s --queue-progress-every 1s --out-state="$O/tq/state"	# 15 s: see qa above
SK hold team-a TrainJob tq q >"$T/tq.wl"
expect 'a TrainJob held by Kueue is Queued past its --timeout, with the pending reason' '
	wait_err tq "queued (1[6-9]|[2-9][0-9])s in team-a/q: couldn.t assign flavors"'
SK admit team-a TrainJob tq cq
bg_wait tq; rc=$?
expect '... admitted, it runs and completes (exit 0); its Workload is named trainjob-tq-<hash>' '
	test $rc = 0 && test "$(cat $O/tq/state)" = Succeeded && grep -qE "^trainjob-tq-[0-9a-f]{5}$" $T/tq.wl &&
	grep -q "admitted by clusterQueue cq" $T/tq.err'

# --- the fail-fast grace does not count queued time -----------------------------------------
bg_launch ff --name ff --image sim/image-pull-error:1 --workers 1 --local-queue q \
	--queue-progress-every 1s --fail-fast-after 2s --out-state="$O/ff/state"
SK hold team-a JAXJob ff q >/dev/null
expect 'queued for longer than --fail-fast-after 2s: not stuck while queued' '
	wait_err ff "queued ([3-9]|[1-9][0-9])s in team-a/q" && ! grep -q "failing in" $T/ff.err && kill -0 $BG_ff'
SK admit team-a JAXJob ff cq
bg_wait ff; rc=$?
expect '... admitted, the image pull error fails it after its full grace (exit 7, Stuck)' '
	test $rc = 7 && test "$(cat $O/ff/state)" = Stuck &&
	sed -n "/admitted by clusterQueue cq/,\$p" $T/ff.err | grep -q "failing in 2s unless it recovers"'
