#!/usr/bin/env bash
# tests/suites/21-trainjob-dry-run.sh - `jaxjob launch --dry-run --api
# trainjob`: the same parameters as a JAXJob mapped onto a Kubeflow Trainer v2
# TrainJob (templates/trainjob.yaml, component/README.md's table), every
# parameter a TrainJob cannot express refused with its reason, the TrainJob
# CRD rules and the JobSet pod-name limit checked before any cluster, and
# every manifest produced here valid against the upstream TrainJob CRD schema
# (tests/tools/crd_validate.py, SKIP until `make test-deps` fetched the CRD) and trainjob_validate
# (tests/unit/test_trainjob.c).
#
# Manifests are kept in $JAXJOB_TMP/trainjob-manifests/ (not manifests/,
# which 25-crd-schema.sh validates against the JAXJob CRD).
. "$JAXJOB_TOP/tests/lib/tap.sh"
M=$JAXJOB_TMP/trainjob-manifests
mkdir -p "$M"
base=(--dry-run --api trainjob --name mnist --image ghcr.io/x/jax:1)
py() { python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$@"; }
keep() { cp "$T/last.out" "$M/$1.yaml"; }
ok_run() { expect_exit 0 "$@"; cp "$T/out" "$T/last.out"; cp "$T/err" "$T/last.err"; }
bad_run() { expect_fail_clean "$@"; cp "$T/out" "$T/last.out"; cp "$T/err" "$T/last.err"; }

# --- the issue's command, as a TrainJob ------------------------------------------------
ok_run 'the issue command with --api trainjob prints a TrainJob' \
	jj launch --dry-run --api trainjob --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py
keep issue
expect 'on jax-distributed, 4 nodes, one GPU each, the command; nothing else' \
	"py '$M/issue.yaml' \"d == {'apiVersion': 'trainer.kubeflow.org/v1alpha1', 'kind': 'TrainJob',
 'metadata': {'name': 'mnist'},
 'spec': {'runtimeRef': {'apiGroup': 'trainer.kubeflow.org', 'kind': 'ClusterTrainingRuntime', 'name': 'jax-distributed'},
  'trainer': {'numNodes': 4, 'image': 'ghcr.io/x/jax:1', 'command': ['python', 'train.py'],
   'resourcesPerNode': {'limits': {'nvidia.com/gpu': 1}, 'requests': {'nvidia.com/gpu': 1}}}}}\""
expect 'the output is deterministic and independent of flag order' \
	"cmp <(jj launch --gpus-per-worker 1 --workers 4 --api trainjob --image ghcr.io/x/jax:1 --dry-run --name mnist -- python train.py) '$M/issue.yaml'"
expect '-o json prints the same object as JSON' \
	"jj launch -o json --dry-run --api trainjob --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py >'$T/j.json' &&
	 python3 -c 'import json, yaml, sys; sys.exit(json.load(open(sys.argv[1])) != yaml.safe_load(open(sys.argv[2])))' '$T/j.json' '$M/issue.yaml'"
expect 'the same flags with --api jaxjob still give the JAXJob' \
	"jj launch --dry-run --api jaxjob --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py | grep -qx 'kind: JAXJob'"
ok_run 'the image is optional: the runtime has one' jj launch --dry-run --api trainjob --name plain
keep no-image
expect 'no trainer.image, numNodes 1' "py '$M/no-image.yaml' \"d['spec']['trainer'] == {'numNodes': 1} and 'runtimePatches' not in d['spec']\""

# --- every parameter a TrainJob can express --------------------------------------------
ok_run 'every TrainJob parameter reaches the manifest' \
	jj launch "${base[@]}" --namespace team-a --label team=ml --annotation example.com/note=hi \
	--pod-annotation sidecar.istio.io/inject=false --workers 2 --command python --command -m \
	--arg train --arg --steps=10 --env A=1 --env 'B=x=y' --cpu 4 --memory 16Gi --gpus-per-worker 2 \
	--gpu-resource amd.com/gpu --resource example.com/fpga=1 --service-account trainer \
	--image-pull-secret regcred --node-selector pool=gpu --toleration gpu=true:NoSchedule \
	--volume data=pvc:datasets --volume shm=emptydir:Memory --mount data:/data:ro --mount shm:/dev/shm \
	--active-deadline-seconds 7200 --suspend --runtime jax-custom --runtime-kind TrainingRuntime \
	--procs-per-node 1
keep all-params
expect 'trainer, runtimeRef, suspend, deadline and metadata are where the CRD wants them' \
	"py '$M/all-params.yaml' \"d['metadata'] == {'name': 'mnist', 'namespace': 'team-a', 'labels': {'team': 'ml'}, 'annotations': {'example.com/note': 'hi'}}
 and (s := d['spec'])['runtimeRef'] == {'apiGroup': 'trainer.kubeflow.org', 'kind': 'TrainingRuntime', 'name': 'jax-custom'}
 and s['suspend'] is True and s['activeDeadlineSeconds'] == 7200
 and (t := s['trainer'])['numNodes'] == 2 and t['numProcPerNode'] == 1 and t['image'] == 'ghcr.io/x/jax:1'
 and t['command'] == ['python', '-m'] and t['args'] == ['train', '--steps=10']
 and t['env'] == [{'name': 'A', 'value': '1'}, {'name': 'B', 'value': 'x=y'}]
 and t['resourcesPerNode']['limits'] == t['resourcesPerNode']['requests'] == {'cpu': '4', 'memory': '16Gi', 'amd.com/gpu': 2, 'example.com/fpga': '1'}\""
expect 'pod parameters go through one runtime patch of ours, on replicated job and container node' \
	"py '$M/all-params.yaml' \"len(s := d['spec']['runtimePatches']) == 1 and s[0]['manager'] == 'jaxjob.dev/params'
 and len(rj := s[0]['trainingRuntimeSpec']['template']['spec']['replicatedJobs']) == 1 and rj[0]['name'] == 'node'
 and (pt := rj[0]['template']['spec']['template'])['metadata'] == {'labels': {'team': 'ml'}, 'annotations': {'sidecar.istio.io/inject': 'false'}}
 and (p := pt['spec'])['serviceAccountName'] == 'trainer' and p['imagePullSecrets'] == [{'name': 'regcred'}]
 and p['nodeSelector'] == {'pool': 'gpu'}
 and p['tolerations'] == [{'key': 'gpu', 'operator': 'Equal', 'value': 'true', 'effect': 'NoSchedule'}]
 and p['volumes'] == [{'name': 'data', 'persistentVolumeClaim': {'claimName': 'datasets'}}, {'name': 'shm', 'emptyDir': {'medium': 'Memory'}}]
 and p['containers'] == [{'name': 'node', 'volumeMounts': [{'name': 'data', 'mountPath': '/data', 'readOnly': True}, {'name': 'shm', 'mountPath': '/dev/shm'}]}]\""
ok_run 'KFP style: strings, JSON lists and maps, empty = unset' \
	jj launch --dry-run --api=trainjob --name=kfp --image=img:1 --workers=2 --command='["python","train.py"]' \
	--env='{"XLA_FLAGS":"--xla_force_host_platform_device_count=2"}' --label='{"team":"ml"}' \
	--cpu= --memory= --gpus-per-worker= --suspend=false --node-selector= --runtime= --restart-policy=
keep kfp
expect 'unset values are absent, suspend=false is kept, the runtime defaults' \
	"py '$M/kfp.yaml' \"(t := d['spec']['trainer'])['command'] == ['python', 'train.py'] and 'resourcesPerNode' not in t
 and d['spec']['suspend'] is False and d['spec']['runtimeRef']['name'] == 'jax-distributed'
 and d['spec']['runtimePatches'][0]['trainingRuntimeSpec']['template']['spec']['replicatedJobs'][0]['template']['spec']['template'] == {'metadata': {'labels': {'team': 'ml'}}}\""

ok_run '--local-queue puts a TrainJob into a Kueue LocalQueue' \
	jj launch "${base[@]}" --label team=ml --local-queue team-a-q
expect '  as the label on the TrainJob only, not in the runtime patch of its pods' \
	"py '$T/last.out' \"d['metadata']['labels'] == {'team': 'ml', 'kueue.x-k8s.io/queue-name': 'team-a-q'}
 and d['spec']['runtimePatches'][0]['trainingRuntimeSpec']['template']['spec']['replicatedJobs'][0]['template']['spec']['template']['metadata'] == {'labels': {'team': 'ml'}}\""

# --- what a TrainJob cannot express: refused, never dropped ------------------------------
for p in 'restart-policy OnFailure:runtime.s Job template' 'image-pull-policy Always:imagePullPolicy' \
	'coordinator-port 7777:29500' 'clean-pod-policy All:JobSet owns the pods' \
	'ttl-seconds-after-finished 60:--delete-after' 'backoff-limit 3:failurePolicy' \
	'queue research:local-queue' 'min-available 2:podGroupPolicy' \
	'schedule-timeout-seconds 60:podGroupPolicy' 'priority-class high:priorityClassName'; do
	flag=${p%%:*} why=${p#*:}
	# shellcheck disable=SC2086
	bad_run "--$flag is refused for a TrainJob" jj launch "${base[@]}" --$flag
	expect "  and the message says why ($why) and what to do" \
		"grep -q '^error: ${flag% *} is not supported for a TrainJob: .*$why.*; remove it, or use api jaxjob\$' '$T/last.err'"
done
for p in 'runtime x' 'runtime-kind TrainingRuntime' 'procs-per-node 2'; do
	# shellcheck disable=SC2086
	bad_run "--${p% *} is refused for a JAXJob" jj launch --dry-run --name m --image i:1 --${p}
	expect "  and the message points to --api trainjob" \
		"grep -q '^error: ${p% *} is not supported for a JAXJob: .*or use api trainjob\$' '$T/last.err'"
done

# --- the TrainJob rules, before any cluster ------------------------------------------------
n48=$(printf 'a%.0s' $(seq 48))
ok_run 'a 48-character name fits 10 nodes: {name}-node-0-9-xxxxx is 63' jj launch "${base[@]}" --name "$n48" --workers 10
keep name48
bad_run 'a 49-character name does not' jj launch "${base[@]}" --name "${n48}b"
expect 'the message names the JobSet pod name and the limit' \
	"grep -qx 'error: invalid TrainJob: metadata.name \"${n48}b\" is too long for 1 node: the JobSet.s pod ${n48}b-node-0-0-xxxxx would have 64 characters, the limit is 63; use at most 48 characters' '$T/last.err'"
bad_run 'with 11 nodes 48 is one too many' jj launch "${base[@]}" --name "$n48" --workers 11
expect 'and says 47' "grep -q 'use at most 47 characters' '$T/last.err'"
bad_run 'an RFC 1035 name: no leading digit' jj launch "${base[@]}" --name 1mnist
bad_run 'a runtime name that is not a DNS subdomain' jj launch "${base[@]}" --runtime Jax_Distributed
bad_run 'a runtime kind that does not exist' jj launch "${base[@]}" --runtime-kind Runtime
expect 'names the choices' "grep -q 'use one of ClusterTrainingRuntime, TrainingRuntime' '$T/last.err'"
bad_run 'numProcPerNode 0' jj launch "${base[@]}" --procs-per-node 0
bad_run 'activeDeadlineSeconds 0' jj launch "${base[@]}" --active-deadline-seconds 0
bad_run '--patch that breaks the TrainJob is caught' jj launch "${base[@]}" --patch '{"spec":{"trainer":{"numNodes":0}}}'
expect 'the message names the path' "grep -qx 'error: invalid TrainJob after --patch: spec.trainer.numNodes must be at least 1, got 0' '$T/last.err'"
bad_run '--patch with a JAXJob field is a typo for a TrainJob' jj launch "${base[@]}" --patch '{"spec":{"runPolicy":{"backoffLimit":1}}}'
expect 'says it is not a field' "grep -q 'spec.runPolicy is not a field of spec' '$T/last.err'"
bad_run '129 args: the CRD allows 128' jj launch "${base[@]}" --arg="$(python3 -c 'import json; print(json.dumps(["a"] * 129))')"
bad_run 'a 501-character image: the CRD allows 500' jj launch "${base[@]}" --image "$(printf 'i%.0s' $(seq 501))"
ok_run '--patch reaches TrainJob fields no parameter has (managedBy)' \
	jj launch "${base[@]}" --patch '{"spec":{"managedBy":"kueue.x-k8s.io/multikueue"}}'
keep patch-managed-by
bad_run '--api auto needs a cluster' jj launch "${base[@]}" --api auto
expect 'and says so' "grep -q 'choose --api jaxjob or --api trainjob' '$T/last.err'"
bad_run 'an unknown --api' jj launch "${base[@]}" --api tfjob
expect 'names the choices' "grep -q 'use one of jaxjob, trainjob, auto' '$T/last.err'"

# --- user templates ------------------------------------------------------------------------------
cat >"$T/user.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ((name))
spec:
  runtimeRef: {name: ((runtime))}
  trainer:
    numNodes: ((workers))
    args: ["--data=gs://bucket/((dataset))"]
YAML
ok_run 'a user TrainJob template with its own placeholder' \
	jj launch --dry-run --api trainjob --template "$T/user.yaml" --name u --param dataset=mnist --workers 3
keep user-template
expect 'substituted' "py '$M/user-template.yaml' \"d['spec'] == {'runtimeRef': {'name': 'jax-distributed'}, 'trainer': {'numNodes': 3, 'args': ['--data=gs://bucket/mnist']}}\""
bad_run 'a TrainJob template with --api jaxjob is not a JAXJob' \
	jj launch --dry-run --api jaxjob --template "$T/user.yaml" --name u --param dataset=m
expect 'and the message says which kind it wanted' "grep -q 'invalid JAXJob: apiVersion must be kubeflow.org/v1' '$T/last.err'"

# --- the pipeline examples switch with one parameter ---------------------------------------
expect 'the Argo WorkflowTemplate with -p api=trainjob builds a TrainJob from the same step' "python3 - <<'PY'
import os, re, subprocess, yaml, json
wt = yaml.safe_load(open('$JAXJOB_TOP/examples/argo/workflowtemplate.yaml'))
t = [t for t in wt['spec']['templates'] if t['name'] == 'train'][0]
vals = {'workflow.name': 'jax-train-x7k2p', 'workflow.uid': 'u-1'}
for p in wt['spec']['arguments']['parameters']:
    vals['workflow.parameters.' + p['name']] = p['value']
assert vals['workflow.parameters.api'] == 'jaxjob'
vals['workflow.parameters.api'] = 'trainjob'
args = [re.sub(r'\{\{([^}]+)\}\}', lambda m: vals[m.group(1)], a) for a in t['container']['args']]
args = [a.replace('/tmp/outputs', '$T/argo-out') for a in args]
r = subprocess.run([os.environ['JAXJOB'], 'launch', '--dry-run', '-o', 'json'] + args, capture_output=True, text=True)
assert r.returncode == 0, r.stderr
j = json.loads(r.stdout)
open('$M/argo-wt.yaml', 'w').write(yaml.safe_dump(j))
assert j['kind'] == 'TrainJob' and j['metadata']['name'] == 'jax-train-x7k2p-mnist', j
assert j['spec']['trainer']['numNodes'] == 4 and j['spec']['trainer']['command'] == ['python3', 'spmd_mnist_classifier_fromscratch.py']
PY"
expect 'the KFP pipeline passes its api parameter to the component' \
	"grep -q 'api: str = \"jaxjob\"' '$JAXJOB_TOP/examples/kfp/pipeline.py' && grep -q '^        api=api,' '$JAXJOB_TOP/examples/kfp/pipeline.py'"

# --- the manifests are what the cluster accepts ------------------------------------------------
mapfile -t manifests < <(ls "$M"/*.yaml)
expect "all ${#manifests[@]} manifests pass trainjob_validate" \
	'list=$(IFS=:; echo "${manifests[*]}") && JAXJOB_TRAINJOB_FILES=$list "$JAXJOB_BUILD/tests/test_trainjob"'
if [ -z "${JAXJOB_TESTDATA:-}" ]; then
	skip 'manifests validate against the TrainJob CRD schema' "needs the TrainJob CRD, $JAXJOB_DEPS_WHY"
	skip 'the schema check enforces the CRD CEL name rules' "needs the TrainJob CRD, $JAXJOB_DEPS_WHY"
	exit 0
fi
crd=$JAXJOB_TESTDATA/crds/trainer.kubeflow.org_trainjobs.yaml
validate() { python3 "$JAXJOB_TOP/tests/tools/crd_validate.py" "$crd" "$@"; }
expect "all ${#manifests[@]} manifests validate against the upstream TrainJob CRD schema" 'validate "${manifests[@]}"'
cat >"$T/bad.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: Mnist}
spec:
  runtimeRef: {name: jax-distributed}
  managedBy: me
  runPolicy: {}
YAML
expect 'the schema check rejects what the API server rejects (CEL name rule, managedBy, unknown field)' \
	"! validate '$T/bad.yaml' >'$T/v.out'; grep -q 'RFC 1035' '$T/v.out' && python3 - '$crd' '$T/bad.yaml' <<'PY'
import sys, yaml
sys.path.insert(0, '$JAXJOB_TOP/tests/tools')
import crd_validate
kind, versions = crd_validate.load_crd(sys.argv[1])
doc = yaml.safe_load(open(sys.argv[2]))
msgs = ' '.join(e.message for e in versions['trainer.kubeflow.org/v1alpha1'].iter_errors(doc))
for want in ('RFC 1035', 'ManagedBy must be', 'runPolicy'):
    assert want in msgs, (want, msgs)
PY"
expect 'the TrainJob status samples validate against the CRD schema and trainjob_validate' \
	"validate '$JAXJOB_TOP'/tests/status-samples/trainjob-*.yaml >/dev/null &&
	 (cd '$JAXJOB_TOP' && '$JAXJOB_BUILD/tests/test_trainjob') 2>&1 | grep -q 'OK.*status_samples_validate'"
