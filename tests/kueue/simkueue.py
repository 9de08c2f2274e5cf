#!/usr/bin/env python3
"""A simulated Kueue that acts only through the Kubernetes API, one step per command, so a
test drives admission and preemption and waits for the launcher's answer between steps.

    simkueue.py CONN setup NS LOCALQUEUE CLUSTERQUEUE
    simkueue.py CONN hold  NS KIND NAME LOCALQUEUE     # the job queued: Workload pending
    simkueue.py CONN admit NS KIND NAME CLUSTERQUEUE   # quota reserved, admitted, un-suspended
    simkueue.py CONN preempt NS KIND NAME [--why R]    # evicted (Preempted, Preempted=R), suspended again
    simkueue.py CONN pending NS KIND NAME REASON MSG   # the job's Workload waits for REASON now
    simkueue.py CONN other NS NAME LQ [--priority P]   # another job's Workload, pending in LQ
    simkueue.py CONN admit-other NS NAME CQ            # ... admitted: the queue moves up

CONN is `--server URL --ca FILE --token-file FILE`, or `--ks DIR` for the test double
(tests/kube-apiserver: DIR/url, DIR/ca.pem, DIR/admin.token).

What it does is what Kueue does, at kubernetes-sigs/kueue ff69552e:
- hold: a job not suspended is suspended, as the reconciler does with a running job whose
  Workload is not admitted (pkg/controller/jobframework/reconciler.go:667-676; with the webhook
  the job is created suspended, defaults.go:36-46). The Workload is named
  GetWorkloadNameForOwnerWithGVK (workload_names.go:64-118: "<kind lower>-<job name>-" + 5 hex
  of SHA-1(kind \\n group \\n name \\n uid)), labelled kueue.x-k8s.io/job-uid (reconciler.go:1625)
  and owned by the job as controller (reconciler.go:1634). The scheduler marks it
  QuotaReserved=False, reason Pending, the pending reason in the message
  (pkg/scheduler/scheduler.go:1188).
- admit: QuotaReserved=True and Admitted=True with status.admission.clusterQueue; the job is
  un-suspended and gets the Normal event Started "Admitted by clusterQueue CQ"
  (reconciler.go:1489, 1518).
- pending: QuotaReserved=False with REASON and MSG, as the scheduler writes them
  (scheduler.go:1188: the granular reason with UnadmittedWorkloadsObservability, Beta and on
  since v0.19, pkg/features/kube_features.go:826-828; "Pending" without it). The reasons:
  apis/kueue/v1beta2/workload_types.go:945-980 (ExceedsMaxQuota, NoMatchingFlavor, Suspended,
  Misconfigured, WaitingForQuota, ...); the message of a request over the ClusterQueue's
  maximum: flavorassigner.go:1353-1360 ("... > maximum capacity (...)", worded so since
  kueue#7232; before it "request > maximum capacity (A > B)").
- other / admit-other: the Workload of some other job in the same queue, pending, then with
  quota reserved: what moves a Workload up in the visibility API's order (the double serves it,
  tests/kube-apiserver/visibility.py).
- preempt: Evicted=True reason Preempted (workload_types.go:1007, 1085) with the preemption
  message (pkg/scheduler/preemption/preemption.go:186) and the Preempted condition beside it,
  reason InClusterQueue by default (InCohortReclamation, InCohortFairSharing,
  InCohortReclaimWhileBorrowing: workload_types.go:1038-1053, the human words
  preemption.go:164-170), QuotaReserved and Admitted False, the
  Normal event Preempted on the Workload (preemption.go:259), the job suspended again and the
  Normal event Stopped on it with the eviction's message (reconciler.go:1567), Requeued=True.
Every wait is for an object to appear (bounded, never a fixed sleep of the test's own).
"""
import argparse
import datetime
import hashlib
import json
import secrets
import ssl
import sys
import time
import urllib.error
import urllib.request

KINDS = {
    'JAXJob': ('kubeflow.org', 'v1', 'jaxjobs', ('spec', 'runPolicy', 'suspend')),
    'TrainJob': ('trainer.kubeflow.org', 'v1alpha1', 'trainjobs', ('spec', 'suspend')),
}
KUEUE = '/apis/kueue.x-k8s.io/v1beta2'
PENDING = ("couldn't assign flavors to pod set worker: insufficient unused quota for "
           "nvidia.com/gpu in flavor default-flavor, 8 more needed")


class Kube:
    def __init__(self, server, ca, token):
        self.server, self.token = server.rstrip('/'), token
        self.ctx = ssl.create_default_context(cafile=ca)

    def call(self, method, path, body=None, ctype='application/json', ok404=False):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method, headers={
            'Authorization': 'Bearer ' + self.token, 'Content-Type': ctype,
            'User-Agent': 'kueue-sim/0.1'})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                return json.loads(r.read() or b'null')
        except urllib.error.HTTPError as e:
            if ok404 and e.code == 404:
                return None
            sys.exit(f'simkueue: {method} {path}: {e.code} {e.read().decode()[:300]}')

    def merge(self, path, body):
        return self.call('PATCH', path, body, 'application/merge-patch+json')


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def job_path(kind, ns, name):
    g, v, plural, _ = KINDS[kind]
    return f'/apis/{g}/{v}/namespaces/{ns}/{plural}/{name}'


def wait_job(k, kind, ns, name, ceiling=60.0):
    end = time.monotonic() + ceiling
    while time.monotonic() < end:
        j = k.call('GET', job_path(kind, ns, name), ok404=True)
        if j is not None:
            return j
        time.sleep(0.05)  # sleep-ok: the poll interval of the wait for the job to appear
    sys.exit(f'simkueue: {kind} {ns}/{name} did not appear within {ceiling:.0f}s')


def workload_name(kind, group, name, uid):
    h = hashlib.sha1(f'{kind}\n{group}\n{name}\n{uid}'.encode()).hexdigest()[:5]
    return f'{kind.lower()}-{name}'[:253 - 1 - 5] + '-' + h


def suspend_patch(kind, value):
    path = KINDS[kind][3]
    body = value
    for key in reversed(path):
        body = {key: body}
    return body


def event(k, ns, obj, kind, reason, msg):
    m = obj['metadata']
    k.call('POST', f'/api/v1/namespaces/{ns}/events', {
        'apiVersion': 'v1', 'kind': 'Event',
        'metadata': {'name': f'{m["name"]}.{secrets.token_hex(8)}', 'namespace': ns},
        'involvedObject': {'apiVersion': obj['apiVersion'], 'kind': kind, 'name': m['name'],
                           'namespace': ns, 'uid': m['uid']},
        'reason': reason, 'message': msg, 'type': 'Normal', 'count': 1,
        'firstTimestamp': now(), 'lastTimestamp': now(),
        'source': {'component': 'kueue-admission'}, 'reportingComponent': 'kueue-admission'})


def cond(ctype, status, reason, msg):
    return {'type': ctype, 'status': status, 'reason': reason, 'message': msg,
            'lastTransitionTime': now(), 'observedGeneration': 1}


def set_conds(wl, *conds):
    old = [c for c in (wl.get('status') or {}).get('conditions') or []
           if c['type'] not in {c2['type'] for c2 in conds}]
    return old + list(conds)


def the_workload(k, ns, job):
    lst = k.call('GET', f'{KUEUE}/namespaces/{ns}/workloads?labelSelector='
                 f'kueue.x-k8s.io/job-uid%3D{job["metadata"]["uid"]}')
    items = lst.get('items') or []
    if not items:
        sys.exit(f'simkueue: no Workload for {ns}/{job["metadata"]["name"]} (run hold first)')
    return items[0]


def setup(k, a):
    if k.call('GET', f'{KUEUE}/clusterqueues/{a.cq}', ok404=True) is None:
        k.call('POST', f'{KUEUE}/clusterqueues', {
            'apiVersion': 'kueue.x-k8s.io/v1beta2', 'kind': 'ClusterQueue',
            'metadata': {'name': a.cq},
            'spec': {'namespaceSelector': {}, 'resourceGroups': [{
                'coveredResources': ['cpu'], 'flavors': [{'name': 'default-flavor', 'resources': [
                    {'name': 'cpu', 'nominalQuota': '8'}]}]}]}})
    if k.call('GET', f'{KUEUE}/namespaces/{a.ns}/localqueues/{a.lq}', ok404=True) is None:
        k.call('POST', f'{KUEUE}/namespaces/{a.ns}/localqueues', {
            'apiVersion': 'kueue.x-k8s.io/v1beta2', 'kind': 'LocalQueue',
            'metadata': {'name': a.lq, 'namespace': a.ns}, 'spec': {'clusterQueue': a.cq}})


def hold(k, a):
    group, version = KINDS[a.kind][0], KINDS[a.kind][1]
    job = wait_job(k, a.kind, a.ns, a.name)
    node = job
    for key in KINDS[a.kind][3]:
        node = (node or {}).get(key) if isinstance(node, dict) else None
    if node is not True:    # no webhook: the reconciler stops the job it finds running
        job = k.merge(job_path(a.kind, a.ns, a.name), suspend_patch(a.kind, True))
        event(k, a.ns, job, a.kind, 'Stopped', 'Not admitted by cluster queue')
    uid = job['metadata']['uid']
    name = workload_name(a.kind, group, a.name, uid)
    wl = k.call('POST', f'{KUEUE}/namespaces/{a.ns}/workloads', {
        'apiVersion': 'kueue.x-k8s.io/v1beta2', 'kind': 'Workload',
        'metadata': {'name': name, 'namespace': a.ns,
                     'labels': {'kueue.x-k8s.io/job-uid': uid},
                     'ownerReferences': [{'apiVersion': f'{group}/{version}', 'kind': a.kind,
                                          'name': a.name, 'uid': uid, 'controller': True,
                                          'blockOwnerDeletion': True}]},
        'spec': {'queueName': a.lq, 'podSets': [{'name': 'worker', 'count': 1, 'template': {
            'spec': {'containers': [{'name': 'jax', 'image': 'x'}]}}}]}})
    event(k, a.ns, wl, 'Workload', 'CreatedWorkload', f'Created Workload: {a.ns}/{name}')
    k.merge(f'{KUEUE}/namespaces/{a.ns}/workloads/{name}/status', {'status': {
        'conditions': [cond('QuotaReserved', 'False', 'Pending', PENDING)]}})
    event(k, a.ns, wl, 'Workload', 'Pending', PENDING)
    print(name)


def admit(k, a):
    job = wait_job(k, a.kind, a.ns, a.name)
    wl = the_workload(k, a.ns, job)
    name = wl['metadata']['name']
    msg = f'Quota reserved in ClusterQueue {a.cq}, wait time since queued was 1s'
    k.merge(f'{KUEUE}/namespaces/{a.ns}/workloads/{name}/status', {'status': {
        'admission': {'clusterQueue': a.cq, 'podSetAssignments': [{'name': 'worker',
                                                                  'count': 1}]},
        'conditions': set_conds(wl, cond('QuotaReserved', 'True', 'QuotaReserved', msg),
                                cond('Admitted', 'True', 'Admitted',
                                     'The workload is admitted'),
                                cond('Evicted', 'False', 'Admitted', ''),
                                cond('Requeued', 'False', 'Admitted', ''))}})
    event(k, a.ns, wl, 'Workload', 'QuotaReserved', msg)
    event(k, a.ns, wl, 'Workload', 'Admitted', f'Admitted by ClusterQueue {a.cq}')
    job = k.merge(job_path(a.kind, a.ns, a.name), suspend_patch(a.kind, False))
    event(k, a.ns, job, a.kind, 'Started', f'Admitted by clusterQueue {a.cq}')


HUMAN = {'InClusterQueue': 'prioritization in the ClusterQueue',
         'InCohortReclamation': 'reclamation within the cohort',
         'InCohortFairSharing': 'Fair Sharing within the cohort',
         'InCohortReclaimWhileBorrowing': 'reclamation within the cohort while borrowing'}


def preempt(k, a):
    job = wait_job(k, a.kind, a.ns, a.name)
    wl = the_workload(k, a.ns, job)
    name = wl['metadata']['name']
    msg = (f'Preempted to accommodate a workload (UID: {secrets.token_hex(4)}, JobUID: '
           f'{secrets.token_hex(4)}) due to {HUMAN[a.why]}; preemptor '
           f'path: /cq; preemptee path: /cq')
    k.merge(f'{KUEUE}/namespaces/{a.ns}/workloads/{name}/status', {'status': {
        'admission': None,
        'conditions': set_conds(wl, cond('Evicted', 'True', 'Preempted', msg),
                                cond('Preempted', 'True', a.why, msg),
                                cond('QuotaReserved', 'False', 'Pending', PENDING),
                                cond('Admitted', 'False', 'NoReservation',
                                     'The workload has no reservation'),
                                cond('Requeued', 'True', 'Preempted', msg))}})
    event(k, a.ns, wl, 'Workload', 'Preempted', msg)
    job = k.merge(job_path(a.kind, a.ns, a.name), suspend_patch(a.kind, True))
    event(k, a.ns, job, a.kind, 'Stopped', msg)


def pending(k, a):
    job = wait_job(k, a.kind, a.ns, a.name)
    wl = the_workload(k, a.ns, job)
    name = wl['metadata']['name']
    k.merge(f'{KUEUE}/namespaces/{a.ns}/workloads/{name}/status', {'status': {
        'conditions': set_conds(wl, cond('QuotaReserved', 'False', a.reason, a.message))}})
    event(k, a.ns, wl, 'Workload', 'Pending', a.message)


def other(k, a):
    k.call('POST', f'{KUEUE}/namespaces/{a.ns}/workloads', {
        'apiVersion': 'kueue.x-k8s.io/v1beta2', 'kind': 'Workload',
        'metadata': {'name': a.name, 'namespace': a.ns},
        'spec': {'queueName': a.lq, 'priority': a.priority, 'podSets': [{
            'name': 'worker', 'count': 1, 'template': {
                'spec': {'containers': [{'name': 'jax', 'image': 'x'}]}}}]}})
    k.merge(f'{KUEUE}/namespaces/{a.ns}/workloads/{a.name}/status', {'status': {
        'conditions': [cond('QuotaReserved', 'False', 'Pending', PENDING)]}})


def admit_other(k, a):
    msg = f'Quota reserved in ClusterQueue {a.cq}, wait time since queued was 1s'
    wl = k.call('GET', f'{KUEUE}/namespaces/{a.ns}/workloads/{a.name}')
    k.merge(f'{KUEUE}/namespaces/{a.ns}/workloads/{a.name}/status', {'status': {
        'admission': {'clusterQueue': a.cq, 'podSetAssignments': [{'name': 'worker',
                                                                  'count': 1}]},
        'conditions': set_conds(wl, cond('QuotaReserved', 'True', 'QuotaReserved', msg),
                                cond('Admitted', 'True', 'Admitted', 'The workload is admitted'))}})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ks', help='test double state directory')
    ap.add_argument('--server')
    ap.add_argument('--ca')
    ap.add_argument('--token-file')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('setup')
    p.add_argument('ns'), p.add_argument('lq'), p.add_argument('cq')
    for cmd in ('hold', 'admit', 'preempt'):
        p = sub.add_parser(cmd)
        p.add_argument('ns'), p.add_argument('kind', choices=sorted(KINDS)), p.add_argument('name')
        if cmd == 'hold':
            p.add_argument('lq')
        if cmd == 'admit':
            p.add_argument('cq')
        if cmd == 'preempt':
            p.add_argument('--why', default='InClusterQueue', choices=sorted(HUMAN))
    p = sub.add_parser('pending')
    p.add_argument('ns'), p.add_argument('kind', choices=sorted(KINDS)), p.add_argument('name')
    p.add_argument('reason'), p.add_argument('message')
    p = sub.add_parser('other')
    p.add_argument('ns'), p.add_argument('name'), p.add_argument('lq')
    p.add_argument('--priority', type=int, default=0)
    p = sub.add_parser('admit-other')
    p.add_argument('ns'), p.add_argument('name'), p.add_argument('cq')
    a = ap.parse_args()
    if a.ks:
        a.server = open(a.ks + '/url').read().strip()
        a.ca, a.token_file = a.ks + '/ca.pem', a.ks + '/admin.token'
    if not (a.server and a.ca and a.token_file):
        sys.exit('simkueue: give --ks DIR or --server, --ca and --token-file')
    k = Kube(a.server, a.ca, open(a.token_file).read().strip())
    {'setup': setup, 'hold': hold, 'admit': admit, 'preempt': preempt, 'pending': pending,
     'other': other, 'admit-other': admit_other}[a.cmd](k, a)


if __name__ == '__main__':
    main()
