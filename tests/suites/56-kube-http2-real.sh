#!/usr/bin/env bash
# tests/suites/56-kube-http2-real.sh - HTTP/2 on the real kube-apiserver
# (../shared/tools/kube-control-plane, started here on free ports): every
# watch and log stream of a launch shares ONE TLS connection, and no log
# line is lost, also when stdout is slow (the pause/resume path of one
# stream on a shared connection). A forced HTTP/1.1 run of the same job is
# the control: it opens one connection per stream, so the count can fail.
#
# Connections are counted outside the process: strace's connect() calls
# to the apiserver's port. The control plane and the simulated operator and
# kubelet are realsrv's harness (tests/realserver/kcp.sh, operator.py); the
# workers print the lines of a file (SIM_LOG_FILE) so completeness is exact.
# Not timed.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/lib/tap.sh"
top=$JAXJOB_TOP
. "$top/tests/realserver/kcp.sh"
kcp_check
case $? in
1) skip 'http2 on the real apiserver' "$KCP_WHY"; exit 0 ;;
2) not_ok "http2 on the real apiserver: $KCP_WHY"; exit 1 ;;
esac
if ! command -v strace >/dev/null 2>&1; then
	not_ok 'http2 on the real apiserver: strace is missing (scripts/install-deps.sh installs it)'
	exit 1
fi
trap kcp_down EXIT
if ! kcp_up "$JAXJOB_TMP/kcp" >"$T/up.out" 2>&1; then
	not_ok 'the real control plane starts'
	tail -n 30 "$T/up.out" >&2
	exit 1
fi

# run NAME WORKERS LINES [env...]: a launch of a job whose workers print
# LINES lines each ("NAME worker I line J") over a second (--log-drain and
# --timeout 10 min: ceilings against hangs; ASan, strace and a slow reader on
# a loaded machine take minutes, and it is completeness under test); stdout in
# $T/NAME.out (through SLOW_READER when set), connect() calls in
# $T/NAME.strace, the exit status in $T/NAME.rc.
run() {
	local name=$1 workers=$2 lines=$3 i
	shift 3
	for ((i = 0; i < workers; i++)); do
		seq 0 $((lines - 1)) | sed "s/^/$name worker $i line /" >"$T/$name.log$i"
	done
	local sink=(cat)
	[ -n "${SLOW_READER:-}" ] && sink=(/usr/bin/python3 -c "$SLOW_READER")
	# LeakSanitizer cannot run under ptrace: off in the traced runs (the
	# untraced h2plain run below keeps the check on the same paths)
	local tracer=(strace -f -qq -e trace=connect -o "$T/$name.strace") leaks=0
	[ -n "${NO_STRACE:-}" ] && tracer=() leaks=1
	set -o pipefail
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$leaks" "$@" "${tracer[@]}" \
		"$JAXJOB" launch --kubeconfig "$KCP_KUBECONFIG" --name "$name" \
		--workers "$workers" --image ghcr.io/x/jax:1 --timeout 600s --log-drain 600s \
		--env "SIM_LOG_FILE=$T/$name.log{worker}" --env SIM_DURATION=1 -- python train.py \
		2>"$T/$name.err" | "${sink[@]}" >"$T/$name.out"
	echo $? >"$T/$name.rc"
	set +o pipefail
}

# exit 0, or say what the launch said
succeeded() {
	[ "$(cat "$T/$1.rc")" = 0 ] && return 0
	echo "exit $(cat "$T/$1.rc"); its stderr:" >&2
	tail -n 15 "$T/$1.err" >&2
	return 1
}

conns() { grep -c "sin_port=htons($APISERVER_PORT)" "$T/$1.strace"; }

# Every worker's lines, complete and in order per worker.
complete() { # complete NAME WORKERS LINES
	local name=$1 workers=$2 lines=$3 i
	for ((i = 0; i < workers; i++)); do
		# the file's lines, between the simulator's own INFO lines
		grep "^\[worker-$i\] $name worker $i line " "$T/$name.out" | sed "s/^\[worker-$i\] //" >"$T/$name.w$i"
		seq 0 $((lines - 1)) | sed "s/^/$name worker $i line /" | cmp -s - "$T/$name.w$i" || {
			echo "worker $i: $(wc -l <"$T/$name.w$i") of $lines lines, or out of order" >&2
			# what the launch said and what stdout holds, for the one seen failure nobody could explain
			echo "lines per worker on stdout: $(for ((j = 0; j < workers; j++)); do
				printf '%s ' "$(grep -c "^\[worker-$j\] " "$T/$name.out")"; done)" >&2
			tail -n 15 "$T/$name.err" >&2
			return 1
		}
	done
}

run h2a 4 2000
expect 'http2: a 4-worker launch succeeds on the real apiserver (exit 0)' 'succeeded h2a'
expect 'http2: every log line of every worker arrives, in order (4 x 2000)' 'complete h2a 4 2000'
expect 'http2: the job, pod and event watches, 4 log streams and the requests use 1 connection' \
	'[ "$(conns h2a)" -eq 1 ] || { echo "connections: $(conns h2a)" >&2; false; }'

NO_STRACE=1 run h2plain 4 2000
expect 'http2, not traced (LeakSanitizer on in the ASan build): succeeds with every line' \
	'succeeded h2plain && complete h2plain 4 2000'

run h1a 4 2000 JAXJOB_HTTP1=1
expect 'http/1.1 (JAXJOB_HTTP1=1): the same launch succeeds with every line' \
	'succeeded h1a && complete h1a 4 2000'
expect 'http/1.1 (JAXJOB_HTTP1=1): one connection per concurrent stream (the count above can fail)' \
	'[ "$(conns h1a)" -ge 5 ] || { echo "connections: $(conns h1a)" >&2; false; }'

# The simulated kubelet writes CRI lines stamped when written (tests/realserver/operator.py
# cri_append), as a container runtime does: a line served late under backpressure carries an
# old timestamp, as on a real cluster, and the drain's "behind" guard sees the lag. (With plain
# lines the stub stamped them when it first read them, late, and the drain cut these streams.)
# Strict: no line may be lost.
# A slow stdout: the reader starts after 2 s, then reads in small sips, so
# the pipe fills, stream data backs up past the pause bound (256 kB per
# stream) and every stream is paused and resumed on the shared connection.
SLOW_READER='
import sys, time
time.sleep(2)   # sleep-ok: a stdout reader that stops is the fault under test
while True:
    b = sys.stdin.buffer.read1(16384)
    if not b:
        break
    sys.stdout.buffer.write(b)
    time.sleep(0.005)   # sleep-ok: a slow stdout reader is the fault under test' \
	run h2slow 4 15000
expect 'http2, slow stdout: the launch succeeds' 'succeeded h2slow'
expect 'http2, slow stdout: no line lost or reordered (4 x 15000, 0.6 MB per worker)' 'complete h2slow 4 15000'
expect 'http2, slow stdout: still 1 connection' \
	'[ "$(conns h2slow)" -eq 1 ] || { echo "connections: $(conns h2slow)" >&2; false; }'
