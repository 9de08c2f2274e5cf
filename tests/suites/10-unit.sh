#!/usr/bin/env bash
# C unit tests (cmocka, TAP output), one binary per tests/unit/test_*.c.
# Every source must have its binary in $JAXJOB_BUILD/tests, no older than the
# source: a missing or stale one is a failure that says what to build, never a
# quiet "0 passed".
set -u
case "$JAXJOB_BUILD" in
*/asan) build_cmd='make SAN=1 unit' ;;
*) build_cmd='make unit' ;;
esac
for src in "$JAXJOB_TOP"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	t=$JAXJOB_BUILD/tests/$name
	if [ ! -x "$t" ]; then
		echo "not ok - $name: not built ($t is missing; run \`$build_cmd\`)"
		continue
	fi
	if [ "$src" -nt "$t" ]; then
		echo "not ok - $name: stale ($src is newer than the binary; run \`$build_cmd\`)"
		continue
	fi
	out=$(cd "$JAXJOB_TOP" && CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>"$JAXJOB_TMP/$name.stderr")
	rc=$?
	# cmocka prints "ok N - test"; name each line after its binary. A
	# skip() comes out as "not ok N # SKIP test" (cmocka 1.1): report it as
	# the skip it is. The tests that skip read the upstream files that
	# `make test-deps` fetches ($JAXJOB_TESTDATA).
	if [ -z "$JAXJOB_TESTDATA" ]; then
		why="needs the upstream test data, $JAXJOB_DEPS_WHY"
	else
		why='skipped by the test'
	fi
	why=${why//\//\\/}
	printf '%s\n' "$out" | sed -n -E \
		-e "s/^(not ok|ok) [0-9]+ # (SKIP|skip):? *(.*)$/ok - $name: \3 # SKIP $why/p" \
		-e "s/^(not ok|ok) [0-9]+ - (.*)$/\1 - $name: \2/p"
	if [ "$rc" -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok [0-9]* - '; then
		# a crash (ASan, abort) cut the TAP stream short
		cat "$JAXJOB_TMP/$name.stderr" >&2
		echo "not ok - $name: exited with status $rc"
	fi
done
exit 0
