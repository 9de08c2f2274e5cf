#!/usr/bin/env bash
# bench/big-logs.sh [BINARY] - what the user of a big job sees of its logs, and
# what it costs: `jaxjob launch` of W workers (SIZES, default "2 256 1000") on
# the Kubernetes API test server (tests/kube-apiserver), every worker printing
# LINES step lines spread over DURATION seconds, once with `--logs all` (the
# default: at most 64 logs followed at once) and once with `--log-workers
# 0-63` (the workers to see live, named), and once with `--log-turn TURN` (every
# worker gets the stream in turn; TURN default 5s). Per run (bench/big_logs.py):
#   live        workers whose first line was printed while the job still ran
#               (before the launch's "Succeeded" progress line)
#   first line  seconds from the launch's start to each worker's first
#               printed line: median and worst
#   lines       lines printed / lines the shown workers wrote (every one once)
#   RSS         peak VmHWM (GNU time), and its ratio to the 2-worker run's
#   traffic     requests sent and kB received (the launch's --out-summary)
# MODES (default "all turn set") picks the runs. Not a test: nothing fails on a figure. The test server is Python: at 1,000
# workers it takes minutes of CPU. Release or image build recommended (the
# default BINARY is build/slim/jaxjob, the image's, when present).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-}
if [ -z "$BIN" ]; then
	BIN=$top/build/jaxjob
	[ -x "$top/build/slim/jaxjob" ] && BIN=$top/build/slim/jaxjob
fi
[ -x "$BIN" ] || { echo "bench/big-logs.sh: $BIN is not built (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/big-logs.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
w=$(mktemp -d /tmp/jaxjob-big-logs.XXXXXX)
ks=$w/ks
trap '"$top/tests/kube-apiserver/stop.sh" "$ks"; rm -rf "$w"' EXIT
"$top/tests/kube-apiserver/start.sh" "$ks" >/dev/null || exit 1
SIZES=${SIZES:-"2 256 1000"} LINES=${LINES:-5} DURATION=${DURATION:-20} \
	/usr/bin/python3 "$top/bench/big_logs.py" "$BIN" "$ks" "$w"
