#!/usr/bin/python3
"""bench/crowd.py - the driver of bench/crowd.sh (read its header first).

    crowd.py --bin JAXJOB --kubeconfig FILE --sizes "1 20 50" --work DIR
             (--ks DIR | --server URL --ca FILE --token-file FILE --audit-log FILE)

For each size N, N `jaxjob launch` processes start at once, each a queue-labelled JAXJob in
namespace team-a (LocalQueue q); a simulated Kueue (tests/kueue/simkueue.py, its functions
called from one thread per job) holds each job as it appears and admits it ADMIT_AFTER seconds
later. Per launcher: CPU (user + system, wait4() of GNU time running it: time's own start,
about a millisecond, is in it), peak RSS (GNU time's %M: a wait4() of this process's own
ru_maxrss would count the forked Python's memory from before the exec), the bytes received and
the requests sent from its summary's "API traffic" row; per size: the API server's requests from
launchers (user agent jaxjob/...), divided by N, in all and by kind (verb, resource, an event
read's field selector, an answer other than 2xx): the real apiserver's audit log, read by
tests/realserver/auditlog.py as the suites read it, or the test double's request log. N = 1 runs ROUNDS1 times (its figures are the median of the rounds): it is
the peer each size's ratio is against, measured in the same run on the same server.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'tests', 'kueue'))
sys.path.insert(0, os.path.join(TOP, 'tests', 'realserver'))
import auditlog  # noqa: E402  (the one reader of the audit log, as the suites read it)
import simkueue  # noqa: E402

NS, LQ, CQ = 'team-a', 'q', 'cq'
TRAFFIC = re.compile(r'^\| API traffic \| (\d+) requests, (\d+) bytes received \|$', re.M)


def kueue_for(k, name, admit_after, errors):
    """Hold the job as it appears, admit it admit_after seconds later (one job's Kueue)."""
    a = argparse.Namespace(ns=NS, kind='JAXJob', name=name, lq=LQ, cq=CQ)
    try:
        simkueue.hold(k, a)
        time.sleep(admit_after)  # sleep-ok: the simulated Kueue's admission delay (a knob)
        simkueue.admit(k, a)
    except SystemExit as e:     # simkueue says what failed and exits: keep it, for the table
        errors.append(f'{name}: {e}')


def wait_job(k, kind, ns, name, ceiling=300.0):
    """simkueue's wait for the job to appear, polling 4 times a second, not 20: N threads poll
    at once here, and their load is the server's, beside the launchers measured."""
    end = time.monotonic() + ceiling
    while time.monotonic() < end:
        j = k.call('GET', simkueue.job_path(kind, ns, name), ok404=True)
        if j is not None:
            return j
        time.sleep(0.25)  # sleep-ok: the poll interval of the wait for the job to appear
    sys.exit(f'crowd: {kind} {ns}/{name} did not appear within {ceiling:.0f}s')


simkueue.wait_job = wait_job
simkueue.print = lambda *a, **kw: None     # hold prints the Workload's name: not in the table


def kind(verb, path, query='', code=None):
    """A request by verb and resource: 'watch events type=Warning', 'get pods/log', 'list
    workloads' (an event read with its field selector, a uid shown as X); an answer other
    than 2xx is a kind of its own ('get pods/log 400')."""
    path, _, q = path.partition('?')
    sel = urllib.parse.parse_qs(query or q).get('fieldSelector', [''])[0]
    sel = re.sub(r'(uid|name)=[^,]+', r'\1=X', sel)
    parts = path.strip('/').split('/')
    parts = parts[2:] if parts[0] == 'api' else parts[3:]     # /api/v1, /apis/GROUP/VERSION
    if parts[:1] == ['namespaces'] and len(parts) > 2:
        parts = parts[2:]
    if not parts:
        return f'{verb} {path}'
    return f'{verb} {parts[0]}' + (f'/{parts[2]}' if len(parts) > 2 else '') + \
        (f' {sel}' if parts[0] == 'events' and sel else '') + \
        (f' {code}' if code and not 200 <= code < 300 else '')


def double_verb(r):
    if r.get('watch'):
        return 'watch'
    if r['method'] == 'GET':
        tail = r['path'].strip('/').split('/')
        return 'list' if tail[-1] in ('jaxjobs', 'trainjobs', 'pods', 'events', 'workloads',
                                      'localqueues') else 'get'
    return {'POST': 'create'}.get(r['method'], r['method'].lower())


def server_requests(o, k, mark):
    """Requests of launchers (user agent jaxjob/...) since mark, by kind, and the new mark."""
    if o.ks:
        log = k.call('GET', f'/_test/requests?since={mark}')
        mine = [(double_verb(r), r['path'], r.get('query'), r.get('code')) for r in log
                if r.get('userAgent', '').startswith('jaxjob/')]
        end = max([mark] + [r['seq'] for r in log])
    else:
        time.sleep(0.5)     # sleep-ok: let the last audit lines (watches closing) reach the file
        reqs, end = auditlog.read(o.audit_log, 'jaxjob/', mark)
        # a watch's ResponseComplete may land after the mark: counted with the size it ran in
        reqs = [e for e in reqs if e.get('auditID') not in o.counted]
        o.counted.update(e.get('auditID') for e in reqs)
        mine = [(e.get('verb'), e.get('requestURI') or '', '',
                 (e.get('responseStatus') or {}).get('code')) for e in reqs]
    return collections.Counter(kind(*r) for r in mine), end


def one_round(o, k, n, tag, binary):
    d = os.path.join(o.work, tag)
    os.makedirs(d, exist_ok=True)
    names = [f'crowd-{tag}-{i}' for i in range(n)]
    errors, procs = [], []
    t0 = time.monotonic()
    for name in names:
        args = ['/usr/bin/time', '-f', '%M', '-o', f'{d}/{name}.rss', binary, 'launch', '--kubeconfig', o.kubeconfig, '--name', name, '--image', 'x/jax:1',
                '--workers', str(o.workers), '--local-queue', LQ, '--env', f'SIM_LINES={o.lines}',
                '--env', f'SIM_DURATION={o.duration}', '--timeout', '900', '--queue-timeout', '900',
                '--out-summary', f'{d}/{name}.summary', '--out-state', f'{d}/{name}.state']
        with open(f'{d}/{name}.out', 'w') as out, open(f'{d}/{name}.err', 'w') as err:
            procs.append(subprocess.Popen(args, stdout=out, stderr=err))
    threads = [threading.Thread(target=kueue_for, args=(k, name, o.admit_after, errors))
               for name in names]
    for t in threads:
        t.start()
    runs, by_pid = [], {p.pid: (name, p) for name, p in zip(names, procs)}
    while by_pid:   # in the order they end: each one's wall time is its own
        pid, status, ru = os.wait4(-1, 0)
        if pid not in by_pid:
            continue
        name, p = by_pid.pop(pid)
        p.returncode = os.waitstatus_to_exitcode(status)
        state = open(f'{d}/{name}.state').read().strip() if os.path.exists(f'{d}/{name}.state') else '-'
        m = TRAFFIC.search(open(f'{d}/{name}.summary').read()) \
            if os.path.exists(f'{d}/{name}.summary') else None
        runs.append({'name': name, 'rc': p.returncode, 'state': state,
                     'cpu_s': ru.ru_utime + ru.ru_stime, 'rss_kib': rss_of(f'{d}/{name}.rss'),
                     'wall_s': time.monotonic() - t0,
                     'requests': int(m.group(1)) if m else None, 'bytes': int(m.group(2)) if m else None})
    for t in threads:
        t.join()
    return runs, errors


def rss_of(path):
    """GNU time's %M (KiB), the last line of its output file (a first line may say the exit)."""
    try:
        return int(open(path).read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def med(runs, key):
    v = [r[key] for r in runs if r[key] is not None]
    return statistics.median(v) if v else float('nan')


def table(rows, title):
    base = rows[0]

    def cell(r, key, fmt):
        if r[key] != r[key]:    # NaN: an older binary has no "API traffic" row
            return '-'
        ratio = r[key] / base[key] if base[key] else float('nan')
        return f'{format(r[key], fmt)} ({ratio:.2f}x)'
    print(f'\n{title}\n')
    print('| N | CPU ms (max) | peak RSS MiB | bytes received | requests sent | server requests '
          '/ launcher | mean wall s |')
    print('|---|---|---|---|---|---|---|')
    for r in rows:
        print(f"| {r['n']} | {cell(r, 'cpu_ms', '.1f')} ({r['cpu_max_ms']:.1f}) | "
              f"{cell(r, 'rss_mib', '.1f')} | {cell(r, 'bytes', '.0f')} | "
              f"{cell(r, 'requests', '.0f')} | {cell(r, 'server_requests', '.1f')} | "
              f"{r['wall_s']:.1f} |")


def kinds_table(rows):
    """The server's requests per launcher by kind at each size: which read grows with N."""
    keys = sorted({key for r in rows for key in r['kinds']})
    print('\n| request (server\'s count per launcher) | ' +
          ' | '.join(f"N = {r['n']}" for r in rows) + ' |')
    print('|---|' + '---|' * len(rows))
    for key in keys:
        print(f'| {key} | ' + ' | '.join(f"{r['kinds'].get(key, 0):.2f}" for r in rows) + ' |')


def main():
    ap = argparse.ArgumentParser()
    for a in ('--bin', '--kubeconfig', '--work', '--ks', '--server', '--ca', '--token-file',
              '--audit-log'):
        ap.add_argument(a)
    ap.add_argument('--baseline', help='another jaxjob binary, measured after each size')
    ap.add_argument('--sizes', default='1 20 50')
    ap.add_argument('--rounds1', type=int, default=3)
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--lines', type=int, default=15)
    ap.add_argument('--duration', type=float, default=15)
    ap.add_argument('--admit-after', type=float, default=1.0)
    o = ap.parse_args()
    if o.ks:
        o.server = open(o.ks + '/url').read().strip()
        o.ca, o.token_file = o.ks + '/ca.pem', o.ks + '/admin.token'
    k = simkueue.Kube(o.server, o.ca, open(o.token_file).read().strip())
    mark, o.counted = 0 if o.ks else os.path.getsize(o.audit_log), set()
    _, mark = server_requests(o, k, mark)
    bins = [('jaxjob', o.bin)] + ([('baseline', o.baseline)] if o.baseline else [])
    rows, raw, bad = {b: [] for b, _ in bins}, {}, []
    for n in [int(x) for x in o.sizes.split()]:
        for b, binary in bins:
            per_round = []
            for r in range(o.rounds1 if n == 1 else 1):
                runs, errors = one_round(o, k, n, f'{n}{b[0]}{r}', binary)
                sreq, mark = server_requests(o, k, mark)
                per_round.append((runs, sreq))
                bad += errors + [f"{x['name']}: exit {x['rc']}, state {x['state']}"
                                 for x in runs if x['rc'] != 0 or x['state'] != 'Succeeded']
            runs = [x for rr, _ in per_round for x in rr]
            raw[f'{b}-{n}'] = runs
            rows[b].append({'n': n, 'cpu_ms': 1000 * med(runs, 'cpu_s'),
                            'cpu_max_ms': 1000 * max(x['cpu_s'] for x in runs),
                            'rss_mib': med(runs, 'rss_kib') / 1024, 'bytes': med(runs, 'bytes'),
                            'requests': med(runs, 'requests'),
                            'server_requests': statistics.median(sum(s.values()) / n
                                                                 for _, s in per_round),
                            'kinds': {key: v / (n * len(per_round)) for key, v in
                                      sum((s for _, s in per_round), collections.Counter()).items()},
                            'wall_s': statistics.mean(x['wall_s'] for x in runs)})
    print(f"server: {'test double' if o.ks else 'real kube-apiserver'}; {o.workers} workers, "
          f"{o.duration:g} s jobs, Kueue admits after {o.admit_after:g} s; medians per launcher; "
          f"(x) = ratio to the same binary's first size (N = {rows['jaxjob'][0]['n']})")
    for b, binary in bins:
        table(rows[b], f'{b}: {binary}')
        kinds_table(rows[b])
    json.dump({'rows': rows, 'runs': raw}, open(os.path.join(o.work, 'crowd.json'), 'w'), indent=1)
    if bad:
        print('\nlaunches that did not succeed:\n  ' + '\n  '.join(bad[:20]), file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
