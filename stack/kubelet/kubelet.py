#!/usr/bin/python3
"""jaxjob's kubelet double: the one simulated part of the real stack (issue 38).

    kubelet.py --server URL --ca FILE --cert FILE --key FILE --root DIR
               [--nodes N | --node-names a,b] [--cpu 8 --memory 32Gi --gpus 8 --max-pods 110]
               [--address IP --port P --tls-cert F --tls-key F --client-ca F]

What it does, through the API of a real kube-apiserver only (stack/kubelet/README.md):
- registers Node objects with the declared capacity and keeps them Ready: a Lease in
  kube-node-lease renewed every 10 s (what the node lifecycle controller watches), the node
  status posted every minute;
- runs the containers of every pod the scheduler bound to one of its nodes as host processes,
  with the pod's env (values, downward API fieldRef, Secret/ConfigMap refs, $(VAR) expansion),
  each in a mount+UTS namespace of its own: hostname = the pod's hostname, a private /etc/hosts
  that maps the pod's own names, the namespace's Services and the hostname.subdomain names of
  pods behind a headless Service to this machine (there is no cluster DNS);
- maps an image to a host command (IMAGES below): the JAX image runs the cached JAX venv's python,
  `jaxjob.local/host:*` the command as is, every other image the simulated worker
  (simworker.py, the SIM_* scenario of tests/kube-apiserver/simscript.py);
- writes logs in the CRI format and serves /containerLogs/{ns}/{pod}/{container} over HTTPS to
  a client certificate of --client-ca (the apiserver's kubelet client), with follow,
  timestamps, previous, sinceTime, sinceSeconds, tailLines, limitBytes;
- reports pod status as a kubelet does (pods/status), restarts per restartPolicy with the
  kubelet's crash-loop back-off, OOM-kills through a hook, finishes graceful deletion (SIGTERM,
  SIGKILL after the grace period, the final status, DELETE with grace 0 and the pod's uid).
Python 3 standard library only; run with /usr/bin/python3. Stops on SIGTERM (its containers get
SIGKILL: a kubelet's restart keeps them, but nothing here would find them again).
"""
import argparse
import base64
import fnmatch
import http.server
import json
import os
import re
import shutil
import signal
import socketserver
import ssl
import subprocess
import threading
import time
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, '..', '..'))
import sys  # noqa: E402
sys.path.insert(0, os.path.join(REPO, 'tests', 'kube-apiserver'))
sys.path.insert(0, HERE)
import crilog  # noqa: E402
from kapi import STOP, Informer, Kube, say  # noqa: E402
from simscript import EVICT_MESSAGE, event_object, int_set, knobs_from, kf, pull_message, worker_index  # noqa: E402

UA = 'jaxjob-kubelet/1'
GPU = 'nvidia.com/gpu'
DEFAULT_GRACE = 30


def now_iso():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())


def micro_now():
    t = time.time()
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(t)) + f'.{int(t % 1 * 1e6):06d}Z'


# ---------------------------------------------------------------------------------------------
# images -> host commands

def load_images(path, jax_python):
    """The image table: [{match: glob, run: jax|host|sim, ...}], first match wins."""
    table = []
    if path:
        with open(path) as f:
            table = json.load(f)
    table += [
        {'match': 'jaxjob.local/jax-cpu:*', 'run': 'jax', 'python': jax_python,
         'app': os.path.join(REPO, 'examples', 'jax'), 'default': ['python', '/app/train.py']},
        {'match': 'jaxjob.local/host:*', 'run': 'host'},
        {'match': '*', 'run': 'sim'},
    ]
    return table


def image_entry(table, image):
    for e in table:
        if fnmatch.fnmatchcase(image or '', e['match']):
            return e
    return {'run': 'sim'}


VAR_REF = re.compile(r'\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\$')


def expand(s, env):
    """Kubernetes' $(VAR) expansion (third_party/forked/golang/expansion): $(X) with X defined is
    replaced, $$ is a literal $, anything else stays as written."""
    def rep(m):
        if m.group(0) == '$$':
            return '$'
        return env.get(m.group(1), m.group(0))
    return VAR_REF.sub(rep, s)


class ConfigError(Exception):
    """The container cannot be built (CreateContainerConfigError): the message says why."""


def field_ref(pod, path, pod_ip, host_ip):
    m = pod['metadata']
    simple = {'metadata.name': m.get('name'), 'metadata.namespace': m.get('namespace'),
              'metadata.uid': m.get('uid'), 'spec.nodeName': pod['spec'].get('nodeName'),
              'spec.serviceAccountName': pod['spec'].get('serviceAccountName', 'default'),
              'status.hostIP': host_ip, 'status.hostIPs': host_ip, 'status.podIP': pod_ip,
              'status.podIPs': pod_ip}
    if path in simple:
        return simple[path] or ''
    mm = re.match(r"^metadata\.(labels|annotations)\['([^']+)'\]$", path)
    if mm:
        return (m.get(mm.group(1)) or {}).get(mm.group(2), '')
    if path in ('metadata.labels', 'metadata.annotations'):
        d = m.get(path.split('.')[1]) or {}
        return '\n'.join(f'{k}="{v}"' for k, v in sorted(d.items()))
    raise ConfigError(f'unsupported fieldRef fieldPath "{path}"')


def resource_ref(container, ref):
    res = ref.get('resource', '')
    kind, _, name = res.partition('.')
    val = ((container.get('resources') or {}).get(kind) or {}).get(name)
    if val is None:
        return '0'
    return str(val)


# ---------------------------------------------------------------------------------------------

class Ctr:
    """One container of a pod: its process, its instances' logs, its reported state."""

    def __init__(self, spec, init=False):
        self.spec, self.name, self.init = spec, spec['name'], init
        self.restarts = 0
        self.proc = None
        self.state = {'waiting': {'reason': 'ContainerCreating'}}
        self.last = {}
        self.cid = ''
        self.logs = {}            # instance (restart count) -> crilog.LogFile
        self.exit = None          # (code, reason) of the instance that just ended, for the pod loop
        self.oom = False
        self.killed = False       # stopped by the kubelet (deletion): not a failure of the worker
        self.started_at = None
        self.next_start = 0.0     # monotonic time of the next (re)start
        self.backoff = 0.0        # crash-loop back-off of the next restart (0: none yet)
        self.done = False         # terminated and not to be restarted
        self.eof_delay = 0.0


class PodWorker:
    def __init__(self, kl, pod):
        self.kl = kl
        self.pod = pod
        m = pod['metadata']
        self.uid, self.ns, self.name = m['uid'], m['namespace'], m['name']
        self.node = pod['spec']['nodeName']
        self.cv = threading.Condition()
        self.gone = False          # the pod object is deleted (DELETED seen)
        self.dir = os.path.join(kl.root, 'pods', f'{self.ns}_{self.name}_{self.uid}')
        self.hosts = os.path.join(self.dir, 'etc-hosts')
        self.ctrs = [Ctr(c) for c in pod['spec'].get('containers') or []]
        self.inits = [Ctr(c, True) for c in pod['spec'].get('initContainers') or []]
        self.start_time = now_iso()
        self.transitions = {}
        self.phase = 'Pending'
        self.reason = self.message = None
        self.last_status = None
        self.env_cache = None
        self.evict = False

    # -- plumbing ---------------------------------------------------------------------------
    def update(self, pod):
        with self.cv:
            self.pod = pod
            self.cv.notify_all()

    def delete_seen(self):
        with self.cv:
            self.gone = True
            self.cv.notify_all()

    def deleting(self):
        return self.gone or bool(self.pod['metadata'].get('deletionTimestamp'))

    def event(self, etype, reason, message, ctr=None):
        fp = f'spec.containers{{{ctr.name}}}' if ctr is not None else None
        if ctr is not None and ctr.init:
            fp = f'spec.initContainers{{{ctr.name}}}'
        ev = event_object(self.pod, etype, reason, message, 'kubelet', self.node, fp)
        self.kl.kube.call('POST', f'/api/v1/namespaces/{self.ns}/events', ev, patience=20)

    def knobs(self, ctr):
        return knobs_from(ctr.spec)

    # -- status -----------------------------------------------------------------------------
    def cond(self, ctype, status, reason=None, message=None):
        if self.transitions.get(ctype, (None,))[0] != status:
            self.transitions[ctype] = (status, now_iso())
        c = {'type': ctype, 'status': status, 'lastProbeTime': None, 'lastTransitionTime': self.transitions[ctype][1]}
        if reason:
            c['reason'] = reason
        if message:
            c['message'] = message
        return c

    def ctr_status(self, c):
        st = {'name': c.name, 'state': c.state, 'lastState': c.last, 'ready': 'running' in c.state and not c.init,
              'restartCount': c.restarts, 'image': c.spec.get('image', ''),
              'imageID': (c.spec.get('image', '') + '@sha256:' + '0' * 64) if c.cid else '',
              'started': 'running' in c.state}
        if c.cid:
            st['containerID'] = c.cid
        return st

    def status(self):
        running = [c for c in self.ctrs if 'running' in c.state]
        unready = [c.name for c in self.ctrs if 'running' not in c.state]
        inits_done = all(c.done and (c.state.get('terminated') or {}).get('exitCode') == 0 for c in self.inits)
        terminal = self.phase in ('Succeeded', 'Failed')
        conds = [self.cond('PodReadyToStartContainers', 'True' if self.kl.sandbox(self) else 'False'),
                 self.cond('Initialized', 'True' if inits_done else 'False',
                           None if inits_done else 'ContainersNotInitialized',
                           None if inits_done else 'containers with incomplete status: [%s]' %
                           ' '.join(c.name for c in self.inits if not c.done))]
        if terminal:
            conds += [self.cond('Ready', 'False', 'PodCompleted'), self.cond('ContainersReady', 'False', 'PodCompleted')]
        elif unready or not running:
            msg = f'containers with unready status: [{" ".join(unready)}]'
            conds += [self.cond('Ready', 'False', 'ContainersNotReady', msg),
                      self.cond('ContainersReady', 'False', 'ContainersNotReady', msg)]
        else:
            conds += [self.cond('Ready', 'True'), self.cond('ContainersReady', 'True')]
        conds.append(self.cond('PodScheduled', 'True'))
        if self.reason == 'Evicted':    # PodDisruptionConditions (GA in 1.31): the kubelet's eviction
            conds.append(self.cond('DisruptionTarget', 'True', 'TerminationByKubelet', self.message))
        s = {'phase': self.phase, 'conditions': conds, 'hostIP': self.kl.host_ip, 'hostIPs': [{'ip': self.kl.host_ip}],
             'podIP': self.kl.pod_ip, 'podIPs': [{'ip': self.kl.pod_ip}], 'startTime': self.start_time,
             'qosClass': qos_class(self.pod), 'containerStatuses': [self.ctr_status(c) for c in self.ctrs]}
        if self.inits:
            s['initContainerStatuses'] = [self.ctr_status(c) for c in self.inits]
        if self.reason:
            s['reason'], s['message'] = self.reason, self.message
        return s

    def post_status(self, force=False):
        s = self.status()
        if s == self.last_status and not force:
            return True
        if self.gone:
            return False
        code, obj = self.kl.kube.call('PATCH', f'/api/v1/namespaces/{self.ns}/pods/{self.name}/status',
                                      {'metadata': {'uid': self.uid}, 'status': s}, 'application/merge-patch+json')
        if code == 200:
            self.last_status = s
            self.kl.podinf.put(obj)
            return True
        if code in (404, 409):
            return False
        say(f'pod {self.ns}/{self.name}: status write answered {code}: {obj.get("message")}')
        return False

    # -- container processes ------------------------------------------------------------------
    def env_for(self, c):
        """The container's env as a kubelet builds it (kubelet_pods.go makeEnvironmentVariables):
        envFrom, then env in order with $(VAR) expansion of earlier names."""
        pod = self.pod
        env = {}
        for src in c.spec.get('envFrom') or []:
            prefix = src.get('prefix', '')
            for kind, res in (('configMapRef', 'configmaps'), ('secretRef', 'secrets')):
                ref = src.get(kind)
                if not ref:
                    continue
                data = self.kl.get_data(self.ns, res, ref.get('name'))
                if data is None:
                    if ref.get('optional'):
                        continue
                    raise ConfigError(f'{res[:-1]} "{ref.get("name")}" not found')
                for k, v in data.items():
                    env[prefix + k] = v
        for e in c.spec.get('env') or []:
            name = e.get('name')
            if 'value' in e or not e.get('valueFrom'):
                env[name] = expand(str(e.get('value', '')), env)
                continue
            vf = e['valueFrom']
            if vf.get('fieldRef'):
                env[name] = field_ref(pod, vf['fieldRef'].get('fieldPath', ''), self.kl.pod_ip, self.kl.host_ip)
            elif vf.get('resourceFieldRef'):
                env[name] = resource_ref(c.spec, vf['resourceFieldRef'])
            else:
                for kind, res in (('configMapKeyRef', 'configmaps'), ('secretKeyRef', 'secrets')):
                    ref = vf.get(kind)
                    if not ref:
                        continue
                    data = self.kl.get_data(self.ns, res, ref.get('name'))
                    if data is None or ref.get('key') not in data:
                        if ref.get('optional'):
                            break
                        if data is None:
                            raise ConfigError(f'{res[:-1]} "{ref.get("name")}" not found')
                        raise ConfigError(f"couldn't find key {ref.get('key')} in {res[:-1].capitalize()} "
                                          f'{self.ns}/{ref.get("name")}')
                    env[name] = data[ref['key']]
        return env

    def hostname(self):
        return (self.pod['spec'].get('hostname') or self.name)[:63]

    def argv_for(self, c, env, entry):
        spec = c.spec
        cmd = [expand(x, env) for x in spec.get('command') or []]
        args = [expand(x, env) for x in spec.get('args') or []]
        run = entry.get('run')
        cwd = spec.get('workingDir') or None
        extra = {}
        if run == 'sim':
            k = self.knobs(c)
            extra.update(k)
            extra['SIM_WORKER_INDEX'] = str(worker_index(self.pod))
            extra['SIM_ATTEMPT'] = str(self.kl.attempts.get(self.attempt_key(), 0))
            extra['SIM_OOM_HOOK'] = os.path.join(self.dir, c.name + '.oom')
            extra['SIM_EVICT_HOOK'] = os.path.join(self.dir, 'evict')
            extra['SIM_SHARED_DIR'] = os.path.join(self.kl.root, 'shared', self.attempt_key()[1])
            if c.init or c is not self.main():
                extra['SIM_SIDECAR'] = c.name
            return ['/usr/bin/python3', os.path.join(HERE, 'simworker.py')], extra, self.dir, k
        if run == 'jax':
            py = entry['python']
            if not os.path.exists(py):
                raise ConfigError(f'the JAX venv is missing ({py}): run stack/venv.sh jax')
            app = entry['app']
            argv = (cmd + args) if cmd else (entry['default'][:1] + (args or entry['default'][1:]))
            argv = [app + a[4:] if a.startswith('/app/') else a for a in argv]
            if argv and argv[0] in ('python', 'python3', '/usr/bin/python3', '/usr/local/bin/python'):
                argv[0] = py
            extra['PATH'] = os.path.dirname(py) + ':' + env.get('PATH', BASE_PATH)
            cwd = app + cwd[4:] if cwd and cwd.startswith('/app') else (cwd or app)
            return argv, extra, cwd, {}
        argv = cmd + args
        if not argv:
            raise ConfigError('no command specified (image jaxjob.local/host:* has no entrypoint)')
        return argv, extra, cwd or self.dir, {}

    def main(self):
        for want in ('jax', 'node'):
            for c in self.ctrs:
                if c.name == want:
                    return c
        return self.ctrs[0] if self.ctrs else None

    def attempt_key(self):
        m = self.pod['metadata']
        lab = m.get('labels') or {}
        owner = lab.get('jobset.sigs.k8s.io/jobset-uid') or next(
            (r.get('uid') for r in m.get('ownerReferences') or [] if r.get('controller')), None) or self.uid
        return (self.ns, owner, worker_index(self.pod))

    def start(self, c):
        """Start container C (a new instance). Raises ConfigError when it cannot be built."""
        env = self.env_for(c)
        entry = image_entry(self.kl.images, c.spec.get('image'))
        argv, extra, cwd, k = self.argv_for(c, env, entry)
        full = {'PATH': BASE_PATH, 'HOME': '/root', 'HOSTNAME': self.hostname(),
                'KUBERNETES_SERVICE_HOST': self.kl.api_host, 'KUBERNETES_SERVICE_PORT': str(self.kl.api_port),
                'KUBERNETES_SERVICE_PORT_HTTPS': str(self.kl.api_port)}
        full.update(extra)
        full.update(env)
        if entry.get('run') == 'jax':
            full['PATH'] = extra['PATH']
        os.makedirs(self.dir, exist_ok=True)
        self.kl.write_hosts(self)
        for hook in (c.name + '.oom', 'evict'):
            try:
                os.unlink(os.path.join(self.dir, hook))
            except FileNotFoundError:
                pass
        if self.kl.isolate:
            argv = ['unshare', '--mount', '--uts', '--propagation', 'private', '/bin/sh', '-c',
                    'mount --bind "$1" /etc/hosts && hostname "$2" && shift 2 && exec "$@"', 'sh',
                    self.hosts, self.hostname()] + argv
        if SETPRIV:     # the container dies with its pod worker, even when the kubelet is SIGKILLed
            argv = [SETPRIV, '--pdeathsig', 'KILL'] + argv
        inst = c.restarts
        lf = crilog.LogFile(os.path.join(self.dir, c.name, f'{inst}.log'))
        c.logs[inst] = lf
        c.eof_delay = kf(k, 'SIM_EOF_DELAY', 0.0)
        self.kl.link_log(self, c, lf)
        os.makedirs(os.path.dirname(lf.path), exist_ok=True)
        open(lf.path, 'ab').close()
        try:
            p = subprocess.Popen(argv, env=full, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            lf.finish()
            raise ConfigError(f'failed to start container "{c.name}": {e}') from e
        # the shim writes the log (as containerd's does): a stopped kubelet stalls no container
        fds = (p.stdout.fileno(), p.stderr.fileno())
        try:
            shim = subprocess.Popen(['/usr/bin/python3', os.path.join(HERE, 'shim.py'), lf.path, str(fds[0]), str(fds[1])],
                                    pass_fds=fds, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError as e:
            os.killpg(p.pid, signal.SIGKILL)
            lf.finish()
            raise ConfigError(f'failed to start the shim of container "{c.name}": {e}') from e
        finally:
            p.stdout.close()
            p.stderr.close()
        c.proc, c.oom, c.exit, c.killed = p, False, None, False
        if k.get('SIM_OOM') and c is self.main():   # SIM_OOM=s: the OOM killer takes it s seconds in
            threading.Timer(kf(k, 'SIM_OOM', 1.0), self.oom_hook, (c, p)).start()
        c.cid = 'jaxjob://' + os.urandom(32).hex()
        c.started_at = now_iso()
        c.state = {'running': {'startedAt': c.started_at}}
        threading.Thread(target=self.reap, args=(c, p, lf, shim), daemon=True, name=f'reap {c.name}').start()

    def reap(self, c, p, lf, shim):
        rc = p.wait()
        try:
            os.killpg(p.pid, signal.SIGKILL)   # what is left of the container goes with it
        except (ProcessLookupError, PermissionError):
            pass
        try:
            shim.wait(timeout=10)              # all of its output is in the log
        except subprocess.TimeoutExpired:      # a process outside the container holds its stdout
            shim.kill()
            shim.wait()
        code = rc if rc >= 0 else 128 - rc
        done = lambda: (lf.finish(), self.kl.mark_exited(self, c, lf))  # noqa: E731
        if c.eof_delay > 0:
            threading.Timer(c.eof_delay, done).start()
        else:
            done()
        with self.cv:
            reason = 'OOMKilled' if c.oom else 'Completed' if code == 0 else 'Error'
            c.exit = (code, reason)
            self.cv.notify_all()

    def kill(self, c, sig):
        if c.proc is not None and c.proc.returncode is None:
            try:
                if sig == signal.SIGKILL:
                    os.killpg(c.proc.pid, sig)
                else:
                    os.kill(c.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def oom_hook(self, c, p):
        if c.proc is p and c.exit is None:
            open(os.path.join(self.dir, c.name + '.oom'), 'w').close()
            with self.cv:
                self.cv.notify_all()

    def exited(self, c):
        """C's process ended and the pod loop has not taken note yet."""
        return c.exit is not None and c.proc is not None

    def alive(self, c):
        return c.proc is not None and c.exit is None

    # -- the pod's life -----------------------------------------------------------------------
    def run(self):
        try:
            self.life()
        except Exception:  # noqa: BLE001 - one pod's bug must not stop the node
            traceback.print_exc()
        finally:
            for c in self.inits + self.ctrs:
                self.kill(c, signal.SIGKILL)

    def life(self):
        if not self.post_status():
            return
        main = self.main()
        # image "pull": the table maps every image; image-pull-error images (SIM_IMAGE_PULL_ERROR) fail
        for c in self.inits + self.ctrs:
            img = c.spec.get('image', '')
            if self.knobs(c).get('SIM_IMAGE_PULL_ERROR') not in (None, '', '0') and c is main:
                return self.pull_error(c, img)
        k = self.knobs(main) if main else {}
        startup = kf(k, 'SIM_STARTUP', 0.0)
        if worker_index(self.pod) in int_set(k.get('SIM_LATE_WORKER')):    # this worker's container starts late
            startup += kf(k, 'SIM_LATE_DELAY', 2.0)
        if startup > 0 and self.wait(startup):
            return self.terminate()
        for c in self.inits:
            while True:
                if not self.run_to_end(c):
                    return self.terminate()
                code = c.state['terminated']['exitCode']
                if code == 0:
                    c.done = True
                    break
                if self.pod['spec'].get('restartPolicy', 'Always') == 'Never':
                    self.phase = 'Failed'
                    c.done = True
                    self.post_status()
                    return self.wait_deleted()
                c.restarts += 1
        for c in self.ctrs:
            if not self.launch(c):
                return self.terminate() if self.deleting() else None
        self.post_status()
        while True:
            with self.cv:
                if not self.deleting() and not any(self.exited(c) for c in self.ctrs) and not self.hooks_due():
                    self.cv.wait(self.next_wake())
            if self.deleting():
                return self.terminate()
            self.check_hooks()
            if self.evict:
                return self.evicted()
            now = time.monotonic()
            for c in self.ctrs:
                if self.exited(c):
                    self.ended(c)
                if c.proc is None and not c.done and c.next_start and now >= c.next_start:
                    c.next_start = 0.0
                    if not self.launch(c):
                        return self.terminate() if self.deleting() else None
            if all(c.done for c in self.ctrs):
                failed = any(c.state['terminated']['exitCode'] != 0 for c in self.ctrs)
                self.phase = 'Failed' if failed else 'Succeeded'
                self.post_status()
                return self.wait_deleted()
            self.phase = 'Running'
            self.post_status()

    def next_wake(self):
        waits = [c.next_start - time.monotonic() for c in self.ctrs if c.next_start]
        return max(0.05, min(waits + [0.5]))

    def wait(self, secs):
        """Wait SECS or until the pod is deleted; True if deleted."""
        end = time.monotonic() + secs
        with self.cv:
            while not self.deleting() and time.monotonic() < end:
                self.cv.wait(end - time.monotonic())
        return self.deleting()

    def wait_deleted(self):
        with self.cv:
            while not self.deleting():
                self.cv.wait(5)
        self.terminate()

    def launch(self, c):
        """Start C, or report why it cannot start (and retry while the pod lives)."""
        while True:
            try:
                self.start(c)
                break
            except ConfigError as e:
                c.state = {'waiting': {'reason': 'CreateContainerConfigError', 'message': str(e)}}
                self.post_status()
                self.event('Warning', 'Failed', f'Error: {e}', c)
                if self.wait(10):
                    return False
        first = c.restarts == 0
        if first:
            self.event('Normal', 'Pulled', f'Container image "{c.spec.get("image", "")}" already present on machine', c)
        self.event('Normal', 'Created', f'Created container {c.name}' if first else f'Created container: {c.name}', c)
        self.event('Normal', 'Started', f'Started container {c.name}', c)
        if self.phase == 'Pending' and not c.init:
            self.phase = 'Running'
        self.post_status()
        return True

    def run_to_end(self, c):
        """An init container: start it and wait for its end; False if the pod went away."""
        if not self.launch(c):
            return False
        with self.cv:
            while c.exit is None and not self.deleting():
                self.cv.wait(1)
        if c.exit is None:
            return False
        self.record_exit(c)
        self.post_status()
        return True

    def record_exit(self, c):
        code, reason = c.exit
        term = {'exitCode': code, 'reason': reason, 'startedAt': c.started_at, 'finishedAt': now_iso(),
                'containerID': c.cid}
        c.state = {'terminated': term}
        c.proc = None
        if code != 0 and c is self.main() and not c.killed:
            key = self.attempt_key()
            self.kl.attempts[key] = self.kl.attempts.get(key, 0) + 1
        return term

    def ended(self, c):
        """C's process ended: restart it per restartPolicy (kubelet's back-off: the first restart
        at once, then 10 s doubling to 300 s, reset after 10 min of running), or leave it ended."""
        started = c.started_at
        term = self.record_exit(c)
        code = term['exitCode']
        policy = self.pod['spec'].get('restartPolicy', 'Always')
        restart = policy == 'Always' or (policy == 'OnFailure' and code != 0)
        if not restart:
            c.done = True
            return
        ran = time.time() - crilog.parse_ts(started) / 1e9 if started else 0
        if ran > 600:
            c.backoff = 0.0
        c.last = {'terminated': term}
        c.restarts += 1
        if c.backoff == 0.0:
            c.backoff = self.kl.backoff_initial
            c.next_start = time.monotonic() + 0.05
            c.state = {'waiting': {'reason': 'ContainerCreating'}}
        else:
            delay = c.backoff
            c.backoff = min(self.kl.backoff_max, c.backoff * 2)
            c.next_start = time.monotonic() + delay
            c.state = {'waiting': {'reason': 'CrashLoopBackOff',
                                   'message': f'back-off {fmt_dur(delay)} restarting failed container={c.name} '
                                              f'pod={self.name}_{self.ns}({self.uid})'}}
            self.event('Warning', 'BackOff', f'Back-off restarting failed container {c.name} in pod '
                                             f'{self.name}_{self.ns}({self.uid})', c)

    def hooks_due(self):
        return any(os.path.exists(os.path.join(self.dir, c.name + '.oom')) for c in self.ctrs if self.alive(c)) or \
            os.path.exists(os.path.join(self.dir, 'evict'))

    def check_hooks(self):
        """OOM: a file DIR/<container>.oom (the simulated worker's SIM_FAILURE=oom, or a test)
        makes the container die as the kernel's OOM killer kills it: SIGKILL, exit 137,
        reason OOMKilled. DIR/evict: the eviction manager evicts the pod."""
        for c in self.ctrs:
            f = os.path.join(self.dir, c.name + '.oom')
            if self.alive(c) and os.path.exists(f):
                os.unlink(f)
                c.oom = True
                self.kill(c, signal.SIGKILL)
        f = os.path.join(self.dir, 'evict')
        if os.path.exists(f):
            os.unlink(f)
            self.evict = True

    def evicted(self):
        """The eviction manager's kill: containers stopped, phase Failed, reason Evicted."""
        for c in self.ctrs:
            self.kill(c, signal.SIGKILL)
        self.await_exit(5)
        for c in self.ctrs:
            if c.exit is not None and c.proc is not None:
                self.record_exit(c)
            c.done = True
        self.phase, self.reason, self.message = 'Failed', 'Evicted', EVICT_MESSAGE
        self.post_status()
        self.event('Warning', 'Evicted', EVICT_MESSAGE)
        return self.wait_deleted()

    def await_exit(self, secs):
        end = time.monotonic() + secs
        with self.cv:
            while any(self.alive(c) for c in self.inits + self.ctrs) and time.monotonic() < end:
                self.cv.wait(min(0.5, max(0.01, end - time.monotonic())))

    def terminate(self):
        """Graceful deletion (kubelet killPod): SIGTERM to every running container, SIGKILL
        after the grace period, the final status, then DELETE with grace 0 and the uid."""
        m = self.pod['metadata']
        grace = m.get('deletionGracePeriodSeconds')
        if grace is None:
            grace = self.pod['spec'].get('terminationGracePeriodSeconds', DEFAULT_GRACE)
        live = [c for c in self.inits + self.ctrs if self.alive(c)]
        for c in live:
            self.event('Normal', 'Killing', f'Stopping container {c.name}', c)
            c.killed = True
            self.kill(c, signal.SIGTERM)
        self.await_exit(grace if not self.gone else 0)
        for c in live:
            self.kill(c, signal.SIGKILL)
        self.await_exit(10)
        if self.gone:
            return
        for c in self.inits + self.ctrs:
            if c.exit is not None and c.proc is not None:
                self.record_exit(c)
        if self.phase not in ('Succeeded', 'Failed'):
            codes = [(c.state.get('terminated') or {}).get('exitCode') for c in self.ctrs]
            self.phase = 'Succeeded' if codes and all(x == 0 for x in codes) else 'Failed'
        self.post_status()
        q = json.dumps({'apiVersion': 'v1', 'kind': 'DeleteOptions', 'gracePeriodSeconds': 0,
                        'preconditions': {'uid': self.uid}})
        self.kl.kube.call('DELETE', f'/api/v1/namespaces/{self.ns}/pods/{self.name}', json.loads(q))

    def pull_error(self, c, img):
        """An image no registry has: ErrImagePull, then ImagePullBackOff, until deleted."""
        self.event('Normal', 'Pulling', f'Pulling image "{img}"', c)
        c.state = {'waiting': {'reason': 'ErrImagePull', 'message': pull_message(img)}}
        self.post_status()
        self.event('Warning', 'Failed', f'Failed to pull image "{img}": ' + pull_message(img), c)
        self.event('Warning', 'Failed', 'Error: ErrImagePull', c)
        if self.wait(1.0):
            return self.terminate()
        c.state = {'waiting': {'reason': 'ImagePullBackOff', 'message': f'Back-off pulling image "{img}"'}}
        self.post_status()
        self.event('Normal', 'BackOff', f'Back-off pulling image "{img}"', c)
        self.event('Warning', 'Failed', 'Error: ImagePullBackOff', c)
        return self.wait_deleted()


SETPRIV = shutil.which('setpriv')
BASE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'


def fmt_dur(s):
    s = int(s)
    return f'{s // 60}m{s % 60}s' if s >= 60 else f'{s}s'


def qos_class(pod):
    """The apiserver's own (status.qosClass is set at creation and immutable), else computed as
    pkg/apis/core/v1/helper/qos does: only cpu and memory count."""
    known = (pod.get('status') or {}).get('qosClass')
    if known:
        return known
    any_set, guaranteed = False, True
    for c in pod['spec'].get('containers') or []:
        r = c.get('resources') or {}
        rq = {k: v for k, v in (r.get('requests') or {}).items() if k in ('cpu', 'memory')}
        lm = {k: v for k, v in (r.get('limits') or {}).items() if k in ('cpu', 'memory')}
        any_set = any_set or bool(rq or lm)
        for res in ('cpu', 'memory'):
            if res not in lm or str(rq.get(res, lm[res])) != str(lm[res]):
                guaranteed = False
    return 'BestEffort' if not any_set else 'Guaranteed' if guaranteed else 'Burstable'


# ---------------------------------------------------------------------------------------------

class Kubelet:
    def __init__(self, a):
        self.a = a
        self.kube = Kube(a.server, a.ca, a.cert, a.key, UA)
        u = urllib.parse.urlparse(a.server)
        self.api_host, self.api_port = u.hostname, u.port or 443
        self.root = a.root
        self.nodes = a.node_names
        self.pod_ip, self.host_ip = a.pod_ip, a.address
        self.backoff_initial, self.backoff_max = a.backoff_initial, a.backoff_max
        self.images = load_images(a.image_table, a.jax_python)
        self.workers = {}          # pod uid -> PodWorker
        self.attempts = {}         # (ns, owner uid, worker index) -> failed runs of the main container
        self.lock = threading.Lock()
        self.isolate = False
        self.podinf = Informer(self.kube, '/api/v1/pods', self.on_pod)
        self.svcinf = Informer(self.kube, '/api/v1/services', self.on_service)
        self.node_uids = {}
        self.node_since = now_iso()

    # -- nodes ------------------------------------------------------------------------------
    def node_status(self, name):
        cap = {'cpu': str(self.a.cpu), 'memory': self.a.memory, 'pods': str(self.a.max_pods),
               'ephemeral-storage': '100Gi', 'hugepages-2Mi': '0', 'hugepages-1Gi': '0'}
        if self.a.gpus:
            cap[GPU] = str(self.a.gpus)
        now = now_iso()

        def c(t, s, reason, msg):
            return {'type': t, 'status': s, 'reason': reason, 'message': msg, 'lastHeartbeatTime': now,
                    'lastTransitionTime': self.node_since}
        return {'capacity': cap, 'allocatable': dict(cap),
                'conditions': [c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
                               c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
                               c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
                               c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')],
                'addresses': [{'type': 'InternalIP', 'address': self.a.address}, {'type': 'Hostname', 'address': name}],
                'daemonEndpoints': {'kubeletEndpoint': {'Port': self.a.port}},
                'nodeInfo': {'machineID': '', 'systemUUID': '', 'bootID': '', 'kernelVersion': os.uname().release,
                             'osImage': 'jaxjob kubelet double', 'containerRuntimeVersion': 'jaxjob://1',
                             'kubeletVersion': self.version, 'kubeProxyVersion': '', 'operatingSystem': 'linux',
                             'architecture': 'amd64'}}

    def register(self):
        code, v = self.kube.call('GET', '/version')
        self.version = v.get('gitVersion', 'v0.0.0') if code == 200 else 'v0.0.0'
        for name in self.nodes:
            node = {'apiVersion': 'v1', 'kind': 'Node',
                    'metadata': {'name': name, 'labels': {'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux',
                                                          'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux',
                                                          'beta.kubernetes.io/arch': 'amd64',
                                                          'node.kubernetes.io/instance-type': 'jaxjob-kubelet'}},
                    'spec': {}}
            code, obj = self.kube.call('POST', '/api/v1/nodes', node)
            if code == 409:
                code, obj = self.kube.call('GET', f'/api/v1/nodes/{name}')
            if code not in (200, 201):
                raise SystemExit(f'kubelet: cannot register node {name}: HTTP {code} {obj.get("message")}')
            self.node_uids[name] = obj['metadata']['uid']
            self.post_node_status(name)
            self.renew_lease(name)
        say(f'registered node(s) {", ".join(self.nodes)}: cpu {self.a.cpu}, memory {self.a.memory}, '
            f'{GPU} {self.a.gpus}, InternalIP {self.a.address}, kubelet port {self.a.port}')

    def post_node_status(self, name):
        code, obj = self.kube.call('PATCH', f'/api/v1/nodes/{name}/status', {'status': self.node_status(name)},
                                   'application/merge-patch+json', patience=30)
        if code != 200:
            say(f'node {name}: status write answered {code}: {obj.get("message")}')
        elif self.a.untaint_not_ready:
            taints = (obj.get('spec') or {}).get('taints') or []
            keep = [t for t in taints if t.get('key') != 'node.kubernetes.io/not-ready']
            if keep != taints:
                self.kube.call('PATCH', f'/api/v1/nodes/{name}', {'spec': {'taints': keep or None}},
                               'application/merge-patch+json', patience=30)

    def renew_lease(self, name):
        """The node heartbeat (kubelet nodelease controller): Lease kube-node-lease/<node>,
        holder the node, 40 s duration, renewed every 10 s."""
        path = f'/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{name}'
        code, lease = self.kube.call('GET', path, patience=20)
        spec = {'holderIdentity': name, 'leaseDurationSeconds': 40, 'renewTime': micro_now()}
        if code == 404:
            body = {'apiVersion': 'coordination.k8s.io/v1', 'kind': 'Lease',
                    'metadata': {'name': name, 'namespace': 'kube-node-lease',
                                 'ownerReferences': [{'apiVersion': 'v1', 'kind': 'Node', 'name': name,
                                                      'uid': self.node_uids.get(name, '')}]},
                    'spec': spec}
            code, lease = self.kube.call('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
                                         body, patience=20)
        elif code == 200:
            lease['spec'].update(spec)
            code, lease = self.kube.call('PUT', path, lease, patience=20)
        if code not in (200, 201):
            say(f'node {name}: lease renewal answered {code}: {lease.get("message")}')

    def heartbeat(self):
        n = 0
        while not STOP.wait(10):
            n += 1
            for name in self.nodes:
                self.renew_lease(name)
                if n % 6 == 0:
                    self.post_node_status(name)

    # -- pods ---------------------------------------------------------------------------------
    def sandbox(self, w):
        return any(c.cid for c in w.inits + w.ctrs)

    def on_pod(self, etype, pod):
        m = pod['metadata']
        uid = m['uid']
        if (pod.get('spec') or {}).get('subdomain'):
            self.refresh_hosts(m.get('namespace'))
        if etype == 'DELETED':
            w = self.workers.pop(uid, None)
            if w:
                w.delete_seen()
            return
        if (pod.get('spec') or {}).get('nodeName') not in self.nodes:
            return
        with self.lock:
            w = self.workers.get(uid)
            if w is None:
                phase = (pod.get('status') or {}).get('phase', 'Pending')
                if phase in ('Succeeded', 'Failed') or (phase == 'Running' and etype == 'SYNC'):
                    # a pod of an earlier kubelet: its containers are gone with it
                    w = PodWorker(self, pod)
                    w.phase = phase if phase != 'Running' else 'Failed'
                    for c in w.ctrs:
                        c.done = True
                        c.state = {'terminated': {'exitCode': 137, 'reason': 'ContainerStatusUnknown',
                                                  'message': 'The container could not be located when the pod was '
                                                             'terminated', 'finishedAt': now_iso()}}
                    self.workers[uid] = w
                    threading.Thread(target=self.orphan, args=(w, phase), daemon=True).start()
                    return
                w = self.workers[uid] = PodWorker(self, pod)
                threading.Thread(target=w.run, name=f'pod {m["namespace"]}/{m["name"]}', daemon=True).start()
                return
        w.update(pod)

    def orphan(self, w, phase):
        if phase == 'Running':
            w.post_status(force=True)
        w.wait_deleted()

    def on_service(self, etype, svc):
        self.refresh_hosts(svc['metadata'].get('namespace'))

    def get_data(self, ns, res, name):
        code, obj = self.kube.call('GET', f'/api/v1/namespaces/{ns}/{res}/{name}', patience=30)
        if code != 200:
            return None
        data = dict(obj.get('data') or {})
        if res == 'secrets':
            data = {k: base64.b64decode(v).decode('utf-8', 'replace') for k, v in data.items()}
        return data

    # -- the log view ----------------------------------------------------------------------------
    def view(self, w, c):
        return os.path.join(self.root, 'logs', w.ns, w.name, c.name + '.log')

    def link_log(self, w, c, lf):
        """<root>/logs/<ns>/<pod>/<container>.log: a symlink to the running instance's CRI log (as
        /var/log/containers links a kubelet keeps), `.exited` beside it once that instance ended
        and its log is whole: what suites read where operator.py wrote FAKE_KUBELET_LOG_ROOT."""
        v = self.view(w, c)
        os.makedirs(os.path.dirname(v), exist_ok=True)
        try:
            os.unlink(v + '.exited')
        except FileNotFoundError:
            pass
        tmp = f'{v}.{os.getpid()}.{threading.get_ident()}'
        os.symlink(lf.path, tmp)
        os.replace(tmp, v)

    def mark_exited(self, w, c, lf):
        v = self.view(w, c)
        try:
            if os.readlink(v) == lf.path:
                open(v + '.exited', 'w').close()
        except OSError:
            pass

    # -- names --------------------------------------------------------------------------------
    def hosts_text(self, w):
        """The pod's /etc/hosts: the kubelet's managed file (kubelet_pods.go managedHostsFileContent)
        plus, for want of cluster DNS, every name the cluster DNS would answer in the pod's
        namespace: its Services, and hostname.subdomain of pods whose subdomain is a Service."""
        ip, ns = self.pod_ip, w.ns
        spec = w.pod['spec']
        lines = ['# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback',
                 'fe00::0\tip6-localnet', 'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters']
        hn = w.hostname()
        if spec.get('subdomain'):
            lines.append(f'{ip}\t{hn}.{spec["subdomain"]}.{ns}.svc.cluster.local\t{hn}')
        else:
            lines.append(f'{ip}\t{hn}')
        lines.append('# jaxjob kubelet: what cluster DNS would answer (Services; pods behind headless Services)')
        svcs = {s['metadata']['name'] for s in self.svcinf.items() if s['metadata'].get('namespace') == ns}
        names = []
        for s in sorted(svcs):
            names.append(s)
        for p in self.podinf.items():
            ps = p.get('spec') or {}
            if p['metadata'].get('namespace') == ns and ps.get('subdomain') in svcs:
                names.append(f'{ps.get("hostname") or p["metadata"]["name"]}.{ps["subdomain"]}')
        for n in dict.fromkeys(names):
            lines.append(f'{ip}\t{n} {n}.{ns} {n}.{ns}.svc {n}.{ns}.svc.cluster.local')
        return '\n'.join(lines) + '\n'

    def write_hosts(self, w):
        text = self.hosts_text(w)
        with open(w.hosts, 'a+') as f:   # in place: the container's bind mount holds this inode
            f.seek(0)
            if f.read() != text:
                f.seek(0)
                f.truncate()
                f.write(text)

    def refresh_hosts(self, ns):
        for w in list(self.workers.values()):
            if w.ns == ns and os.path.exists(w.hosts):
                try:
                    self.write_hosts(w)
                except OSError:
                    pass

    def probe_isolation(self):
        """Can containers get a mount+UTS namespace with a private /etc/hosts here?"""
        os.makedirs(self.root, exist_ok=True)
        f = os.path.join(self.root, 'probe-hosts')
        with open(f, 'w') as fh:
            fh.write('127.0.0.1 jaxjob-kubelet-probe\n')
        try:
            r = subprocess.run(['unshare', '--mount', '--uts', '--propagation', 'private', '/bin/sh', '-c',
                                'mount --bind "$1" /etc/hosts && hostname jaxjob-probe && getent hosts jaxjob-kubelet-probe',
                                'sh', f], capture_output=True, timeout=20)
            ok = r.returncode == 0
            why = (r.stderr or r.stdout).decode(errors='replace').strip()
        except (OSError, subprocess.TimeoutExpired) as e:
            ok, why = False, str(e)
        self.isolate = ok
        if not ok:
            say(f'WARNING: no mount+UTS namespaces ({why}): containers share this host\'s /etc/hosts and '
                f'hostname, so Service and pod names do not resolve')

    # -- log endpoint -------------------------------------------------------------------------
    def find(self, ns, name):
        ws = [w for w in list(self.workers.values()) if w.ns == ns and w.name == name]
        return ws[-1] if ws else None


class LogHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'jaxjob-kubelet/1'

    def log_message(self, fmt, *args):
        pass

    def send_text(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header('Content-Type', 'text/plain; charset=utf-8')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def chunk(self, data):
        if data:
            self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
            self.wfile.flush()

    def do_GET(self):
        kl = self.server.kubelet
        u = urllib.parse.urlsplit(self.path)
        if u.path in ('/healthz', '/healthz/ping'):
            return self.send_text(200, 'ok')
        m = re.match(r'^/containerLogs/([^/]+)/([^/]+)/([^/]+)/?$', u.path)
        if not m:
            return self.send_text(404, '404 page not found')
        ns, pod, container = (urllib.parse.unquote(x) for x in m.groups())
        q = urllib.parse.parse_qs(u.query)

        def qv(name, default=None):
            v = q.get(name)
            return v[-1] if v else default

        def flag(name):
            return (qv(name, 'false') or 'false').lower() in ('true', '1')
        try:
            since = crilog.parse_ts(qv('sinceTime')) if qv('sinceTime') else None
            if qv('sinceSeconds'):
                since = time.time_ns() - int(qv('sinceSeconds')) * 1_000_000_000
            tail = int(qv('tailLines')) if qv('tailLines') not in (None, '') else None
            limit = int(qv('limitBytes')) if qv('limitBytes') not in (None, '') else None
        except ValueError as e:
            return self.send_text(400, f'invalid query: {e}')
        # kubelet server.go getContainerLogs, then kubelet_pods.go validateContainerLogStatus
        w = kl.find(ns, pod)
        if w is None:
            return self.send_text(404, f'pod "{pod}" does not exist\n')
        c = next((x for x in w.ctrs + w.inits if x.name == container), None)
        if c is None:
            return self.send_text(404, f'container "{container}" not found in pod "{pod}"\n')
        lf, err = log_of(c, pod, flag('previous'))
        if lf is None:
            return self.send_text(400, err)
        self.send_response(200)
        self.send_header('Content-Type', 'text/plain')
        self.send_header('Transfer-Encoding', 'chunked')
        self.end_headers()
        try:
            crilog.serve(lf, self.chunk, follow=flag('follow'), timestamps=flag('timestamps'), since=since, tail=tail,
                         limit=limit, alive=lambda: not w.gone)
            self.wfile.write(b'0\r\n\r\n')
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True


def log_of(c, pod, previous):
    """(LogFile, None) or (None, the kubelet's 400 text): validateContainerLogStatus."""
    st, last = c.state, c.last
    if previous:
        if not last.get('terminated') or c.restarts - 1 not in c.logs:
            return None, f'previous terminated container "{c.name}" in pod "{pod}" not found'
        return c.logs[c.restarts - 1], None
    if 'running' in st or 'terminated' in st:
        lf = c.logs.get(c.restarts)
        if lf is not None:
            return lf, None
    if last.get('terminated') and c.restarts - 1 in c.logs:
        return c.logs[c.restarts - 1], None
    w = st.get('waiting') or {}
    reason = w.get('reason')
    if reason == 'ErrImagePull':
        return None, f'container "{c.name}" in pod "{pod}" is waiting to start: image can\'t be pulled'
    if reason == 'ImagePullBackOff':
        return None, f'container "{c.name}" in pod "{pod}" is waiting to start: trying and failing to pull image'
    if reason:
        return None, f'container "{c.name}" in pod "{pod}" is waiting to start: {reason}'
    return None, f'container "{c.name}" in pod "{pod}" is waiting to start - no logs yet'


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def host_ip():
    """This machine's first non-loopback IPv4 address (pods' IPs: Endpoints reject loopback)."""
    try:
        out = subprocess.run(['ip', '-o', '-4', 'addr', 'show', 'scope', 'global'], capture_output=True,
                             text=True, timeout=10).stdout
        for line in out.splitlines():
            m = re.search(r'inet (\d+\.\d+\.\d+\.\d+)/', line)
            if m:
                return m.group(1)
    except (OSError, subprocess.TimeoutExpired):
        pass
    return '127.0.0.1'


def default_jax_python():
    cache = os.environ.get('JAXJOB_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'jaxjob')
    ver = None
    try:
        with open(os.path.join(REPO, 'stack', 'versions.env')) as f:
            for line in f:
                if line.startswith('JAX_VERSION='):
                    ver = line.strip().split('=', 1)[1]
    except OSError:
        pass
    return os.path.join(cache, f'venv-jax-{ver}', 'bin', 'python')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--server', required=True, help='the apiserver URL')
    ap.add_argument('--ca', required=True, help="the apiserver's CA certificate")
    ap.add_argument('--cert', required=True, help='client certificate for the API (admin: one identity for every node)')
    ap.add_argument('--key', required=True)
    ap.add_argument('--root', required=True, help='state: pod directories, CRI logs, hosts files')
    ap.add_argument('--nodes', type=int, default=1, help='how many Nodes (named NODE-PREFIX-0..N-1)')
    ap.add_argument('--node-prefix', default='node')
    ap.add_argument('--node-names', help='comma-separated Node names (instead of --nodes)')
    ap.add_argument('--cpu', default='8')
    ap.add_argument('--memory', default='32Gi')
    ap.add_argument('--gpus', type=int, default=8, help=f'{GPU} capacity per node (0: none)')
    ap.add_argument('--max-pods', type=int, default=110)
    ap.add_argument('--address', default=None, help='Node InternalIP, where the log endpoint listens (default: host IP)')
    ap.add_argument('--port', type=int, default=10250)
    ap.add_argument('--pod-ip', default=None, help="pods' IP (default: this host's first non-loopback IPv4)")
    ap.add_argument('--tls-cert', required=True)
    ap.add_argument('--tls-key', required=True)
    ap.add_argument('--client-ca', required=True, help="CA of the apiserver's kubelet client certificate")
    ap.add_argument('--image-table', help='JSON list of {match, run: jax|host|sim, ...} tried before the built-in ones')
    ap.add_argument('--jax-python', default=None, help='python of the JAX venv (default: the stack/venv.sh jax cache)')
    ap.add_argument('--backoff-initial', type=float, default=10.0, help='crash-loop back-off start, seconds (kubelet: 10)')
    ap.add_argument('--backoff-max', type=float, default=300.0, help='crash-loop back-off ceiling (kubelet: 300)')
    ap.add_argument('--untaint-not-ready', action='store_true',
                    help='remove node.kubernetes.io/not-ready from Ready nodes (only without a node lifecycle controller)')
    ap.add_argument('--no-isolation', action='store_true', help='run containers without mount+UTS namespaces')
    ap.add_argument('--ready-file')
    a = ap.parse_args()
    a.node_names = [n for n in (a.node_names or '').split(',') if n] or \
        [f'{a.node_prefix}-{i}' for i in range(a.nodes)]
    a.pod_ip = a.pod_ip or host_ip()
    a.address = a.address or a.pod_ip
    a.jax_python = a.jax_python or default_jax_python()
    kl = Kubelet(a)
    if not a.no_isolation:
        kl.probe_isolation()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.tls_cert, a.tls_key)
    ctx.load_verify_locations(a.client_ca)
    ctx.verify_mode = ssl.CERT_REQUIRED
    srv = Server((a.address, a.port), LogHandler)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)
    srv.kubelet = kl
    threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.5}, daemon=True).start()

    def stop(*_):
        STOP.set()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    kl.register()
    threading.Thread(target=kl.heartbeat, daemon=True, name='heartbeat').start()
    kl.svcinf.start()
    kl.svcinf.synced.wait(60)
    kl.podinf.start()
    kl.podinf.synced.wait(60)
    if a.ready_file:
        open(a.ready_file, 'w').close()
    say(f'kubelet ready: nodes {",".join(a.node_names)}, pod IP {a.pod_ip}, '
        f'isolation {"mount+UTS namespaces" if kl.isolate else "none"}, JAX python {a.jax_python}')
    while not STOP.wait(1.0):
        pass
    for w in list(kl.workers.values()):
        for c in w.inits + w.ctrs:
            w.kill(c, signal.SIGKILL)
    say('kubelet stopped')


if __name__ == '__main__':
    main()
