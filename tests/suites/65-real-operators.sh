#!/usr/bin/env bash
# The REAL Kubeflow training operator and Kueue, built from the Go module proxy (stack/build.sh)
# and run by stack/up.sh (parts controlplane, operator, kueue: no kubelet, so pods stay
# Pending and nothing here needs one) on a current kube-apiserver: a JAXJob gets its pods and
# headless Services with the operator's env, the same as the project's doubles make them
# (tests/kube-apiserver/simscript.py worker_pod/worker_service, used by tests/realserver/
# operator.py); the operator's webhook rejects an invalid JAXJob with its message; Kueue
# suspends a queued JAXJob, admits it when quota frees, names and conditions its Workload as
# tests/kueue/simkueue.py does; the visibility API answers positions through the aggregation
# layer (APIService -> selector-less Service -> EndpointSlice at the host's address).
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/stack/lib.sh"
# make check-real (JAXJOB_REAL=1) builds the stack first, so a missing piece is a failure there;
# make check leaves the real stack to it (one SKIP line naming the commands)
if [ -z "${JAXJOB_REAL:-}" ]; then
	skip "the real training operator and Kueue" "runs on the real stack in make check-real (make stack builds it, cached)"
	exit 0
fi
for b in "$STACK_ETCD_DIR/bin/etcd" "$STACK_KUBE_DIR/bin/kube-apiserver" "$STACK_TO_DIR/bin/training-operator" \
	"$STACK_KUEUE_DIR/bin/kueue" "$STACK_CRDS_DIR/kueue"; do
	if [ ! -e "$b" ]; then
		not_ok "the real training operator and Kueue: the real stack is built"
		echo "missing $b: run make stack" >&2
		exit 1
	fi
done
PY=/usr/bin/python3
S=$T/stack
# Trainer v2 + JobSet (stack/parts/trainer.sh) where they are built
PARTS="controlplane operator kueue"
[ -x "$STACK_TRAINER_DIR/bin/trainer-controller-manager" ] && [ -x "$STACK_JOBSET_DIR/bin/jobset" ] &&
	PARTS="controlplane operator trainer kueue"
trap 'STACK_GRACE=5 "$JAXJOB_TOP/stack/down.sh" "$S" >/dev/null 2>&1; [ -n "${REAL_KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 143' TERM INT HUP	# run-all's cleanup: still bring the stack down
t0=$SECONDS
# (run-all counts this suite's control plane: the slot is the runner's, as in kcp.sh)
if ! STACK_CP_SLOT=held STACK_PARTS=$PARTS "$JAXJOB_TOP/stack/up.sh" "$S" >"$T/up.out" 2>"$T/up.err"; then
	not_ok "the real stack ($PARTS) comes up"
	tail -n 30 "$T/up.err" >&2
	for f in "$S"/logs/training-operator.log "$S"/logs/kueue.log "$S"/logs/jobset.log "$S"/logs/trainer.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; } >&2; done
	exit 1
fi
. "$S/env"
# its tokens and keys (and the webhook keys of the cache) for 99-secrets
. "$JAXJOB_TOP/tests/realserver/kcp.sh"
KCP_DIR=$S kcp_register_secrets
for f in "$JAXJOB_CACHE"/webhook-certs-v1/*.key; do grep -v -- ----- "$f" | awk 'length($0) >= 40'; done |
	"$JAXJOB_TOP/tests/lib/append-locked" "${JAXJOB_TMP:-$T}/secrets.list"
echo "# stack up in $((SECONDS - t0)) s ($(sed -n 's/^up.sh: part \(.*\) up in \(.*\) s$/\1 \2 s/p' "$T/up.err" | paste -sd, -))"
K() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }
NS=team-a
K create namespace $NS >/dev/null

# jaxjob NAME WORKERS [QUEUE] [CONTAINER]: a JAXJob, cpu 1 per worker
jaxjob() {
	local labels=''
	[ -n "${3:-}" ] && labels='"labels": {"kueue.x-k8s.io/queue-name": "'"$3"'"},'
	K create -f - <<JSON
{"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "$1", "namespace": "$NS", $labels "annotations": {}},
 "spec": {"jaxReplicaSpecs": {"Worker": {"replicas": $2, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [
   {"name": "${4:-jax}", "image": "x/jax:1", "command": ["python3", "-c", "print(1)"],
    "resources": {"requests": {"cpu": "1"}}}]}}}}}}
JSON
}
count() { K -n $NS get "$1" -l "training.kubeflow.org/job-name=$2" -o name 2>/dev/null | grep -c .; }
suspended() { K -n $NS get jaxjob "$1" -o jsonpath='{.spec.runPolicy.suspend}'; }
# workload JOB: the name of the Workload the JAXJob owns
workload() {
	K -n $NS get workloads.kueue.x-k8s.io -o json | $PY -c '
import json, sys
for w in json.load(sys.stdin)["items"]:
    if any(o["kind"] == "JAXJob" and o["name"] == sys.argv[1] for o in w["metadata"].get("ownerReferences", [])):
        print(w["metadata"]["name"])' "$1"
}
wl_cond() { # JOB TYPE: the condition's status
	K -n $NS get workloads.kueue.x-k8s.io "$(workload "$1")" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].status}" 2>/dev/null
}
# Predicates for wait_until: each call asks again (wait_until test "$(...)" would ask once, then
# wait out its ceiling on that one answer, as 65-real.lib's pods_gone says)
count_is() { test "$(count "$1" "$2")" = "$3"; }	# KIND JOB N
wl_cond_is() { test "$(wl_cond "$1" "$2")" = "$3"; }	# JOB TYPE STATUS
suspended_is() { test "$(suspended "$1")" = "$2"; }	# JOB true|false

# ---- the operator: pods and Services, compared field by field with the doubles' -----------------
jaxjob ev 2 >/dev/null
wait_until -t 60 count_is pods ev 2
wait_until -t 30 count_is services ev 2
K -n $NS get jaxjob ev -o json >"$T/ev.json"
K -n $NS get pods -l training.kubeflow.org/job-name=ev -o json >"$T/ev-pods.json"
K -n $NS get services -l training.kubeflow.org/job-name=ev -o json >"$T/ev-svcs.json"
expect "the real operator ($TRAINING_OPERATOR_VERSION): a JAXJob of 2 gets pods ev-worker-0/1 and headless Services" '
	test "$(K -n $NS get pods -l training.kubeflow.org/job-name=ev -o jsonpath="{.items[*].metadata.name}")" = "ev-worker-0 ev-worker-1" &&
	test "$(K -n $NS get services -l training.kubeflow.org/job-name=ev -o jsonpath="{.items[*].spec.clusterIP}")" = "None None"'
# compare WHAT: the real objects against what simscript.worker_pod / worker_service make of the job
compare() {
	$PY - "$JAXJOB_TOP/tests/kube-apiserver" "$T/ev.json" "$T/ev-pods.json" "$T/ev-svcs.json" "$1" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from simscript import worker_pod, worker_service
job = json.load(open(sys.argv[2]))
pods = {p["metadata"]["name"]: p for p in json.load(open(sys.argv[3]))["items"]}
svcs = {s["metadata"]["name"]: s for s in json.load(open(sys.argv[4]))["items"]}
what = sys.argv[5]
spec = job["spec"]["jaxReplicaSpecs"]["Worker"]
bad = []
for i in range(2):
    name = f"ev-worker-{i}"
    real, sim = pods[name], worker_pod(job, i, 2, spec.get("restartPolicy"), spec["template"])
    if what == "env":
        env = lambda p: {e["name"]: e.get("value") for e in p["spec"]["containers"][0].get("env", [])}
        if env(real) != env(sim):
            bad.append(f"{name} env: real {env(real)} double {env(sim)}")
    elif what == "labels":
        if real["metadata"]["labels"] != sim["metadata"]["labels"]:
            bad.append(f"{name} labels: real {real['metadata']['labels']} double {sim['metadata']['labels']}")
    elif what == "ports":
        # (the apiserver defaults protocol: TCP on what either one sends)
        ports = lambda p: [dict({"protocol": "TCP"}, **x) for x in p["spec"]["containers"][0].get("ports") or []]
        if ports(real) != ports(sim):
            bad.append(f"{name} ports: real {ports(real)} double {ports(sim)}")
    elif what == "restartPolicy":
        if real["spec"]["restartPolicy"] != sim["spec"]["restartPolicy"]:
            bad.append(f"{name} restartPolicy: real {real['spec']['restartPolicy']} double {sim['spec']['restartPolicy']}")
    elif what == "owner":
        o = lambda p: [{k: r[k] for k in ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")}
                       for r in p["metadata"]["ownerReferences"]]
        if o(real) != o(sim):
            bad.append(f"{name} ownerReferences: real {o(real)} double {o(sim)}")
    elif what == "service":
        r, s = svcs[name], worker_service(job, i, spec["template"])
        rs = (r["metadata"]["labels"], r["spec"]["selector"], r["spec"]["clusterIP"],
              [(p.get("name"), p["port"]) for p in r["spec"]["ports"]])
        ss = (s["metadata"]["labels"], s["spec"]["selector"], s["spec"]["clusterIP"],
              [(p.get("name"), p["port"]) for p in s["spec"]["ports"]])
        if rs != ss:
            bad.append(f"{name} service: real {rs} double {ss}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}
expect "... its env: PYTHONUNBUFFERED, COORDINATOR_ADDRESS=ev-worker-0, COORDINATOR_PORT=6666, NUM_PROCESSES=2, PROCESS_ID" '
	K -n $NS get pod ev-worker-1 -o jsonpath="{range .spec.containers[0].env[*]}{.name}={.value} {end}" |
		grep -qx "PYTHONUNBUFFERED=1 COORDINATOR_PORT=6666 COORDINATOR_ADDRESS=ev-worker-0 NUM_PROCESSES=2 PROCESS_ID=1 "'
for w in env labels ports restartPolicy owner service; do
	expect "... the doubles make the same $w (simscript.worker_pod/worker_service)" "compare $w"
done

# ---- the operator's validating webhook, called by URL --------------------------------------------
expect "the real webhook rejects a JAXJob without a \"jax\" container, with its message" '
	! jaxjob bad 1 "" pytorch >/dev/null 2>$T/bad.err &&
	grep -q "admission webhook \"validator.jaxjob.training-operator.kubeflow.org\" denied the request: spec.jaxReplicaSpecs\[Worker\].template.spec.containers: Required value: must have at least one container with name jax" $T/bad.err &&
	! K -n $NS get jaxjob bad >/dev/null 2>&1'

# ---- Kueue: quota 1 cpu; qa admitted, qb and qc queued behind it ----------------------------------
K apply -f - >/dev/null <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}},
 {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
  "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
    {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}]}},
 {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "$NS"},
  "spec": {"clusterQueue": "cq"}}]}
JSON
cq_active() { test "$(K get clusterqueues.kueue.x-k8s.io cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}')" = True; }
wait_until -t 60 cq_active
jaxjob qa 1 q >/dev/null
wait_until -t 60 wl_cond_is qa Admitted True
wait_until -t 60 count_is pods qa 1
jaxjob qb 1 q >/dev/null
# Kueue orders a queue by the Workloads' creationTimestamp, whole seconds: qb and qc made in one
# second tie, and a loaded machine showed qc first. qc is made once the clock is past the second
# of qb's Workload.
wait_until -t 60 eval 'test -n "$(workload qb)"'
qb_t=$(K -n $NS get workloads.kueue.x-k8s.io "$(workload qb)" -o jsonpath='{.metadata.creationTimestamp}')
qb_s=$(date -u -d "$qb_t" +%s)
wait_until -t 10 eval 'test "$(date -u +%s)" -gt "$qb_s"'
jaxjob qc 1 q >/dev/null
wait_until -t 60 wl_cond_is qc QuotaReserved False
expect "real Kueue ($KUEUE_VERSION): the first queued JAXJob is admitted (Workload Admitted, not suspended, its pod made)" '
	test "$(suspended qa)" = false && test "$(count pods qa)" = 1'
expect "... the next two stay suspended by Kueue's webhook, no pods, QuotaReserved=False" '
	test "$(suspended qb)" = true && test "$(suspended qc)" = true &&
	test "$(count pods qb)" = 0 && test "$(count pods qc)" = 0 && test "$(wl_cond qb QuotaReserved)" = False'
K -n $NS get workloads.kueue.x-k8s.io "$(workload qb)" -o json >"$T/qb-wl.json"
K -n $NS get jaxjob qb -o json >"$T/qb.json"
echo "# Kueue's pending condition: $($PY -c 'import json,sys; c=[c for c in json.load(open(sys.argv[1]))["status"]["conditions"] if c["type"]=="QuotaReserved"][0]; print(c["reason"], "|", c["message"])' "$T/qb-wl.json")"
expect "... its Workload as simkueue names it: jaxjob-qb-<5 hex of SHA-1(kind, group, name, uid)>, job-uid label, controller owner" '
	$PY - "$T/qb-wl.json" "$T/qb.json" <<'"'"'PY'"'"'
import hashlib, json, sys
w, j = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
uid = j["metadata"]["uid"]
h = hashlib.sha1("\n".join(["JAXJob", "kubeflow.org", "qb", uid]).encode()).hexdigest()[:5]
assert w["metadata"]["name"] == f"jaxjob-qb-{h}", (w["metadata"]["name"], h)
assert w["metadata"]["labels"]["kueue.x-k8s.io/job-uid"] == uid, w["metadata"]["labels"]
o = w["metadata"]["ownerReferences"][0]
assert o["kind"] == "JAXJob" and o["name"] == "qb" and o["controller"] is True, o
PY'

# ---- the visibility API through the aggregation layer ---------------------------------------------
V=/apis/visibility.kueue.x-k8s.io
positions() { # PATH: "name:positionInClusterQueue:positionInLocalQueue ..."
	K get --raw "$1" | $PY -c 'import json,sys; print(" ".join("%s:%s:%s" % (i["metadata"]["name"], i["positionInClusterQueue"], i["positionInLocalQueue"]) for i in json.load(sys.stdin)["items"]))'
}
wb=$(workload qb) wc=$(workload qc)
expect "visibility v1beta1 through the apiserver: clusterqueues/cq/pendingworkloads lists qb then qc, 0-based positions" '
	test "$(positions $V/v1beta1/clusterqueues/cq/pendingworkloads)" = "$wb:0:0 $wc:1:1"'
expect "... v1beta2 localqueues/q/pendingworkloads the same; kind PendingWorkloadsSummary" '
	test "$(positions $V/v1beta2/namespaces/$NS/localqueues/q/pendingworkloads)" = "$wb:0:0 $wc:1:1" &&
	K get --raw $V/v1beta2/namespaces/$NS/localqueues/q/pendingworkloads | grep -q "\"kind\":\"PendingWorkloadsSummary\""'
nf=$($PY -c 'import sys; sys.path.insert(0, sys.argv[1]); from visibility import not_found_message as m; print(m("nosuch"))' \
	"$JAXJOB_TOP/tests/kube-apiserver")
expect "... an unknown LocalQueue: NotFound with the message the double (visibility.py) answers: $nf" '
	! K get --raw $V/v1beta2/namespaces/$NS/localqueues/nosuch/pendingworkloads >/dev/null 2>$T/vnf.err &&
	grep -qxF "Error from server (NotFound): $nf" $T/vnf.err'

# ---- a request over the ClusterQueue's whole quota: Kueue v0.17 says Pending, "> maximum capacity"
jaxjob qx 2 q >/dev/null
wait_until -t 60 wl_cond_is qx QuotaReserved False
expect "a JAXJob of 2 cpu on a quota of 1: Pending (not ExceedsMaxQuota before v0.19), \"> maximum capacity\" as the launcher reads it" '
	test "$(K -n $NS get workloads.kueue.x-k8s.io "$(workload qx)" -o jsonpath="{.status.conditions[?(@.type==\"QuotaReserved\")].reason}|{.status.conditions[?(@.type==\"QuotaReserved\")].message}")" = \
	"Pending|couldn'"'"'t assign flavors to pod set worker: insufficient quota for cpu in flavor default-flavor, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1)"'
K -n $NS delete jaxjob qx --wait=false >/dev/null

# ---- quota frees: qb admitted, qc moves up --------------------------------------------------------
K -n $NS delete jaxjob qa --wait=false >/dev/null
wait_until -t 90 suspended_is qb false
wait_until -t 60 count_is pods qb 1
expect "qa deleted: qb is admitted (not suspended, its pod made), qc still suspended" '
	test "$(wl_cond qb Admitted)" = True && test "$(suspended qc)" = true'
first_only() { test "$(positions $V/v1beta1/clusterqueues/cq/pendingworkloads)" = "$wc:0:0"; }
expect "... and qc is first (and alone: qx deleted) in the queue now" 'wait_until -t 60 first_only'
# ---- Trainer v2 + JobSet: a TrainJob on the jax-distributed runtime ------------------------------
if [ "${PARTS#*trainer}" = "$PARTS" ]; then
	skip "the real Trainer v2 and JobSet" "not built ($STACK_TRAINER_DIR, $STACK_JOBSET_DIR): run make stack"
else
	K create -f - >/dev/null <<JSON
{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "tj", "namespace": "$NS"},
 "spec": {"runtimeRef": {"name": "jax-distributed"}, "trainer": {"numNodes": 2, "image": "x/jax:1",
   "command": ["python3", "-c", "print(1)"]}}}
JSON
	tjpods() { K -n $NS get pods -l jobset.sigs.k8s.io/jobset-name=tj -o name | grep -c .; }
	tjpods_are() { test "$(tjpods)" = "$1"; }
	wait_until -t 90 tjpods_are 2
	expect "real Trainer ($TRAINER_VERSION) + JobSet ($JOBSET_VERSION): TrainJob tj -> JobSet tj -> Job tj-node-0 (Indexed, 2) -> 2 pods, headless Service tj" '
		K -n $NS get jobset tj >/dev/null &&
		test "$(K -n $NS get job tj-node-0 -o jsonpath="{.spec.completionMode} {.spec.completions}")" = "Indexed 2" &&
		test "$(K -n $NS get service tj -o jsonpath="{.spec.clusterIP}")" = None'
	expect "... each pod: JAX_NUM_PROCESSES=2, JAX_PROCESS_ID from the completion index, JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:29500" '
		K -n $NS get pods -l jobset.sigs.k8s.io/jobset-name=tj -o jsonpath="{range .items[*]}{.spec.hostname}:{range .spec.containers[0].env[*]}{.name}={.value}{.valueFrom.fieldRef.fieldPath},{end};{end}" >$T/tj.env &&
		grep -qF "tj-node-0-0:JAX_NUM_PROCESSES=2,JAX_PROCESS_ID=metadata.annotations['"'"'batch.kubernetes.io/job-completion-index'"'"'],JAX_COORDINATOR_ADDRESS=tj-node-0-0.tj:29500," $T/tj.env &&
		grep -q "tj-node-0-1:" $T/tj.env'
	echo "# TrainJob pods: restartPolicy $(K -n $NS get pods -l jobset.sigs.k8s.io/jobset-name=tj -o jsonpath='{.items[0].spec.restartPolicy}'), Job backoffLimit $(K -n $NS get job tj-node-0 -o jsonpath='{.spec.backoffLimit}')"
fi
echo "# stack logs: $S/logs (REAL_KEEP=1 keeps them)"
