#!/usr/bin/env bash
# The argocd-cm snippets in health-checks/ are generated from the Lua files
# (make health-snippet) and hold exactly the scripts the vectors test.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
H=$JAXJOB_TOP/health-checks
G=$JAXJOB_TMP/health-snippet
mkdir -p "$G"

if python3 "$H/gen-argocd-cm.py" --out-dir "$G" 2>"$T/err"; then
	for f in argocd-cm.yaml argocd-cm-nested.yaml; do
		expect "$f is up to date (regenerate with make health-snippet)" "diff -u '$H/$f' '$G/$f'"
	done
else
	not_ok 'the snippet generator runs'
	cat "$T/err" >&2
fi

# Parse both ConfigMaps and compare every script with its file, and the set
# of scripts with the set of checks that have vectors (health_test.yaml).
expect 'argocd-cm.yaml: per-kind keys hold exactly the tested scripts' "python3 - '$H' <<'PY'
import os, sys, yaml
H = sys.argv[1]
def read(*p):
    return open(os.path.join(H, *p), encoding='utf-8').read()
tested = sorted(os.path.relpath(r, H) for r, _, fs in os.walk(H) if 'health_test.yaml' in fs)
cm = yaml.safe_load(read('argocd-cm.yaml'))
assert cm['kind'] == 'ConfigMap' and cm['metadata']['name'] == 'argocd-cm', cm['metadata']
data = cm['data']
want = set()
for d in tested:
    group, kind = d.split('/')
    key = 'resource.customizations.health.%s_%s' % (group, kind)
    want.add(key)
    assert data[key] == read(d, 'health.lua'), key
    if os.path.isdir(os.path.join(H, d, 'actions')):
        key = 'resource.customizations.actions.%s_%s' % (group, kind)
        want.add(key)
        acts = yaml.safe_load(data[key])
        assert acts['discovery.lua'] == read(d, 'actions', 'discovery.lua')
        names = sorted(n for n in os.listdir(os.path.join(H, d, 'actions'))
                       if os.path.isfile(os.path.join(H, d, 'actions', n, 'action.lua')))
        assert [a['name'] for a in acts['definitions']] == names, acts['definitions']
        for a in acts['definitions']:
            assert a['action.lua'] == read(d, 'actions', a['name'], 'action.lua'), a['name']
assert set(data) == want, sorted(set(data) ^ want)
assert len(tested) == 2, tested
PY"
expect 'argocd-cm-nested.yaml: resource.customizations holds exactly the tested scripts' "python3 - '$H' <<'PY'
import os, sys, yaml
H = sys.argv[1]
def read(*p):
    return open(os.path.join(H, *p), encoding='utf-8').read()
tested = sorted(os.path.relpath(r, H) for r, _, fs in os.walk(H) if 'health_test.yaml' in fs)
data = yaml.safe_load(read('argocd-cm-nested.yaml'))['data']
assert list(data) == ['resource.customizations'], list(data)
nested = yaml.safe_load(data['resource.customizations'])
assert sorted(nested) == tested, (sorted(nested), tested)
for d in tested:
    assert nested[d]['health.lua'] == read(d, 'health.lua'), d
    if 'actions' in nested[d]:
        acts = yaml.safe_load(nested[d]['actions'])
        assert acts['discovery.lua'] == read(d, 'actions', 'discovery.lua')
        for a in acts['definitions']:
            assert a['action.lua'] == read(d, 'actions', a['name'], 'action.lua'), a['name']
    else:
        assert not os.path.isdir(os.path.join(H, d, 'actions')), d
PY"
expect 'the generator refuses a script that would not survive a YAML literal block' "
	mkdir -p '$G/src/x.example.com/Thing' &&
	cp '$H/gen-argocd-cm.py' '$G/src/' &&
	printf 'return {status = \"Healthy\"}  \n' >'$G/src/x.example.com/Thing/health.lua' &&
	! python3 '$G/src/gen-argocd-cm.py' --out-dir '$G/src' 2>'$G/err' && grep -q 'trailing blanks' '$G/err'"
