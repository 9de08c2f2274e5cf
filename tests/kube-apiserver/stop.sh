#!/bin/sh
# stop.sh DIR - stop the test server started by start.sh DIR (waits up to 5 s, then SIGKILL).
set -u
dir=${1:?usage: stop.sh DIR}
[ -f "$dir/pid" ] || exit 0
pid=$(cat "$dir/pid")
# a zombie (exited, not yet reaped by its new parent) counts as stopped
alive() {
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case "$st" in Z*|"") return 1 ;; esac
	return 0
}
if kill "$pid" 2>/dev/null; then
	i=0
	while alive "$pid" && [ "$i" -lt 100 ]; do
		sleep 0.05	# sleep-ok: poll interval (until the server process is gone)
		i=$((i + 1))
	done
	if alive "$pid"; then
		kill -9 "$pid" 2>/dev/null || true
	fi
fi
rm -f "$dir/pid" "$dir/url"
exit 0
