#!/usr/bin/python3
"""The simulated worker: what a container of a non-JAX image runs on the kubelet double.

It plays the scenario of tests/kube-apiserver/simscript.py (the SIM_* vocabulary of
tests/kube-apiserver/README.md) as a real process: lines on stdout at their times, its exit
code, SIGTERM handling. The kubelet gives it, besides the pod's env:
  SIM_* knobs     from the container's env and its command/args words (simscript.knobs_from)
  SIM_WORKER_INDEX  the pod's replica/completion index;  SIM_ATTEMPT  earlier failed runs of
                  this worker (restarts and re-created pods), for SIM_RESTART
  SIM_OOM_HOOK, SIM_EVICT_HOOK  files whose creation asks the kubelet to OOM-kill the container /
                  evict the pod (SIM_FAILURE=oom / evict: the failure comes from the kubelet)
  SIM_SHARED_DIR  a directory shared by the job's workers on this machine (SIM_FAILURE=cascade:
                  the survivors learn of the failure there, as JAX's coordination service would)
Python 3 standard library only.
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'kube-apiserver'))
from simscript import (cascade_lines, cascade_peer, failure_mode, kf, plan_exit,  # noqa: E402
                       worker_script)


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def on_term(*_):
    out('INFO:sim:received SIGTERM, exiting\n')
    os._exit(143)


def wait_killed(hook):
    """Ask the kubelet (hook file) to kill this container, then wait for it."""
    open(hook, 'w').close()
    end = time.monotonic() + 60
    while time.monotonic() < end:
        time.sleep(0.2)  # sleep-ok: a process waiting for the kubelet's kill
    return 137


def main():
    signal.signal(signal.SIGTERM, on_term)
    env = os.environ
    k = {key: v for key, v in env.items() if key.startswith('SIM_')}
    idx = int(env.get('SIM_WORKER_INDEX') or 0)
    attempt = int(env.get('SIM_ATTEMPT') or 0)
    n = env.get('NUM_PROCESSES') or env.get('JAX_NUM_PROCESSES') or '1'
    coord = env.get('COORDINATOR_ADDRESS')
    coord = f'{coord}:{env.get("COORDINATOR_PORT")}' if coord else env.get('JAX_COORDINATOR_ADDRESS', '?')
    if env.get('SIM_SIDECAR'):
        out(f'sidecar {env["SIM_SIDECAR"]} started\n')
        while True:
            time.sleep(3600)  # sleep-ok: a sidecar runs until it is stopped
    duration = kf(k, 'SIM_DURATION', 1.0)
    code, crash = plan_exit(idx, k, attempt)
    script, hang = worker_script(idx, n, coord, k, code, crash, duration)
    t0 = time.monotonic()
    for t, text in script:
        delay = t0 + (0 if hang else t) - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # sleep-ok: the scenario's line times
        out(text)
    shared = env.get('SIM_SHARED_DIR')
    marker = os.path.join(shared, 'failed') if shared else None
    if hang:
        tick = 1
        peer = cascade_peer(k, idx)
        next_tick = t0 + duration
        while True:
            time.sleep(max(0.0, next_tick - time.monotonic()))  # sleep-ok: one line a second
            next_tick += 1.0
            if peer and marker and os.path.exists(marker):
                wait = kf(k, 'SIM_CASCADE_DELAY', 5.0) - (time.time() - os.path.getmtime(marker))
                if wait > 0:
                    time.sleep(wait)  # sleep-ok: JAX's heartbeat timeout, as the scenario sets it
                out(''.join(cascade_lines()))
                return 1
            out(f'INFO:sim:still running ({tick})\n')
            tick += 1
    mode = failure_mode(k)
    if code and not crash:
        if mode == 'cascade' and marker:
            os.makedirs(shared, exist_ok=True)
            open(marker, 'w').close()
        if mode == 'oom' and env.get('SIM_OOM_HOOK'):
            return wait_killed(env['SIM_OOM_HOOK'])
        if mode == 'evict' and env.get('SIM_EVICT_HOOK'):
            return wait_killed(env['SIM_EVICT_HOOK'])
    return code


if __name__ == '__main__':
    sys.exit(main())
