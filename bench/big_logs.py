#!/usr/bin/python3
"""The driver of bench/big-logs.sh (read its header).

    big_logs.py BINARY KS_DIR WORKDIR
"""
import os
import re
import statistics
import subprocess
import sys
import threading
import time

BIN, KS, WORK = sys.argv[1:4]
SIZES = [int(s) for s in os.environ.get("SIZES", "2 256 1000").split()]
LINES = int(os.environ.get("LINES", "5"))
DURATION = float(os.environ.get("DURATION", "20"))
# all: --logs all; turn: --logs all --log-turn TURN; set: --log-workers 0-63
MODES = os.environ.get("MODES", "all turn set").split()
TURN = os.environ.get("TURN", "5s")
WORKER = re.compile(rb"^\[worker-(\d+)\] ")


def run(name, workers, extra):
    argv = ["/usr/bin/time", "-o", os.path.join(WORK, name + ".time"), "-f", "%M",
            BIN, "launch", "--kubeconfig", os.path.join(KS, "kubeconfig"), "--name", name,
            "--image", "x/jax:1", "--workers", str(workers), "--env", f"SIM_LINES={LINES}",
            "--env", f"SIM_DURATION={DURATION}", "--env", "SIM_STARTUP=0.3",
            "--delete-after", "always", "--log-drain", "120s", "--timeout", "30m",
            "--out-summary", os.path.join(WORK, name + ".summary")] + extra
    t0 = time.monotonic()
    p = subprocess.Popen(argv + ["--", "python", "t.py"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first, count, decided = {}, {}, [None]

    def out():
        for line in p.stdout:
            m = WORKER.match(line)
            if m:
                i = int(m.group(1))
                first.setdefault(i, time.monotonic() - t0)
                count[i] = count.get(i, 0) + 1

    def err():
        for line in p.stderr:
            if decided[0] is None and re.search(rb"\) (Succeeded|Failed): ", line):
                decided[0] = time.monotonic() - t0
    ts = [threading.Thread(target=out), threading.Thread(target=err)]
    for t in ts:
        t.start()
    rc = p.wait()
    for t in ts:
        t.join()
    with open(os.path.join(WORK, name + ".time")) as f:
        rss_kb = int(f.read().split()[-1])
    # what the launch read: its summary counts the requests it sent and the bytes it got
    # (a turn that resumes with sinceTime reads less of a long log than one from the start)
    traffic = "-"
    try:
        with open(os.path.join(WORK, name + ".summary")) as f:
            m = re.search(r"\| API traffic \| (\d+) requests, (\d+) bytes received \|", f.read())
        if m:
            traffic = f"{m.group(1)} / {int(m.group(2)) / 1e3:.0f}"
    except OSError:
        pass
    return rc, first, count, decided[0], rss_kb, traffic


def main():
    rows = []
    base_rss = None
    for workers in SIZES:
        for mode, label, extra, shown in (
                ("all", "--logs all", [], workers),
                ("turn", f"--log-turn {TURN}", ["--log-turn", TURN], workers),
                ("set", "--log-workers 0-63", ["--log-workers", "0-63"], min(workers, 64))):
            if (workers <= 64 and extra) or mode not in MODES:
                continue
            name = f"big-{workers}-{mode}"
            rc, first, count, decided, rss, traffic = run(name, workers, extra)
            if workers == 2:
                base_rss = rss
            # each worker prints a connect line, LINES step lines and a finished line
            want = shown * (LINES + 2)
            got = sum(count.values())
            live = sum(1 for t in first.values() if decided is not None and t < decided)
            fl = sorted(first.values())
            rows.append((workers, label, rc, f"{live}/{shown}",
                         f"{statistics.median(fl):.1f} / {fl[-1]:.1f}" if fl else "-",
                         f"{got}/{want}", f"{rss / 1024:.1f}",
                         f"{rss / base_rss:.2f}x" if base_rss else "-",
                         f"{decided:.1f}" if decided else "-", traffic))
            print(f"# {rows[-1]}", file=sys.stderr, flush=True)
    print("| workers | logs | exit | live (first line before the verdict) | first line s, median / worst "
          "| lines printed / written | peak RSS MB | RSS / 2 workers | verdict s | requests / kB received |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")


if __name__ == "__main__":
    main()
