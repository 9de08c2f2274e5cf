"""A tiny client for the test server (used by tests/suites/31-apiserver-self.py and by hand):

    python3 kclient.py DIR GET /api/v1/namespaces/team-a/pods
    python3 kclient.py DIR POST /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs @job.json
    python3 kclient.py DIR STREAM '/api/v1/namespaces/team-a/pods/x/log?follow=true'
    python3 kclient.py DIR POST /_test/faults '{"watchDropAfter": 2}'

DIR is the directory given to start.sh.
"""
import http.client
import json
import os
import ssl
import sys
import time


class Client:
    def __init__(self, d, token_user='admin', cert_user=None, ca=None):
        self.d = d
        with open(os.path.join(d, 'port')) as f:
            self.port = int(f.read().strip())
        self.ctx = ssl.create_default_context(cafile=ca or os.path.join(d, 'ca.pem'))
        if cert_user:
            self.ctx.load_cert_chain(os.path.join(d, f'{cert_user}.crt'), os.path.join(d, f'{cert_user}.key'))
            self.token = None
        elif token_user:
            with open(os.path.join(d, f'{token_user}.token')) as f:
                self.token = f.read().strip()
        else:
            self.token = None

    def _conn(self, method, path, body=None, ctype='application/json', timeout=30):
        c = http.client.HTTPSConnection('127.0.0.1', self.port, context=self.ctx, timeout=timeout)
        h = {'Accept': 'application/json', 'User-Agent': 'kclient/0.1'}
        if self.token:
            h['Authorization'] = 'Bearer ' + self.token
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            h['Content-Type'] = ctype
        c.request(method, path, body=data, headers=h)
        return c, c.getresponse()

    def req(self, method, path, body=None, ctype='application/json'):
        """(status, parsed JSON or text, headers)."""
        c, r = self._conn(method, path, body, ctype)
        raw = r.read()
        c.close()
        try:
            val = json.loads(raw) if raw else None
        except ValueError:
            val = raw.decode('utf-8', 'replace')
        return r.status, val, dict(r.getheaders())

    def get(self, path):
        return self.req('GET', path)[1]

    def stream(self, path, seconds=10.0, until=None):
        """Read a stream (watch or log) for at most `seconds`; returns (status, list of lines, ended)."""
        c, r = self._conn('GET', path, timeout=seconds + 5)
        lines, ended = [], False
        end = time.monotonic() + seconds
        if r.status != 200:
            raw = r.read()
            c.close()
            return r.status, [raw.decode('utf-8', 'replace')], True
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            c.sock.settimeout(left)
            try:
                line = r.readline()
            except (TimeoutError, OSError):
                break
            if not line:
                ended = True
                break
            lines.append(line.decode('utf-8', 'replace'))
            if until and until(lines[-1]):
                break
        c.close()
        return r.status, lines, ended

    def wait_for(self, path, pred, seconds=60.0):
        end = time.monotonic() + seconds
        last = None
        while time.monotonic() < end:
            st, last, _ = self.req('GET', path)
            if st == 200 and pred(last):
                return last
            time.sleep(0.05)    # sleep-ok: poll interval (seconds is a ceiling against hangs)
        raise AssertionError(f'timed out waiting on {path}; last: {json.dumps(last)[:400]}')


def main():
    d, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
    body = None
    if len(sys.argv) > 4:
        arg = sys.argv[4]
        if arg.startswith('@'):
            with open(arg[1:], 'rb') as f:
                body = f.read()
        else:
            body = arg.encode()
    c = Client(d)
    if method == 'STREAM':
        st, lines, _ = c.stream(path, float(os.environ.get('SECONDS_', '10')))
        sys.stdout.write(''.join(lines))
        return 0 if st == 200 else 1
    ctype = 'application/merge-patch+json' if method == 'PATCH' else 'application/json'
    st, val, _ = c.req(method, path, body, ctype)
    print(json.dumps(val, indent=1) if not isinstance(val, str) else val)
    return 0 if st < 400 else 1


if __name__ == '__main__':
    sys.exit(main())
