#!/usr/bin/env bash
# tests/suites/13-clang-build.sh - the tree builds warning-free with a second compiler.
# STYLE.md promises gcc and clang; only gcc built in `make check`, so a clang-only warning
# (lib/err.c's va_list helpers without a format attribute, -Wformat-nonliteral) broke
# `make CC=clang` unnoticed. Here the binary, the unit tests and the fuzz replays are built
# with clang and the same flags (-Werror) into this suite's own directory, never build/, so
# it cannot race with the main build. -O0: clang's warnings come from its front end, which
# runs the same at every level, and the build costs half the CPU.
#
# run-all: after 56-kube-http2-real 65-real-kueue 65-real-launch 66-real-faults 67-real-failure 68-real-safety 94-stall
# (a whole build, minutes of CPU: beside the control planes starting on 2 cores it starved
# them past kubectl's 32 s openapi timeout, so it waits until they are done)
. "$JAXJOB_TOP/tests/lib/tap.sh"
what='make CC=clang builds the binary, the unit tests and the fuzz replays without a warning'
if ! command -v clang >/dev/null 2>&1; then
	skip "$what" "clang is not installed (scripts/install-deps.sh installs it)"
	exit 0
fi
B=${TMPDIR:-/tmp}/clang-build
if make -C "$JAXJOB_TOP" -j2 CC=clang OPT=-O0 BUILD="$B" all unit >"$B.log" 2>&1; then
	ok "$what"
else
	not_ok "$what"
	grep -E '(error|warning): ' "$B.log" | head -n 20 >&2
	tail -n 5 "$B.log" >&2
fi
