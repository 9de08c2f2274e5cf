#!/usr/bin/env python3
"""Behaviour of the Kubernetes API test server that the recorded transcripts do not cover:
the simulated operator (JAXJob and TrainJob lifecycles, SIM_* knobs), auth variants, fault
injection and the test control endpoints. One TAP line per behaviour."""
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import traceback

TOP = os.environ.get('JAXJOB_TOP') or os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SRV = os.path.join(TOP, 'tests', 'kube-apiserver')
sys.path.insert(0, SRV)
from kclient import Client  # noqa: E402

TMP = os.environ.get('JAXJOB_TMP') or '/tmp'
DIR = os.path.join(TMP, f'apiserver-self.{os.getpid()}')
NS = '/apis/kubeflow.org/v1/namespaces/team-a/jaxjobs'
TJ = '/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs'
PODS = '/api/v1/namespaces/team-a/pods'
EVENTS = '/api/v1/namespaces/team-a/events'
results = []


def test(desc):
    def deco(fn):
        results.append((desc, fn))
        return fn
    return deco


def job(name, replicas=2, env=None, policy=None, image='ghcr.io/example/jax:1', run_policy=None, extra=None):
    c = {'name': 'jax', 'image': image, 'command': ['python3', 'train.py'],
         'env': [{'name': k, 'value': str(v)} for k, v in (env or {}).items()]}
    w = {'replicas': replicas, 'template': {'spec': {'containers': [c]}}}
    if policy:
        w['restartPolicy'] = policy
    spec = {'jaxReplicaSpecs': {'Worker': w}}
    if run_policy is not None:
        spec['runPolicy'] = run_policy
    o = {'apiVersion': 'kubeflow.org/v1', 'kind': 'JAXJob', 'metadata': {'name': name, 'namespace': 'team-a'},
         'spec': spec}
    if extra:
        extra(o)
    return o


def conds(o):
    return {c['type']: c for c in (o.get('status') or {}).get('conditions') or []}


def true_cond(t):
    return lambda o: conds(o).get(t, {}).get('status') == 'True'


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def create(c, o, path=NS):
    st, body, _ = c.req('POST', path, o)
    check(st == 201, f'create {o["metadata"]["name"]}: {st} {json.dumps(body)[:300]}')
    return body


def settle(c, horizon=0.5):
    """Before asserting that something did NOT happen: the event that the simulation ran all it
    had due within `horizon` seconds (GET /_test/settle), however slow the machine."""
    st, body, _ = c.req('GET', f'/_test/settle?horizon={horizon}')
    check(st == 200, f'the simulation did not settle: {st} {body}')


def answered(c, path, seconds=60.0):
    """Poll PATH until the server answers it (after a `down` fault); the answer's body."""
    end = time.monotonic() + seconds
    while True:
        try:
            st, body, _ = c.req('GET', path)
            if st == 200:
                return body
        except (OSError, ssl.SSLError):
            pass
        check(time.monotonic() < end, f'{path}: no answer in {seconds} s')
        time.sleep(0.05)    # sleep-ok: poll interval (until the server answers again)


def events_for(c, name):
    return [e for e in c.get(EVENTS)['items'] if e['involvedObject']['name'].startswith(name)]


# ---------------------------------------------------------------------------------------------

@test('a JAXJob goes Created -> Running -> Succeeded, watched with bookmarks, condition messages as upstream')
def _(c):
    create(c, job('life', env={'SIM_LINES': 3, 'SIM_DURATION': 1}))
    st, lines, _ = c.stream(NS + '?watch=1&fieldSelector=metadata.name%3Dlife&allowWatchBookmarks=true', 15,
                            until=lambda l: '"Succeeded"' in l)
    check(st == 200, f'watch status {st}')
    seen = []
    for line in lines:
        e = json.loads(line)
        if e['type'] == 'BOOKMARK':
            check(list(e['object']['metadata']) == ['resourceVersion'], 'bookmark shape')
            continue
        cs = conds(e['object'])
        state = ','.join(f'{t}={v["status"]}' for t, v in cs.items())
        if not seen or seen[-1] != state:
            seen.append(state)
    check('Created=True,Running=True' in seen, f'no Running state in {seen}')
    check(seen[-1] == 'Created=True,Running=False,Succeeded=True', f'final {seen}')
    o = c.get(NS + '/life')
    cs = conds(o)
    check(cs['Created']['message'] == 'JAXJob life is created.', cs['Created'])
    check(cs['Running']['message'] == 'JAXJob team-a/life is running.', cs['Running'])
    check(cs['Succeeded']['reason'] == 'JAXJobSucceeded' and
          cs['Succeeded']['message'] == 'JAXJob team-a/life successfully completed.', cs['Succeeded'])
    check(o['status']['replicaStatuses']['Worker'].get('succeeded') == 2, o['status'])
    check('completionTime' in o['status'] and 'startTime' in o['status'], o['status'])


@test('worker pods carry the operator labels, ownerReference and injected env')
def _(c):
    create(c, job('labels', replicas=2))
    pods = c.wait_for(PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dlabels',
                      lambda b: len(b['items']) == 2)['items']
    p0 = next(p for p in pods if p['metadata']['name'] == 'labels-worker-0')
    p1 = next(p for p in pods if p['metadata']['name'] == 'labels-worker-1')
    check(p0['metadata']['labels'].get('training.kubeflow.org/job-role') == 'master', p0['metadata']['labels'])
    check('training.kubeflow.org/job-role' not in p1['metadata']['labels'], p1['metadata']['labels'])
    for k, v in (('training.kubeflow.org/replica-type', 'worker'), ('training.kubeflow.org/replica-index', '1'),
                 ('training.kubeflow.org/operator-name', 'jaxjob-controller')):
        check(p1['metadata']['labels'].get(k) == v, f'{k} in {p1["metadata"]["labels"]}')
    ref = p1['metadata']['ownerReferences'][0]
    check(ref['kind'] == 'JAXJob' and ref['name'] == 'labels' and ref['controller'] and ref['blockOwnerDeletion'], ref)
    env = {e['name']: e.get('value') for e in p1['spec']['containers'][0]['env']}
    check(env.get('PROCESS_ID') == '1' and env.get('NUM_PROCESSES') == '2' and
          env.get('COORDINATOR_ADDRESS') == 'labels-worker-0' and env.get('COORDINATOR_PORT') == '6666', env)


@test('a follow log stream delivers every line as printed and ends when the container exits')
def _(c):
    create(c, job('logs', replicas=1, env={'SIM_LINES': 4, 'SIM_DURATION': 1.5}))
    c.wait_for(PODS + '/logs-worker-0', lambda p: p['status'].get('phase') == 'Running')
    st, lines, ended = c.stream(PODS + '/logs-worker-0/log?container=jax&follow=true', 15)
    check(st == 200 and ended, f'status {st}, ended {ended}')
    check(len(lines) == 6 and lines[1].startswith('step 1/4') and lines[-1].startswith('INFO:sim:worker 0 finished'),
          lines)
    st, body, h = c.req('GET', PODS + '/logs-worker-0/log?tailLines=2&timestamps=true')
    check(st == 200 and h.get('Content-Type') == 'text/plain' and len(body.splitlines()) == 2
          and body.split(' ', 1)[0].endswith('Z'), (st, h, body))


@test('SIM_FAIL_WORKER/SIM_EXIT fail the job with the upstream message and an ExitedWithCode event')
def _(c):
    create(c, job('fails', replicas=3, env={'SIM_FAIL_WORKER': 2, 'SIM_EXIT': 3}))
    o = c.wait_for(NS + '/fails', true_cond('Failed'))
    cs = conds(o)
    check(cs['Failed']['message'] == 'JAXJob fails is failed because 1 Worker replica(s) failed.', cs['Failed'])
    check(cs['Running']['status'] == 'False', cs)
    p = c.get(PODS + '/fails-worker-2')
    check(p['status']['phase'] == 'Failed' and
          p['status']['containerStatuses'][0]['state']['terminated']['exitCode'] == 3, p['status'])
    check(any(e['reason'] == 'ExitedWithCode' and 'exited with code 3' in e['message'] for e in events_for(c, 'fails')),
          'no ExitedWithCode event')


@test('SIM_LATE_WORKER: the late worker pod appears after the others and the job still succeeds')
def _(c):
    create(c, job('late', replicas=3, env={'SIM_LATE_WORKER': 2, 'SIM_LATE_DELAY': 1.5, 'SIM_DURATION': 0.5}))
    c.wait_for(PODS + '/late-worker-1', lambda p: True)
    st, _, _ = c.req('GET', PODS + '/late-worker-2')
    check(st == 404, 'late worker exists at once')
    c.wait_for(PODS + '/late-worker-2', lambda p: True)
    c.wait_for(NS + '/late', true_cond('Succeeded'))


@test('SIM_RESTART with restartPolicy ExitCode: Restarting, then Running again, then Succeeded')
def _(c):
    create(c, job('restart', replicas=2, policy='ExitCode',
                  env={'SIM_RESTART': 1, 'SIM_FAIL_WORKER': 1, 'SIM_DURATION': 0.6}))
    st, lines, _ = c.stream(NS + '?watch=1&fieldSelector=metadata.name%3Drestart', 20,
                            until=lambda l: '"Succeeded"' in l or '"Failed"' in l)
    states = []
    for line in lines:
        cs = conds(json.loads(line)['object'])
        states.append({t for t, v in cs.items() if v['status'] == 'True'})
    i = next((k for k, s in enumerate(states) if 'Restarting' in s), None)
    check(i is not None, f'no Restarting in {states}')
    check(any('Running' in s for s in states[i:]), f'no Running after Restarting: {states}')
    check('Succeeded' in states[-1], f'final {states[-1]}')


@test('SIM_RESTART with restartPolicy OnFailure restarts the container in place (restartCount, previous log)')
def _(c):
    create(c, job('inplace', replicas=1, policy='OnFailure', env={'SIM_RESTART': 1, 'SIM_DURATION': 0.5}))
    c.wait_for(NS + '/inplace', true_cond('Succeeded'))
    p = c.get(PODS + '/inplace-worker-0')
    cs = p['status']['containerStatuses'][0]
    check(cs['restartCount'] == 1 and cs['lastState']['terminated']['exitCode'] == 137, cs)
    st, body, _ = c.req('GET', PODS + '/inplace-worker-0/log?previous=true')
    check(st == 200 and 'crashed' in body, body)


@test('an image pull error: pod waiting ErrImagePull, kubelet events, log 400, job stays Created')
def _(c):
    create(c, job('pull', replicas=1, image='sim/image-pull-error'))
    p = c.wait_for(PODS + '/pull-worker-0', lambda p: (p['status'].get('containerStatuses') or [{}])[0]
                   .get('state', {}).get('waiting', {}).get('reason') == 'ErrImagePull')
    check(p['status']['phase'] == 'Pending', p['status'])
    evs = c.wait_for(EVENTS + '?fieldSelector=involvedObject.name%3Dpull-worker-0%2Creason%3DFailed',
                     lambda b: len(b['items']) >= 2)['items']
    msgs = [e['message'] for e in evs]
    check('Error: ErrImagePull' in msgs and any(m.startswith('Failed to pull image "sim/image-pull-error"')
                                                for m in msgs), msgs)
    st, body, _ = c.req('GET', PODS + '/pull-worker-0/log?container=jax')
    check(st == 400 and 'is waiting to start' in body['message'], body)
    check(set(conds(c.get(NS + '/pull'))) == {'Created'}, conds(c.get(NS + '/pull')))


@test('an unschedulable pod: PodScheduled=False Unschedulable, FailedScheduling event, log 204')
def _(c):
    create(c, job('nosched', replicas=1, env={'SIM_UNSCHEDULABLE': 1}))
    p = c.wait_for(PODS + '/nosched-worker-0', lambda p: p['status'].get('conditions'))
    pc = p['status']['conditions'][0]
    check(pc['type'] == 'PodScheduled' and pc['status'] == 'False' and pc['reason'] == 'Unschedulable', pc)
    c.wait_for(EVENTS + '?fieldSelector=involvedObject.name%3Dnosched-worker-0%2Creason%3DFailedScheduling',
               lambda b: len(b['items']) == 1)
    st, _, h = c.req('GET', PODS + '/nosched-worker-0/log')
    check(st == 204 and 'Content-Type' not in h, (st, h))


@test('a failing Service creation: FailedCreateService event and the job stays Created')
def _(c):
    create(c, job('nosvc', replicas=1, env={'SIM_FAIL_SERVICE': 1}))
    evs = c.wait_for(EVENTS + '?fieldSelector=involvedObject.kind%3DJAXJob%2CinvolvedObject.name%3Dnosvc',
                     lambda b: any(e['reason'] == 'FailedCreateService' for e in b['items']))['items']
    check(any(e['type'] == 'Warning' for e in evs), evs)
    c.wait_for(PODS + '/nosvc-worker-0', lambda p: p['status'].get('phase') == 'Running')
    settle(c)   # the operator has had its turn after the pod ran
    check(set(conds(c.get(NS + '/nosvc'))) == {'Created'}, conds(c.get(NS + '/nosvc')))


@test('suspend deletes the pods (Suspended=True), resume brings them back (Suspended=False JAXJobResumed, Running)')
def _(c):
    create(c, job('susp', replicas=2, env={'SIM_HANG': 1}, run_policy={}))
    c.wait_for(NS + '/susp', true_cond('Running'))
    st, _, _ = c.req('PATCH', NS + '/susp', {'spec': {'runPolicy': {'suspend': True}}}, 'application/merge-patch+json')
    check(st == 200, st)
    o = c.wait_for(NS + '/susp', true_cond('Suspended'))
    check(conds(o)['Running']['status'] == 'False' and conds(o)['Running']['reason'] == 'JAXJobSuspended', conds(o))
    c.wait_for(PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dsusp', lambda b: not b['items'])
    st, _, _ = c.req('PATCH', NS + '/susp', [{'op': 'replace', 'path': '/spec/runPolicy/suspend', 'value': False}],
                     'application/json-patch+json')
    check(st == 200, st)
    o = c.wait_for(NS + '/susp', lambda o: conds(o).get('Suspended', {}).get('reason') == 'JAXJobResumed'
                   and conds(o).get('Running', {}).get('status') == 'True')
    check(list(conds(o))[-1] == 'Running', list(conds(o)))


@test('a JAXJob created suspended gets Created and Suspended, no pods and no startTime')
def _(c):
    create(c, job('born-susp', replicas=2, run_policy={'suspend': True}))
    o = c.wait_for(NS + '/born-susp', true_cond('Suspended'))
    check(list(conds(o)) == ['Created', 'Suspended'] and 'startTime' not in o['status']
          and conds(o)['Suspended']['message'] == 'JAXJob born-susp is suspended.', o['status'])
    check(not c.get(PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dborn-susp')['items'], 'pods exist')


@test('cleanPodPolicy All deletes the pods of a finished job; ttlSecondsAfterFinished deletes the job')
def _(c):
    create(c, job('ttl', replicas=2, env={'SIM_DURATION': 0.3},
                  run_policy={'cleanPodPolicy': 'All', 'ttlSecondsAfterFinished': 1}))
    c.wait_for(NS + '?fieldSelector=metadata.name%3Dttl',
               lambda b: b['items'] and true_cond('Succeeded')(b['items'][0]))
    c.wait_for(PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dttl', lambda b: not b['items'])
    c.wait_for(NS + '?fieldSelector=metadata.name%3Dttl', lambda b: not b['items'])


@test('an unknown cleanPodPolicy (neither CRD nor webhook refuses it) deletes the pods as All does')
def _(c):
    create(c, job('cpp-some', replicas=2, env={'SIM_DURATION': 0.3}, run_policy={'cleanPodPolicy': 'Some'}))
    c.wait_for(NS + '/cpp-some', true_cond('Succeeded'))
    c.wait_for(PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dcpp-some', lambda b: not b['items'])


@test('fault operatorDelay holds back every status transition of the simulated operator')
def _(c):
    c.req('POST', '/_test/faults', {'operatorDelay': 2})
    try:
        create(c, job('slowop', replicas=1, env={'SIM_DURATION': 0.3}))
        settle(c, 0.5)  # everything the simulation had due within 0.5 s of the create has run
        check('status' not in c.get(NS + '/slowop'), 'status written before the delay')
        c.wait_for(NS + '/slowop', true_cond('Created'))
    finally:
        c.req('POST', '/_test/faults', {'operatorDelay': None})
    c.wait_for(NS + '/slowop', true_cond('Succeeded'))


@test('deleting a running JAXJob garbage-collects its pods and ends their follow streams')
def _(c):
    create(c, job('gc', replicas=2, env={'SIM_HANG': 1}))
    c.wait_for(PODS + '/gc-worker-0', lambda p: p['status'].get('phase') == 'Running')
    out = {}
    streaming = threading.Event()

    def follow():
        out['r'] = c.stream(PODS + '/gc-worker-0/log?follow=true', 60,
                            lambda line: streaming.set())
    t = threading.Thread(target=follow)
    t.start()
    check(streaming.wait(60), 'the follow stream brought no line')    # it is open: delete now
    st, body, _ = c.req('DELETE', NS + '/gc?propagationPolicy=Foreground')
    check(st == 200 and 'foregroundDeletion' in body['metadata']['finalizers'], body)
    c.wait_for(PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dgc', lambda b: not b['items'])
    st, _, _ = c.req('GET', NS + '/gc')
    end = time.monotonic() + 60
    while st != 404 and time.monotonic() < end:
        time.sleep(0.05)    # sleep-ok: poll interval (until the owner is gone)
        st, _, _ = c.req('GET', NS + '/gc')
    check(st == 404, f'job still there: {st}')
    t.join()
    check(out['r'][2], 'follow stream did not end')


@test('propagationPolicy=Orphan deletes the job but keeps its pods, without ownerReferences')
def _(c):
    create(c, job('orph', replicas=2, env={'SIM_HANG': 1}))
    sel = PODS + '?labelSelector=training.kubeflow.org%2Fjob-name%3Dorph'
    c.wait_for(sel, lambda b: len(b['items']) == 2)
    st, body, _ = c.req('DELETE', NS + '/orph?propagationPolicy=Orphan')
    check(st == 200 and body['metadata']['finalizers'] == ['orphan'], body)
    c.wait_for(NS + '?fieldSelector=metadata.name%3Dorph', lambda b: not b['items'])
    settle(c)   # the operator has had its turn after the owner went
    pods = c.get(sel)['items']
    check(len(pods) == 2 and not any(p['metadata'].get('ownerReferences') or p['metadata'].get('deletionTimestamp')
                                     for p in pods), pods)
    for p in pods:
        c.req('DELETE', PODS + '/' + p['metadata']['name'])


@test('the JAXJob validating webhook is simulated: no container named jax gives 403 admission denial')
def _(c):
    o = job('nojax')
    o['spec']['jaxReplicaSpecs']['Worker']['template']['spec']['containers'][0]['name'] = 'main'
    st, body, _ = c.req('POST', NS, o)
    check(st == 403 and body['reason'] == 'Forbidden' and body['message'] ==
          'admission webhook "validator.jaxjob.training-operator.kubeflow.org" denied the request: '
          'spec.jaxReplicaSpecs[Worker].template.spec.containers: Required value: must have at least one container '
          'with name jax', body)


@test('client-certificate auth: CN=admin may do everything, CN=nobody gets 403')
def _(c):
    a = Client(DIR, cert_user='admin')
    st, body, _ = a.req('GET', NS)
    check(st == 200 and body['kind'] == 'JAXJobList', st)
    n = Client(DIR, cert_user='nobody')
    st, body, _ = n.req('GET', NS)
    check(st == 403 and 'User "nobody" cannot list resource "jaxjobs"' in body['message'], body)


@test('restricted users: create forbidden names verb and resource; watch forbidden while list works')
def _(c):
    n = Client(DIR, token_user='nocreate')
    st, body, _ = n.req('POST', NS, job('forbidden'))
    check(st == 403 and body['message'] == 'jaxjobs.kubeflow.org is forbidden: User "nocreate" cannot create resource '
          '"jaxjobs" in API group "kubeflow.org" in the namespace "team-a"', body)
    w = Client(DIR, token_user='nowatch')
    st, _, _ = w.req('GET', NS)
    check(st == 200, st)
    st, lines, _ = w.stream(NS + '?watch=1', 2)
    check(st == 403 and 'cannot watch resource "jaxjobs"' in json.loads(lines[0])['message'], lines)
    st, _, _ = c.req('POST', '/_test/users', {'name': 'podsonly', 'allow': ['get pods', 'list pods']})
    p = Client(DIR, token_user='podsonly')
    check(p.req('GET', PODS)[0] == 200 and p.req('GET', NS)[0] == 403, 'podsonly rules')


@test('unknown token gives 401 even on /version; anonymous may read /version but not list')
def _(c):
    class Bad(Client):
        pass
    b = Client(DIR, token_user=None)
    b.token = 'not-a-token'
    st, body, _ = b.req('GET', '/version')
    check(st == 401 and body['reason'] == 'Unauthorized', body)
    a = Client(DIR, token_user=None)
    check(a.req('GET', '/version')[0] == 200, 'anonymous /version')
    st, body, _ = a.req('GET', NS)
    check(st == 403 and 'system:anonymous' in body['message'], body)


@test('fault watchDropAfter cuts every watch after N events, without a terminating chunk')
def _(c):
    c.req('POST', '/_test/faults', {'watchDropAfter': 2})
    try:
        raw = raw_get(c, '/api/v1/namespaces?watch=1')
    finally:
        c.req('POST', '/_test/faults', {'watchDropAfter': None})
    head, _, body = raw.partition(b'\r\n\r\n')
    check(b' 200 ' in head.split(b'\r\n')[0] and b'Transfer-Encoding: chunked' in head, head)
    events = [l for l in dechunk(body).split(b'\n') if l.strip()]
    check(len(events) == 2 and not body.endswith(b'0\r\n\r\n'), (len(events), body[-20:]))


def raw_get(c, path, seconds=10):
    """Send a GET on a raw TLS socket and read until the server closes: the exact bytes."""
    s = c.ctx.wrap_socket(socket.create_connection(('127.0.0.1', c.port), timeout=seconds),
                          server_hostname='127.0.0.1')
    s.sendall(f'GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {c.token}\r\n'
              f'Accept: application/json\r\n\r\n'.encode())
    out = b''
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except (OSError, ssl.SSLError):
        pass
    s.close()
    return out


def dechunk(b):
    out = b''
    while b:
        size, _, rest = b.partition(b'\r\n')
        try:
            n = int(size.split(b';')[0], 16)
        except ValueError:
            break
        if n == 0:
            break
        out += rest[:n]
        b = rest[n + 2:]
    return out


@test('fault watchGone: the next watch gets 200 + ERROR 410 Expired and ends')
def _(c):
    c.req('POST', '/_test/faults', {'watchGone': 1})
    st, lines, ended = c.stream(NS + '?watch=1&resourceVersion=999999999', 5)
    e = json.loads(lines[0])
    check(st == 200 and ended and e['type'] == 'ERROR' and e['object']['code'] == 410
          and e['object']['reason'] == 'Expired', lines)
    st, lines, ended = c.stream(NS + '?watch=1&timeoutSeconds=1', 5)
    check(st == 200 and all(json.loads(x)['type'] == 'ADDED' for x in lines), lines)


@test('a small history window makes an old resourceVersion expire (410 in the stream)')
def _(c):
    rv = c.get('/api/v1/namespaces')['metadata']['resourceVersion']
    c.req('POST', '/_test/config', {'historyWindow': 3})
    try:
        for i in range(5):
            c.req('POST', '/api/v1/namespaces', {'apiVersion': 'v1', 'kind': 'Namespace',
                                                 'metadata': {'name': f'churn-{i}'}})
        st, lines, ended = c.stream(f'/api/v1/namespaces?watch=1&resourceVersion={rv}', 5)
        e = json.loads(lines[0])
        check(e['type'] == 'ERROR' and e['object']['code'] == 410 and
              e['object']['message'].startswith(f'too old resource version: {rv} ('), e)
    finally:
        c.req('POST', '/_test/config', {'historyWindow': 2000})


@test('faults errors (503 burst) and throttle (429 + Retry-After) hit only the next N matching requests')
def _(c):
    c.req('POST', '/_test/faults', {'errors': {'code': 503, 'count': 2, 'match': 'jaxjobs'}})
    codes = [c.req('GET', NS)[0] for _ in range(3)]
    check(codes == [503, 503, 200], codes)
    check(c.req('GET', PODS)[0] == 200, 'unmatched path failed')
    c.req('POST', '/_test/faults', {'throttle': {'count': 1, 'retryAfter': 2}})
    st, body, h = c.req('GET', PODS)
    check(st == 429 and h.get('Retry-After') == '2' and body['details']['retryAfterSeconds'] == 2, (st, h, body))
    check(c.req('GET', PODS)[0] == 200, 'throttle did not stop')


@test('faults revokeToken (401) and rotateToken (new token file works, old token 401)')
def _(c):
    c.req('POST', '/_test/users', {'name': 'rot', 'allow': ['* *']})
    r = Client(DIR, token_user='rot')
    check(r.req('GET', PODS)[0] == 200, 'rot user')
    c.req('POST', '/_test/faults', {'rotateToken': 'rot'})
    check(r.req('GET', PODS)[0] == 401, 'old token still valid')
    r2 = Client(DIR, token_user='rot')
    check(r2.req('GET', PODS)[0] == 200 and r2.token != r.token, 'new token')
    c.req('POST', '/_test/faults', {'revokeToken': 'rot'})
    check(r2.req('GET', PODS)[0] == 401, 'revoked token still valid')


@test('fault down: connections are refused for the given time, then the server answers with its state kept')
def _(c):
    before = c.get('/api/v1/namespaces')['metadata']['resourceVersion']
    c.req('POST', '/_test/faults', {'down': 1.0})
    failed = False
    try:
        c.req('GET', '/api/v1/namespaces')
    except (OSError, ssl.SSLError, Exception):  # noqa: BLE001 - any transport error
        failed = True
    check(failed, 'request succeeded while down')
    after = answered(c, '/api/v1/namespaces')['metadata']['resourceVersion']
    check(int(after) >= int(before), (before, after))


@test('fault bigLogLine: a worker prints one 10 MB line that a follow stream delivers whole')
def _(c):
    c.req('POST', '/_test/faults', {'bigLogLine': 10 * 1024 * 1024})
    try:
        create(c, job('big', replicas=1, env={'SIM_LINES': 1, 'SIM_DURATION': 0.5}))
        c.wait_for(NS + '/big', true_cond('Succeeded'))
    finally:
        c.req('POST', '/_test/faults', {'bigLogLine': None})
    st, lines, ended = c.stream(PODS + '/big-worker-0/log?follow=true', 20)
    check(st == 200 and ended and len(lines[1]) == 10 * 1024 * 1024 + 1, [len(x) for x in lines])


@test('GET /_test/requests logs method, path and user agent of every API request (not the control ones)')
def _(c):
    seq = max([e['seq'] for e in c.get('/_test/requests')] or [0])
    c.req('GET', NS + '/nothing-here')
    c.req('GET', PODS + '?labelSelector=a%3Db')
    got = json.loads(json.dumps(c.get(f'/_test/requests?since={seq}')))
    check([(e['method'], e['path'], e['userAgent'], e['code']) for e in got] ==
          [('GET', NS + '/nothing-here', 'kclient/0.1', 404), ('GET', PODS, 'kclient/0.1', 200)], got)
    st = c.get('/_test/state')
    check(st['resourceVersion'] > 0 and 'jaxjobs' in st, st.keys())


@test('a TrainJob on jax-distributed: node pods with JobSet labels and env, then Complete')
def _(c):
    tj = {'apiVersion': 'trainer.kubeflow.org/v1alpha1', 'kind': 'TrainJob',
          'metadata': {'name': 'tj', 'namespace': 'team-a'},
          'spec': {'runtimeRef': {'name': 'jax-distributed'},
                   'trainer': {'numNodes': 2, 'image': 'ghcr.io/example/jax:1', 'command': ['python3', 'train.py'],
                               'env': [{'name': 'SIM_DURATION', 'value': '1'}]}}}
    o = create(c, tj, TJ)
    check(o['spec']['runtimeRef'] == {'apiGroup': 'trainer.kubeflow.org', 'kind': 'ClusterTrainingRuntime',
                                      'name': 'jax-distributed'} and o['spec']['suspend'] is False, o['spec'])
    sel = 'jobset.sigs.k8s.io%2Fjobset-name%3Dtj%2Cjobset.sigs.k8s.io%2Freplicatedjob-name%3Dnode'
    pods = c.wait_for(PODS + '?labelSelector=' + sel, lambda b: len(b['items']) == 2)['items']
    names = sorted(p['metadata']['name'] for p in pods)
    check(names[0].startswith('tj-node-0-0-') and names[1].startswith('tj-node-0-1-') and len(names[0]) == 17, names)
    env = {e['name']: e.get('value') for e in pods[0]['spec']['containers'][0]['env']}
    check(pods[0]['spec']['containers'][0]['name'] == 'node' and env.get('JAX_NUM_PROCESSES') == '2'
          and env.get('JAX_COORDINATOR_ADDRESS') == 'tj-node-0-0.tj:29500', env)
    c.wait_for(PODS + f'/{names[1]}', lambda p: p['status'].get('phase') in ('Running', 'Succeeded'))
    st, lines, _ = c.stream(PODS + f'/{names[1]}/log?container=node&follow=true', 10)
    check(st == 200 and lines and lines[-1].startswith('INFO:sim:worker 1 finished'), lines)
    o = c.wait_for(TJ + '/tj', true_cond('Complete'))
    cc = conds(o)['Complete']
    check(cc['reason'] == 'AllJobsCompleted' and cc['message'] == 'jobset completed successfully', cc)
    check(o['status']['jobsStatus'][0]['succeeded'] == 1, o['status'])


@test('a failing TrainJob gets Failed FailedJobs; one with a missing runtime gets no status but an event')
def _(c):
    tj = {'apiVersion': 'trainer.kubeflow.org/v1alpha1', 'kind': 'TrainJob',
          'metadata': {'name': 'tjfail', 'namespace': 'team-a'},
          'spec': {'runtimeRef': {'name': 'jax-distributed'},
                   'trainer': {'numNodes': 1, 'env': [{'name': 'SIM_EXIT', 'value': '2'},
                                                      {'name': 'SIM_DURATION', 'value': '0.3'}]}}}
    create(c, tj, TJ)
    o = c.wait_for(TJ + '/tjfail', true_cond('Failed'))
    check(conds(o)['Failed']['reason'] == 'FailedJobs', conds(o))
    tj['metadata']['name'] = 'tjnort'
    tj['spec']['runtimeRef']['name'] = 'no-such-runtime'
    create(c, tj, TJ)
    evs = c.wait_for(EVENTS + '?fieldSelector=involvedObject.name%3Dtjnort',
                     lambda b: len(b['items']) == 1)['items']
    check(evs[0]['reason'] == 'TrainJobResourcesCreationFailed' and 'no-such-runtime' in evs[0]['message'], evs)
    check('status' not in c.get(TJ + '/tjnort'), 'missing-runtime TrainJob got a status')
    st, _, _ = c.req('DELETE', TJ + '/tjfail')
    check(st == 200, st)
    c.wait_for(PODS + '?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dtjfail', lambda b: not b['items'])


@test('a TrainJob suspended and resumed: Suspended=True (pods deleted), then Suspended=False Resumed')
def _(c):
    tj = {'apiVersion': 'trainer.kubeflow.org/v1alpha1', 'kind': 'TrainJob',
          'metadata': {'name': 'tjsusp', 'namespace': 'team-a'},
          'spec': {'runtimeRef': {'name': 'jax-distributed'},
                   'trainer': {'numNodes': 2, 'env': [{'name': 'SIM_HANG', 'value': '1'}]}}}
    create(c, tj, TJ)
    sel = PODS + '?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dtjsusp'
    c.wait_for(sel, lambda b: len(b['items']) == 2)
    c.req('PATCH', TJ + '/tjsusp', {'spec': {'suspend': True}}, 'application/merge-patch+json')
    o = c.wait_for(TJ + '/tjsusp', true_cond('Suspended'))
    check(conds(o)['Suspended']['message'] == 'TrainJob is suspended', conds(o))
    c.wait_for(sel, lambda b: not b['items'])
    c.req('PATCH', TJ + '/tjsusp', {'spec': {'suspend': False}}, 'application/merge-patch+json')
    o = c.wait_for(TJ + '/tjsusp', lambda o: conds(o).get('Suspended', {}).get('reason') == 'Resumed')
    check(conds(o)['Suspended']['status'] == 'False', conds(o))
    c.wait_for(sel, lambda b: len(b['items']) == 2)
    c.req('DELETE', TJ + '/tjsusp')


@test('kubectl works against the server: get shows the STATE column, logs prints the worker log')
def _(c):
    import shutil
    if not shutil.which('kubectl'):
        return 'SKIP kubectl not installed'
    create(c, job('kctl', replicas=1, env={'SIM_DURATION': 0.3}))
    c.wait_for(NS + '/kctl', true_cond('Succeeded'))
    kc = ['kubectl', '--kubeconfig', os.path.join(DIR, 'kubeconfig')]
    out = subprocess.run(kc + ['get', 'jaxjobs', 'kctl'], capture_output=True, text=True, timeout=30)
    check(out.returncode == 0 and out.stdout.split('\n')[0].split() == ['NAME', 'STATE', 'AGE']
          and out.stdout.split('\n')[1].split()[:2] == ['kctl', 'Succeeded'], out.stdout + out.stderr)
    out = subprocess.run(kc + ['logs', 'kctl-worker-0'], capture_output=True, text=True, timeout=30)
    check(out.returncode == 0 and out.stdout.rstrip().endswith('INFO:sim:worker 0 finished'), out.stdout + out.stderr)


@test('fault rotateCert: a client that trusts the old CA fails the handshake (fail closed), the new CA works')
def _(c):
    c.req('POST', '/_test/faults', {'rotateCert': True})
    failed = None
    try:
        c.req('GET', '/version')
    except ssl.SSLCertVerificationError as e:
        failed = e
    check(failed is not None, 'old CA still accepted')
    n = Client(DIR, ca=os.path.join(DIR, 'ca-rotated.pem'))
    check(n.req('GET', '/version')[0] == 200, 'new CA')
    n.req('POST', '/_test/faults', {'restoreCert': True})
    check(c.req('GET', '/version')[0] == 200, 'restoreCert')


def main():
    env = dict(os.environ)
    r = subprocess.run([os.path.join(SRV, 'start.sh'), DIR, '--bookmark-interval', '1'], capture_output=True, text=True)
    if r.returncode != 0:
        print('not ok - the API test server starts')
        sys.stderr.write(r.stderr)
        return 0
    print('ok - the API test server starts and writes url, port, tokens, certificates and kubeconfigs')
    try:
        c = Client(DIR)
        for desc, fn in results:
            try:
                r = fn(c)
                if isinstance(r, str) and r.startswith('SKIP '):
                    print(f'ok - {desc} # {r}', flush=True)
                    continue
                print(f'ok - {desc}', flush=True)
            except Exception as e:  # noqa: BLE001 - report, go on
                print(f'not ok - {desc}', flush=True)
                sys.stderr.write(f'--- {desc}: {e}\n')
                traceback.print_exc()
    finally:
        subprocess.run([os.path.join(SRV, 'stop.sh'), DIR])
        del env
    return 0


if __name__ == '__main__':
    sys.exit(main())
