#!/usr/bin/env bash
# tests/suites/94-stall-long.sh - the stall harness, random runs (issue 21; make check-long):
# STALL_RUNS (default 200) launches, HTTP/2 and HTTP/1.1 in turn, 1-3 workers of 200-3000
# lines, each with up to two stops of the launch and of the stub kubelet (0.1-1.5 s, at random
# moments) and up to two pauses of its stdout reader (0.2-2 s); every run must deliver every
# line exactly once, in order. One TAP line per run, naming its shape and stalls; the random
# seed (STALL_SEED) is printed so a failing run can be replayed.
# run-all: long
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/suites/94-stall.lib"
stall_setup
runs=${STALL_RUNS:-200}
RANDOM=${STALL_SEED:=$$}
echo "# STALL_SEED=$STALL_SEED"

rnd() { # LOW HIGH (seconds, 3 decimals)
	awk -v r="$RANDOM" -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + (b - a) * r / 32767 }'
}

for ((r = 1; r <= runs; r++)); do
	p=h2; [ $((r % 2)) = 0 ] && p=h1
	workers=$((1 + RANDOM % 3)) lines=$((200 + RANDOM % 2800))
	pauses= chaos=()
	for ((k = RANDOM % 3; k > 0; k--)); do pauses="$pauses $((RANDOM * 4)):$(rnd 0.2 2)"; done
	for ((k = RANDOM % 3; k > 0; k--)); do chaos+=("$(rnd 0 3) launch $(rnd 0.1 1.5)"); done
	for ((k = RANDOM % 3; k > 0; k--)); do chaos+=("$(rnd 0 3) kubelet $(rnd 0.1 1.5)"); done
	name=r$r
	stall_start "$name" "$p" "$workers" "$lines" "$pauses"
	for c in "${chaos[@]}"; do
		read -r at what len <<<"$c"
		( sleep "$at"; stall_hold "$what" "$len" ) &	# sleep-ok: a random moment is the input under test
		echo $! >>"$T/$name.chaos"
	done
	stall_wait "$name"
	for c in $(cat "$T/$name.chaos" 2>/dev/null); do wait "$c"; done
	expect "stall run $r ($p, $workers x $lines lines; stops:${chaos[*]:+ ${chaos[*]}}; reader pauses:${pauses:- none})" \
		"stall_check $name"
	rm -f "$T/$name".*
done
