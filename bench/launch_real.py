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
KC = os.environ["KCP_KUBECONFIG"]
AUDIT = os.environ["KCP_AUDIT_LOG"]
PORT = os.environ["APISERVER_PORT"]
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
TOOLS = os.environ.get("TOOLS", "jaxjob python kubectl" + (" training-sdk" if SDK_PY else "")
                       + (" jaxjob-base" if BASELINE else "")).split()
UA = {"jaxjob": "jaxjob/", "jaxjob-base": "jaxjob/", "python": "OpenAPI-Generator/", "kubectl": "kubectl",
      "training-sdk": "OpenAPI-Generator/"}
api = sim_operator.Api()


def sim_env(outcome, workers):
    """On the real stack, what the workers do (the kubelet double's SIM_* vocabulary): LINES
    lines over a second; for fail, worker 0 exits 1 and the others hang, streams open."""
    if not REAL:
        return {}
    env = {"SIM_LINES": str(LINES), "SIM_DURATION": "1"}
    if outcome != "ok":
        # SIM_HANG would hang every worker, worker 0 too: no verdict ever came
        env.update(SIM_FAIL_WORKER="0", SIM_EXIT="1",
                   SIM_HANG_WORKER=",".join(str(i) for i in range(1, workers)))
    return env


def manifest(name, workers, env):
    return {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"jaxReplicaSpecs": {"Worker": {
                "replicas": workers, "restartPolicy": "Never",
                "template": {"spec": {"containers": [{
                    "name": "jax", "image": "ghcr.io/x/jax:1", "command": ["python", "train.py"],
                    "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}}}


def commands(tool, name, workers, outcome):
    """The process(es) a user of this tool would run, in order."""
    env = sim_env(outcome, workers)
    if tool in ("jaxjob", "jaxjob-base"):
        return [[BIN if tool == "jaxjob" else BASELINE, "launch", "--kubeconfig", KC, "--name", name, "--image", "ghcr.io/x/jax:1",
                 "--workers", str(workers), "--quiet"] + [f"--env={k}={v}" for k, v in env.items()]
                + ["--", "python", "train.py"]]
    if tool == "python":
        return [[PEER_PY, os.path.join(TOP, "bench/peer_python_launch.py"), KC, NS, name, str(workers)]
                + [f"{k}={v}" for k, v in env.items()]]
    if tool == "training-sdk":
        return [[SDK_PY, os.path.join(TOP, "bench/peer_training_sdk.py"), KC, NS, name, str(workers)]
                + [f"{k}={v}" for k, v in env.items()]]
    path = os.path.join(WORK, name + ".json")
    with open(path, "w") as f:
        json.dump(manifest(name, workers, env), f)
    cond = "Succeeded" if outcome == "ok" else "Failed"
    return [["kubectl", "--kubeconfig", KC, "create", "-f", path],
            ["kubectl", "--kubeconfig", KC, "wait", f"--for=condition={cond}", f"jaxjob/{name}",
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


def run_proc(argv, prefix=None):
    """Run argv; returns (exit code, stdout lines, peak VmHWM kB, cpu s, t_exit)."""
    argv = (prefix or []) + argv
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = [0]

    def count():
        for chunk in iter(lambda: p.stdout.read(65536), b""):
            lines[0] += chunk.count(b"\n")
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
    return p.returncode, lines[0], hwm, ru.ru_utime + ru.ru_stime, t_exit


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


def one_run(tool, name, workers, outcome, strace=False):
    pos = os.path.getsize(AUDIT)
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
    time.sleep(0.1)
    r = {"tool": tool, "workers": workers, "outcome": outcome, "name": name}
    t0 = time.time()
    rc, lines, hwm, cpu = 0, 0, 0, 0.0
    conns = 0
    for i, argv in enumerate(commands(tool, name, workers, outcome)):
        trace = os.path.join(WORK, f"{name}.{i}.strace")
        prefix = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", trace] if strace else None
        rc, n, h, c, t_exit = run_proc(argv, prefix)
        lines += n
        hwm = max(hwm, h)
        cpu += c
        if strace:
            with open(trace) as f:
                conns += sum(1 for l in f if f"htons({PORT})" in l)
        if rc:
            break
    r.update(rc=rc, lines=lines, rss_mb=hwm / 1024, cpu_ms=cpu * 1000)
    if op:
        opout, operr = op.communicate(timeout=600)
        if op.returncode:
            raise SystemExit(f"sim_operator failed for {name}: {operr.decode()[-500:]}")
        r["decided_to_exit_ms"] = (t_exit - json.loads(opout)["decided"]) * 1000
    time.sleep(0.3)     # the audit log is written asynchronously
    ents = audit_entries(pos)
    create = [e for e in ents if e["verb"] == "create" and e.get("objectRef", {}).get("resource") == "jaxjobs"
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
               and e.get("objectRef", {}).get("resource") == "jaxjobs"
               and e["objectRef"].get("subresource") == "status" and e["objectRef"].get("name") == name
               and e["_t"] <= t_exit]
    if verdict:
        written = verdict[-1]["_done"]
        if REAL:
            r["decided_to_exit_ms"] = (t_exit - verdict[-1]["_t"]) * 1000
        r["written_to_exit_ms"] = (t_exit - written) * 1000
        after = [e for e in mine if e["_t"] >= verdict[-1]["_t"]]
        r["after_verdict"] = len(after)
        r["after_kinds"] = sorted({("log" if "/log" in e["requestURI"] else e["verb"]) for e in after})
    if strace:
        r["connections"] = conns
    # the job goes, its pods with it (garbage collector), before the next run
    try:
        api.call("DELETE", f"/apis/kubeflow.org/v1/namespaces/{NS}/jaxjobs/{name}?propagationPolicy=Background")
    except RuntimeError:
        pass
    settle(name)
    return r


def settle(name):
    """Until the job's pods are gone (QUIET_S, default 10 s at most), then QUIET_S_AFTER (0.5 s):
    the garbage collector, the kubelet and the operator acting on the deletion would otherwise
    share the cores with the next tool's start, which hurts the tool whose start is shortest
    most (bench/README.md, "where start -> create goes", 2026-11-29)."""
    sel = urllib.parse.quote(f"training.kubeflow.org/job-name={name}")
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
    runs = []
    uniq = f"{random.randrange(1 << 20):05x}"
    for w in SIZES:
        rounds = ROUNDS256 if w >= 256 else ROUNDS
        for rnd in range(rounds):
            order = TOOLS[rnd % len(TOOLS):] + TOOLS[:rnd % len(TOOLS)]
            for outcome in OUTCOMES:
                for tool in order:
                    name = f"b{uniq}-{tool[:2]}{tool[-1]}-{outcome}-{w}-{rnd}"
                    r = one_run(tool, name, w, outcome)
                    runs.append(r)
                    print(f"# {json.dumps(r)}", file=sys.stderr, flush=True)
        for tool in TOOLS:     # connections: one traced run (not timed)
            r = one_run(tool, f"b{uniq}-{tool[:2]}{tool[-1]}-conn-{w}", w, "ok", strace=True)
            r["traced"] = True
            runs.append(r)
            print(f"# {json.dumps(r)}", file=sys.stderr, flush=True)
    with open(os.path.join(WORK, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)

    def sel(tool, w, outcome):
        return [r for r in runs if r["tool"] == tool and r["workers"] == w and r["outcome"] == outcome
                and not r.get("traced")]

    def conn(tool, w):
        c = [r["connections"] for r in runs if r["tool"] == tool and r["workers"] == w and r.get("traced")]
        return str(c[0]) if c else "-"

    print("| workers | outcome | tool | exit codes | start->create ms | decided->exit ms | written->exit ms | "
          "requests | after the verdict | 5xx | connections | peak RSS MB | CPU ms | log lines |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for w in SIZES:
        for outcome in OUTCOMES:
            for tool in TOOLS:
                rs = sel(tool, w, outcome)
                if not rs:
                    continue
                codes = ",".join(sorted({str(r["rc"]) for r in rs}))
                print(f"| {w} | {outcome} | {tool} | {codes} | {med([r['start_to_create_ms'] for r in rs])} | "
                      f"{med([r.get('decided_to_exit_ms') for r in rs])} | {med([r.get('written_to_exit_ms') for r in rs])} | "
                      f"{med([r['requests'] for r in rs])} | {med([r.get('after_verdict') for r in rs])} | "
                      f"{sum(r.get('errors_5xx', 0) for r in rs)} | "
                      f"{conn(tool, w) if outcome == 'ok' else '-'} | {med([r['rss_mb'] for r in rs])} | "
                      f"{med([r['cpu_ms'] for r in rs])} | {med([r['lines'] for r in rs])} |")
    print()
    print("ratios (peer median / jaxjob median):")
    for w in SIZES:
        for outcome in OUTCOMES:
            j = sel("jaxjob", w, outcome)
            for peer in [t for t in TOOLS if t != "jaxjob"]:
                p = sel(peer, w, outcome)
                if not j or not p:
                    continue
                parts = []
                for key, label in (("start_to_create_ms", "start->create"), ("decided_to_exit_ms", "decided->exit"),
                                   ("written_to_exit_ms", "written->exit"),
                                   ("rss_mb", "RSS"), ("cpu_ms", "CPU")):
                    a = [r[key] for r in j if r.get(key) is not None]
                    b = [r[key] for r in p if r.get(key) is not None]
                    if a and b and statistics.median(a) > 0:
                        parts.append(f"{label} {statistics.median(b) / statistics.median(a):.1f}x")
                print(f"- {w} workers, {outcome}, {peer}: " + ", ".join(parts))


if __name__ == "__main__":
    main()
