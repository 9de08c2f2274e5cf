"""The kubelet double's API access: one HTTPS client with a client certificate, retries while the
server is away, LIST+WATCH informers that re-list on 410 and resume a dropped stream (as
client-go's reflector does). Python 3 standard library only."""
import copy
import http.client
import json
import ssl
import sys
import threading
import time
import urllib.parse

STOP = threading.Event()


def say(msg):
    sys.stderr.write(time.strftime('%H:%M:%S ', time.gmtime()) + msg + '\n')
    sys.stderr.flush()


class Gone(Exception):
    """A watch answered 410 Expired: re-list."""


class Kube:
    def __init__(self, server, ca, cert, key, ua):
        u = urllib.parse.urlparse(server)
        self.host, self.port, self.ua = u.hostname, u.port or 443, ua
        self.ctx = ssl.create_default_context(cafile=ca)
        self.ctx.load_cert_chain(cert, key)

    def conn(self, timeout):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def once(self, method, path, body=None, ctype='application/json'):
        c = self.conn(30)
        try:
            data = json.dumps(body).encode() if body is not None else None
            c.request(method, path, body=data, headers={'Content-Type': ctype, 'Accept': 'application/json',
                                                        'User-Agent': self.ua})
            r = c.getresponse()
            raw = r.read()
            try:
                obj = json.loads(raw) if raw else {}
            except ValueError:
                obj = {'message': raw.decode('utf-8', 'replace')}
            return r.status, obj
        finally:
            c.close()

    def call(self, method, path, body=None, ctype='application/json', patience=180.0):
        """One API call; connection errors, 5xx and 429 are retried while the server is away
        (an apiserver restart); any other answer is returned as (code, object)."""
        end = time.monotonic() + patience
        delay = 0.2
        while True:
            try:
                code, obj = self.once(method, path, body, ctype)
                if code < 500 and code != 429:
                    return code, obj
            except (OSError, http.client.HTTPException):
                code, obj = 0, {}
            if STOP.is_set() or time.monotonic() > end:
                return code, obj
            time.sleep(delay)  # sleep-ok: client retry backoff (client-go backs off too)
            delay = min(2.0, delay * 2)

    def watch(self, path, rv):
        """Yield (type, object) of one watch stream from rv; return when the server ends it."""
        sep = '&' if '?' in path else '?'
        q = f'{path}{sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=240&resourceVersion={rv}'
        c = self.conn(300)
        try:
            c.request('GET', q, headers={'Accept': 'application/json', 'User-Agent': self.ua})
            r = c.getresponse()
            if r.status == 410:
                raise Gone()
            if r.status != 200:
                raise OSError(f'watch {path}: HTTP {r.status}')
            while not STOP.is_set():
                line = r.readline()
                if not line:
                    return
                ev = json.loads(line)
                if ev.get('type') == 'ERROR':
                    if (ev.get('object') or {}).get('code') == 410:
                        raise Gone()
                    raise OSError(f'watch {path}: {ev.get("object")}')
                yield ev.get('type'), ev.get('object') or {}
        finally:
            c.close()


class Informer:
    """LIST + WATCH of one resource (all namespaces) with a cache; handler(type, obj) is called
    on the informer's thread ('SYNC' for every object of a (re-)list)."""

    def __init__(self, kube, path, handler):
        self.kube, self.path, self.handler = kube, path, handler
        self.cache = {}
        self.lock = threading.Lock()
        self.synced = threading.Event()

    def get(self, ns, name):
        with self.lock:
            o = self.cache.get((ns, name))
            return copy.deepcopy(o) if o else None

    def items(self):
        with self.lock:
            return [copy.deepcopy(o) for o in self.cache.values()]

    def put(self, obj):
        """Take a newer copy (the answer to our own write) before the watch brings it."""
        m = obj.get('metadata') or {}
        key = (m.get('namespace', ''), m.get('name'))
        with self.lock:
            cur = self.cache.get(key)
            if cur is None or int(cur['metadata'].get('resourceVersion') or 0) <= int(m.get('resourceVersion') or 0):
                self.cache[key] = obj

    def relist(self):
        code, lst = self.kube.call('GET', self.path)
        if code != 200:
            raise OSError(f'list {self.path}: HTTP {code}')
        new = {(o['metadata'].get('namespace', ''), o['metadata']['name']): o for o in lst.get('items') or []}
        with self.lock:
            gone = [o for k, o in self.cache.items() if k not in new]
            self.cache = new
        for o in gone:
            self.handler('DELETED', o)
        for o in new.values():
            self.handler('SYNC', o)
        self.synced.set()
        return lst['metadata']['resourceVersion']

    def run(self):
        rv = None
        while not STOP.is_set():
            try:
                if rv is None:
                    rv = self.relist()
                for etype, obj in self.kube.watch(self.path, rv):
                    rv = (obj.get('metadata') or {}).get('resourceVersion') or rv
                    if etype == 'BOOKMARK':
                        continue
                    m = obj.get('metadata') or {}
                    key = (m.get('namespace', ''), m.get('name'))
                    with self.lock:
                        if etype == 'DELETED':
                            self.cache.pop(key, None)
                        else:
                            self.cache[key] = obj
                    self.handler(etype, obj)
            except Gone:
                say(f'watch {self.path}: 410 Expired, re-listing')
                rv = None
            except (OSError, http.client.HTTPException, ValueError) as e:
                if not STOP.is_set():
                    say(f'watch {self.path}: {e.__class__.__name__}: {e}; reconnecting')
                    time.sleep(0.5)  # sleep-ok: reconnect backoff (client-go's reflector backs off too)

    def start(self):
        threading.Thread(target=self.run, name='watch ' + self.path, daemon=True).start()
