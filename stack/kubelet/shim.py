#!/usr/bin/python3
"""The kubelet double's container shim: reads a container's stdout and stderr (inherited file
descriptors) and appends them to its CRI log, as containerd's shim does for a real container, so
the log goes on being written with its true times while the kubelet is stopped or busy. Exits
when both streams are closed (the container and everything it started are gone).

    shim.py LOG STDOUT_FD STDERR_FD

Python 3 standard library only."""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crilog  # noqa: E402


def pump(fd, stream, w):
    with os.fdopen(fd, 'rb', buffering=0) as f:
        pending = b''
        while True:
            chunk = f.read(65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b'\n')
            for line in lines:
                w.write(stream, line + b'\n')
            while len(pending) > crilog.MAX_LINE:     # a line too long to hold: its P pieces now
                w.write_partial(stream, pending[:crilog.MAX_LINE])
                pending = pending[crilog.MAX_LINE:]
        if pending:
            w.write(stream, pending)


def main():
    log, out_fd, err_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w = crilog.Writer(log)
    ts = [threading.Thread(target=pump, args=(out_fd, b'stdout', w)),
          threading.Thread(target=pump, args=(err_fd, b'stderr', w))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    w.close()


if __name__ == '__main__':
    main()
