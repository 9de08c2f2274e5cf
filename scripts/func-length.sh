#!/bin/sh
# scripts/func-length.sh [--max N] [--list] FILE|DIR... - functions that do not fit on a screen.
#
# A function is a C definition whose body opens with "{" alone at the start of a line and
# closes with "}" alone at the start of a line (the kernel/git layout every file here uses);
# its length is its lines from the first of its signature to the closing brace. Prints "FILE:LINE: NAME is N lines
# (at most MAX)" for each one longer than MAX (default 80) and exits 1 if there is any;
# --list prints every function with its length instead ("N FILE:LINE NAME"), longest first.
# STYLE.md: "a function fits on a screen". tests/suites/12-func-length.sh runs it on lib/.
max=80 list=
while [ $# -gt 0 ]; do
	case $1 in
	--max) max=$2; shift 2 ;;
	--list) list=1; shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: func-length.sh [--max N] [--list] FILE|DIR..." >&2; exit 2; }
files=$(for p in "$@"; do
	if [ -d "$p" ]; then find "$p" -name '*.c' | sort; else echo "$p"; fi
done)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
lengths() {
awk -v max="$max" -v list="$list" '
	FNR == 1 { name = ""; open_at = 0 }
	# the name: the last identifier before "(" on the lines above the body
	/^[A-Za-z_].*\(/ && !open_at {
		s = $0
		sub(/\(.*/, "", s)
		n = split(s, w, /[ \t*]+/)
		name = w[n]
		sig = FNR
	}
	/^\{[ \t]*$/ && !open_at { open_at = FNR; next }
	/^\}/ && open_at {
		len = FNR - sig + 1
		if (list)
			printf "%d %s:%d %s\n", len, FILENAME, sig, name
		else if (len > max) {
			printf "%s:%d: %s is %d lines (at most %d)\n", FILENAME, sig, name, len, max
			bad = 1
		}
		open_at = 0
		name = ""
	}
	END { exit bad }
' $files
}
if [ -n "$list" ]; then
	lengths | sort -rn
else
	lengths
fi
