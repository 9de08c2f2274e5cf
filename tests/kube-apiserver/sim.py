"""Simulated cluster behind the test apiserver: training operator (JAXJob v1, TrainJob v2), scheduler,
kubelet (pod phases, container states, logs) and the JAXJob validating webhook.

Everything a job does is declared in the job itself (SIM_* variables, see README.md), so tests
stay declarative. Time scales with --speed.

Threads: one scheduler thread runs timed actions from a heap; store listeners only enqueue work
(they run under the store lock). All state changes go through Api/Store like any client's.
"""
import copy
import datetime
import heapq
import itertools
import json
import random
import re
import secrets
import threading
import time
import uuid

import resources as R
from api import now_iso, rand_suffix
from resources import ApiError, err
from simscript import (EVICT_MESSAGE, cascade_lines, event_object, cascade_peer, exit_code, failure_mode,  # noqa: F401
                       int_set, kf, knobs_from, missing_secret, parse_time, plan_exit, pull_message, set_cond,
                       set_metacond, term_reason, unschedulable, worker_script)

OPERATOR = 'jaxjob-controller'
NODE = 'sim-node'
DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
               "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
               "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


def ts_nano():
    t = time.time()
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.') + \
        f'{int((t % 1) * 1e9):09d}Z'


class ContainerLog:
    """Lines a container printed; followers wait on `cond`. Each line is kept with the time it
    was written, as a container runtime writes its CRI log (`<RFC 3339 time> stdout F <line>`)
    and a kubelet serves it (timestamps=true): a line served late carries its old time."""

    def __init__(self):
        self.lines = []          # (write time, one line's bytes with its newline)
        self.done = False
        self.cond = threading.Condition()

    def write(self, text):
        data = text.encode('utf-8') if isinstance(text, str) else text
        ts = ts_nano()
        with self.cond:
            # one entry per line: a multi-line write is several CRI lines with one time,
            # each served with its own timestamp prefix
            self.lines.extend((ts, line) for line in data.splitlines(keepends=True))
            self.cond.notify_all()

    def close(self):
        with self.cond:
            self.done = True
            self.cond.notify_all()


class Simulator:
    def __init__(self, app):
        self.app = app
        self.s = app.store
        self.api = app.api
        self.logs = {}                       # (pod uid, container, instance) -> ContainerLog
        self.heap = []
        self.seq = itertools.count()
        self.cv = threading.Condition()
        self.busy = False                    # a timer's function is running (settle)
        self.pods = {}                       # pod uid -> PodSim
        self.jobs = {}                       # job uid -> dict of per-job state
        self.stub_logs = {}
        self.pending = {}                    # (plural, ns, name) -> due time of the queued reconcile

    # --- scheduling -------------------------------------------------------------------------
    def start(self):
        self.s.listeners.append(self.on_event)
        threading.Thread(target=self.loop, name='sim', daemon=True).start()
        self.kick_all()     # jobs that exist already (none at start, but keep it correct)

    def kick_all(self):
        for res in (R.JAXJOBS, R.TRAINJOBS):
            for o in self.s.list(res)[0]:
                self.kick(res, o['metadata']['namespace'], o['metadata']['name'])

    def scale(self, seconds):
        return max(0.0, seconds) / max(0.01, self.app.cfg.speed)

    def later(self, delay, fn, *args):
        with self.cv:
            heapq.heappush(self.heap, (time.monotonic() + delay, next(self.seq), fn, args))
            self.cv.notify()

    def kick(self, res, ns, name, delay=0.0):
        """Queue a reconcile of a job; requests for the same job coalesce (like a workqueue)."""
        key = (res.plural, ns, name)
        delay += float(self.app.faults.get('operatorDelay') or 0)   # fault: slow operator
        due = time.monotonic() + delay
        with self.cv:
            cur = self.pending.get(key)
            if cur is not None and cur <= due:
                return
            self.pending[key] = due
        self.later(delay, self._run_reconcile, key, res, ns, name)

    def _run_reconcile(self, key, res, ns, name):
        with self.cv:
            due = self.pending.get(key)
            if due is None or due > time.monotonic() + 0.001:
                return
            del self.pending[key]
        self.reconcile(res, ns, name)

    def loop(self):
        while True:
            with self.cv:
                while not self.heap or self.heap[0][0] > time.monotonic():
                    self.cv.wait(timeout=(self.heap[0][0] - time.monotonic()) if self.heap else None)
                _, _, fn, args = heapq.heappop(self.heap)
                self.busy = True
            try:
                fn(*args)
            except ApiError:
                pass
            except Exception:  # noqa: BLE001 - the simulation must go on
                import traceback
                traceback.print_exc()
            finally:
                with self.cv:
                    self.busy = False
                    self.cv.notify_all()

    def settle(self, horizon, ceiling=60.0):
        """Block until every timer due within `horizon` seconds of now has run (and what they
        scheduled within that horizon too): GET /_test/settle. A test that asserts something
        did NOT happen (the job stays Created, the pods keep no owner) waits for this event -
        the operator has had its turn - instead of sleeping and hoping it was long enough."""
        t = time.monotonic() + horizon
        end = time.monotonic() + ceiling
        with self.cv:
            while (self.busy or (self.heap and self.heap[0][0] <= t)) and time.monotonic() < end:
                self.cv.wait(0.05)
            return not self.busy and not (self.heap and self.heap[0][0] <= t)

    def on_event(self, ev):
        """Store listener (runs under the store lock): only schedule work."""
        m = ev.obj.get('metadata') or {}
        if ev.res in (R.JAXJOBS, R.TRAINJOBS):
            if ev.type == 'DELETED':
                self.later(0, self.job_deleted, ev.res, m)
            else:
                self.kick(ev.res, m.get('namespace', ''), m.get('name'), self.scale(0.02))
        elif ev.res is R.PODS:
            if ev.type == 'DELETED':
                self.later(0, self.pod_gone, m.get('uid'))
            else:
                if ev.type == 'ADDED':
                    self.later(self.scale(0.05), self.schedule_pod, m.get('namespace', ''), m.get('name'), m.get('uid'))
                elif m.get('deletionTimestamp') and not (ev.prev or {}).get('metadata', {}).get('deletionTimestamp'):
                    self.later(0, self.pod_terminating, m.get('namespace', ''), m.get('name'), m.get('uid'))
                for ref in m.get('ownerReferences') or []:
                    if ref.get('kind') == 'JAXJob':
                        self.kick(R.JAXJOBS, m.get('namespace', ''), ref.get('name'), self.scale(0.01))
                tj = (m.get('labels') or {}).get('jobset.sigs.k8s.io/jobset-name')
                if tj:
                    self.kick(R.TRAINJOBS, m.get('namespace', ''), tj, self.scale(0.01))

    @property
    def enabled(self):
        return self.app.cfg.operator

    def op_delay(self):
        return self.scale(0.05)

    # --- store helpers ----------------------------------------------------------------------
    def event(self, obj, etype, reason, message, component=OPERATOR, host=None, field_path=None):
        ev = event_object(obj, etype, reason, message, component, host, field_path)
        ns = ev['metadata']['namespace']
        try:
            self.api.create(R.EVENTS, ns, json.dumps(ev).encode(), {}, None, f'{component}/v0')
        except ApiError:
            pass

    def write(self, res, obj):
        """Commit a changed object as the controllers do (update); ignore races with deletion."""
        with self.s.lock:
            cur = self.s.peek(res, obj['metadata'].get('namespace', ''), obj['metadata']['name'])
            if cur is None or cur['metadata']['uid'] != obj['metadata']['uid']:
                return None
            obj['metadata']['resourceVersion'] = cur['metadata']['resourceVersion']
            return self.s.update(res, obj)

    def owned_pods(self, ns, uid):
        return [o for o in self.s.list(R.PODS, ns)[0]
                if any(r.get('uid') == uid for r in o['metadata'].get('ownerReferences') or [])]

    # --- webhook ----------------------------------------------------------------------------
    def webhook(self, op, res, obj, old):
        if self.enabled and res is R.TRAINJOBS:
            ref = (obj.get('spec') or {}).get('runtimeRef') or {}
            if ref.get('apiGroup') != 'trainer.kubeflow.org' or \
                    ref.get('kind') not in ('ClusterTrainingRuntime', 'TrainingRuntime'):
                raise err(403, 'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: '
                          f'unsupported runtime: {ref.get("kind")}.{ref.get("apiGroup")}', details=None)
            return
        if not self.enabled or res is not R.JAXJOBS:
            return
        errs = []
        name = obj['metadata'].get('name', '')
        if len(name) > 63:
            errs.append(f'metadata.name: Invalid value: "{name}": must be no more than 63 characters')
        if not re.match(r'^[a-z]([-a-z0-9]*[a-z0-9])?$', name):
            errs.append(f'metadata.name: Invalid value: "{name}": should match: {DNS1035_MSG}')
        specs = (obj.get('spec') or {}).get('jaxReplicaSpecs')
        if specs is None:
            errs.append('spec.jaxReplicaSpecs: Required value: must be required')
        for key, rs in sorted((specs or {}).items()):
            if key != 'Worker':
                errs.append(f'spec.jaxReplicaSpecs[{key}]: Unsupported value: "{key}": supported values: "Worker"')
            cs = (((rs or {}).get('template') or {}).get('spec') or {}).get('containers') or []
            if not cs:
                errs.append(f'spec.jaxReplicaSpecs[{key}].template.spec.containers: Required value: must be specified')
                continue
            for i, c in enumerate(cs):
                if not c.get('image'):
                    errs.append(f'spec.jaxReplicaSpecs[{key}].template.spec.containers[{i}].image: Required value: '
                                'must be required')
            if not any(c.get('name') == 'jax' for c in cs):
                errs.append(f'spec.jaxReplicaSpecs[{key}].template.spec.containers: Required value: must have at '
                            'least one container with name jax')
        if errs:
            agg = errs[0] if len(errs) == 1 else '[' + ', '.join(errs) + ']'
            raise err(403, 'admission webhook "validator.jaxjob.training-operator.kubeflow.org" denied the request: '
                      + agg, details=None)

    # --- JAXJob operator --------------------------------------------------------------------
    def reconcile(self, res, ns, name):
        if not self.enabled:
            return
        if res is R.TRAINJOBS:
            return self.reconcile_trainjob(ns, name)
        job = self.s.get(R.JAXJOBS, ns, name)
        if job is None or job['metadata'].get('deletionTimestamp'):
            return
        uid = job['metadata']['uid']
        st = self.jobs.setdefault(uid, {'created_at': time.monotonic(), 'crashes': {}, 'events': set(),
                                        'late_due': {}})
        if time.monotonic() - st['created_at'] < self.op_delay():
            self.kick(res, ns, name, self.op_delay())
            return
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
        new = copy.deepcopy(job)
        ns_status = new.setdefault('status', {})
        now = now_iso()
        selector = (f'training.kubeflow.org/job-name={name},training.kubeflow.org/operator-name={OPERATOR},'
                    'training.kubeflow.org/replica-type=worker')
        suspended = bool(rp.get('suspend'))
        if not any(c.get('type') == 'Created' for c in conds):
            set_cond(ns_status, 'Created', 'True', 'JAXJobCreated', f'JAXJob {name} is created.', now)
        if suspended:
            for p in self.owned_pods(ns, uid):
                self.api.force_delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
            if any(c.get('type') == 'Running' for c in ns_status.get('conditions') or []):
                set_cond(ns_status, 'Running', 'False', 'JAXJobSuspended', f'JAXJob {name} is suspended.', now)
            set_cond(ns_status, 'Suspended', 'True', 'JAXJobSuspended', f'JAXJob {name} is suspended.', now)
            if any(c.get('type') == 'Running' for c in ns_status.get('conditions') or []) or 'replicaStatuses' in ns_status:
                ns_status['replicaStatuses'] = {'Worker': {'selector': selector}}
            self.once(st, job, 'Normal', 'JAXJobSuspended', f'JAXJob {name} is suspended.')
            self.write(R.JAXJOBS, new)
            return
        resumed = any(c.get('type') == 'Suspended' and c.get('status') == 'True' for c in conds)
        if resumed:
            set_cond(ns_status, 'Suspended', 'False', 'JAXJobResumed', f'JAXJob {name} is resumed.', now)
            ns_status['startTime'] = now
            st['events'].discard('JAXJobSuspended')
            self.event(job, 'Normal', 'JAXJobResumed', f'JAXJob {name} is resumed.')
        ns_status.setdefault('startTime', now)
        # pods
        pods = {p['metadata']['name']: p for p in self.owned_pods(ns, uid)}
        late = int_set(k.get('SIM_LATE_WORKER'))
        late_delay = self.scale(kf(k, 'SIM_LATE_DELAY', 2.0))
        for i in range(replicas):
            pname = f'{name}-worker-{i}'
            if pname in pods:
                continue
            if i in late:
                if self.app.faults.get('holdLateWorkers'):
                    continue    # until the test removes the fault (apply_faults kicks every job)
                due = st['late_due'].setdefault(i, time.monotonic() + late_delay)
                if time.monotonic() < due:
                    self.kick(res, ns, name, due - time.monotonic() + 0.001)
                    continue
            pod = self.make_worker_pod(job, i, replicas, policy, tmpl)
            try:
                self.api.create(R.PODS, ns, json.dumps(pod).encode(), {}, None, f'{OPERATOR}/v1.9.4')
                self.event(job, 'Normal', 'SuccessfulCreatePod', f'Created pod: {pname}')
            except ApiError as e:
                self.event(job, 'Warning', 'FailedCreatePod', f'Error creating: {e.body.get("message")}')
        # services (headless, one per worker): creation may fail, then nothing else changes
        fail_svc = k.get('SIM_FAIL_SERVICE') not in (None, '', '0')
        too_long = len(f'{name}-worker-{replicas - 1}') > 63
        if fail_svc or too_long:
            svc = f'{name}-worker-0'
            msg = (f'Error creating: Service "{svc}" is invalid: metadata.name: Invalid value: "{svc}": must be no '
                   f'more than 63 characters' if too_long or k.get('SIM_FAIL_SERVICE') == 'invalid' else
                   f'Error creating: services "{svc}" is forbidden: exceeded quota: object-counts, requested: '
                   f'services=1, used: services=10, limited: services=10')
            self.once(st, job, 'Warning', 'FailedCreateService', msg)
            if not any(c.get('type') == 'Created' for c in conds):
                ns_status['replicaStatuses'] = {'Worker': {'selector': selector}}
                self.write(R.JAXJOBS, new)
            return
        for i in range(replicas):
            self.once(st, job, 'Normal', 'SuccessfulCreateService', f'Created service: {name}-worker-{i}', key=f'svc{i}')
        pods = {p['metadata']['name']: p for p in self.owned_pods(ns, uid)}
        active = succeeded = failed = 0
        retry_failed = []
        perm_failed = 0
        restarts = 0
        for p in pods.values():
            ph = (p.get('status') or {}).get('phase')
            if p['metadata'].get('deletionTimestamp'):
                if ph == 'Running':
                    failed += 1
                continue
            for cs in (p.get('status') or {}).get('containerStatuses') or []:
                if ph == 'Running':
                    restarts += cs.get('restartCount', 0)
            if ph == 'Running':
                active += 1
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
        if active:
            rs['active'] = active
        if succeeded:
            rs['succeeded'] = succeeded
        if failed:
            rs['failed'] = failed
        ns_status['replicaStatuses'] = {'Worker': rs}
        # the events of this decision go out with its status: held back with it (holdVerdict)
        evs = []
        self.event = lambda *a, **k: evs.append((a, k))    # the sim loop is one thread
        try:
            bl = rp.get('backoffLimit')
            done = False
            if isinstance(bl, int) and policy in ('OnFailure', 'Always', 'ExitCode') and restarts >= bl and restarts > 0:
                self.fail(job, ns_status, f'Job {name} has failed because it has reached the specified backoff limit', now, True)
                done = True
            ads = rp.get('activeDeadlineSeconds')
            if not done and isinstance(ads, int) and ns_status.get('startTime'):
                started = parse_time(ns_status['startTime'])
                left = started + ads - time.time()
                if left <= 0:
                    self.fail(job, ns_status, f'Job {name} has failed because it was active longer than specified '
                              'deadline', now, True)
                    done = True
                else:
                    self.kick(res, ns, name, left + 0.01)
            if not done:
                for p in retry_failed:
                    self.api.force_delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
                    self.event(job, 'Normal', 'SuccessfulDeletePod', f'Deleted pod: {p["metadata"]["name"]}')
                    set_cond(ns_status, 'Restarting', 'True', 'JAXJobRestarting',
                             f'JAXJob {name} is restarting because {len(retry_failed)} Worker replica(s) failed.', now)
                    self.event(job, 'Warning', 'JAXJobRestarting',
                               f'JAXJob {name} is restarting because {len(retry_failed)} Worker replica(s) failed.')
                if perm_failed and policy == 'ExitCode':
                    set_cond(ns_status, 'Failed', 'True', 'JAXJobFailed',
                             f'job "{name}" is failing because "Worker" replica(s) failed.', now)
                    self.event(job, 'Warning', 'JAXJobFailed', f'job "{name}" is failing because "Worker" replica(s) failed.')
                elif perm_failed and replicas > succeeded + active:
                    self.fail(job, ns_status, f'JAXJob {name} is failed because {perm_failed} Worker replica(s) failed.',
                              now, True)
                elif replicas - succeeded == 0 and replicas > 0 or replicas == 0:
                    rs.pop('active', None)
                    if active:
                        rs['succeeded'] = succeeded + active
                    msg = f'JAXJob {ns}/{name} successfully completed.'
                    set_cond(ns_status, 'Succeeded', 'True', 'JAXJobSucceeded', msg, now)
                    ns_status['completionTime'] = now
                    self.event(job, 'Normal', 'JAXJobSucceeded', msg)
                elif active > 0 and not retry_failed:
                    set_cond(ns_status, 'Running', 'True', 'JAXJobRunning', f'JAXJob {ns}/{name} is running.', now)
        finally:
            del self.event
        if self.app.faults.get('holdVerdict') and any(
                c.get('type') in ('Succeeded', 'Failed') and c.get('status') == 'True'
                for c in ns_status.get('conditions') or []):
            return      # fault holdVerdict: the pods are in, the verdict waits for its removal
        for a, k in evs:
            self.event(*a, **k)
        written = self.write(R.JAXJOBS, new)
        if written is not None and any(c.get('type') in ('Succeeded', 'Failed') and c.get('status') == 'True'
                                       for c in (new.get('status') or {}).get('conditions') or []):
            self.kick(res, ns, name, 0.01)

    def fail(self, job, ns_status, msg, now, completion):
        set_cond(ns_status, 'Failed', 'True', 'JAXJobFailed', msg, now)
        if completion:
            ns_status['completionTime'] = now
        self.event(job, 'Warning', 'JAXJobFailed', msg)

    def once(self, st, job, etype, reason, msg, key=None):
        key = key or reason
        if key in st['events']:
            return
        st['events'].add(key)
        self.event(job, etype, reason, msg)

    def finished(self, job, st):
        """cleanPodPolicy and ttlSecondsAfterFinished of a finished JAXJob."""
        if st.get('finished'):
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
                self.api.force_delete_pod(m['namespace'], p['metadata']['name'], p['metadata']['uid'])
        ttl = rp.get('ttlSecondsAfterFinished')
        if isinstance(ttl, int):
            self.later(self.scale(ttl), self.ttl_delete, R.JAXJOBS, m['namespace'], m['name'], m['uid'])

    def ttl_delete(self, res, ns, name, uid):
        o = self.s.peek(res, ns, name)
        if o is not None and o['metadata']['uid'] == uid:
            self.api.delete(res, ns, name, None, {'propagationPolicy': 'Background'}, OPERATOR)

    def job_deleted(self, res, m):
        self.jobs.pop(m.get('uid'), None)
        if res is R.TRAINJOBS:
            # TrainJob -> JobSet -> Job -> Pod: the cascade ends at the pods
            for p in self.s.list(R.PODS, m.get('namespace'))[0]:
                if (p['metadata'].get('labels') or {}).get('jobset.sigs.k8s.io/jobset-name') == m.get('name'):
                    self.api._delete_dependent(R.PODS, p)

    def make_worker_pod(self, job, i, replicas, policy, tmpl):
        m = job['metadata']
        name = m['name']
        spec = copy.deepcopy(tmpl.get('spec') or {})
        tm = copy.deepcopy(tmpl.get('metadata') or {})
        labels = dict(tm.get('labels') or {})
        labels.update({'training.kubeflow.org/operator-name': OPERATOR, 'training.kubeflow.org/job-name': name,
                       'training.kubeflow.org/replica-type': 'worker', 'training.kubeflow.org/replica-index': str(i)})
        if i == 0:
            labels['training.kubeflow.org/job-role'] = 'master'
        spec['restartPolicy'] = 'Never' if policy == 'ExitCode' else policy
        port = 6666
        for c in spec.get('containers') or []:
            if c.get('name') == 'jax':
                ports = c.setdefault('ports', [])
                mine = [p for p in ports if p.get('name') == 'jaxjob-port']
                if mine:
                    port = mine[0].get('containerPort', 6666)
                else:
                    ports.append({'name': 'jaxjob-port', 'containerPort': 6666})
        for c in spec.get('containers') or []:
            env = c.setdefault('env', [])
            env += [{'name': 'PYTHONUNBUFFERED', 'value': '1'}, {'name': 'COORDINATOR_PORT', 'value': str(port)},
                    {'name': 'COORDINATOR_ADDRESS', 'value': f'{name}-worker-0'},
                    {'name': 'NUM_PROCESSES', 'value': str(replicas)}, {'name': 'PROCESS_ID', 'value': str(i)}]
        meta = {'name': f'{name}-worker-{i}', 'namespace': m['namespace'], 'labels': labels,
                'ownerReferences': [{'apiVersion': 'kubeflow.org/v1', 'kind': 'JAXJob', 'name': name, 'uid': m['uid'],
                                     'controller': True, 'blockOwnerDeletion': True}]}
        if tm.get('annotations'):
            meta['annotations'] = tm['annotations']
        return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta, 'spec': spec}

    # --- TrainJob operator (Trainer v2 + JobSet + Job, collapsed) -------------------------------
    def reconcile_trainjob(self, ns, name):
        job = self.s.get(R.TRAINJOBS, ns, name)
        if job is None or job['metadata'].get('deletionTimestamp'):
            return
        uid = job['metadata']['uid']
        st = self.jobs.setdefault(uid, {'created_at': time.monotonic(), 'crashes': {}, 'events': set(),
                                        'late_due': {}, 'attempts': {}})
        if time.monotonic() - st['created_at'] < self.op_delay():
            self.kick(R.TRAINJOBS, ns, name, self.op_delay())
            return
        conds = (job.get('status') or {}).get('conditions') or []
        if any(c.get('type') in ('Complete', 'Failed') and c.get('status') == 'True' for c in conds):
            return
        spec = job.get('spec') or {}
        ref = spec.get('runtimeRef') or {}
        rt = None
        if ref.get('kind', 'ClusterTrainingRuntime') == 'ClusterTrainingRuntime':
            rt = self.s.get(R.CTRS, '', ref.get('name', ''))
            what = f'clustertrainingruntimes.trainer.kubeflow.org "{ref.get("name")}" not found'
        else:
            rt = self.s.get(R.TRS, ns, ref.get('name', ''))
            what = f'trainingruntimes.trainer.kubeflow.org "{ref.get("name")}" not found'
        if rt is None:
            self.once(st, job, 'Warning', 'TrainJobResourcesCreationFailed', what)
            return
        trainer = spec.get('trainer') or {}
        num = trainer.get('numNodes') or (((rt.get('spec') or {}).get('mlPolicy') or {}).get('numNodes') or 1)
        if len(f'{name}-node-0-{num - 1}-abcde') > 63:
            self.once(st, job, 'Warning', 'TrainJobResourcesCreationFailed',
                      'admission webhook "vjobset.kb.io" denied the request: spec.replicatedJobs[0].name: Invalid '
                      'value: "node": JobSet name is too long, pod names generated for this JobSet will exceed 63 '
                      'characters')
            return
        new = copy.deepcopy(job)
        status = new.setdefault('status', {})
        now = now_iso()
        pods = [p for p in self.s.list(R.PODS, ns)[0]
                if (p['metadata'].get('labels') or {}).get('jobset.sigs.k8s.io/jobset-name') == name
                and not p['metadata'].get('deletionTimestamp')]
        js = {'name': 'node', 'active': 0, 'failed': 0, 'ready': 0, 'succeeded': 0, 'suspended': 0}
        if spec.get('suspend'):
            for p in pods:
                self.api.force_delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
            set_metacond(status, 'Suspended', 'True', 'Suspended', 'TrainJob is suspended', now)
            js['suspended'] = 1
            status['jobsStatus'] = [js]
            self.write(R.TRAINJOBS, new)
            return
        if any(c.get('type') == 'Suspended' and c.get('status') == 'True' for c in conds):
            set_metacond(status, 'Suspended', 'False', 'Resumed', 'TrainJob is resumed', now)
            st['created_at_wall'] = time.time()
        container = self.trainjob_container(rt, trainer)
        k = knobs_from(container)
        by_index = {}
        for p in pods:
            idx = int((p['metadata'].get('labels') or {}).get('batch.kubernetes.io/job-completion-index', '0'))
            by_index.setdefault(idx, []).append(p)
        late = int_set(k.get('SIM_LATE_WORKER'))
        for i in range(num):
            live = [p for p in by_index.get(i, []) if (p.get('status') or {}).get('phase') != 'Failed']
            failed_here = [p for p in by_index.get(i, []) if (p.get('status') or {}).get('phase') == 'Failed']
            if live:
                continue
            if failed_here:
                # the Job replaces a failed pod while SIM_RESTART attempts remain (backoffLimit)
                if st['attempts'].get(i, 0) > int(kf(k, 'SIM_RESTART', 0, int)):
                    continue
                for p in failed_here:
                    self.api.force_delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
            if i in late:
                due = st['late_due'].setdefault(i, time.monotonic() + self.scale(kf(k, 'SIM_LATE_DELAY', 2.0)))
                if time.monotonic() < due:
                    self.kick(R.TRAINJOBS, ns, name, due - time.monotonic() + 0.001)
                    continue
            st['attempts'][i] = st['attempts'].get(i, 0) + 1
            pod = self.make_node_pod(job, i, num, container)
            try:
                self.api.create(R.PODS, ns, json.dumps(pod).encode(), {}, None, 'job-controller/v1.31')
            except ApiError:
                pass
        pods = [p for p in self.s.list(R.PODS, ns)[0]
                if (p['metadata'].get('labels') or {}).get('jobset.sigs.k8s.io/jobset-name') == name
                and not p['metadata'].get('deletionTimestamp')]
        phases = {}
        for p in pods:
            idx = int((p['metadata'].get('labels') or {}).get('batch.kubernetes.io/job-completion-index', '0'))
            phases.setdefault(idx, []).append((p.get('status') or {}).get('phase'))
        restart_budget = int(kf(k, 'SIM_RESTART', 0, int))
        failed = any('Failed' in v and 'Running' not in v and 'Pending' not in v and 'Succeeded' not in v
                     and st['attempts'].get(i, 0) > restart_budget for i, v in phases.items())
        ok = all('Succeeded' in phases.get(i, []) for i in range(num))
        running = any('Running' in v for v in phases.values())
        ads = spec.get('activeDeadlineSeconds')
        started = st.setdefault('created_at_wall', time.time())
        if isinstance(ads, int) and not failed and not ok:
            left = started + ads - time.time()
            if left <= 0:
                for p in pods:
                    self.api.force_delete_pod(ns, p['metadata']['name'], p['metadata']['uid'])
                set_metacond(status, 'Failed', 'True', 'DeadlineExceeded', 'TrainJob exceeded its active deadline', now)
                js['active'] = 1 if running else 0
                status['jobsStatus'] = [js]
                self.write(R.TRAINJOBS, new)
                return
            self.kick(R.TRAINJOBS, ns, name, left + 0.01)
        if failed:
            js['failed'] = 1
            set_metacond(status, 'Failed', 'True', 'FailedJobs', 'jobset failed due to one or more job failures', now)
        elif ok:
            js['succeeded'] = 1
            set_metacond(status, 'Complete', 'True', 'AllJobsCompleted', 'jobset completed successfully', now)
        else:
            js['active'] = 1
            js['ready'] = 1 if running else 0
        status['jobsStatus'] = [js]
        self.write(R.TRAINJOBS, new)

    def trainjob_container(self, rt, trainer):
        c = {'name': 'node', 'image': 'nvcr.io/nvidia/jax:25.10-py3'}
        try:
            rj = rt['spec']['template']['spec']['replicatedJobs']
            node = next(x for x in rj if x.get('name') == 'node')
            base = next(x for x in node['template']['spec']['template']['spec']['containers'] if x.get('name') == 'node')
            c = copy.deepcopy(base)
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

    def make_node_pod(self, job, i, num, container):
        m = job['metadata']
        name = m['name']
        c = copy.deepcopy(container)
        c['env'] = (c.get('env') or []) + [
            {'name': 'JAX_NUM_PROCESSES', 'value': str(num)},
            {'name': 'JAX_PROCESS_ID', 'valueFrom': {'fieldRef': {
                'fieldPath': "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
            {'name': 'JAX_COORDINATOR_ADDRESS', 'value': f'{name}-node-0-0.{name}:29500'}]
        c.setdefault('ports', []).append({'containerPort': 29500})
        job_name = f'{name}-node-0'
        job_uid = self.jobs.get(m['uid'], {}).setdefault('job_uid', str(uuid.uuid4()))
        labels = {'batch.kubernetes.io/controller-uid': job_uid, 'batch.kubernetes.io/job-completion-index': str(i),
                  'batch.kubernetes.io/job-name': job_name, 'controller-uid': job_uid, 'job-name': job_name,
                  'jobset.sigs.k8s.io/global-replicas': '1', 'jobset.sigs.k8s.io/job-global-index': '0',
                  'jobset.sigs.k8s.io/job-index': '0', 'jobset.sigs.k8s.io/job-key': secrets.token_hex(20),
                  'jobset.sigs.k8s.io/jobset-name': name, 'jobset.sigs.k8s.io/jobset-uid': m['uid'],
                  'jobset.sigs.k8s.io/replicatedjob-name': 'node', 'jobset.sigs.k8s.io/replicatedjob-replicas': '1',
                  'trainer.kubeflow.org/trainjob-ancestor-step': 'trainer'}
        ann = {'batch.kubernetes.io/job-completion-index': str(i), 'jobset.sigs.k8s.io/jobset-name': name,
               'jobset.sigs.k8s.io/replicatedjob-name': 'node'}
        meta = {'name': f'{job_name}-{i}-{rand_suffix()}', 'namespace': m['namespace'], 'labels': labels,
                'annotations': ann,
                'ownerReferences': [{'apiVersion': 'batch/v1', 'kind': 'Job', 'name': job_name, 'uid': job_uid,
                                     'controller': True, 'blockOwnerDeletion': True}]}
        spec = {'containers': [c], 'restartPolicy': 'Never', 'hostname': f'{job_name}-{i}', 'subdomain': name}
        return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': meta, 'spec': spec}

    # --- scheduler + kubelet ----------------------------------------------------------------
    def main_container(self, pod):
        cs = (pod.get('spec') or {}).get('containers') or []
        for want in ('jax', 'node'):
            for c in cs:
                if c.get('name') == want:
                    return c
        return cs[0] if cs else {}

    def pod_knobs(self, pod):
        k = knobs_from(self.main_container(pod))
        big = self.app.faults.get('bigLogLine')
        if big and 'SIM_BIG_LINE' not in k:
            k['SIM_BIG_LINE'] = str(big)
        return k

    def schedule_pod(self, ns, name, uid):
        if not self.enabled:
            return
        pod = self.s.get(R.PODS, ns, name)
        if pod is None or pod['metadata']['uid'] != uid or pod['metadata'].get('deletionTimestamp'):
            return
        if (pod.get('status') or {}).get('phase') != 'Pending':
            return
        k = self.pod_knobs(pod)
        if not (pod.get('spec') or {}).get('nodeName'):
            reason = unschedulable(pod, k)
            now = now_iso()
            if reason:
                pod['status']['conditions'] = [{'type': 'PodScheduled', 'status': 'False', 'lastProbeTime': None,
                                                'lastTransitionTime': now, 'reason': 'Unschedulable',
                                                'message': reason}]
                self.write(R.PODS, pod)
                self.event(pod, 'Warning', 'FailedScheduling', reason, component='default-scheduler')
                return
            pod['spec']['nodeName'] = NODE
            pod['status']['conditions'] = [{'type': 'PodScheduled', 'status': 'True', 'lastProbeTime': None,
                                            'lastTransitionTime': now}]
            pod = self.write(R.PODS, pod)
            if pod is None:
                return
            self.event(pod, 'Normal', 'Scheduled', f'Successfully assigned {ns}/{name} to {NODE}',
                       component='default-scheduler')
        # SIM_SLOW_KUBELET_WORKER: these workers' kubelet starts them later, so their pods are seen
        # before the others' yet fail after them (which of two workers failing alike is seen first)
        slow = self.worker_index(pod) in int_set(k.get('SIM_SLOW_KUBELET_WORKER'))
        self.later(self.scale(0.05 + (kf(k, 'SIM_SLOW_KUBELET_DELAY', 0.5) if slow else 0)), self.kubelet_start,
                   ns, name, uid)

    def kubelet_start(self, ns, name, uid):
        pod = self.s.get(R.PODS, ns, name)
        if pod is None or pod['metadata']['uid'] != uid or pod['metadata'].get('deletionTimestamp'):
            return
        k = self.pod_knobs(pod)
        now = now_iso()
        st = pod['status']
        conds = [c for c in st.get('conditions') or [] if c.get('type') == 'PodScheduled'] or \
            [{'type': 'PodScheduled', 'status': 'True', 'lastProbeTime': None, 'lastTransitionTime': now}]
        st['conditions'] = [{'type': 'Initialized', 'status': 'True', 'lastProbeTime': None, 'lastTransitionTime': now},
                            {'type': 'Ready', 'status': 'False', 'lastProbeTime': None, 'lastTransitionTime': now,
                             'reason': 'ContainersNotReady', 'message': 'containers with unready status: [%s]' %
                             ' '.join(c['name'] for c in pod['spec']['containers'])},
                            {'type': 'ContainersReady', 'status': 'False', 'lastProbeTime': None,
                             'lastTransitionTime': now, 'reason': 'ContainersNotReady',
                             'message': 'containers with unready status: [%s]' %
                             ' '.join(c['name'] for c in pod['spec']['containers'])}] + conds
        st['hostIP'] = '10.0.0.1'
        st['podIP'] = f'10.244.0.{random.randint(2, 254)}'
        st['podIPs'] = [{'ip': st['podIP']}]
        st['startTime'] = now
        pull_err = k.get('SIM_IMAGE_PULL_ERROR') not in (None, '', '0')
        # this server stores no Secrets: every secret a container's env needs is missing
        secret = missing_secret(self.main_container(pod), lambda name: False)
        st['containerStatuses'] = [
            {'name': c['name'], 'state': {'waiting': {'reason': 'ErrImagePull' if pull_err else 'ContainerCreating',
                                                      **({'message': pull_message(c['image'])} if pull_err else {})}},
             'lastState': {}, 'ready': False, 'restartCount': 0, 'image': c.get('image', ''), 'imageID': '',
             'started': False} for c in pod['spec']['containers']]
        pod = self.write(R.PODS, pod)
        if pod is None:
            return
        main = self.main_container(pod)
        img = main.get('image', '')
        self.event(pod, 'Normal', 'Pulling', f'Pulling image "{img}"', component='kubelet', host=NODE,
                   field_path=f'spec.containers{{{main.get("name")}}}')
        if secret and not pull_err:     # the kubelet cannot build the container; it retries for ever
            pod = copy.deepcopy(pod)    # the stored object is not ours to change in place
            for cs in pod['status']['containerStatuses']:
                if cs['name'] == main.get('name'):
                    cs['state'] = {'waiting': {'reason': 'CreateContainerConfigError',
                                               'message': f'secret "{secret}" not found'}}
            self.write(R.PODS, pod)
            self.event(pod, 'Warning', 'Failed', f'Error: secret "{secret}" not found', component='kubelet',
                       host=NODE, field_path=f'spec.containers{{{main.get("name")}}}')
            return
        if pull_err:
            self.event(pod, 'Warning', 'Failed', f'Failed to pull image "{img}": ' + pull_message(img),
                       component='kubelet', host=NODE, field_path=f'spec.containers{{{main.get("name")}}}')
            self.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull', component='kubelet', host=NODE,
                       field_path=f'spec.containers{{{main.get("name")}}}')
            self.later(self.scale(1.0), self.image_backoff, ns, name, uid)
            return
        self.later(self.scale(kf(k, 'SIM_STARTUP', 0.3)), self.container_run, ns, name, uid, 0)

    def image_backoff(self, ns, name, uid):
        pod = self.s.get(R.PODS, ns, name)
        if pod is None or pod['metadata']['uid'] != uid or pod['metadata'].get('deletionTimestamp'):
            return
        main = self.main_container(pod)
        img = main.get('image', '')
        for cs in pod['status'].get('containerStatuses') or []:
            if cs['name'] == main.get('name'):
                cs['state'] = {'waiting': {'reason': 'ImagePullBackOff', 'message': f'Back-off pulling image "{img}"'}}
        self.write(R.PODS, pod)
        fp = f'spec.containers{{{main.get("name")}}}'
        self.event(pod, 'Normal', 'BackOff', f'Back-off pulling image "{img}"', component='kubelet', host=NODE,
                   field_path=fp)
        self.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', component='kubelet', host=NODE, field_path=fp)

    def container_run(self, ns, name, uid, instance):
        """Start (or restart in place) the containers of a pod and play the program."""
        pod = self.s.get(R.PODS, ns, name)
        if pod is None or pod['metadata']['uid'] != uid or pod['metadata'].get('deletionTimestamp'):
            return
        k = self.pod_knobs(pod)
        now = now_iso()
        st = pod['status']
        st['phase'] = 'Running'
        for c in st.get('conditions') or []:
            if c['type'] in ('Ready', 'ContainersReady'):
                c.update({'status': 'True', 'lastTransitionTime': now})
                c.pop('reason', None)
                c.pop('message', None)
        for cs in st.get('containerStatuses') or []:
            cs['state'] = {'running': {'startedAt': now}}
            cs['ready'] = True
            cs['started'] = True
            cs['imageID'] = 'sim.local/' + cs['image'] + '@sha256:' + '0' * 64
            cs['containerID'] = 'containerd://' + secrets.token_hex(32)
            cs['restartCount'] = instance
        pod = self.write(R.PODS, pod)
        if pod is None:
            return
        main = self.main_container(pod)
        for c in pod['spec']['containers']:
            self.logs[(uid, c['name'], instance)] = ContainerLog()
            if c['name'] != main.get('name'):
                self.logs[(uid, c['name'], instance)].write(f'sidecar {c["name"]} started\n')
        fp = f'spec.containers{{{main.get("name")}}}'
        if instance == 0:
            self.event(pod, 'Normal', 'Pulled', f'Successfully pulled image "{main.get("image")}" in 312.5ms '
                       '(312.5ms including waiting)', component='kubelet', host=NODE, field_path=fp)
        self.event(pod, 'Normal', 'Created', f'Created container {main.get("name")}', component='kubelet', host=NODE,
                   field_path=fp)
        self.event(pod, 'Normal', 'Started', f'Started container {main.get("name")}', component='kubelet', host=NODE,
                   field_path=fp)
        self.play(pod, k, instance)

    def worker_index(self, pod):
        lab = pod['metadata'].get('labels') or {}
        for key in ('training.kubeflow.org/replica-index', 'batch.kubernetes.io/job-completion-index'):
            if lab.get(key, '').isdigit():
                return int(lab[key])
        return 0

    def plan_exit(self, pod, k, instance):
        """Exit code of this container run: crash (SIM_RESTART) or final (SIM_EXIT / SIM_FAIL_WORKER)."""
        return plan_exit(self.worker_index(pod), k, instance + self.prior_attempts(pod))

    def prior_attempts(self, pod):
        """Crashes of earlier pods of the same worker (operator/Job re-created the pod)."""
        m = pod['metadata']
        idx = self.worker_index(pod)
        for ref in m.get('ownerReferences') or []:
            st = self.jobs.get(ref.get('uid'))
            if st is not None:
                return st['crashes'].get(idx, 0)
        tj = (m.get('labels') or {}).get('jobset.sigs.k8s.io/jobset-uid')
        st = self.jobs.get(tj)
        return st['crashes'].get(idx, 0) if st else 0

    def note_crash(self, pod):
        m = pod['metadata']
        idx = self.worker_index(pod)
        for uid in [r.get('uid') for r in m.get('ownerReferences') or []] + \
                [(m.get('labels') or {}).get('jobset.sigs.k8s.io/jobset-uid')]:
            st = self.jobs.get(uid)
            if st is not None:
                st['crashes'][idx] = st['crashes'].get(idx, 0) + 1

    def play(self, pod, k, instance):
        m = pod['metadata']
        uid, ns, name = m['uid'], m['namespace'], m['name']
        main = self.main_container(pod)
        log = self.logs[(uid, main.get('name'), instance)]
        env = {e.get('name'): e.get('value') for e in main.get('env') or [] if isinstance(e, dict)}
        idx = self.worker_index(pod)
        n = env.get('NUM_PROCESSES') or env.get('JAX_NUM_PROCESSES') or '1'
        coord = env.get('COORDINATOR_ADDRESS')
        coord = f'{coord}:{env.get("COORDINATOR_PORT")}' if coord else env.get('JAX_COORDINATOR_ADDRESS', '?')
        duration = self.scale(kf(k, 'SIM_DURATION', 1.0))
        code, crash = self.plan_exit(pod, k, instance)
        script, hang = worker_script(idx, n, coord, k, code, crash, duration)
        if hang:
            for t, text in script:
                log.write(text)
            if k.get('SIM_HANG_LINES') or k.get('SIM_HANG') not in (None, '', '0') or k.get('SIM_HANG_WORKER'):
                self.later(duration, self.tick_hang, pod, log, 1)
            return
        for t, text in script:
            self.later(t, self.print_line, uid, log, text)
        self.later(duration + 0.001, self.container_exit, ns, name, uid, instance, code, crash)

    def print_line(self, uid, log, text):
        if not log.done:
            log.write(text)

    def tick_hang(self, pod, log, n):
        if log.done:
            return
        log.write(f'INFO:sim:still running ({n})\n')
        self.later(max(0.2, self.scale(1.0)), self.tick_hang, pod, log, n + 1)

    def container_exit(self, ns, name, uid, instance, code, crash):
        pod = self.s.get(R.PODS, ns, name)
        if pod is None or pod['metadata']['uid'] != uid:
            return
        if pod['metadata'].get('deletionTimestamp') or (pod.get('status') or {}).get('phase') != 'Running':
            return
        now = now_iso()
        st = pod['status']
        rp = pod['spec'].get('restartPolicy', 'Always')
        k = self.pod_knobs(pod)
        evicted = code != 0 and not crash and failure_mode(k) == 'evict'
        restart = not evicted and (rp == 'Always' or (rp == 'OnFailure' and code != 0))
        main = self.main_container(pod)
        if crash or code:
            self.note_crash(pod)
        for c in pod['spec']['containers']:
            lg = self.logs.get((uid, c['name'], instance))
            if lg:
                lg.close()
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
            cs['ready'] = False
            cs['started'] = False
        if not restart:
            st['phase'] = 'Succeeded' if code == 0 else 'Failed'
        if evicted:     # what the kubelet's eviction manager writes
            st.update({'reason': 'Evicted', 'message': EVICT_MESSAGE})
        for c in st.get('conditions') or []:
            if c['type'] in ('Ready', 'ContainersReady'):
                c.update({'status': 'False', 'lastTransitionTime': now, 'reason': 'PodCompleted' if not restart else
                          'ContainersNotReady'})
                if restart:
                    c['message'] = f'containers with unready status: [{main.get("name")}]'
        self.write(R.PODS, pod)
        if evicted:
            self.event(pod, 'Warning', 'Evicted', EVICT_MESSAGE, component='kubelet', host=NODE)
        if code and not crash and failure_mode(k) == 'cascade' and not cascade_peer(k, self.worker_index(pod)):
            self.cascade(pod, kf(k, 'SIM_CASCADE_DELAY', 5.0))
        if code and not restart:
            jobs = [r for r in pod['metadata'].get('ownerReferences') or [] if r.get('kind') == 'JAXJob']
            for r in jobs:
                j = self.s.get(R.JAXJOBS, ns, r.get('name'))
                if j:
                    self.event(j, 'Normal', 'ExitedWithCode', f'Pod: {ns}.{name} exited with code {code}')
        if restart:
            self.later(self.scale(0.3), self.container_run, ns, name, uid, instance + 1)

    def cascade(self, dead, delay):
        """The other workers of the job share the dead one's fate `delay` s later (JAX's heartbeat)."""
        m = dead['metadata']
        lab = m.get('labels') or {}
        key = next(((k, lab[k]) for k in ('training.kubeflow.org/job-name', 'jobset.sigs.k8s.io/jobset-name')
                    if k in lab), None)
        for p in self.s.list(R.PODS, m['namespace'])[0]:
            if key is None or (p['metadata'].get('labels') or {}).get(key[0]) != key[1]:
                continue
            if p['metadata']['uid'] == m['uid'] or (p.get('status') or {}).get('phase') != 'Running':
                continue
            cs = next(iter((p.get('status') or {}).get('containerStatuses') or []), {})
            self.later(self.scale(delay), self.cascade_exit, p['metadata']['namespace'], p['metadata']['name'],
                       p['metadata']['uid'], cs.get('restartCount', 0))

    def cascade_exit(self, ns, name, uid, instance):
        pod = self.s.get(R.PODS, ns, name)
        if pod is None or pod['metadata']['uid'] != uid:
            return
        log = self.logs.get((uid, self.main_container(pod).get('name'), instance))
        if log is None or log.done:
            return
        for text in cascade_lines():
            log.write(text)
        self.container_exit(ns, name, uid, instance, 1, False)

    def pod_terminating(self, ns, name, uid):
        """Graceful deletion: the containers stop (SIGTERM) and the kubelet confirms with grace 0."""
        if not self.enabled:
            return
        for key, lg in list(self.logs.items()):
            if key[0] == uid:
                if not lg.done:
                    lg.write('INFO:sim:received SIGTERM, exiting\n')
                lg.close()
        self.later(self.scale(0.1), self.api.force_delete_pod, ns, name, uid)

    def pod_gone(self, uid):
        for key, lg in list(self.logs.items()):
            if key[0] == uid:
                lg.close()
        stub = self.stub_logs.pop(uid, None)
        if stub:
            stub.close()

    # --- logs ---------------------------------------------------------------------------------
    def serve_log(self, h, ns, name, q):
        pod = self.s.get(R.PODS, ns, name)
        if pod is None:
            raise R.not_found(R.PODS, name)
        names = [c.get('name') for c in (pod.get('spec') or {}).get('containers') or []]
        cname = q.get('container')
        if not cname:
            if len(names) != 1:
                raise err(400, f'a container name must be specified for pod {name}, choose one of: [{" ".join(names)}]')
            cname = names[0]
        elif cname not in names:
            raise err(400, f'container {cname} is not valid for pod {name}')
        opts = {}
        for key in ('tailLines', 'limitBytes', 'sinceSeconds'):
            v = q.get(key)
            if v is None:
                continue
            try:
                opts[key] = int(v)
            except ValueError:
                raise err(400, f'strconv.ParseInt: parsing "{v}": invalid syntax')
        if q.get('sinceTime') is not None:
            # the API server keeps whole seconds of it (metav1.Time); the kubelet serves
            # the lines stamped at or after it
            opts['sinceTime'] = q['sinceTime'][:19]    # UTC RFC 3339: compared as text
        follow = R.query_bool(q.get('follow'))
        stamps = q.get('timestamps') in ('true', '1')
        previous = q.get('previous') in ('true', '1')
        if not (pod.get('spec') or {}).get('nodeName'):
            h.send_bytes(204, b'')
            return
        uid = pod['metadata']['uid']
        cs = next((c for c in (pod.get('status') or {}).get('containerStatuses') or [] if c.get('name') == cname), None)
        if self.enabled or cs is not None:
            instance = (cs or {}).get('restartCount', 0)
            if previous:
                if instance == 0:
                    raise err(400, f'previous terminated container "{cname}" in pod "{name}" not found')
                instance -= 1
            log = self.logs.get((uid, cname, instance))
            if log is None:
                w = ((cs or {}).get('state') or {}).get('waiting') or {}
                why = {'ErrImagePull': 'trying and failing to pull image',
                       'ImagePullBackOff': 'trying and failing to pull image'}.get(w.get('reason'),
                                                                                  w.get('reason') or 'ContainerCreating')
                raise err(400, f'container "{cname}" in pod "{name}" is waiting to start: {why}')
        else:
            log = self.stub_logs.get(uid)
            if log is None:
                log = self.stub_logs[uid] = ContainerLog()
                log.write(f'sim: no simulated program for container {cname} of pod {name} (operator off)\n')
        self.stream_log(h, log, follow, stamps, opts)

    def stream_log(self, h, log, follow, stamps, opts):
        h.start_stream('text/plain')
        limit = opts.get('limitBytes')
        sent = 0
        since = opts.get('sinceSeconds')
        with log.cond:
            lines = list(log.lines)
        pos = len(lines)    # a follow goes on after what was there (served or filtered out)
        if opts.get('tailLines') is not None:   # first, as the kubelet does
            n = opts['tailLines']
            lines = lines[-n:] if n > 0 else []
        if since is not None:
            cutoff = time.time() - since
            lines = [x for x in lines if parse_time(x[0][:19] + 'Z') >= cutoff - 1]
        if opts.get('sinceTime') is not None:
            lines = [x for x in lines if x[0][:19] >= opts['sinceTime']]
        delay = float(self.app.faults.get('logDelayMs') or 0) / 1000.0

        def out(ts, data):
            nonlocal sent
            if stamps:
                data = ts.encode() + b' ' + data
            if limit is not None:
                if sent >= limit:
                    return False
                data = data[:limit - sent]
            if delay:
                time.sleep(delay)  # sleep-ok: the logDelayMs fault itself (a slow log stream)
            h.write_chunk(data)
            sent += len(data)
            return limit is None or sent < limit
        for ts, data in lines:
            if not out(ts, data):
                h.end_stream()
                return
        # fault logFollowEnd: the stream ends cleanly once it has sent what was written, though
        # the container runs on - as a kubelet that closes a follow, or one whose pod update
        # saying "terminated" is late (issue 32); the client cannot tell which
        if follow and self.app.faults.get('logFollowEnd'):
            follow = False
        if follow:
            while True:
                with log.cond:
                    while pos >= len(log.lines) and not log.done:
                        log.cond.wait(0.5)
                        if not h.alive():
                            return
                    new = log.lines[pos:]
                    pos = len(log.lines)
                    done = log.done
                for ts, data in new:
                    if not out(ts, data):
                        h.end_stream()
                        return
                if done and pos >= len(log.lines):
                    # a kubelet notices the exit a while after the last line (fault logEofDelayMs)
                    eof = float(self.app.faults.get('logEofDelayMs') or 0) / 1000.0
                    if eof:
                        time.sleep(eof)  # sleep-ok: the logEofDelayMs fault itself (a kubelet that notices the exit late)
                    break
        h.end_stream()
