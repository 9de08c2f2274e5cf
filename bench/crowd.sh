#!/usr/bin/env bash
# bench/crowd.sh [BINARY] - a sweep in one namespace: N concurrent queue-labelled `jaxjob launch`
# processes (label kueue.x-k8s.io/queue-name, LocalQueue q in team-a), a simulated Kueue
# (tests/kueue/simkueue.py) admitting each job 1 s after it appears. Does what one launcher
# costs stay flat as N grows (issue 32: ≤ 1.5x the CPU and bytes of one at N = 20)?
#
# The server: the real kube-apiserver 1.24 (tests/realserver/kcp.sh, the simulated operator and
# kubelet tests/realserver/operator.py, Kueue's CRDs from ../shared/reference/kueue/crds) when
# ../shared is there, else the test double (tests/kube-apiserver); SERVER=double forces the double.
# Per size N (SIZES, default "1 20 50"; N = 1 runs ROUNDS1=3 times, the peer of every ratio):
#   CPU            user + system of each launcher (wait4 of GNU time running it), median, max
#   peak RSS       of each launcher (GNU time %M), median
#   bytes, requests  what each launcher received and sent: its summary's "API traffic" row
#                  (counted by the kube client, lib/kube/kube_client.h kube_client_traffic())
#   server requests the apiserver's requests from user agents jaxjob/..., divided by N: the
#                  audit log (real) or the request log (double)
# each with its ratio to N = 1. Jobs: WORKERS=2 workers, LINES=15 lines over DURATION=15 s.
# BASELINE=path/to/another/jaxjob: measured too, after each size, on the same server (a
# before/after comparison; a binary older than the summary's "API traffic" row shows no bytes).
# Release build: the default BINARY is build/jaxjob (make). On the 2-core machine run it alone,
# under the control-plane lock: flock /tmp/jaxjob-kcp.lock bench/crowd.sh
# Prints a markdown table, then the server's requests per launcher by kind (which read grows with
# N); the raw runs go to build/bench/crowd.json; KEEP=1 keeps the work directory (the launchers'
# outputs, the audit log). Exit 1 when a launch did not succeed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
[ -x "$BIN" ] || { echo "bench/crowd.sh: $BIN is not built (make)" >&2; exit 2; }
export JAXJOB_SHARED=${JAXJOB_SHARED:-$top/../shared}
PY=/usr/bin/python3
W=$(mktemp -d /tmp/jaxjob-crowd.XXXXXX)
KUEUE_CRDS=$JAXJOB_SHARED/reference/kueue/crds
. "$top/tests/realserver/kcp.sh"
if [ "${SERVER:-}" != double ] && kcp_check && [ -d "$KUEUE_CRDS" ]; then
	trap 'kcp_down; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
	echo "# real control plane in $W/kcp" >&2
	kcp_up "$W/kcp" >"$W/up.log" 2>&1 || { cat "$W/up.log" >&2; exit 1; }
	kubectl create --validate=false -f "$KUEUE_CRDS" >/dev/null
	kcp_wait_established workloads.kueue.x-k8s.io localqueues.kueue.x-k8s.io clusterqueues.kueue.x-k8s.io
	conn=(--server "$KUBE_SERVER" --ca "$KUBE_CA" --token-file "$KUBE_TOKEN_FILE")
	run=(--kubeconfig "$KCP_KUBECONFIG" --audit-log "$KCP_AUDIT_LOG" "${conn[@]}")
else
	trap '"$top/tests/kube-apiserver/stop.sh" "$W/ks"; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
	echo "# test double in $W/ks" >&2
	"$top/tests/kube-apiserver/start.sh" "$W/ks" --crds kubeflow.org,trainer.kubeflow.org,kueue.x-k8s.io >/dev/null
	conn=(--ks "$W/ks")
	run=(--kubeconfig "$W/ks/kubeconfig" "${conn[@]}")
fi
"$PY" "$top/tests/kueue/simkueue.py" "${conn[@]}" setup team-a q cq >/dev/null
mkdir -p "$top/build/bench"
rc=0
"$PY" "$top/bench/crowd.py" --bin "$BIN" --work "$W" --sizes "${SIZES:-1 20 50}" \
	--rounds1 "${ROUNDS1:-3}" --workers "${WORKERS:-2}" --lines "${LINES:-15}" \
	--duration "${DURATION:-15}" ${BASELINE:+--baseline "$BASELINE"} "${run[@]}" || rc=$?
cp "$W/crowd.json" "$top/build/bench/crowd.json" 2>/dev/null || true
exit $rc
