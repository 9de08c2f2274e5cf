#!/usr/bin/env bash
# bench/launch-real.sh [BINARY] - `jaxjob launch` on a REAL kube-apiserver
# (../shared/tools/kube-control-plane through tests/realserver/kcp.sh), side
# by side in the same rounds with the Python peer (bench/peer_python_launch.py,
# Debian's python3-kubernetes) and `kubectl create` + `kubectl wait`.
#
# Each round runs every tool once per scenario, the order rotated from round
# to round, with fresh job names; bench/sim_operator.py plays operator and
# kubelet (it knows the exact moment it writes the verdict):
#   ok-W     W workers print LINES lines each, all exit 0, the job Succeeded
#   fail-W   worker 0 exits 1, the other W-1 stay running with their log
#            streams open ("stuck in a collective"), the job Failed
# For W in SIZES (default "2 16 256"). Per run:
#   start->create   process spawn to the create's requestReceivedTimestamp in
#                   the apiserver's audit log (same clock, microseconds)
#   decided->exit   the operator sending the terminal status PATCH to the
#                   process having exited
#   written->exit   the same from the server's answer to that PATCH (its
#                   ResponseComplete in the audit log): without the server's
#                   handling of the write, which every tool waits for alike
#                   (the watch event can leave first: a few ms below 0)
#   requests        audit entries of the tool's user, not the operator's user
#                   agent, between spawn and exit
#   after the verdict  those of them the server received after that PATCH:
#                   what the tool still had to ask once decided
#   5xx             the tool's requests answered 500 or more, all rounds (a
#                   cancelled log read is one in the server's records)
#   RSS             peak VmHWM sampled from /proc every 5 ms from 50 ms on (kubectl: the
#                   larger of its two processes)
#   CPU             user + system of the process(es) (wait4)
#   lines           log lines the tool printed (LINES x W expected for ok-W)
# Connections: one extra run per tool and size under `strace -f -e connect`
# (not timed), counting connect() calls to the apiserver's port.
#
# JAXJOB_REAL=1 (or KCP_BACKEND=stack): on the real stack (stack/up.sh, make stack): the real
# training operator writes the verdict (its last jaxjobs/status write in the audit log is the
# moment decided), the kubelet double runs the workers (SIM_LINES over a second; fail: worker
# 0 exits 1, the others hang). The tool "training-sdk" is kubeflow-training's TrainingClient
# (bench/peer_training_sdk.py, stack/venv.sh sdk; SDK=0 leaves it out); kubectl is the
# stack's own ($STACK_KUBE_DIR/bin/kubectl, KUBERNETES_VERSION of stack/versions.env).
# KINDS="jaxjob trainjob" (the default on the stack when Trainer v2 is built) adds TrainJobs on
# the jax-distributed runtime (the real Trainer v2 + JobSet write the verdict), tools TJ_TOOLS
# (default "jaxjob kubectl trainer-sdk": `launch --api trainjob`, kubectl create + wait, the
# Kubeflow SDK's TrainerClient, bench/peer_trainer_sdk.py). A tool that never ends (an SDK
# following a survivor's stream) is killed after TOOL_TIMEOUT_S (default 120) and reported
# "kill", with how long after the verdict. The issue-40 table:
#   JAXJOB_REAL=1 SIZES="2 16" TOOL_TIMEOUT_S=40 CONNECTIONS=0 bench/launch-real.sh
# It holds a control-plane slot (TEAM.md's flock) while its plane runs, waiting for one.
# KCP_ENV=path/to/env: use a control plane already running (up.sh's env
# file; no operator may run on it, unless it is the real stack's: REAL=1 then) instead of
# starting one. Environment: ROUNDS (default 5; 256 workers: ROUNDS256, default 3), SIZES,
# OUTCOMES ("ok", "fail" or both, the default), TOOLS (default
# "jaxjob python kubectl"), BASELINE (another jaxjob binary, run as tool "jaxjob-base" in the
# same rounds: a before/after comparison), CONNECTIONS=0 (no strace runs),
# LINES (default 100), VERDICT_DELAY_S (default 0: the operator writes the verdict that long
# after the pods' end, as a real operator's reconcile does), PEER_PY (/usr/bin/python3). Release build recommended:
# the default BINARY is build/rootfs's (the image's binary, make rootfs) when
# present, else build/jaxjob. Prints a markdown table (medians [min-max]) and
# writes the raw runs as JSON to build/bench/launch-real.json, what each run printed to
# build/bench/launch-real-out/NAME.out (its stderr: NAME.err).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-}
if [ -z "$BIN" ]; then
	BIN=$top/build/jaxjob
	[ -x "$top/build/rootfs/usr/local/bin/jaxjob" ] && BIN=$top/build/rootfs/usr/local/bin/jaxjob
fi
export JAXJOB_SHARED=${JAXJOB_SHARED:-$top/../shared}
PEER_PY=${PEER_PY:-/usr/bin/python3}
. "$top/tests/realserver/kcp.sh"
if ! kcp_check; then
	echo "bench/launch-real.sh: $KCP_WHY" >&2
	exit 1
fi
# the kubectl peer: on the real stack, its own Kubernetes version's (stack/build.sh kube)
[ "$KCP_BACKEND" = stack ] && PATH=$STACK_KUBE_DIR/bin:$PATH
"$PEER_PY" -c 'import kubernetes' 2>/dev/null || { echo "bench/launch-real.sh: $PEER_PY has no kubernetes module (apt-get install python3-kubernetes)" >&2; exit 1; }
command -v strace >/dev/null || { echo "bench/launch-real.sh: strace not found (apt-get install strace)" >&2; exit 1; }
W=$(mktemp -d /tmp/jaxjob-bench-real.XXXXXX)
if [ "$KCP_BACKEND" = stack ]; then
	# shellcheck disable=SC1091
	. "$top/stack/lib.sh"
	export BENCH_KUBECTL=$STACK_KUBE_DIR/bin/kubectl
	if [ -z "${KINDS:-}" ]; then
		KINDS=jaxjob
		kcp_stack_has trainer && KINDS="jaxjob trainjob"
	fi
	export KINDS
fi
if [ -n "${KCP_ENV:-}" ]; then
	# a control plane already running (up.sh's env file): the real stack's (its operators
	# write the verdicts), or the 1.24 plane's without an operator
	. "$KCP_ENV"
	[ "$KCP_BACKEND" = stack ] && export REAL=1 && KCP_DIR=${KCP_DIR:-$(dirname "$KCP_ENV")}
	export KCP_KUBECONFIG=$W/kubeconfig APISERVER_PORT=${KUBE_SERVER##*:}
	sed 's/namespace: default/namespace: team-a/' "$KCP_DIR/admin-token.kubeconfig" >"$KCP_KUBECONFIG"
	${BENCH_KUBECTL:-kubectl} --kubeconfig "$KCP_KUBECONFIG" get namespace team-a >/dev/null 2>&1 ||
		${BENCH_KUBECTL:-kubectl} --kubeconfig "$KCP_KUBECONFIG" create namespace team-a >/dev/null
	trap 'rm -rf "$W"' EXIT
else
	# at most two control planes on the machine (TEAM.md): hold a slot while ours runs
	exec 9>/tmp/cp-slot-1.lock
	if ! flock -n 9; then
		exec 9>/tmp/cp-slot-2.lock
		flock -n 9 || { echo "# both control-plane slots are taken; waiting for one" >&2; flock 9; }
	fi
	trap 'kcp_down; rm -rf "$W"' EXIT
	echo "# bringing up the control plane in $W/kcp" >&2
	kcp_up "$W/kcp" >"$W/up.log" 2>&1 || { cat "$W/up.log" >&2; exit 1; }
	export KCP_KUBECONFIG APISERVER_PORT
	if [ "$KCP_BACKEND" = stack ]; then
		export REAL=1	# the real operator and the kubelet double run the jobs
	else
		# sim_operator.py drives the jobs; realsrv's operator (started by
		# kcp_up) would act on them too, so it is stopped.
		kill "$(cat "$KCP_DIR/pids/operator.pid")" 2>/dev/null || true
		rm -f "$KCP_DIR/pids/operator.pid"
	fi
fi
# the training operator's own SDK as a peer (stack/venv.sh sdk), unless SDK=0
if [ "${SDK:-1}" != 0 ] && [ -z "${SDK_PY:-}" ]; then
	SDK_PY=$("$top/stack/venv.sh" sdk)/bin/python && export SDK_PY
fi

/usr/bin/python3 "$top/bench/launch_real.py" "$BIN" "$PEER_PY" "$top" "$W" | tee "$W/table.md"
mkdir -p "$top/build/bench" && cp "$W/runs.json" "$top/build/bench/launch-real.json"
# what each run printed (NAME.out), for the lines' count
rm -rf "$top/build/bench/launch-real-out" && mkdir -p "$top/build/bench/launch-real-out" &&
	cp "$W"/*.out "$W"/*.err "$top/build/bench/launch-real-out/" 2>/dev/null || true
