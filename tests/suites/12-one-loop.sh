#!/usr/bin/env bash
# tests/suites/12-one-loop.sh - the launch's event loop is spun from one place, and the
# client's settings are set by their owner: docs/architecture.md ("One owner of the loop")
# gives both greps, run here by make check.
# - kube_loop_run() and kube_loop_stop() are called in component/ by the loop's one driver
#   alone (launch_loop.c; its header names them): a step that must wait says what it
#   waits for (launch_loop_until), a callback wakes the wait (launch_loop_wake).
# - kube_client_set_*() is called by the flow (launch_run.c) and the first contact that
#   makes the client (launch_connect.c) alone: the steps get the context const and bound
#   their own requests (struct kube_request's retry_s and timeout_s).
. "$JAXJOB_TOP/tests/lib/tap.sh"

LOOP_RE='kube_loop_(run|stop) *\('
SET_RE='kube_client_set_[a-z_]* *\('

# elsewhere ROOT REGEX ALLOWED-BASENAMES...: the files under ROOT/component/ that match
# REGEX and are not allowed, one per line (none: the rule holds)
elsewhere() {
	local root=$1 re=$2 f
	shift 2
	(cd "$root" && grep -rlE "$re" component/) | while read -r f; do
		case " $* " in *" ${f##*/} "*) ;; *) echo "$f" ;; esac
	done
}

check() {
	local desc=$1 hits
	shift
	hits=$(elsewhere "$JAXJOB_TOP" "$@")
	if [ -z "$hits" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		(cd "$JAXJOB_TOP" && grep -nE "$2" $hits) | head -n 20 | sed 's/^/# elsewhere: /' >&2
	fi
}

check 'the loop is spun and stopped from launch_loop.c alone' \
	"$LOOP_RE" launch_loop.c launch_loop.h
check "the client's retry and timeout settings are set by its owner alone" \
	"$SET_RE" launch_run.c launch_connect.c launch_connect.h

# the rules bite: a step that spins the loop, or sets the client's retries, is named
W=$T/one-loop
rm -rf "$W" && mkdir -p "$W/component/launch/run"
printf 'static void f(struct kube_client *c, struct err *e)\n{\n\tkube_client_set_retry(c, 8.0);\n\twhile (kube_loop_run(c, e) == 0)\n\t\t;\n}\n' \
	>"$W/component/launch/run/launch_step.c"
[ "$(elsewhere "$W" "$LOOP_RE" launch_loop.c launch_loop.h)" = component/launch/run/launch_step.c ] &&
	ok 'a step that spins the loop itself is named' || not_ok 'a step that spins the loop itself is named'
[ "$(elsewhere "$W" "$SET_RE" launch_run.c launch_connect.c)" = component/launch/run/launch_step.c ] &&
	ok "a step that sets the client's retries is named" || not_ok "a step that sets the client's retries is named"
