"""The scenario language shared by the test double's simulation (sim.py) and the simulated operator
that drives a real kube-apiserver (tests/realserver/operator.py).

A job declares what its workers do with SIM_* variables on its main container (see README.md): one
job description means the same run on both servers. This module holds only what does not depend
on who stores the objects: reading the knobs, the exit plan and log script of a worker, the pods
the training operator (v1.9) and the JobSet controller create, and the condition-list mechanics
of both APIs. Python 3 standard library only.
"""
import copy
import datetime
import re
import secrets
import time

OPERATOR = 'jaxjob-controller'


def knobs_from(container):
    """SIM_* settings from a container: KEY=VALUE words in command/args, then env (env wins)."""
    k = {}
    if not isinstance(container, dict):
        return k
    for w in (container.get('command') or []) + (container.get('args') or []):
        if isinstance(w, str):
            for m in re.finditer(r'\b(SIM_[A-Z_]+)=(\S+)', w):
                k[m.group(1)] = m.group(2)
    for e in container.get('env') or []:
        if isinstance(e, dict) and str(e.get('name', '')).startswith('SIM_') and e.get('value') is not None:
            k[e['name']] = str(e['value'])
    if 'image-pull-error' in str(container.get('image') or ''):
        k.setdefault('SIM_IMAGE_PULL_ERROR', '1')
    return k


def kf(k, name, default, conv=float):
    try:
        return conv(k[name]) if name in k else default
    except (TypeError, ValueError):
        return default


def int_set(v):
    out = set()
    for p in str(v or '').split(','):
        p = p.strip()
        if p.isdigit():
            out.add(int(p))
    return out



def exit_code(pod):
    for cs in (pod.get('status') or {}).get('containerStatuses') or []:
        t = (cs.get('state') or {}).get('terminated')
        if t and t.get('exitCode'):
            return t['exitCode']
    return None


def parse_time(s):
    try:
        return datetime.datetime.strptime(s[:19], '%Y-%m-%dT%H:%M:%S').replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return time.time()


def pull_message(img):
    return (f'rpc error: code = NotFound desc = failed to pull and unpack image "{img}": failed to resolve '
            f'reference "{img}": {img}: not found')


def unschedulable(pod, k):
    if k.get('SIM_UNSCHEDULABLE') not in (None, '', '0'):
        return ('0/1 nodes are available: 1 node(s) didn\'t match Pod\'s node affinity/selector. preemption: 0/1 '
                'nodes are available: 1 Preemption is not helpful for scheduling.')
    for c in (pod.get('spec') or {}).get('containers') or []:
        r = c.get('resources') or {}
        for src in (r.get('limits') or {}, r.get('requests') or {}):
            g = src.get('nvidia.com/gpu')
            try:
                if g is not None and int(g) > 8:
                    return ('0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are '
                            'available: 1 No preemption victims found for incoming pod.')
            except (TypeError, ValueError):
                pass
    return None


def set_cond(status, ctype, cstatus, reason, message, now):
    """JobCondition list mechanics of the v1 operator (pkg/util/status.go)."""
    conds = status.get('conditions') or []
    if any(c.get('type') == 'Failed' and c.get('status') == 'True' for c in conds):
        return
    cur = next((c for c in conds if c.get('type') == ctype), None)
    if cur and cur.get('status') == cstatus and cur.get('reason') == reason:
        return
    new = {'type': ctype, 'status': cstatus, 'reason': reason, 'message': message, 'lastUpdateTime': now,
           'lastTransitionTime': cur['lastTransitionTime'] if cur and cur.get('status') == cstatus else now}
    out = []
    for c in conds:
        if ctype == 'Restarting' and c.get('type') == 'Running':
            continue
        if ctype == 'Running' and c.get('type') == 'Restarting':
            continue
        if c.get('type') == ctype:
            continue
        if ctype in ('Failed', 'Succeeded') and c.get('type') == 'Running':
            c = dict(c, status='False')
        out.append(c)
    out.append(new)
    status['conditions'] = out


def set_metacond(status, ctype, cstatus, reason, message, now):
    """metav1.Condition list (TrainJob): one entry per type, updated in place."""
    conds = status.setdefault('conditions', [])
    cur = next((c for c in conds if c.get('type') == ctype), None)
    if cur is None:
        conds.append({'type': ctype, 'status': cstatus, 'reason': reason, 'message': message,
                      'lastTransitionTime': now})
    elif (cur.get('status'), cur.get('reason')) != (cstatus, reason):
        if cur.get('status') != cstatus:
            cur['lastTransitionTime'] = now
        cur.update({'status': cstatus, 'reason': reason, 'message': message})


def plan_exit(idx, k, attempt):
    """(exit code, crash) of a worker's run number `attempt` (0-based, across restarts and
    re-created pods): SIM_RESTART crashes first, then SIM_EXIT / SIM_FAIL_WORKER."""
    fail_workers = int_set(k.get('SIM_FAIL_WORKER'))
    chosen = not fail_workers or idx in fail_workers
    restarts = int(kf(k, 'SIM_RESTART', 0, int))
    if restarts and chosen and attempt < restarts:
        return int(kf(k, 'SIM_RESTART_EXIT', 137, int)), True
    code = int(kf(k, 'SIM_EXIT', 0, int))
    if fail_workers and idx in fail_workers and 'SIM_EXIT' not in k and not restarts:
        code = 1
    return (code if chosen else 0), False


def failure_mode(k):
    """SIM_FAILURE: how a failing worker (SIM_FAIL_WORKER / SIM_EXIT) fails. oom: the kernel kills
    it mid-step (no last words; terminated OOMKilled, exit 137 with SIM_EXIT=137); traceback: a Python
    exception; evict: the kubelet evicts its pod (phase Failed, reason Evicted, an Evicted event);
    cascade: a traceback, and every other worker dies SIM_CASCADE_DELAY s (default 5) after the
    first failed container with JAX's fate-sharing text (docs/fault_tolerance.rst of jax-ml/jax);
    coordination: the failing worker itself dies with that text."""
    return k.get('SIM_FAILURE') or ''


def term_reason(k, code, crash):
    if code == 0:
        return 'Completed'
    if not crash and failure_mode(k) == 'oom' and code == 137:
        return 'OOMKilled'
    return 'Error'


EVICT_MESSAGE = ('The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. '
                 'Container jax was using 30Gi, request is 16Gi, has larger consumption of memory. ')


def traceback_lines(idx, step):
    return ['Traceback (most recent call last):\n', '  File "/app/train.py", line 88, in <module>\n', '    main()\n',
            '  File "/app/train.py", line 61, in main\n', '    state = train_step(state, batch)\n',
            f'ValueError: loss is NaN at step {step} (worker {idx})\n']


def cascade_lines():
    """What a surviving JAX process prints when the coordinator (process 0) died."""
    return ['E1126 12:00:05.000000       1 coordination_service_agent.cc:332] Polled an error from coordination '
            'service (this can be an error from this or another task).\n',
            'F1126 12:00:05.000100       1 client.h:77] Terminating process because the JAX distributed service '
            'detected fatal errors. This most likely indicates that another task died; see the other task logs '
            'for more details. absl::Status: UNAVAILABLE: Failed to send RPC to coordination service. Either the '
            'leader task was preempted/died/restarted unexpectedly or this task is experiencing network issues.\n']


def cascade_peer(k, idx):
    """A worker that lives until a peer fails (SIM_FAILURE=cascade), then shares its fate."""
    return failure_mode(k) == 'cascade' and idx not in int_set(k.get('SIM_FAIL_WORKER'))


def missing_secret(container, exists):
    """The first Secret the container's env needs that `exists(name)` denies, or None: the kubelet
    then cannot build the container (CreateContainerConfigError, 'secret "x" not found')."""
    for e in container.get('env') or []:
        ref = ((e or {}).get('valueFrom') or {}).get('secretKeyRef') or {}
        if ref.get('name') and not ref.get('optional') and not exists(ref['name']):
            return ref['name']
    for e in container.get('envFrom') or []:
        ref = (e or {}).get('secretRef') or {}
        if ref.get('name') and not ref.get('optional') and not exists(ref['name']):
            return ref['name']
    return None


def hangs(k):
    """The workers never exit (SIM_HANG, or waiting forever for a coordinator without Service)."""
    return k.get('SIM_HANG') not in (None, '', '0') or k.get('SIM_FAIL_SERVICE') not in (None, '', '0')


def log_file(k, idx):
    """SIM_LOG_FILE=PATH: the lines a worker prints ("{worker}" in PATH is its index); None if unset."""
    path = k.get('SIM_LOG_FILE')
    if not path:
        return None
    try:
        with open(path.replace('{worker}', str(idx)), encoding='utf-8') as f:
            return f.read().splitlines()
    except OSError as e:
        return [f'sim: cannot read SIM_LOG_FILE: {e}']


def worker_script(idx, n, coord, k, code, crash, duration):
    """What worker idx of n prints: ([(seconds after start, line)], hangs). A hanging worker's
    script is printed at once; the caller then adds `INFO:sim:still running (i)` each second."""
    lines = int(kf(k, 'SIM_LINES', 3, int))
    script = [(0.0, f'INFO:sim:worker {idx} of {n} connecting to JAX coordinator {coord}\n')]
    big = int(kf(k, 'SIM_BIG_LINE', 0, int))
    if big > 0 and idx == 0:
        script.append((0.0, 'x' * big + '\n'))
    if hangs(k) or idx in int_set(k.get('SIM_HANG_WORKER')):     # SIM_HANG_WORKER: only those survive
        script.append((0.0, f'INFO:sim:worker {idx} waiting for the coordinator (SIM_HANG)\n'))
        return script, True
    if cascade_peer(k, idx):
        script.append((0.0, f'step 1/{int(kf(k, "SIM_LINES", 3, int))} loss=0.5000 worker={idx}\n'))
        return script, True
    body = log_file(k, idx)
    if body is not None:    # SIM_LOG_FILE: a real-shaped training log instead of the step lines
        body = body if not crash else body[:max(1, len(body) // 2)]
        for s, text in enumerate(body, 1):
            script.append((duration * s / (len(body) + 1), text + '\n'))
    steps = 0 if body is not None else lines if not crash else max(1, lines // 2)
    for s in range(1, steps + 1):
        script.append((duration * s / (steps + 1), f'step {s}/{lines} loss={1.0 / (s + 1):.4f} worker={idx}\n'))
    mode = failure_mode(k)
    if crash:
        script.append((duration, f'ERROR:sim:worker {idx} crashed (exit code {code}, SIM_RESTART)\n'))
    elif code and mode == 'oom':    # killed mid-step: nothing more
        script.append((duration, f'INFO:sim:worker {idx} allocating activations for step {steps + 1}\n'))
    elif code and mode == 'evict':
        script.append((duration, f'INFO:sim:worker {idx} saving checkpoint at step {steps}\n'))
    elif code and mode in ('traceback', 'cascade'):
        script += [(duration, t) for t in traceback_lines(idx, steps)]
    elif code and mode == 'coordination':   # it dies of a peer it cannot see (e.g. a lost coordinator)
        script += [(duration, t) for t in cascade_lines()]
    elif code:
        script.append((duration, f'ERROR:sim:worker {idx} failed with exit code {code}\n'))
    else:
        script.append((duration, f'INFO:sim:worker {idx} finished\n'))
    return script, False


def worker_pod(job, i, replicas, policy, tmpl):
    """The pod training-operator v1.9 creates for JAXJob worker i: name, labels, controller
    ownerReference, injected env and the jaxjob-port (no nodeName: the scheduler binds it)."""
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
    port = coordinator_port(tmpl)
    for c in spec.get('containers') or []:
        if c.get('name') == 'jax':
            ports = c.setdefault('ports', [])
            if not any(p.get('name') == 'jaxjob-port' for p in ports):
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


def coordinator_port(tmpl):
    for c in ((tmpl or {}).get('spec') or {}).get('containers') or []:
        if c.get('name') == 'jax':
            for p in c.get('ports') or []:
                if p.get('name') == 'jaxjob-port':
                    return p.get('containerPort', 6666)
    return 6666


def worker_service(job, i, tmpl):
    """The headless Service training-operator v1.9 creates for each replica (same name as the pod)."""
    m = job['metadata']
    name = m['name']
    sel = {'training.kubeflow.org/operator-name': OPERATOR, 'training.kubeflow.org/job-name': name,
           'training.kubeflow.org/replica-type': 'worker', 'training.kubeflow.org/replica-index': str(i)}
    return {'apiVersion': 'v1', 'kind': 'Service',
            'metadata': {'name': f'{name}-worker-{i}', 'namespace': m['namespace'], 'labels': dict(sel),
                         'ownerReferences': [{'apiVersion': 'kubeflow.org/v1', 'kind': 'JAXJob', 'name': name,
                                              'uid': m['uid'], 'controller': True, 'blockOwnerDeletion': True}]},
            'spec': {'clusterIP': 'None', 'selector': sel,
                     'ports': [{'name': 'jaxjob-port', 'port': coordinator_port(tmpl)}]}}


def main_container(pod):
    cs = (pod.get('spec') or {}).get('containers') or []
    for want in ('jax', 'node'):
        for c in cs:
            if c.get('name') == want:
                return c
    return cs[0] if cs else {}


def worker_index(pod):
    lab = pod['metadata'].get('labels') or {}
    for key in ('training.kubeflow.org/replica-index', 'batch.kubernetes.io/job-completion-index'):
        if lab.get(key, '').isdigit():
            return int(lab[key])
    return 0


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def event_object(obj, etype, reason, message, component, host=None, field_path=None):
    """The v1 Event a component writes about obj (both simulations write the same shape)."""
    m = obj['metadata']
    ns = m.get('namespace') or 'default'
    inv = {'kind': obj['kind'], 'namespace': ns, 'name': m['name'], 'uid': m['uid'],
           'apiVersion': obj['apiVersion'], 'resourceVersion': m.get('resourceVersion', '')}
    if field_path:
        inv['fieldPath'] = field_path
    src = {'component': component}
    if host:
        src['host'] = host
    now = now_iso()
    return {'apiVersion': 'v1', 'kind': 'Event',
            'metadata': {'name': f'{m["name"]}.{secrets.token_hex(8)}', 'namespace': ns},
            'involvedObject': inv, 'reason': reason, 'message': message, 'source': src,
            'firstTimestamp': now, 'lastTimestamp': now, 'count': 1, 'type': etype}
