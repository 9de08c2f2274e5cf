#!/usr/bin/env bash
# tests/suites/12-private-headers.sh - a module's private header (foo_int.h) is included only
# by the files its "Included by:" line names (one line).
#
# The state a private header declares is its module's alone: the launch hub's struct
# (component/launch_hub_int.h) is how "only the hub changes what the run is doing" is kept -
# a file that cannot see the struct cannot write its fields (docs/architecture.md, "Who owns
# what"). Including the header from one more file would quietly undo that; this fails instead,
# naming the file. A second check runs the same rule on a small tree with a stray include, so
# the rule itself is seen to fail.
. "$JAXJOB_TOP/tests/lib/tap.sh"

# check ROOT: one line per include of a private header by a file it does not name
check() {
	local root=$1 hdr allowed f base
	for hdr in "$root"/lib/*_int.h "$root"/component/*_int.h; do
		[ -f "$hdr" ] || continue
		allowed=$(sed -n 's/^ \*[[:space:]]*Included by:[[:space:]]*//p' "$hdr")
		if [ -z "${allowed// }" ]; then
			echo "$hdr: no \"Included by:\" line"
			continue
		fi
		for f in $(grep -l "#include \"$(basename "$hdr")\"" "$root"/lib/*.[ch] "$root"/component/*.[ch] \
			   "$root"/argocd-plugin/*.[ch] "$root"/health-checks/*.[ch] "$root"/*.c 2>/dev/null); do
			base=$(basename "$f")
			case " $allowed " in *" $base "*) ;; *) echo "$f includes $(basename "$hdr"), which names only: $allowed" ;; esac
		done
	done
}

out=$(check "$JAXJOB_TOP")
if [ -z "$out" ]; then
	ok "private headers are included only by the files they name"
else
	not_ok "private headers are included only by the files they name"
	printf '%s\n' "$out" >&2
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/lib" "$T/component"
printf '/*\n * x_int.h - x only.\n *\n * Included by: x.c\n */\n' >"$T/component/x_int.h"
printf '#include "x_int.h"\n' >"$T/component/x.c"
printf '#include "x_int.h"\n' >"$T/component/y.c"
out=$(check "$T")
expect_hit="component/y.c includes x_int.h"
if [[ $out == *"$expect_hit"* && $out != *"component/x.c "* ]]; then
	ok "a stray include of a private header is found (and its own file is not)"
else
	not_ok "a stray include of a private header is found (and its own file is not)"
	printf 'got: %s\n' "$out" >&2
fi
