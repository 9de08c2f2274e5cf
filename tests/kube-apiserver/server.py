#!/usr/bin/env python3
"""Kubernetes API test server for jaxjob (Python 3 standard library only).

Answers like a kube-apiserver 1.24 with the JAXJob CRD (and optionally the Trainer v2 CRDs)
installed, as recorded in tests/apiserver-conformance/recordings/. HTTPS with its own CA, bearer-token and
client-certificate auth, simple RBAC, watch streams, pod logs, a simulated training operator
(sim.py) and fault injection. See README.md in this directory for the whole contract.

    server.py --state-dir DIR [--port 0] [--no-operator] [--crds kubeflow.org,trainer.kubeflow.org]
              [--bookmark-interval S] [--history-window N] [--fault JSON]...

Usually started through start.sh DIR, which waits until it is ready.
"""
import argparse
import base64
import email.utils
import http.server
import json
import os
import re
import secrets
import select
import socket
import socketserver
import ssl
import sys
import threading
import time
import traceback
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import certs          # noqa: E402
import gojson         # noqa: E402
import resources as R  # noqa: E402
import sim            # noqa: E402
import tables         # noqa: E402
import visibility     # noqa: E402
from api import Api  # noqa: E402
from resources import ApiError, err  # noqa: E402
from store import Store  # noqa: E402


class Config:
    def __init__(self, a):
        self.state_dir = os.path.abspath(a.state_dir)
        self.bookmark_interval = a.bookmark_interval
        self.operator = not a.no_operator
        self.crds = set(x for x in a.crds.split(',') if x)
        self.port = 0
        self.speed = a.speed


class Faults:
    """Injected faults; every knob is documented in README.md (POST /_test/faults)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.released = threading.Condition(self.lock)    # a holdMatch fault changed
        self.reset()

    def reset(self):
        with self.lock:
            self.d = {}
            self.down_until = 0.0
            self.released.notify_all()

    def update(self, d):
        with self.lock:
            for k, v in d.items():
                if v is None:
                    self.d.pop(k, None)
                else:
                    self.d[k] = v
            if d.get('down'):
                self.down_until = time.monotonic() + float(d['down'])
            self.released.notify_all()

    def snapshot(self):
        with self.lock:
            s = dict(self.d)
            s.pop('down', None)
            left = self.down_until - time.monotonic()
            if left > 0:
                s['downFor'] = round(left, 3)
            return s

    def is_down(self):
        return time.monotonic() < self.down_until

    def _take(self, key):
        """Consume one unit of a counted fault {count, ...}; return the fault dict or None."""
        f = self.d.get(key)
        if not f:
            return None
        n = int(f.get('count', 0))
        if n <= 0:
            self.d.pop(key, None)
            return None
        f['count'] = n - 1
        return dict(f)

    def request_fault(self, method, path):
        with self.lock:
            for key in ('throttle', 'errors'):
                f = self.d.get(key)
                if not f or not _fault_matches(f, method, path):
                    continue
                return key, self._take(key)
            return None, None

    def delay(self, method, path):
        with self.lock:
            ms = self.d.get('delayMs')
            m = self.d.get('delayMatch')
        if ms and (not m or re.search(m, path)):
            time.sleep(float(ms) / 1000.0)  # sleep-ok: the delayMs fault itself (a slow server)
        self.hold(method, path)

    def hold(self, method, path):
        """holdMatch: a matching request (already in the request log) waits until the test
        removes the fault - a test sees the request arrive and acts while it is in the server's
        hands, however slow the machine, instead of guessing a delay (a ceiling of 120 s)."""
        with self.lock:
            m = self.d.get('holdMatch')
            if not m or not re.search(m, path) or self.d.get('holdMethod', method) != method:
                return
            end = time.monotonic() + 120
            while self.d.get('holdMatch') == m and time.monotonic() < end:
                self.released.wait(end - time.monotonic())

    def watch_lag(self, plural, at):
        """watchLagMs: a watch of that resource sends each event MS after it happened (the
        time it was written, `at`): one watch behind the others, as under a busy client or
        server, where a job's verdict arrives before the pod update written before it."""
        with self.lock:
            ms = self.d.get('watchLagMs')
            r = self.d.get('watchLagResource')
        if ms and (not r or r == plural):
            left = at + float(ms) / 1000.0 - time.monotonic()
            if left > 0:
                time.sleep(left)  # sleep-ok: the watchLagMs fault itself (a lagging watch)

    def take_watch_gone(self):
        with self.lock:
            n = int(self.d.get('watchGone') or 0)
            if n > 0:
                self.d['watchGone'] = n - 1
                return True
            return False

    def watch_drop_after(self):
        with self.lock:
            v = self.d.get('watchDropAfter')
            return int(v) if v else None

    def get(self, key, default=None):
        with self.lock:
            return self.d.get(key, default)


def _fault_matches(f, method, path):
    m = f.get('match')
    if m and not re.search(m, path):
        return False
    ms = f.get('methods')
    if ms and method not in ms:
        return False
    return True


class RequestLog:
    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []
        self.seq = 0

    def add(self, e):
        with self.lock:
            self.seq += 1
            e['seq'] = self.seq
            self.entries.append(e)
            if len(self.entries) > 200000:
                del self.entries[:100000]
            return e

    def since(self, n):
        with self.lock:
            return [dict(e, **({'delivered': list(e['delivered'])} if 'delivered' in e else {}))
                    for e in self.entries if e['seq'] > n]

    def clear(self):
        with self.lock:
            self.entries = []


# ---------------------------------------------------------------------------------------------

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    timeout = 600
    srv = None   # the App, set in main

    # --- connection ---------------------------------------------------------------------------
    def setup(self):
        try:
            self.request.settimeout(10)
            self.request.do_handshake()
        except (ssl.SSLError, OSError):
            self.close_connection = True
            self.handshake_failed = True
        else:
            self.handshake_failed = False
        self.request.settimeout(self.timeout)
        self.srv.track(self.request, True)
        super().setup()

    def finish(self):
        try:
            super().finish()
        finally:
            self.srv.track(self.request, False)

    def handle(self):
        if self.handshake_failed:
            return
        try:
            super().handle()
        except (ConnectionError, ssl.SSLError, socket.timeout, OSError):
            pass

    def log_message(self, fmt, *args):
        if self.srv.verbose:
            sys.stderr.write('%s %s\n' % (self.address_string(), fmt % args))

    # --- output -------------------------------------------------------------------------------
    def _headers(self, code, ctype, extra):
        self.send_response_only(code)
        self.send_header('Audit-Id', str(uuid.uuid4()))
        self.send_header('Cache-Control', 'no-cache, private')
        if ctype:
            self.send_header('Content-Type', ctype)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header('Date', email.utils.formatdate(usegmt=True))

    def send_bytes(self, code, data, ctype='application/json', extra=None):
        self.status_sent = code
        if code == 204:
            self._headers(code, None, extra)
            self.end_headers()
            return
        self._headers(code, ctype, extra)
        if len(data) < 2048:
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_header('Transfer-Encoding', 'chunked')
            self.end_headers()
            for i in range(0, len(data), 32768):
                part = data[i:i + 32768]
                self.wfile.write(b'%x\r\n%s\r\n' % (len(part), part))
            self.wfile.write(b'0\r\n\r\n')
        self.wfile.flush()

    def pretty(self):
        return (self.headers.get('User-Agent') or '').startswith('curl')

    def send_obj(self, code, obj, res=None, extra=None):
        if res is not None and res.custom and obj.get('kind') not in ('Status',):
            s = gojson.dumps(obj, sort_keys=True, indent=self.pretty())
        else:
            s = gojson.dumps(gojson.builtin_order(obj), indent=self.pretty())
        self.send_bytes(code, s.encode('utf-8'), 'application/json', extra)

    def send_error_obj(self, e):
        self.send_obj(e.code, e.body, extra=e.headers)

    def start_stream(self, ctype):
        self.status_sent = 200
        if getattr(self, 'log_entry', None) is not None:
            # a stream's status is known now: a client that leaves before the server notices
            # (a launch that stops following a finished worker) still has it in the log
            self.log_entry['code'] = 200
        self._headers(200, ctype, {'Transfer-Encoding': 'chunked'})
        self.end_headers()
        self.wfile.flush()

    def write_chunk(self, data):
        if isinstance(data, str):
            data = data.encode('utf-8')
        if not data:
            return
        if getattr(self, 'log_entry', None) is not None:    # what a stream sent, for benchmarks
            self.log_entry['bytes'] = self.log_entry.get('bytes', 0) + len(data)
        self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b'0\r\n\r\n')
        self.wfile.flush()
        self.close_connection = True

    def abort(self):
        """Drop the connection in the middle of a stream (no terminating chunk)."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.request.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def alive(self):
        """False once the client has closed the connection (checked without blocking)."""
        try:
            r, _, _ = select.select([self.request], [], [], 0)
            if not r:
                return True
            self.request.setblocking(False)
            try:
                data = self.request.recv(1)
            finally:
                self.request.setblocking(True)
                self.request.settimeout(self.timeout)
            return bool(data)
        except (ssl.SSLWantReadError, BlockingIOError):
            return True
        except (OSError, ValueError):
            return False

    def read_body(self):
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            out = b''
            while True:
                line = self.rfile.readline(65537)
                n = int(line.split(b';')[0].strip() or b'0', 16)
                if n == 0:
                    while self.rfile.readline(65537) not in (b'\r\n', b'\n', b''):
                        pass
                    return out
                out += self.rfile.read(n)
                self.rfile.readline(3)
        n = int(self.headers.get('Content-Length') or 0)
        return self.rfile.read(n) if n > 0 else None

    # --- dispatch -----------------------------------------------------------------------------
    def do_GET(self):
        self.dispatch('GET')

    def do_POST(self):
        self.dispatch('POST')

    def do_PUT(self):
        self.dispatch('PUT')

    def do_PATCH(self):
        self.dispatch('PATCH')

    def do_DELETE(self):
        self.dispatch('DELETE')

    def dispatch(self, method):
        app = self.srv
        self.status_sent = None
        self.log_entry = None
        if app.faults.is_down():
            self.abort()
            return
        u = urllib.parse.urlsplit(self.path)
        path = u.path
        q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        body = self.read_body()
        entry = None
        try:
            user = app.authenticate(self)
            if path.startswith('/_test/'):
                if 'system:masters' not in user.groups:
                    raise R.forbidden_path(user.name, method.lower(), path)
                app.control(self, method, path, q, body, user)
                return
            entry = app.reqlog.add({'time': time.time(), 'method': method, 'path': path, 'query': u.query,
                                    'user': user.name, 'userAgent': self.headers.get('User-Agent', ''),
                                    'watch': R.query_bool(q.get('watch')), 'follow': R.query_bool(q.get('follow'))})
            self.log_entry = entry
            if method == 'DELETE' and body:
                # what a delete was conditional on (a real apiserver's audit log omits a custom
                # resource's DeleteOptions even at level Request: tests/suites/68-real-safety.sh)
                try:
                    entry['preconditions'] = (json.loads(body) or {}).get('preconditions')
                except (ValueError, AttributeError):
                    pass
            app.faults.delay(method, path)
            kind, f = app.faults.request_fault(method, path)
            if f is not None:
                raise injected(kind, f)
            ctype = (self.headers.get('Content-Type') or '').split(';')[0].strip().lower()
            if method in ('POST', 'PUT') and body and ctype not in ('', 'application/json', 'application/yaml'):
                # no protobuf (or anything else) here: JSON only
                raise err(415, 'the body of the request was in an unknown format - accepted media types include: '
                               'application/json, application/yaml')
            app.route(self, method, path, q, body, user)
        except ApiError as e:
            if self.status_sent is None:
                self.send_error_obj(e)
        except NotFoundPage:
            if self.status_sent is None:
                self.send_bytes(404, b'404 page not found\n', 'text/plain; charset=utf-8')
        except (ConnectionError, ssl.SSLError, socket.timeout, BrokenPipeError):
            self.close_connection = True
        except Exception as e:  # noqa: BLE001 - a test server must answer, not die
            traceback.print_exc()
            if self.status_sent is None:
                self.send_error_obj(err(500, f'Internal error occurred: {e}'))
        finally:
            if entry is not None:
                entry['code'] = self.status_sent


class NotFoundPage(Exception):
    pass


def injected(kind, f):
    if kind == 'throttle':
        ra = int(f.get('retryAfter', 1))
        return ApiError(429, R.status(429, 'Too many requests, please try again later.',
                                      details={'retryAfterSeconds': ra}), {'Retry-After': str(ra)})
    code = int(f.get('code', 500))
    hdrs = {'Retry-After': str(int(f['retryAfter']))} if f.get('retryAfter') else {}
    if code == 503:
        return ApiError(503, R.status(503, f.get('message') or 'the server is currently unable to handle the request',
                                      details={'causes': [{'reason': 'UnexpectedServerResponse',
                                                           'message': 'injected fault'}]}), hdrs)
    if code == 504:
        return ApiError(504, R.status(504, f.get('message') or 'Timeout: request did not complete within requested '
                                      'timeout - context deadline exceeded', details={}), hdrs)
    return ApiError(code, R.status(code, f.get('message') or 'Internal error occurred: injected fault',
                                   details={'causes': [{'message': 'injected fault'}]}), hdrs)


class TLSServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def get_request(self):
        sock, addr = self.socket.accept()
        app = self.app
        if app.faults.is_down():
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\x01\x00\x00\x00\x00\x00\x00\x00')
            except OSError:
                pass
            sock.close()
            raise OSError('server is down (injected fault)')
        return app.ssl_ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request, client_address):
        pass


# ---------------------------------------------------------------------------------------------

class App:
    def __init__(self, cfg, store, verbose=False):
        self.cfg = cfg
        self.store = store
        self.api = Api(store, cfg)
        self.faults = Faults()
        self.reqlog = RequestLog()
        self.verbose = verbose
        self.tokens = {}       # token -> User
        self.users = {}        # name -> User
        self.conns = set()
        self.conns_lock = threading.Lock()
        self.sim = None
        self.ssl_ctx = None
        self.cert_gen = 0

    # --- TLS -----------------------------------------------------------------------------
    def load_tls(self, d):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(os.path.join(d, 'server.crt'), os.path.join(d, 'server.key'))
        ctx.load_verify_locations(os.path.join(self.cfg.state_dir, 'pki', 'ca.pem'))
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.set_alpn_protocols(['http/1.1'])
        self.ssl_ctx = ctx

    def rotate_cert(self):
        """A new CA and serving certificate: clients that trust the old CA must fail closed.
        Client certificates signed by the original CA stay valid."""
        self.cert_gen += 1
        d = os.path.join(self.cfg.state_dir, 'pki', f'rotated-{self.cert_gen}')
        os.makedirs(d, exist_ok=True)
        certs.make_ca(d, cn=f'jaxjob-test-ca-rotated-{self.cert_gen}')
        certs.make_server_cert(d)
        self.load_tls(d)
        with open(os.path.join(d, 'ca.pem'), 'rb') as f:
            _atomic_write(os.path.join(self.cfg.state_dir, 'ca-rotated.pem'), f.read())
        return d

    def track(self, sock, add):
        with self.conns_lock:
            (self.conns.add if add else self.conns.discard)(sock)

    def drop_connections(self, keep=None):
        with self.conns_lock:
            socks = [s for s in self.conns if s is not keep]
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # --- users ---------------------------------------------------------------------------
    def add_user(self, name, token=None, groups=(), allow=(), deny=(), namespaces=None):
        groups = list(groups) + ([] if 'system:authenticated' in groups else ['system:authenticated'])
        u = R.User(name, groups, allow, deny, namespaces)
        self.users[name] = u
        for t, v in list(self.tokens.items()):
            if v.name == name:
                del self.tokens[t]
        if token is None:
            token = secrets.token_hex(24)
        self.tokens[token] = u
        _atomic_write(os.path.join(self.cfg.state_dir, f'{name}.token'), (token + '\n').encode())
        return token

    def authenticate(self, h):
        cert = None
        try:
            cert = h.request.getpeercert()
        except (ValueError, OSError):
            cert = None
        if cert:
            cn, orgs = None, []
            for rdn in cert.get('subject', ()):
                for k, v in rdn:
                    if k == 'commonName':
                        cn = v
                    elif k == 'organizationName':
                        orgs.append(v)
            if cn:
                u = self.users.get(cn)
                if u is not None:
                    return u
                return R.User(cn, orgs + ['system:authenticated'])
        a = h.headers.get('Authorization')
        if a is None:
            return R.User('system:anonymous', ['system:unauthenticated'])
        tok = a[7:].strip() if a.lower().startswith('bearer ') else None
        u = self.tokens.get(tok) if tok else None
        if u is None:
            raise err(401, 'Unauthorized')
        return u

    # --- routing ----------------------------------------------------------------------------
    def route(self, h, method, path, q, body, user):
        parts = [p for p in path.split('/') if p]
        crds = self.cfg.crds
        # non-resource paths
        if not parts or parts[0] not in ('api', 'apis') or (parts[0] == 'api' and len(parts) < 3) \
                or (parts[0] == 'apis' and len(parts) < 4):
            anon_ok = path in ('/version', '/version/', '/healthz', '/livez', '/readyz')
            if user.name == 'system:anonymous' and not anon_ok:
                raise R.forbidden_path(user.name, method.lower(), path)
            if method != 'GET':
                raise NotFoundPage()
            if path.rstrip('/') == '/version':
                h.send_bytes(200, gojson.dumps(R.VERSION, indent=True).encode(), 'application/json')
                return
            if path in ('/healthz', '/livez', '/readyz'):
                h.send_bytes(200, b'ok', 'text/plain; charset=utf-8')
                return
            if parts == ['api']:
                h.send_obj(200, {'kind': 'APIVersions', 'versions': ['v1'], 'serverAddressByClientCIDRs': [
                    {'clientCIDR': '0.0.0.0/0', 'serverAddress': f'127.0.0.1:{self.cfg.port}'}]})
                return
            if parts == ['api', 'v1']:
                h.send_obj(200, R.resource_list('', 'v1', crds))
                return
            if parts == ['apis']:
                h.send_obj(200, R.api_group_list(crds))
                return
            if len(parts) == 2 and parts[0] == 'apis':
                g = R.api_group(parts[1], crds)
                if g:
                    h.send_obj(200, g)
                    return
            if len(parts) == 3 and parts[0] == 'apis':
                rl = R.resource_list(parts[1], parts[2], crds)
                if rl:
                    h.send_obj(200, rl)
                    return
            raise NotFoundPage()
        # resource paths: /api/v1/... or /apis/G/V/...
        if parts[0] == 'api':
            group, version, rest = '', parts[1], parts[2:]
        else:
            group, version, rest = parts[1], parts[2], parts[3:]
        # /.../namespaces/NS/PLURAL[/NAME[/SUB]] or /.../PLURAL[/NAME[/SUB]] (cluster scope, and the
        # namespaces themselves: /api/v1/namespaces/NS is the Namespace object)
        ns = None
        if rest[0] == 'namespaces' and len(rest) >= 3:
            ns, rest = rest[1], rest[2:]
        plural = rest[0]
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if len(rest) > 3:
            raise NotFoundPage()
        watch = R.query_bool(q.get('watch'))
        if method == 'GET':
            verb = 'get' if name else ('watch' if watch else 'list')
        else:
            verb = {'POST': 'create', 'PUT': 'update', 'PATCH': 'patch',
                    'DELETE': 'delete' if name else 'deletecollection'}[method]
        # system:basic-user lets every authenticated user ask about itself, unless a test user's deny
        # rules take that away (a cluster that removed the binding)
        basic = group == 'authorization.k8s.io' and plural in ('selfsubjectaccessreviews', 'selfsubjectrulesreviews') \
            and 'system:authenticated' in user.groups \
            and R.User('basic', (), ['* *'], user.deny).can('create', group, plural, '', '')
        if not basic and not user.can(verb, group, plural, sub or '', ns or ''):
            fake = R.Res(group, version, plural, plural)
            raise R.forbidden(user.name, verb, fake, sub, ns, name)
        if basic and plural == 'selfsubjectrulesreviews' and name is None and version == 'v1':
            if method != 'POST':
                raise err(405, 'the server does not allow this method on the requested resource')
            h.send_obj(201, self.api.ssrr(body, user, crds))
            return
        if group == visibility.GROUP:     # Kueue's aggregated API (visibility.py)
            if method != 'GET' or ns is None or plural != 'localqueues' or not name \
                    or sub != 'pendingworkloads' or 'kueue.x-k8s.io' not in crds:
                raise NotFoundPage()
            visibility.serve(h, self.cfg, self.store, R, version, ns, name, q, NotFoundPage, err)
            return
        res = R.find(group, version, plural, crds)
        if res is None or (sub and sub not in res.subresources):
            raise NotFoundPage()
        if res.namespaced and ns is None and (name or method != 'GET'):
            raise NotFoundPage()
        if not res.namespaced and ns is not None:
            raise NotFoundPage()
        api = self.api
        if res is R.SSAR:
            if method != 'POST':
                raise err(405, f'the server does not allow this method on the requested resource')
            h.send_obj(201, api.ssar(body, user))
            return
        key_ns = ns or ''
        if name is None:
            if method == 'GET':
                as_table = tables.wants_table(h.headers.get('Accept'))
                if watch:
                    api.watch(h, res, ns, q, self.faults, as_table)
                elif as_table:
                    lst = api.list(res, ns, q)
                    h.send_obj(200, tables.table(res.kind, lst['items'], lst['metadata']['resourceVersion']))
                else:
                    h.send_obj(200, api.list(res, ns, q), res)
                return
            if method == 'POST':
                o = api.create(res, ns, body, q, user, h.headers.get('User-Agent'))
                h.send_obj(201, o, res)
                return
            if method == 'DELETE':
                self.delete_collection(h, res, ns, q, body, user)
                return
            raise err(405, 'the server does not allow this method on the requested resource')
        if sub == 'log':
            if method != 'GET':
                raise err(405, 'the server does not allow this method on the requested resource')
            self.sim.serve_log(h, key_ns, name, q)
            return
        if method == 'GET':
            o = api.get_scale(res, key_ns, name) if sub == 'scale' else api.get(res, key_ns, name)
            if sub is None and tables.wants_table(h.headers.get('Accept')):
                h.send_obj(200, tables.table(res.kind, [o], o['metadata'].get('resourceVersion')))
                return
            h.send_obj(200, o, None if sub == 'scale' else res)
        elif method == 'PUT':
            o = api.update(res, key_ns, name, sub, body, q, h.headers.get('User-Agent'))
            h.send_obj(200, o, None if sub == 'scale' else res)
        elif method == 'PATCH':
            o = api.patch(res, key_ns, name, sub, body, h.headers.get('Content-Type'), q, h.headers.get('User-Agent'))
            h.send_obj(200, o, None if sub == 'scale' else res)
        elif method == 'DELETE':
            o, code = api.delete(res, key_ns, name, body, q, h.headers.get('User-Agent'))
            h.send_obj(code, o, None if o.get('kind') == 'Status' else res)
        else:
            raise err(405, 'the server does not allow this method on the requested resource')

    def delete_collection(self, h, res, ns, q, body, user):
        match = self.api.selectors(res, q)
        items, _ = self.store.list(res, ns)
        for o in [x for x in items if match(x)]:
            try:
                self.api.delete(res, o['metadata'].get('namespace', ''), o['metadata']['name'], body, q, '')
            except ApiError:
                pass
        h.send_obj(200, self.api.list(res, ns, {k: v for k, v in q.items() if k != 'resourceVersion'}), res)

    # --- control endpoints --------------------------------------------------------------------
    def control(self, h, method, path, q, body, user):
        data = {}
        if body:
            try:
                data = json.loads(body)
            except ValueError:
                raise err(400, 'control endpoints take a JSON object')
        if path == '/_test/faults':
            if method == 'DELETE':
                self.faults.reset()
            elif method in ('POST', 'PATCH', 'PUT'):
                self.apply_faults(data, h)
            h.send_bytes(200, json.dumps(self.faults.snapshot()).encode(), 'application/json')
            if data.get('down') or data.get('restart'):
                self.drop_connections()
            return
        if path == '/_test/requests':
            if method == 'DELETE':
                self.reqlog.clear()
                h.send_bytes(200, b'[]', 'application/json')
                return
            entries = self.reqlog.since(int(q.get('since') or 0))
            h.send_bytes(200, json.dumps(entries).encode(), 'application/json')
            return
        if path == '/_test/settle':
            ok = self.sim.settle(float(q.get('horizon') or 0.1))
            h.send_bytes(200 if ok else 504, json.dumps({'settled': ok}).encode(), 'application/json')
            return
        if path == '/_test/state':
            h.send_bytes(200, json.dumps(self.state(), indent=1).encode(), 'application/json')
            return
        if path == '/_test/config':
            if method in ('POST', 'PATCH', 'PUT'):
                if 'bookmarkInterval' in data:
                    self.cfg.bookmark_interval = float(data['bookmarkInterval'])
                if 'historyWindow' in data:
                    self.store.set_window(int(data['historyWindow']))
                if 'operator' in data:
                    self.cfg.operator = bool(data['operator'])
                if 'crds' in data:
                    self.cfg.crds = set(data['crds'])
                if 'speed' in data:
                    self.cfg.speed = float(data['speed'])
                if 'visibility' in data:
                    self.cfg.visibility = list(data['visibility'] or [])
                if 'visibilityAnswer' in data:
                    self.cfg.visibility_answer = data['visibilityAnswer']
            h.send_bytes(200, json.dumps({'bookmarkInterval': self.cfg.bookmark_interval,
                                          'historyWindow': self.store.window, 'operator': self.cfg.operator,
                                          'crds': sorted(self.cfg.crds), 'speed': self.cfg.speed}).encode(),
                         'application/json')
            return
        if path == '/_test/users' and method == 'POST':
            self.add_user(data['name'], data.get('token'), data.get('groups', ()), data.get('allow', ()),
                          data.get('deny', ()), data.get('namespaces'))
            h.send_bytes(200, json.dumps(self.users[data['name']].to_json()).encode(), 'application/json')
            return
        raise NotFoundPage()

    def apply_faults(self, data, h):
        data = dict(data)
        if data.pop('rotateCert', False):
            self.rotate_cert()
        if data.pop('restoreCert', False):
            self.load_tls(os.path.join(self.cfg.state_dir, 'pki'))
        restart = data.pop('restart', None)
        if restart:
            # down for that long, then back with a fresh watch cache (store.restart_cache)
            data['down'] = restart
            self.store.restart_cache()
        for key in ('revokeToken', 'rotateToken'):
            who = data.pop(key, None)
            if not who:
                continue
            u = self.users.get(who)
            for t, v in list(self.tokens.items()):
                if t == who or (u is not None and v is u):
                    del self.tokens[t]
            if key == 'rotateToken' and u is not None:
                self.add_user(u.name, None, u.groups, u.allow, u.deny, u.namespaces)
        release = any(k in data and not data[k] for k in ('holdLateWorkers', 'holdVerdict'))
        self.faults.update(data)
        if release and self.sim is not None:
            self.sim.kick_all()     # the held late workers' pods are created, held verdicts written, now

    def state(self):
        with self.store.lock:
            out = {'resourceVersion': self.store.rv, 'compactedResourceVersion': self.store.compacted,
                   'historyWindow': self.store.window, 'watchers': len(self.store.watchers),
                   'connections': len(self.conns), 'requests': self.reqlog.seq, 'objects': {}, 'jaxjobs': [],
                   'trainjobs': [], 'pods': [], 'faults': self.faults.snapshot()}
            for res in R.ALL:
                items, _ = self.store.list(res)
                if items:
                    out['objects'][res.plural] = len(items)
            for res, key in ((R.JAXJOBS, 'jaxjobs'), (R.TRAINJOBS, 'trainjobs')):
                for o in self.store.list(res)[0]:
                    conds = [c.get('type') for c in (o.get('status') or {}).get('conditions') or []
                             if c.get('status') == 'True']
                    out[key].append({'namespace': o['metadata']['namespace'], 'name': o['metadata']['name'],
                                     'uid': o['metadata']['uid'], 'conditions': conds,
                                     'deleting': bool(o['metadata'].get('deletionTimestamp'))})
            for o in self.store.list(R.PODS)[0]:
                out['pods'].append({'namespace': o['metadata']['namespace'], 'name': o['metadata']['name'],
                                    'phase': (o.get('status') or {}).get('phase'),
                                    'deleting': bool(o['metadata'].get('deletionTimestamp'))})
        return out


def _atomic_write(path, data, mode=0o600):
    tmp = f'{path}.tmp{os.getpid()}'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def write_kubeconfigs(d, port, admin_token):
    url = f'https://127.0.0.1:{port}'
    ca = os.path.join(d, 'ca.pem')

    def kc(user_block, ctx_ns='team-a', user='admin'):
        return (f'apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {url}\n'
                f'    certificate-authority: {ca}\nusers:\n- name: {user}\n  user:\n{user_block}'
                f'contexts:\n- name: test\n  context:\n    cluster: test\n    user: {user}\n    namespace: {ctx_ns}\n'
                f'current-context: test\n').encode()
    _atomic_write(os.path.join(d, 'kubeconfig'), kc(f'    token: {admin_token}\n'))
    _atomic_write(os.path.join(d, 'kubeconfig-tokenfile'), kc(f'    tokenFile: {os.path.join(d, "admin.token")}\n'))
    _atomic_write(os.path.join(d, 'kubeconfig-cert'),
                  kc(f'    client-certificate: {os.path.join(d, "admin.crt")}\n'
                     f'    client-key: {os.path.join(d, "admin.key")}\n'))
    def b64(p):
        with open(os.path.join(d, p), 'rb') as f:
            return base64.b64encode(f.read()).decode()
    data = (f'apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {url}\n'
            f'    certificate-authority-data: {b64("ca.pem")}\nusers:\n- name: admin\n  user:\n'
            f'    client-certificate-data: {b64("admin.crt")}\n    client-key-data: {b64("admin.key")}\n'
            f'contexts:\n- name: test\n  context:\n    cluster: test\n    user: admin\n    namespace: team-a\n'
            f'current-context: test\n').encode()
    _atomic_write(os.path.join(d, 'kubeconfig-cert-data'), data)


def seed(app):
    s, api = app.store, app.api
    for ns in ('default', 'kube-system', 'team-a'):
        api.create(R.NAMESPACES, None, json.dumps({'apiVersion': 'v1', 'kind': 'Namespace',
                                                   'metadata': {'name': ns}}).encode(), {}, None, 'kube-apiserver/v1.24.0')
    if 'trainer.kubeflow.org' in app.cfg.crds:
        container = {'name': 'node', 'image': 'nvcr.io/nvidia/jax:25.10-py3'}
        job_tmpl = {'metadata': {'labels': {'trainer.kubeflow.org/trainjob-ancestor-step': 'trainer'}},
                    'spec': {'template': {'spec': {'containers': [container]}}}}
        rt = {'apiVersion': 'trainer.kubeflow.org/v1alpha1', 'kind': 'ClusterTrainingRuntime',
              'metadata': {'name': 'jax-distributed', 'labels': {'trainer.kubeflow.org/framework': 'jax'}},
              'spec': {'mlPolicy': {'numNodes': 1, 'jax': {}},
                       'template': {'spec': {'replicatedJobs': [{'name': 'node', 'template': job_tmpl}]}}}}
        api.create(R.CTRS, None, json.dumps(rt).encode(), {}, None, 'kubectl/v1.24.0')
    with s.lock:
        s.compacted = s.rv     # history starts now: older resourceVersions are "too old"
        s.history.clear()


def main(argv=None):
    ap = argparse.ArgumentParser(description='Kubernetes API test server for jaxjob')
    ap.add_argument('--state-dir', required=True, help='where certificates, tokens, kubeconfigs and port go')
    ap.add_argument('--host', default='127.0.0.1')
    ap.add_argument('--port', type=int, default=0, help='0 = a free port')
    ap.add_argument('--no-operator', action='store_true', help='no simulated operator/kubelet (like the recordings)')
    ap.add_argument('--crds', default='kubeflow.org,trainer.kubeflow.org',
                    help='CRD groups installed (comma-separated; the recordings had only kubeflow.org)')
    ap.add_argument('--profile', choices=['full', 'recorded'], default='full',
                    help='recorded = exactly the recorded cluster: no operator, JAXJob CRD only')
    ap.add_argument('--bookmark-interval', type=float, default=60.0, help='seconds between watch BOOKMARKs')
    ap.add_argument('--history-window', type=int, default=2000, help='watch history events kept (older: 410)')
    ap.add_argument('--speed', type=float, default=1.0, help='operator simulation speed factor')
    ap.add_argument('--fault', action='append', default=[], help='initial faults, JSON as for POST /_test/faults')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args(argv)
    if a.profile == 'recorded':
        a.no_operator, a.crds = True, 'kubeflow.org'
    cfg = Config(a)
    d = cfg.state_dir
    os.makedirs(d, exist_ok=True)
    pki = os.path.join(d, 'pki')
    certs.make_all(pki, clients=(('admin', 'system:masters'), ('nobody', None)))
    for src, dst in (('ca.pem', 'ca.pem'), ('admin.crt', 'admin.crt'), ('admin.key', 'admin.key'),
                     ('nobody.crt', 'nobody.crt'), ('nobody.key', 'nobody.key')):
        with open(os.path.join(pki, src), 'rb') as f:
            _atomic_write(os.path.join(d, dst), f.read(), 0o644 if dst.endswith('.pem') else 0o600)
    store = Store(window=a.history_window)
    app = App(cfg, store, a.verbose)
    app.load_tls(pki)
    admin_token = app.add_user('admin', None, ['system:masters', 'system:authenticated'])
    app.add_user('nobody', None, ['system:authenticated'])
    # ready-made restricted users for launcher tests (see README.md)
    everything = ['* jaxjobs', '* jaxjobs/status', '* trainjobs', '* trainjobs/status', '* pods', '* pods/log',
                  '* events', 'get clustertrainingruntimes', 'list clustertrainingruntimes',
                  'create selfsubjectaccessreviews', 'get namespaces']
    app.add_user('nowatch', None, ['system:authenticated'], everything, ['watch *'])
    app.add_user('nocreate', None, ['system:authenticated'], everything, ['create jaxjobs', 'create trainjobs'])
    app.add_user('nologs', None, ['system:authenticated'], everything, ['* pods/log'])
    Handler.srv = app
    httpd = TLSServer((a.host, a.port), Handler)
    httpd.app = app
    cfg.port = httpd.server_address[1]
    app.sim = sim.Simulator(app)
    app.api.webhooks.append(app.sim.webhook)
    seed(app)
    for f in a.fault:
        app.apply_faults(json.loads(f), None)
    app.sim.start()
    write_kubeconfigs(d, cfg.port, admin_token)
    _atomic_write(os.path.join(d, 'port'), f'{cfg.port}\n'.encode(), 0o644)
    _atomic_write(os.path.join(d, 'pid'), f'{os.getpid()}\n'.encode(), 0o644)
    _atomic_write(os.path.join(d, 'url'), f'https://127.0.0.1:{cfg.port}\n'.encode(), 0o644)
    print(f'kube-apiserver (test) listening on https://127.0.0.1:{cfg.port}', flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
