#!/bin/sh
# stop.sh DIR - stop the test server started by start.sh DIR (waits up to 5 s, then SIGKILL).
set -u
dir=${1:?usage: stop.sh DIR}
[ -f "$dir/pid" ] || exit 0
pid=$(cat "$dir/pid")
if kill "$pid" 2>/dev/null; then
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -9 "$pid" 2>/dev/null || true
fi
rm -f "$dir/pid" "$dir/url"
exit 0
