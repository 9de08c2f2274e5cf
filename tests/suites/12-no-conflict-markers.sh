#!/usr/bin/env bash
# tests/suites/12-no-conflict-markers.sh - no file git tracks holds a merge's conflict markers.
# Several people merge main into their branches and back every day; a marker that slips into
# a commit (it did once, in a header: the fresh-clone build failed) is caught here with the
# file and line, before a build turns it into a compiler error elsewhere.
. "$JAXJOB_TOP/tests/lib/tap.sh"
cd "$JAXJOB_TOP" || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "no conflict markers in tracked files" "not a git checkout"
	exit 0
fi
hits=$(git grep -nE '^(<<<<<<< |>>>>>>> |=======$)' -- . ':!*.md' ':!tests/render/expected' 2>/dev/null)
if [ -z "$hits" ]; then
	ok "no conflict markers in tracked files"
else
	not_ok "no conflict markers in tracked files"
	printf '%s\n' "$hits" | head -n 20 >&2
fi
