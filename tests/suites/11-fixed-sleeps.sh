#!/usr/bin/env bash
# tests/suites/11-fixed-sleeps.sh - no test waits a fixed time for something.
#
# A test synchronises on an event it can observe (a line on stderr, a request
# in the server's or the audit log, a file, a process state: tests/lib/tap.sh
# wait_until, the test server's holdMatch fault and /_test/settle), never on a
# sleep: on a busy CI machine any guessed pause is too short some day, and the
# suite turns flaky (issue 21). This suite greps every script and program
# under tests/ for a sleep - shell `sleep N`, Python time.sleep(), C
# sleep()/usleep()/nanosleep() - and fails on each one that does not say on
# its own line why it is not a wait for an event:
#
#     sleep 0.05	# sleep-ok: the poll interval of wait_until
#
# The accepted reasons are few: the interval of a poll that waits for an
# event, a pause that IS the fault under test (an outage's length, a slow
# reader, a stalled kubelet), a simulated component's own latency or retry
# backoff (the real one has it too), a grace period before SIGKILL. Each
# exception is listed below the result line, with its reason.
. "$JAXJOB_TOP/tests/lib/tap.sh"
cd "$JAXJOB_TOP" || exit 1

# scripts and programs (not docs, not data): *.sh *.lib *.py *.c *.h *.lua and executables
# and the suites themselves
files=$(find tests -path tests/crd-corpus -prune -o -type f \
	\( -name '*.sh' -o -name '*.lib' -o -name '*.py' -o -name '*.c' -o -name '*.h' -o -name '*.lua' -o -perm -u+x \) -print |
	sort)
pattern='(^|[^A-Za-z0-9_.$-])sleep[[:space:]]+[0-9"$]|time\.sleep[[:space:]]*\(|asyncio\.sleep[[:space:]]*\(|(^|[^A-Za-z0-9_.])(u|nano)?sleep\('
# this file names the patterns in its comments and code: not a sleep
hits=$(printf '%s\n' $files | grep -v '^tests/suites/11-fixed-sleeps\.sh$' |
	xargs grep -nE "$pattern" /dev/null)
bad=$(printf '%s\n' "$hits" | grep -v 'sleep-ok: [a-z].\{9,\}' | grep -v '^$')
allowed=$(printf '%s\n' "$hits" | grep 'sleep-ok: [a-z].\{9,\}')

if [ -z "$bad" ]; then
	ok "no fixed sleep in tests/ waits for something ($(printf '%s\n' "$allowed" | grep -c .) named exceptions)"
else
	not_ok "no fixed sleep in tests/ waits for something: $(printf '%s\n' "$bad" | wc -l) without a reason"
	{
		echo "each of these sleeps without saying why (wait for an event instead, or add"
		echo "'# sleep-ok: <reason>' on the line if it is not a wait; see this suite's header):"
		printf '%s\n' "$bad"
	} >&2
fi
printf '%s\n' "$allowed" | sed -n 's/^\([^:]*:[0-9]*\):.*sleep-ok: \(.*\)$/# exception \1: \2/p'

# the check itself can fail: a sleep without a reason is found
probe=$T/probe.sh
printf 'x=1\nsleep 0.5\n' >"$probe"
expect 'the check finds a bare `sleep 0.5` (it can fail)' "grep -nE '$pattern' '$probe' | grep -vq 'sleep-ok:'"
printf 'time.sleep(0.3)\n' >"$probe"
expect 'the check finds a bare time.sleep(0.3)' "grep -nE '$pattern' '$probe' | grep -vq 'sleep-ok:'"
rm -rf "$T"
