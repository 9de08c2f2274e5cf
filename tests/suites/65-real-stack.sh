#!/usr/bin/env bash
# The real stack's control plane (stack/up.sh DIR controlplane, issue 38): etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler at the pinned Kubernetes, built from the module proxy
# into $JAXJOB_CACHE by `make stack`. A smoke test of what the other real suites rest on: the
# version it claims, a namespace and its default service account, a CRD shipped in the training
# operator's module, RBAC for a user with no bindings, the audit log, the Job controller and the
# garbage collector, the aggregation layer's APIServices, and the scheduler's real
# PodScheduled=False/Unschedulable on a pod no node can hold. Skips (one line) without the cache.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/stack/lib.sh"
DESC="real stack control plane"
need=
for b in "$STACK_ETCD_DIR/bin/etcd" "$STACK_KUBE_DIR/bin/kube-apiserver" "$STACK_KUBE_DIR/bin/kubectl" \
	"$STACK_CRDS_DIR/training-operator/kubeflow.org_jaxjobs.yaml"; do
	[ -e "$b" ] || need="$need $b"
done
if [ -n "$need" ]; then
	skip "$DESC" "the real stack is not built in $JAXJOB_CACHE: \`make stack\` builds it"
	exit 0
fi
for c in openssl curl; do
	command -v "$c" >/dev/null || { not_ok "$DESC: $c is installed (scripts/install-deps.sh)"; exit 1; }
done

S=$T/stack
trap '"$JAXJOB_TOP/stack/down.sh" "$S" 2>/dev/null; [ -n "${REAL_KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 143' TERM INT HUP
t0=$SECONDS
if ! "$JAXJOB_TOP/stack/up.sh" "$S" controlplane >"$T/up.out" 2>"$T/up.err"; then
	not_ok "$DESC comes up (stack/up.sh DIR controlplane)"
	tail -n 30 "$T/up.err" >&2
	exit 1
fi
echo "# control plane $KUBERNETES_VERSION up in $((SECONDS - t0)) s"
# shellcheck disable=SC1091
. "$S/env"
k() { "$KUBECTL" "$@"; }
gone() { case $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) in "" | Z | X) return 0 ;; esac; return 1; } # PID: exited (a zombie too)
api() { curl -sS --cacert "$KUBE_CA" -H "Authorization: Bearer $(cat "$KUBE_TOKEN_FILE")" "$KUBE_SERVER$1"; }

expect "up.sh printed the env file and it names the server, CA, tokens, audit log and PIDs" '
	[ "$(cat "$T/up.out")" = "$S/env" ] &&
	for v in KUBE_SERVER KUBE_CA KUBE_TOKEN_FILE KUBE_NOBODY_TOKEN_FILE KUBECONFIG KCP_AUDIT_LOG KCP_PIDS ETCDCTL_ENDPOINTS; do
		grep -q "^export $v=" "$S/env" || exit 1
	done &&
	[ -s "$S/admin-token.kubeconfig" ] && [ -s "$S/nobody-token.kubeconfig" ] &&
	for p in etcd apiserver kcm scheduler; do kill -0 "$(cat "$KCP_PIDS/$p.pid")" || exit 1; done'

expect "/version says the pinned $KUBERNETES_VERSION (ldflags), not v0.0.0-master" '
	api /version | grep -q "\"gitVersion\": \"$KUBERNETES_VERSION\""'

expect "a new namespace gets its default service account (kcm serviceaccount controller)" '
	k create namespace smoke >/dev/null &&
	wait_until k -n smoke get serviceaccount default'

expect "the training operator module's JAXJob CRD applies and becomes Established" '
	k apply --server-side -f "$STACK_CRDS_DIR/training-operator/kubeflow.org_jaxjobs.yaml" >/dev/null &&
	wait_until k wait --for condition=Established --timeout 10s crd/jaxjobs.kubeflow.org &&
	wait_until k -n smoke get jaxjobs.kubeflow.org'

expect "a user with no RBAC gets 403 Forbidden; admin by token and by client certificate get 200" '
	code=$(curl -s -o /dev/null -w "%{http_code}" --cacert "$KUBE_CA" -H "Authorization: Bearer $(cat "$KUBE_NOBODY_TOKEN_FILE")" "$KUBE_SERVER/api/v1/namespaces/smoke/pods") &&
	[ "$code" = 403 ] &&
	[ "$(k --kubeconfig "$S/admin-token.kubeconfig" auth whoami -o jsonpath={.status.userInfo.username})" = admin ] &&
	k -n smoke get pods >/dev/null'

# a Node as a kubelet registers it (no kubelet runs: the scheduler needs only the object). The
# TaintNodesByCondition admission plugin taints every new Node node.kubernetes.io/not-ready
# (NoSchedule); the node lifecycle controller's tainting pass removes it at once while the node
# has no Ready condition and keeps it off while Ready (kubernetes v1.36.4
# plugin/pkg/admission/nodetaint/admission.go, pkg/controller/nodelifecycle) - until the Lease,
# which no kubelet renews here, goes stale after the grace period, long after this test
cat >"$T/node.yaml" <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: smoke-node, labels: {kubernetes.io/hostname: smoke-node}}
YAML
cat >"$T/pods.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: hog, namespace: smoke}
spec:
  containers:
  - name: c
    image: x/none:1
    resources: {requests: {cpu: "100"}}
---
apiVersion: v1
kind: Pod
metadata: {name: fits, namespace: smoke}
spec:
  containers:
  - name: c
    image: x/none:1
    resources: {requests: {cpu: "1"}}
YAML
cond() { k -n smoke get pod "$1" -o jsonpath="{.status.conditions[?(@.type==\"PodScheduled\")].status} {.status.conditions[?(@.type==\"PodScheduled\")].reason} {.status.conditions[?(@.type==\"PodScheduled\")].message}"; }
expect "a Node is untainted (node lifecycle controller); the scheduler binds a pod that fits and sets PodScheduled=False/Unschedulable (Insufficient cpu) on one no node can hold" '
	k apply -f "$T/node.yaml" >/dev/null &&
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ) &&
	k patch node smoke-node --subresource status --type merge \
		-p "{\"status\": {\"capacity\": {\"cpu\": \"4\", \"memory\": \"8Gi\", \"pods\": \"10\"}, \"allocatable\": {\"cpu\": \"4\", \"memory\": \"8Gi\", \"pods\": \"10\"},
			\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\", \"reason\": \"KubeletReady\", \"message\": \"smoke\", \"lastHeartbeatTime\": \"$now\", \"lastTransitionTime\": \"$now\"}]}}" >/dev/null &&
	wait_until sh -c "[ -z \"\$(\"$KUBECTL\" get node smoke-node -o jsonpath={.spec.taints})\" ]" &&
	k apply -f "$T/pods.yaml" >/dev/null &&
	wait_until sh -c "\"$KUBECTL\" -n smoke get pod fits -o jsonpath={.spec.nodeName} | grep -qx smoke-node" &&
	wait_until sh -c "\"$KUBECTL\" -n smoke get pod hog -o jsonpath={.status.conditions} | grep -q Unschedulable" &&
	cond hog >"$T/cond" &&
	grep -q "^False Unschedulable 0/1 nodes are available: 1 Insufficient cpu" "$T/cond"'

expect "ServiceAccount admission: the pod got the projected service-account token volume" '
	k -n smoke get pod hog -o jsonpath="{.spec.serviceAccountName} {.spec.volumes[*].name}" | grep -q "^default kube-api-access-"'

# pods not yet marked for deletion (a pod bound to a node stays Terminating until its kubelet
# confirms; none runs here)
export LIVE='{{range .items}}{{if not .metadata.deletionTimestamp}}{{.metadata.name}} {{end}}{{end}}'
expect "the Job controller makes a Job's pod; a background deletion lets the garbage collector delete it" '
	k -n smoke create job j1 --image x/none:1 >/dev/null &&
	wait_until sh -c "\"$KUBECTL\" -n smoke get pod -l batch.kubernetes.io/job-name=j1 -o name | grep -q pod/" &&
	k -n smoke delete job j1 --cascade=background >/dev/null &&
	wait_until sh -c "[ -z \"\$(\"$KUBECTL\" -n smoke get pod -l batch.kubernetes.io/job-name=j1 -o go-template=\"\$LIVE\")\" ]"'

expect "the aggregation layer serves APIServices, API Priority and Fairness its FlowSchemas" '
	k get apiservices v1.batch -o jsonpath="{.status.conditions[0].status}" | grep -q True &&
	k get flowschemas.flowcontrol.apiserver.k8s.io exempt >/dev/null'

expect "the audit log has the requests, at Metadata level, with user and verb" '
	wait_until grep -q "\"objectRef\":{\"resource\":\"pods\",\"namespace\":\"smoke\",\"name\":\"hog\"" "$KCP_AUDIT_LOG" &&
	grep "\"name\":\"hog\"" "$KCP_AUDIT_LOG" | grep -q "\"level\":\"Metadata\".*\"verb\":\"create\".*\"username\":\"admin\""'

expect "a SIGKILLed apiserver comes back on the same port with up.sh DIR controlplane (the rest left running, no second slot taken)" '
	old=$(cat "$KCP_PIDS/apiserver.pid") etcd=$(cat "$KCP_PIDS/etcd.pid") &&
	kill -KILL "$old" &&
	wait_until gone "$old" &&
	STACK_CP_SLOT= "$JAXJOB_TOP/stack/up.sh" "$S" controlplane >/dev/null 2>"$T/up2.err" &&
	! grep -q "slot" "$T/up2.err" &&
	[ "$(cat "$KCP_PIDS/apiserver.pid")" != "$old" ] && [ "$(cat "$KCP_PIDS/etcd.pid")" = "$etcd" ] &&
	k -n smoke get pod hog >/dev/null'

expect "stack/down.sh stops every process by its PID file" '
	pids=$(cat "$KCP_PIDS"/*.pid) &&
	"$JAXJOB_TOP/stack/down.sh" "$S" &&
	for p in $pids; do gone "$p" || exit 1; done &&
	[ -z "$(ls "$KCP_PIDS")" ]'
