#!/usr/bin/env bash
# bench/load.sh [N] [BINARY] - N (default 100) concurrent `jaxjob launch`
# processes against one Kubernetes API test server (tests/kube-apiserver):
# does every launch finish with the right state, is the number of jobs
# created equal to the number of launches, and what does each process cost
# (peak RSS from GNU time, wall time)? Release build by default
# (build/jaxjob). Each launch: 2 workers, 3 log lines each, --delete-after
# always. Prints a table and writes build/bench/load.json (read by
# scripts/reliability-report.sh). Not a test: no assertion fails the run,
# but the exit status is 1 when a launch ended wrong or jobs != launches.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100}
bin=${2:-$top/build/jaxjob}
[ -x "$bin" ] || { echo "bench/load.sh: $bin is not built (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/load.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
w=$(mktemp -d /tmp/jaxjob-load.XXXXXX)
ks=$w/ks
trap '"$top/tests/kube-apiserver/stop.sh" "$ks"; rm -rf "$w"' EXIT
"$top/tests/kube-apiserver/start.sh" "$ks" >/dev/null || exit 1
kc() { python3 "$top/tests/kube-apiserver/kclient.py" "$ks" "$@"; }
mark=$(kc GET /_test/state | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')

start=$(date +%s.%N)
for i in $(seq 1 "$n"); do
	/usr/bin/time -o "$w/$i.time" -f '%M %e' "$bin" launch --kubeconfig "$ks/kubeconfig" \
		--name "load-$i" --image x/jax:1 --workers 2 --env SIM_LINES=3 --timeout 300 \
		--delete-after always --out-state "$w/$i.state" -- python t.py >"$w/$i.out" 2>"$w/$i.err" &
done
wait
end=$(date +%s.%N)

kc GET "/_test/requests?since=$mark" >"$w/requests.json"
python3 - "$w" "$n" "$start" "$end" "$top/build/bench/load.json" <<'PY'
import json, os, statistics, sys
w, n, start, end, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rss, wall, wrong = [], [], []
for i in range(1, n + 1):
    st = open(f'{w}/{i}.state').read().strip() if os.path.exists(f'{w}/{i}.state') else '-'
    if st != 'Succeeded':
        wrong.append(f'load-{i}:{st}')
    try:
        kb, sec = open(f'{w}/{i}.time').read().split()[-2:]
        rss.append(int(kb) / 1024.0)
        wall.append(float(sec))
    except (OSError, ValueError):
        wrong.append(f'load-{i}:no-time')
reqs = json.load(open(f'{w}/requests.json'))
created = sum(1 for r in reqs if r['method'] == 'POST' and r['path'].endswith('/jaxjobs') and r.get('code') == 201)
deleted = sum(1 for r in reqs if r['method'] == 'DELETE' and '/jaxjobs/' in r['path'] and r.get('code') in (200, 202))
res = {
    'launches': n, 'succeeded': n - len([x for x in wrong if not x.endswith('no-time')]),
    'jobs_created': created, 'jobs_deleted': deleted, 'requests': len(reqs),
    'requests_per_launch': round(len(reqs) / n, 1),
    'rss_mb': {'min': round(min(rss), 1), 'median': round(statistics.median(rss), 1), 'max': round(max(rss), 1)},
    'wall_s': {'median': round(statistics.median(wall), 2), 'max': round(max(wall), 2)},
    'total_s': round(end - start, 1), 'wrong': wrong[:20],
}
os.makedirs(os.path.dirname(out), exist_ok=True)
json.dump(res, open(out, 'w'), indent=1)
print(f"{n} concurrent launches: {res['succeeded']} Succeeded, jobs created {created} (deleted {deleted}), "
      f"{len(reqs)} API requests ({res['requests_per_launch']}/launch)")
print(f"peak RSS per process: min {res['rss_mb']['min']} MB, median {res['rss_mb']['median']} MB, max {res['rss_mb']['max']} MB")
print(f"wall per process: median {res['wall_s']['median']} s, max {res['wall_s']['max']} s; all done in {res['total_s']} s")
if wrong:
    print('wrong:', ' '.join(wrong[:20]))
sys.exit(0 if not wrong and created == n else 1)
PY
