#!/usr/bin/env bash
# 71-render-trainjob.sh - `jaxjob render` with `api: trainjob`: the
# examples/gitops-trainjob application renders byte for byte
# tests/render/expected/gitops-trainjob.yaml (TrainJobs, hashed names, stamps,
# the no-op runtime patch dropped), the parameters a TrainJob cannot express
# are refused with the reason (also when inherited from defaults), the hash
# ignores spec.suspend, the hash-suffix name budget follows the JobSet pod
# name, and every rendered TrainJob validates against the upstream CRD
# (the CRD from its Go module, make test-deps; a SKIP naming it where not made).
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"

W=$T/render
rm -rf "$W"
mkdir -p "$W/repo/examples"
cp -R "$JAXJOB_TOP/examples/gitops-trainjob" "$W/repo/examples/"
APP=$W/repo/examples/gitops-trainjob
TJ_ENV=(ARGOCD_APP_NAME=trainer-jobs ARGOCD_APP_NAMESPACE=training
	ARGOCD_APP_SOURCE_PATH=examples/gitops-trainjob ARGOCD_APP_REVISION=$FIXED_REV)
py() { python3 -c 'import sys, yaml; docs = list(yaml.safe_load_all(open(sys.argv[1]))); d = {x["metadata"]["labels"]["jaxjob.dev/job"]: x for x in docs}; sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$@"; }

cmp_render "$APP" "${TJ_ENV[@]}" --
cp "$T/out" "$W/base.yaml"
[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$EXPECTED/gitops-trainjob.yaml"
report 'examples/gitops-trainjob renders exactly tests/render/expected/gitops-trainjob.yaml' $?

py "$W/base.yaml" "len(docs) == 4 and all(x['kind'] == 'TrainJob' and x['apiVersion'] == 'trainer.kubeflow.org/v1alpha1' for x in docs)
 and d['mnist']['metadata']['name'] == 'mnist-' + d['mnist']['metadata']['annotations']['jaxjob.dev/spec-hash'][:8]
 and d['sweep-lr-4']['metadata']['name'] == 'sweep-lr-4' and d['mnist-eval']['metadata']['name'].startswith('mnist-eval-')
 and all(x['metadata']['namespace'] == 'training' for x in docs)"
report 'four TrainJobs (concise and plain), hashed names unless nameSuffix: none, the app namespace' $?

py "$W/base.yaml" "(t := d['mnist']['spec'])['trainer']['numNodes'] == 4 and t['runtimeRef']['name'] == 'jax-distributed'
 and t['trainer']['env'] == [{'name': 'JAX_PLATFORMS', 'value': 'cuda'}] and t['activeDeadlineSeconds'] == 86400
 and (p := t['runtimePatches'][0])['manager'] == 'jaxjob.dev/params'
 and p['trainingRuntimeSpec']['template']['spec']['replicatedJobs'][0]['template']['spec']['template']['spec']['containers'] == [{'name': 'node', 'volumeMounts': [{'name': 'shm', 'mountPath': '/dev/shm'}]}]
 and d['sweep-lr-3']['spec']['runtimeRef'] == {'apiGroup': 'trainer.kubeflow.org', 'kind': 'TrainingRuntime', 'name': 'jax-cpu-small'}
 and 'runtimePatches' not in d['mnist-eval']['spec']"
report 'defaults (api, image, env, labels) and job files map onto the TrainJob fields' $?

# --- parameters a TrainJob cannot express -------------------------------------------------
cp -R "$APP" "$W/bad"
printf 'restart-policy: OnFailure\n' >>"$W/bad/jaxjob-defaults.yaml"
cmp_render "$W/bad" "${TJ_ENV[@]}" --
one_error && grep -q 'job mnist: restart-policy is not supported for a TrainJob: .*remove it, or use api jaxjob$' "$T/err"
report 'an inherited restart-policy is refused for a TrainJob job, with the reason' $?
cp "$APP/jaxjob-defaults.yaml" "$W/bad/jaxjob-defaults.yaml"
printf 'name: back\napi: jaxjob\nrestart-policy: OnFailure\ncommand: [python]\n' >"$W/bad/back.jaxjob.yaml"
cmp_render "$W/bad" "${TJ_ENV[@]}" --
[ "$rc" -eq 0 ] && [ "$(grep -c '^kind: JAXJob$' "$T/out")" -eq 1 ] && [ "$(grep -c '^kind: TrainJob$' "$T/out")" -eq 4 ] &&
	grep -q 'restartPolicy: OnFailure' "$T/out"
report 'a job file says api: jaxjob (where restart-policy is fine): one app, both kinds' $?
printf 'name: x\napi: tfjob\n' >"$W/bad/x.jaxjob.yaml"
cmp_render "$W/bad" "${TJ_ENV[@]}" --
one_error && grep -q 'x.jaxjob.yaml: job x: api: must be one of jaxjob, trainjob, got "tfjob"' "$T/err"
report 'an unknown api is an error naming the choices' $?
printf 'name: x\napi: [trainjob]\n' >"$W/bad/x.jaxjob.yaml"
cmp_render "$W/bad" "${TJ_ENV[@]}" --
one_error && grep -q 'api: must be one of jaxjob, trainjob, got a list' "$T/err"
report 'a non-string api is an error' $?
rm "$W/bad/x.jaxjob.yaml"
printf 'name: y\nruntime: jax-distributed\nimage: i\n' >"$W/bad/y.jaxjob.yaml"
printf 'api: jaxjob\n' >"$W/bad/y-defaults.yaml"
mkdir -p "$W/bad/v1" && mv "$W/bad/y.jaxjob.yaml" "$W/bad/v1/" && mv "$W/bad/y-defaults.yaml" "$W/bad/v1/jaxjob-defaults.yaml"
cmp_render "$W/bad" "${TJ_ENV[@]}" --
one_error && grep -q 'job y: runtime is not supported for a JAXJob: .*or use api trainjob$' "$T/err"
report 'a subdirectory switching back to api: jaxjob refuses TrainJob-only parameters' $?

# --- hashing and names ---------------------------------------------------------------
cp -R "$APP" "$W/susp"
printf 'suspend: true\n' >>"$W/susp/mnist.jaxjob.yaml"
cmp_render "$W/susp" "${TJ_ENV[@]}" --
m1=$(grep -m1 'name: mnist-' "$W/base.yaml") m2=$(grep -m1 'name: mnist-' "$T/out")
[ "$rc" -eq 0 ] && [ -n "$m1" ] && [ "$m1" = "$m2" ] && grep -q '^  suspend: true$' "$T/out"
report 'spec.suspend is not part of the hash: suspending acts on the running TrainJob' $?
cmp_render "$APP" "${TJ_ENV[@]}" 'ARGOCD_APP_PARAMETERS=[{"name":"mnist.workers","string":"8"}]' --
m3=$(grep -m1 'name: mnist-' "$T/out")
[ "$rc" -eq 0 ] && [ "$m3" != "$m1" ] && grep -q '^    numNodes: 8$' "$T/out"
report 'an Argo CD parameter (mnist.workers=8) sets numNodes and renames the job' $?
cp -R "$APP" "$W/long"
sed -i 's/^name: mnist$/name: mnist-with-a-rather-long-name-for-a-job-x/' "$W/long/mnist.jaxjob.yaml"
cmp_render "$W/long" "${TJ_ENV[@]}" --
one_error && grep -Eq 'name: .* is too long with its -[0-9a-f]{8} hash suffix for 4 workers \(JobSet pod mnist-with-a-rather-long-name-for-a-job-x-[0-9a-f]{8}-node-0-3-xxxxx must fit in 63 characters\); shorten `name` to at most 39 characters or set nameSuffix: none' "$T/err"
report 'the hash-suffix name budget follows the JobSet pod name (39 characters below 11 nodes)' $?
cmp_render "$APP" ARGOCD_APP_NAME=trainer-jobs -- --params
[ "$rc" -eq 0 ] && python3 -c '
import json, sys
names = {p["name"] for p in json.load(open(sys.argv[1]))}
assert {"mnist.workers", "sweep-lr-3.runtime", "sweep-lr-3.runtime-kind"} <= names, names
assert not any(n.endswith(".api") for n in names), "api is a render key, not a parameter"
' "$T/out"
report '--params announces the TrainJob jobs parameters (runtime included, api not)' $?

# --- the CRD ------------------------------------------------------------------------------
if [ -z "${JAXJOB_TESTDATA:-}" ]; then
	skip 'rendered TrainJobs validate against the TrainJob CRD schema' "needs the TrainJob CRD, $JAXJOB_DEPS_WHY"
	exit 0
fi
python3 "$JAXJOB_TOP/tests/tools/crd_validate.py" \
	"$JAXJOB_TESTDATA/crds/trainer.kubeflow.org_trainjobs.yaml" "$W/base.yaml" >"$T/v.out"
report 'every rendered TrainJob (4) validates against the upstream TrainJob CRD schema and CEL rules' $?
