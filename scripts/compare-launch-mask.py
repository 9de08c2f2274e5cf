#!/usr/bin/python3
"""Mask and compare the runs of scripts/compare-launch.sh.

  norm DIR                  DIR/{rc,out,err,o/*} -> DIR/norm/*, masked
  cmp A B                   exit 0 when A/norm and B/norm are equal, else print the first diff
  within OLD... -- NEW...   timing variance, file by file: exit 0 when no line is printed by
                            every NEW run and by no OLD run, nor by every OLD run and no NEW
                            run; else print the first such line

What is masked is what differs between two runs of one binary for reasons outside the launcher:
wall-clock times and durations, uids, resourceVersions, launch ids, rates, the server's port
and directory, random name suffixes. Stdout is compared per worker: the interleaving of two
workers' lines is the scheduler's.
"""
import os
import re
import sys

SUBS = [
    (re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)'), '<TIME>'),
    (re.compile(r'^jaxjob: \d\d:\d\d:\d\d \(\+[\d.]+m?s\) ', re.M), 'jaxjob: <T> '),
    (re.compile(r'\b\d\d:\d\d:\d\d(\.\d+)?\b'), '<HMS>'),
    (re.compile(r'\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b'), '<UID>'),
    (re.compile(r'"?\b[0-9a-f]{32}\b"?'), '<LAUNCHID>'),
    (re.compile(r'("resourceVersion":\s*)"\d+"'), r'\1"<RV>"'),
    (re.compile(r'(resource ?[vV]ersion[:= ]+)\d+( \(\d+\))?'), r'\1<RV>'),
    (re.compile(r'\b(UID|JobUID): [0-9a-f]{8}\b'), r'\1: <UID8>'),
    (re.compile(r'\b\d+ milliseconds\b'), '<N> milliseconds'),
    (re.compile(r'base64,[A-Za-z0-9+/=]+'), 'base64,<B64>'),
    (re.compile(r'127\.0\.0\.1:\d+'), '127.0.0.1:<PORT>'),
    (re.compile(r'(-node-0-\d+-)[a-z0-9]{5}\b'), r'\1<RND>'),
    (re.compile(r'\b((jaxjob|trainjob)-[a-z0-9-]+-)[0-9a-f]{5}\b'), r'\1<HASH>'),
    (re.compile(r'[\d.]+(e[+-]?\d+)? steps/s'), '<RATE> steps/s'),
    (re.compile(r'("(duration_s|steps_per_s|queue_time_s|run_time_s)":\s*)[-\d.e+]+'), r'\1<N>'),
    (re.compile(r'\b\d+(\.\d+)?\s?(ms|s|m|h|min)\b'), '<DUR>'),
    (re.compile(r'\b(\d+h)?(\d+m)?\d+(\.\d+)?s\b'), '<DUR>'),
]
# outputs that hold a bare number of seconds
SECONDS_FILES = {'duration', 'queue-time', 'run-time'}


def mask(text, root):
    text = text.replace(root, '<DIR>')
    for rx, rep in SUBS:
        text = rx.sub(rep, text)
    return text


def per_worker(text):
    keyed = []
    for i, line in enumerate(text.splitlines(True)):
        m = re.match(r'\[([^\]]+)\] ', line)
        keyed.append(((m.group(1) if m else ''), i, line))
    return ''.join(line for _, _, line in sorted(keyed))


def read(p):
    try:
        with open(p, encoding='utf-8', errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return None


def norm(d):
    nd = os.path.join(d, 'norm')
    os.makedirs(nd, exist_ok=True)
    root = os.path.abspath(d)
    files = {'rc': read(os.path.join(d, 'rc')), 'stdout': read(os.path.join(d, 'out')),
             'stderr': read(os.path.join(d, 'err')), 'side-error': read(os.path.join(d, 'side-error'))}
    od = os.path.join(d, 'o')
    for n in sorted(os.listdir(od)) if os.path.isdir(od) else []:
        files['out-' + n] = read(os.path.join(od, n))
    files['outputs-written'] = ''.join(n[4:] + '\n' for n in sorted(files) if n.startswith('out-'))
    for n, t in files.items():
        if t is None:
            continue
        t = mask(t, root)
        if n == 'stdout':
            t = per_worker(t)
        if n[4:] in SECONDS_FILES:
            t = re.sub(r'^\d+(\.\d+)?$', '<SECONDS>', t, flags=re.M)
        with open(os.path.join(nd, n), 'w') as f:
            f.write(t)


def load(d):
    nd = os.path.join(d, 'norm')
    return {n: read(os.path.join(nd, n)) for n in os.listdir(nd)}


def first_diff(a, b):
    for n in sorted(set(a) | set(b)):
        x, y = a.get(n), b.get(n)
        if x == y:
            continue
        if x is None or y is None:
            return f'{n}: only in {"new" if x is None else "old"}'
        xl, yl = x.splitlines(), y.splitlines()
        for i in range(max(len(xl), len(yl))):
            u = xl[i] if i < len(xl) else '<end>'
            v = yl[i] if i < len(yl) else '<end>'
            if u != v:
                return f'{n}:{i + 1}: old {u[:160]!r} new {v[:160]!r}'
    return None


def cmp(a, b):
    d = first_diff(load(a), load(b))
    if d:
        print(d)
        return 1
    return 0


def within(olds, news):
    olds, news = [load(d) for d in olds], [load(d) for d in news]
    for n in sorted(set().union(*olds, *news)):
        o = [set((r.get(n) or '').splitlines()) for r in olds]
        w = [set((r.get(n) or '').splitlines()) for r in news]
        new_only = set.intersection(*w) - set.union(*o)
        if new_only:
            return f'{n}: every new run prints {sorted(new_only)[0][:200]!r}, no old run does'
        lost = set.intersection(*o) - set.union(*w)
        if lost:
            return f'{n}: every old run prints {sorted(lost)[0][:200]!r}, no new run does'
    return None


def main():
    mode = sys.argv[1]
    if mode == 'norm':
        norm(sys.argv[2])
        return 0
    if mode == 'cmp':
        return cmp(sys.argv[2], sys.argv[3])
    if mode == 'within':
        args = sys.argv[2:]
        k = args.index('--')
        r = within(args[:k], args[k + 1:])
        if r:
            print(r)
            return 1
        return 0
    print('usage: compare-launch-mask.py norm DIR | cmp A B | within OLD... -- NEW...', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
