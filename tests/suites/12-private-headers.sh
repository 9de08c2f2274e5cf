#!/usr/bin/env bash
# tests/suites/12-private-headers.sh - a module's private header (foo_int.h) is included only
# by the files its "Included by:" line names (one line), as scripts/module-graph.sh checks
# in every build.
#
# The state a private header declares is its module's alone: the launch hub's struct
# (component/launch/hub/launch_hub_int.h) is how "only the hub changes what the run is doing" is kept -
# a file that cannot see the struct cannot write its fields (docs/architecture.md, "Who owns
# what"). Including the header from one more file would quietly undo that. This runs the
# check on the tree, and on a small tree with a stray include and a header without the line,
# so the rule itself is seen to fail.
. "$JAXJOB_TOP/tests/lib/tap.sh"
check=$JAXJOB_TOP/scripts/module-graph.sh

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
expect 'private headers are included only by the files they name' \
	"'$check' '$JAXJOB_TOP' 2>'$T/tree.err' && ! grep -q 'private header' '$T/tree.err'"

mkdir -p "$T/x/component"
printf '/*\n * x_int.h - x only.\n *\n * Included by: x.c\n */\n' >"$T/x/component/x_int.h"
printf '#include "x_int.h"\n' >"$T/x/component/x.c"
printf '#include "x_int.h"\n' >"$T/x/component/y.c"
printf '/* z_int.h - no line */\n' >"$T/x/component/z_int.h"
"$check" "$T/x" 2>"$T/x.err"
rc=$?
expect 'a stray include of a private header is found (and its own file is not)' \
	"test $rc = 1 && grep -q 'component/y.c:1 includes x_int.h, a private header that names only: x.c' '$T/x.err' &&
	 ! grep -q 'component/x.c' '$T/x.err'"
expect '... and so is a private header without an "Included by:" line' \
	"grep -q 'component/z_int.h has no \"Included by:\" line' '$T/x.err'"
