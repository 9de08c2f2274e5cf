#!/usr/bin/env bash
# tests/suites/12-lib-folders.sh - lib/ is read by folder, a family per folder (kube/, job/,
# yj/, ...: docs/architecture.md), ranked in scripts/module-graph.sh (LIB_FOLDERS), and no
# arrow between two of them runs back up (to a folder of the same or a higher rank): the
# build's module graph fails on the first one. Tried on a small tree compiled here (a call
# from yj/ up into kube/ fails, naming the call; a folder without a rank fails), then on the
# real tree's objects, where lib's line says 0. Includes across lib's folders name the
# folder ("kube/kube_client.h"): a bare name reaching into another folder is named too.
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/lib/objtree.sh"
: >"$W/none"

# yj/ (rank 2) calls into kube/ (rank 3): back up
mkdir -p "$W/t/lib/kube" "$W/t/lib/yj"
printf 'int kube_f(void) { return 0; }\n' >"$W/t/lib/kube/kube_f.c"
printf 'int kube_f(void);\nint yj_g(void) { return kube_f(); }\n' >"$W/t/lib/yj/yj_g.c"
printf 'int base_h(void) { return 1; }\n' >"$W/t/lib/base_h.c"
build_tree t
"$CHECK" --known "$W/none" --known-graph "$W/none" --objects "$W/t.obj" "$W/t" >"$W/out" 2>"$W/err"
rc=$?
expect 'a call from a lib folder up into a higher one fails, naming the folders and the call' '
	test $rc = 1 &&
	grep -q "^module-graph: error: 1 arrows run back up between the lib folders (at most 0): yj -> kube" "$W/err" &&
	grep -q "lib/yj/yj_g.c uses kube_f" "$W/err"'

# the same call downwards passes; lib's own files are the ground
printf 'int base_h(void);\nint yj_g(void) { return base_h(); }\n' >"$W/t/lib/yj/yj_g.c"
printf 'int yj_g(void);\nint kube_f(void) { return yj_g(); }\n' >"$W/t/lib/kube/kube_f.c"
rm -rf "$W/t.obj"
build_tree t
expect '... the same arrows pointing down (kube -> yj -> lib) pass' \
	"$CHECK --known $W/none --known-graph $W/none --objects $W/t.obj $W/t >$W/out 2>$W/err && grep -q '0 running back up between the lib folders' $W/out"

mkdir -p "$W/t/lib/extra"
printf 'int x(void) { return 0; }\n' >"$W/t/lib/extra/x.c"
build_tree t
"$CHECK" --known "$W/none" --known-graph "$W/none" --objects "$W/t.obj" "$W/t" >"$W/out" 2>"$W/err"
rc=$?
expect '... and a lib folder without a rank fails, naming it' '
	test $rc = 1 && grep -q "lib/extra/ has no rank among the lib folders" "$W/err"'

# includes across lib folders name the folder: a header of lib/F/ included by its bare
# name from anywhere outside lib/F/ (another lib folder, a front-end, a test)
cross_includes() {
	cd "$JAXJOB_TOP" && for h in lib/*/*.h; do
		b=${h##*/} d=${h%/*}
		grep -rn --include='*.[ch]' "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$b\"" \
			lib component argocd-plugin health-checks tests fuzz bench jaxjob.c 2>/dev/null |
			grep -v "^$d/[^/]*:"
	done
	return 0
}
expect_silent 'includes across lib folders name the folder ("kube/kube_client.h")' 'name the folder' cross_includes

if [ -d "$JAXJOB_BUILD/obj/lib" ]; then
	"$CHECK" --objects "$JAXJOB_BUILD/obj" "$JAXJOB_TOP" >"$W/out" 2>"$W/err"
	expect 'the real tree: no arrow runs back up between the lib folders' \
		"grep -q '^module-graph: lib/: .*, 0 running back up between the lib folders' $W/out"
else
	skip 'the real tree: no arrow back up between the lib folders' "no objects under $JAXJOB_BUILD/obj (make first)"
fi
