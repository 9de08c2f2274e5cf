#!/usr/bin/env bash
# The step as Kubeflow Pipelines v2 and Argo Workflows really run it:
#  - every Python pipeline under examples/ compiles with the real KFP SDK
#    (kfp KFP_COMPILE_VERSION from PyPI, and the newest, KFP_NEWEST, too) and
#    its IR says what component/README.md says:
#    the identity inputs are whole-value placeholders, the outcome branch
#    exists, retries and caching as documented;
#  - every Argo manifest under examples/ validates strictly against Argo's
#    own schema (tests/kfp-argo/argo_validate.py);
#  - the step's command line, built from the IR as KFP's driver and launcher
#    build it (tests/kfp-argo/engine.py), runs against the test API server,
#    for success and failure, and its outputs parse under KFP's rules; the
#    same for Argo's template substitution and output parameters;
#  - a retry of the same task (same identity inputs, new pod) re-attaches; a
#    new run creates its own job.
# The SDK venvs and the schema are `make test-deps` (stack/test-deps.sh); until
# made, the tests that need them skip, naming it.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
cd "$JAXJOB_TOP" || exit 1
ENGINE="python3 $JAXJOB_TOP/tests/kfp-argo/engine.py"
WT=examples/argo/workflowtemplate.yaml
NOSDK="needs the KFP SDK (kfp $JAXJOB_KFP_VERSION), $JAXJOB_DEPS_WHY"
NOSCHEMA="needs Argo Workflows' schema, $JAXJOB_DEPS_WHY"
unset ARGO_WORKFLOW_UID ARGO_WORKFLOW_NAME KFP_RUN_ID

# ---- compile with the real SDK ------------------------------------------------
KFP_PY=$JAXJOB_KFP_PYTHON
sdk() { # the SDK's venv ($KFP_PY: the pinned one unless said), deprecations are errors
	"$KFP_PY" -W error::DeprecationWarning "$@"
}
mapfile -t PIPELINES < <(ls examples/kfp/*.py)
if [ -n "$JAXJOB_KFP_PYTHON" ]; then
	expect "the KFP SDK imports (kfp $JAXJOB_KFP_VERSION, with kfp.kubernetes)" \
		"sdk -c 'import kfp; from kfp import compiler, components, dsl, kubernetes; assert kfp.__version__ == \"$JAXJOB_KFP_VERSION\", kfp.__version__'"
	for p in "${PIPELINES[@]}"; do
		b=$(basename "$p" .py)
		expect "$p compiles with the KFP SDK (kfp $JAXJOB_KFP_VERSION)" "sdk $p -o $T/$b.ir.yaml && test -s $T/$b.ir.yaml"
	done
	expect 'the pipeline to copy in component/README.md compiles too, and its IR passes the same checks' \
		"mkdir -p $T/readme && cd $T/readme && cp -r $JAXJOB_TOP/component . &&
		 $ENGINE snippet $JAXJOB_TOP/component/README.md 'Kubeflow Pipelines v2' python >p.py &&
		 sdk p.py && $ENGINE ir-check mnist.yaml jaxjob-launch"
	expect 'component.yaml loads and compiles alone (tests/kfp-argo/verify.py)' \
		"sdk tests/kfp-argo/verify.py component/component.yaml | grep -q '^ok: '"
else
	skip 'the KFP SDK imports' "$NOSDK"
	for p in "${PIPELINES[@]}"; do skip "$p compiles with the KFP SDK" "$NOSDK"; done
	skip 'the pipeline to copy in component/README.md compiles too' "$NOSDK"
	skip 'component.yaml loads and compiles alone' "$NOSDK"
fi
# the newest SDK compiles the same pipelines, and its IR passes the same checks
if [ -n "$JAXJOB_KFP_NEWEST_PYTHON" ]; then
	V=$JAXJOB_KFP_NEWEST_VERSION
	mkdir -p "$T/newest"
	for p in "${PIPELINES[@]}"; do
		b=$(basename "$p" .py)
		expect "$p compiles with the newest KFP SDK too (kfp $V)" \
			"KFP_PY=$JAXJOB_KFP_NEWEST_PYTHON sdk $p -o $T/newest/$b.ir.yaml && test -s $T/newest/$b.ir.yaml"
	done
	expect "... pipeline.py's IR from kfp $V passes the same IR check (placeholders whole-value, outcome, retries, no cache)" \
		"$ENGINE ir-check $T/newest/pipeline.ir.yaml jaxjob-launch"
	expect "... and the compile matrix (every input typed as an author passes it) with kfp $V, its IR checked the same" \
		"KFP_PY=$JAXJOB_KFP_NEWEST_PYTHON sdk tests/kfp-argo/typed_pipeline.py component/component.yaml $T/newest/typed.ir.yaml &&
		 KFP_PY=$JAXJOB_KFP_NEWEST_PYTHON sdk tests/kfp-argo/typed_pipeline.py --check component/component.yaml $T/newest/typed.ir.yaml"
	expect "... component.yaml loads and compiles alone with kfp $V (verify.py)" \
		"KFP_PY=$JAXJOB_KFP_NEWEST_PYTHON sdk tests/kfp-argo/verify.py component/component.yaml | grep -q '^ok: '"
else
	skip 'the examples compile with the newest KFP SDK too' "needs the newest KFP SDK (kfp $JAXJOB_KFP_NEWEST_VERSION), $JAXJOB_DEPS_WHY"
fi
# chk FILE EXPR: a Python assertion on a JSON file (d; o = its outputs); field FILE KEY
chk() { python3 -c 'import json, re, sys; d = json.load(open(sys.argv[1])); o = d.get("outputs", d); assert eval("(" + sys.argv[2] + ")"), (sys.argv[2], d)' "$1" "$2"; }
field() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d.get("outputs", d)[sys.argv[2]])' "$1" "$2"; }
IR=$T/pipeline.ir.yaml
CC=$T/container_component.ir.yaml
TY=$T/typed.ir.yaml
have_ir() { [ -s "$IR" ]; }

# ---- the compile matrix: every input typed as an author passes it ---------------
if [ -n "$JAXJOB_KFP_PYTHON" ]; then
	expect 'compile matrix: a native Python value of its type for every input compiles (issue 22'\''s call: workers=4, gpus_per_worker=1, labels={...}, command=[...], volumes=[...], queue=...)' \
		"sdk tests/kfp-argo/typed_pipeline.py component/component.yaml $TY"
	expect '... its IR: each input of its KFP type, optional without a default in an IfPresent (image required), duration a double, exit_code an integer, JSON outputs structs, no output named as an input' \
		"sdk tests/kfp-argo/typed_pipeline.py --check component/component.yaml $TY"
	expect '... an input left out is no argument: issue 22'\''s task passes exactly the flags of its eight inputs (besides outputs and {{$}})' \
		"$ENGINE kfp-argv $TY jaxjob-launch $T/ty-1 run=run-ty task_name=jaxjob-launch task_id=1 | tr '\\0' '\\n' |
		 grep '^--' | grep -v '^--out-\\|^--kfp-executor-input\$' | sort | tr '\\n' ' ' >$T/ty-flags &&
		 test \"\$(cat $T/ty-flags)\" = '--command --gpus-per-worker --image --label --name --queue --volume --workers '"
	for t in jaxjob-launch-2:JAXJob jaxjob-launch-3:TrainJob; do
		expect "... the ${t#*:} task with every value as KFP's launcher writes it (JSON, true/false, whole numbers): launch takes them all (--dry-run)" \
			"mapfile -d '' a < <($ENGINE kfp-argv $TY ${t%%:*} $T/ty-${t%%:*} run=run-ty task_name=${t%%:*} task_id=1) && a[0]=$JAXJOB &&
			 \"\${a[@]}\" --dry-run -o json >$T/ty-${t%%:*}.json && chk $T/ty-${t%%:*}.json \"d['kind'] == '${t#*:}'\""
	done
	expect '... and the values reach the JAXJob where they belong (labels + Kueue label on the job, Volcano queue, tolerations, volumes, mounts, env, suspend)' \
		"chk $T/ty-jaxjob-launch-2.json \"d['metadata']['labels'] == {'team': 'a', 'kueue.x-k8s.io/queue-name': 'team-a-q'}
 and d['spec']['runPolicy']['schedulingPolicy']['queue'] == 'research' and d['spec']['runPolicy']['suspend'] is True
 and (p := d['spec']['jaxReplicaSpecs']['Worker']['template']['spec'])['tolerations'] == [{'key': 'gpu', 'operator': 'Exists', 'effect': 'NoSchedule'}]
 and p['volumes'] == [{'name': 'data', 'persistentVolumeClaim': {'claimName': 'datasets'}}]
 and p['containers'][0]['volumeMounts'] == [{'name': 'data', 'mountPath': '/data', 'readOnly': True}]
 and p['containers'][0]['env'] == [{'name': 'A', 'value': '1'}] and p['containers'][0]['resources']['limits']['amd.com/gpu'] == 1\""
else
	skip 'compile matrix: every input typed as an author passes it' "$NOSDK"
fi

# ---- the IR -------------------------------------------------------------------
if have_ir; then
	expect 'pipeline.py IR: run_id/task_name/task_id are whole-value placeholders, name_prefix a constant, no placeholder inside a string, outcome=outputs, retries, no cache' \
		"$ENGINE ir-check $IR jaxjob-launch"
	expect '... the outcome branch: evaluate runs on Succeeded, report-failure otherwise' \
		"test \"\$($ENGINE kfp-branch $IR jaxjob-launch Succeeded)\" = evaluate &&
		 test \"\$($ENGINE kfp-branch $IR jaxjob-launch Failed)\" = report-failure &&
		 test \"\$($ENGINE kfp-branch $IR jaxjob-launch Timeout)\" = report-failure"
	expect '... the ExitHandler: notify runs after everything, whatever happened' "python3 - $IR <<'PY'
import sys, yaml
ir = yaml.safe_load(open(sys.argv[1]))
t = ir['root']['dag']['tasks']['notify']
assert t['triggerPolicy']['strategy'] == 'ALL_UPSTREAM_TASKS_COMPLETED', t
assert t['dependentTasks'] == ['exit-handler-1'], t
PY"
	expect '... the retry policy: 2 retries, 30 s backoff doubling, as the docstring says' "python3 - $IR <<'PY'
import sys, yaml
ir = yaml.safe_load(open(sys.argv[1]))
rp = ir['components']['comp-exit-handler-1']['dag']['tasks']['jaxjob-launch']['retryPolicy']
assert rp['maxRetryCount'] == 2 and rp['backoffDuration'] == '30s' and rp['backoffFactor'] == 2.0, rp
PY"
	expect 'no task sets a service account (KFP has none per task: it is the run'\''s)' \
		"! grep -qi 'serviceaccount' $IR"
	expect 'container_component.py IR: task_name/task_id whole-value, KFP_RUN_ID from the pod label pipeline/runid, retries' "python3 - $CC <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
ir, platform = docs[0], docs[1]
loop = [c for n, c in ir['components'].items() if n.startswith('comp-for-loop')][0]
t = loop['dag']['tasks']['jaxjob-launch']
p = t['inputs']['parameters']
assert p['task_name']['runtimeValue']['constant'] == '{{\$.pipeline_task_name}}', p
assert p['task_id']['runtimeValue']['constant'] == '{{\$.pipeline_task_uuid}}', p
assert t['retryPolicy']['maxRetryCount'] == 2, t
env = platform['platforms']['kubernetes']['deploymentSpec']['executors']['exec-jaxjob-launch']['fieldPathAsEnv']
assert env == [{'fieldPath': \"metadata.labels['pipeline/runid']\", 'name': 'KFP_RUN_ID'}], env
args = ir['deploymentSpec']['executors']['exec-jaxjob-launch']['container']['args']
assert args[args.index('--name-prefix') + 1] == 'sweep' and '--outcome' in args, args
PY"
	expect 'a name built with an f-string is caught by the IR check (it would reach the step literally)' "python3 - $IR <<'PY'
import subprocess, sys, yaml
ir = yaml.safe_load(open(sys.argv[1]))
t = ir['components']['comp-exit-handler-1']['dag']['tasks']['jaxjob-launch']
t['inputs']['parameters']['name'] = {'runtimeValue': {'constant': 'mnist-{{\$.pipeline_job_uuid}}'}}
yaml.safe_dump(ir, open(sys.argv[1] + '.bad', 'w'))
r = subprocess.run(sys.argv[0:0] + ['python3', '$JAXJOB_TOP/tests/kfp-argo/engine.py', 'ir-check', sys.argv[1] + '.bad'], capture_output=True, text=True)
assert r.returncode != 0 and 'inside a string' in r.stderr, r
PY"
else
	for d in 'pipeline.py IR: identity inputs are whole-value placeholders' '... the outcome branch' \
		'... the ExitHandler' '... the retry policy' 'no task sets a service account' \
		'container_component.py IR' 'a name built with an f-string is caught by the IR check'; do
		skip "$d" "$NOSDK"
	done
fi

# ---- Argo manifests, strictly --------------------------------------------------
mapfile -t ARGO < <(grep -l '^kind: \(Workflow\|WorkflowTemplate\|ClusterWorkflowTemplate\|CronWorkflow\)$' examples/argo/*.yaml)
if [ -n "$JAXJOB_TESTDATA" ]; then
	export ARGO_SCHEMA=$JAXJOB_TESTDATA/argo-workflows/schema.json
	AV="/usr/bin/python3 $JAXJOB_TOP/tests/kfp-argo/argo_validate.py"
	for f in "${ARGO[@]}"; do
		expect "$f validates strictly against Argo's schema (argo_validate.py --strict)" "$AV --strict $f"
	done
	expect '... and the strict validation catches a misspelt key (retryStrategy.limt)' "sed 's/^      limit: \"2\"/      limt: \"2\"/' $WT >$T/bad-wt.yaml && grep -q limt $T/bad-wt.yaml &&
		! $AV --strict $T/bad-wt.yaml"
else
	skip 'the Argo manifests validate strictly against the schema' "$NOSCHEMA"
fi
expect 'the WorkflowTemplate: report runs on Succeeded and Failed, report-error on Error' \
	"test \"\$($ENGINE argo-depends $WT train Succeeded)\" = report &&
	 test \"\$($ENGINE argo-depends $WT train Failed)\" = report &&
	 test \"\$($ENGINE argo-depends $WT train Error)\" = report-error"
expect '... retries on Error or exit 4 only, the identity passed for Argo < 4.1, the summary and the metrics parameters' "python3 - <<'PY'
import json, yaml
wt = yaml.safe_load(open('$WT'))
t = [t for t in wt['spec']['templates'] if t['name'] == 'train'][0]
rs = t['retryStrategy']
assert rs['retryPolicy'] == 'Always' and rs['expression'] == 'lastRetry.status == \"Error\" || lastRetry.exitCode == \"4\"', rs
args = t['container']['args']
assert '--run-id={{workflow.uid}}' in args, args
assert 'artifacts' not in t.get('outputs', {}), 'an artifact needs an artifact repository'
assert 'summary' in [p['name'] for p in t['outputs']['parameters']]
outs = {p['name']: p['valueFrom'] for p in t['outputs']['parameters']}
assert '--out-metrics=' + outs['metrics']['path'] in args, (args, outs['metrics'])
assert json.loads(outs['metrics']['default']) == {'metrics': {}}, outs['metrics']
r = [t for t in wt['spec']['templates'] if t['name'] == 'report'][0]
assert 'metrics' in [p['name'] for p in r['inputs']['parameters']]
PY"

# ---- the executor RBAC ------------------------------------------------------------
expect 'examples/rbac-argo-executor.yaml: a Role of its own for Argo'\''s executor, bound to the step'\''s account' "python3 - <<'PY'
import yaml
docs = {d['kind']: d for d in yaml.safe_load_all(open('examples/rbac-argo-executor.yaml')) if d}
role, rb = docs['Role'], docs['RoleBinding']
assert role['metadata']['name'] == 'argo-workflows-executor'
got = {(g, r): sorted(x['verbs']) for x in role['rules'] for g in x['apiGroups'] for r in x['resources']}
assert got == {('argoproj.io', 'workflowtaskresults'): ['create', 'patch'], ('', 'pods'): ['patch']}, got
assert rb['roleRef']['name'] == 'argo-workflows-executor'
sa = yaml.safe_load_all(open('examples/rbac.yaml'))
sa = [d for d in sa if d and d['kind'] == 'ServiceAccount'][0]
assert rb['subjects'] == [{'kind': 'ServiceAccount', 'name': sa['metadata']['name'], 'namespace': sa['metadata']['namespace']}]
wt = yaml.safe_load(open('$WT'))
assert wt['spec']['serviceAccountName'] == sa['metadata']['name']
PY"
if command -v kubectl >/dev/null 2>&1; then
	expect 'kubectl kustomize deploy/pipeline-step-argo builds examples/rbac-argo-executor.yaml' \
		"kubectl kustomize deploy/pipeline-step-argo >$T/argo-rbac.yaml && python3 -c '
import sys, yaml
a = [d for d in yaml.safe_load_all(open(\"$T/argo-rbac.yaml\")) if d]
b = [d for d in yaml.safe_load_all(open(\"examples/rbac-argo-executor.yaml\")) if d]
key = lambda d: d[\"kind\"]
assert sorted(a, key=key) == sorted(b, key=key)'"
else
	skip 'kubectl kustomize deploy/pipeline-step-argo builds' 'kubectl is not installed'
fi
expect 'the wrong per-task service-account advice is gone everywhere' \
	"! grep -rn --exclude-dir=.git --exclude-dir=build --exclude-dir=fuzz --exclude=62-kfp-argo.sh set_service_account_name ."

# ---- the step as KFP runs it, against the test API server -----------------------
ks_start
export KUBECONFIG=$KS/kubeconfig	# the in-cluster account, for the step

# kfp_step NAME ROOT k=v... : run the step as KFP's launcher would (argv from
# the IR, pod env KFP_POD_NAME/HOSTNAME per attempt), exit code in $T/NAME.rc
kfp_step() {
	local name=$1 root=$2 args
	shift 2
	printf '%s\n' "$@" | grep -E '^(run|task_name)=' >"$T/$name.ctx"
	mapfile -d '' args < <($ENGINE kfp-argv "$IR" jaxjob-launch "$root" "$@")
	args[0]=$JAXJOB
	HOSTNAME=$name-pod KFP_POD_NAME=$name-pod KFP_POD_UID=uid-$name "${args[@]}" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
SIMOK='input.env={"SIM_LINES":"2","SIM_DURATION":"1"}'
SIMBAD='input.env={"SIM_FAIL_WORKER":"0","SIM_EXIT":"3","SIM_LINES":"1"}'
collect() { $ENGINE kfp-collect "$IR" jaxjob-launch "$1" "$(cat "$T/$2.rc")" $(cat "$T/$2.ctx"); }

if have_ir; then
	kfp_step k1 "$T/k1" run=run-aaaa task_name=jaxjob-launch task_id=41 param.workers=2 "$SIMOK"
	expect 'KFP: the step as the launcher runs it: a JAXJob that Succeeds, exit 0' "test \$(cat $T/k1.rc) = 0"
	collect "$T/k1" k1 >"$T/k1.json" 2>"$T/k1.collect.err"
	expect '... every output exists and parses under KFP'\''s rules (exit_code an integer, duration a float, job_json and worker_counts JSON objects)' \
		"chk $T/k1.json \"d['collected'] and o['state'] == 'Succeeded' and o['exit_code'] == 0 and o['job_json']['kind'] == 'JAXJob' and o['worker_counts']['replicas'] == 2 and isinstance(o['duration'], float)\""
	expect '... the job is named mnist-<10 hex> from the run and task, never with a literal placeholder' \
		"chk $T/k1.json \"re.fullmatch('mnist-[0-9a-f]{10}', o['job_name'])\""
	expect '... the branch that runs is evaluate' \
		"test \"\$($ENGINE kfp-branch $IR jaxjob-launch \$(field $T/k1.json state))\" = evaluate"

	kfp_step k2 "$T/k2" run=run-bbbb task_name=jaxjob-launch task_id=42 param.workers=1 "$SIMBAD"
	expect 'KFP: a JAXJob that Fails: with outcome=outputs the step exits 0 (so KFP collects its outputs)' \
		"test \$(cat $T/k2.rc) = 0 && grep -q 'outcome outputs' $T/k2.err"
	collect "$T/k2" k2 >"$T/k2.json" 2>"$T/k2.collect.err"
	expect '... the outputs parse and say Failed, exit_code 1' \
		"chk $T/k2.json \"d['collected'] and o['state'] == 'Failed' and o['exit_code'] == 1 and isinstance(o['worker_counts'], dict)\""
	expect '... the branch that runs is report-failure' \
		"test \"\$($ENGINE kfp-branch $IR jaxjob-launch Failed)\" = report-failure"
	kfp_step k3 "$T/k3" run=run-cccc task_name=jaxjob-launch task_id=43 input.outcome=exit-code "$SIMBAD"
	expect 'KFP: the same with outcome=exit-code: exit 1, and KFP collects nothing' \
		"test \$(cat $T/k3.rc) = 1 && collect $T/k3 k3 | grep -q '\"collected\": false'"
	expect '... the outputs are the same under outcome=exit-code: every declared output file exists and parses by its type (KFP just does not collect them from a failed step)' "python3 -c '
import os, sys; sys.argv = [\"\"]
exec(open(\"$JAXJOB_TOP/tests/kfp-argo/engine.py\").read().split(\"def main(\")[0])
ir = load(\"$IR\"); _, t = find_task(ir, \"jaxjob-launch\")
outs = ir[\"components\"][t[\"componentRef\"][\"name\"]][\"outputDefinitions\"][\"parameters\"]
for root in (\"$T/k2\", \"$T/k3\"):
    got = {n: text_to_value(open(root + \"/tmp/kfp/outputs/\" + n).read(), d[\"parameterType\"], n) for n, d in outs.items()}
    assert got[\"state\"] == \"Failed\" and got[\"exit_code\"] == 1 and isinstance(got[\"duration\"], float), got
'"
	kfp_step k4 "$T/k4" run=run-dddd task_name=jaxjob-launch task_id=44 param.gpus_per_worker=1 input.image=x/jax:1 \
		"input.env={\"SIM_STARTUP\":\"0.1\",\"SIM_IMAGE_PULL_ERROR\":\"1\"}" input.fail_fast_after=1s
	collect "$T/k4" k4 >"$T/k4.json" 2>"$T/k4.collect.err"
	expect 'KFP: a job that cannot start (its image does not pull): exit 0, outputs parse (state Stuck, exit_code 7); the pipeline'\''s gpus_per_worker=1 and GPU toleration reached the workers' \
		"test \$(cat $T/k4.rc) = 0 && chk $T/k4.json \"o['state'] == 'Stuck' and o['exit_code'] == 7 and o['job_json']['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0]['resources']['limits']['nvidia.com/gpu'] == 1 and o['job_json']['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['tolerations'][0]['key'] == 'nvidia.com/gpu'\""
	# an API error before any job exists: the step still fails (retry), outputs parse
	kfp_step k5 "$T/k5" run=run-eeee task_name=jaxjob-launch task_id=45 input.namespace=nowhere-ns "$SIMOK"
	expect 'KFP: an API error (namespace that does not exist) still fails the step: exit 4, which KFP retries' \
		"test \$(cat $T/k5.rc) = 4"
	expect '... and the outputs it wrote parse anyway (job_json {}, exit_code 4)' \
		"python3 -c '
import sys; sys.argv = [\"\"]
exec(open(\"$JAXJOB_TOP/tests/kfp-argo/engine.py\").read().split(\"def main(\")[0])
ir = load(\"$IR\"); _, t = find_task(ir, \"jaxjob-launch\")
for n, d in ir[\"components\"][t[\"componentRef\"][\"name\"]][\"outputDefinitions\"][\"parameters\"].items():
    v = text_to_value(open(\"$T/k5/tmp/kfp/outputs/\" + n).read(), d[\"parameterType\"], n)
    if n == \"exit_code\": assert v == 4, v
    if n == \"job_json\": assert v == {}, v
'"

	# issue 22's pipeline as KFP runs it: typed constants through the launcher's placeholders
	IR=$TY kfp_step t1 "$T/t1" run=run-typed task_name=jaxjob-launch task_id=71 'input.env=[{"name":"SIM_LINES","value":"2"}]'
	$ENGINE kfp-collect "$TY" jaxjob-launch "$T/t1" "$(cat "$T/t1.rc")" run=run-typed task_name=jaxjob-launch >"$T/t1.json"
	expect 'KFP: the issue 22 pipeline (workers=4, gpus_per_worker=1, labels, command, volumes, queue) runs: exit 0, outputs typed (duration float, exit_code int, worker_counts dict)' \
		"test \$(cat $T/t1.rc) = 0 && chk $T/t1.json \"o['state'] == 'Succeeded' and o['exit_code'] == 0 and isinstance(o['duration'], float) and o['worker_counts']['replicas'] == 4\""
	expect '... and the JAXJob it created has them: 4 workers with a GPU each, label team=a, the volume, the Volcano queue, the command' \
		"chk $T/t1.json \"(j := o['job_json'])['metadata']['labels']['team'] == 'a' and j['spec']['runPolicy']['schedulingPolicy']['queue'] == 'research'
 and (w := j['spec']['jaxReplicaSpecs']['Worker'])['replicas'] == 4 and (p := w['template']['spec'])['volumes'][0]['persistentVolumeClaim']['claimName'] == 'datasets'
 and p['containers'][0]['command'] == ['python', 'train.py'] and p['containers'][0]['resources']['limits']['nvidia.com/gpu'] == 1\""

	# the run from the pod label instead (use_field_path_as_env -> KFP_RUN_ID)
	KFP_RUN_ID=run-from-label kfp_step k6 "$T/k6" run=run-from-label task_name=jaxjob-launch task_id=46 input.run_id= "$SIMOK"
	collect "$T/k6" k6 >"$T/k6.json"
	expect 'KFP: run_id left empty, KFP_RUN_ID from the pod label gives the run: named and identified from it' \
		"test \$(cat $T/k6.rc) = 0 && chk $T/k6.json \"re.fullmatch('mnist-[0-9a-f]{10}', o['job_name']) and o['job_json']['metadata']['annotations']['jaxjob.dev/launch-source'] == 'kfp run run-from-label task jaxjob-launch/46'\""
	kfp_step k7 "$T/k7" run=run-gggg task_name=jaxjob-launch task_id=47 input.run_id= "$SIMOK"
	expect 'KFP: no run at all (run_id empty, no KFP_RUN_ID): refused with exit 2, naming run_id'\''s placeholder' \
		"test \$(cat $T/k7.rc) = 2 && grep -q 'dsl.PIPELINE_JOB_ID_PLACEHOLDER' $T/k7.err"
	kfp_step k8 "$T/k8" run=run-ffff task_name=jaxjob-launch task_id=48 'input.name=mnist-{{$.pipeline_job_uuid}}' input.name_prefix= "$SIMOK"
	expect 'KFP: a name built with an f-string reaches the step literally and is refused (exit 2), saying why' \
		"test \$(cat $T/k8.rc) = 2 && grep -q 'only when it is the whole value' $T/k8.err"

	# the pipeline's metric_patterns (four lines in one string) on the lines the JAX example
	# really prints (upstream-examples/.../jax-dist-spmd-mnist/README.md), with noise
	python3 - "$T/spmd.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("Devices: 2 on process 0, port 6666\n")
    for e, (t, tr, te) in enumerate([(1809.25, 0.0987, 0.098), (0.51, 0.8512, 0.8601), (0.69, 0.9335, 0.9297)]):
        f.write(f"Epoch {e} in {t:0.2f} sec\nTraining set accuracy {tr}\nTest set accuracy {te}\n")
PY
	kfp_step k9 "$T/k9" run=run-hhhh task_name=jaxjob-launch task_id=49 param.workers=1 \
		"input.env={\"SIM_LOG_FILE\":\"$T/spmd.log\"}"
	collect "$T/k9" k9 >"$T/k9.json"
	expect 'KFP: the pipeline'"'"'s metric_patterns reach jaxjob as one argument after --metric, four lines' "
		$ENGINE kfp-argv $IR jaxjob-launch $T/k9 run=r task_name=t task_id=1 | python3 -c '
import sys
a = sys.stdin.read().split(chr(0))
v = a[a.index(\"--metric\") + 1]
assert a.count(\"--metric\") == 1 and len([l for l in v.splitlines() if l.strip()]) == 4, v'"
	expect '... each pattern is a scalar of the step'"'"'s system.Metrics artifact (what the UI shows), the epoch its step' \
		"test \$(cat $T/k9.rc) = 0 && chk $T/k9.json \"{k: v for k, v in d['artifacts']['metrics']['metadata'].items() if k != 'steps_per_s'} == {'epoch_s': 0.69, 'epoch_s.min': 0.51, 'epoch_s.max': 1809.25, 'train_accuracy': 0.9335, 'train_accuracy.min': 0.0987, 'train_accuracy.max': 0.9335, 'test_accuracy': 0.9297, 'test_accuracy.min': 0.098, 'test_accuracy.max': 0.9297, 'step': 2}\""
	kfp_step k10 "$T/k10" run=run-iiii task_name=jaxjob-launch task_id=50 "$SIMOK" \
		$'input.metric_patterns=\n  tokens_per_s=tokens/s: ([0-9.]+)\n  mfu=MFU (([0-9.]+)%\n'
	expect 'KFP: a bad line in metric_patterns fails the step before any job: exit 2, one line naming the line and the fix' \
		"test \$(cat $T/k10.rc) = 2 && test \"\$(cat $T/k10.err)\" = 'error: --metric line 3 (mfu): the regex \"MFU (([0-9.]+)%\" does not compile (Unmatched ( or \\(); write a POSIX extended regex'"

	# the @dsl.container_component example: a ParallelFor iteration, the run from the pod label
	mapfile -d '' envw < <($ENGINE kfp-env "$CC" jaxjob-launch run=run-sweep)
	# (the finished job is kept here, --delete-after never, to look at it afterwards)
	sed "/^        - --delete-after$/{n;s/success/never/}" "$CC" >"$T/cc-keep.yaml"
	mapfile -d '' a < <($ENGINE kfp-argv "$T/cc-keep.yaml" jaxjob-launch "$T/c1" run=run-sweep task_name=jaxjob-launch task_id=61 item=0.01)
	a[0]=$JAXJOB
	env "${envw[@]}" HOSTNAME=c1-pod "${a[@]}" >"$T/c1.out" 2>"$T/c1.err"
	echo $? >"$T/c1.rc"
	$ENGINE kfp-collect "$CC" jaxjob-launch "$T/c1" "$(cat "$T/c1.rc")" run=run-sweep task_name=jaxjob-launch >"$T/c1.json"
	expect 'container_component.py as KFP runs one iteration: KFP_RUN_ID from the label, the item joined into --env (Concat), outputs parse' \
		"[[ \" \${a[*]} \" == *' --delete-after never '* ]] && test \"\${envw[*]}\" = KFP_RUN_ID=run-sweep && test \$(cat $T/c1.rc) = 0 && grep -q 'job_name' $T/c1.json &&
		 ctl GET /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/\$(field $T/c1.json job_name) >$T/c1.job &&
		 grep -q '\"LEARNING_RATE\"' $T/c1.job && grep -q '\"0.01\"' $T/c1.job &&
		 grep -q 'kfp run run-sweep task jaxjob-launch/61' $T/c1.job &&
		 chk $T/c1.json \"re.fullmatch('sweep-[0-9a-f]{10}', o['job_name']) and o['exit_code'] == 0 and o['worker_counts']['replicas'] == 2\""

	# ---- retry: same run and task, new pod -------------------------------------
	ks_mark
	( HOSTNAME=r1-pod KFP_POD_NAME=r1-pod; export HOSTNAME KFP_POD_NAME
	  mapfile -d '' a < <($ENGINE kfp-argv "$IR" jaxjob-launch "$T/r1" run=run-retry task_name=jaxjob-launch task_id=50 \
		'input.env={"SIM_LINES":"4","SIM_DURATION":"4"}'); a[0]=$JAXJOB
	  exec "${a[@]}" >"$T/r1.out" 2>"$T/r1.err" ) &
	r1=$!
	wait_for grep -q "Running:" "$T/r1.err"
	kill -KILL "$r1"; wait "$r1" 2>/dev/null
	kfp_step r2 "$T/r2" run=run-retry task_name=jaxjob-launch task_id=50 'input.env={"SIM_LINES":"4","SIM_DURATION":"4"}'
	expect 'KFP retry: the attempt after a killed pod (same run and task, new pod) re-attaches and exits 0' \
		"test \$(cat $T/r2.rc) = 0 && grep -q 're-attached to JAXJob' $T/r2.err"
	collect "$T/r2" r2 >"$T/r2.json"
	expect '... one job for both attempts (one 201 and one 409)' "requests | python3 -c '
import json, sys
posts = [r for r in json.load(sys.stdin) if r[\"method\"] == \"POST\" and r[\"path\"].endswith(\"/jaxjobs\")]
assert [r.get(\"code\") for r in posts] == [201, 409], posts'"
	kfp_step r3 "$T/r3" run=run-other task_name=jaxjob-launch task_id=50 "$SIMOK"
	collect "$T/r3" r3 >"$T/r3.json"
	expect 'KFP: a new run with the same task creates its own job (another name)' \
		"test \$(cat $T/r3.rc) = 0 && ! grep -q 're-attached' $T/r3.err &&
		 test \"\$(field $T/r3.json job_name)\" != \"\$(field $T/r2.json job_name)\""
	kfp_step r4 "$T/r4" run=run-retry task_name=jaxjob-launch task_id=51 "$SIMOK"
	collect "$T/r4" r4 >"$T/r4.json"
	expect '... and so does another iteration (task id) of the same run' \
		"test \$(cat $T/r4.rc) = 0 && test \"\$(field $T/r4.json job_name)\" != \"\$(field $T/r2.json job_name)\""
else
	skip 'KFP: the step as the launcher runs it, against the test API server' "$NOSDK"
fi

# ---- the step as Argo runs it -----------------------------------------------------
argo_step() { # NAME ROOT k=v... (workflow.uid=, workflow.name=, workflow.parameters.X=)
	local name=$1 root=$2 args
	shift 2
	mapfile -d '' args < <($ENGINE argo-argv "$WT" train "$root" "$@")
	args[0]=$JAXJOB
	HOSTNAME=$name-pod ARGO_NODE_ID=$name-node "${args[@]}" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
# the simulated job reads SIM_* words from the container command; the template's
# command is what the user would change, the rest is the template's
A1=(workflow.uid=11111111-aaaa workflow.name=jax-train-aaaaa workflow.parameters.workers=2)
sed 's/^      - spmd_mnist_classifier_fromscratch.py$/      - SIM_LINES=2/' "$WT" >"$T/wt-sim.yaml"
WT=$T/wt-sim.yaml
argo_step a1 "$T/a1" "${A1[@]}"
expect 'Argo: the train template with its variables filled in: a JAXJob that Succeeds, exit 0' "test \$(cat $T/a1.rc) = 0"
expect '... the output parameters, summary included, as the wait container reads them' \
	"$ENGINE argo-collect $WT train $T/a1 >$T/a1.json && chk $T/a1.json \"d['state'] == 'Succeeded' and d['job-name'] == 'jax-train-aaaaa-mnist' and d['summary'].startswith('### JAXJob') and d['exit-code'] == '0'\""
expect '... the metrics parameter: the JSON of --out-metrics, with the last loss and step of worker 0' \
	"chk $T/a1.json \"json.loads(d['metrics'])['metrics']['loss']['last'] == 0.3333 and json.loads(d['metrics'])['metrics']['loss']['last_step'] == 2 and json.loads(d['metrics'])['step']['last'] == 2\""
sed 's/^      - spmd_mnist_classifier_fromscratch.py$/      - SIM_FAIL_WORKER=0 SIM_EXIT=2/' examples/argo/workflowtemplate.yaml >"$T/wt-bad.yaml"
WT=$T/wt-bad.yaml argo_step a2 "$T/a2" workflow.uid=22222222-bbbb workflow.name=jax-train-bbbbb
expect 'Argo: a JAXJob that Fails: exit 1, and the outputs still say so (Argo collects them whatever the exit code)' \
	"test \$(cat $T/a2.rc) = 1 && $ENGINE argo-collect $T/wt-bad.yaml train $T/a2 >$T/a2.json && chk $T/a2.json \"d['state'] == 'Failed' and d['exit-code'] == '1' and isinstance(json.loads(d['metrics'])['metrics'], dict)\""
expect '... then report runs (depends train.Failed), not report-error' \
	"test \"\$($ENGINE argo-depends $T/wt-bad.yaml train Failed)\" = report"

sed 's/^      - spmd_mnist_classifier_fromscratch.py$/      - SIM_LINES=4 SIM_DURATION=4/' examples/argo/workflowtemplate.yaml >"$T/wt-long.yaml"
ks_mark
( mapfile -d '' a < <($ENGINE argo-argv "$T/wt-long.yaml" train "$T/ar1" workflow.uid=33333333-cccc workflow.name=jax-train-ccccc)
  a[0]=$JAXJOB; HOSTNAME=ar1-pod exec "${a[@]}" >"$T/ar1.out" 2>"$T/ar1.err" ) &
ar1=$!
wait_for grep -q "Running:" "$T/ar1.err"
kill -KILL "$ar1"; wait "$ar1" 2>/dev/null
WT=$T/wt-long.yaml argo_step ar2 "$T/ar2" workflow.uid=33333333-cccc workflow.name=jax-train-ccccc
expect 'Argo retry: a new pod of the same workflow re-attaches (identity from {{workflow.uid}}, no ARGO_WORKFLOW_* env)' \
	"test \$(cat $T/ar2.rc) = 0 && grep -q 're-attached to JAXJob team-a/jax-train-ccccc-mnist' $T/ar2.err"
expect '... one job for both attempts (one 201 and one 409)' "requests | python3 -c '
import json, sys
posts = [r for r in json.load(sys.stdin) if r[\"method\"] == \"POST\" and r[\"path\"].endswith(\"/jaxjobs\")]
assert [r.get(\"code\") for r in posts] == [201, 409], posts'"
WT=$T/wt-sim.yaml argo_step ar3 "$T/ar3" workflow.uid=44444444-dddd workflow.name=jax-train-ddddd
expect 'Argo: a new workflow creates its own job' \
	"test \$(cat $T/ar3.rc) = 0 && ! grep -q 're-attached' $T/ar3.err && grep -q 'jax-train-ddddd-mnist' $T/ar3.err"
# the same name from another workflow (other uid) while the first job still runs: refused
sed 's/^      - --delete-after=success$/      - --delete-after=never/; s/^      - spmd_mnist_classifier_fromscratch.py$/      - SIM_HANG=1/' \
	examples/argo/workflowtemplate.yaml >"$T/wt-hang.yaml"
( mapfile -d '' a < <($ENGINE argo-argv "$T/wt-hang.yaml" train "$T/ah1" workflow.uid=55555555-eeee workflow.name=jax-train-eeeee)
  a[0]=$JAXJOB; HOSTNAME=ah1-pod exec "${a[@]}" >"$T/ah1.out" 2>"$T/ah1.err" ) &
ah1=$!
wait_for grep -q "Running:" "$T/ah1.err"
kill -KILL "$ah1"; wait "$ah1" 2>/dev/null
WT=$T/wt-hang.yaml argo_step ah2 "$T/ah2" workflow.uid=66666666-ffff workflow.name=jax-train-eeeee
expect 'Argo: a job of the same name from another workflow (other uid) is refused (exit 4), never adopted' \
	"test \$(cat $T/ah2.rc) = 4 && grep -q 'not launched by this step' $T/ah2.err"
