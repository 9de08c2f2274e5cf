#!/usr/bin/python3
"""The driver of bench/launch-real.sh (read its header); runs inside the
environment kcp_up exported (KUBE_SERVER, KCP_KUBECONFIG, KCP_AUDIT_LOG, ...).

    launch_real.py BINARY PEER_PY TOP WORKDIR
"""
import datetime
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

BIN, PEER_PY, TOP, WORK = sys.argv[1:5]
sys.path.insert(0, os.path.join(TOP, "bench"))
import sim_operator  # noqa: E402

NS = "team-a"
KC = os.environ.get("KCP_KUBECONFIG")
AUDIT = os.environ.get("KCP_AUDIT_LOG")
PORT = os.environ.get("APISERVER_PORT")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
ROUNDS256 = int(os.environ.get("ROUNDS256", "3"))
SIZES = [int(s) for s in os.environ.get("SIZES", "2 16 256").split()]
LINES = int(os.environ.get("LINES", "100"))
# VERDICT_DELAY_S: the operator writes the verdict this long after the pods' end
# (bench/sim_operator.py --verdict-delay-s; a real operator: 0.1 s to seconds)
VERDICT_DELAY_S = os.environ.get("VERDICT_DELAY_S", "0")
# BASELINE=path/to/jaxjob adds "jaxjob-base": another build of jaxjob in the same
# rounds (a before/after comparison); TOOLS picks and orders the tools.
BASELINE = os.environ.get("BASELINE")
# REAL=1: the real stack (stack/up.sh): the real training operator writes the verdict and
# the kubelet double runs the workers (SIM_* env); no sim_operator. SDK_PY: the python of
# stack/venv.sh sdk, for the tool "training-sdk" (kubeflow-training's TrainingClient).
REAL = os.environ.get("REAL") == "1"
TOOL_TIMEOUT_S = float(os.environ.get("TOOL_TIMEOUT_S", "120"))
# OUTCOMES narrows the scenarios: "ok", "fail" or both (the default)
OUTCOMES = os.environ.get("OUTCOMES", "ok fail").split()
SDK_PY = os.environ.get("SDK_PY")
# KINDS: the job APIs measured, "jaxjob" (kubeflow.org/v1 JAXJob, the training operator) and/or
# "trainjob" (trainer.kubeflow.org/v1alpha1 TrainJob on the jax-distributed runtime: Trainer v2 +
# JobSet, the real stack only). TOOLS picks the JAXJob tools, TJ_TOOLS the TrainJob ones.
KINDS = os.environ.get("KINDS", "jaxjob").split()
TOOLS = os.environ.get("TOOLS", "jaxjob python kubectl" + (" training-sdk" if SDK_PY else "")
                       + (" jaxjob-base" if BASELINE else "")).split()
TJ_TOOLS = os.environ.get("TJ_TOOLS", "jaxjob kubectl" + (" trainer-sdk" if SDK_PY else "")
                          + (" jaxjob-base" if BASELINE else "")).split()
TOOLS_OF = {"jaxjob": TOOLS, "trainjob": TJ_TOOLS}
# the kubectl a user of this cluster runs: the stack's own (launch-real.sh sets BENCH_KUBECTL to
# $STACK_KUBE_DIR/bin/kubectl, the version of stack/versions.env), else the one on PATH
KUBECTL = os.environ.get("BENCH_KUBECTL", "kubectl")
UA = {"jaxjob": "jaxjob/", "jaxjob-base": "jaxjob/", "python": "OpenAPI-Generator/", "kubectl": "kubectl",
      "training-sdk": "OpenAPI-Generator/", "trainer-sdk": "OpenAPI-Generator/"}
RESOURCE = {"jaxjob": "jaxjobs", "trainjob": "trainjobs"}
JOB_PATH = {"jaxjob": f"/apis/kubeflow.org/v1/namespaces/{NS}/jaxjobs",
            "trainjob": f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{NS}/trainjobs"}
api = sim_operator.Api() if KC else None


def sim_env(outcome, workers):
    """On the real stack, what the workers do (the kubelet double's SIM_* vocabulary): LINES
    lines over a second; for fail, worker 0 exits 1 and the others hang, streams open
    (SIM_HANG_WORKER names them: SIM_HANG would hang worker 0 too, simscript.worker_script)."""
    if not REAL:
        return {}
    env = {"SIM_LINES": str(LINES), "SIM_DURATION": "1"}
    if outcome != "ok":
        # SIM_HANG would hang every worker, worker 0 too: no verdict ever came
        env.update(SIM_FAIL_WORKER="0", SIM_EXIT="1",
                   SIM_HANG_WORKER=",".join(str(i) for i in range(1, workers)))
    return env


# The TrainJobs' runtime: a TrainingRuntime "jax-distributed" in the namespace, the stack's
# ClusterTrainingRuntime of that name with the node Job's backoffLimit 0 (TJ_BACKOFF_LIMIT).
# With the runtime's own (unset: the Job API's default 6) a failed node is re-created with
# back-off 10 s, 20 s, ... and the TrainJob Fails minutes later. Every tool takes it by name:
# jaxjob --runtime-kind TrainingRuntime, kubectl's runtimeRef.kind, and the SDK's
# get_runtime, which prefers the namespaced runtime of a name. TJ_BACKOFF_LIMIT="" runs the
# stack's ClusterTrainingRuntime as it is.
TJ_BACKOFF_LIMIT = os.environ.get("TJ_BACKOFF_LIMIT", "0")
TJ_RUNTIME_KIND = "TrainingRuntime" if TJ_BACKOFF_LIMIT else "ClusterTrainingRuntime"


def trainjob_runtime():
    if not TJ_BACKOFF_LIMIT:
        return
    crt = api.call("GET", "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/jax-distributed")
    spec = crt["spec"]
    for rj in spec["template"]["spec"]["replicatedJobs"]:
        rj["template"].setdefault("spec", {})["backoffLimit"] = int(TJ_BACKOFF_LIMIT)
    rt = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
          "metadata": {"name": "jax-distributed", "namespace": NS, "labels": crt["metadata"].get("labels", {})},
          "spec": spec}
    path = f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{NS}/trainingruntimes"
    try:
        api.call("DELETE", f"{path}/jax-distributed")
    except RuntimeError:
        pass
    api.call("POST", path, rt)


def manifest(kind, name, workers, env):
    if kind == "trainjob":
        trainer = {"numNodes": workers, "image": "ghcr.io/x/jax:1"}
        if env:
            trainer["env"] = [{"name": k, "value": v} for k, v in env.items()]
        return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                "metadata": {"name": name, "namespace": NS},
                "spec": {"runtimeRef": {"name": "jax-distributed", "kind": TJ_RUNTIME_KIND}, "trainer": trainer}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"jaxReplicaSpecs": {"Worker": {
                "replicas": workers, "restartPolicy": "Never",
                "template": {"spec": {"containers": [{
                    "name": "jax", "image": "ghcr.io/x/jax:1", "command": ["python", "train.py"],
                    "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}}}


def commands(kind, tool, name, workers, outcome):
    """The process(es) a user of this tool would run, in order. A TrainJob carries no command
    (the runtime's image runs; the SDK's CustomTrainerContainer sets none either)."""
    env = sim_env(outcome, workers)
    if tool in ("jaxjob", "jaxjob-base"):
        apiflags = ["--api", "trainjob", "--runtime-kind", TJ_RUNTIME_KIND] if kind == "trainjob" else []
        cmd = [] if kind == "trainjob" else ["--", "python", "train.py"]
        return [[BIN if tool == "jaxjob" else BASELINE, "launch"] + apiflags + ["--kubeconfig", KC, "--name", name,
                 "--image", "ghcr.io/x/jax:1", "--workers", str(workers), "--quiet"]
                + [f"--env={k}={v}" for k, v in env.items()] + cmd]
    if tool == "python":
        return [[PEER_PY, os.path.join(TOP, "bench/peer_python_launch.py"), KC, NS, name, str(workers)]
                + [f"{k}={v}" for k, v in env.items()]]
    if tool in ("training-sdk", "trainer-sdk"):
        peer = "peer_training_sdk.py" if tool == "training-sdk" else "peer_trainer_sdk.py"
        return [[SDK_PY, os.path.join(TOP, "bench", peer), KC, NS, name, str(workers)]
                + [f"{k}={v}" for k, v in env.items()]]
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump(manifest(kind, name, workers, env), f)
    if kind == "trainjob":
        cond = "Complete" if outcome == "ok" else "Failed"
    else:
        cond = "Succeeded" if outcome == "ok" else "Failed"
    return [[KUBECTL, "--kubeconfig", KC, "create", "-f", path],
            [KUBECTL, "--kubeconfig", KC, "wait", f"--for=condition={cond}", f"{kind}/{name}",
             "--timeout=300s"]]


def vmhwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_proc(argv, prefix=None, errfile=None):
    """Run argv; returns (exit code, stdout, peak VmHWM kB, cpu s, t_exit)."""
    argv = (prefix or []) + argv
    # the SDK peers print unbuffered: a peer killed at TOOL_TIMEOUT_S is counted with every
    # line it printed (a block-buffered pipe would lose up to 8 kB of them to the bench's kill)
    env = dict(os.environ, PYTHONUNBUFFERED="1") if SDK_PY and SDK_PY in argv else None
    err = open(errfile, "ab") if errfile else subprocess.DEVNULL
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env)
    if errfile:
        err.close()
    out = []

    def count():
        for chunk in iter(lambda: p.stdout.read(65536), b""):
            out.append(chunk)
    t = threading.Thread(target=count)
    t.start()
    # The exit is taken by a blocking wait4 (its moment exact); the peak RSS
    # (VmHWM) is sampled from /proc on another thread every 5 ms, starting
    # 50 ms after the spawn, so that no read (each takes the process's
    # memory-map lock, which its page faults need) can land in the start;
    # the effect on start->create was not measurable either way (8.3-8.8 ms
    # sampling from the spawn, 8.2-8.6 not sampling). wait4's ru_maxrss
    # cannot stand in: it counts the forked Python's 21 MB from before the exec.
    hwm = [0]
    done = threading.Event()

    def sample():
        done.wait(0.05)
        while not done.is_set():
            hwm[0] = max(hwm[0], vmhwm(p.pid))
            done.wait(0.005)
    s = threading.Thread(target=sample)
    s.start()
    # a tool that never ends (an SDK following a survivor's stream that never closes) is
    # killed after TOOL_TIMEOUT_S and reported with exit code "kill"
    killer = threading.Timer(TOOL_TIMEOUT_S, lambda: p.kill())
    killer.start()
    pid, status, ru = os.wait4(p.pid, 0)
    killer.cancel()
    t_exit = time.time()
    done.set()
    s.join()
    hwm = hwm[0]
    t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode == -9:
        p.returncode = "kill"
    return p.returncode, b"".join(out), hwm, ru.ru_utime + ru.ru_stime, t_exit


# What each worker printed, told from the lines' own words (the kubelet double's simulated
# worker: tests/kube-apiserver/simscript.py worker_script), whatever prefix the tool adds:
# "worker I of N connecting" begins a run of the container (a TrainJob's pods restart in place:
# JobSet defaults restartPolicy OnFailure), then "step S/L loss=... worker=I", then "worker I
# finished" / "worker I failed with exit code C"; a survivor of fail prints "worker I waiting
# for the coordinator (SIM_HANG)" and no steps.
START = re.compile(rb"worker (\d+) of \d+ connecting")
STEP = re.compile(rb"step (\d+)/\d+ loss=\S+ worker=(\d+)")
END = re.compile(rb"worker (\d+) (finished|failed with exit code|waiting for the coordinator)")


def worker_lines(out, workers, outcome):
    """(workers whose first run's every line was printed, step lines printed twice or more
    within one run of a container)."""
    run, seen, ends, dups = {}, {}, set(), 0
    for line in out.splitlines():
        m = START.search(line)
        if m:
            run[int(m.group(1))] = run.get(int(m.group(1)), 0) + 1
            continue
        m = STEP.search(line)
        if m:
            i = int(m.group(2))
            key = (i, run.get(i, 1), int(m.group(1)))
            seen[key] = seen.get(key, 0) + 1
            dups += seen[key] == 2
            continue
        m = END.search(line)
        if m and run.get(int(m.group(1)), 1) == 1:
            ends.add(int(m.group(1)))
    complete = 0
    for i in range(workers):
        # ok: every step and the end; fail: worker 0's steps and its failure line, a
        # survivor's "waiting" line (it prints no steps)
        steps = LINES if outcome == "ok" or i == 0 else 0
        if i in ends and all((i, 1, k) in seen for k in range(1, steps + 1)):
            complete += 1
    return complete, dups


def stamp(t):
    ts = datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ")
    return ts.replace(tzinfo=datetime.timezone.utc).timestamp()


def audit_entries(since_pos):
    out = []
    with open(AUDIT) as f:
        f.seek(since_pos)
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("stage") != "ResponseComplete":
                continue
            e["_t"] = stamp(e["requestReceivedTimestamp"])
            e["_done"] = stamp(e["stageTimestamp"])
            out.append(e)
    return out


TERMINAL = {"jaxjob": ("Succeeded", "Failed"), "trainjob": ("Complete", "Failed")}


class Observer(threading.Thread):
    """On the real stack: a watch of the job (its own connection, open before the tool starts)
    that notes when a terminal condition is first seen. The verdict is the controller's last
    status write received before that moment: a controller can write the status again after
    its verdict (the audit log is at level Metadata, so the write's content is not there)."""

    def __init__(self, kind, name):
        super().__init__(daemon=True)
        self.kind, self.name, self.seen, self.conn = kind, name, None, None
        self.open = threading.Event()

    def run(self):
        import http.client
        import urllib.parse
        try:
            c = self.conn = http.client.HTTPSConnection(api.host, api.port, context=api.ctx,
                                                        timeout=TOOL_TIMEOUT_S + 120)
            sel = urllib.parse.quote(f"metadata.name={self.name}")
            c.request("GET", f"{JOB_PATH[self.kind]}?watch=1&fieldSelector={sel}",
                      headers={"Authorization": "Bearer " + api.token, "User-Agent": sim_operator.UA})
            r = c.getresponse()
            self.open.set()
            while r.status == 200:
                line = r.readline()
                if not line:
                    return
                obj = json.loads(line).get("object") or {}
                for cnd in (obj.get("status") or {}).get("conditions") or []:
                    if cnd.get("type") in TERMINAL[self.kind] and cnd.get("status") == "True":
                        self.seen = time.time()
                        return
        except (OSError, ValueError):
            pass
        finally:
            self.open.set()

    def stop(self):
        try:
            self.conn.sock.shutdown(2)
        except (AttributeError, OSError):
            pass


def one_run(kind, tool, name, workers, outcome, strace=False):
    pos = os.path.getsize(AUDIT)
    res = RESOURCE[kind]
    op = None if REAL else subprocess.Popen([sys.executable, os.path.join(TOP, "bench/sim_operator.py"), NS, name,
                           str(workers), "--lines", str(LINES), "--outcome",
                           "Succeeded" if outcome == "ok" else "Failed", "--run-s", "1.0",
                           "--verdict-delay-s", VERDICT_DELAY_S,
                           "--ready-file", os.path.join(WORK, name + ".ready")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the operator's watch is open (and its start-up CPU spent) before the tool starts
    for _ in range(0 if REAL else 3000):
        if os.path.exists(os.path.join(WORK, name + ".ready")) or op.poll() is not None:
            break
        time.sleep(0.01)
    obs = None
    if REAL:
        obs = Observer(kind, name)
        obs.start()
        obs.open.wait(30)
    time.sleep(0.1)
    r = {"kind": kind, "tool": tool, "workers": workers, "outcome": outcome, "name": name}
    t0 = time.time()
    rc, out, hwm, cpu = 0, b"", 0, 0.0
    conns = 0
    for i, argv in enumerate(commands(kind, tool, name, workers, outcome)):
        trace = os.path.join(WORK, f"{name}.{i}.strace")
        prefix = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", trace] if strace else None
        rc, o, h, c, t_exit = run_proc(argv, prefix, os.path.join(WORK, name + ".err"))
        out += o
        hwm = max(hwm, h)
        cpu += c
        if strace:
            with open(trace) as f:
                conns += sum(1 for l in f if f"htons({PORT})" in l)
        if rc:
            break
    complete, dups = worker_lines(out, workers, outcome)
    r.update(rc=rc, lines=out.count(b"\n"), complete=complete, dups=dups, rss_mb=hwm / 1024, cpu_ms=cpu * 1000)
    with open(os.path.join(WORK, name + ".out"), "wb") as f:
        f.write(out)
    if op:
        opout, operr = op.communicate(timeout=600)
        if op.returncode:
            raise SystemExit(f"sim_operator failed for {name}: {operr.decode()[-500:]}")
        r["decided_to_exit_ms"] = (t_exit - json.loads(opout)["decided"]) * 1000
    if obs:
        obs.join(1.0)   # a verdict the tool saw is one the observer saw too
        obs.stop()
    time.sleep(0.3)     # the audit log is written asynchronously
    ents = audit_entries(pos)
    create = [e for e in ents if e["verb"] == "create" and e.get("objectRef", {}).get("resource") == res
              and e["objectRef"].get("name") == name]
    r["start_to_create_ms"] = (create[0]["_t"] - t0) * 1000 if create else None
    # the tool's own requests, by user agent (the operator, the controller
    # manager and the other tools share the admin user)
    mine = [e for e in ents if t0 <= e["_t"] <= t_exit + 0.05 and e.get("userAgent", "").startswith(UA[tool])]
    r["requests"] = len(mine)
    kinds = {}
    for e in mine:
        uri = e["requestURI"]
        k = "log" if "/log" in uri else "watch" if e["verb"] == "watch" else e["verb"]
        kinds[k] = kinds.get(k, 0) + 1
    r["kinds"] = kinds
    # answers of 500 and up to the tool (a cancelled log read is one: issue 21)
    r["errors_5xx"] = sum(1 for e in mine if e.get("responseStatus", {}).get("code", 0) >= 500)
    # The verdict's write, as the server saw it: the operator's last status
    # PATCH of the job. written->exit is decided->exit without the server's
    # own part (the PATCH's handling up to its answer, the same for every
    # tool; the watch event can leave a few ms before the answer is logged,
    # so a fast tool's figure can be below 0); "after" counts the tool's
    # requests the server received once it had the PATCH (what the tool
    # still asked after it was decided: none can be asked before).
    # On the real stack the verdict is the operator's last write of the job's status before the
    # tool exited (the training operator updates jaxjobs/status; the tools never do).
    verdict = [e for e in ents if e["verb"] in ("patch", "update")
               and (e.get("userAgent", "").startswith(sim_operator.UA) if not REAL else
                    not any(e.get("userAgent", "").startswith(u) for u in UA.values()))
               and e.get("objectRef", {}).get("resource") == res
               and e["objectRef"].get("subresource") == "status" and e["objectRef"].get("name") == name
               and e["_t"] <= (obs.seen if obs and obs.seen else t_exit)]
    if verdict:
        written = verdict[-1]["_done"]
        if REAL:
            r["decided_to_exit_ms"] = (t_exit - verdict[-1]["_t"]) * 1000
        r["written_to_exit_ms"] = (t_exit - written) * 1000
        if rc == "kill":   # it never ended: killed at TOOL_TIMEOUT_S, no exit time to report
            r["killed_after_verdict_s"] = r.pop("decided_to_exit_ms") / 1000
            r.pop("written_to_exit_ms")
        after = [e for e in mine if e["_t"] >= verdict[-1]["_t"]]
        r["after_verdict"] = len(after)
        r["after_kinds"] = sorted({("log" if "/log" in e["requestURI"] else e["verb"]) for e in after})
    if strace:
        r["connections"] = conns
    # the job goes, its pods with it (garbage collector), before the next run
    try:
        api.call("DELETE", f"{JOB_PATH[kind]}/{name}?propagationPolicy=Background")
    except RuntimeError:
        pass
    settle(kind, name)
    return r


def settle(kind, name):
    """Until the job's pods are gone (QUIET_S, default 10 s at most), then QUIET_S_AFTER (0.5 s):
    the garbage collector, the kubelet and the operator acting on the deletion would otherwise
    share the cores with the next tool's start, which hurts the tool whose start is shortest
    most (bench/README.md, "where start -> create goes", 2026-11-29)."""
    label = "jobset.sigs.k8s.io/jobset-name" if kind == "trainjob" else "training.kubeflow.org/job-name"
    sel = urllib.parse.quote(f"{label}={name}")
    end = time.time() + float(os.environ.get("QUIET_S", "10"))
    while time.time() < end:
        try:
            if not api.call("GET", f"/api/v1/namespaces/{NS}/pods?labelSelector={sel}").get("items"):
                break
        except RuntimeError:
            break
        time.sleep(0.05)
    time.sleep(float(os.environ.get("QUIET_S_AFTER", "0.5")))


def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = statistics.median(xs)
    f = (lambda v: f"{v:.0f}") if m >= 100 else (lambda v: f"{v:.1f}")
    return f"{f(m)} [{f(min(xs))}-{f(max(xs))}]" if len(xs) > 1 else f(m)


def main():
    if "trainjob" in KINDS:
        trainjob_runtime()
    runs = []
    uniq = f"{random.randrange(1 << 20):05x}"
    for w in SIZES:
        rounds = ROUNDS256 if w >= 256 else ROUNDS
        for rnd in range(rounds):
            for kind in KINDS:
                tools = TOOLS_OF[kind]
                order = tools[rnd % len(tools):] + tools[:rnd % len(tools)]
                for outcome in OUTCOMES:
                    for tool in order:
                        name = f"b{uniq}-{kind[0]}{tool[:2]}{tool[-1]}-{outcome}-{w}-{rnd}"
                        r = one_run(kind, tool, name, w, outcome)
                        runs.append(r)
                        print(f"# {json.dumps(r)}", file=sys.stderr, flush=True)
        if os.environ.get("CONNECTIONS", "1") == "1":
            for kind in KINDS:
                for tool in TOOLS_OF[kind]:     # connections: one traced run (not timed)
                    r = one_run(kind, tool, f"b{uniq}-{kind[0]}{tool[:2]}{tool[-1]}-conn-{w}", w, "ok", strace=True)
                    r["traced"] = True
                    runs.append(r)
                    print(f"# {json.dumps(r)}", file=sys.stderr, flush=True)
    with open(os.path.join(WORK, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)
    report(runs)


FIGURES = (("start_to_create_ms", "start->create"), ("decided_to_exit_ms", "decided->exit"),
           ("written_to_exit_ms", "written->exit"), ("requests", "requests"),
           ("after_verdict", "after the verdict"), ("rss_mb", "RSS"), ("cpu_ms", "CPU"), ("lines", "lines"))


def report(runs):
    """The markdown table (medians [min-max]) and the ratios peer/jaxjob of each figure."""
    def sel(kind, tool, w, outcome):
        return [r for r in runs if r.get("kind", "jaxjob") == kind and r["tool"] == tool and r["workers"] == w
                and r["outcome"] == outcome and not r.get("traced")]

    def conn(kind, tool, w):
        c = [r["connections"] for r in runs if r.get("kind", "jaxjob") == kind and r["tool"] == tool
             and r["workers"] == w and r.get("traced")]
        return str(c[0]) if c else "-"

    kinds = sorted({r.get("kind", "jaxjob") for r in runs}, key=lambda k: list(RESOURCE).index(k))
    sizes = sorted({r["workers"] for r in runs})
    tools_of = {}
    for k in kinds:
        present = {r["tool"] for r in runs if r.get("kind", "jaxjob") == k}
        tools_of[k] = [t for t in TOOLS_OF.get(k, []) if t in present] + sorted(present - set(TOOLS_OF.get(k, [])))
    print("| kind | workers | outcome | tool | exit codes | start->create ms | decided->exit ms | written->exit ms | "
          "requests | after the verdict | 5xx | connections | peak RSS MB | CPU ms | log lines | "
          "workers with every line | lines twice |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in kinds:
        for w in sizes:
            for outcome in OUTCOMES:
                for tool in tools_of[kind]:
                    rs = sel(kind, tool, w, outcome)
                    if not rs:
                        continue
                    codes = ",".join(f"{c}x{sum(1 for r in rs if str(r['rc']) == c)}" if len(rs) > 1 else c
                                     for c in sorted({str(r["rc"]) for r in rs}))
                    kill = [r["killed_after_verdict_s"] for r in rs if "killed_after_verdict_s" in r]
                    dte = med([r.get("decided_to_exit_ms") for r in rs])
                    if kill:
                        dte += f"; {len(kill)} killed {min(kill):.0f}-{max(kill):.0f} s after it"
                    comp = [r.get("complete") for r in rs if r.get("complete") is not None]
                    print(f"| {kind} | {w} | {outcome} | {tool} | {codes} | {med([r['start_to_create_ms'] for r in rs])} | "
                          f"{dte} | {med([r.get('written_to_exit_ms') for r in rs])} | "
                          f"{med([r['requests'] for r in rs])} | {med([r.get('after_verdict') for r in rs])} | "
                          f"{sum(r.get('errors_5xx', 0) for r in rs)} | "
                          f"{conn(kind, tool, w) if outcome == 'ok' else '-'} | {med([r['rss_mb'] for r in rs])} | "
                          f"{med([r['cpu_ms'] for r in rs])} | {med([r['lines'] for r in rs])} | "
                          f"{min(comp) if comp else '-'}-{max(comp) if comp else '-'}/{w} | "
                          f"{sum(r.get('dups', 0) for r in rs)} |")
    print()
    print("ratios (peer median / jaxjob median, the same runs):")
    for kind in kinds:
        for w in sizes:
            for outcome in OUTCOMES:
                j = sel(kind, "jaxjob", w, outcome)
                for peer in [t for t in tools_of[kind] if t != "jaxjob"]:
                    p = sel(kind, peer, w, outcome)
                    if not j or not p:
                        continue
                    parts = []
                    for key, label in FIGURES:
                        a = [r[key] for r in j if r.get(key) is not None]
                        b = [r[key] for r in p if r.get(key) is not None]
                        if a and b and statistics.median(a) > 0:
                            parts.append(f"{label} {statistics.median(b) / statistics.median(a):.1f}x")
                        elif b and not a:
                            parts.append(f"{label} -")
                    if any("killed_after_verdict_s" in r for r in p):
                        parts.append(f"killed {sum(1 for r in p if 'killed_after_verdict_s' in r)}/{len(p)}")
                    print(f"- {kind}, {w} workers, {outcome}, {peer}: " + ", ".join(parts))


if __name__ == "__main__":
    if len(sys.argv) > 5:   # launch_real.py BIN PEER_PY TOP WORK runs.json...: the report of earlier runs
        report([r for path in sys.argv[5:] for r in json.load(open(path))])
    else:
        main()
