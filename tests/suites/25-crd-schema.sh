#!/usr/bin/env bash
# tests/suites/25-crd-schema.sh - the JAXJobs we produce are what the cluster
# accepts: every manifest of the launch tests and every example validates
# against the upstream CRD's openAPIV3Schema (tests/tools/crd_validate.py)
# and against jaxjob_validate() (tests/unit/test_jaxjob.c, which also
# round-trips each through YAML and JSON); the upstream examples pass both.
# The examples/launch/*.sh scripts still render their committed manifests.
. "$JAXJOB_TOP/tests/lib/tap.sh"
# run-all: after 20-launch-dry-run
top=$JAXJOB_TOP
M=$T/manifests
mkdir -p "$M"
# The CRD and the upstream examples come from the training operator's Go module
# (`make test-deps`); until fetched the schema checks skip, saying so, and
# jaxjob_validate and the examples still run.
if [ -n "${JAXJOB_TESTDATA:-}" ]; then
crd=$JAXJOB_TESTDATA/crds/kubeflow.org_jaxjobs.yaml
validate() { python3 "$top/tests/tools/crd_validate.py" "$crd" "$@"; }

# the validator itself must reject what the API server rejects
cat >"$T/bad.yaml" <<'YAML'
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: bad}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: "2"
      template:
        spec:
          containers:
          - image: x
            resources: {limits: {memory: 4 GB}}
            args: [--steps, 100]
  successPolicy: {}
YAML
expect 'the schema check rejects a wrong type, a bad quantity, a missing name, an unknown field' \
	"! validate '$T/bad.yaml' >'$T/v.out'; grep -q 'replicas' '$T/v.out'"
expect 'the schema check reports each of them' \
	"validate '$T/bad.yaml' | grep -q FAIL && python3 - '$crd' '$T/bad.yaml' <<'PY'
import sys, yaml, jsonschema
sys.path.insert(0, '$top/tests/tools')
import crd_validate
kind, versions = crd_validate.load_crd(sys.argv[1])
doc = yaml.safe_load(open(sys.argv[2]))
msgs = ' '.join(e.message for e in versions['kubeflow.org/v1'].iter_errors(doc))
for want in ('is not of type', 'does not match', \"'name' is a required property\", 'successPolicy'):
    assert want in msgs, (want, msgs)
PY"
else
	skip 'the schema check rejects what the API server rejects' "needs the JAXJob CRD, $JAXJOB_DEPS_WHY"
fi

# manifests: those 20-launch-dry-run.sh kept, plus our own runs
run() { local out=$1; shift; "$JAXJOB" launch --dry-run "$@" >"$M/$out.yaml" 2>"$T/err" || { cat "$T/err" >&2; return 1; }; }
expect 'launch renders the issue command, all parameters, JSON output, a user template' "
	run issue25 --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py &&
	run json25 -o json --name j --image i:1 --env A=1 --cpu 500m --memory 1Gi &&
	run full25 --name full --image i:1 -n ns --label a=b --annotation c=d --pod-annotation e=f --workers 3 \
	  --restart-policy ExitCode --image-pull-policy Never --command sh --arg -c --arg 'echo hi' --env X=1 \
	  --coordinator-port 6000 --cpu 1 --memory 1G --gpus-per-worker 1 --resource example.com/fpga=2 \
	  --service-account sa --image-pull-secret s --node-selector k=v --toleration k=v:NoExecute --toleration k2 \
	  --volume v=configmap:cm --volume w=secret:sec --volume h=hostpath:/h --volume t=emptydir \
	  --mount v:/v --mount w:/w:ro --mount h:/h --mount t:/t --clean-pod-policy All \
	  --ttl-seconds-after-finished 0 --active-deadline-seconds 1 --backoff-limit 0 --suspend=false \
	  --queue q --min-available 1 --priority-class p --schedule-timeout-seconds 0 &&
	run user25 --template '$top/examples/launch/templates/checkpointed.yaml' --name c --image i:1 \
	  --param bucket=b --param steps:=5"
mapfile -t manifests < <(ls "$M"/*.yaml "$JAXJOB_TMP"/manifests/*.yaml 2>/dev/null; ls "$top"/examples/launch/*.yaml)
expect "all ${#manifests[@]} produced manifests and examples pass jaxjob_validate, and round-trip through YAML and JSON" \
	'list=$(IFS=:; echo "${manifests[*]}") && JAXJOB_VALIDATE_FILES=$list "$JAXJOB_BUILD/tests/test_jaxjob"'
if [ -n "${JAXJOB_TESTDATA:-}" ]; then
expect "and validate against the CRD schema" \
	'validate "${manifests[@]}"'
expect 'upstream examples validate against the CRD schema' \
	"validate \$(find '$JAXJOB_TESTDATA/upstream-examples' -name '*.yaml')"
expect 'upstream examples pass jaxjob_validate and round-trip through yj' \
	"CMOCKA_MESSAGE_OUTPUT=TAP '$JAXJOB_BUILD/tests/test_jaxjob' >'$T/u.out' 2>&1 &&
	 grep -Eq '^ok [0-9]+ - upstream_examples_validate_and_round_trip$' '$T/u.out'"
else
	skip 'produced manifests and examples validate against the CRD schema' "needs the JAXJob CRD, $JAXJOB_DEPS_WHY"
	skip 'upstream examples validate and round-trip' "needs the upstream examples, $JAXJOB_DEPS_WHY"
fi

# examples/launch: each script renders exactly its committed manifest
for sh in "$top"/examples/launch/*.sh; do
	name=$(basename "$sh" .sh)
	expect "examples/launch/$name.sh renders examples/launch/$name.yaml" \
		"JAXJOB='$JAXJOB' '$sh' --dry-run | cmp - '$top/examples/launch/$name.yaml'"
done
