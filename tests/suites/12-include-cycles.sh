#!/usr/bin/env bash
# tests/suites/12-include-cycles.sh - scripts/module-graph.sh, the build's check that no
# two modules include each other (foo.c and foo.h are one module): the sources pass with
# the circles its KNOWN list accepts; on small trees it fails with one line naming a new
# circle and the include lines that make it, accepts a listed one, and fails on a listed
# circle that is gone (so the list cannot go stale).
. "$JAXJOB_TOP/tests/lib/tap.sh"
CHECK="$JAXJOB_TOP/scripts/module-graph.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

expect 'the sources have no include circle but the listed ones' "$CHECK $JAXJOB_TOP"

# a.c -> b.h, b.h -> c.h, c.c -> a.h: a circle through a header and two .c files
mkdir -p "$W/tree/lib" "$W/tree/component"
printf '#include "b.h"\n' >"$W/tree/lib/a.c"
printf '#include "err.h"\n#include <stdio.h>\n' >"$W/tree/lib/a.h"
printf '#include "c.h"\n' >"$W/tree/lib/b.h"
printf '#include "a.h"\n' >"$W/tree/lib/c.c"
: >"$W/tree/lib/c.h"
printf '#include "a.h"\n' >"$W/tree/component/x.c"
: >"$W/none"
"$CHECK" --known "$W/none" "$W/tree" 2>"$W/err"
rc=$?
expect '... a circle fails, one line naming it and the include lines that make it' '
	test $rc = 1 && test $(wc -l <"$W/err") = 1 &&
	grep -q "^module-graph: error: include circle a -> b -> c -> a (lib/a.c:1, lib/b.h:1, lib/c.c:1): " "$W/err"'

printf '# why\nc b a: on purpose, for the test\n' >"$W/known"
expect '... a circle listed in KNOWN (any order) passes' "$CHECK --known $W/known $W/tree"

printf 'c b a: on purpose\nx y: fixed long ago\n' >"$W/stale"
"$CHECK" --known "$W/stale" "$W/tree" 2>"$W/err"
rc=$?
expect '... a listed circle that no longer exists fails, naming it' '
	test $rc = 1 && grep -q "the known circle \"x y\" is no longer a circle as listed" "$W/err"'

printf '#include "x.h"\n' >>"$W/tree/lib/c.h"
printf '#include "b.h"\n' >>"$W/tree/component/x.c"
"$CHECK" --known "$W/known" "$W/tree" 2>"$W/err"
rc=$?
expect '... a listed circle that grew fails, naming every module in it' '
	test $rc = 1 && grep -q "all in one circle: a b c x" "$W/err"'

printf 'c b a x:\n' >"$W/noreason"
"$CHECK" --known "$W/noreason" "$W/tree" 2>"$W/err"
rc=$?
expect '... a listed circle without a reason fails' '
	test $rc = 1 && grep -q "the known circle \"a b c x\" gives no reason" "$W/err"'
