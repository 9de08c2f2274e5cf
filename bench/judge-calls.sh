#!/usr/bin/env bash
# bench/judge-calls.sh OLD_BINARY [NEW_BINARY] - what following one job costs the
# launch's wait: health_judge() calls and instructions (valgrind's callgrind, so
# the figures are counts, not times, and hold on a busy machine), for the same
# W-worker job (default 64; W=... to change) on the Kubernetes API test server,
# OLD and NEW (default build/jaxjob) in the same run.
#
# Written for issue 25: the wait used to ask the judge up to four times per job
# event and twice per pod event (progress line, fail-fast, drain); the hub now
# judges each job object once. Not a test: it prints a table and exits 0.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:?usage: bench/judge-calls.sh OLD_BINARY [NEW_BINARY]}
NEW=${2:-$top/build/jaxjob}
W=${W:-64}
command -v valgrind >/dev/null || { echo "bench/judge-calls.sh: needs valgrind" >&2; exit 2; }
w=$(mktemp -d /tmp/jaxjob-judge.XXXXXX)
trap '"$top/tests/kube-apiserver/stop.sh" "$w/ks" >/dev/null 2>&1; rm -rf "$w"' EXIT
"$top/tests/kube-apiserver/start.sh" "$w/ks" >/dev/null

# one launch under callgrind; prints "<judge calls> <instructions> <state>"
measure() {
	local bin=$1 tag=$2
	valgrind --tool=callgrind --callgrind-out-file="$w/$tag.cg" "$bin" launch \
		--kubeconfig "$w/ks/kubeconfig" --name "judge-$tag" --image x/jax:1 --workers "$W" \
		--env SIM_LINES=3 --timeout 600 --delete-after always --out-state "$w/$tag.state" \
		-- python t.py >"$w/$tag.out" 2>"$w/$tag.err" || true
	# calls into health_judge, from every caller: the calls= line after a
	# cfn= naming it (callgrind names a function once, by "(id) name", on
	# its first fn= or cfn= line, and by "(id)" after)
	awk '/^c?fn=\([0-9]+\) health_judge$/ { split($0, a, " "); sub(/^c?fn=/, "", a[1]); hj = a[1] }
	     /^cfn=/ { t = $1; sub(/^cfn=/, "", t); j = (hj != "" && t == hj); next }
	     /^calls=/ && j { split(substr($0, 7), c, " "); n += c[1]; j = 0 }
	     /^summary:/ { ir = $2 }
	     END { printf "%d %d ", n, ir }' "$w/$tag.cg"
	printf '%s\n' "$(cat "$w/$tag.state" 2>/dev/null || echo "?")"
}

read -r oj oi os < <(measure "$OLD" old)
read -r nj ni ns < <(measure "$NEW" new)
printf '| measure (one %d-worker job) | old | new | new / old |\n|---|---|---|---|\n' "$W"
printf '| health_judge calls | %d | %d | %.2f |\n' "$oj" "$nj" "$(echo "$nj / $oj" | bc -l)"
printf '| instructions (callgrind Ir) | %d | %d | %.2f |\n' "$oi" "$ni" "$(echo "$ni / $oi" | bc -l)"
printf '| outcome | %s | %s | |\n' "$os" "$ns"
