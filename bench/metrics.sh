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
W=$(mktemp -d /tmp/jaxjob-bench-metrics.XXXXXX)
trap '"$top/tests/kube-apiserver/stop.sh" "$W/ks" >/dev/null 2>&1; rm -rf "$W"' EXIT
if [ "$SCAN_ONLY" = 1 ]; then
	BIN=$top/build/bench/metrics-driver
	[ -x "$BIN" ] || { echo "metrics.sh: $BIN missing: run make bench-driver" >&2; exit 1; }
else
	"$top/tests/kube-apiserver/start.sh" "$W/ks" >/dev/null
fi

python3 - "$BIN" "$W" "$RUNS" "$LINES" "$RATE" "$VG" "$VG_LINES" "$SCAN_ONLY" <<'PY'
import os, re, shutil, statistics, subprocess, sys, time

BIN, W, RUNS, LINES, RATE = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
VG, VG_LINES, SCAN_ONLY = sys.argv[6] == '1', int(sys.argv[7]), sys.argv[8] == '1'
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
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(f'{W}/{name}.err', 'w'))
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f'run {name} ({mode}, {log}) failed: ' + open(f'{W}/{name}.err').read()[-400:])
    return ru.ru_utime + ru.ru_stime, wall


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
print()
print('| log | --metrics | CPU median (ms) | CPU best (ms) | µs per line | wall median (s) |')
print('|---|---|---|---|---|---|')
ratios = {}
for log in ('metric', 'mixed'):
    cpu = {'auto': [], 'none': []}
    wall = {'auto': [], 'none': []}
    for r in range(RUNS):
        for mode in (('auto', 'none') if r % 2 == 0 else ('none', 'auto')):
            n += 1
            c, w = run(mode, log, n)
            cpu[mode].append(c)
            wall[mode].append(w)
    for mode in ('none', 'auto'):
        med = statistics.median(cpu[mode])
        print(f'| {log} | {mode} | {med * 1000:.0f} | {min(cpu[mode]) * 1000:.0f} | '
              f'{med / LINES * 1e6:.2f} | {statistics.median(wall[mode]):.1f} |')
    ratios[log] = statistics.median(cpu['auto']) / statistics.median(cpu['none'])
print()
for log, r in ratios.items():
    print(f'{log}: CPU auto / none = {r:.3f} ({(r - 1) * 100:+.1f}%)')

if VG and shutil.which('valgrind'):
    write_logs(VG_LINES, '-vg')
    print()
    print(f'instructions of the whole process (callgrind), {VG_LINES} lines:')
    print()
    print('| log | --metrics none (Ir) | --metrics auto (Ir) | auto / none | extra Ir per line | launch_metrics_line per line (inclusive) | none per line |')
    print('|---|---|---|---|---|---|---|')
    for log in ('metric-vg', 'mixed-vg'):
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
