#!/usr/bin/env bash
# C unit tests (cmocka, TAP output), one binary per tests/unit/test_*.c.
set -u
for t in "$JAXJOB_BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$(cd "$JAXJOB_TOP" && CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>"$JAXJOB_TMP/$name.stderr")
	rc=$?
	# cmocka prints "ok N - test"; name each line after its binary. A
	# skip() comes out as "not ok N # SKIP test" (cmocka 1.1): report it as
	# the skip it is (tests skip when $JAXJOB_SHARED is empty, for example).
	printf '%s\n' "$out" | sed -n -E \
		-e "s/^(not ok|ok) [0-9]+ # (SKIP|skip):? *(.*)$/ok - $name: \3 # SKIP skipped by the test (missing \\\$JAXJOB_SHARED or other input)/p" \
		-e "s/^(not ok|ok) [0-9]+ - (.*)$/\1 - $name: \2/p"
	if [ "$rc" -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok [0-9]* - '; then
		# a crash (ASan, abort) cut the TAP stream short
		cat "$JAXJOB_TMP/$name.stderr" >&2
		echo "not ok - $name: exited with status $rc"
	fi
done
exit 0
