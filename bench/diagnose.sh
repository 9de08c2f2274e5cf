#!/usr/bin/env bash
# bench/diagnose.sh [BINARY] - what the failure diagnosis (lib/health/diagnose.h, issue 23) costs on
# the success path, where it must be free:
#
#  1. per log line, in instructions (callgrind, deterministic): build/bench/diagnose-driver
#     hands LINES generated lines (~110 bytes, absl-logged steps) to diag_line() with a
#     diagnosis and without one (diag_line(NULL, ...), the call launch makes without one);
#     the difference over LINES is the per-line cost, and callgrind_annotate gives
#     diag_line's inclusive cost too;
#  2. memory: VmHWM and RssAnon of the driver with and without a diagnosis, the lines spread
#     over 1, 16 and 1,000 workers (the rings are per worker);
#  3. with BASE=/path/to/jaxjob built without the diagnosis (e.g. main before issue 23): the
#     whole `jaxjob launch` process under callgrind, --logs first --metrics none, one worker
#     streaming VG_LINES lines from the Kubernetes API test server, BINARY against BASE:
#     the instructions per streamed line the diagnosis adds to everything launch does.
#
# Release builds (`make`, `make bench-driver`).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
DRIVER=${DRIVER:-$top/build/bench/diagnose-driver}
LINES=${LINES:-200000}
VG_LINES=${VG_LINES:-20000}
BASE=${BASE:-}
[ -x "$DRIVER" ] || { echo "diagnose.sh: $DRIVER missing: run make bench-driver" >&2; exit 1; }
W=$(mktemp -d /tmp/jaxjob-bench-diagnose.XXXXXX)
trap '"$top/tests/kube-apiserver/stop.sh" "$W/ks" >/dev/null 2>&1; rm -rf "$W"' EXIT
[ -z "$BASE" ] || "$top/tests/kube-apiserver/start.sh" "$W/ks" >/dev/null

/usr/bin/python3 - "$BIN" "$DRIVER" "$W" "$LINES" "$VG_LINES" "$BASE" <<'PY'
import os, re, subprocess, sys

BIN, DRIVER, W, LINES, VG_LINES, BASE = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), \
    int(sys.argv[5]), sys.argv[6]


def callgrind(args, out):
    subprocess.run(['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}'] + args,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return int(re.search(r'^summary: (\d+)', open(out).read(), re.M).group(1))


on = callgrind([DRIVER, 'on', str(LINES), '16'], W + '/cg.on')
off = callgrind([DRIVER, 'off', str(LINES), '16'], W + '/cg.off')
ann = subprocess.run(['callgrind_annotate', '--inclusive=yes', W + '/cg.on'], capture_output=True,
                     text=True).stdout
m = re.search(r'^\s*([\d,]+) .*:diag_line ', ann, re.M)
incl = int(m.group(1).replace(',', '')) / LINES if m else float('nan')
print(f'diag_line() per line (callgrind, {LINES} lines over 16 workers):')
print()
print('| driver with diagnosis (Ir) | without (Ir) | difference per line | diag_line inclusive per line |')
print('|---|---|---|---|')
print(f'| {on:,} | {off:,} | {(on - off) / LINES:.0f} | {incl:.0f} |')
print()
print('memory (kB, /proc/self/status at the end):')
print()
print('| workers | VmHWM without | VmHWM with | RssAnon without | RssAnon with | diagnosis (RssAnon) |')
print('|---|---|---|---|---|---|')
for w in (1, 16, 1000):
    v = {}
    for mode in ('off', 'on'):
        out = subprocess.run([DRIVER, mode, str(LINES), str(w)], capture_output=True, text=True,
                             check=True).stdout
        v[mode] = {k: int(n) for k, n in re.findall(r'^(VmHWM|RssAnon):\s+(\d+) kB', out, re.M)}
    print(f'| {w:,} | {v["off"]["VmHWM"]:,} | {v["on"]["VmHWM"]:,} | {v["off"]["RssAnon"]:,} | '
          f'{v["on"]["RssAnon"]:,} | +{v["on"]["RssAnon"] - v["off"]["RssAnon"]:,} |')
if not BASE:
    sys.exit(0)
log = W + '/mixed.log'
with open(log, 'w') as f:
    for s in range(1, VG_LINES + 1):
        f.write(f'I1126 12:{s // 60000 % 60:02d}:{s // 1000 % 60:02d}.{s % 1000:06d} 140234 train.py:88] '
                f'step {s} loss={1 / (s + 1):.4f} grad_norm={0.5 + s % 97 / 100:.3f} lr=3.0e-04\n')
kc = W + '/ks/kubeconfig'
res = {}
for n, b in enumerate((BIN, BASE, BIN, BASE)):
    args = [b, 'launch', '--kubeconfig', kc, '--name', f'd{n}', '--image', 'x/jax:1', '--logs', 'first',
            '--metrics', 'none', '--delete-after', 'always', '--env', f'SIM_LOG_FILE={log}',
            '--env', f'SIM_DURATION={VG_LINES / 10000}', '--', 'python', 'train.py']
    res.setdefault(b, []).append(callgrind(args, f'{W}/cg.launch{n}'))
print()
print(f'the whole `jaxjob launch` process (callgrind, {VG_LINES} lines streamed, --metrics none, two runs each):')
print()
print('| binary | Ir (runs) | Ir per line | ')
print('|---|---|---|')
for b in (BASE, BIN):
    print(f'| {"without diagnosis (BASE)" if b == BASE else "with diagnosis"} | '
          f'{", ".join(f"{x:,}" for x in res[b])} | {min(res[b]) / VG_LINES:,.0f} |')
d = min(res[BIN]) - min(res[BASE])
print()
print(f'difference: {d / VG_LINES:+,.0f} Ir per line ({100 * d / min(res[BASE]):+.2f}%)')
PY
