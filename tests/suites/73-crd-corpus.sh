#!/usr/bin/env bash
# 73-crd-corpus.sh - what the client-side CRD check (lib/job/crdschema.c,
# lib/yj/jcheck.c) accepts, the real API server accepts; what it refuses, the
# server refuses on the same field (tests/crd-corpus/cases.yaml, run by
# tests/tools/crd_corpus.py). Also: every object the example apps render is
# created by the server (server-side dry-run). The client half runs
# everywhere. The server half needs a control plane with the JAXJob and
# TrainJob CRDs Established, no operator: the real stack's (`stack/up.sh DIR
# controlplane`, the CRDs of $STACK_CRDS_DIR) in `make check-real`
# (JAXJOB_REAL=1); without it, where the stack is built, one skip line naming
# make check-real; where it is not, the 1.24 plane of ../shared
# (kube-control-plane/up.sh etcd apiserver crds) if present - the backend as
# tests/realserver/kcp.sh picks it. Free loopback ports, its own directory,
# stopped at the end. The compiled-in schemas must be what
# scripts/gen-crdschema.py gives from the upstream CRDs (`make test-deps`).
set -u
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"
PY=/usr/bin/python3
W=$T/corpus
rm -rf "$W" && mkdir -p "$W"

if [ -n "${JAXJOB_TESTDATA:-}" ]; then
	"$PY" "$JAXJOB_TOP/scripts/gen-crdschema.py" "$JAXJOB_TESTDATA"/crds/kubeflow.org_jaxjobs.yaml \
		"$JAXJOB_TESTDATA"/crds/trainer.kubeflow.org_trainjobs.yaml >"$W/data.c" &&
		cmp -s "$W/data.c" "$JAXJOB_TOP/lib/job/crdschema_data.c"
	report 'lib/job/crdschema_data.c is what scripts/gen-crdschema.py gives from the upstream CRDs (make test-deps)' $?
else
	skip 'lib/job/crdschema_data.c is what scripts/gen-crdschema.py gives from the upstream CRDs' "needs the CRDs, $JAXJOB_DEPS_WHY"
fi

. "$JAXJOB_TOP/tests/realserver/kcp.sh"
kcp_check
case $? in
1)
	$PY "$JAXJOB_TOP/tests/tools/crd_corpus.py" "$JAXJOB_TOP/tests/crd-corpus/cases.yaml" "$JAXJOB" "$W/client"
	skip 'the corpus against the real API server; examples created by it' "$KCP_WHY"
	exit 0
	;;
2)
	$PY "$JAXJOB_TOP/tests/tools/crd_corpus.py" "$JAXJOB_TOP/tests/crd-corpus/cases.yaml" "$JAXJOB" "$W/client"
	not_ok 'a real control plane can run here (tests/realserver/kcp.sh)'
	echo "$KCP_WHY" >&2
	exit 0
	;;
esac

if [ "$KCP_BACKEND" = stack ]; then
	# the control plane alone (stack/up.sh takes one of the team's two control-plane slots and
	# keeps it while its daemons run); the two CRDs of the pinned modules, applied here
	KCP_DIR=$W/stack
	trap '"$JAXJOB_TOP/stack/down.sh" "$KCP_DIR" >/dev/null 2>&1' EXIT
	trap 'exit 143' TERM INT HUP
	t0=$SECONDS
	if ! STACK_PKI_CACHE=${JAXJOB_TMP:+$JAXJOB_TMP/stack-pki-cache} \
		"$JAXJOB_TOP/stack/up.sh" "$KCP_DIR" controlplane >"$W/up.log" 2>&1; then
		not_ok 'the real stack control plane comes up (stack/up.sh DIR controlplane)'
		tail -n 25 "$W/up.log" >&2
		exit 0
	fi
	. "$KCP_DIR/env"
	kcp_register_secrets
	# the dry-run Pods of `server: pod` cases pass ServiceAccount admission only once the
	# kcm's serviceaccount controller has made default/default
	if ! "$KUBECTL" apply --server-side -f "$STACK_CRDS_DIR/training-operator/kubeflow.org_jaxjobs.yaml" \
		-f "$STACK_CRDS_DIR/trainer/trainer.kubeflow.org_trainjobs.yaml" >"$W/crds.log" 2>&1 ||
		! kcp_wait_established jaxjobs.kubeflow.org trainjobs.trainer.kubeflow.org 2>>"$W/crds.log" ||
		! wait_until kcp_ctl GET /api/v1/namespaces/default/serviceaccounts/default; then
		not_ok "the JAXJob and TrainJob CRDs of $STACK_CRDS_DIR are Established, default/default exists"
		cat "$W/crds.log" >&2
		exit 0
	fi
	echo "# control plane $STACK_KUBERNETES_VERSION up, CRDs Established, in $((SECONDS - t0)) s"
else
	KCP=$KCP_TOOL
	export KCP_DIR=$W/kcp
	read -r APISERVER_PORT ETCD_PORT ETCD_PEER_PORT KCM_PORT KUBELET_PORT < <(kcp_ports)
	export APISERVER_PORT ETCD_PORT ETCD_PEER_PORT KCM_PORT KUBELET_PORT
	# the CRDs' apply without kubectl's OpenAPI download (it timed out under load; see the wrapper)
	[ -n "${KUBECTL:-}" ] || export KUBECTL=$JAXJOB_TOP/tests/realserver/kubectl-compat
	trap '"$KCP/down.sh" >/dev/null 2>&1' EXIT
	if ! "$KCP/up.sh" etcd apiserver crds >"$W/up.log" 2>&1; then
		not_ok 'a real control plane starts (kube-control-plane/up.sh)'
		tail -n 20 "$W/up.log" >&2
		exit 0
	fi
	. "$KCP_DIR/env"
	kcp_register_secrets
fi
SRV=(--server "$KUBE_SERVER" --ca "$KUBE_CA" --token-file "$KUBE_TOKEN_FILE")

$PY "$JAXJOB_TOP/tests/tools/crd_corpus.py" "$JAXJOB_TOP/tests/crd-corpus/cases.yaml" "$JAXJOB" "$W/client" "${SRV[@]}"

# every object the example apps render is created by the server
for app in "$JAXJOB_TOP"/examples/gitops*/; do
	name=$(basename "$app")
	mkdir -p "$W/repo/examples" && cp -R "$app" "$W/repo/examples/"
	cmp_render "$W/repo/examples/$name" ARGOCD_APP_NAMESPACE=default ARGOCD_APP_REVISION=$FIXED_REV --
	[ "$rc" -eq 0 ] && $PY "$JAXJOB_TOP/tests/tools/crd_corpus.py" --create "$T/out" "${SRV[@]}" >"$W/create.out" 2>&1
	report "every object examples/$name renders is created by the real API server (dry-run): $(tail -n 1 "$W/create.out")" $?
done
# and what launch --dry-run prints for the launch examples' flags
jj launch --dry-run --namespace default --name corpus-launch --image ghcr.io/example/jax:1 --workers 4 \
	--gpus-per-worker 1 --cpu 0.5 --memory 1.5Gi --env A=1 --label team=ml >"$W/launch.yaml" 2>"$W/launch.err" &&
	$PY "$JAXJOB_TOP/tests/tools/crd_corpus.py" --create "$W/launch.yaml" "${SRV[@]}" >"$W/create.out" 2>&1
report "launch --dry-run's JAXJob is created by the real API server: $(tail -n 1 "$W/create.out")" $?
jj launch --dry-run --api trainjob --namespace default --name corpus-train --image ghcr.io/example/jax:1 --workers 2 \
	--cpu 0.5 --memory 1.5Gi >"$W/launch.yaml" 2>"$W/launch.err" &&
	$PY "$JAXJOB_TOP/tests/tools/crd_corpus.py" --create "$W/launch.yaml" "${SRV[@]}" >"$W/create.out" 2>&1
report "launch --dry-run --api trainjob's TrainJob is created by the real API server: $(tail -n 1 "$W/create.out")" $?
exit 0
