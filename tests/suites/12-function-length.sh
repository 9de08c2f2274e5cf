#!/usr/bin/env bash
# tests/suites/12-function-length.sh - a function fits on a screen (../shared/STYLE.md): no
# function of component/ is over 80 lines, from its signature to its closing brace (the
# kernel's and our style: the body opens with "{" and closes with "}" alone in column 0).
# issue 39: launch_run() had grown to 103.
. "$JAXJOB_TOP/tests/lib/tap.sh"
cd "$JAXJOB_TOP" || exit 1
MAX=80

# long FILE...: "LINES FILE:LINE NAME" for each function over $MAX lines
long() {
	awk -v max="$MAX" '
	FNR == 1 { sig = 0 }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = FNR; name = $0 }
	/^\{/ { start = sig ? sig : FNR }
	/^\}/ && start { n = FNR - start + 1; if (n > max) print n, FILENAME ":" start, name; start = 0; sig = 0 }
	' "$@"
}

found=$(long $(find component -name '*.c' | sort))
if [ -z "$found" ]; then
	ok "no function of component/ is over $MAX lines"
else
	not_ok "no function of component/ is over $MAX lines"
	printf '# %s\n' "$found" >&2
fi

# the rule bites: a function of 81 lines is named
W=$T/fnlen
mkdir -p "$W"
{ echo 'static int big(void)'; echo '{'; for i in $(seq 1 78); do echo "	(void)$i;"; done; echo '}'; } >"$W/big.c"
case $(long "$W/big.c") in "81 $W/big.c:1 "*) ok 'a function of 81 lines is named' ;; *) not_ok 'a function of 81 lines is named' ;; esac
