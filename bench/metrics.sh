#!/usr/bin/env bash
# bench/metrics.sh [BINARY] - what reading training metrics costs `jaxjob launch`:
# CPU time (user + sys, from wait4) of a run that streams one worker's log of
# LINES lines at RATE lines/s from the Kubernetes API test server, with the
# default --metrics auto against --metrics none, RUNS times each, alternating.
#
# Two logs: "metric" - every line a CLU-style metric line under absl logging
# (the worst case: every line is recognised and stored), and "mixed" - one
# metric line in ten among typical noise lines. The progress line is on
# (--progress-every 10s default). Release build recommended (make).
#
# CPU time on a shared machine is noisy (other processes, frequency scaling),
# so the same comparison is also made in instructions, which do not depend on
# the load: the whole `jaxjob launch` process under valgrind's callgrind
# (VG_LINES lines, default 20000, `--metrics auto` against `none`). VG=0 skips it.
#
# The CPU part reports, per cell, the median and the spread (quartiles, min,
# max) of user + sys, user and sys apart, and the ratio two ways: of the
# medians, and the median of the per-round ratios (round r runs auto and
# none back to back, so a load change hits both). LOGS="metric mixed" picks
# the logs; PERF=1 also runs each under `perf stat -e task-clock,instructions:u`
# (instructions where the machine counts them; a VM often does not; the wait4
# times then include perf's own, task-clock is jaxjob's alone). The load
# average before and after is printed: the figures mean little above ~1.5.
#
# SCAN_ONLY=1: the extraction alone, no server: bench/metrics_driver.c
# (`make bench-driver`) feeds LINES lines of each log to metrics_line() under
# callgrind, minus its own cost on as many empty lines; prints Ir per line.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
RUNS=${RUNS:-5}
LINES=${LINES:-100000}
RATE=${RATE:-10000}
VG=${VG:-1}
VG_LINES=${VG_LINES:-20000}
SCAN_ONLY=${SCAN_ONLY:-0}
LOGS=${LOGS:-metric mixed}
PERF=${PERF:-0}
W=$(mktemp -d /tmp/jaxjob-bench-metrics.XXXXXX)
trap '"$top/tests/kube-apiserver/stop.sh" "$W/ks" >/dev/null 2>&1; rm -rf "$W"' EXIT
if [ "$SCAN_ONLY" = 1 ]; then
	BIN=$top/build/bench/metrics-driver
	[ -x "$BIN" ] || { echo "metrics.sh: $BIN missing: run make bench-driver" >&2; exit 1; }
else
	"$top/tests/kube-apiserver/start.sh" "$W/ks" >/dev/null
fi

python3 - "$BIN" "$W" "$RUNS" "$LINES" "$RATE" "$VG" "$VG_LINES" "$SCAN_ONLY" "$LOGS" "$PERF" <<'PY'
import os, re, shutil, statistics, subprocess, sys, time

BIN, W, RUNS, LINES, RATE = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
VG, VG_LINES, SCAN_ONLY = sys.argv[6] == '1', int(sys.argv[7]), sys.argv[8] == '1'
LOGS, PERF = sys.argv[9].split(), sys.argv[10] == '1' and shutil.which('perf')
KC = W + '/ks/kubeconfig'


def absl(i, msg):
    return f'I1123 21:{30 + i // 600000 % 30:02d}:{i // 10000 % 60:02d}.{i % 10000:04d}00 140234 {msg}'


def write_logs(lines, suffix=''):
    with open(W + f'/metric{suffix}.log', 'w') as f:
        for s in range(1, lines + 1):
            f.write(absl(s, f'logging_writer.py:48] [{s}] learning_rate=0.100000, '
                            f'train_loss={2.5 / (1 + s / 1000):.6f}, grad_norm={1.0 + (s % 7) / 10:.4f}\n'))
    with open(W + f'/mixed{suffix}.log', 'w') as f:
        for s in range(1, lines + 1):
            if s % 10 == 0:
                f.write(f'step {s}, loss: {2.5 / (1 + s / 1000):.6f}, accuracy: 0.{s % 9000 + 1000}\n')
            else:
                f.write(absl(s, f'input_pipeline.py:{s % 300}] fetched batch {s} from /data/shard-{s % 64:05d} '
                                f'(10.0.0.{s % 250}:8476) in 0.{s % 97:03d}s\n'))


def run(mode, log, n, wrap=(), lines=LINES):
    name = f'b{n}'
    args = list(wrap) + [BIN, 'launch', '--kubeconfig', KC, '--name', name, '--image', 'x/jax:1', '--logs', 'first',
            '--metrics', mode, '--delete-after', 'always',
            '--env', f'SIM_LOG_FILE={W}/{log}.log', '--env', f'SIM_DURATION={lines / RATE}',
            '--out-metrics', f'{W}/{name}.json', '--', 'python', 'train.py']
    if PERF and not wrap:
        args = ['perf', 'stat', '-x,', '-e', 'task-clock,instructions:u', '-o', f'{W}/{name}.perf'] + args
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(f'{W}/{name}.err', 'w'))
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f'run {name} ({mode}, {log}) failed: ' + open(f'{W}/{name}.err').read()[-400:])
    if PERF and not wrap:
        for row in open(f'{W}/{name}.perf'):
            f = row.split(',')
            if len(f) > 2 and f[2] == 'task-clock':
                PERFS.setdefault((mode, log, 'task-clock'), []).append(float(f[0]) / 1000)
            elif len(f) > 2 and f[2] == 'instructions:u' and f[0][:1].isdigit():
                PERFS.setdefault((mode, log, 'instructions'), []).append(int(f[0]))
    USER.setdefault((mode, log), []).append(ru.ru_utime)
    SYS.setdefault((mode, log), []).append(ru.ru_stime)
    return ru.ru_utime + ru.ru_stime, wall


USER, SYS, PERFS = {}, {}, {}


def quart(v):
    """(q1, median, q3) of v."""
    if len(v) < 2:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4, method='inclusive')
    return q[0], statistics.median(v), q[2]


def callgrind(args, out):
    subprocess.run(['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}'] + args,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return int(re.search(r'^summary: (\d+)', open(out).read(), re.M).group(1))


write_logs(LINES)
if SCAN_ONLY:
    print(f'metrics_line() alone (callgrind, {LINES} lines: its inclusive cost, and the old')
    print('measure: the whole driver minus the driver on as many empty lines):')
    print()
    print('| log | metrics_line Ir per line (inclusive) | driver - empty driver, per line |')
    print('|---|---|---|')
    for log in ('metric', 'mixed'):
        full = callgrind([BIN, f'{W}/{log}.log'], f'{W}/cg.{log}')
        empty = callgrind([BIN, '--empty', f'{W}/{log}.log'], f'{W}/cg.{log}.empty')
        ann = subprocess.run(['callgrind_annotate', '--inclusive=yes', f'{W}/cg.{log}'],
                             capture_output=True, text=True).stdout
        incl = int(re.search(r'^\s*([\d,]+) .*:metrics_line ', ann, re.M).group(1).replace(',', ''))
        print(f'| {log} | {incl / LINES:.0f} | {(full - empty) / LINES:.0f} |')
    sys.exit(0)
n = 0
print(f'{LINES} lines per run at {RATE} lines/s requested, {RUNS} runs per cell, binary {BIN}')
print(f'load average before: {" ".join(f"{x:.2f}" for x in os.getloadavg())}')
print()
print('| log | --metrics | CPU median (ms) | quartiles (ms) | min-max (ms) | user median | sys median | µs per line | wall median (s) |')
print('|---|---|---|---|---|---|---|---|---|')
ratios = {}
for log in LOGS:
    cpu = {'auto': [], 'none': []}
    wall = {'auto': [], 'none': []}
    for r in range(RUNS):
        for mode in (('auto', 'none') if r % 2 == 0 else ('none', 'auto')):
            n += 1
            c, w = run(mode, log, n)
            cpu[mode].append(c)
            wall[mode].append(w)
    for mode in ('none', 'auto'):
        q1, med, q3 = quart(cpu[mode])
        print(f'| {log} | {mode} | {med * 1000:.0f} | {q1 * 1000:.0f}-{q3 * 1000:.0f} | '
              f'{min(cpu[mode]) * 1000:.0f}-{max(cpu[mode]) * 1000:.0f} | '
              f'{statistics.median(USER[mode, log]) * 1000:.0f} | {statistics.median(SYS[mode, log]) * 1000:.0f} | '
              f'{med / LINES * 1e6:.2f} | {statistics.median(wall[mode]):.1f} |')
    pair = [a / b for a, b in zip(cpu['auto'], cpu['none'])]
    ratios[log] = (statistics.median(cpu['auto']) / statistics.median(cpu['none']), quart(pair))
print()
print(f'load average after: {" ".join(f"{x:.2f}" for x in os.getloadavg())}')
for log, (r, (q1, med, q3)) in ratios.items():
    print(f'{log}: CPU auto / none = {r:.3f} ({(r - 1) * 100:+.1f}%) as a ratio of medians; '
          f'per round: median {med:.3f}, quartiles {q1:.3f}-{q3:.3f}')
# (with PERF=1 the wait4 times above include perf's own; task-clock is jaxjob's alone)
for log in LOGS:
    for what, unit in (('task-clock', 1000), ('instructions', 1)):
        a, b = PERFS.get(('auto', log, what)), PERFS.get(('none', log, what))
        if a and b:
            print(f'perf {what} {log}: none median {statistics.median(b) * unit:,.0f}, auto median '
                  f'{statistics.median(a) * unit:,.0f}, auto / none {statistics.median(a) / statistics.median(b):.3f}, '
                  f'per round quartiles {"-".join(f"{x:.3f}" for x in quart([x / y for x, y in zip(a, b)]))}')

if VG and shutil.which('valgrind'):
    write_logs(VG_LINES, '-vg')
    print()
    print(f'instructions of the whole process (callgrind), {VG_LINES} lines:')
    print()
    print('| log | --metrics none (Ir) | --metrics auto (Ir) | auto / none | extra Ir per line | launch_metrics_line per line (inclusive) | none per line |')
    print('|---|---|---|---|---|---|---|')
    for log in [x + '-vg' for x in LOGS]:
        ir = {}
        for mode in ('none', 'auto'):
            n += 1
            out = f'{W}/cg.{n}'
            run(mode, log, n, wrap=('valgrind', '--tool=callgrind', f'--callgrind-out-file={out}'),
                lines=VG_LINES)
            ir[mode] = int(re.search(r'^summary: (\d+)', open(out).read(), re.M).group(1))
        # the figure that does not move with how the stream is chunked: what
        # the extraction itself costs (inclusive), against the whole none run
        ann = subprocess.run(['callgrind_annotate', '--inclusive=yes', out], capture_output=True,
                             text=True).stdout
        hit = re.search(r'^\s*([\d,]+) .*:launch_metrics_line ', ann, re.M)
        incl = int(hit.group(1).replace(',', '')) / VG_LINES if hit else float('nan')
        print(f'| {log[:-3]} | {ir["none"]:,} | {ir["auto"]:,} | {ir["auto"] / ir["none"]:.3f} | '
              f'{(ir["auto"] - ir["none"]) / VG_LINES:.0f} | {incl:.0f} | {ir["none"] / VG_LINES:.0f} |')
PY
