"""Data-parallel linear regression across processes with jax.distributed on CPU.

Each process holds its own shard of a synthetic data set; every step computes the local
gradient and sums it across ALL processes with a real collective (lax.psum inside shard_map
over a mesh of every process's CPU device; on CPU the cross-process all-reduce is gloo,
option jax_cpu_collectives_implementation, jax/_src/config.py at jax 0.10.2). The printed
lines are what the launcher turns into metrics (component/README.md, "metrics"):

    step 10/100 loss=0.123456 worker=0

Configuration (env), as the training operator v1.9 injects it for a JAXJob:
COORDINATOR_ADDRESS, COORDINATOR_PORT, NUM_PROCESSES, PROCESS_ID; or as Trainer v2's
jax-distributed runtime does: JAX_COORDINATOR_ADDRESS (host:port), JAX_NUM_PROCESSES,
JAX_PROCESS_ID. Without them it runs as one process. Knobs: TRAIN_STEPS (100),
TRAIN_LOG_EVERY (10), TRAIN_LR (0.02), TRAIN_BATCH (256 rows per process),
TRAIN_INIT_TIMEOUT (seconds to wait for the other processes, 300: jax's default).
Exit 0 when the loss fell (1 when it did not: diverged or NaN); 1 on a bad setting.
"""
import os
import sys
import time


def setting(names, default=None, conv=str):
    for n in names:
        v = os.environ.get(n)
        if v not in (None, ''):
            try:
                return conv(v)
            except ValueError:
                sys.exit(f'train.py: {n}={v!r} is not a valid {conv.__name__}; fix the env of the container')
    return default


def main():
    host = setting(['COORDINATOR_ADDRESS'])
    port = setting(['COORDINATOR_PORT'])
    coord = f'{host}:{port}' if host and port else setting(['JAX_COORDINATOR_ADDRESS'])
    nproc = setting(['NUM_PROCESSES', 'JAX_NUM_PROCESSES'], 1, int)
    pid = setting(['PROCESS_ID', 'JAX_PROCESS_ID'], 0, int)
    steps = setting(['TRAIN_STEPS'], 100, int)
    every = max(1, setting(['TRAIN_LOG_EVERY'], 10, int))
    lr = setting(['TRAIN_LR'], 0.02, float)
    batch = setting(['TRAIN_BATCH'], 256, int)
    timeout = setting(['TRAIN_INIT_TIMEOUT'], 300, int)
    if nproc > 1 and not coord:
        sys.exit('train.py: NUM_PROCESSES > 1 but no coordinator: set COORDINATOR_ADDRESS and COORDINATOR_PORT '
                 '(or JAX_COORDINATOR_ADDRESS=host:port)')
    if not 0 <= pid < nproc:
        sys.exit(f'train.py: PROCESS_ID={pid} is outside 0..{nproc - 1} (NUM_PROCESSES={nproc})')

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P

    jax.config.update('jax_cpu_collectives_implementation', 'gloo')
    t0 = time.monotonic()
    if nproc > 1:
        print(f'worker {pid} of {nproc}: jax {jax.__version__}, connecting to coordinator {coord}', flush=True)
        jax.distributed.initialize(coordinator_address=coord, num_processes=nproc, process_id=pid,
                                   initialization_timeout=timeout, cluster_detection_method='deactivate')
    devices = jax.devices()
    print(f'worker {pid}: {jax.process_count()} processes, {len(devices)} devices '
          f'({jax.local_device_count()} local), up in {time.monotonic() - t0:.1f}s', flush=True)
    mesh = jax.make_mesh((len(devices),), ('p',), devices=devices)
    shard = NamedSharding(mesh, P('p'))

    # this process's shard of y = X w_true + b_true + noise (same truth everywhere, own rows)
    dim = 8
    w_true = np.linspace(-1.0, 1.0, dim).astype(np.float32)
    rng = np.random.default_rng(1000 + pid)
    rows = batch * jax.local_device_count()
    x_local = rng.normal(size=(rows, dim)).astype(np.float32)
    y_local = (x_local @ w_true + 0.5 + 0.01 * rng.normal(size=rows)).astype(np.float32)
    x = jax.make_array_from_process_local_data(shard, x_local)
    y = jax.make_array_from_process_local_data(shard, y_local)
    total_rows = rows * jax.process_count()

    def local_step(params, xs, ys):
        def sq_err(p):
            w, b = p
            return jnp.sum((xs @ w + b - ys) ** 2)
        err, grads = jax.value_and_grad(sq_err)(params)
        # the cross-process reduction: every process's error and gradient summed
        err = jax.lax.psum(err, 'p')
        grads = jax.lax.psum(grads, 'p')
        w, b = params
        gw, gb = grads
        return (w - lr * gw / total_rows, b - lr * gb / total_rows), err / total_rows

    step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P('p'), P('p')),
                                 out_specs=(P(), P())))
    # a check that the reduction is real: the sum of every process's id
    ids = jax.make_array_from_process_local_data(shard, np.full((jax.local_device_count(),), pid, np.int32))
    total = jax.jit(jax.shard_map(lambda v: jax.lax.psum(jnp.sum(v), 'p'), mesh=mesh, in_specs=P('p'),
                                  out_specs=P()))(ids)
    want = sum(range(nproc)) * jax.local_device_count()
    print(f'worker {pid}: all-reduce of the process ids gives {int(total)} (expected {want})', flush=True)
    if int(total) != want:
        sys.exit(f'train.py: the cross-process sum is {int(total)}, expected {want}')

    params = (jnp.zeros((dim,), jnp.float32), jnp.zeros((), jnp.float32))
    first = None
    for s in range(1, steps + 1):
        params, loss = step(params, x, y)
        if s == 1 or s % every == 0 or s == steps:
            loss = float(loss)
            first = loss if first is None else first
            print(f'step {s}/{steps} loss={loss:.6f} worker={pid}', flush=True)
    w, b = params
    err = float(jnp.max(jnp.abs(w - w_true)))
    print(f'worker {pid} finished: loss {loss:.6f} (from {first:.6f}), |w - w_true| max {err:.4f}, b {float(b):.4f}, '
          f'{time.monotonic() - t0:.1f}s', flush=True)
    if nproc > 1:
        jax.distributed.shutdown()
    return 0 if loss < first else 1


if __name__ == '__main__':
    sys.exit(main())
