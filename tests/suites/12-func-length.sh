#!/usr/bin/env bash
# tests/suites/12-func-length.sh - a function fits on a screen (STYLE.md): no function of
# the C the binary is built from is over 80 lines, its signature's first line to its closing brace
# (scripts/func-length.sh, which names each one with its length). Then the check itself on
# a small file: 81 lines fail, 80 pass.
. "$JAXJOB_TOP/tests/lib/tap.sh"
CHECK="$JAXJOB_TOP/scripts/func-length.sh"
# every folder of C the binary is built from (issue 39: kube_xfer_start was 90, launch_run 103)
DIRS="lib component argocd-plugin health-checks jaxjob.c"

cd "$JAXJOB_TOP" || exit 1
expect_silent "no function over 80 lines in $DIRS" 'split it by idea' "$CHECK" $DIRS

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
body() {	# a function of $1 lines in all
	printf 'static int f%s(int a,\n\t      int b)\n{\n' "$1"
	i=4
	while [ $i -lt "$1" ]; do printf '\ta += b;\n'; i=$((i + 1)); done
	printf '}\n'
}
{ body 80; body 81; } >"$W/x.c"
"$CHECK" "$W/x.c" >"$W/out" 2>&1
rc=$?
expect 'a function of 81 lines fails, named with its file, line and length; one of 80 passes' '
	test $rc = 1 && test $(wc -l <"$W/out") = 1 &&
	grep -q "x.c:81: f81 is 81 lines (at most 80)" "$W/out"'
