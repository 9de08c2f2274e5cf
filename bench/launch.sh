#!/usr/bin/env bash
# bench/launch.sh [BINARY] - `jaxjob launch` against the Kubernetes API test
# server, side by side with bench/peer_python_launch.py (the same
# create-and-wait through the official Python client, Debian's
# python3-kubernetes), in the same run:
#
#   start -> create   process start to the job's POST arriving at the server
#                     (the server's request log time minus the spawn time)
#   Succeeded -> exit the operator is switched off and the bench itself marks
#                     the job Succeeded (PATCH .../status); time from sending
#                     that PATCH to the process having exited
#   peak RSS          VmHWM of a run that follows 16 workers' logs (16 x 202
#                     lines), and the peak of its anonymous part (RssAnon:
#                     heap and stacks, without the shared libraries' pages)
#   requests          API requests the tool made over one job (server request
#                     log), for a 16-worker job lasting JOB_S seconds (default 30)
#
# RUNS (default 5) repetitions for the two latencies; the table gives median
# and best. Release build recommended (make), not the sanitizer build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
RUNS=${RUNS:-5}
JOB_S=${JOB_S:-30}
PEER_PY=${PEER_PY:-/usr/bin/python3}
W=$(mktemp -d /tmp/jaxjob-bench-launch.XXXXXX)
trap '"$top/tests/kube-apiserver/stop.sh" "$W/ks" >/dev/null 2>&1; rm -rf "$W"' EXIT

if ! "$PEER_PY" -c 'import kubernetes' 2>/dev/null; then
	echo "bench/launch.sh: $PEER_PY has no kubernetes module (apt-get install python3-kubernetes)" >&2
	exit 1
fi
"$top/tests/kube-apiserver/start.sh" "$W/ks"

python3 - "$BIN" "$PEER_PY" "$top/bench/peer_python_launch.py" "$W/ks" "$RUNS" "$JOB_S" <<'PY'
import json, os, ssl, statistics, subprocess, sys, time, urllib.request

BIN, PEER_PY, PEER, KS, RUNS, JOB_S = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6])
KC = KS + "/kubeconfig"
NS = "team-a"
CTX = ssl.create_default_context(cafile=KS + "/ca.pem")
URL = open(KS + "/url").read().strip()
TOKEN = open(KS + "/admin.token").read().strip()
DEVNULL = subprocess.DEVNULL


def ctl(method, path, body=None, ctype="application/json"):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(URL + path, data=data, method=method,
                                 headers={"Authorization": "Bearer " + TOKEN, "Content-Type": ctype})
    with urllib.request.urlopen(req, context=CTX, timeout=30) as r:
        return json.loads(r.read() or b"null")


def mark():
    return ctl("GET", "/_test/state")["requests"]


def requests_since(n):
    return ctl("GET", f"/_test/requests?since={n}")


def cmd(tool, name, workers, env):
    if tool == "jaxjob":
        c = [BIN, "launch", "--kubeconfig", KC, "--name", name, "--image", "ghcr.io/x/jax:1",
             "--workers", str(workers), "--quiet"]
        for k, v in env.items():
            c += ["--env", f"{k}={v}"]
        return c + ["--", "python", "train.py"]
    return [PEER_PY, PEER, KC, NS, name, str(workers)] + [f"{k}={v}" for k, v in env.items()]


def spawn(tool, name, workers, env, stdout=DEVNULL):
    t0 = time.time()
    p = subprocess.Popen(cmd(tool, name, workers, env), stdout=stdout, stderr=DEVNULL)
    return p, t0


def reap(p):
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.time(), ru


def start_to_create(tool, i):
    m = mark()
    p, t0 = spawn(tool, f"sc-{tool[:2]}-{i}", 1, {"SIM_LINES": "1", "SIM_DURATION": "0.2"})
    reap(p)
    posts = [r for r in requests_since(m) if r["method"] == "POST" and r["path"].endswith("/jaxjobs")]
    return (posts[0]["time"] - t0) * 1000


def succeeded_to_exit(tool, i):
    name = f"se-{tool[:2]}-{i}"
    ctl("POST", "/_test/config", {"operator": False})
    try:
        p, _ = spawn(tool, name, 1, {})
        path = f"/apis/kubeflow.org/v1/namespaces/{NS}/jaxjobs/{name}"
        for _ in range(400):
            if any(j["name"] == name for j in ctl("GET", "/_test/state")["jaxjobs"]):
                break
            time.sleep(0.025)
        time.sleep(1.0)  # let the tool settle into its watch
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        t_s = time.time()
        ctl("PATCH", path + "/status", {"status": {"startTime": now, "completionTime": now, "conditions": [
            {"type": "Created", "status": "True", "reason": "JAXJobCreated", "message": "created"},
            {"type": "Succeeded", "status": "True", "reason": "JAXJobSucceeded", "message": "done"}]}},
            "application/merge-patch+json")
        t_e, _ = reap(p)
        assert p.returncode == 0, (tool, p.returncode)
        return (t_e - t_s) * 1000
    finally:
        ctl("POST", "/_test/config", {"operator": True})


def proc_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_16(tool):
    """Peak RSS (VmHWM) and peak anonymous memory (RssAnon), sampled from
    /proc every 10 ms. (wait4's ru_maxrss would count the forked Python
    driver before exec.)"""
    r, w = os.pipe()
    p, _ = spawn(tool, f"rss-{tool[:2]}", 16, {"SIM_LINES": "200", "SIM_DURATION": "5"}, stdout=w)
    os.close(w)
    os.set_blocking(r, False)
    lines, hwm, anon, rest = 0, 0, 0, b""
    while True:
        hwm = max(hwm, proc_kb(p.pid, "VmHWM"))
        anon = max(anon, proc_kb(p.pid, "RssAnon"))
        try:
            chunk = os.read(r, 65536)
        except BlockingIOError:
            chunk = None
        if chunk == b"":
            break
        if chunk:
            lines += chunk.count(b"\n")
        else:
            time.sleep(0.01)
    os.close(r)
    reap(p)
    return hwm / 1024.0, anon / 1024.0, lines, p.returncode


def requests_over_job(tool):
    m = mark()
    p, _ = spawn(tool, f"rq-{tool[:2]}", 16, {"SIM_LINES": "10", "SIM_DURATION": str(JOB_S)})
    reap(p)
    reqs = [r for r in requests_since(m) if r["user"] == "admin"]
    kinds = {}
    for r in reqs:
        if r["path"].endswith("/log"):
            k = "log follow"
        elif r["watch"]:
            k = "watch"
        elif r["method"] == "GET" and "/_test" not in r["path"]:
            k = "get/list"
        else:
            k = r["method"].lower()
        kinds[k] = kinds.get(k, 0) + 1
    return len(reqs), kinds, p.returncode


def fmt(xs):
    return f"{statistics.median(xs):.1f}", f"{min(xs):.1f}"


rows = {}
for tool in ("jaxjob", "python"):
    sc = [start_to_create(tool, i) for i in range(RUNS)]
    se = [succeeded_to_exit(tool, i) for i in range(RUNS)]
    rss, anon, lines, rc = rss_16(tool)
    assert rc == 0 and (lines >= 16 * 202 or tool != "jaxjob"), (tool, rc, lines)
    n, kinds, rc = requests_over_job(tool)
    assert rc == 0, (tool, rc)
    rows[tool] = (sc, se, rss, lines, n, kinds, anon)
    print(f"# {tool}: start->create {fmt(sc)} ms, Succeeded->exit {fmt(se)} ms, "
          f"peak RSS {rss:.1f} MB, anonymous {anon:.1f} MB ({lines} log lines), {n} requests {kinds}",
          file=sys.stderr)

j, p = rows["jaxjob"], rows["python"]
print(f"| measure | jaxjob launch (median / best) | Python client peer (median / best) | ratio (peer / jaxjob, medians) |")
print("|---|---|---|---|")
print(f"| process start -> create request (ms) | {' / '.join(fmt(j[0]))} | {' / '.join(fmt(p[0]))} | "
      f"{statistics.median(p[0]) / statistics.median(j[0]):.0f}x |")
print(f"| Succeeded -> process exit (ms) | {' / '.join(fmt(j[1]))} | {' / '.join(fmt(p[1]))} | "
      f"{statistics.median(p[1]) / max(0.001, statistics.median(j[1])):.1f}x |")
print(f"| peak RSS following 16 workers' logs (MB) | {j[2]:.1f} | {p[2]:.1f} | {p[2] / j[2]:.1f}x |")
print(f"| ... of which anonymous (heap, stacks; MB) | {j[6]:.1f} | {p[6]:.1f} | {p[6] / j[6]:.1f}x |")
print(f"| API requests over a {JOB_S:.0f} s 16-worker job | {j[4]} {json.dumps(j[5], sort_keys=True)} | "
      f"{p[4]} {json.dumps(p[5], sort_keys=True)} | {p[4] / j[4]:.1f}x |")
PY
