#!/usr/bin/env bash
# jaxjob launch --api trainjob against the Kubernetes API test server (its
# simulated Trainer v2 + JobSet, tests/kube-apiserver/README.md): the same
# scenarios as the JAXJob suites - success with every node's log, failure,
# timeout and SIGTERM (job deleted), --on-cancel=suspend (spec.suspend),
# re-attach on retry - plus what only a TrainJob has: a missing runtime is
# reported before anything is created, and --api auto chooses by discovery.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start
O=$T/outputs
TJ=/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs


# ---- success: every node's log, outputs, watch not poll ------------------------------
ks_mark
# shellcheck disable=SC2046
expect_run 0 'a 4-node TrainJob that completes exits 0' ok4 \
	launch --api trainjob --name ok4 --image x/jax:1 --workers 4 --env SIM_LINES=3 \
	--env SIM_LATE_WORKER=3 --env SIM_LATE_DELAY=1.5 $(outs "$O/ok4") -- python train.py
expect 'every node'"'"'s log is on stdout as [worker-I] (I = completion index), the late node included' '
	for w in 0 1 2 3; do
		test "$(grep -c "^\[worker-$w\] step [0-9]/3 " "$T/ok4.out")" -eq 3 || exit 1
		grep -q "^\[worker-$w\] INFO:sim:worker $w of 4 connecting to JAX coordinator ok4-node-0-0.ok4:29500" "$T/ok4.out" || exit 1
	done'
expect 'no log line twice, nothing but worker lines on stdout' '
	lines_once ok4 && ! grep -v "^\[worker-[0-3]\] " "$T/ok4.out"'
expect 'progress: no Running condition in v2, so running nodes are counted from the pods' '
	grep -q "created TrainJob team-a/ok4" "$T/ok4.err" && grep -q "Running: [1-4]/4 workers active" "$T/ok4.err" &&
	grep -q "Succeeded: AllJobsCompleted: jobset completed successfully (exit 0)" "$T/ok4.err"'
expect 'outputs: state, reason, message, exit code, name, namespace, uid' '
	test "$(cat $O/ok4/state)" = Succeeded && test "$(cat $O/ok4/reason)" = AllJobsCompleted &&
	test "$(cat $O/ok4/message)" = "jobset completed successfully" &&
	test "$(cat $O/ok4/exit-code)" = 0 && test "$(cat $O/ok4/job-name)" = ok4 &&
	test "$(cat $O/ok4/job-namespace)" = team-a && grep -Eq "^[0-9a-f-]{36}$" $O/ok4/job-uid'
expect 'outputs: the TrainJob as JSON, the manifest with our identity, numNodes as replicas, a summary' '
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j[\"kind\"]==\"TrainJob\" and any(c[\"type\"]==\"Complete\" for c in j[\"status\"][\"conditions\"])" $O/ok4/job-json &&
	grep -q "jaxjob.dev/launch-id:" $O/ok4/manifest && grep -q "^kind: TrainJob" $O/ok4/manifest &&
	python3 -c "import json,sys; w=json.load(open(sys.argv[1])); assert w[\"replicas\"]==4, w" $O/ok4/workers &&
	grep -q "TrainJob team-a/ok4: Succeeded" $O/ok4/summary'
requests >"$T/ok4.requests"
expect 'the runtime was read once, the TrainJob created once and followed by watch, the pods by the JobSet labels, one follow per node' "python3 - '$T/ok4.requests' <<'PY'
import json, sys, urllib.parse
reqs = json.load(open(sys.argv[1]))
for r in reqs:
    r['query'] = urllib.parse.unquote(r['query'] or '')
rt = [r for r in reqs if '/clustertrainingruntimes/' in r['path']]
assert len(rt) == 1 and rt[0]['path'].endswith('/clustertrainingruntimes/jax-distributed'), rt
tj = [r for r in reqs if '/trainjobs' in r['path']]
posts = [r for r in tj if r['method'] == 'POST']
gets = [r for r in tj if r['method'] == 'GET' and not r['watch'] and r['path'].endswith('/trainjobs/ok4')]
assert len(posts) == 1 and not gets, [(r['method'], r['path']) for r in tj]
assert not any('/jaxjobs' in r['path'] for r in reqs), 'nothing of the JAXJob API is used'
pods = [r for r in reqs if r['path'].endswith('/pods') and r['watch']]
assert pods and all('jobset.sigs.k8s.io/jobset-name=ok4,jobset.sigs.k8s.io/replicatedjob-name=node' in r['query'] for r in pods), [r['query'] for r in pods]
logs = [r for r in reqs if r['path'].endswith('/log')]
follows = [r for r in logs if r['follow']]
assert len(follows) == 4 and all('container=node' in r['query'] for r in logs), [r['query'] for r in logs]
# the rest: reads of an exited node's last lines that finish its follow (kube_log_complete)
assert all('tailLines=' in r['query'] and 'timestamps=true' in r['query'] for r in logs if not r['follow']), [r['query'] for r in logs]
PY"
# The late node again, with the pods' watch 1.5 s behind the TrainJob's: the verdict comes
# before the watch has shown that node at all. A TrainJob's status does not count its
# nodes, so the pods are listed at the verdict, and the late node's log is waited for.
ctl POST /_test/faults '{"watchLagMs": 1500, "watchLagResource": "pods"}' >/dev/null
expect_run 0 'a TrainJob with a late node, the pods'"'"' watch behind: exits 0' lag2 \
	launch --api trainjob --name lag2 --image x/jax:1 --workers 2 --env SIM_LINES=2 \
	--env SIM_LATE_WORKER=1 --env SIM_LATE_DELAY=1 --env SIM_DURATION=0.5 -- python train.py
ctl DELETE /_test/faults >/dev/null
expect '... both nodes'"'"' lines, the late one'"'"'s too, each once, none called incomplete' '
	for w in 0 1; do
		test "$(grep -c "^\[worker-$w\] step [12]/2 " "$T/lag2.out")" -eq 2 || exit 1
	done && lines_once lag2 && ! grep -q incomplete "$T/lag2.err"'

# ---- failure ---------------------------------------------------------------------------
expect_run 1 'a TrainJob whose node fails exits 1' bad3 \
	launch --api trainjob --name bad3 --image x/jax:1 --workers 3 --env SIM_FAIL_WORKER=1 --env SIM_EXIT=3 \
	--out-state="$O/bad3/state" --out-reason="$O/bad3/reason" --out-message="$O/bad3/message" -- python train.py
expect 'the failure is reported with the TrainJob reason and message' '
	test "$(cat $O/bad3/state)" = Failed && test "$(cat $O/bad3/reason)" = FailedJobs &&
	grep -q "jobset failed due to one or more job failures" $O/bad3/message &&
	grep -q "Failed: FailedJobs" "$T/bad3.err"'
expect 'stderr says which node failed with which exit code' 'grep -q "worker-1 (bad3-node-0-1-[a-z0-9]*) exited with code 3" "$T/bad3.err"'
expect 'the failed TrainJob is kept by default' 'test "$(tj_state bad3)" = Failed'
expect_exit 1 '--delete-after=always deletes a failed TrainJob too' \
	launch --api trainjob --name del3 --image x/jax:1 --delete-after always --env SIM_FAIL_WORKER=0 -- python t.py
expect '... gone' 'test "$(tj_state del3)" = absent'

expect_run 0 'a crashed node'"'"'s pod is replaced (JobSet), and the new pod'"'"'s log is streamed too' rs1 \
	launch --api trainjob --name rs1 --image x/jax:1 --workers 2 --env SIM_RESTART=1 --env SIM_LINES=2 \
	--timeout 60s -- python train.py
expect '... each node: the crash, then a full second run, each line once per pod' '
	for w in 0 1; do
		grep -q "^\[worker-$w\] ERROR:sim:worker $w crashed" $T/rs1.out &&
		test "$(grep -c "^\[worker-$w\] step 1/2 " $T/rs1.out)" -eq 2 &&
		test "$(grep -c "^\[worker-$w\] step 2/2 " $T/rs1.out)" -eq 1 &&
		grep -q "^\[worker-$w\] INFO:sim:worker $w finished" $T/rs1.out || exit 1
	done'

# ---- timeout and signals: deleted, suspended, left -------------------------------------------
HANG="--api trainjob --image x/jax:1 --workers 2 --env SIM_HANG=1"
# (4 s: both pods start, and print their first line at once, within it beside a JOBS=16 make
# check and two busy loops; at 2 s, waiting for the line they print a second later, one did not)
expect_run 3 '--timeout ends the wait with exit 3' to1 \
	launch --name to1 $HANG --timeout 4s --out-state="$O/to1/state" -- python t.py
expect '... the TrainJob was deleted, confirmed before exit' '
	test "$(tj_state to1)" = absent && grep -q "deleted TrainJob team-a/to1" $T/to1.err && test "$(cat $O/to1/state)" = Timeout'
expect '... both nodes'"'"' logs were streamed until then' \
	'hung_workers_began to1 2'

bg_launch sg1 --name sg1 $HANG --out-state="$O/sg1/state"
signal_when_running sg1 TERM
bg_wait sg1
rc=$?
expect "SIGTERM while waiting exits 5 (got $rc)" "test $rc -eq 5"
expect '... the TrainJob was deleted and the outputs say Cancelled' '
	test "$(tj_state sg1)" = absent && grep -q "deleted TrainJob team-a/sg1" $T/sg1.err && test "$(cat $O/sg1/state)" = Cancelled'

suspended() { case "$(tj_state "$1")" in *Suspended*) return 0 ;; esac; return 1; }
bg_launch sg2 --name sg2 $HANG --on-cancel suspend
signal_when_running sg2 INT
bg_wait sg2
rc=$?
expect "SIGINT with --on-cancel=suspend exits 5 (got $rc)" "test $rc -eq 5"
expect '... the TrainJob is kept with spec.suspend true (not runPolicy), and the controller says Suspended' '
	ctl GET $TJ/sg2 | python3 -c "import json,sys; j=json.load(sys.stdin); assert j[\"spec\"][\"suspend\"] is True and \"runPolicy\" not in j[\"spec\"], j[\"spec\"]" &&
	wait_for suspended sg2'
ctl DELETE $TJ/sg2 >/dev/null

# ---- re-attach: a retried step follows its own TrainJob ------------------------------------
bg_launch ra1 --name ra1 --api trainjob --image x/jax:1 --workers 2 --env SIM_DURATION=3 --identity run-7 --on-cancel leave
wait_for grep -q "Running:" "$T/ra1.err"
kill -TERM "$BG_ra1"
bg_wait ra1
ks_mark
expect_run 0 'the retried step (same identity) re-attaches to the running TrainJob and exits 0' ra2 \
	launch --name ra1 --api trainjob --image x/jax:1 --workers 2 --env SIM_DURATION=3 --identity run-7 -- python t.py
expect '... it says so, created nothing, and streamed both nodes to the end' "
	grep -q 're-attached to TrainJob team-a/ra1' $T/ra2.err &&
	grep -q '^\[worker-0\] INFO:sim:worker 0 finished' $T/ra2.out && grep -q '^\[worker-1\] INFO:sim:worker 1 finished' $T/ra2.out &&
	requests | python3 -c 'import json,sys; assert not [r for r in json.load(sys.stdin) if r[\"method\"] == \"POST\" and \"/trainjobs\" in r[\"path\"] and r[\"code\"] == 201]'"
expect_run 4 'another step (other identity) never adopts that TrainJob: exit 4' ra3 \
	launch --name ra1 --api trainjob --image x/jax:1 --identity someone-else -- python t.py
expect '... and says whose it is' 'grep -q "TrainJob team-a/ra1 already exists and was not launched by this step" $T/ra3.err'

# ---- the runtime must exist ------------------------------------------------------------------
ks_mark
expect_run 4 'a TrainJob naming a missing runtime: exit 4 before anything is created' rt1 \
	launch --name rt1 --api trainjob --runtime jax-nosuch --image x/jax:1 --out-state="$O/rt1/state" \
	--out-reason="$O/rt1/reason" -- python t.py
expect '... one error line naming the kind, the name and the fix; outputs written' '
	test "$(grep -c "^error: " $T/rt1.err)" -eq 1 &&
	grep -q "^error: the TrainJob.s runtime ClusterTrainingRuntime jax-nosuch does not exist .*fix --runtime/--runtime-kind (kubectl get clustertrainingruntimes lists them)" $T/rt1.err &&
	test "$(cat $O/rt1/state)" = Error && test "$(cat $O/rt1/reason)" = RuntimeNotFound'
expect '... and no TrainJob was ever posted (the rules review, sent before the build, may have been)' \
	"requests | python3 -c 'import json,sys; assert not [r for r in json.load(sys.stdin) if r[\"method\"] == \"POST\" and \"/trainjobs\" in r[\"path\"]]' && test \"\$(tj_state rt1)\" = absent"
expect_run 4 'a namespaced TrainingRuntime is looked up in the job'"'"'s namespace' rt2 \
	launch --name rt2 --api trainjob --runtime-kind TrainingRuntime --image x/jax:1 -- python t.py
expect '... and named with it' 'grep -q "runtime TrainingRuntime team-a/jax-distributed does not exist" $T/rt2.err'
ctl POST /_test/users '{"name": "noruntime", "allow": ["* trainjobs", "* pods", "get pods/log", "* events"], "deny": ["get clustertrainingruntimes"]}' >/dev/null
kubeconfig_as "$KS/noruntime.token" "$T/kc-noruntime"
expect_run 0 'not allowed to read runtimes (403): a warning, and the TrainJob runs' rt3 \
	"$JAXJOB" launch --kubeconfig "$T/kc-noruntime" --name rt3 --api trainjob --image x/jax:1 --logs none -- python t.py
expect '... the warning names the problem' 'grep -q "^warning: cannot check that the TrainJob.s runtime exists: .*forbidden" $T/rt3.err'

# ---- --api auto ------------------------------------------------------------------------------
expect_run 0 '--api auto with both APIs served launches a JAXJob and says why' au1 \
	launch --name au1 --api auto --image x/jax:1 --logs none -- python t.py
expect '... the note is on stderr' 'grep -q "^jaxjob: --api auto: the cluster serves both JAXJob and TrainJob; launching a JAXJob" $T/au1.err && test "$(job_state au1)" = Created,Succeeded'
ctl POST /_test/config '{"crds": ["trainer.kubeflow.org"]}' >/dev/null
expect_run 0 '--api auto where only Trainer v2 is installed launches a TrainJob' au2 \
	launch --name au2 --api auto --image x/jax:1 --logs none -- python t.py
expect '... and says so' 'grep -q "^jaxjob: --api auto: the cluster serves TrainJob; launching a TrainJob" $T/au2.err && test "$(tj_state au2)" = Complete'
expect_run 4 '--api jaxjob there: the CRD is missing, exit 4' au3 launch --name au3 --api jaxjob --image x/jax:1 -- python t.py
ctl POST /_test/config '{"crds": ["kubeflow.org"]}' >/dev/null
expect_run 4 '--api trainjob there: exit 4 before anything is created' au6 launch --name au6 --api trainjob --image x/jax:1 -- python t.py
expect '... naming the missing CRD and Trainer v2' '
	test "$(grep -vc " connecting to https://" $T/au6.err)" -eq 1 &&
	grep -q "^error: https://.* does not serve trainer.kubeflow.org/v1alpha1 clustertrainingruntimes: .*not installed (install its operator, e.g. Kubeflow Trainer v2 for trainjobs)" $T/au6.err'
expect_run 0 '--api auto where only the Training Operator is installed launches a JAXJob' au4 \
	launch --name au4 --api auto --image x/jax:1 --logs none -- python t.py
expect '... and says so' 'grep -q "^jaxjob: --api auto: the cluster serves JAXJob; launching a JAXJob" $T/au4.err'
ctl POST /_test/config '{"crds": []}' >/dev/null
expect_run 4 '--api auto where neither is installed: exit 4' au5 launch --name au5 --api auto --image x/jax:1 -- python t.py
expect '... one error line naming both CRDs' '
	test "$(grep -vc " connecting to https://" $T/au5.err)" -eq 1 &&
	grep -q "^error: --api auto: the cluster serves neither kubeflow.org/v1 jaxjobs .* nor trainer.kubeflow.org/v1alpha1 trainjobs" $T/au5.err'
ctl POST /_test/config '{"crds": ["kubeflow.org", "trainer.kubeflow.org"]}' >/dev/null
