#!/usr/bin/env bash
# tests/suites/12-wall-clock.sh - the clock is read in one place, lib/kube/kube_clock.c.
# kube_now() (monotonic) and kube_wall_now() (epoch) are the clocks every part keeps time
# with: one module to read, to fake in a test (test_launch_hub wraps kube_now at link
# time), and to reason about. A time(NULL), gettimeofday() or clock_gettime() in any other
# C file is a second clock beside them; this suite names each one with its file and line.
. "$JAXJOB_TOP/tests/lib/tap.sh"

# The direct reads under DIR, as FILE:LINE:TEXT: time(NULL), time(0), time(&t) (not
# "time(s)" in a message), gettimeofday, clock_gettime, timespec_get, ftime.
reads() {
	(cd "$1" && grep -rnE --include='*.c' --include='*.h' --exclude-dir=build --exclude-dir=.git \
		'\btime[[:space:]]*\([[:space:]]*(NULL|0|&)|\b(gettimeofday|clock_gettime|timespec_get|ftime)[[:space:]]*\(' . |
		sed 's|^\./||' | grep -v '^lib/kube/kube_clock\.c:')
}

hits=$(reads "$JAXJOB_TOP")
what='only lib/kube/kube_clock.c reads the clock (time, gettimeofday, clock_gettime)'
if [ -z "$hits" ]; then
	ok "$what"
else
	not_ok "$what"
	printf '%s\n' "$hits" | sed 's/^/# read it through lib\/kube\/kube_clock.h: /' >&2
fi

# The check itself, on a small tree: each form is seen, kube_clock.c and a message are not.
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/lib/kube" "$W/x"
printf '#include <time.h>\ndouble w(void) { return (double)time(NULL); }\n' >"$W/lib/kube/kube_clock.c"
printf 'long a(void) { return time(0); }\n' >"$W/x/a.c"
printf 'void b(struct timeval *v) { gettimeofday(v, 0); }\n' >"$W/x/b.c"
printf 'void c(struct timespec *t) { clock_gettime (CLOCK_MONOTONIC, t); }\n' >"$W/x/c.h"
printf 'const char *d = "restarted %%d time(s)"; int timer(int);\nint e = timer(0);\n' >"$W/x/d.c"
expect '... it names each direct read with its file and line, and nothing else' \
	'[ "$(reads "$W" | cut -d: -f1,2 | sort | tr "\n" " ")" = "x/a.c:1 x/b.c:1 x/c.h:1 " ]'
