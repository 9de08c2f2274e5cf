#!/usr/bin/env bash
# tests/suites/12-workers-names.sh - the workers spoke is read file by file: each of the files
# that share its private header (the "Included by:" line of
# component/launch/spokes/launch_workers_int.h) exports names of its own prefix only
# (launch_pods.c: pods_*, launch_follow.c: follow_*, ...), so no file exports a name that
# says another file's name (issue 39: workers_follow, workers_streaming and
# workers_follows_settle came from launch_follow.c). Read from the objects (nm).
. "$JAXJOB_TOP/tests/lib/tap.sh"
INT=$JAXJOB_TOP/component/launch/spokes/launch_workers_int.h
OBJ=${JAXJOB_BUILD:-$JAXJOB_TOP/build}/obj/component/launch/spokes
files=$(sed -n 's/.*Included by:[[:space:]]*//p' "$INT")
if [ -z "$files" ] || [ ! -d "$OBJ" ]; then
	skip 'each file of the workers spoke exports names of its own prefix' "no objects under $OBJ (make first)"
	exit 0
fi
bad=
for f in $files; do
	stem=${f%.c}
	prefix=${stem#launch_}_
	for name in $(nm -g --defined-only "$OBJ/$stem.o" | awk '$2 ~ /^[TDBR]$/ { print $3 }'); do
		case $name in "$prefix"*) ;; *) bad="$bad $f:$name" ;; esac
	done
done
if [ -z "$bad" ]; then
	ok "each file of the workers spoke exports names of its own prefix ($(echo $files | wc -w) files)"
else
	not_ok 'each file of the workers spoke exports names of its own prefix'
	printf '# exports another prefix: %s\n' $bad >&2
fi
