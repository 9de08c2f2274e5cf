"""In-memory object store with etcd-like resourceVersion semantics.

- One global counter: every committed change (create, update, delete) takes the next
  resourceVersion, whatever the resource, as in etcd.
- Stored objects are never mutated after commit (copy, change, commit), so the history
  can share them with watchers without copying.
- A bounded event history (the "watch cache window") lets a watch start from any
  resourceVersion still in the window; older ones get 410 Expired. The window size is
  configurable so tests can make compaction happen.
- Watchers get every change of their resource through a queue; selector filtering (and the
  ADDED/DELETED a selector change implies) is done on the watcher's side.
"""
import base64
import collections
import copy
import json
import queue
import re
import threading
import time


class Event:
    __slots__ = ('rv', 'res', 'type', 'obj', 'prev', 'at')

    def __init__(self, rv, res, etype, obj, prev):
        self.rv, self.res, self.type, self.obj, self.prev = rv, res, etype, obj, prev
        self.at = time.monotonic()     # when it happened (the watchLagMs fault counts from it)


class Watcher:
    def __init__(self, res, ns):
        self.res, self.ns = res, ns
        self.q = queue.Queue()

    def offer(self, ev):
        if ev.res == self.res and (self.ns is None or ns_of(ev.obj) == self.ns):
            self.q.put(ev)


def ns_of(obj):
    return (obj.get('metadata') or {}).get('namespace') or ''


def name_of(obj):
    return (obj.get('metadata') or {}).get('name') or ''


class Store:
    def __init__(self, window=2000, start_rv=100):
        self.lock = threading.RLock()
        self.rv = start_rv
        self.objs = collections.defaultdict(dict)   # res -> {(ns, name): obj}
        self.history = collections.deque()
        self.window = window
        self.compacted = start_rv                   # events with rv <= compacted are gone
        self.watchers = set()
        self.listeners = []                         # callables(Event), called under the lock

    # --- reads ---------------------------------------------------------------------------
    def get(self, res, ns, name):
        with self.lock:
            o = self.objs[res].get((ns or '', name))
            return copy.deepcopy(o) if o is not None else None

    def peek(self, res, ns, name):
        """The stored object itself: read only."""
        return self.objs[res].get((ns or '', name))

    def list(self, res, ns=None):
        """(items sorted by namespace/name, current rv); items are read-only shared objects."""
        with self.lock:
            items = [o for (n, _), o in self.objs[res].items() if ns is None or n == ns]
            items.sort(key=lambda o: (ns_of(o), name_of(o)))
            return items, self.rv

    # --- writes --------------------------------------------------------------------------
    def _commit(self, res, etype, obj, prev):
        self.rv += 1
        obj.setdefault('metadata', {})['resourceVersion'] = str(self.rv)
        key = (ns_of(obj), name_of(obj))
        if etype == 'DELETED':
            self.objs[res].pop(key, None)
        else:
            self.objs[res][key] = obj
        ev = Event(self.rv, res, etype, obj, prev)
        self.history.append(ev)
        while len(self.history) > self.window:
            self.compacted = self.history.popleft().rv
        for w in list(self.watchers):
            w.offer(ev)
        for fn in self.listeners:
            fn(ev)
        return obj

    def create(self, res, obj):
        with self.lock:
            return self._commit(res, 'ADDED', obj, None)

    def update(self, res, obj):
        """Commit obj as the new state; returns it. A no-op change keeps the old object and RV."""
        with self.lock:
            prev = self.objs[res].get((ns_of(obj), name_of(obj)))
            if prev is not None and same_object(prev, obj):
                return prev
            return self._commit(res, 'MODIFIED', obj, prev)

    def delete(self, res, ns, name):
        with self.lock:
            prev = self.objs[res].get((ns or '', name))
            if prev is None:
                return None
            return self._commit(res, 'DELETED', copy.deepcopy(prev), prev)

    def set_window(self, n):
        with self.lock:
            self.window = max(1, int(n))
            while len(self.history) > self.window:
                self.compacted = self.history.popleft().rv

    def restart_cache(self):
        """What a restarted kube-apiserver shows: its watch cache starts empty at etcd's current
        resourceVersion, which its own start-up writes (leases, endpoints) have moved on, so every
        resourceVersion a client remembers is too old (410 Expired) while LISTs still work."""
        with self.lock:
            self.rv += 1
            self.history.clear()
            self.compacted = self.rv

    # --- watches -------------------------------------------------------------------------
    def watch(self, res, ns, from_rv):
        """Register a watcher. Returns (watcher, backlog events, None) or (None, None, oldest) when
        from_rv is too old. from_rv None means "now" (the caller sends initial ADDED events)."""
        with self.lock:
            if from_rv is not None and from_rv < self.compacted:
                return None, None, self.compacted + 1
            w = Watcher(res, ns)
            backlog = []
            if from_rv is not None:
                backlog = [e for e in self.history if e.rv > from_rv and e.res == res
                           and (ns is None or ns_of(e.obj) == ns)]
            self.watchers.add(w)
            return w, backlog, None

    def unwatch(self, w):
        with self.lock:
            self.watchers.discard(w)


def same_object(a, b):
    """Equal apart from resourceVersion and managedFields (what makes an update a no-op)."""
    def strip(o):
        o = dict(o)
        m = dict(o.get('metadata') or {})
        m.pop('resourceVersion', None)
        m.pop('managedFields', None)
        o['metadata'] = m
        return o
    return strip(a) == strip(b)


# ---------------------------------------------------------------------------------------------
# label selectors (equality- and set-based), parsed like apimachinery's lexer

class SelectorError(Exception):
    pass


_TOK = re.compile(r'\s*(!=|==|=|!|,|\(|\)|[^\s!=,()]+)')


def _lex(s):
    toks, pos = [], 0
    while pos < len(s):
        m = _TOK.match(s, pos)
        if not m or m.end() == pos:
            break
        toks.append(m.group(1))
        pos = m.end()
    return toks


def _is_ident(t):
    return t not in ('!=', '==', '=', '!', ',', '(', ')', None)


def parse_label_selector(s):
    """Return a list of requirements (key, op, values); raise SelectorError with k8s wording."""
    toks = _lex(s or '')
    reqs, i = [], 0

    def peek(k=0):
        return toks[i + k] if i + k < len(toks) else None
    while i < len(toks):
        t = peek()
        if t == '!':
            i += 1
            k = peek()
            if not _is_ident(k):
                raise SelectorError(f"found '{k or ''}', expected: identifier after '!'")
            i += 1
            reqs.append((k, '!', ()))
        elif _is_ident(t):
            k = t
            i += 1
            op = peek()
            if op in (None, ','):
                reqs.append((k, 'exists', ()))
            elif op in ('=', '==', '!='):
                i += 1
                v = peek()
                if v in (None, ','):
                    v = ''
                elif not _is_ident(v):
                    raise SelectorError(f"found '{v}', expected: identifier")
                else:
                    i += 1
                reqs.append((k, '!=' if op == '!=' else '=', (v,)))
            elif op in ('in', 'notin'):
                i += 1
                if peek() != '(':
                    raise SelectorError(f"found '{peek() or ''}', expected: '('")
                i += 1
                vals = []
                while True:
                    v = peek()
                    if v == ')':
                        i += 1
                        break
                    if v == ',':
                        i += 1
                        continue
                    if not _is_ident(v):
                        raise SelectorError(f"found '{v or ''}', expected: ',', ')' or identifier")
                    vals.append(v)
                    i += 1
                reqs.append((k, op, tuple(vals)))
            else:
                raise SelectorError(f"found '{op}', expected: in, notin, =, ==, !=, gt, lt")
        else:
            raise SelectorError(f"found '{t}', expected: !, identifier, or 'end of string'")
        t = peek()
        if t is None:
            break
        if t != ',':
            raise SelectorError(f"found '{t}', expected: ',' or 'end of string'")
        i += 1
    return reqs


def label_match(reqs, labels):
    labels = labels or {}
    for k, op, vals in reqs:
        has = k in labels
        v = labels.get(k)
        if op == 'exists' and not has:
            return False
        if op == '!' and has:
            return False
        if op == '=' and v != vals[0]:
            return False
        if op == '!=' and has and v == vals[0]:
            return False
        if op == 'in' and (not has or v not in vals):
            return False
        if op == 'notin' and has and v in vals:
            return False
    return True


# ---------------------------------------------------------------------------------------------
# field selectors: "a=b,c!=d"; which labels a resource supports is decided by the caller

def parse_field_selector(s):
    reqs = []
    for part in (s or '').split(','):
        part = part.strip()
        if not part:
            continue
        m = re.match(r'^([^=!]+?)\s*(==|!=|=)\s*(.*)$', part)
        if not m:
            raise SelectorError(f'invalid selector: \'{s}\'; can\'t understand \'{part}\'')
        reqs.append((m.group(1).strip(), '!=' if m.group(2) == '!=' else '=', m.group(3).strip()))
    return reqs


def field_value(obj, path):
    v = obj
    for p in path.split('.'):
        if not isinstance(v, dict):
            return ''
        v = v.get(p)
    if v is None:
        return ''
    if isinstance(v, bool):
        return 'true' if v else 'false'
    return str(v)


def field_match(reqs, obj):
    for k, op, v in reqs:
        got = field_value(obj, k)
        if (op == '=') != (got == v):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# continue tokens, same shape as the apiserver's: base64url({"v":"meta.k8s.io/v1","rv":N,"start":KEY\0})

def encode_continue(rv, start_key):
    raw = json.dumps({'v': 'meta.k8s.io/v1', 'rv': rv, 'start': start_key + '\u0000'},
                     separators=(',', ':'))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip('=')


def decode_continue(tok):
    """Return (rv, start_key) or raise ValueError with the apiserver's wording."""
    try:
        raw = base64.urlsafe_b64decode(tok + '=' * (-len(tok) % 4))
    except Exception:
        raise ValueError('invalid continue token: illegal base64 data')
    try:
        d = json.loads(raw.decode('utf-8', 'replace'))
    except json.JSONDecodeError:
        c = raw[:1].decode('latin-1') if raw else ''
        if c == 'n':
            raise ValueError("continue key is not valid: invalid character 'o' in literal null (expecting 'u')")
        raise ValueError(f"continue key is not valid: invalid character '{c}' looking for beginning of value")
    if not isinstance(d, dict) or d.get('v') != 'meta.k8s.io/v1' or not isinstance(d.get('start'), str):
        raise ValueError('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
    return int(d.get('rv') or 0), d['start'].rstrip('\u0000')
