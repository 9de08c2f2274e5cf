#!/usr/bin/env bash
# tests/suites/12-module-graph.sh - scripts/module-graph.sh --objects, the build's check
# (build/module-graph-ok) that sees calls, not only includes: no circle between modules (a
# .c with the header of its name; an arrow for an include or for a name that only the
# other's object defines, read with nm), and at most two arrows running back up between the
# launch's folders. Tried on small trees compiled here - a call circle between two modules
# that include nothing of each other fails, naming both and the names that tie them, where
# the include check alone passes; three folders reached back up fail; a folder with no rank
# fails - then on the real tree's objects, which pass.
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/lib/objtree.sh"

# a.c calls b(), b.c calls a(): neither includes the other's header
mkdir -p "$W/calls/lib"
printf '#include "a.h"\nint b(void);\nint a(void) { return b(); }\n' >"$W/calls/lib/a.c"
printf 'int a(void);\n' >"$W/calls/lib/a.h"
printf 'int a(void);\nint b(void) { return 0; }\nint c(void) { return a(); }\n' >"$W/calls/lib/b.c"
build_tree calls
: >"$W/none"
expect 'two modules that call each other include nothing of each other: the include check passes' \
	"$CHECK --known $W/none $W/calls"
"$CHECK" --known "$W/none" --known-graph "$W/none" --objects "$W/calls.obj" "$W/calls" \
	>"$W/out" 2>"$W/err"
rc=$?
expect '... the module graph fails on their call circle, naming both and the names that tie them' '
	test $rc = 1 && test $(grep -c "error:" "$W/err") = 1 &&
	grep -q "^module-graph: error: circle lib/a.c -> lib/b.c -> lib/a.c (lib/a.c uses b, lib/b.c uses a): " "$W/err"'
printf 'lib/b.c lib/a.c: on purpose, for the test\n' >"$W/known"
expect '... a circle listed in KNOWN_GRAPH passes' \
	"$CHECK --known $W/none --known-graph $W/known --objects $W/calls.obj $W/calls >/dev/null"
printf 'lib/a.c lib/x.c: fixed long ago\n' >"$W/stale"
"$CHECK" --known "$W/none" --known-graph "$W/stale" --objects "$W/calls.obj" "$W/calls" \
	>/dev/null 2>"$W/err"
rc=$?
expect '... a listed circle that is no longer one fails, naming it' '
	test $rc = 1 && grep -q "the known circle \"lib/a.c lib/x.c\" is no longer a circle as listed" "$W/err"'

# outputs/ reaches one folder above it, the command line (as outputs -> cli
# did until issue 39): the stack is strict, one arrow back up fails
for d in run hub cli spokes outputs; do
	mkdir -p "$W/up/component/launch/$d"
	printf 'int f_%s(void) { return 0; }\n' "$d" >"$W/up/component/launch/$d/$d.c"
done
printf 'int f_cli(void);\nint g(void) { return f_cli(); }\n' \
	>"$W/up/component/launch/outputs/o.c"
build_tree up
"$CHECK" --known "$W/none" --known-graph "$W/none" --objects "$W/up.obj" "$W/up" >"$W/out" 2>"$W/err"
rc=$?
expect 'one arrow running back up between the launch folders fails, named with its call' '
	test $rc = 1 &&
	grep -q "^module-graph: error: 1 arrows run back up between the launch folders (at most 0): outputs -> cli" "$W/err" &&
	grep -q "component/launch/outputs/o.c uses f_cli" "$W/err"'
rm "$W/up/component/launch/outputs/o.c" "$W/up.obj/component/launch/outputs/o.o"
mkdir -p "$W/up/component/launch/extra"
printf 'int f_extra(void) { return 0; }\n' >"$W/up/component/launch/extra/x.c"
build_tree up
"$CHECK" --known "$W/none" --known-graph "$W/none" --objects "$W/up.obj" "$W/up" >"$W/out" 2>"$W/err"
rc=$?
expect '... and a launch folder without a rank fails, naming it' '
	test $rc = 1 && grep -q "component/launch/extra/ has no rank among the launch folders" "$W/err"'

# the real tree: the objects of the binary under test
if [ -d "$JAXJOB_BUILD/obj/component" ]; then
	"$CHECK" --objects "$JAXJOB_BUILD/obj" "$JAXJOB_TOP" >"$W/out" 2>"$W/err"
	rc=$?
	expect 'the real tree has no circle but the listed ones, and no arrow back up' '
		test $rc = 0 && ! test -s "$W/err" &&
		grep -q "^module-graph: component/: [0-9]* modules on [0-9]* floors, [0-9]* arrows, 0 running back up" "$W/out"'
else
	skip 'the real tree passes' "no objects under $JAXJOB_BUILD/obj (make first)"
fi
