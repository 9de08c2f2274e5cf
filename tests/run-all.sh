#!/usr/bin/env bash
# tests/run-all.sh - run every suite in tests/suites/ and count the results.
#
# A suite is an executable tests/suites/NN-name.{sh,py} that prints TAP lines
# on stdout: "ok - description", "not ok - description", or
# "ok - description # SKIP reason" when it cannot run here (for example
# ../shared is absent in a user's clone). Anything else it prints is shown but
# not counted. A suite that exits non-zero without having reported a failure
# counts as one failure, so a crash is never silent.
#
# Environment given to suites:
#   JAXJOB        the binary under test (sanitizer build in `make check`)
#   JAXJOB_BUILD  its build directory (unit test binaries in $JAXJOB_BUILD/tests)
#   JAXJOB_TOP    the repository top
#   JAXJOB_SHARED ../shared when present, else empty
#   JAXJOB_TMP    a scratch directory, removed afterwards
#
# The last line printed is "N passed, N failed" (skips are listed before it).
# Exit status is 0 only if nothing failed. `tests/run-all.sh PATTERN` runs only
# the suites whose file name contains PATTERN.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export JAXJOB_TOP=$top
export JAXJOB=${JAXJOB:-$top/build/jaxjob}
export JAXJOB_BUILD=${JAXJOB_BUILD:-$top/build}
if [ -d "$top/../shared/reference" ]; then
	export JAXJOB_SHARED=$(cd "$top/../shared" && pwd)
else
	export JAXJOB_SHARED=
fi
export JAXJOB_TMP=$(mktemp -d /tmp/jaxjob-tests.XXXXXX)
trap 'rm -rf "$JAXJOB_TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

pattern=${1:-}
passed=0 failed=0 skipped=0
failures=()
for suite in "$top"/tests/suites/*; do
	[ -x "$suite" ] || continue
	name=$(basename "$suite")
	case "$name" in *"$pattern"*) ;; *) continue ;; esac
	echo "# suite $name"
	out="$JAXJOB_TMP/$name.out"
	start=$(date +%s)
	"$suite" >"$out" 2>"$JAXJOB_TMP/$name.err"
	rc=$?
	s_pass=0 s_fail=0 s_skip=0
	while IFS= read -r line; do
		case "$line" in
		"not ok"*)
			s_fail=$((s_fail + 1)); failures+=("$name: $line"); echo "$line" ;;
		"ok"*"# SKIP"*|"ok"*"# skip"*)
			s_skip=$((s_skip + 1)); echo "$line" ;;
		"ok"*)
			s_pass=$((s_pass + 1)) ;;
		*) ;;
		esac
	done <"$out"
	if [ "$rc" -ne 0 ] && [ "$s_fail" -eq 0 ]; then
		s_fail=1
		failures+=("$name: exited with status $rc without reporting a failure")
	fi
	if [ "$s_fail" -ne 0 ]; then
		echo "# --- stderr of $name (last 40 lines) ---"
		tail -n 40 "$JAXJOB_TMP/$name.err" | sed 's/^/# /'
	fi
	echo "# $name: $s_pass passed, $s_fail failed, $s_skip skipped ($(( $(date +%s) - start ))s)"
	passed=$((passed + s_pass)); failed=$((failed + s_fail)); skipped=$((skipped + s_skip))
done
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "# $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
