#!/usr/bin/env bash
# The pipeline artefacts of `jaxjob launch`: the KFP component, the Argo
# WorkflowTemplate, the KFP pipeline and the RBAC example - valid for their
# tools, and wired to flags the binary really has.
. "$JAXJOB_TOP/tests/lib/tap.sh"
cd "$JAXJOB_TOP" || exit 1
COMP=component/component.yaml
WT=examples/argo/workflowtemplate.yaml

# component.yaml as the KFP SDK reads it: its loader is strict (an unknown key is a
# TypeError naming the structure), so the SDK itself is the schema, for the pinned SDK
# and the newest (`make test-deps`).
for sdk in "$JAXJOB_KFP_VERSION:$JAXJOB_KFP_PYTHON" "$JAXJOB_KFP_NEWEST_VERSION:$JAXJOB_KFP_NEWEST_PYTHON"; do
	v=${sdk%%:*} py=${sdk#*:}
	if [ -z "$py" ]; then
		skip "component.yaml loads with the KFP SDK's loader (kfp $v), a misspelt key does not" \
			"needs the KFP SDK (kfp $v), $JAXJOB_DEPS_WHY"
		continue
	fi
	expect "component.yaml loads with the KFP SDK's own loader (kfp $v): every input and output" "'$py' - <<'PY'
import yaml
from kfp import components
spec = yaml.safe_load(open('$COMP'))
c = components.load_component_from_file('$COMP')
assert c.name == spec['name'].lower().replace(' ', '-'), (c.name, spec['name'])
assert sorted(c.component_spec.inputs) == sorted(i['name'] for i in spec['inputs'])
assert sorted(c.component_spec.outputs) == sorted(o['name'] for o in spec['outputs'])
PY"
	expect "... and the loader (kfp $v) rejects a component with a misspelt key (inputs[0].defualt, container.comand)" "'$py' - <<'PY'
import yaml
from kfp import components
for where in ('input', 'container'):
    spec = yaml.safe_load(open('$COMP'))
    if where == 'input':
        spec['inputs'][0]['defualt'] = 'x'
    else:
        spec['implementation']['container']['comand'] = ['x']
    try:
        components.load_component_from_text(yaml.safe_dump(spec))
    except TypeError as e:
        assert 'from_dict' in str(e), e
        continue
    raise SystemExit('accepted a misspelt key in the ' + where)
PY"
done

# Resolve the component's command line the way KFP does (inputValue,
# outputPath, if/isPresent) with example inputs, then run it as --dry-run.
resolve_component() { # OUTDIR [name=value ...]
	python3 - "$@" <<'PY'
import sys, yaml
outdir, pairs = sys.argv[1], sys.argv[2:]
spec = yaml.safe_load(open('component/component.yaml'))
given = dict(p.split('=', 1) for p in pairs)
inputs = {i['name']: i for i in spec['inputs']}
for n in given:
    assert n in inputs, 'unknown input ' + n
def value(n):
    if n in given:
        return given[n]
    i = inputs[n]
    assert 'default' in i or i.get('optional'), 'required input %s not given' % n
    return i.get('default')
def present(n):
    return n in given or 'default' in inputs[n]
def walk(items):
    for a in items:
        if isinstance(a, str):
            yield a
        elif 'inputValue' in a:
            yield value(a['inputValue'])
        elif 'outputPath' in a:
            yield '%s/%s/data' % (outdir, a['outputPath'])
        elif 'if' in a:
            c = a['if']
            ok = present(c['cond']['isPresent'])
            yield from walk(c['then'] if ok else c.get('else', []))
        else:
            raise SystemExit('unsupported placeholder %r' % a)
impl = spec['implementation']['container']
print('\0'.join(list(impl['command'][1:]) + list(walk(impl['args']))), end='')
PY
}

run_component_dry() { # OUTDIR [name=value ...]
	local args
	mapfile -d '' args < <(resolve_component "$@")
	jj "${args[@]}" --dry-run -o json
}

expect 'the component with only its required inputs renders a valid JAXJob (--dry-run)' \
	"run_component_dry $T/o1 name=mnist image=ghcr.io/x/jax:1 | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j[\"kind\"] == \"JAXJob\" and j[\"metadata\"][\"name\"] == \"mnist\", j
w = j[\"spec\"][\"jaxReplicaSpecs\"][\"Worker\"]
assert w[\"replicas\"] == 1, w
'"
expect 'JSON inputs (command, env, labels, tolerations) and numbers reach the JAXJob' \
	"run_component_dry $T/o2 name=mnist image=ghcr.io/x/jax:1 workers=4 gpus_per_worker=1 \
		'command=[\"python3\",\"train.py\"]' 'env={\"A\":\"1\"}' 'labels={\"team\":\"a\"}' \
		'tolerations=[{\"key\":\"gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]' \
		'patch={\"spec\":{\"runPolicy\":{\"backoffLimit\":2}}}' identity=run-1 | python3 -c '
import json, sys
j = json.load(sys.stdin)
w = j[\"spec\"][\"jaxReplicaSpecs\"][\"Worker\"]
c = w[\"template\"][\"spec\"][\"containers\"][0]
assert w[\"replicas\"] == 4, w
assert c[\"command\"] == [\"python3\", \"train.py\"], c
assert {\"name\": \"A\", \"value\": \"1\"} in c[\"env\"], c
assert j[\"metadata\"][\"labels\"][\"team\"] == \"a\"
assert \"1\" in json.dumps(c[\"resources\"]), c
assert w[\"template\"][\"spec\"][\"tolerations\"][0][\"key\"] == \"gpu\"
assert j[\"spec\"][\"runPolicy\"][\"backoffLimit\"] == 2
'"
expect 'api=trainjob: the same inputs render a TrainJob on jax-distributed (--dry-run)' \
	"run_component_dry $T/o3 name=mnist image=ghcr.io/x/jax:1 workers=4 gpus_per_worker=1 api=trainjob \
		'command=[\"python3\",\"train.py\"]' 'labels={\"team\":\"a\"}' | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j[\"kind\"] == \"TrainJob\" and j[\"spec\"][\"runtimeRef\"][\"name\"] == \"jax-distributed\", j
t = j[\"spec\"][\"trainer\"]
assert t[\"numNodes\"] == 4 and t[\"command\"] == [\"python3\", \"train.py\"], t
assert t[\"resourcesPerNode\"][\"limits\"] == {\"nvidia.com/gpu\": 1}, t
'"
expect 'every output of the component is written by an --out-* flag the binary has' "python3 - <<'PY'
import subprocess, yaml, os
spec = yaml.safe_load(open('$COMP'))
args = spec['implementation']['container']['args']
help = subprocess.run([os.environ['JAXJOB'], 'launch', '--help'], capture_output=True, text=True).stdout
outs = {o['name'] for o in spec['outputs']}
wired = set()
for i, a in enumerate(args):
    if isinstance(a, dict) and 'outputPath' in a:
        flag = args[i - 1]
        assert flag.startswith('--out-') and flag in help, flag
        wired.add(a['outputPath'])
assert wired == outs, (outs - wired, wired - outs)
for i in spec['inputs']:
    assert i.get('description'), i['name']
PY"

# ---- one source of truth: the component against the flag table ---------------
CF="python3 scripts/component-flags.py --check --jaxjob $JAXJOB"
"$JAXJOB" launch --help=json >"$T/flags.json"
expect 'every launch flag is a component input, an output, a fixed value or listed absent with its reason; types match; the WorkflowTemplate reaches every flag (component-flags.py --check)' \
	"$CF | grep -q '^ok: '"
expect '--help=json lists the same options as --help' \
	"python3 -c 'import json, sys; print(\"\\n\".join(\"--\" + f[\"flag\"] for f in json.load(open(sys.argv[1]))))' $T/flags.json | sort -u >$T/a &&
	 jj launch --help | grep -o -- '^  --[a-z][a-z-]*' | tr -d ' ' | sort -u >$T/b && cmp $T/a $T/b"
# drift: what another flag, a wrong type, a reason-less absence would do
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
flags = json.load(open(t + "/flags.json"))
json.dump(flags + [dict(flags[0], flag="brand-new", param=None, kind="int")], open(t + "/flags-new.json", "w"))
json.dump(flags + [dict(flags[0], flag="out-brand-new", param=None, kind="string")], open(t + "/flags-out.json", "w"))
PY
bad_cf() { # OUT-FILE ARGS... : the check fails, one error line each
	$CF "${@:2}" >"$T/cf.out" 2>"$1"; test $? -ne 0
}
expect 'a new launch flag that is neither an input nor listed absent fails the check, naming it and the fix' \
	"bad_cf $T/cf1 --flags-json $T/flags-new.json && grep -qx \"error: launch flag --brand-new is neither an input of component/component.yaml nor listed in component/absent-flags.yaml with the reason; run \\\`make component\\\` to add it as an input\" $T/cf1"
expect '... a new --out-* flag asks for an output instead' \
	"bad_cf $T/cf2 --flags-json $T/flags-out.json && grep -q 'out-brand-new.*add an output' $T/cf2"
expect '... make component turns the new flag into a typed optional input with its argument' \
	"cp $COMP $T/comp.yaml && python3 scripts/component-flags.py --flags-json $T/flags-new.json --component $T/comp.yaml &&
	 grep -qx -- '- {name: brand_new, type: Integer, optional: true, description: \".*\"}' $T/comp.yaml &&
	 grep -qx -- '    - if: {cond: {isPresent: brand_new}, then: \\[--brand-new, {inputValue: brand_new}\\]}' $T/comp.yaml &&
	 python3 scripts/component-flags.py --check --flags-json $T/flags-new.json --component $T/comp.yaml | grep -q '^ok: '"
expect '... an input typed as a string where the flag takes a number fails it' \
	"sed 's/^- {name: workers, type: Integer/- {name: workers, type: String/' $COMP >$T/comp-str.yaml &&
	 bad_cf $T/cf3 --component $T/comp-str.yaml && grep -qx 'error: input workers (--workers, int) has type String, want Integer' $T/cf3"
expect '... an output named like an input fails it' \
	"sed 's/^- {name: worker_counts, /- {name: workers, /; s/{outputPath: worker_counts}/{outputPath: workers}/' $COMP >$T/comp-out.yaml &&
	 bad_cf $T/cf4 --component $T/comp-out.yaml && grep -qx 'error: output workers has the name of an input; rename it' $T/cf4"
expect '... an input with a default (always passed, unset impossible) fails it' \
	"sed 's/^- {name: api, type: String, optional: true, /- {name: api, type: String, default: jaxjob, optional: true, /' $COMP >$T/comp-def.yaml &&
	 bad_cf $T/cf5 --component $T/comp-def.yaml && grep -q 'input api has a default' $T/cf5"
expect '... a WorkflowTemplate without --launch-args fails it' \
	"grep -v -- '--launch-args=' $WT >$T/wt-nola.yaml && bad_cf $T/cf6 --workflow $T/wt-nola.yaml && grep -q 'does not pass --launch-args' $T/cf6"

# ---- Argo WorkflowTemplate ---------------------------------------------------
# The schema of Argo's WorkflowTemplate from npm, wherever the registry
# answers (tests/lib/npm.sh; installed once into build/npm-argo-models).
. "$JAXJOB_TOP/tests/lib/npm.sh"
NPMDIR=$JAXJOB_TOP/build/npm-argo-models
validate_wt() { # FILE.json -> exit 0 if valid
	cat >"$NPMDIR/validate.mjs" <<'JS'
import { readFileSync } from "node:fs";
import { WorkflowTemplate } from "@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/WorkflowTemplate";
const o = JSON.parse(readFileSync(process.argv[2], "utf8"));
try { new WorkflowTemplate(o).validate(); } catch (e) { console.error(e.message); process.exit(1); }
JS
	node "$NPMDIR/validate.mjs" "$1"
}
if npm_packages "$NPMDIR" @kubernetes-models/argo-workflows@2; then
	python3 -c "import json, yaml; print(json.dumps(yaml.safe_load(open('$WT'))))" >"$T/wt.json"
	expect 'the Argo WorkflowTemplate validates against @kubernetes-models/argo-workflows' \
		"validate_wt $T/wt.json"
	python3 -c "
import json; d = json.load(open('$T/wt.json'))
d['spec']['templates'][1]['container']['image'] = 7
json.dump(d, open('$T/wt-bad.json', 'w'))"
	expect 'that validation rejects a broken copy (image: 7)' "! validate_wt $T/wt-bad.json"
else
	why=$NPM_WHY
	skip 'the Argo WorkflowTemplate validates against @kubernetes-models/argo-workflows' "$why"
	skip 'that validation rejects a broken copy (image: 7)' "$why"
fi
expect 'the WorkflowTemplate step command line works (--dry-run, Argo variables filled in)' "python3 - <<'PY'
import os, re, subprocess, yaml, json
wt = yaml.safe_load(open('$WT'))
t = [t for t in wt['spec']['templates'] if t['name'] == 'train'][0]
vals = {'workflow.name': 'jax-train-x7k2p', 'workflow.uid': 'u-1'}
for p in wt['spec']['arguments']['parameters']:
    vals['workflow.parameters.' + p['name']] = p['value']
sub = lambda s: re.sub(r'\{\{([^}]+)\}\}', lambda m: vals[m.group(1)], s)
args = [sub(a) for a in t['container']['args']]
args = [a.replace('/tmp/outputs', '$T/argo-out') for a in args]
r = subprocess.run([os.environ['JAXJOB'], 'launch', '--dry-run', '-o', 'json'] + args, capture_output=True, text=True)
assert r.returncode == 0, r.stderr
j = json.loads(r.stdout)
assert j['metadata']['name'] == 'jax-train-x7k2p-mnist'
assert j['spec']['jaxReplicaSpecs']['Worker']['replicas'] == 4
outs = {o['valueFrom']['path'] for o in t['outputs']['parameters']}
flags = {a.split('=', 1)[1] for a in t['container']['args'] if a.startswith('--out-')}
assert outs <= flags, outs - flags
PY"

# ---- KFP pipeline --------------------------------------------------------------
# Compiled with the real SDK (`make test-deps`: PyPI) and run as KFP runs it:
# tests/suites/62-kfp-argo.sh.
expect 'the KFP pipeline examples are valid Python' "for p in examples/kfp/*.py; do python3 -m py_compile \$p || exit 1; done"

# ---- RBAC ----------------------------------------------------------------------
expect 'the RBAC example grants exactly what launch uses' "python3 - <<'PY'
import yaml
docs = list(yaml.safe_load_all(open('examples/rbac.yaml')))
kinds = sorted(d['kind'] for d in docs)
assert kinds == ['Role', 'RoleBinding', 'ServiceAccount'], kinds
role = [d for d in docs if d['kind'] == 'Role'][0]
got = {}
for r in role['rules']:
    for g in r['apiGroups']:
        for res in r['resources']:
            got[(g, res)] = sorted(r['verbs'])
want = {
    ('kubeflow.org', 'jaxjobs'): sorted(['create', 'get', 'list', 'watch', 'delete', 'patch']),
    ('', 'pods'): ['list', 'watch'],
    ('', 'pods/log'): ['get'],
    ('', 'events'): ['list', 'watch'],
    ('kueue.x-k8s.io', 'workloads'): ['get', 'list', 'watch'],
    ('kueue.x-k8s.io', 'localqueues'): ['get'],
    ('visibility.kueue.x-k8s.io', 'localqueues/pendingworkloads'): ['get'],
}
assert got == want, got
rb = [d for d in docs if d['kind'] == 'RoleBinding'][0]
sa = [d for d in docs if d['kind'] == 'ServiceAccount'][0]
assert rb['roleRef']['name'] == role['metadata']['name']
assert rb['subjects'][0]['name'] == sa['metadata']['name']
PY"
