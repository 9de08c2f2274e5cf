#!/bin/sh
# scripts/kube-state-writers.sh [ROOT] - each part of the kube client's state has one writer.
#
# struct kube_client (lib/kube/kube_int.h) is made of parts, one member each, and the
# comment of each member names the one file that writes it:
#     struct kube_loop_state loop;	/* kube_loop.c */
# This prints one line per write to a part from any other file under lib/ (an assignment,
# a compound assignment, ++ or --, through any pointer: `x->c->loop.deaf_s += ...`), and per
# member of struct kube_client that is not a part with its writer named; it exits 1 if it
# printed anything. Reading another file's part is allowed (that is what the parts are for);
# asking its writer to change it goes through a function of that file.
# docs/architecture.md gives it; tests/suites/12-kube-state.sh runs it (make check).
root=${1:-.}
cd "$root" || exit 2
h=lib/kube/kube_int.h
[ -f "$h" ] || { echo "kube-state-writers: error: no $h" >&2; exit 2; }
# "part file" for each member of struct kube_client
parts=$(awk '
	/^struct kube_client \{/ { in_struct = 1; next }
	in_struct && /^\};/ { exit }
	in_struct && NF {
		line = $0
		if (match(line, /\/\* *kube_[a-z_]+\.c/)) {
			file = substr(line, RSTART, RLENGTH)
			sub(/^\/\* */, "", file)
			name = line
			sub(/;.*/, "", name)
			sub(/.*[ \t*]/, "", name)
			print name, file
		} else {
			print "-", line
		}
	}' "$h")
bad=0
[ -n "$parts" ] || { echo "kube-state-writers: error: $h: no struct kube_client" >&2; exit 2; }
printf '%s\n' "$parts" | while read -r part file; do
	if [ "$part" = - ]; then
		echo "$h: struct kube_client has a member that is no part with its writer: $file"
		continue
	fi
	grep -rnE --include="*.c" --include="*.h" -e \
		"->$part(\.[A-Za-z_][A-Za-z_0-9]*)*[[:space:]]*([-+*/%|&^]|<<|>>)?=([^=]|$)|->$part(\.[A-Za-z_][A-Za-z_0-9]*)*[[:space:]]*(\+\+|--)|(\+\+|--)[[:space:]]*[A-Za-z_][A-Za-z_0-9>.-]*->$part\." \
		lib | grep -v "^lib/kube/$file:" |
		sed "s|^|writes the client's \`$part\` (its writer is $file): |"
done | tee "${TMPDIR:-/tmp}/kube-state.$$"
[ -s "${TMPDIR:-/tmp}/kube-state.$$" ] && bad=1
rm -f "${TMPDIR:-/tmp}/kube-state.$$"
exit $bad
