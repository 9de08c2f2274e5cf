#!/usr/bin/env bash
# bench/realserver.sh [BINARY] - `jaxjob launch` on a REAL kube-apiserver 1.24 (+ etcd, the
# garbage collector; ../shared/tools/kube-control-plane via tests/realserver/kcp.sh, operator and
# kubelet simulated through the API) next to the project's test double
# (tests/kube-apiserver), in the same run, same jobs:
#
#   requests          API requests the launch made over one job of JOB_S seconds (default 60)
#                     with WORKERS workers (default 2), logs followed: the double's request log,
#                     the real server's audit log (user agent jaxjob/...), by kind
#   Succeeded -> exit detection latency: the simulated operator is stopped and the bench marks
#                     the job Succeeded itself (PATCH .../status, as bench/launch.sh does); time
#                     from sending that PATCH to the launch process having exited
#                     (RUNS times, default 5: median and best)
#
# A table, not a timed test. Needs ../shared (JAXJOB_SHARED or the sibling directory) and etcd.
# Release build recommended (make).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
RUNS=${RUNS:-5}
JOB_S=${JOB_S:-60}
WORKERS=${WORKERS:-2}
export JAXJOB_SHARED=${JAXJOB_SHARED:-$( [ -d "$top/../shared/tools" ] && cd "$top/../shared" && pwd)}
W=$(mktemp -d /tmp/jaxjob-bench-real.XXXXXX)
# shellcheck disable=SC1091
. "$top/tests/realserver/kcp.sh"
if ! kcp_check; then
	echo "bench/realserver.sh: $KCP_WHY" >&2
	exit 1
fi
trap 'kcp_down; "$top/tests/kube-apiserver/stop.sh" "$W/ks" >/dev/null 2>&1; rm -rf "$W"' EXIT
"$top/tests/kube-apiserver/start.sh" "$W/ks"
kcp_up "$W/kcp" >/dev/null

"$KCP_PY" - "$BIN" "$W/ks" "$KCP_DIR" "$top/tests/realserver/operator.py" "$RUNS" "$JOB_S" "$WORKERS" <<'PY'
import json, os, ssl, statistics, subprocess, sys, time, urllib.request

BIN, KS, KCP, OPERATOR = sys.argv[1:5]
sys.path.insert(0, os.path.dirname(OPERATOR))
import auditlog  # noqa: E402  (tests/realserver/auditlog.py: the one reader of the audit log)
RUNS, JOB_S, WORKERS = int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
NS = 'team-a'
ENV = {}
for line in open(KCP + '/env'):
    if line.startswith('export '):
        k, v = line[7:].strip().split('=', 1)
        ENV[k] = v.strip('"')


class Server:
    def __init__(self, name, url, ca, kubeconfig, token=None, cert=None):
        self.name, self.url, self.kubeconfig, self.token = name, url, kubeconfig, token
        self.ctx = ssl.create_default_context(cafile=ca)
        if cert:
            self.ctx.load_cert_chain(*cert)

    def ctl(self, method, path, body=None, ctype='application/json'):
        h = {'Content-Type': ctype, 'User-Agent': 'bench/1'}
        if self.token:
            h['Authorization'] = 'Bearer ' + self.token
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
            return json.loads(r.read() or b'null')

    def exists(self, name):
        try:
            self.ctl('GET', f'/apis/kubeflow.org/v1/namespaces/{NS}/jaxjobs/{name}')
            return True
        except urllib.error.HTTPError:
            return False


class Double(Server):
    def __init__(self):
        super().__init__('test double', open(KS + '/url').read().strip(), KS + '/ca.pem', KS + '/kubeconfig',
                         token=open(KS + '/admin.token').read().strip())

    def mark(self):
        return self.ctl('GET', '/_test/state')['requests']

    def requests(self, since):
        def verb(r):
            if r['watch']:
                return 'watch'
            if r['method'] == 'GET' and r['path'].rsplit('/', 1)[-1] in ('jaxjobs', 'trainjobs', 'pods', 'events'):
                return 'list'
            return r['method'].lower()
        return [{'verb': verb(r), 'path': r['path']}
                for r in self.ctl('GET', f'/_test/requests?since={since}')
                if r['user'] == 'admin' and (r.get('userAgent') or '').startswith('jaxjob/')]

    def operator(self, on):
        self.ctl('POST', '/_test/config', {'operator': on})


class Real(Server):
    def __init__(self):
        super().__init__('real kube-apiserver 1.24', ENV['KUBE_SERVER'], ENV['KUBE_CA'], KCP + '/kubeconfig',
                         cert=(KCP + '/pki/admin.crt', KCP + '/pki/admin.key'))
        self.audit = ENV['KCP_AUDIT_LOG']

    def mark(self):
        return os.path.getsize(self.audit)

    def requests(self, since):
        time.sleep(0.5)     # let the last entries (watches closing) reach the file
        reqs, _ = auditlog.read(self.audit, 'jaxjob/', since)
        return [{'verb': e['verb'], 'path': e['requestURI'].split('?')[0]} for e in reqs]

    def operator(self, on):
        pidf = KCP + '/pids/operator.pid'
        if not on:
            pid = int(open(pidf).read())
            os.kill(pid, 15)
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except OSError:
                    break
                time.sleep(0.05)
            return
        ready = KCP + '/operator.ready'
        if os.path.exists(ready):
            os.unlink(ready)
        p = subprocess.Popen(['/usr/bin/python3', OPERATOR, '--env', KCP + '/env', '--ready-file', ready],
                             stdout=subprocess.DEVNULL, stderr=open(KCP + '/logs/operator.log', 'a'),
                             start_new_session=True)
        open(pidf, 'w').write(str(p.pid))
        while not os.path.exists(ready):
            time.sleep(0.05)


def kind(r):
    if r['path'].endswith('/log'):
        return 'log follow'
    if 'selfsubject' in r['path']:
        return 'access review'
    return {'get': 'get', 'list': 'list', 'watch': 'watch', 'create': 'create', 'post': 'create',
            'delete': 'delete', 'patch': 'patch'}.get(r['verb'], r['verb'])


def launch(srv, name, extra, env=None):
    cmd = [BIN, 'launch', '--kubeconfig', srv.kubeconfig, '--name', name, '--image', 'x/jax:1', '--quiet'] + extra
    for k, v in (env or {}).items():
        cmd += ['--env', f'{k}={v}']
    return subprocess.Popen(cmd + ['--', 'python', 'train.py'], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def requests_over_job(srv, tag):
    m = srv.mark()
    p = launch(srv, f'rq-{tag}', ['--workers', str(WORKERS)],
               {'SIM_LINES': '10', 'SIM_DURATION': str(JOB_S)})
    assert p.wait() == 0, (srv.name, p.returncode)
    reqs = srv.requests(m)
    kinds = {}
    for r in reqs:
        kinds[kind(r)] = kinds.get(kind(r), 0) + 1
    return len(reqs), kinds


def succeeded_to_exit(srv, tag, i):
    name = f'se-{tag}-{i}'
    p = launch(srv, name, ['--workers', '1'])
    for _ in range(400):
        if srv.exists(name):
            break
        time.sleep(0.025)
    time.sleep(1.0)     # let the launch settle into its watch
    now = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    t_s = time.time()
    srv.ctl('PATCH', f'/apis/kubeflow.org/v1/namespaces/{NS}/jaxjobs/{name}/status', {'status': {
        'startTime': now, 'completionTime': now, 'conditions': [
            {'type': 'Created', 'status': 'True', 'reason': 'JAXJobCreated', 'message': 'created',
             'lastUpdateTime': now, 'lastTransitionTime': now},
            {'type': 'Succeeded', 'status': 'True', 'reason': 'JAXJobSucceeded', 'message': 'done',
             'lastUpdateTime': now, 'lastTransitionTime': now}]}}, 'application/merge-patch+json')
    assert p.wait() == 0, (srv.name, p.returncode)
    return (time.time() - t_s) * 1000


rows = []
for srv, tag in ((Double(), 'd'), (Real(), 'r')):
    n, kinds = requests_over_job(srv, tag)
    srv.operator(False)
    try:
        lat = [succeeded_to_exit(srv, tag, i) for i in range(RUNS)]
    finally:
        srv.operator(True)
    rows.append((srv.name, n, kinds, lat))
    print(f'# {srv.name}: {n} requests {kinds}, Succeeded->exit {lat}', file=sys.stderr)

print(f'| server | API requests over a {JOB_S:.0f} s {WORKERS}-worker job (by kind) | '
      f'Succeeded -> exit, median / best (ms, {RUNS} runs) |')
print('|---|---|---|')
for name, n, kinds, lat in rows:
    k = ', '.join(f'{v} {key}' for key, v in sorted(kinds.items()))
    print(f'| {name} | {n} ({k}) | {statistics.median(lat):.1f} / {min(lat):.1f} |')
PY
