"""Container logs as a container runtime writes them and a kubelet serves them.

File format (CRI, what containerd writes under /var/log/pods): one line per record,
    <RFC 3339 time, 9 fixed digits> <stdout|stderr> <F|P> <text>
stamped when the runtime read the bytes; a line longer than MAX_LINE is cut into P (partial)
pieces ended by an F piece (containerd's max_container_log_line_size, 16 KiB by default).

Serving (kubelet pkg/kubelet/kuberuntime/logs/logs.go ReadLogs): tailLines picks the last N
records first, then sinceTime drops older ones, limitBytes cuts the output; timestamps=true
prefixes each record with its time (RFC3339NanoFixed) and a space; P pieces are sent without a
newline, so a cut line arrives whole, with one timestamp (logWriter.write's addPrefix);
follow=true streams until the container has exited and everything was sent.
Python 3 standard library only."""
import os
import re
import threading
import time

MAX_LINE = 16 * 1024
CRI = re.compile(rb'^(\S+) (stdout|stderr) ([FP]) (.*)$', re.S)


def fmt_ts(ns):
    sec, frac = divmod(ns, 1_000_000_000)
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(sec)) + f'.{frac:09d}Z'


def parse_ts(s):
    """RFC 3339 (fraction optional, Z or offset) -> ns since the epoch; ValueError if not."""
    m = re.match(r'^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$', s.strip())
    if not m:
        raise ValueError(f'{s!r} is not an RFC 3339 time')
    import calendar
    sec = calendar.timegm(time.strptime(m.group(1), '%Y-%m-%dT%H:%M:%S'))
    tz = m.group(3)
    if tz != 'Z':
        off = int(tz[1:3]) * 3600 + int(tz[4:6]) * 60
        sec -= off if tz[0] == '+' else -off
    frac = (m.group(2) or '.0')[1:]
    return sec * 1_000_000_000 + int((frac + '000000000')[:9])


class Writer:
    """What the runtime's shim does (shim.py): append records to a container's CRI log."""

    def __init__(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.fh = open(path, 'ab')
        self.lock = threading.Lock()

    def write(self, stream, data):
        """Append DATA (bytes, one line with or without its newline) read from STREAM."""
        text = data[:-1] if data.endswith(b'\n') else data
        ts = fmt_ts(time.time_ns()).encode()
        out = []
        while len(text) > MAX_LINE:
            out.append(b'%s %s P %s\n' % (ts, stream, text[:MAX_LINE]))
            text = text[MAX_LINE:]
        out.append(b'%s %s F %s\n' % (ts, stream, text))
        with self.lock:
            self.fh.write(b''.join(out))
            self.fh.flush()

    def write_partial(self, stream, piece):
        """A piece of a line still being written (MAX_LINE bytes without a newline yet)."""
        with self.lock:
            self.fh.write(b'%s %s P %s\n' % (fmt_ts(time.time_ns()).encode(), stream, piece))
            self.fh.flush()

    def close(self):
        self.fh.close()


class LogFile:
    """One container instance's log as the kubelet serves it: the file the shim writes, and
    whether the container has exited and the shim has written all of its output."""

    POLL = 0.1    # how often a follow looks for new records (the kubelet watches the file too)

    def __init__(self, path):
        self.path = path
        self.cv = threading.Condition()
        self.done = False

    def finish(self):
        with self.cv:
            self.done = True
            self.cv.notify_all()

    def records(self, offset):
        """(records, new offset): complete records from byte OFFSET on."""
        try:
            with open(self.path, 'rb') as f:
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            return [], offset
        end = data.rfind(b'\n') + 1
        recs = []
        for line in data[:end].split(b'\n')[:-1]:
            m = CRI.match(line)
            if not m:
                continue
            try:
                ts = parse_ts(m.group(1).decode())
            except ValueError:
                continue
            recs.append((ts, m.group(3) == b'P', m.group(4)))
        return recs, offset + end


def serve(lf, out, follow=False, timestamps=False, since=None, tail=None, limit=None, alive=lambda: True,
          max_seconds=6 * 3600):
    """Write the log of LogFile LF to OUT(bytes) with the kubelet's options. ALIVE() false ends a
    follow early (the pod is gone)."""
    sent = 0
    line_start = True      # the stamp goes before a line's first piece only (logs.go addPrefix)
    recs, off = lf.records(0)
    if tail is not None:
        recs = recs[-tail:] if tail > 0 else []
    deadline = time.monotonic() + max_seconds
    while True:
        buf = []
        for ts, partial, text in recs:
            if since is not None and ts < since:
                continue
            piece = text if partial else text + b'\n'
            if timestamps and line_start:
                piece = fmt_ts(ts).encode() + b' ' + piece
            line_start = not partial
            if limit is not None and sent + len(piece) > limit:
                piece = piece[:max(0, limit - sent)]
            buf.append(piece)
            sent += len(piece)
            if limit is not None and sent >= limit:
                break
        if buf:
            out(b''.join(buf))
        if not follow or (limit is not None and sent >= limit):
            return
        with lf.cv:
            while True:
                recs, off2 = lf.records(off)
                if recs or off2 != off:
                    off = off2
                    break
                if lf.done or not alive() or time.monotonic() > deadline:
                    return
                lf.cv.wait(lf.POLL)
