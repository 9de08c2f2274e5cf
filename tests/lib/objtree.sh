# tests/lib/objtree.sh - small C trees for the checks of scripts/module-graph.sh, sourced by
# the 12-* suites that build one (12-module-graph, 12-lib-folders): W is a fresh directory
# (removed on exit), CHECK the script, and build_tree NAME compiles every .c of $W/NAME into
# $W/NAME.obj, as the build does into build/obj.
CHECK="$JAXJOB_TOP/scripts/module-graph.sh"
CC=${CC:-cc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

build_tree() {
	(cd "$W/$1" && find . -name '*.c') | while read -r f; do
		mkdir -p "$(dirname "$W/$1.obj/$f")"
		"$CC" -c -o "$W/$1.obj/${f%.c}.o" "$W/$1/$f" || exit 1
	done
}
