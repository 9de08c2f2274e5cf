#!/usr/bin/env bash
# bench/chaos.sh [N] [BINARY] - cancellation chaos: N (default 200) launches
# against one Kubernetes API test server, each sent SIGTERM at a random
# moment of its life (0-3.5 s, 40% of them in the first 0.3 s: before the create, during it, while the job
# is pending or running, while it finishes, during the deletion), 25 at a
# time. Afterwards, for every launch:
#   exit 5 (cancelled)  -> its job must be gone (default --on-cancel=delete)
#                          and the outputs say Cancelled / 5;
#   exit 0 (finished)   -> the job Succeeded, outputs say Succeeded / 0;
#   exit 143            -> the signal came before main() installed its
#                          handler: no job may exist;
#   anything else, or a job left behind, is a violation.
# Prints the tally and each violation (with the launch's last stderr lines),
# writes build/bench/chaos.json. Exit status 1 if there was a violation.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200}
bin=${2:-$top/build/jaxjob}
batch=25
[ -x "$bin" ] || { echo "bench/chaos.sh: $bin is not built (make)" >&2; exit 2; }
w=$(mktemp -d /tmp/jaxjob-chaos.XXXXXX)
ks=$w/ks
# CHAOS_KEEP=1 keeps the scratch directory (server.log, every launch's output)
trap '"$top/tests/kube-apiserver/stop.sh" "$ks"; [ "${CHAOS_KEEP:-0}" = 1 ] && echo "kept $w" || rm -rf "$w"' EXIT
"$top/tests/kube-apiserver/start.sh" "$ks" >/dev/null || exit 1
kc() { python3 "$top/tests/kube-apiserver/kclient.py" "$ks" "$@"; }

one() { # I DELAY
	local i=$1 d=$w/$1
	mkdir -p "$d"
	"$bin" launch --kubeconfig "$ks/kubeconfig" --name "chaos-$i" --image x/jax:1 --workers 2 \
		--env SIM_LINES=4 --env SIM_DURATION=2 --timeout 120 --out-state "$d/state" \
		--out-exit-code "$d/exit-code" -- python t.py >"$d/stdout" 2>"$d/stderr" &
	local pid=$!
	sleep "$2"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	echo $? >"$d/rc"
	echo "$2" >"$d/delay"
}
start=$(date +%s)
for ((i = 1; i <= n; i++)); do
	# 40% of the moments in the first 0.3 s (start-up, the create request),
	# the rest anywhere in 0-3.5 s
	one "$i" "$(awk -v s="$RANDOM" -v k="$RANDOM" \
		'BEGIN { printf "%.3f", (k % 5 < 2 ? s % 300 : s % 3500) / 1000 }')" &
	if ((i % batch == 0)); then wait; fi
done
wait
kc GET /_test/state >"$w/state.json"
python3 - "$w" "$n" "$(( $(date +%s) - start ))" "$top/build/bench/chaos.json" <<'PY'
import json, os, sys
w, n, secs, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
jobs = {j['name']: j for j in json.load(open(f'{w}/state.json'))['jaxjobs']}
def rd(i, f):
    try:
        return open(f'{w}/{i}/{f}').read().strip()
    except OSError:
        return ''
tally = {'cancelled': 0, 'finished': 0, 'killed_before_start': 0}
bad = []
for i in range(1, n + 1):
    rc, st, ec = rd(i, 'rc'), rd(i, 'state'), rd(i, 'exit-code')
    j = jobs.get(f'chaos-{i}')
    js = 'absent' if not j else ','.join(j['conditions']) + (' deleting' if j['deleting'] else '')
    why = None
    if rc == '5':
        tally['cancelled'] += 1
        if j:
            why = f'cancelled but job {js}'
        elif (st, ec) != ('Cancelled', '5'):
            why = f'outputs {st!r} {ec!r} for exit 5'
    elif rc == '0':
        tally['finished'] += 1
        if 'Succeeded' not in js or (st, ec) != ('Succeeded', '0'):
            why = f'exit 0 but job {js}, outputs {st!r} {ec!r}'
    elif rc == '143':
        tally['killed_before_start'] += 1
        if j:
            why = f'killed before start-up but job {js}'
    else:
        why = f'exit {rc}, job {js}'
    if why:
        tail = rd(i, 'stderr').splitlines()[-3:]
        bad.append({'launch': f'chaos-{i}', 'sigterm_after_s': float(rd(i, 'delay') or 0), 'why': why, 'stderr': tail})
res = {'sigterms': n, **tally, 'violations': len(bad), 'violation_list': bad[:20], 'total_s': secs}
os.makedirs(os.path.dirname(out), exist_ok=True)
json.dump(res, open(out, 'w'), indent=1)
print(f"{n} SIGTERMs at random moments: {tally['cancelled']} cancelled (job deleted), {tally['finished']} had finished, "
      f"{tally['killed_before_start']} killed before start-up; {len(bad)} violations ({secs} s)")
for b in bad[:20]:
    print(f"  {b['launch']} (SIGTERM after {b['sigterm_after_s']} s): {b['why']}")
    for l in b['stderr']:
        print(f"      {l}")
sys.exit(1 if bad else 0)
PY
