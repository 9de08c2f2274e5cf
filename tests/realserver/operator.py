#!/usr/bin/python3
"""A simulated training operator (v1.9 for JAXJob, Trainer v2 for TrainJob) and kubelet that act
only through the API of a real kube-apiserver (../shared/tools/kube-control-plane).

    operator.py --env KCP_DIR/env [--log FILE]

Jobs choose their behaviour with the same SIM_* variables as the test double's simulation
(tests/kube-apiserver/README.md, "SIM_* vocabulary"): one job description runs the same on both
servers. What is simulated, and how it reaches the server:

- operator: watches JAXJobs, creates `<job>-worker-<i>` pods (spec.nodeName = the fake node,
  the operator's labels, controller ownerReference) and one headless Service per worker
  (the API may reject it: the Warning event FailedCreateService carries the server's message),
  writes conditions/replicaStatuses through the `status` subresource, records events, honours
  runPolicy.suspend (pods deleted, Suspended) and ExitCode restarts (pod re-created).
- Trainer v2 + JobSet, collapsed: a TrainJob owns a batch/v1 Job `<job>-node-0` (created through
  the API, never run: no job controller) which owns the pods `<job>-node-0-<i>-<rand>` with the
  JobSet labels the launcher selects on; TrainJob conditions through `status`.
- kubelet: for pods bound to the fake node, writes pod status through `pods/status`, writes
  each container's output to $FAKE_KUBELET_LOG_ROOT/<ns>/<pod>/<container>.log in the CRI format
  with each line's write time (cri_append; the stub kubelet serves it as pods/log, times included) and `<container>.log.exited` when the container ends; finishes graceful
  deletion (last log line, then DELETE with grace 0 and a uid precondition).
- garbage collection is the real kube-controller-manager's, nothing here deletes dependents.

Watches re-list on 410 Expired and reconnect after an apiserver restart; writes retry while the
server is unreachable. Logs keep flowing while the API is down, as a kubelet's do.
Python 3 standard library only. Stops on SIGTERM.
"""
import argparse
import copy
import heapq
import http.client
import itertools
import json
import os
import random
import secrets
import signal
import ssl
import sys
import threading
import time
import traceback
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'kube-apiserver'))
from simscript import (EVICT_MESSAGE, OPERATOR, cascade_lines, event_object, cascade_peer, exit_code,  # noqa: E402
                       failure_mode, int_set, kf, knobs_from, main_container, missing_secret, now_iso,
                       parse_time, plan_exit, pull_message, set_cond, set_metacond, term_reason, worker_index,
                       worker_pod, worker_script, worker_service)

UA = 'sim-training-operator/v1.9.4'
JAXJOBS = '/apis/kubeflow.org/v1'
TRAINER = '/apis/trainer.kubeflow.org/v1alpha1'
STOP = threading.Event()


def cri_append(path, text, mode='a'):
    """Append TEXT (whole lines) to a container log in the CRI format a container runtime
    writes: `<RFC 3339 time, 9 digits> stdout F <line>`, stamped when written. The stub
    kubelet serves each line with that time (../shared/tools/kube-control-plane/README.md),
    as a real kubelet serves the runtime's write times, so a line served late looks late;
    plain lines would be stamped when the stub first reads them and never look behind."""
    ns = time.time_ns()
    sec, frac = divmod(ns, 1_000_000_000)
    ts = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(sec)) + f'.{frac:09d}Z'
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    with open(path, mode) as fh:
        fh.write(''.join(f'{ts} stdout F {line}\n' for line in lines))


def say(msg):
    sys.stderr.write(time.strftime('%H:%M:%S ') + msg + '\n')
    sys.stderr.flush()


# ---------------------------------------------------------------------------------------------
# API access

class Gone(Exception):
    """A watch answered 410 Expired: re-list."""


class Kube:
    def __init__(self, server, ca, cert, key):
        u = urllib.parse.urlparse(server)
        self.host, self.port = u.hostname, u.port or 443
        self.ctx = ssl.create_default_context(cafile=ca)
        self.ctx.load_cert_chain(cert, key)

    def conn(self, timeout):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def once(self, method, path, body=None, ctype='application/json'):
        c = self.conn(30)
        try:
            data = json.dumps(body).encode() if body is not None else None
            c.request(method, path, body=data, headers={'Content-Type': ctype, 'Accept': 'application/json',
                                                        'User-Agent': UA})
            r = c.getresponse()
            raw = r.read()
            try:
                obj = json.loads(raw) if raw else {}
            except ValueError:
                obj = {'message': raw.decode('utf-8', 'replace')}
            return r.status, obj
        finally:
            c.close()

    def call(self, method, path, body=None, ctype='application/json', patience=180.0):
        """One API call; connection errors and 5xx are retried while the server is away (an
        apiserver restart), every other answer is returned as (code, object)."""
        end = time.monotonic() + patience
        while True:
            try:
                code, obj = self.once(method, path, body, ctype)
                if code < 500 and code != 429:
                    return code, obj
            except (OSError, http.client.HTTPException):
                code, obj = 0, {}
            if STOP.is_set() or time.monotonic() > end:
                return code, obj
            time.sleep(0.3)  # sleep-ok: retry backoff of the simulated operator (a real client backs off too)

    def watch(self, path, rv):
        """Yield (type, object) of one watch stream from rv; return when the server ends it."""
        q = f'{path}?watch=1&allowWatchBookmarks=true&timeoutSeconds=240&resourceVersion={rv}'
        c = self.conn(300)
        try:
            c.request('GET', q, headers={'Accept': 'application/json', 'User-Agent': UA})
            r = c.getresponse()
            if r.status == 410:
                raise Gone()
            if r.status != 200:
                raise OSError(f'watch {path}: HTTP {r.status}')
            while not STOP.is_set():
                line = r.readline()
                if not line:
                    return
                ev = json.loads(line)
                if ev.get('type') == 'ERROR':
                    if (ev.get('object') or {}).get('code') == 410:
                        raise Gone()
                    raise OSError(f'watch {path}: {ev.get("object")}')
                yield ev.get('type'), ev.get('object') or {}
        finally:
            c.close()


class Informer:
    """LIST + WATCH of one resource, all namespaces, with a cache; like client-go's reflector:
    a 410 re-lists, a dropped stream resumes from the last resourceVersion."""

    def __init__(self, kube, path, handler):
        self.kube, self.path, self.handler = kube, path, handler
        self.cache = {}
        self.lock = threading.Lock()
        self.synced = threading.Event()

    def get(self, ns, name):
        with self.lock:
            o = self.cache.get((ns, name))
            return copy.deepcopy(o) if o else None

    def items(self):
        with self.lock:
            return [copy.deepcopy(o) for o in self.cache.values()]

    def put(self, obj):
        """Take a newer copy (e.g. the answer to our own write) before the watch brings it."""
        m = obj.get('metadata') or {}
        key = (m.get('namespace', ''), m.get('name'))
        with self.lock:
            cur = self.cache.get(key)
            if cur is None or int(cur['metadata'].get('resourceVersion') or 0) <= int(m.get('resourceVersion') or 0):
                self.cache[key] = obj

    def relist(self):
        code, lst = self.kube.call('GET', self.path)
        if code != 200:
            raise OSError(f'list {self.path}: HTTP {code}')
        new = {(o['metadata'].get('namespace', ''), o['metadata']['name']): o for o in lst.get('items') or []}
        with self.lock:
            gone = [o for k, o in self.cache.items() if k not in new]
            self.cache = new
        for o in gone:
            self.handler('DELETED', o)
        for o in new.values():
            self.handler('SYNC', o)
        self.synced.set()
        return lst['metadata']['resourceVersion']

    def run(self):
        rv = None
        while not STOP.is_set():
            try:
                if rv is None:
                    rv = self.relist()
                for etype, obj in self.kube.watch(self.path, rv):
                    rv = (obj.get('metadata') or {}).get('resourceVersion') or rv
                    if etype == 'BOOKMARK':
                        continue
                    m = obj.get('metadata') or {}
                    key = (m.get('namespace', ''), m.get('name'))
                    with self.lock:
                        if etype == 'DELETED':
                            self.cache.pop(key, None)
                        else:
                            self.cache[key] = obj
                    self.handler(etype, obj)
            except Gone:
                say(f'watch {self.path}: 410 Expired, re-listing')
                rv = None
            except (OSError, http.client.HTTPException, ValueError) as e:
                if not STOP.is_set():
                    say(f'watch {self.path}: {e.__class__.__name__}: {e}; reconnecting')
                    time.sleep(0.5)  # sleep-ok: reconnect backoff of the simulated operator (a real informer backs off too)

    def start(self):
        threading.Thread(target=self.run, name='watch ' + self.path, daemon=True).start()


class Timers:
    """Timed actions on one thread, in time order."""

    def __init__(self, name):
        self.heap, self.seq, self.cv = [], itertools.count(), threading.Condition()
        threading.Thread(target=self.loop, name=name, daemon=True).start()

    def later(self, delay, fn, *args):
        with self.cv:
            heapq.heappush(self.heap, (time.monotonic() + max(0.0, delay), next(self.seq), fn, args))
            self.cv.notify()

    def loop(self):
        while not STOP.is_set():
            with self.cv:
                while not self.heap or self.heap[0][0] > time.monotonic():
                    self.cv.wait(timeout=min(1.0, self.heap[0][0] - time.monotonic()) if self.heap else 1.0)
                    if STOP.is_set():
                        return
                _, _, fn, args = heapq.heappop(self.heap)
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - the simulation goes on
                traceback.print_exc()


def status_patch(old, new):
    """A merge patch turning `old` into `new` (maps recursively; removed keys become null)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    out = {}
    for k in set(old) | set(new):
        if k not in new:
            out[k] = None
        elif k not in old or old[k] != new[k]:
            out[k] = status_patch(old.get(k), new[k]) if isinstance(new[k], dict) else new[k]
    return out


def pod_path(ns, name=None):
    return f'/api/v1/namespaces/{ns}/pods' + (f'/{name}' if name else '')


# ---------------------------------------------------------------------------------------------

class Cluster:
    def __init__(self, kube, node, log_root):
        self.kube, self.node, self.log_root = kube, node, log_root
        self.ops = Timers('operator')     # everything that writes to the API
        self.out = Timers('containers')   # container output: goes on while the API is away
        self.jobs = {}                    # job uid -> operator memory (events sent, crashes, ...)
        self.pods = {}                    # pod uid -> kubelet memory
        self.pending = set()              # coalesced reconciles
        self.plock = threading.Lock()
        self.jaxjobs = Informer(kube, JAXJOBS + '/jaxjobs', self.on_job)
        self.trainjobs = Informer(kube, TRAINER + '/trainjobs', self.on_trainjob)
        self.podinf = Informer(kube, '/api/v1/pods', self.on_pod)

    def start(self):
        for inf in (self.jaxjobs, self.trainjobs, self.podinf):
            inf.start()

    # --- event handlers (watch threads): only queue work --------------------------------------
    def kick(self, kind, ns, name, delay=0.02):
        key = (kind, ns, name)
        with self.plock:
            if key in self.pending:
                return
            self.pending.add(key)
        self.ops.later(delay, self.run_reconcile, key)

    def run_reconcile(self, key):
        with self.plock:
            self.pending.discard(key)
        kind, ns, name = key
        (self.reconcile_jaxjob if kind == 'jaxjob' else self.reconcile_trainjob)(ns, name)

    def on_job(self, etype, obj):
        m = obj['metadata']
        if etype == 'DELETED':
            self.jobs.pop(m.get('uid'), None)
        else:
            self.kick('jaxjob', m['namespace'], m['name'])

    def on_trainjob(self, etype, obj):
        m = obj['metadata']
        if etype == 'DELETED':
            self.jobs.pop(m.get('uid'), None)
        else:
            self.kick('trainjob', m['namespace'], m['name'])

    def on_pod(self, etype, obj):
        m = obj['metadata']
        ns, name, uid = m.get('namespace', ''), m['name'], m['uid']
        for ref in m.get('ownerReferences') or []:
            if ref.get('kind') == 'JAXJob':
                self.kick('jaxjob', ns, ref.get('name'), 0.01)
        tj = (m.get('labels') or {}).get('jobset.sigs.k8s.io/jobset-name')
        if tj:
            self.kick('trainjob', ns, tj, 0.01)
        if etype == 'DELETED':
            self.ops.later(0, self.pod_gone, uid)
            return
        if (obj.get('spec') or {}).get('nodeName') != self.node:
            return
        if m.get('deletionTimestamp'):
            self.ops.later(0, self.pod_terminating, ns, name, uid)
        elif uid not in self.pods and (obj.get('status') or {}).get('phase', 'Pending') == 'Pending':
            self.pods[uid] = {'instance': 0, 'alive': True, 'terminating': False}
            self.ops.later(0.05, self.kubelet_start, ns, name, uid)

    # --- API writes ------------------------------------------------------------------------------
    def event(self, obj, etype, reason, message, component=OPERATOR, host=None, field_path=None):
        ev = event_object(obj, etype, reason, message, component, host, field_path)
        ns = ev['metadata']['namespace']
        self.kube.call('POST', f'/api/v1/namespaces/{ns}/events', ev)

    def once(self, st, job, etype, reason, msg, key=None):
        key = key or reason
        if key in st['events']:
            return
        st['events'].add(key)
        self.event(job, etype, reason, msg)

    def write_status(self, inf, base, job, new_status):
        m = job['metadata']
        patch = status_patch(job.get('status') or {}, new_status)
        if not patch:
            return job
        code, obj = self.kube.call('PATCH', f'{base}/namespaces/{m["namespace"]}/{inf.path.rsplit("/", 1)[1]}/'
                                   f'{m["name"]}/status', {'metadata': {'uid': m['uid']}, 'status': patch},
                                   'application/merge-patch+json')
        if code == 200:
            inf.put(obj)
            return obj
        if code not in (404, 409):
            say(f'status of {m["namespace"]}/{m["name"]}: HTTP {code} {obj.get("message")}')
        return None

    def delete_pod(self, ns, name, uid, grace=None):
        q = f'?gracePeriodSeconds={grace}' if grace is not None else ''
        self.kube.call('DELETE', pod_path(ns, name) + q,
                       {'kind': 'DeleteOptions', 'apiVersion': 'v1', 'preconditions': {'uid': uid},
                        **({'gracePeriodSeconds': grace} if grace is not None else {})})

    def owned_pods(self, ns, uid):
        return [p for p in self.podinf.items() if p['metadata'].get('namespace') == ns
                and any(r.get('uid') == uid for r in p['metadata'].get('ownerReferences') or [])]

    # --- JAXJob operator ---------------------------------------------------------------------------
    def reconcile_jaxjob(self, ns, name):
        job = self.jaxjobs.get(ns, name)
        if job is None or job['metadata'].get('deletionTimestamp'):
            return
        uid = job['metadata']['uid']
        st = self.jobs.setdefault(uid, {'crashes': {}, 'events': set(), 'late_due': {}, 'finished': False})
        status = job.get('status') or {}
        conds = status.get('conditions') or []
        if any(c.get('type') in ('Succeeded', 'Failed') and c.get('status') == 'True' for c in conds):
            return self.finished(job, st)
        spec = job.get('spec') or {}
        rp = spec.get('runPolicy') or {}
        wspec = (spec.get('jaxReplicaSpecs') or {}).get('Worker') or {}
        replicas = wspec.get('replicas', 1) if isinstance(wspec.get('replicas', 1), int) else 1
        policy = wspec.get('restartPolicy') or 'Never'
        tmpl = wspec.get('template') or {}
        jax = next((c for c in ((tmpl.get('spec') or {}).get('containers') or []) if c.get('name') == 'jax'), {})
        k = knobs_from(jax)
        new = copy.deepcopy(status)
        now = now_iso()
        selector = (f'training.kubeflow.org/job-name={name},training.kubeflow.org/operator-name={OPERATOR},'
                    'training.kubeflow.org/replica-type=worker')
        if not any(c.get('type') == 'Created' for c in conds):
            set_cond(new, 'Created', 'True', 'JAXJobCreated', f'JAXJob {name} is created.', now)
        if rp.get('suspend'):
            for p in self.owned_pods(ns, uid):
                if not p['metadata'].get('deletionTimestamp'):
                    self.delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
            if any(c.get('type') == 'Running' for c in new.get('conditions') or []):
                set_cond(new, 'Running', 'False', 'JAXJobSuspended', f'JAXJob {name} is suspended.', now)
            set_cond(new, 'Suspended', 'True', 'JAXJobSuspended', f'JAXJob {name} is suspended.', now)
            new['replicaStatuses'] = {'Worker': {'selector': selector}}
            self.once(st, job, 'Normal', 'JAXJobSuspended', f'JAXJob {name} is suspended.')
            self.write_status(self.jaxjobs, JAXJOBS, job, new)
            return
        if any(c.get('type') == 'Suspended' and c.get('status') == 'True' for c in conds):
            set_cond(new, 'Suspended', 'False', 'JAXJobResumed', f'JAXJob {name} is resumed.', now)
            new['startTime'] = now
            st['events'].discard('JAXJobSuspended')
            self.event(job, 'Normal', 'JAXJobResumed', f'JAXJob {name} is resumed.')
        new.setdefault('startTime', now)
        pods = {p['metadata']['name']: p for p in self.owned_pods(ns, uid)}
        late = int_set(k.get('SIM_LATE_WORKER'))
        for i in range(replicas):
            pname = f'{name}-worker-{i}'
            if pname in pods:
                continue
            if i in late:
                due = st['late_due'].setdefault(i, time.monotonic() + kf(k, 'SIM_LATE_DELAY', 2.0))
                if time.monotonic() < due:
                    self.kick('jaxjob', ns, name, due - time.monotonic() + 0.001)
                    continue
            pod = worker_pod(job, i, replicas, policy, tmpl)
            pod['spec']['nodeName'] = self.node    # no scheduler: the operator binds it
            code, obj = self.kube.call('POST', pod_path(ns), pod)
            if code == 201:
                self.podinf.put(obj)
                self.event(job, 'Normal', 'SuccessfulCreatePod', f'Created pod: {pname}')
            elif code != 409:
                self.once(st, job, 'Warning', 'FailedCreatePod', f'Error creating: {obj.get("message")}',
                          key=f'pod{i}')
        svc_failed = False
        for i in range(replicas):
            if f'svc{i}' in st['events']:
                continue
            code, obj = self.kube.call('POST', f'/api/v1/namespaces/{ns}/services', worker_service(job, i, tmpl))
            if code in (201, 409):
                self.once(st, job, 'Normal', 'SuccessfulCreateService', f'Created service: {name}-worker-{i}',
                          key=f'svc{i}')
            else:
                svc_failed = True
                self.once(st, job, 'Warning', 'FailedCreateService', f'Error creating: {obj.get("message")}')
        if svc_failed:
            # the operator returns the error and requeues: nothing else of the job changes
            new['replicaStatuses'] = {'Worker': {'selector': selector}}
            self.write_status(self.jaxjobs, JAXJOBS, job, new)
            self.kick('jaxjob', ns, name, 5.0)
            return
        active = succeeded = failed = restarts = perm_failed = 0
        retry_failed = []
        for p in self.owned_pods(ns, uid):
            ph = (p.get('status') or {}).get('phase')
            if p['metadata'].get('deletionTimestamp'):
                if ph == 'Running':
                    failed += 1
                continue
            if ph == 'Running':
                active += 1
                restarts += sum(cs.get('restartCount', 0) for cs in p['status'].get('containerStatuses') or [])
            elif ph == 'Succeeded':
                succeeded += 1
            elif ph == 'Failed':
                failed += 1
                code = exit_code(p)
                if policy == 'ExitCode' and code is not None and code >= 128:
                    retry_failed.append(p)
                else:
                    perm_failed += 1
        rs = {'selector': selector}
        for key, v in (('active', active), ('succeeded', succeeded), ('failed', failed)):
            if v:
                rs[key] = v
        new['replicaStatuses'] = {'Worker': rs}
        evs = []    # the events of this decision: written with its status (SIM_VERDICT_DELAY)
        bl, ads = rp.get('backoffLimit'), rp.get('activeDeadlineSeconds')
        if isinstance(bl, int) and policy in ('OnFailure', 'Always', 'ExitCode') and restarts >= bl > 0:
            self.fail(evs, job, new, f'Job {name} has failed because it has reached the specified backoff limit', now)
        elif isinstance(ads, int) and new.get('startTime') and parse_time(new['startTime']) + ads <= time.time():
            self.fail(evs, job, new, f'Job {name} has failed because it was active longer than specified deadline', now)
        else:
            if isinstance(ads, int) and new.get('startTime'):
                self.kick('jaxjob', ns, name, parse_time(new['startTime']) + ads - time.time() + 0.05)
            for p in retry_failed:
                self.delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
                self.event(job, 'Normal', 'SuccessfulDeletePod', f'Deleted pod: {p["metadata"]["name"]}')
                msg = f'JAXJob {name} is restarting because {len(retry_failed)} Worker replica(s) failed.'
                set_cond(new, 'Restarting', 'True', 'JAXJobRestarting', msg, now)
                evs.append((job, 'Warning', 'JAXJobRestarting', msg))
            if perm_failed and policy == 'ExitCode':
                msg = f'job "{name}" is failing because "Worker" replica(s) failed.'
                set_cond(new, 'Failed', 'True', 'JAXJobFailed', msg, now)
                evs.append((job, 'Warning', 'JAXJobFailed', msg))
            elif perm_failed and replicas > succeeded + active:
                self.fail(evs, job, new, f'JAXJob {name} is failed because {perm_failed} Worker replica(s) failed.', now)
            elif replicas > 0 and succeeded == replicas:
                msg = f'JAXJob {ns}/{name} successfully completed.'
                set_cond(new, 'Succeeded', 'True', 'JAXJobSucceeded', msg, now)
                new['completionTime'] = now
                evs.append((job, 'Normal', 'JAXJobSucceeded', msg))
            elif active > 0 and not retry_failed:
                set_cond(new, 'Running', 'True', 'JAXJobRunning', f'JAXJob {ns}/{name} is running.', now)
        verdict = any(c.get('type') in ('Succeeded', 'Failed') and c.get('status') == 'True'
                      for c in new['conditions'])
        # SIM_VERDICT_DELAY: the verdict is written that long after the reconcile that first
        # reached it (the pods' states are in at once), as a real operator's next reconcile
        # writes it 100 ms to seconds after the pod failed; the job stays as it was meanwhile
        delay = kf(k, 'SIM_VERDICT_DELAY', 0.0)
        if verdict and delay > 0:
            due = st.setdefault('verdict_due', time.monotonic() + delay)
            if time.monotonic() < due:
                self.kick('jaxjob', ns, name, due - time.monotonic() + 0.001)
                return
        for ev in evs:
            self.event(*ev)
        if self.write_status(self.jaxjobs, JAXJOBS, job, new) is not None and verdict:
            self.kick('jaxjob', ns, name)

    def fail(self, evs, job, status, msg, now):
        set_cond(status, 'Failed', 'True', 'JAXJobFailed', msg, now)
        status['completionTime'] = now
        evs.append((job, 'Warning', 'JAXJobFailed', msg))

    def finished(self, job, st):
        """cleanPodPolicy and ttlSecondsAfterFinished of a finished JAXJob."""
        if st['finished']:
            return
        st['finished'] = True
        m = job['metadata']
        rp = (job.get('spec') or {}).get('runPolicy') or {}
        cpp = rp.get('cleanPodPolicy') or 'None'
        for p in self.owned_pods(m['namespace'], m['uid']):
            ph = (p.get('status') or {}).get('phase')
            # training-operator v1.9.4 pkg/controller.v1/common/job.go:48-67: None keeps
            # every pod, Running keeps the finished ones, any other value (All, or one
            # neither the CRD nor the webhook refuses, such as Some) deletes every pod
            if cpp != 'None' and (cpp != 'Running' or ph in ('Running', 'Pending')):
                self.delete_pod(m['namespace'], p['metadata']['name'], p['metadata']['uid'])
        ttl = rp.get('ttlSecondsAfterFinished')
        if isinstance(ttl, int):
            self.ops.later(ttl, self.kube.call, 'DELETE', f'{JAXJOBS}/namespaces/{m["namespace"]}/jaxjobs/{m["name"]}',
                           {'kind': 'DeleteOptions', 'apiVersion': 'v1', 'propagationPolicy': 'Background',
                            'preconditions': {'uid': m['uid']}})

    # --- Trainer v2 (TrainJob -> Job -> pods; the JobSet level collapsed) ---------------------------
    def reconcile_trainjob(self, ns, name):
        job = self.trainjobs.get(ns, name)
        if job is None or job['metadata'].get('deletionTimestamp'):
            return
        uid = job['metadata']['uid']
        st = self.jobs.setdefault(uid, {'crashes': {}, 'events': set(), 'late_due': {}, 'attempts': {},
                                        'finished': False})
        status = job.get('status') or {}
        conds = status.get('conditions') or []
        if any(c.get('type') in ('Complete', 'Failed') and c.get('status') == 'True' for c in conds):
            return
        spec = job.get('spec') or {}
        ref = spec.get('runtimeRef') or {}
        kind = ref.get('kind', 'ClusterTrainingRuntime')
        path = (f'{TRAINER}/clustertrainingruntimes/{ref.get("name")}' if kind == 'ClusterTrainingRuntime' else
                f'{TRAINER}/namespaces/{ns}/trainingruntimes/{ref.get("name")}')
        code, rt = self.kube.call('GET', path)
        if code != 200:
            self.once(st, job, 'Warning', 'TrainJobResourcesCreationFailed',
                      f'{kind.lower()}s.trainer.kubeflow.org "{ref.get("name")}" not found')
            return
        trainer = spec.get('trainer') or {}
        num = trainer.get('numNodes') or (((rt.get('spec') or {}).get('mlPolicy') or {}).get('numNodes') or 1)
        new = copy.deepcopy(status)
        now = now_iso()
        mine = [p for p in self.podinf.items() if p['metadata'].get('namespace') == ns
                and (p['metadata'].get('labels') or {}).get('jobset.sigs.k8s.io/jobset-name') == name
                and not p['metadata'].get('deletionTimestamp')]
        js = {'name': 'node', 'active': 0, 'failed': 0, 'ready': 0, 'succeeded': 0, 'suspended': 0}
        if spec.get('suspend'):
            for p in mine:
                self.delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
            set_metacond(new, 'Suspended', 'True', 'Suspended', 'TrainJob is suspended', now)
            js['suspended'] = 1
            new['jobsStatus'] = [js]
            self.write_status(self.trainjobs, TRAINER, job, new)
            return
        if any(c.get('type') == 'Suspended' and c.get('status') == 'True' for c in conds):
            set_metacond(new, 'Suspended', 'False', 'Resumed', 'TrainJob is resumed', now)
        container = trainjob_container(rt, trainer)
        k = knobs_from(container)
        owner = self.batch_job(job, st, num, container)
        if owner is None:
            return
        by_index = {}
        for p in mine:
            by_index.setdefault(worker_index(p), []).append(p)
        budget = int(kf(k, 'SIM_RESTART', 0, int))
        late = int_set(k.get('SIM_LATE_WORKER'))
        for i in range(num):
            here = by_index.get(i, [])
            if any((p.get('status') or {}).get('phase') != 'Failed' for p in here):
                continue
            if here:    # the Job replaces a failed pod while attempts remain (backoffLimit)
                if st['attempts'].get(i, 0) > budget:
                    continue
                for p in here:
                    self.delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
            if i in late:
                due = st['late_due'].setdefault(i, time.monotonic() + kf(k, 'SIM_LATE_DELAY', 2.0))
                if time.monotonic() < due:
                    self.kick('trainjob', ns, name, due - time.monotonic() + 0.001)
                    continue
            st['attempts'][i] = st['attempts'].get(i, 0) + 1
            code, obj = self.kube.call('POST', pod_path(ns), node_pod(job, owner, i, num, container, self.node))
            if code == 201:
                self.podinf.put(obj)
                by_index[i] = [obj]
        phases = {i: [(p.get('status') or {}).get('phase') for p in by_index.get(i, [])] for i in range(num)}
        failed = any(v and all(ph == 'Failed' for ph in v) and st['attempts'].get(i, 0) > budget
                     for i, v in phases.items())
        ok = all('Succeeded' in phases[i] for i in range(num))
        running = any('Running' in v for v in phases.values())
        if failed:
            js['failed'] = 1
            set_metacond(new, 'Failed', 'True', 'FailedJobs', 'jobset failed due to one or more job failures', now)
        elif ok:
            js['succeeded'] = 1
            set_metacond(new, 'Complete', 'True', 'AllJobsCompleted', 'jobset completed successfully', now)
        else:
            js['active'] = 1
            js['ready'] = 1 if running else 0
        new['jobsStatus'] = [js]
        self.write_status(self.trainjobs, TRAINER, job, new)

    def batch_job(self, job, st, num, container):
        """The batch/v1 Job `<name>-node-0` owned by the TrainJob (stored, never run): it owns the
        pods, so the real garbage collector deletes TrainJob -> Job -> pods."""
        if st.get('owner'):
            return st['owner']
        m = job['metadata']
        jname = f'{m["name"]}-node-0'
        body = {'apiVersion': 'batch/v1', 'kind': 'Job',
                'metadata': {'name': jname, 'namespace': m['namespace'],
                             'labels': {'jobset.sigs.k8s.io/jobset-name': m['name'],
                                        'jobset.sigs.k8s.io/replicatedjob-name': 'node'},
                             'ownerReferences': [{'apiVersion': job['apiVersion'], 'kind': 'TrainJob',
                                                  'name': m['name'], 'uid': m['uid'], 'controller': True,
                                                  'blockOwnerDeletion': True}]},
                'spec': {'completionMode': 'Indexed', 'completions': num, 'parallelism': num, 'backoffLimit': 0,
                         'suspend': True,   # nothing runs it anyway; say so
                         'template': {'spec': {'restartPolicy': 'Never', 'containers': [
                             {'name': 'node', 'image': container.get('image') or 'x'}]}}}}
        path = f'/apis/batch/v1/namespaces/{m["namespace"]}/jobs'
        code, obj = self.kube.call('POST', path, body)
        if code == 409:
            code, obj = self.kube.call('GET', f'{path}/{jname}')
            if code == 200 and not any(r.get('uid') == m['uid'] for r in obj['metadata'].get('ownerReferences') or []):
                return None
        if code not in (200, 201):
            self.once(st, job, 'Warning', 'TrainJobResourcesCreationFailed', f'Error creating: {obj.get("message")}')
            return None
        st['owner'] = {'apiVersion': 'batch/v1', 'kind': 'Job', 'name': jname, 'uid': obj['metadata']['uid'],
                       'controller': True, 'blockOwnerDeletion': True}
        return st['owner']

    # --- kubelet -------------------------------------------------------------------------------------
    def knobs(self, pod):
        return knobs_from(main_container(pod))

    def patch_pod_status(self, ns, name, uid, status):
        code, obj = self.kube.call('PATCH', pod_path(ns, name) + '/status',
                                   {'metadata': {'uid': uid}, 'status': status}, 'application/merge-patch+json')
        if code == 200:
            self.podinf.put(obj)
            return obj
        return None

    def live(self, ns, name, uid):
        p = self.podinf.get(ns, name)
        kp = self.pods.get(uid)
        if p is None or p['metadata']['uid'] != uid or p['metadata'].get('deletionTimestamp') or not kp:
            return None
        return p

    def logfile(self, ns, pod, container):
        return os.path.join(self.log_root, ns, pod, container + '.log')

    def kubelet_start(self, ns, name, uid):
        pod = self.live(ns, name, uid)
        if pod is None:
            return
        k = self.knobs(pod)
        now = now_iso()
        names = ' '.join(c['name'] for c in pod['spec']['containers'])
        pull_err = k.get('SIM_IMAGE_PULL_ERROR') not in (None, '', '0')
        # a kubelet reads the Secrets the container's env names; a missing one stops the container
        secret = missing_secret(main_container(pod), lambda s: self.kube.call(
            'GET', f'/api/v1/namespaces/{ns}/secrets/{s}')[0] == 200)
        status = {
            'phase': 'Pending', 'hostIP': '127.0.0.1', 'podIP': f'10.244.0.{random.randint(2, 254)}',
            'startTime': now, 'qosClass': 'BestEffort',
            'conditions': [
                {'type': 'Initialized', 'status': 'True', 'lastProbeTime': None, 'lastTransitionTime': now},
                {'type': 'Ready', 'status': 'False', 'lastProbeTime': None, 'lastTransitionTime': now,
                 'reason': 'ContainersNotReady', 'message': f'containers with unready status: [{names}]'},
                {'type': 'ContainersReady', 'status': 'False', 'lastProbeTime': None, 'lastTransitionTime': now,
                 'reason': 'ContainersNotReady', 'message': f'containers with unready status: [{names}]'},
                {'type': 'PodScheduled', 'status': 'True', 'lastProbeTime': None, 'lastTransitionTime': now}],
            'containerStatuses': [
                {'name': c['name'], 'ready': False, 'restartCount': 0, 'image': c.get('image', ''), 'imageID': '',
                 'started': False, 'lastState': {},
                 'state': {'waiting': {'reason': 'ErrImagePull', 'message': pull_message(c.get('image', ''))}
                           if pull_err else {'reason': 'ContainerCreating'}}} for c in pod['spec']['containers']]}
        status['podIPs'] = [{'ip': status['podIP']}]
        if self.patch_pod_status(ns, name, uid, status) is None:
            return
        main = main_container(pod)
        img, fp = main.get('image', ''), f'spec.containers{{{main.get("name")}}}'
        self.event(pod, 'Normal', 'Pulling', f'Pulling image "{img}"', 'kubelet', self.node, fp)
        if secret and not pull_err:     # CreateContainerConfigError; a kubelet retries for ever
            css = status['containerStatuses']
            for cs in css:
                if cs['name'] == main.get('name'):
                    cs['state'] = {'waiting': {'reason': 'CreateContainerConfigError',
                                               'message': f'secret "{secret}" not found'}}
            self.patch_pod_status(ns, name, uid, {'containerStatuses': css})
            self.event(pod, 'Warning', 'Failed', f'Error: secret "{secret}" not found', 'kubelet', self.node, fp)
            return
        if pull_err:
            self.event(pod, 'Warning', 'Failed', f'Failed to pull image "{img}": ' + pull_message(img), 'kubelet',
                       self.node, fp)
            self.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', 'kubelet', self.node, fp)
            self.ops.later(1.0, self.image_backoff, ns, name, uid)
            return
        self.ops.later(kf(k, 'SIM_STARTUP', 0.3), self.container_run, ns, name, uid, 0)

    def image_backoff(self, ns, name, uid):
        pod = self.live(ns, name, uid)
        if pod is None:
            return
        main = main_container(pod)
        img, fp = main.get('image', ''), f'spec.containers{{{main.get("name")}}}'
        css = pod['status'].get('containerStatuses') or []
        for cs in css:
            if cs['name'] == main.get('name'):
                cs['state'] = {'waiting': {'reason': 'ImagePullBackOff', 'message': f'Back-off pulling image "{img}"'}}
        self.patch_pod_status(ns, name, uid, {'containerStatuses': css})
        self.event(pod, 'Normal', 'BackOff', f'Back-off pulling image "{img}"', 'kubelet', self.node, fp)
        self.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', 'kubelet', self.node, fp)

    def container_run(self, ns, name, uid, instance):
        """Start (or restart in place) the containers of a pod and play the worker's script."""
        pod = self.live(ns, name, uid)
        if pod is None:
            return
        k = self.knobs(pod)
        kp = self.pods[uid]
        kp['instance'] = instance
        main = main_container(pod)
        for c in pod['spec']['containers']:
            f = self.logfile(ns, name, c['name'])
            os.makedirs(os.path.dirname(f), exist_ok=True)
            for old in (f + '.exited', f):     # a new container's log replaces the old one
                if os.path.exists(old):
                    os.unlink(old)
            cri_append(f, f'sidecar {c["name"]} started\n' if c['name'] != main.get('name') else '', 'w')
        now = now_iso()
        st = pod['status']
        st['phase'] = 'Running'
        for c in st.get('conditions') or []:
            if c['type'] in ('Ready', 'ContainersReady'):
                c.update({'status': 'True', 'lastTransitionTime': now})
                c.pop('reason', None)
                c.pop('message', None)
        for cs in st.get('containerStatuses') or []:
            cs.update({'state': {'running': {'startedAt': now}}, 'ready': True, 'started': True,
                       'imageID': 'docker.io/' + cs['image'] + '@sha256:' + '0' * 64,
                       'containerID': 'containerd://' + secrets.token_hex(32), 'restartCount': instance})
        if self.patch_pod_status(ns, name, uid, {'phase': 'Running', 'conditions': st['conditions'],
                                                 'containerStatuses': st['containerStatuses']}) is None:
            return
        fp = f'spec.containers{{{main.get("name")}}}'
        if instance == 0:
            self.event(pod, 'Normal', 'Pulled', f'Successfully pulled image "{main.get("image")}" in 312.5ms',
                       'kubelet', self.node, fp)
        self.event(pod, 'Normal', 'Created', f'Created container {main.get("name")}', 'kubelet', self.node, fp)
        self.event(pod, 'Normal', 'Started', f'Started container {main.get("name")}', 'kubelet', self.node, fp)
        env = {e.get('name'): e.get('value') for e in main.get('env') or [] if isinstance(e, dict)}
        idx = worker_index(pod)
        n = env.get('NUM_PROCESSES') or env.get('JAX_NUM_PROCESSES') or '1'
        coord = env.get('COORDINATOR_ADDRESS')
        coord = f'{coord}:{env.get("COORDINATOR_PORT")}' if coord else env.get('JAX_COORDINATOR_ADDRESS', '?')
        duration = kf(k, 'SIM_DURATION', 1.0)
        code, crash = plan_exit(idx, k, instance + self.prior_attempts(pod))
        script, hang = worker_script(idx, n, coord, k, code, crash, duration)
        f = self.logfile(ns, name, main.get('name'))
        run = (uid, instance)
        for t, text in script:
            self.out.later(0 if hang else t, self.print_line, uid, run, f, text)
        if hang:
            self.out.later(duration, self.tick_hang, uid, run, f, 1)
            return
        # The exit is reported from the output thread, after the container's last line: on a busy
        # machine that thread runs late, and a status saying "terminated" while lines were still
        # to be written would be a container whose log grows after its exit - no runtime does
        # that, and the launch's exit-when-decided tail read would rightly take the log as whole.
        self.out.later(duration + 0.0005, self.mark_exited, uid, run, pod, kf(k, 'SIM_EOF_DELAY', 0.0),
                       (ns, name, uid, instance, code, crash))

    def running(self, uid, run):
        kp = self.pods.get(uid)
        return kp is not None and kp['alive'] and (uid, kp['instance']) == run

    def print_line(self, uid, run, f, text):
        if self.running(uid, run):
            cri_append(f, text)

    def tick_hang(self, uid, run, f, n):
        if self.running(uid, run):
            cri_append(f, f'INFO:sim:still running ({n})\n')
            self.out.later(1.0, self.tick_hang, uid, run, f, n + 1)

    def mark_exited(self, uid, run, pod, eof_delay=0.0, exit_args=None):
        """The containers ended: the stub kubelet ends follow streams once everything was sent.
        With SIM_EOF_DELAY the marker comes that much later, as a kubelet that notices the
        exit late: the pod says terminated, the log is complete, the follows stay open.
        `exit_args`: the container_exit to report now that the log is whole."""
        if exit_args:
            self.ops.later(0.0095, self.container_exit, *exit_args)
        if not self.running(uid, run):
            return
        self.pods[uid]['alive'] = False
        if eof_delay > 0:
            self.out.later(eof_delay, self.write_exited, uid, run, pod)
        else:
            self.write_exited(uid, run, pod)

    def write_exited(self, uid, run, pod):
        kp = self.pods.get(uid)
        if kp is None or (uid, kp['instance']) != run:
            return      # a new container's log (or none) is there now: not this one's end
        m = pod['metadata']
        for c in pod['spec']['containers']:
            open(self.logfile(m['namespace'], m['name'], c['name']) + '.exited', 'w').close()

    def prior_attempts(self, pod):
        """Crashes of earlier pods of the same worker (the operator re-created the pod)."""
        for ref in pod['metadata'].get('ownerReferences') or []:
            st = self.jobs.get(ref.get('uid'))
            if st is not None:
                return st['crashes'].get(worker_index(pod), 0)
        tj = self.jobs.get((pod['metadata'].get('labels') or {}).get('jobset.sigs.k8s.io/jobset-uid'))
        return tj['crashes'].get(worker_index(pod), 0) if tj else 0

    def note_crash(self, pod):
        m = pod['metadata']
        for uid in [r.get('uid') for r in m.get('ownerReferences') or []] + \
                [(m.get('labels') or {}).get('jobset.sigs.k8s.io/jobset-uid')]:
            st = self.jobs.get(uid)
            if st is not None:
                st['crashes'][worker_index(pod)] = st['crashes'].get(worker_index(pod), 0) + 1

    def container_exit(self, ns, name, uid, instance, code, crash):
        pod = self.podinf.get(ns, name)
        if pod is None or pod['metadata']['uid'] != uid or pod['metadata'].get('deletionTimestamp'):
            return
        if (pod.get('status') or {}).get('phase') != 'Running':
            return
        now = now_iso()
        st = pod['status']
        rp = pod['spec'].get('restartPolicy', 'Always')
        k = self.knobs(pod)
        evicted = code != 0 and not crash and failure_mode(k) == 'evict'
        restart = not evicted and (rp == 'Always' or (rp == 'OnFailure' and code != 0))
        if crash or code:
            self.note_crash(pod)
        for cs in st.get('containerStatuses') or []:
            started = (cs.get('state') or {}).get('running', {}).get('startedAt', now)
            term = {'exitCode': code, 'reason': term_reason(k, code, crash), 'startedAt': started,
                    'finishedAt': now, 'containerID': cs.get('containerID', '')}
            if restart:
                cs['lastState'] = {'terminated': term}
                cs['state'] = {'waiting': {'reason': 'CrashLoopBackOff',
                                           'message': f'back-off 10s restarting failed container={cs["name"]} '
                                                      f'pod={name}_{ns}({uid})'}}
            else:
                cs['state'] = {'terminated': term}
            cs['ready'] = cs['started'] = False
        patch = {'containerStatuses': st['containerStatuses'], 'conditions': st.get('conditions') or []}
        if not restart:
            patch['phase'] = 'Succeeded' if code == 0 else 'Failed'
        if evicted:     # what the kubelet's eviction manager writes
            patch.update({'reason': 'Evicted', 'message': EVICT_MESSAGE})
        for c in patch['conditions']:
            if c['type'] in ('Ready', 'ContainersReady'):
                c.update({'status': 'False', 'lastTransitionTime': now,
                          'reason': 'ContainersNotReady' if restart else 'PodCompleted'})
        if self.patch_pod_status(ns, name, uid, patch) is None:
            return
        if evicted:
            self.event(pod, 'Warning', 'Evicted', EVICT_MESSAGE, 'kubelet', self.node)
        if code and not crash and failure_mode(k) == 'cascade' and not cascade_peer(k, worker_index(pod)):
            self.cascade(pod, kf(k, 'SIM_CASCADE_DELAY', 5.0))
        if code and not restart:
            for r in pod['metadata'].get('ownerReferences') or []:
                if r.get('kind') == 'JAXJob':
                    j = self.jaxjobs.get(ns, r.get('name'))
                    if j:
                        self.event(j, 'Normal', 'ExitedWithCode', f'Pod: {ns}.{name} exited with code {code}')
        if restart:
            self.pods[uid]['alive'] = True
            self.ops.later(0.3, self.container_run, ns, name, uid, instance + 1)

    def cascade(self, dead, delay):
        """The job's other workers share the dead one's fate `delay` s later, as JAX's processes do
        when the coordination service's heartbeats stop."""
        m = dead['metadata']
        lab = m.get('labels') or {}
        key = next(((k, lab[k]) for k in ('training.kubeflow.org/job-name', 'jobset.sigs.k8s.io/jobset-name')
                    if k in lab), None)
        for p in self.podinf.items():
            pm = p['metadata']
            if key is None or pm.get('namespace') != m.get('namespace') or \
                    (pm.get('labels') or {}).get(key[0]) != key[1] or pm['uid'] == m['uid']:
                continue
            kp = self.pods.get(pm['uid'])
            if kp and kp['alive']:
                self.ops.later(delay, self.cascade_exit, pm['namespace'], pm['name'], pm['uid'], kp['instance'])

    def cascade_exit(self, ns, name, uid, instance):
        pod = self.podinf.get(ns, name)
        if pod is None or pod['metadata']['uid'] != uid or not self.running(uid, (uid, instance)):
            return
        f = self.logfile(ns, name, main_container(pod).get('name'))
        with open(f, 'a') as fh:
            fh.writelines(cascade_lines())
        self.mark_exited(uid, (uid, instance), pod)
        self.container_exit(ns, name, uid, instance, 1, False)

    def pod_terminating(self, ns, name, uid):
        """Graceful deletion: the containers get SIGTERM (a last line), exit, and the kubelet
        confirms with grace 0 (only this uid: a re-created pod of the same name must stay)."""
        kp = self.pods.setdefault(uid, {'instance': 0, 'alive': False, 'terminating': False})
        if kp['terminating']:
            return
        kp['terminating'] = True
        pod = self.podinf.get(ns, name)
        if kp['alive'] and pod is not None:
            kp['alive'] = False
            for c in pod['spec']['containers']:
                f = self.logfile(ns, name, c['name'])
                if os.path.exists(f):
                    cri_append(f, 'INFO:sim:received SIGTERM, exiting\n')
                    open(f + '.exited', 'w').close()
        self.ops.later(0.1, self.delete_pod, ns, name, uid, 0)

    def pod_gone(self, uid):
        kp = self.pods.pop(uid, None)
        if kp:
            kp['alive'] = False


def trainjob_container(rt, trainer):
    c = {'name': 'node', 'image': 'nvcr.io/nvidia/jax:25.10-py3'}
    try:
        rj = rt['spec']['template']['spec']['replicatedJobs']
        node = next(x for x in rj if x.get('name') == 'node')
        c = copy.deepcopy(next(x for x in node['template']['spec']['template']['spec']['containers']
                               if x.get('name') == 'node'))
    except (KeyError, StopIteration, TypeError):
        pass
    for f in ('image', 'command', 'args'):
        if trainer.get(f):
            c[f] = copy.deepcopy(trainer[f])
    env = c.setdefault('env', [])
    for e in trainer.get('env') or []:
        env[:] = [x for x in env if x.get('name') != e.get('name')] + [e]
    if trainer.get('resourcesPerNode'):
        c['resources'] = copy.deepcopy(trainer['resourcesPerNode'])
    return c


def node_pod(job, owner, i, num, container, node):
    """A JobSet pod: `<job>-node-0-<i>-<rand>` with the JobSet/Job labels, owned by the Job."""
    m = job['metadata']
    name = m['name']
    c = copy.deepcopy(container)
    c['env'] = (c.get('env') or []) + [
        {'name': 'JAX_NUM_PROCESSES', 'value': str(num)},
        {'name': 'JAX_PROCESS_ID', 'valueFrom': {'fieldRef': {
            'fieldPath': "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
        {'name': 'JAX_COORDINATOR_ADDRESS', 'value': f'{name}-node-0-0.{name}:29500'}]
    c.setdefault('ports', []).append({'containerPort': 29500})
    jname = owner['name']
    labels = {'batch.kubernetes.io/job-completion-index': str(i), 'controller-uid': owner['uid'],
              'job-name': jname, 'jobset.sigs.k8s.io/global-replicas': '1',
              'jobset.sigs.k8s.io/job-global-index': '0', 'jobset.sigs.k8s.io/job-index': '0',
              'jobset.sigs.k8s.io/job-key': secrets.token_hex(20), 'jobset.sigs.k8s.io/jobset-name': name,
              'jobset.sigs.k8s.io/jobset-uid': m['uid'], 'jobset.sigs.k8s.io/replicatedjob-name': 'node',
              'jobset.sigs.k8s.io/replicatedjob-replicas': '1',
              'trainer.kubeflow.org/trainjob-ancestor-step': 'trainer'}
    ann = {'batch.kubernetes.io/job-completion-index': str(i), 'jobset.sigs.k8s.io/jobset-name': name,
           'jobset.sigs.k8s.io/replicatedjob-name': 'node'}
    suffix = ''.join(random.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(5))
    return {'apiVersion': 'v1', 'kind': 'Pod',
            'metadata': {'name': f'{jname}-{i}-{suffix}', 'namespace': m['namespace'], 'labels': labels,
                         'annotations': ann, 'ownerReferences': [owner]},
            'spec': {'containers': [c], 'restartPolicy': 'Never', 'hostname': f'{jname}-{i}', 'subdomain': name,
                     'nodeName': node}}


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('export ') and '=' in line:
                k, v = line[7:].split('=', 1)
                env[k] = v.strip('"')
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--env', required=True, help='the env file written by kube-control-plane/up.sh')
    ap.add_argument('--ready-file', help='created once every watch has listed')
    a = ap.parse_args()
    env = read_env(a.env)
    d = env['KCP_DIR']
    kube = Kube(env['KUBE_SERVER'], env['KUBE_CA'], os.path.join(d, 'pki', 'admin.crt'),
                os.path.join(d, 'pki', 'admin.key'))
    cl = Cluster(kube, env.get('FAKE_NODE', 'fake-node'), env['FAKE_KUBELET_LOG_ROOT'])
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    cl.start()
    for inf in (cl.jaxjobs, cl.trainjobs, cl.podinf):
        inf.synced.wait(60)
    if a.ready_file:
        open(a.ready_file, 'w').close()
    say('operator ready')
    while not STOP.wait(1.0):
        pass
    say('operator stopped')


if __name__ == '__main__':
    main()
