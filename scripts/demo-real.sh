#!/usr/bin/env bash
# scripts/demo-real.sh - `make demo-real`: the demo on the real stack with real JAX.
#
# Builds what is missing of the real stack (stack/build.sh: Kubernetes, etcd, the Kubeflow
# training operator, Kueue, Trainer v2, JobSet, from the Go module proxy) and the JAX venv
# (stack/venv.sh jax, from PyPI), all cached in $JAXJOB_CACHE; brings the stack up on
# loopback (stack/up.sh); runs a 4-worker JAXJob whose workers are real jax.distributed
# processes on CPU (examples/jax/train.py: data-parallel linear regression, the gradient
# summed across the processes every step), under the real operator, scheduled by the real
# kube-scheduler, run by the kubelet double; shows every worker's lines, the outputs, the
# loss curve as KFP metrics and the summary; brings the stack down, whatever happens.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export JAXJOB=${JAXJOB:-$top/build/jaxjob}
say() { printf '\n==> %s\n' "$*"; }

. "$top/stack/lib.sh"
"$top/stack/build.sh" >&2
jaxpy=$("$top/stack/venv.sh" jax)/bin/python

work=$(mktemp -d "${TMPDIR:-/tmp}/jaxjob-demo-real.XXXXXX")
cleanup() {
	"$top/stack/down.sh" "$work/stack" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' INT TERM

say "bring the real stack up in $work/stack"
t0=$SECONDS
"$top/stack/up.sh" "$work/stack" >"$work/up.log" 2>&1 || { tail -n 30 "$work/up.log" >&2; exit 1; }
# shellcheck disable=SC1091
. "$work/stack/env"
echo "  up in $((SECONDS - t0)) s"
server=$("$KUBECTL" --kubeconfig "$KUBECONFIG" version -o json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])')
echo "  Kubernetes $server (kube-apiserver, kube-controller-manager, kube-scheduler), etcd $ETCD_VERSION"
echo "  Kubeflow training operator $TRAINING_OPERATOR_VERSION, Kueue $KUEUE_VERSION, Trainer $TRAINER_VERSION, JobSet $JOBSET_VERSION"
echo "  JAX $("$jaxpy" -c 'import jax, jaxlib; print(jax.__version__, "(jaxlib", jaxlib.__version__ + ")")') on CPU, Python $("$jaxpy" -c 'import platform; print(platform.python_version())')"
echo "  nodes: $("$KUBECTL" --kubeconfig "$KUBECONFIG" get nodes -o name | tr '\n' ' ')(the kubelet double)"
kc=$work/kubeconfig
sed 's/namespace: default/namespace: demo/' "$work/stack/admin-token.kubeconfig" >"$kc"
"$KUBECTL" --kubeconfig "$KUBECONFIG" create namespace demo >/dev/null

out=$work/out
say "a 4-worker JAXJob of real jax.distributed on CPU"
echo "\$ jaxjob launch --name linreg --image jaxjob.local/jax-cpu:$JAX_VERSION --workers 4 --cpu 1 --memory 1Gi \\"
echo "    --out-metrics=... --out-summary=... -- python /app/train.py"
set +e
"$JAXJOB" launch --kubeconfig "$kc" --name linreg --image "jaxjob.local/jax-cpu:$JAX_VERSION" --workers 4 \
	--cpu 1 --memory 1Gi --env TRAIN_STEPS=60 --env TRAIN_LOG_EVERY=10 --timeout 600s \
	--out-state="$out/state" --out-reason="$out/reason" --out-exit-code="$out/exit-code" \
	--out-duration="$out/duration" --out-workers="$out/workers" \
	--out-metrics="$out/metrics.json" --out-metrics-csv="$out/metrics.csv" --out-summary="$out/summary.md" \
	-- python /app/train.py
rc=$?
set -e
echo "  (exit $rc)"
say "outputs"
for f in state reason exit-code duration workers; do printf '  %-10s %s\n' "$f" "$(cat "$out/$f" 2>/dev/null)"; done
echo "  metrics.json (KFP metrics):"
sed 's/^/    /' "$out/metrics.json" 2>/dev/null | head -20 || true
echo "  metrics.csv (the loss curve):"
sed 's/^/    /' "$out/metrics.csv" 2>/dev/null | head -20 || true
echo "  summary.md:"
sed 's/^/    /' "$out/summary.md" 2>/dev/null || true
[ "$rc" -eq 0 ] && [ "$(cat "$out/state" 2>/dev/null)" = Succeeded ] || { echo "demo-real: the job did not succeed (exit $rc)" >&2; exit 1; }
say "done: Succeeded on the real stack"
