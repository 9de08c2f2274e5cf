# tests/lib/tap.sh - sourced by shell suites: TAP output in git's t/ spirit.
#
#   . "$JAXJOB_TOP/tests/lib/tap.sh"
#   expect 'dry-run prints a JAXJob' 'jj launch --dry-run ... | grep -q "kind: JAXJob"'
#   expect_exit 2 'workers=0 is rejected' jj launch --dry-run --workers 0 ...
#   skip 'the TrainJob CRD validates' 'needs make test-deps'   (the reason a user acts on)
#   wait_until [-t SECONDS] CMD...   poll until CMD succeeds (an event: a file, a line, a state)
#
# Each test body runs in a subshell with `set -e`-free semantics: the test
# passes when the body's exit status is 0. Output of failing tests goes to
# stderr (shown by run-all.sh).
T=${JAXJOB_TMP:-/tmp}/tap.$$
mkdir -p "$T"
jj() { "$JAXJOB" "$@"; }

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; }
skip() { echo "ok - $1 # SKIP ${2:-}"; }

# wait_until [-t SECONDS] CMD... : poll CMD until it succeeds - how a test waits for an
# event (a file, a line on stderr, a request in a server's log, a process state), never a
# fixed sleep (tests/suites/11-fixed-sleeps.sh). SECONDS (default 60) is a ceiling against
# hangs on a busy machine, never a timing assertion; non-zero when it ran out.
wait_until() {
	local t=60 end
	if [ "$1" = -t ]; then t=$2; shift 2; fi
	end=$((SECONDS + t))
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05	# sleep-ok: the poll interval of wait_until
	done
}

# expect DESCRIPTION SHELL-SNIPPET
# A failing body's last traced commands, with their words expanded ("++ test 0 -eq 1"),
# follow the body in its block: of a body of several checks joined by &&, CI's log then says which one
# failed and with what. The trace has a descriptor of its own (BASH_XTRACEFD), so a body that
# reads its commands' stderr (2>&1 | grep) never sees it.
expect() {
	local desc=$1 body=$2
	if (exec 19>"$T/xtrace" && BASH_XTRACEFD=19 && set -x && eval "$body") >"$T/out" 2>"$T/err"; then
		ok "$desc"
	else
		not_ok "$desc"
		{ echo "--- $desc"; echo "+ $body"; echo "trace (last 8):"; grep "^++" "$T/xtrace" | tail -n 8
		  tail -n 20 "$T/out"; tail -n 20 "$T/err"; } >&2
	fi
}

# expect_exit CODE DESCRIPTION COMMAND... : the command exits with CODE;
# its stdout is in $T/out and stderr in $T/err afterwards.
expect_exit() {
	local code=$1 desc=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" -eq "$code" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		{ echo "--- $desc: expected exit $code, got $rc"; echo "+ $*"; tail -n 20 "$T/out"; tail -n 20 "$T/err"; } >&2
	fi
}

# expect_silent DESCRIPTION HINT COMMAND... : a repository rule's check passes when it exits 0
# and prints nothing; otherwise each line it printed (one per breach) is shown after "# HINT: ".
expect_silent() {
	local desc=$1 hint=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		printf '%s\n' "$out" | sed "s|^|# $hint: |" >&2
	fi
}

# expect_fail_clean DESCRIPTION COMMAND... : exit 2, nothing on stdout, exactly
# one line on stderr that starts with "error: " (our contract for bad input).
expect_fail_clean() {
	local desc=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$? lines
	lines=$(wc -l <"$T/err")
	if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ "$lines" -eq 1 ] && grep -q '^error: ' "$T/err"; then
		ok "$desc"
	else
		not_ok "$desc"
		{ echo "--- $desc: rc=$rc stdout=$(wc -c <"$T/out")B stderr=${lines} lines"; echo "+ $*"; head -c 400 "$T/out"; cat "$T/err"; } >&2
	fi
}
