#!/usr/bin/env bash
# A KFP pipeline branches on why the training failed (issue 23): examples/kfp/failure_branch.py
# compiles with the real KFP SDK (the pinned one and the newest, `make test-deps`); its step runs as KFP's driver and
# launcher would run it (tests/kfp-argo/engine.py: argv from the IR, outputs collected under
# KFP's parsing rules) against the Kubernetes API test server, and the branch the IR's
# dsl.If/Elif/Else conditions pick from the collected failure_category is the right one:
# oom -> more-memory, application -> file-bug, success ("") -> evaluate, else page-oncall.
# The Argo WorkflowTemplate's train step gives the same two output parameters.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
cd "$JAXJOB_TOP" || exit 1
ENGINE="/usr/bin/python3 $JAXJOB_TOP/tests/kfp-argo/engine.py"
unset ARGO_WORKFLOW_UID ARGO_WORKFLOW_NAME KFP_RUN_ID
if [ -z "${JAXJOB_KFP_PYTHON:-}" ]; then
	skip 'a KFP pipeline that branches on failure_category' "needs the KFP SDK (kfp $JAXJOB_KFP_VERSION), $JAXJOB_DEPS_WHY"
	exit 0
fi
IR=$T/failure_branch.ir.yaml
expect "examples/kfp/failure_branch.py compiles with the KFP SDK (kfp $JAXJOB_KFP_VERSION)" \
	"'$JAXJOB_KFP_PYTHON' -W error::DeprecationWarning examples/kfp/failure_branch.py -o '$IR' && test -s '$IR'"
[ -s "$IR" ] || exit 0
expect '... its IR declares failure (STRUCT) and failure_category (STRING) outputs of the step' "/usr/bin/python3 - '$IR' <<'PY'
import sys, yaml
ir = yaml.safe_load(open(sys.argv[1]))
out = ir['components']['comp-jaxjob-launch']['outputDefinitions']['parameters']
assert out['failure']['parameterType'] == 'STRUCT' and out['failure_category']['parameterType'] == 'STRING', out
PY"
if [ -n "${JAXJOB_KFP_NEWEST_PYTHON:-}" ]; then
	expect "... the newest KFP SDK (kfp $JAXJOB_KFP_NEWEST_VERSION) compiles it to the same outputs and the same branch conditions" \
		"'$JAXJOB_KFP_NEWEST_PYTHON' -W error::DeprecationWarning examples/kfp/failure_branch.py -o '$T/newest.ir.yaml' &&
		 /usr/bin/python3 - '$IR' '$T/newest.ir.yaml' <<'PY'
import sys, yaml
def shape(path):
    ir = yaml.safe_load(open(path))
    conds = sorted(str(t.get('triggerPolicy', {}).get('condition'))
                   for c in ir['components'].values() for t in c.get('dag', {}).get('tasks', {}).values())
    conds += sorted(str(t.get('triggerPolicy', {}).get('condition')) for t in ir['root']['dag']['tasks'].values())
    return ir['components']['comp-jaxjob-launch']['outputDefinitions']['parameters'], conds
a, b = shape(sys.argv[1]), shape(sys.argv[2])
assert a == b, (a, b)
assert any('failure_category' in c for c in a[1]), a[1]
PY"
else
	skip 'the newest KFP SDK compiles it too' "needs the newest KFP SDK (kfp $JAXJOB_KFP_NEWEST_VERSION), $JAXJOB_DEPS_WHY"
fi

ks_start
export KUBECONFIG=$KS/kubeconfig
# step NAME k=v... : the step as KFP's launcher runs it; its outputs as KFP collects them in $T/NAME.json
step() {
	local name=$1 args rc
	shift
	mapfile -d '' args < <($ENGINE kfp-argv "$IR" jaxjob-launch "$T/$name" run="run-$name" task_name=jaxjob-launch \
		task_id=7 param.workers=2 input.image=x/jax:1 "$@")
	args[0]=$JAXJOB
	HOSTNAME=$name-pod KFP_POD_NAME=$name-pod "${args[@]}" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	$ENGINE kfp-collect "$IR" jaxjob-launch "$T/$name" "$rc" run="run-$name" task_name=jaxjob-launch >"$T/$name.json"
}
branch() { $ENGINE kfp-branch-outputs "$IR" jaxjob-launch "$T/$1.json"; }

step oom 'input.env={"SIM_FAIL_WORKER":"1","SIM_EXIT":"137","SIM_FAILURE":"oom"}'
expect 'an OOMKilled worker: the step exits 0 (outcome=outputs), failure_category oom, failure names worker-1' \
	"/usr/bin/python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))[\"outputs\"]; assert o[\"failure_category\"] == \"oom\" and o[\"failure\"][\"worker\"] == 1 and o[\"failure\"][\"exit_code\"] == 137, o' '$T/oom.json'"
expect '... and the branch that runs is more-memory' 'test "$(branch oom)" = more-memory'
step app 'input.env={"SIM_FAIL_WORKER":"0","SIM_EXIT":"1","SIM_FAILURE":"traceback"}'
expect 'a Python exception: failure_category application, the branch that runs is file-bug' \
	"test \"\$(branch app)\" = file-bug && grep -q 'ValueError: loss is NaN' '$T/app.json'"
step ok 'input.env={"SIM_LINES":"2"}'
expect 'a success: failure {} and failure_category empty, the branch that runs is evaluate' \
	"test \"\$(branch ok)\" = evaluate && /usr/bin/python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))[\"outputs\"]; assert o[\"failure\"] == {} and o[\"failure_category\"] == \"\", o' '$T/ok.json'"
step ev 'input.env={"SIM_FAIL_WORKER":"1","SIM_EXIT":"137","SIM_FAILURE":"evict"}'
expect 'an eviction: failure_category evicted, the branch that runs is page-oncall' \
	'test "$(branch ev)" = page-oncall && grep -q "\"failure_category\": \"evicted\"" "$T/ev.json"'

# ---- the same outputs as Argo's wait container reads them (examples/argo/workflowtemplate.yaml)
sed 's/^      - spmd_mnist_classifier_fromscratch.py$/      - SIM_FAIL_WORKER=0 SIM_EXIT=137 SIM_FAILURE=oom/' \
	examples/argo/workflowtemplate.yaml >"$T/wt-oom.yaml"
mapfile -d '' a < <($ENGINE argo-argv "$T/wt-oom.yaml" train "$T/a1" workflow.uid=66666666-ffff \
	workflow.name=jax-train-fffff workflow.parameters.workers=2)
a[0]=$JAXJOB
HOSTNAME=a1-pod "${a[@]}" >"$T/a1.out" 2>"$T/a1.err"
expect 'Argo: the train template'"'"'s failure and failure-category output parameters say oom, worker 0, exit 137' \
	"$ENGINE argo-collect '$T/wt-oom.yaml' train '$T/a1' >'$T/a1.json' && /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = json.loads(d[\"failure\"])
assert d[\"failure-category\"] == \"oom\" and f[\"worker\"] == 0 and f[\"exit_code\"] == 137, d' '$T/a1.json'"
