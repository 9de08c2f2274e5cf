#!/usr/bin/env bash
# tests/suites/20-launch-dry-run.sh - `jaxjob launch --dry-run`: the JAXJob
# built from flags, and every kind of bad input rejected cleanly (exit 2,
# one `error:` line on stderr, nothing on stdout).
#
# Every manifest printed here is also kept in $JAXJOB_TMP/manifests/ so that
# 25-crd-schema.sh validates it against the upstream CRD schema.
. "$JAXJOB_TOP/tests/lib/tap.sh"
M=$JAXJOB_TMP/manifests
mkdir -p "$M"
base=(--dry-run --name mnist --image ghcr.io/x/jax:1)
# py FILE EXPR: evaluate a python expression over the YAML document `d`
py() { python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$@"; }
keep() { cp "$T/last.out" "$M/$1.yaml"; }
# run a command as expect_exit 0 / expect_fail_clean would, and keep its
# output in $T/last.out and $T/last.err for the checks that follow
ok_run() { expect_exit 0 "$@"; cp "$T/out" "$T/last.out"; cp "$T/err" "$T/last.err"; }
bad_run() { expect_fail_clean "$@"; cp "$T/out" "$T/last.out"; cp "$T/err" "$T/last.err"; }

# --- the issue's command -----------------------------------------------------
ok_run 'the issue command prints a JAXJob' \
	jj launch --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py
keep issue
expect 'it has 4 workers, one GPU each, the command, container jax, port 6666' \
	"py '$M/issue.yaml' \"d['kind'] == 'JAXJob' and d['apiVersion'] == 'kubeflow.org/v1'
 and d['metadata']['name'] == 'mnist'
 and (w := d['spec']['jaxReplicaSpecs']['Worker'])['replicas'] == 4 and w['restartPolicy'] == 'Never'
 and (c := w['template']['spec']['containers'][0])['name'] == 'jax'
 and c['command'] == ['python', 'train.py'] and c['image'] == 'ghcr.io/x/jax:1'
 and c['resources'] == {'limits': {'nvidia.com/gpu': 1}, 'requests': {'nvidia.com/gpu': 1}}
 and c['ports'] == [{'name': 'jaxjob-port', 'containerPort': 6666}]\""
expect 'unset optional blocks are left out (no runPolicy, no env, no pod metadata)' \
	"py '$M/issue.yaml' \"'runPolicy' not in d['spec'] and 'env' not in d['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0]
 and 'metadata' not in d['spec']['jaxReplicaSpecs']['Worker']['template']\""
expect 'the output is deterministic and independent of flag order' \
	"cmp <(jj launch --dry-run --gpus-per-worker 1 --workers 4 --image ghcr.io/x/jax:1 --name mnist -- python train.py) '$M/issue.yaml'"
expect 'keys are sorted' "grep -n '^[a-z]' '$M/issue.yaml' | cut -d: -f2 | tr '\n' ' ' | grep -qx 'apiVersion kind metadata spec '"
expect 'the default template is built in: works from another directory' \
	"cd / && cmp <('$JAXJOB' launch --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py) '$M/issue.yaml'"
expect '-o json prints the same object as JSON' \
	"jj launch -o json --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py >'$T/j.json' &&
	 python3 -c 'import json, yaml, sys; sys.exit(json.load(open(sys.argv[1])) != yaml.safe_load(open(sys.argv[2])))' '$T/j.json' '$M/issue.yaml'"

# --- every parameter ------------------------------------------------------------
ok_run 'every job parameter reaches the manifest' \
	jj launch "${base[@]}" --namespace team-a --label team=ml --annotation example.com/note=hi \
	--pod-annotation sidecar.istio.io/inject=false --workers 2 --restart-policy OnFailure \
	--image-pull-policy IfNotPresent --command python --command -m --arg train --arg --steps=10 \
	--env A=1 --env 'B=x=y' --coordinator-port 7777 --cpu 4 --memory 16Gi --gpus-per-worker 2 \
	--gpu-resource amd.com/gpu --resource example.com/fpga=1 --service-account trainer \
	--image-pull-secret regcred --node-selector pool=gpu --toleration gpu=true:NoSchedule \
	--toleration spot:NoExecute --volume data=pvc:datasets --volume shm=emptydir:Memory \
	--mount data:/data:ro --mount shm:/dev/shm --clean-pod-policy Running \
	--ttl-seconds-after-finished 600 --active-deadline-seconds 7200 --backoff-limit 3 --suspend \
	--queue research --min-available 2 --priority-class high --schedule-timeout-seconds 120
keep all-params
expect 'run policy, scheduling, pod and container fields are where the CRD wants them' \
	"py '$M/all-params.yaml' \"(rp := d['spec']['runPolicy']) == {'cleanPodPolicy': 'Running', 'ttlSecondsAfterFinished': 600,
  'activeDeadlineSeconds': 7200, 'backoffLimit': 3, 'suspend': True, 'schedulingPolicy': {'queue': 'research',
  'minAvailable': 2, 'priorityClass': 'high', 'scheduleTimeoutSeconds': 120}}
 and d['metadata'] == {'name': 'mnist', 'namespace': 'team-a', 'labels': {'team': 'ml'}, 'annotations': {'example.com/note': 'hi'}}
 and (w := d['spec']['jaxReplicaSpecs']['Worker'])['restartPolicy'] == 'OnFailure'
 and w['template']['metadata'] == {'labels': {'team': 'ml'}, 'annotations': {'sidecar.istio.io/inject': 'false'}}
 and (p := w['template']['spec'])['serviceAccountName'] == 'trainer' and p['imagePullSecrets'] == [{'name': 'regcred'}]
 and p['nodeSelector'] == {'pool': 'gpu'}
 and p['tolerations'] == [{'key': 'gpu', 'operator': 'Equal', 'value': 'true', 'effect': 'NoSchedule'}, {'key': 'spot', 'operator': 'Exists', 'effect': 'NoExecute'}]
 and p['volumes'] == [{'name': 'data', 'persistentVolumeClaim': {'claimName': 'datasets'}}, {'name': 'shm', 'emptyDir': {'medium': 'Memory'}}]
 and (c := p['containers'][0])['command'] == ['python', '-m'] and c['args'] == ['train', '--steps=10']
 and c['env'] == [{'name': 'A', 'value': '1'}, {'name': 'B', 'value': 'x=y'}] and c['imagePullPolicy'] == 'IfNotPresent'
 and c['ports'] == [{'name': 'jaxjob-port', 'containerPort': 7777}]
 and c['resources']['limits'] == c['resources']['requests'] == {'cpu': '4', 'memory': '16Gi', 'amd.com/gpu': 2, 'example.com/fpga': '1'}
 and c['volumeMounts'] == [{'name': 'data', 'mountPath': '/data', 'readOnly': True}, {'name': 'shm', 'mountPath': '/dev/shm'}]\""
# --- Kueue (--local-queue) vs Volcano (--queue) -----------------------------------------------
ok_run '--local-queue puts a JAXJob into a Kueue LocalQueue' \
	jj launch "${base[@]}" --label team=ml --local-queue team-a-q
keep local-queue
expect '  as the label kueue.x-k8s.io/queue-name on the job only, never on its pods; no schedulingPolicy' \
	"py '$M/local-queue.yaml' \"d['metadata']['labels'] == {'team': 'ml', 'kueue.x-k8s.io/queue-name': 'team-a-q'}
 and d['spec']['jaxReplicaSpecs']['Worker']['template']['metadata'] == {'labels': {'team': 'ml'}}
 and 'runPolicy' not in d['spec']\""
bad_run '--local-queue and a different queue-name label: refused' \
	jj launch "${base[@]}" --local-queue a --label kueue.x-k8s.io/queue-name=b
expect '  naming both and the fix' "grep -qx 'error: labels set kueue.x-k8s.io/queue-name=b and local-queue a; keep local-queue only' '$T/last.err'"
bad_run '--local-queue that is no LocalQueue name: refused' jj launch "${base[@]}" --local-queue Team_A
expect '  naming the field' "grep -q '^error: local-queue \"Team_A\" is not a valid name' '$T/last.err'"
expect '--help says --queue is Volcano'"'"'s and points to --local-queue' \
	"jj launch --help | tr -s ' \n' ' ' | grep -q -- '--queue NAME JAXJob: the Volcano queue .*for Kueue use local-queue (--local-queue)'"

ok_run 'KFP style: every value a string, lists and maps as JSON, empty = unset' \
	jj launch --dry-run --name=kfp --image=img:1 --workers=2 --command='["python","train.py"]' \
	--env='{"XLA_FLAGS":"--xla_force_host_platform_device_count=2"}' --label='{"team":"ml"}' \
	--cpu= --memory= --gpus-per-worker= --suspend=false --node-selector=
keep kfp
expect 'JSON list/map values and empty strings behave' \
	"py '$M/kfp.yaml' \"(c := d['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0])['command'] == ['python', 'train.py']
 and c['env'] == [{'name': 'XLA_FLAGS', 'value': '--xla_force_host_platform_device_count=2'}] and 'resources' not in c
 and d['spec']['runPolicy'] == {'suspend': False} and d['metadata']['labels'] == {'team': 'ml'}\""
ok_run '-n sets the namespace' jj launch "${base[@]}" -n team-b
expect 'namespace from -n' "py '$T/last.out' \"d['metadata']['namespace'] == 'team-b'\""

# --- user templates, --param and --patch ------------------------------------------
cat >"$T/user.yaml" <<'YAML'
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: ((name))
  labels:
    dataset: ((dataset))
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: ((workers))
      template:
        spec:
          containers:
          - name: jax
            image: ((image))
            args: ["--data=gs://bucket/((dataset))", "--steps=((steps))", ((extra?))]
            env: ((env?))
  runPolicy:
    backoffLimit: ((retries?))
YAML
ok_run 'a user template with its own placeholders (--param k=v, k:=JSON)' \
	jj launch --dry-run --template "$T/user.yaml" --name u --image img:1 --param dataset=mnist --param 'steps:=1000' --param 'retries:=2'
keep user-template
expect 'params are substituted typed, and interpolated as text' \
	"py '$M/user-template.yaml' \"d['metadata']['labels'] == {'dataset': 'mnist'}
 and d['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0]['args'] == ['--data=gs://bucket/mnist', '--steps=1000']
 and d['spec']['jaxReplicaSpecs']['Worker']['replicas'] == 1 and d['spec']['runPolicy'] == {'backoffLimit': 2}\""
bad_run 'a typed number where Kubernetes wants a string is caught (args item)' \
	jj launch --dry-run --template "$T/user.yaml" --name u --image img:1 --param dataset=m --param steps=1 --param 'extra:=7'
expect 'and says how to fix it' "grep -q 'args\[2\] must be a string, got a number; quote it' '$T/last.err'"
bad_run 'a --param the template does not use is an error' \
	jj launch --dry-run --template "$T/user.yaml" --name u --image img:1 --param dataset=m --param steps=1 --param stepz=2
bad_run 'a parameter the template ignores is an error (--cpu, no ((resources)))' \
	jj launch --dry-run --template "$T/user.yaml" --name u --image img:1 --param dataset=m --param steps=1 --cpu 2
expect 'and the message names the template and the placeholders' \
	"grep -q 'cpu is set, but .*user.yaml uses neither ((cpu)) nor ((resources))' '$T/last.err'"
bad_run 'a user template missing a --param value names it' \
	jj launch --dry-run --template "$T/user.yaml" --name u --image img:1 --param steps=1
expect 'the message names the placeholder and where it is' "grep -q 'user.yaml: metadata.labels.dataset: unknown placeholder ((dataset))' '$T/last.err'"
ok_run '--patch applies a JSON merge patch last' \
	jj launch "${base[@]}" --patch '{"spec":{"runPolicy":{"backoffLimit":2}},"metadata":{"annotations":{"a":"b"}}}'
keep patch-inline
expect 'patched fields are there' "py '$M/patch-inline.yaml' \"d['spec']['runPolicy'] == {'backoffLimit': 2} and d['metadata']['annotations'] == {'a': 'b'}\""
printf 'spec:\n  jaxReplicaSpecs:\n    Worker:\n      template:\n        spec:\n          hostNetwork: true\n' >"$T/patch.yaml"
ok_run '--patch @file.yaml reads YAML' jj launch "${base[@]}" --patch @"$T/patch.yaml"
keep patch-file
expect 'file patch merged into the pod spec' "py '$M/patch-file.yaml' \"d['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['hostNetwork'] is True\""
bad_run '--patch that breaks the job is caught by validation' \
	jj launch "${base[@]}" --patch '{"spec":{"jaxReplicaSpecs":{"Worker":{"replicas":0}}}}'
expect 'its message names the path' "grep -qx 'error: invalid JAXJob after --patch: spec.jaxReplicaSpecs.Worker.replicas must be at least 1, got 0' '$T/last.err'"
bad_run '--patch that is not JSON/YAML' jj launch "${base[@]}" --patch '{"spec":'
bad_run '--patch that is not a mapping' jj launch "${base[@]}" --patch '[1]'

# --- bad input of issue #2 ----------------------------------------------------------
printf 'apiVersion: kubeflow.org/v1\nkind: [JAXJob\n' >"$T/malformed.yaml"
bad_run 'malformed YAML template' jj launch "${base[@]}" --template "$T/malformed.yaml"
expect 'the error names the file' "grep -q 'malformed.yaml' '$T/last.err'"
printf -- '- a\n- b\n' >"$T/list.yaml"
bad_run 'a template that is not a mapping' jj launch "${base[@]}" --template "$T/list.yaml"
expect 'says it must be a mapping' "grep -q 'must be a YAML mapping' '$T/last.err'"
sed 's/((image))/((imgae))/' "$T/user.yaml" >"$T/typo.yaml"
bad_run 'a placeholder typo' jj launch "${base[@]}" --template "$T/typo.yaml" --param dataset=m --param steps=1
expect 'names the placeholder, the file and the near parameter' \
	"grep -q 'typo.yaml: spec.jaxReplicaSpecs.Worker.template.spec.containers\[0\].image: unknown placeholder ((imgae)); did you mean ((image))?' '$T/last.err'"
bad_run 'workers=0' jj launch "${base[@]}" --workers 0
expect 'workers message' "grep -qx 'error: workers must be at least 1, got 0' '$T/last.err'"
bad_run '--workers=0 (= form)' jj launch "${base[@]}" --workers=0
bad_run 'an uppercase name' jj launch --dry-run --name MNIST --image img:1
bad_run 'a 60-character name' jj launch --dry-run --name "$(printf 'a%.0s' $(seq 60))" --image img:1
expect 'says how long a name may be' "grep -q 'use at most 54 characters' '$T/last.err'"
bad_run '--env without =' jj launch "${base[@]}" --env FOO
bad_run 'a quantity like 4 GB' jj launch "${base[@]}" --memory '4 GB'
expect 'suggests 4G or 4Gi' "grep -qx 'error: memory \"4 GB\" is not a Kubernetes quantity; write 4G or 4Gi' '$T/last.err'"
inj=$'x\nkind: Secret'
bad_run 'YAML injection in the name is rejected' jj launch --dry-run --name "$inj" --image img:1
bad_run 'YAML injection in a label value is rejected' jj launch "${base[@]}" --label "a=$inj"
bad_run 'YAML injection in the image is rejected' jj launch --dry-run --name a --image "$inj"
ok_run 'YAML injection in an env value stays a plain string' jj launch "${base[@]}" --env "A=$inj"
keep injection-env
expect 'no key was added, the value is intact' \
	"py '$M/injection-env.yaml' \"sorted(d) == ['apiVersion', 'kind', 'metadata', 'spec'] and d['kind'] == 'JAXJob'
 and d['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0]['env'] == [{'name': 'A', 'value': 'x\\\\nkind: Secret'}]\""
ok_run 'YAML injection through --param stays a plain string' \
	jj launch --dry-run --template "$T/user.yaml" --name u --image img:1 --param "dataset=$inj" --param steps=1 --patch '{"metadata":{"labels":null}}'
expect 'the injected text is one args string' \
	"py '$T/last.out' \"d['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0]['args'][0] == '--data=gs://bucket/x\\\\nkind: Secret' and sorted(d) == ['apiVersion', 'kind', 'metadata', 'spec']\""
head -c $((50 * 1024 * 1024)) /dev/zero | tr '\0' '#' >"$T/big.yaml"
bad_run 'a 50 MB template' jj launch "${base[@]}" --template "$T/big.yaml"
rm -f "$T/big.yaml"
python3 -c 'print("a: " * 0 + "".join("  " * i + "a:\n" for i in range(200)) + "  " * 200 + "x")' >"$T/deep.yaml"
bad_run 'a deeply nested template (mappings)' jj launch "${base[@]}" --template "$T/deep.yaml"
python3 -c 'print("a: " + "[" * 100000 + "]" * 100000)' >"$T/deep-flow.yaml"
bad_run 'a deeply nested template (flow sequences)' jj launch "${base[@]}" --template "$T/deep-flow.yaml"
bad_run 'a deeply nested --patch' jj launch "${base[@]}" --patch "$(python3 -c 'print("{\"a\":" * 20000 + "1" + "}" * 20000)')"
printf 'apiVersion: kubeflow.org/v1\nkind: JAXJob\x00\nmetadata: {name: ((name))}\n' >"$T/nul.yaml"
bad_run 'NUL bytes in a template' jj launch "${base[@]}" --template "$T/nul.yaml"

# --- more bad flags -------------------------------------------------------------------
bad_run 'an unknown option' jj launch "${base[@]}" --wrokers 4
bad_run 'an option without its value' jj launch "${base[@]}" --workers
bad_run 'a bad enum names the choices' jj launch "${base[@]}" --restart-policy never
expect 'suggests the right case' "grep -q 'did you mean Never?' '$T/last.err'"
bad_run 'a bad duration' jj launch "${base[@]}" --timeout '2 hours'
bad_run 'a bad run enum' jj launch "${base[@]}" --logs some
bad_run 'a worker set that is not one' jj launch "${base[@]}" --log-workers 3-1
expect '... names the flag and the form it takes' "grep -q -- '--log-workers \"3-1\" is not a set of workers: give replica indices and ranges, comma separated, e.g. 0-7,255' '$T/last.err'"
bad_run 'a worker set with --logs first' jj launch "${base[@]}" --logs first --log-workers 1
bad_run 'a bad output format' jj launch "${base[@]}" -o xml
bad_run 'a stray argument (command without --)' jj launch "${base[@]}" python train.py
bad_run 'nothing after --' jj launch "${base[@]}" --
bad_run 'the command twice' jj launch "${base[@]}" --command python -- python
bad_run 'a missing image' jj launch --dry-run --name a
bad_run 'a template file that does not exist' jj launch "${base[@]}" --template "$T/nope.yaml"
bad_run 'a mount naming no volume' jj launch "${base[@]}" --mount data:/data
bad_run 'a bad toleration effect' jj launch "${base[@]}" --toleration gpu=true:NoScheduel
bad_run 'a fractional extended resource' jj launch "${base[@]}" --resource example.com/fpga=0.5
bad_run 'a built-in name through --param' jj launch "${base[@]}" --param image=x
bad_run '--api auto needs a cluster, so not with --dry-run' jj launch "${base[@]}" --api auto

# --- help -------------------------------------------------------------------------------
ok_run 'launch --help' jj launch --help
cp "$T/last.out" "$T/help.txt"
expect 'help lists every option, and component/README.md documents each' \
	"opts=\$(grep -o -- '^  --[a-z-]*' '$T/help.txt' | tr -d ' ' | sort -u) && [ \$(echo \"\$opts\" | wc -l) -ge 60 ] &&
	 for o in \$opts; do grep -q -- \"\\\`\$o\" '$JAXJOB_TOP/component/README.md' || { echo \"undocumented \$o\"; exit 1; }; done"
expect 'jaxjob help launch prints the same help' "jj help launch | cmp - '$T/help.txt'"
expect 'jaxjob --version names the version and the commit it was built from' \
	"jj --version | grep -Eqx \"jaxjob \$(sed -n 's/^#define JAXJOB_VERSION \"\\(.*\\)\"/\\1/p' '$JAXJOB_TOP/lib/version.h') \\(commit (\$(git -C '$JAXJOB_TOP' rev-parse --short=12 HEAD 2>/dev/null || echo unknown)(-dirty)?)\\)\""
