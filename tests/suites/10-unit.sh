#!/usr/bin/env bash
# C unit tests (cmocka, TAP output), one binary per tests/unit/test_*.c.
set -u
for t in "$JAXJOB_BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$(cd "$JAXJOB_TOP" && CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>"$JAXJOB_TMP/$name.stderr")
	rc=$?
	# cmocka prints "ok N - test"; name each line after its binary.
	printf '%s\n' "$out" | sed -n -E "s/^(not ok|ok) [0-9]+ - (.*)$/\1 - $name: \2/p"
	if [ "$rc" -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		# a crash (ASan, abort) cut the TAP stream short
		cat "$JAXJOB_TMP/$name.stderr" >&2
		echo "not ok - $name: exited with status $rc"
	fi
done
exit 0
