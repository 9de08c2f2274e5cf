#!/usr/bin/env python3
"""tests/metrics/check.py - checks of jaxjob's metrics outputs against mklogs.py's truth.

  check.py json METRICS.json EXPECT.json [REWINDS]   last/min/max and their steps, counts
  check.py csv SERIES.csv EXPECT.json POINTS         every row a printed point, at most POINTS
                                                     per metric, ends and the spike kept
  check.py svg CHART.svg SERIES.csv                  well-formed XML, one panel per metric with
                                                     the CSV's points, axes covering the data
Exit 0 when every check holds, else 1 with the reason on stderr.
"""
import csv
import json
import math
import re
import sys
import xml.etree.ElementTree as ET


def close(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def fail(msg):
    sys.stderr.write(msg + '\n')
    sys.exit(1)


def num(v):
    return {'NaN': math.nan, 'Infinity': math.inf, '-Infinity': -math.inf}.get(v, v)


def check_json(path, expect_path, rewinds=None):
    got = json.load(open(path))
    exp = json.load(open(expect_path))
    names = sorted(exp['series'])
    if sorted(got['metrics']) != names:
        fail(f'metrics {sorted(got["metrics"])} != expected {names}')
    for name in names:
        pts = exp['series'][name]
        m = got['metrics'][name]
        lo = min(pts, key=lambda p: (p[1], p[0]))
        hi = max(pts, key=lambda p: (p[1], -p[0]))
        last = exp.get('last', {}).get(name)
        want_last = num(last) if last else pts[-1][1]
        got_last = num(m['last'])
        if not (close(got_last, want_last) or (math.isnan(want_last) and math.isnan(got_last))):
            fail(f'{name}: last {m["last"]} != {want_last}')
        if not last and m['last_step'] != pts[-1][0]:
            fail(f'{name}: last_step {m["last_step"]} != {pts[-1][0]}')
        if not close(m['min'], lo[1]) or m['min_step'] != lo[0]:
            fail(f'{name}: min {m["min"]}@{m["min_step"]} != {lo[1]}@{lo[0]}')
        if not close(m['max'], hi[1]) or m['max_step'] != hi[0]:
            fail(f'{name}: max {m["max"]}@{m["max_step"]} != {hi[1]}@{hi[0]}')
        nonfinite = exp.get('nonfinite', {}).get(name, 0)
        if m['nonfinite'] != nonfinite:
            fail(f'{name}: nonfinite {m["nonfinite"]} != {nonfinite}')
        if rewinds is None and m['count'] != len(pts) + nonfinite:
            fail(f'{name}: count {m["count"]} != {len(pts) + nonfinite}')
        if rewinds is not None and (m['rewinds'] != rewinds or m['count'] <= len(pts)):
            fail(f'{name}: rewinds {m["rewinds"]} (want {rewinds}), count {m["count"]}')
    if got['step']['kind'] != exp['xkind']:
        fail(f'step kind {got["step"]["kind"]} != {exp["xkind"]}')
    if exp.get('total') and got['step']['total'] != exp['total']:
        fail(f'total {got["step"]["total"]} != {exp["total"]}')


def read_csv(path):
    rows = list(csv.reader(open(path)))
    if rows[0] != ['metric', 'step', 'value']:
        fail(f'CSV header {rows[0]}')
    series = {}
    for r in rows[1:]:
        series.setdefault(r[0], []).append((float(r[1]), float(r[2])))
    return series


def check_csv(path, expect_path, points):
    exp = json.load(open(expect_path))
    got = read_csv(path)
    if sorted(got) != sorted(exp['series']):
        fail(f'CSV metrics {sorted(got)} != {sorted(exp["series"])}')
    for name, pts in exp['series'].items():
        rows = got[name]
        printed = {p[0]: p[1] for p in pts}
        if len(rows) != min(points, len(pts)):
            fail(f'{name}: {len(rows)} rows, expected {min(points, len(pts))}')
        for x, y in rows:
            if x not in printed or not close(printed[x], y):
                fail(f'{name}: ({x}, {y}) is not a printed point')
        xs = [x for x, _ in rows]
        if xs != sorted(set(xs)):
            fail(f'{name}: steps not strictly increasing')
        if xs[0] != pts[0][0] or xs[-1] != pts[-1][0]:
            fail(f'{name}: the first/last points are not kept')
    spike = exp.get('spike')
    if spike and not any(x == spike[0] and close(y, spike[1]) for n in got for x, y in got[n]):
        fail(f'the spike at step {spike[0]} was lost')


def check_svg(path, csv_path):
    root = ET.parse(path).getroot()     # well-formed XML or an exception
    ns = '{http://www.w3.org/2000/svg}'
    if root.tag != ns + 'svg':
        fail(f'root element {root.tag}')
    if root.findall(f'.//{ns}script') or 'href="http' in open(path).read():
        fail('the chart is not self-contained')
    _, _, width, height = map(float, root.get('viewBox').split())
    series = read_csv(csv_path)
    panels = {g.get('data-name'): g for g in root.iter(ns + 'g') if g.get('data-name')}
    if sorted(panels) != sorted(series)[:8] and len(panels) != min(8, len(series)):
        fail(f'panels {sorted(panels)} for metrics {sorted(series)}')
    for name, g in panels.items():
        rows = series[name]
        if int(g.get('data-points')) != len(rows):
            fail(f'{name}: {g.get("data-points")} points drawn, CSV has {len(rows)}')
        xs, ys = [x for x, _ in rows], [y for _, y in rows]
        if not (float(g.get('data-x-min')) <= min(xs) and float(g.get('data-x-max')) >= max(xs)):
            fail(f'{name}: x axis {g.get("data-x-min")}..{g.get("data-x-max")} misses {min(xs)}..{max(xs)}')
        if not (float(g.get('data-y-min')) <= min(ys) and float(g.get('data-y-max')) >= max(ys)):
            fail(f'{name}: y axis {g.get("data-y-min")}..{g.get("data-y-max")} misses {min(ys)}..{max(ys)}')
        line = g.find(ns + 'polyline')
        coords = re.findall(r'(-?[0-9.]+),(-?[0-9.]+)', line.get('points')) if line is not None else []
        if len(rows) > 1 and len(coords) != len(rows):
            fail(f'{name}: polyline has {len(coords)} points, CSV {len(rows)}')
        for x, y in coords:
            if not (0 <= float(x) <= width and 0 <= float(y) <= height):
                fail(f'{name}: point ({x}, {y}) outside the picture')


if __name__ == '__main__':
    what = sys.argv[1]
    if what == 'json':
        check_json(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else None)
    elif what == 'csv':
        check_csv(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif what == 'svg':
        check_svg(sys.argv[2], sys.argv[3])
    else:
        fail('usage: check.py json|csv|svg ...')
