#!/usr/bin/env python3
"""tests/metrics/mklogs.py DIR - real-shaped training logs for 62-launch-metrics.sh.

Writes DIR/<shape>.log (what a simulated worker prints, via SIM_LOG_FILE) and
DIR/<shape>.expect.json: per metric the (step, value) points as printed, the
truth the suite compares jaxjob's outputs with. Shapes are the printed formats of
JAX training code (not its code): CLU's LoggingWriter under absl logging, JSON
lines, Flax's MNIST example, an Optax-style loop, and a free-form line for
--metric patterns. Each mixes in noise lines that carry numbers which are not
metrics: timestamps, ports, IP addresses, versions, dates, file:line, pids.
Deterministic: no randomness, no clock.
"""
import json
import math
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def emit(name, lines, series, **extra):
    with open(os.path.join(out, name + '.log'), 'w') as f:
        f.write(''.join(l + '\n' for l in lines))
    with open(os.path.join(out, name + '.expect.json'), 'w') as f:
        json.dump(dict(series=series, **extra), f, indent=1)


def absl(i, where, msg):
    sec = i // 10
    return f'I1123 21:{30 + sec // 60:02d}:{sec % 60:02d}.{(i % 10) * 100000:06d} 140234 {where}] {msg}'


# --- CLU LoggingWriter under absl: "[step] k=v, k=v"; a spike at step 300 ---
N = 600
lines = [absl(0, 'train.py:60', 'jax version: 0.4.30, jaxlib 0.4.30, Python 3.11.2'),
         absl(0, 'distributed.py:90', 'Connecting to JAX distributed service on 10.0.0.5:1234 '
              '(process_id=0, num_processes=2) port 8476 pid=4242'),
         absl(0, 'train.py:70', 'Starting training loop at 2026-11-23 21:30:00 with seed 42')]
loss, lr = [], []
for s in range(1, N + 1):
    v = 4.0 if s == 300 else 2.5 * math.exp(-s / 150) + 0.1 + 0.05 * math.sin(s / 7)
    r = 0.1 * min(1.0, s / 100)
    lines.append(absl(s, 'logging_writer.py:48', f'[{s}] learning_rate={r:.6f}, train_loss={v:.6f}'))
    loss.append([s, float(f'{v:.6f}')])
    lr.append([s, float(f'{r:.6f}')])
    if s % 100 == 0:
        lines.append(absl(s, 'checkpoints.py:515', f'Saving checkpoint at step: {s} to /ckpt/checkpoint_{s} '
                          f'(host 10.0.0.5, took 1.25s at 21:31:07)'))
lines.append(absl(N + 1, 'train.py:200', 'Done. Elapsed 0:01:23, exit code 0'))
emit('clu', lines, {'train_loss': loss, 'learning_rate': lr}, xkind='step', spike=[300, 4.0])

# --- JSON lines with NaN and a final Infinity; noise JSON without metrics ---
lines, loss, acc = [], [], []
lines.append('{"event": "start", "time": "2026-11-23T21:30:00Z", "version": "1.2.3", "port": 8476}')
for k in range(1, 201):
    s = 10 * k
    if s == 500:
        v = 'NaN'
    elif k == 200:
        v = 'Infinity'
    else:
        v = f'{1.0 / (1 + s / 200):.5f}'
    a = f'{0.5 + 0.45 * (1 - math.exp(-s / 400)):.4f}'
    lines.append(f'{{"step": {s}, "loss": {v}, "accuracy": {a}}}')
    if v not in ('NaN', 'Infinity'):
        loss.append([s, float(v)])
    acc.append([s, float(a)])
    if k % 50 == 0:
        lines.append(f'{{"event": "checkpoint", "path": "/ckpt/{s}", "date": "2026-11-23"}}')
emit('jsonl', lines, {'loss': loss, 'accuracy': acc}, xkind='step', last={'loss': 'Infinity'},
     nonfinite={'loss': 2})

# --- Flax MNIST example: per-epoch lines, no step counter ---
lines = ['Downloading and preparing dataset 11.06 MiB (download: 11.06 MiB) to /root/tensorflow_datasets/mnist/3.0.1...',
         'Dataset mnist downloaded and prepared to /root/tensorflow_datasets/mnist/3.0.1. Subsequent calls will reuse this data.']
series = {'train_loss': [], 'train_accuracy': [], 'test_loss': [], 'test_accuracy': []}
for ep in range(1, 11):
    vals = {'train_loss': 0.3 / ep, 'train_accuracy': 92.0 + 0.7 * ep,
            'test_loss': 0.06 + 0.01 / ep, 'test_accuracy': 97.0 + 0.2 * ep}
    lines.append(f'epoch: {ep:2d}, train_loss: {vals["train_loss"]:.4f}, train_accuracy: {vals["train_accuracy"]:.2f}, '
                 f'test_loss: {vals["test_loss"]:.4f}, test_accuracy: {vals["test_accuracy"]:.2f}')
    fmt = {'train_loss': '.4f', 'train_accuracy': '.2f', 'test_loss': '.4f', 'test_accuracy': '.2f'}
    for k, v in vals.items():
        series[k].append([ep, float(format(v, fmt[k]))])
emit('flax', lines, series, xkind='epoch')

# --- an Optax-style loop: "Step [s/total] Loss: v" and worker-specific values ---
for w in (0, 1):
    lines, loss = [], []
    for s in range(20, 1001, 20):
        v = 1.0 / math.sqrt(s) + 0.01 * w
        lines.append(f'Step [{s}/1000] Loss: {v:.5f} | grad_norm 0.5 | 12.3 it/s')
        loss.append([s, float(f'{v:.5f}')])
    emit(f'optax{w}', lines, {'Loss': loss}, xkind='step', total=1000)

# --- free-form lines only a user pattern can read ---
lines, ppl = [], []
for u in range(100, 1001, 100):
    p = 50.0 / (u / 100)
    lines.append(f'update {u}: validation perplexity is {p:.3f} (best so far)')
    ppl.append([u, float(f'{p:.3f}')])
emit('custom', lines, {'val_ppl': ppl}, xkind='step')
