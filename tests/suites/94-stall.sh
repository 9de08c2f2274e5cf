#!/usr/bin/env bash
# tests/suites/94-stall.sh - the stall harness, deterministic cells (issue 21; the 200 random
# runs are 94-stall-long.sh): once a worker's container has terminated, the launch delivers
# every line of its log exactly once, in order, whatever was stalled when - the stub kubelet
# stopped across the job's verdict or at the log's end (it then serves in a burst), the launch
# itself stopped while the workers exit, its stdout reader stopped for seconds - over HTTP/2
# and HTTP/1.1. Each stall starts at an event (lines written, the verdict printed, the
# containers' exit markers), never at a guessed time.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/suites/94-stall.lib"
stall_setup

for p in h2 h1; do
	# the kubelet stops with half the log served and stays stopped past the verdict
	stall_start "kv-$p" "$p" 2 2000
	wait_until stall_written "kv-$p" 0 1000
	kill -STOP "$(stall_pid kubelet)"
	wait_until grep -q "Succeeded:" "$T/kv-$p.err"
	stall_hold kubelet 1	# (already stopped: one more second, then it serves the rest in a burst)
	kill -CONT "$(stall_pid kubelet)"
	stall_wait "kv-$p"
	expect "stall $p: the kubelet stopped mid-log until past the verdict: every line once, in order (2 x 2000)" \
		"stall_check kv-$p"

	# the kubelet stops once the log is written, before it served the end
	stall_start "ke-$p" "$p" 2 2000
	wait_until stall_written "ke-$p" 1 2000
	kill -STOP "$(stall_pid kubelet)"
	wait_until grep -q "Succeeded:" "$T/ke-$p.err"
	kill -CONT "$(stall_pid kubelet)"
	stall_wait "ke-$p"
	expect "stall $p: the kubelet stopped at the log's end across the verdict: every line once, in order" \
		"stall_check ke-$p"

	# the launch stops mid-log and resumes after the containers exited
	stall_start "lx-$p" "$p" 3 1500
	wait_until stall_written "lx-$p" 0 700
	kill -STOP "$(stall_pid launch)"
	wait_until stall_exited "lx-$p"
	kill -CONT "$(stall_pid launch)"
	stall_wait "lx-$p"
	expect "stall $p: the launch stopped mid-log, resumed after the workers exited: every line once, in order" \
		"stall_check lx-$p"

	# the stdout reader stops for 2 s after 40 kB (the pipe fills, every stream backs up)
	stall_start "rd-$p" "$p" 2 3000 "40000:2"
	stall_wait "rd-$p"
	expect "stall $p: stdout stopped for 2 s mid-run: every line once, in order (2 x 3000)" "stall_check rd-$p"
done
