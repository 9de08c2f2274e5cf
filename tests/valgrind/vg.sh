#!/bin/sh
# tests/valgrind/vg.sh PROGRAM ARGS... - run PROGRAM under valgrind memcheck
# for `make check-valgrind` (tests/valgrind/run.sh makes wrappers that exec
# this). exec keeps the PID, so suites that signal "jaxjob" signal the
# program itself (valgrind delivers the signal to it).
#
# Any memory error or definite/indirect leak makes the exit status 99 (the
# suite then sees a wrong exit code) and leaves its report in
# $VG_LOGDIR/<pid>.log, which run.sh collects at the end.
here=$(cd "$(dirname "$0")" && pwd)
exec valgrind --tool=memcheck --quiet --error-exitcode=99 \
	--leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect \
	--suppressions="$here/jaxjob.supp" \
	--log-file="${VG_LOGDIR:-/tmp}/%p.log" "$@"
