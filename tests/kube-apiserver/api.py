"""The Kubernetes API semantics: create, get, list, watch, update, patch, delete, subresources,
garbage collection. HTTP-agnostic except for streams, which write through the handler `h`
(see server.py: h.send_obj, h.start_stream, h.write_chunk, h.end_stream, h.alive()).

Every change goes through Store (store.py), which gives the global resourceVersion.
"""
import copy
import datetime
import heapq
import json
import queue
import random
import threading
import time
import uuid

import gojson
import resources as R
import schema
import tables
from resources import ApiError, err
from store import (SelectorError, decode_continue, encode_continue, field_match, label_match,
                   parse_field_selector, parse_label_selector)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def rand_suffix(n=5):
    return ''.join(random.choice('bcdfghjklmnpqrstvwxz2456789') for _ in range(n))


def manager_of(ua):
    """The field manager the apiserver derives from a User-Agent: "jaxjob/0.1 (linux)" -> "jaxjob"."""
    return (ua or 'unknown').split('/')[0].strip() or 'unknown'


def leaf_paths(v, prefix=''):
    """Field paths of the leaves of a JSON value (lists are atomic), for field ownership."""
    if isinstance(v, dict) and v:
        out = []
        for k, x in v.items():
            out += leaf_paths(x, f'{prefix}.{k}')
        return out
    return [prefix]


def get_path(o, path):
    for p in path.strip('.').split('.'):
        if not isinstance(o, dict) or p not in o:
            return None, False
        o = o[p]
    return o, True


def fields_v1(paths):
    """managedFields fieldsV1 for a set of leaf paths."""
    root = {}
    for p in sorted(paths):
        node = root
        for part in p.strip('.').split('.'):
            node = node.setdefault(f'f:{part}', {})
    def dot(n):
        if not n:
            return {}
        out = {'.': {}}
        for k, v in n.items():
            out[k] = dot(v)
        return out
    top = {}
    for k, v in root.items():
        top[k] = dot(v)
    return top


def leaf_policy(res):
    """How the foreground GC deletes a dependent: a Kueue Workload owns nothing, so it goes at once
    (Background); a Foreground deletion of it would queue behind its owner's on the one GC thread
    and block both."""
    return 'Background' if res is R.WORKLOADS else 'Foreground'


class Api:
    def __init__(self, store, cfg):
        self.s = store
        self.cfg = cfg
        self.gcq = queue.Queue()
        self.owners = {}          # uid -> {path: manager} field ownership (server-side apply)
        self.webhooks = []        # callables(op, res, obj, old) -> None or raise ApiError
        self.timers = []           # heap of (due, seq, args) for delayed owner checks
        self.timer_seq = 0
        self.timer_cv = threading.Condition()
        threading.Thread(target=self._gc_loop, name='gc', daemon=True).start()
        threading.Thread(target=self._timer_loop, name='gc-timer', daemon=True).start()

    # ------------------------------------------------------------------------------------------
    # helpers
    def ns_exists(self, ns):
        return self.s.peek(R.NAMESPACES, '', ns) is not None

    def check_ns_for_create(self, ns):
        o = self.s.peek(R.NAMESPACES, '', ns)
        if o is None:
            raise R.ns_not_found(ns)
        if (o.get('status') or {}).get('phase') == 'Terminating':
            raise err(403, f'{ns} is forbidden: unable to create new content in namespace {ns} because it is being '
                           'terminated', details={'name': ns, 'kind': ns})

    def serialize(self, res, obj, pretty=False):
        if res.custom:
            return gojson.dumps(obj, sort_keys=True, indent=pretty)
        return gojson.dumps(gojson.builtin_order(obj), indent=pretty)

    def _managed(self, obj, res, manager, op, paths, sub=None):
        m = obj.setdefault('metadata', {})
        entry = {'manager': manager, 'operation': op, 'apiVersion': res.gv, 'time': now_iso(),
                 'fieldsType': 'FieldsV1', 'fieldsV1': fields_v1(paths)}
        if sub:
            entry['subresource'] = sub
        mf = [e for e in (m.get('managedFields') or [])
              if not (e.get('manager') == manager and e.get('operation') == op and e.get('subresource') == sub)]
        mf.append(entry)
        m['managedFields'] = mf

    def _own(self, uid, paths, manager):
        o = self.owners.setdefault(uid, {})
        for p in paths:
            o[p] = manager

    # ------------------------------------------------------------------------------------------
    # create
    def parse_body(self, body, res):
        if body is None or body == b'':
            raise err(400, f'the object provided is unrecognized (must be of type {res.kind}): couldn\'t get '
                           'version/kind; json parse error: unexpected end of JSON input ()')
        try:
            o = json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            snippet = body[:30].decode('utf-8', 'replace')
            why = 'unexpected end of JSON input' if 'Expecting' in str(e) and getattr(e, 'pos', 0) >= len(body) - 1 \
                else f'invalid character looking for beginning of value'
            raise err(400, f'the object provided is unrecognized (must be of type {res.kind}): couldn\'t get '
                           f'version/kind; json parse error: {why} ({snippet} ...)')
        if not isinstance(o, dict):
            raise err(400, f'the object provided is unrecognized (must be of type {res.kind}): couldn\'t get '
                           'version/kind; json parse error: json: cannot unmarshal array into Go value of type '
                           'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string '
                           '"json:\\"kind,omitempty\\"" }')
        return o

    def check_kind(self, o, res, name):
        kind = o.get('kind')
        av = o.get('apiVersion')
        if not kind:
            raise err(400, f'Object \'Kind\' is missing in \'{json.dumps(o, separators=(",", ":"))[:200]}\'')
        if av and av != res.gv:
            raise err(400, f'the API version in the data ({av}) does not match the expected API version ({res.gv})')
        if kind != res.kind:
            d = {'name': name} if name else {}
            if res.group:
                d['group'] = res.group
            d['kind'] = kind
            d['causes'] = [{'reason': 'FieldValueInvalid', 'message': f'Invalid value: "{kind}": must be {res.kind}',
                            'field': 'kind'}]
            qual = f'{kind}.{res.group}' if res.group else kind
            raise err(422, f'{qual} "{name}" is invalid: kind: Invalid value: "{kind}": must be {res.kind}',
                      details=d)

    def create(self, res, ns, body, q, user, ua):
        dry = self.dry_run(q, 'CreateOptions')
        o = self.parse_body(body, res)
        meta = o.get('metadata') if isinstance(o.get('metadata'), dict) else {}
        o['metadata'] = meta
        name = meta.get('name') or ''
        self.check_kind(o, res, name)
        if res.namespaced:
            bns = meta.get('namespace')
            if bns and bns != ns:
                raise err(400, 'the namespace of the provided object does not match the namespace sent on the request')
            meta['namespace'] = ns
            self.check_ns_for_create(ns)
        else:
            meta.pop('namespace', None)
        if not name and meta.get('generateName'):
            name = meta['generateName'] + rand_suffix()
            meta['name'] = name
        for k in ('uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds',
                  'generation', 'selfLink'):
            meta.pop(k, None)
        errs = schema.name_errors(name, label=(res is R.NAMESPACES)) + schema.label_errors(meta.get('labels'))
        o.pop('status', None) if res.custom or res is R.PODS else None
        if res is R.JAXJOBS:
            errs += schema.validate_jaxjob(o)
        elif res is R.TRAINJOBS:
            errs += schema.validate_trainjob(o)
        elif res in (R.CTRS, R.TRS):
            errs += schema.validate_runtime(o)
        elif res is R.PODS:
            errs += schema.validate_pod(o)
        if errs:
            raise R.invalid(res, name, errs)
        o['apiVersion'], o['kind'] = res.gv, res.kind
        self.defaults(res, o)
        for wh in self.webhooks:
            wh('CREATE', res, o, None)
        meta['uid'] = str(uuid.uuid4())
        meta['creationTimestamp'] = now_iso()
        if res.custom:
            meta['generation'] = 1
        manager = manager_of(ua)
        paths = [p for p in leaf_paths({k: v for k, v in o.items() if k not in ('apiVersion', 'kind', 'status')})
                 if not p.startswith(('.metadata.name', '.metadata.namespace', '.metadata.uid',
                                      '.metadata.creationTimestamp', '.metadata.generation'))]
        self._managed(o, res, manager, 'Update', paths)
        with self.s.lock:
            if self.s.peek(res, ns if res.namespaced else '', name) is not None:
                raise R.already_exists(res, name)
            if dry:
                return o
            self._own(meta['uid'], paths, manager)
            obj = self.s.create(res, o)
        self.after_change(res, obj)
        return copy.deepcopy(obj)

    def defaults(self, res, o):
        meta = o['metadata']
        if res is R.PODS:
            schema.default_pod(o)
        elif res is R.NAMESPACES:
            meta.setdefault('labels', {})['kubernetes.io/metadata.name'] = meta['name']
            o['spec'] = {'finalizers': ['kubernetes']}
            o['status'] = {'phase': 'Active'}
        elif res is R.EVENTS:
            o.setdefault('eventTime', None)
            o.setdefault('reportingComponent', '')
            o.setdefault('reportingInstance', '')

    def dry_run(self, q, opts):
        v = q.get('dryRun')
        if v is None:
            return False
        if v != 'All':
            msg = f'Unsupported value: []string{{"{v}"}}: supported values: "All"'
            raise err(422, f'{opts}.meta.k8s.io "" is invalid: dryRun: {msg}',
                      details={'group': 'meta.k8s.io', 'kind': opts,
                               'causes': [{'reason': 'FieldValueNotSupported', 'message': msg, 'field': 'dryRun'}]})
        return True

    # ------------------------------------------------------------------------------------------
    # read
    def get(self, res, ns, name):
        o = self.s.get(res, ns if res.namespaced else '', name)
        if o is None:
            raise R.not_found(res, name)
        return o

    def selectors(self, res, q):
        try:
            lreqs = parse_label_selector(q.get('labelSelector', ''))
        except SelectorError as e:
            raise err(400, str(e))
        try:
            freqs = parse_field_selector(q.get('fieldSelector', ''))
        except SelectorError as e:
            raise err(400, str(e))
        for k, _, _ in freqs:
            if k not in res.field_labels:
                raise err(400, f'field label not supported: {k}')

        def match(o):
            return label_match(lreqs, (o.get('metadata') or {}).get('labels')) and field_match(freqs, o)
        return match

    def parse_rv(self, q):
        v = q.get('resourceVersion')
        if v in (None, ''):
            return None
        try:
            n = int(v)
            if n < 0 or not v.isdigit():
                raise ValueError
            return n
        except ValueError:
            raise err(500, f'resourceVersion: Invalid value: "{v}": strconv.ParseUint: parsing "{v}": invalid syntax',
                      reason='')

    def list(self, res, ns, q):
        match = self.selectors(res, q)
        rv = self.parse_rv(q)
        with self.s.lock:
            items, cur = self.s.list(res, ns)
            if rv is not None and q.get('resourceVersionMatch') == 'Exact' and rv < self.s.compacted:
                raise err(410, f'too old resource version: {rv} ({self.s.compacted + 1})', reason='Expired')
            if rv is not None and rv > cur and q.get('resourceVersionMatch') != 'Exact':
                raise ApiError(504, R.status(504, f'Timeout: Too large resource version: {rv}, current: {cur}',
                                             details={'causes': [{'reason': 'ResourceVersionTooLarge',
                                                                  'message': 'Too large resource version'}],
                                                      'retryAfterSeconds': 1}), {'Retry-After': '1'})
            items = [copy.deepcopy(o) for o in items if match(o)]
        cont = q.get('continue')
        limit = q.get('limit')
        start_key = None
        if cont:
            try:
                tok_rv, start_key = decode_continue(cont)
            except ValueError as e:
                raise err(400, f'invalid continue token: {e}')
            if tok_rv < self.s.compacted:
                raise err(410, 'The provided continue parameter is too old to display a consistent list result. '
                               'You can start a new list without the continue parameter, or use the continue token '
                               'in this response to retrieve the remainder of the results. Continuing with the '
                               'provided token results in an inconsistent list - objects that were created, '
                               'modified, or deleted between the time the first chunk was returned and now may show '
                               'up in the list.', reason='Expired')
        key = (lambda o: f'{o["metadata"].get("namespace", "")}/{o["metadata"]["name"]}') if ns is None or not res.namespaced \
            else (lambda o: o['metadata']['name'])
        if start_key is not None:
            items = [o for o in items if key(o) > start_key]
        lm = {'resourceVersion': str(cur)}
        try:
            lim = int(limit) if limit else 0
        except ValueError:
            lim = 0
        next_tok = ''
        if lim > 0 and len(items) > lim:
            rest = len(items) - lim
            items = items[:lim]
            next_tok = encode_continue(cur, key(items[-1]))
            lm['continue'] = next_tok
            lm['remainingItemCount'] = rest
        if res.custom:
            lm.setdefault('continue', '')
            return {'apiVersion': res.gv, 'items': items, 'kind': res.kind + 'List', 'metadata': lm}
        for o in items:
            o.pop('kind', None)
            o.pop('apiVersion', None)
        table = {'Pod': 'pod', 'Event': 'event', 'Namespace': 'namespace'}[res.kind]
        return gojson.builtin_list(res.kind + 'List', res.gv, lm, items, table)

    # ------------------------------------------------------------------------------------------
    # watch
    def watch(self, h, res, ns, q, faults, as_table=False):
        match = self.selectors(res, q)
        rv = self.parse_rv(q)
        try:
            timeout = float(q.get('timeoutSeconds') or 0)
            if timeout <= 0:
                timeout = 1800 * (1 + random.random())      # the apiserver's default: 30-60 min
        except ValueError:
            raise err(400, f'strconv.ParseInt: parsing "{q.get("timeoutSeconds")}": invalid syntax')
        bookmarks = q.get('allowWatchBookmarks') in ('true', '1')
        deadline = time.monotonic() + timeout
        gone = faults.take_watch_gone()
        init = []
        with self.s.lock:
            if gone:
                w, backlog, oldest = None, None, self.s.compacted + 1
                rv = rv if rv is not None else self.s.rv
            elif rv in (None, 0):
                items, cur = self.s.list(res, ns)
                init = [copy.deepcopy(o) for o in items if match(o)]
                w, backlog, oldest = self.s.watch(res, ns, None)
            else:
                w, backlog, oldest = self.s.watch(res, ns, rv)
        h.start_stream('application/json')
        if w is None:
            st = R.status(410, f'too old resource version: {rv} ({oldest})', reason='Expired')
            h.write_chunk(self._ev_line(res, 'ERROR', st))
            h.end_stream()
            return
        sent = [0]
        drop_after = faults.watch_drop_after()
        # the names of the objects this watch sent, in the request log (`delivered`): a test
        # asserts what a client's watch did NOT receive (another job's events)
        entry = getattr(h, 'log_entry', None)
        delivered = entry.setdefault('delivered', []) if entry is not None else None

        def note(o):
            if delivered is not None and len(delivered) < 10000:
                delivered.append((o.get('metadata') or {}).get('name', ''))

        def emit(data, counted=True):
            h.write_chunk(data)
            if counted:
                sent[0] += 1
                if drop_after is not None and sent[0] >= drop_after:
                    raise DropStream()
        try:
            if init:
                # initial events may share chunks, as the real watch cache does (not when the
                # drop fault counts events)
                lines = [self._ev_line(res, 'ADDED', o, as_table) for o in init]
                for o in init:
                    note(o)
                step = 1 if drop_after is not None else 2
                for i in range(0, len(lines), step):
                    emit(''.join(lines[i:i + step]))
            for ev in backlog:
                line = self._filter(res, ev, match, as_table)
                if line:
                    note(ev.obj)
                    emit(line)
            interval = self.cfg.bookmark_interval
            next_bm = time.monotonic() + interval
            final_bm_at = deadline - min(2.0, timeout * 0.2) if timeout > 2.5 else None
            while True:
                nowm = time.monotonic()
                if nowm >= deadline:
                    break
                if not h.alive():
                    return
                wake = deadline
                if bookmarks:
                    wake = min(wake, next_bm)
                    if final_bm_at is not None:
                        wake = min(wake, final_bm_at)
                try:
                    ev = w.q.get(timeout=max(0.0, min(wake - nowm, 0.5)))
                except queue.Empty:
                    ev = None
                if ev is not None:
                    line = self._filter(res, ev, match, as_table)
                    if line:
                        note(ev.obj)
                        faults.watch_lag(res.plural, ev.at)
                        emit(line)
                    continue
                nowm = time.monotonic()
                if bookmarks and (nowm >= next_bm or (final_bm_at is not None and nowm >= final_bm_at)):
                    if final_bm_at is not None and nowm >= final_bm_at:
                        final_bm_at = None
                    next_bm = nowm + interval
                    with self.s.lock:
                        if w.q.empty():
                            bm_rv = self.s.rv
                        else:
                            continue
                    emit(self._ev_line(res, 'BOOKMARK', {'kind': res.kind, 'apiVersion': res.gv,
                                                         'metadata': {'resourceVersion': str(bm_rv)}}), False)
            h.end_stream()
        except DropStream:
            h.abort()
        finally:
            self.s.unwatch(w)

    def _ev_line(self, res, etype, o, as_table=False):
        if as_table and etype in ('ADDED', 'MODIFIED', 'DELETED'):
            return gojson.dumps({'type': etype, 'object': tables.table(res.kind, [o])})
        if res.custom or o.get('kind') == 'Status':
            body = o if not res.custom else o
            if o.get('kind') == 'Status':
                return gojson.dumps({'type': etype, 'object': o})
            return gojson.dumps({'type': etype, 'object': body}, sort_keys=True)
        return gojson.dumps({'type': etype, 'object': gojson.builtin_order(o)})

    def _filter(self, res, ev, match, as_table=False):
        cur = match(ev.obj)
        if ev.type == 'ADDED':
            return self._ev_line(res, 'ADDED', ev.obj, as_table) if cur else None
        if ev.type == 'DELETED':
            return self._ev_line(res, 'DELETED', ev.obj, as_table) if cur else None
        was = ev.prev is not None and match(ev.prev)
        if cur and was:
            return self._ev_line(res, 'MODIFIED', ev.obj, as_table)
        if cur:
            return self._ev_line(res, 'ADDED', ev.obj, as_table)
        if was:
            o = copy.deepcopy(ev.prev)
            o['metadata']['resourceVersion'] = ev.obj['metadata']['resourceVersion']
            return self._ev_line(res, 'DELETED', o, as_table)
        return None

    # ------------------------------------------------------------------------------------------
    # update / patch
    def _prepare_update(self, res, old, new, sub, ua, op='Update'):
        """Merge an incoming full object `new` with `old` per subresource rules; validate; commit."""
        name = old['metadata']['name']
        nm = new.get('metadata') if isinstance(new.get('metadata'), dict) else {}
        rv = nm.get('resourceVersion')
        if rv not in (None, '') and str(rv) != old['metadata']['resourceVersion']:
            raise R.conflict(res, name)
        if nm.get('uid') and nm['uid'] != old['metadata']['uid']:
            raise err(409, f'Precondition failed: UID in precondition: {nm["uid"]}, UID in object meta: '
                           f'{old["metadata"]["uid"]}', reason='Conflict', details=R._details(res, name))
        if nm.get('name') not in (None, name):
            raise err(400, f'the name of the object ({nm.get("name")}) does not match the name on the URL ({name})')
        if sub == 'status':
            out = copy.deepcopy(old)
            if 'status' in new:
                out['status'] = new['status']
            else:
                out.pop('status', None)
        else:
            out = copy.deepcopy(new)
            out['apiVersion'], out['kind'] = old['apiVersion'], old['kind']
            m = out['metadata'] = dict(nm)
            for k in ('name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp',
                      'deletionGracePeriodSeconds', 'generation'):
                if k in old['metadata']:
                    m[k] = old['metadata'][k]
                else:
                    m.pop(k, None)
            m.pop('selfLink', None)
            if 'managedFields' not in nm:
                m['managedFields'] = old['metadata'].get('managedFields', [])
            if res.custom or res is R.PODS:
                if 'status' in old:
                    out['status'] = old['status']
                else:
                    out.pop('status', None)
            if res is R.PODS:
                out['spec'] = self._pod_spec_update(old, out)
        errs = schema.label_errors(out['metadata'].get('labels'))
        if res is R.JAXJOBS:
            errs += schema.validate_jaxjob(out)
        elif res is R.TRAINJOBS:
            errs += schema.validate_trainjob(out)
        if errs:
            raise R.invalid(res, name, errs)
        if res.custom:
            spec_changed = {k: v for k, v in out.items() if k not in ('metadata', 'status')} != \
                {k: v for k, v in old.items() if k not in ('metadata', 'status')}
            if spec_changed:
                out['metadata']['generation'] = old['metadata'].get('generation', 1) + 1
            if spec_changed and sub is None:
                for wh in self.webhooks:
                    wh('UPDATE', res, out, old)
        changed = [p for p in leaf_paths(out) if get_path(out, p) != get_path(old, p)
                   and not p.startswith(('.metadata.resourceVersion', '.metadata.managedFields',
                                         '.metadata.generation'))]
        if changed:
            self._own(old['metadata']['uid'], changed, manager_of(ua))
            self._managed(out, res, manager_of(ua), op, changed, sub)
        return out

    def _pod_spec_update(self, old, new):
        """Pod spec is immutable except container images and a few fields; keep the old one."""
        spec = copy.deepcopy(old.get('spec') or {})
        nspec = new.get('spec') or {}
        for i, c in enumerate(nspec.get('containers') or []):
            if i < len(spec.get('containers') or []) and isinstance(c, dict) and c.get('image'):
                spec['containers'][i]['image'] = c['image']
        return spec

    def _commit_update(self, res, out):
        m = out['metadata']
        if m.get('deletionTimestamp') and not m.get('finalizers'):
            with self.s.lock:
                self.s.update(res, out)
                obj = self.s.delete(res, m.get('namespace', ''), m['name'])
        else:
            obj = self.s.update(res, out)
        self.after_change(res, obj)
        return copy.deepcopy(obj)

    def update(self, res, ns, name, sub, body, q, ua):
        dry = self.dry_run(q, 'UpdateOptions')
        new = self.parse_body(body, res)
        if sub != 'scale':
            self.check_kind(new, res, name)
        with self.s.lock:
            old = self.s.peek(res, ns, name)
            if old is None:
                raise R.not_found(res, name)
            if sub == 'scale':
                return self._scale_update(res, old, new, ua, dry)
            nm = new.get('metadata') if isinstance(new.get('metadata'), dict) else {}
            if res.custom and not nm.get('resourceVersion'):
                raise R.invalid(res, name, [('FieldValueInvalid', 'metadata.resourceVersion',
                                             'Invalid value: 0x0: must be specified for an update')])
            out = self._prepare_update(res, old, new, sub, ua)
            if dry:
                return out
            return self._commit_update(res, out)

    def patch(self, res, ns, name, sub, body, ctype, q, ua):
        dry = self.dry_run(q, 'PatchOptions')
        ctype = (ctype or '').split(';')[0].strip().lower()
        accepted = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']
        if not res.custom:
            accepted.insert(2, 'application/strategic-merge-patch+json')
        if ctype not in accepted:
            raise err(415, 'the body of the request was in an unknown format - accepted media types include: '
                      + ', '.join(accepted))
        with self.s.lock:
            old = self.s.peek(res, ns, name)
            if old is None:
                raise R.not_found(res, name)
            base = self._scale_of(res, old) if sub == 'scale' else copy.deepcopy(old)
            if ctype == 'application/json-patch+json':
                try:
                    ops = json.loads(body or b'')
                except ValueError:
                    raise err(400, 'Invalid JSON Patch')
                new = json_patch(base, ops)
            elif ctype == 'application/apply-patch+yaml':
                return self._apply(res, old, body, q, ua, dry)
            else:
                try:
                    p = json.loads(body or b'')
                except ValueError:
                    raise err(400, 'Invalid JSON Patch')
                new = merge_patch(base, p)
                if not isinstance(new, dict):
                    raise err(400, 'Invalid JSON Patch')
            if sub == 'scale':
                return self._scale_update(res, old, new, ua, dry)
            if not isinstance(new.get('metadata'), dict):
                new['metadata'] = {}
            out = self._prepare_update(res, old, new, sub, ua)
            if dry:
                return out
            return self._commit_update(res, out)

    def _apply(self, res, old, body, q, ua, dry):
        """Server-side apply, simplified: JSON bodies only; conflicts on leaf fields another manager owns."""
        try:
            cfg = json.loads(body or b'')
        except ValueError:
            raise err(400, 'error decoding YAML: this test server accepts apply-patch bodies as JSON only')
        manager = q.get('fieldManager')
        if not manager:
            raise err(422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for '
                           'apply patch', details={'group': 'meta.k8s.io', 'kind': 'PatchOptions',
                                                   'causes': [{'reason': 'FieldValueRequired',
                                                               'message': 'Required value: is required for apply patch',
                                                               'field': 'fieldManager'}]})
        force = q.get('force') in ('true', '1')
        paths = [p for p in leaf_paths({k: v for k, v in cfg.items() if k not in ('apiVersion', 'kind')})
                 if p not in ('.metadata.name', '.metadata.namespace')]
        owners = self.owners.get(old['metadata']['uid'], {})
        conflicts = []
        for p in paths:
            cur, present = get_path(old, p)
            want, _ = get_path(cfg, p)
            o = owners.get(p)
            if present and o and o != manager and cur != want:
                conflicts.append((p, o))
        if conflicts and not force:
            causes = [{'reason': 'FieldManagerConflict', 'message': f'conflict with "{o}" using {res.gv}', 'field': p}
                      for p, o in conflicts]
            n = len(conflicts)
            lst = '\n'.join(f'- {p}' for p, _ in conflicts)
            msg = (f'Apply failed with 1 conflict: conflict with "{conflicts[0][1]}" using {res.gv}: {conflicts[0][0]}'
                   if n == 1 else f'Apply failed with {n} conflicts: conflicts with "{conflicts[0][1]}" using '
                                  f'{res.gv}:\n{lst}')
            raise err(409, msg, details={'causes': causes})
        new = merge_patch(copy.deepcopy(old), {k: v for k, v in cfg.items() if k not in ('apiVersion', 'kind')})
        out = self._prepare_update(res, old, new, None, manager + '/', op='Apply')
        self._own(old['metadata']['uid'], paths, manager)
        if dry:
            return out
        return self._commit_update(res, out)

    # --- scale ---------------------------------------------------------------------------------
    def _scale_of(self, res, o):
        if res is not R.JAXJOBS:
            raise R.not_found(res, o['metadata']['name'])
        w = ((o.get('spec') or {}).get('jaxReplicaSpecs') or {}).get('Worker') or {}
        rs = ((o.get('status') or {}).get('replicaStatuses') or {}).get('Worker') or {}
        m = o['metadata']
        st = {'replicas': rs.get('active', 0)}
        if rs.get('selector'):
            st['selector'] = rs['selector']
        return {'kind': 'Scale', 'apiVersion': 'autoscaling/v1',
                'metadata': {'name': m['name'], 'namespace': m['namespace'], 'uid': m['uid'],
                             'resourceVersion': m['resourceVersion'], 'creationTimestamp': m['creationTimestamp']},
                'spec': {'replicas': w.get('replicas', 0) if isinstance(w, dict) else 0}, 'status': st}

    def get_scale(self, res, ns, name):
        return self._scale_of(res, self.get(res, ns, name))

    def _scale_update(self, res, old, new, ua, dry):
        if res is not R.JAXJOBS:
            raise R.not_found(res, old['metadata']['name'])
        rv = (new.get('metadata') or {}).get('resourceVersion')
        if rv and rv != old['metadata']['resourceVersion']:
            raise R.conflict(res, old['metadata']['name'])
        n = (new.get('spec') or {}).get('replicas')
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise err(422, f'Scale.autoscaling "{old["metadata"]["name"]}" is invalid: spec.replicas: Invalid value: '
                           f'{n}: must be greater than or equal to 0', details={'name': old['metadata']['name'],
                                                                                 'group': 'autoscaling',
                                                                                 'kind': 'Scale'})
        out = copy.deepcopy(old)
        out.setdefault('spec', {}).setdefault('jaxReplicaSpecs', {}).setdefault('Worker', {})['replicas'] = n
        if out != old:
            out['metadata']['generation'] = old['metadata'].get('generation', 1) + 1
        if not dry:
            out = self._commit_update(res, out)
        return self._scale_of(res, out)

    # ------------------------------------------------------------------------------------------
    # delete
    def delete(self, res, ns, name, body, q, ua):
        dry = self.dry_run(q, 'DeleteOptions')
        opts = {}
        if body:
            try:
                opts = json.loads(body)
            except ValueError:
                raise err(400, 'the body of the request was in an unknown format')
            if not isinstance(opts, dict):
                opts = {}
        policy = q.get('propagationPolicy') or opts.get('propagationPolicy')
        if policy is not None and policy not in ('Foreground', 'Background', 'Orphan'):
            msg = f'Unsupported value: "{policy}": supported values: "Foreground", "Background", "Orphan", "nil"'
            raise err(422, f'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: {msg}',
                      details={'group': 'meta.k8s.io', 'kind': 'DeleteOptions',
                               'causes': [{'reason': 'FieldValueNotSupported', 'message': msg,
                                           'field': 'propagationPolicy'}]})
        grace = q.get('gracePeriodSeconds')
        if grace is None:
            grace = opts.get('gracePeriodSeconds')
        try:
            grace = int(grace) if grace is not None else None
        except ValueError:
            raise err(400, f'strconv.ParseInt: parsing "{grace}": invalid syntax')
        pre = opts.get('preconditions') or {}
        with self.s.lock:
            old = self.s.peek(res, ns, name)
            if old is None:
                raise R.not_found(res, name)
            m = old['metadata']
            if pre.get('uid') and pre['uid'] != m['uid']:
                raise err(409, f'Precondition failed: UID in precondition: {pre["uid"]}, UID in object meta: {m["uid"]}',
                          reason='Conflict', details=R._details(res, name))
            if pre.get('resourceVersion') and pre['resourceVersion'] != m['resourceVersion']:
                raise err(409, f'Precondition failed: ResourceVersion in precondition: {pre["resourceVersion"]}, '
                               f'ResourceVersion in object meta: {m["resourceVersion"]}', reason='Conflict',
                          details=R._details(res, name))
            if dry:
                return copy.deepcopy(old), 200
            if res is R.NAMESPACES:
                return self._delete_namespace(old), 200
            if res is R.PODS:
                return self._delete_pod(old, grace, policy), 200
            return self._delete_generic(res, old, policy)

    def _delete_generic(self, res, old, policy):
        m = old['metadata']
        if policy is None:
            policy = 'Background'
        fin = list(m.get('finalizers') or [])
        if policy in ('Foreground', 'Orphan') or fin or m.get('deletionTimestamp'):
            out = copy.deepcopy(old)
            om = out['metadata']
            marker = {'Foreground': 'foregroundDeletion', 'Orphan': 'orphan'}.get(policy)
            if marker and marker not in fin:
                fin.append(marker)
            om['finalizers'] = fin
            if not om.get('deletionTimestamp'):
                om['deletionTimestamp'] = now_iso()
                om['deletionGracePeriodSeconds'] = 0
                if res.custom:
                    om['generation'] = om.get('generation', 1) + 1
            obj = self.s.update(res, out)
            if marker:
                self.gcq.put((marker, res, om.get('namespace', ''), om['name'], om['uid']))
            return copy.deepcopy(obj), 200
        self.s.delete(res, m.get('namespace', ''), m['name'])
        self.gcq.put(('background', res, m.get('namespace', ''), m['name'], m['uid']))
        d = {'name': m['name']}
        if res.group:
            d['group'] = res.group
        d['kind'] = res.plural
        d['uid'] = m['uid']
        return R.status(200, None, reason='', details=d, success=True), 200

    def _delete_pod(self, old, grace, policy=None):
        """Graceful for a bound, non-terminal pod (the kubelet confirms); otherwise at once."""
        m = old['metadata']
        phase = (old.get('status') or {}).get('phase')
        if grace is None:
            grace = (old.get('spec') or {}).get('terminationGracePeriodSeconds', 30)
        if not (old.get('spec') or {}).get('nodeName') or phase in ('Succeeded', 'Failed'):
            grace = 0
        if m.get('deletionTimestamp') and grace > 0:
            return copy.deepcopy(old)
        out = copy.deepcopy(old)
        om = out['metadata']
        ts = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=grace)
        om['deletionTimestamp'] = ts.strftime('%Y-%m-%dT%H:%M:%SZ')
        om['deletionGracePeriodSeconds'] = grace
        obj = self.s.update(R.PODS, out)
        if grace == 0 and not om.get('finalizers'):
            obj = self.s.delete(R.PODS, om['namespace'], om['name'])
            self.gcq.put(('background', R.PODS, om['namespace'], om['name'], om['uid']))
        self.after_change(R.PODS, obj)
        return copy.deepcopy(obj)

    def _delete_namespace(self, old):
        out = copy.deepcopy(old)
        out['metadata']['deletionTimestamp'] = now_iso()
        out['status'] = {'phase': 'Terminating'}
        obj = self.s.update(R.NAMESPACES, out)
        self.gcq.put(('namespace', R.NAMESPACES, '', old['metadata']['name'], old['metadata']['uid']))
        return copy.deepcopy(obj)

    def force_delete_pod(self, ns, name, uid=None):
        """What the kubelet does once containers are gone: delete with grace 0 (only the pod with
        that uid when given: a re-created pod of the same name must survive)."""
        with self.s.lock:
            o = self.s.peek(R.PODS, ns, name)
            if o is not None and (uid is None or o['metadata']['uid'] == uid):
                self._delete_pod(o, 0)

    # ------------------------------------------------------------------------------------------
    # garbage collector
    def dependents(self, ns, uid):
        out = []
        with self.s.lock:
            for res in (R.PODS, R.EVENTS, R.JAXJOBS, R.TRAINJOBS, R.WORKLOADS):
                for (n, _), o in list(self.s.objs[res].items()):
                    if n != ns:
                        continue
                    for ref in (o['metadata'].get('ownerReferences') or []):
                        if ref.get('uid') == uid:
                            out.append((res, o))
        return out

    def _delete_dependent(self, res, o, policy='Background'):
        m = o['metadata']
        try:
            with self.s.lock:
                cur = self.s.peek(res, m.get('namespace', ''), m['name'])
                if cur is None or cur['metadata']['uid'] != m['uid']:
                    return
                if res is R.PODS:
                    self._delete_pod(cur, None)
                else:
                    self._delete_generic(res, cur, policy)
        except ApiError:
            pass

    def _gc_loop(self):
        while True:
            task = self.gcq.get()
            try:
                self._gc(task)
            except Exception as e:  # noqa: BLE001 - the GC must survive anything
                print(f'gc: {task}: {e}', flush=True)

    def _gc(self, task):
        kind, res, ns, name, uid = task
        if kind == 'namespace':
            time.sleep(0.05)  # sleep-ok: simulated latency: the namespace controller deletes a moment later
            with self.s.lock:
                for r in (R.PODS, R.EVENTS, R.JAXJOBS, R.TRAINJOBS, R.TRS, R.WORKLOADS, R.LOCALQUEUES):
                    for (n, nm), o in list(self.s.objs[r].items()):
                        if n == ns or (r.namespaced and n == name):
                            self.s.delete(r, n, nm)
                self.s.delete(R.NAMESPACES, '', name)
            return
        if kind == 'background':
            for r, o in self.dependents(ns, uid):
                self._delete_dependent(r, o)
            return
        if kind == 'orphan':
            with self.s.lock:
                for r, o in self.dependents(ns, uid):
                    d = copy.deepcopy(o)
                    d['metadata']['ownerReferences'] = [x for x in d['metadata'].get('ownerReferences') or []
                                                        if x.get('uid') != uid]
                    if not d['metadata']['ownerReferences']:
                        del d['metadata']['ownerReferences']
                    self.s.update(r, d)
            self._remove_finalizer(res, ns, name, uid, 'orphan')
            return
        # foregroundDeletion: delete dependents, wait for the blocking ones, then the owner (the real
        # garbage collector takes ~0.1 s, long enough for a client to see the Terminating owner)
        time.sleep(0.1)  # sleep-ok: simulated latency of the real garbage collector (~0.1 s)
        for r, o in self.dependents(ns, uid):
            self._delete_dependent(r, o, leaf_policy(r))
        end = time.monotonic() + 600
        while time.monotonic() < end:
            deps = self.dependents(ns, uid)
            blocking = [o for r, o in deps
                        if any(x.get('uid') == uid and x.get('blockOwnerDeletion')
                               for x in o['metadata'].get('ownerReferences') or [])]
            if not blocking:
                break
            # A dependent created after the first pass (the operator was still creating
            # the pods of a job cancelled right after its create) is deleted too, as the
            # real garbage collector does when it sees it: without this it blocked the
            # owner - and this one GC thread, so every deletion after it - for 600 s.
            for r, o in deps:
                if not o['metadata'].get('deletionTimestamp'):
                    self._delete_dependent(r, o, leaf_policy(r))
            time.sleep(0.02)  # sleep-ok: poll interval (until no blocking dependent is left)
        self._remove_finalizer(res, ns, name, uid, 'foregroundDeletion')

    def _remove_finalizer(self, res, ns, name, uid, fin):
        with self.s.lock:
            cur = self.s.peek(res, ns, name)
            if cur is None or cur['metadata']['uid'] != uid:
                return
            fins = [f for f in cur['metadata'].get('finalizers') or [] if f != fin]
            if fins:
                out = copy.deepcopy(cur)
                out['metadata']['finalizers'] = fins
                self.s.update(res, out)
            else:
                self.s.delete(res, ns, name)

    def after_change(self, res, obj):
        """Dangling owner references: the GC deletes dependents whose owner is gone."""
        refs = (obj.get('metadata') or {}).get('ownerReferences') or []
        if not refs or obj['metadata'].get('deletionTimestamp'):
            return
        with self.timer_cv:
            self.timer_seq += 1
            heapq.heappush(self.timers, (time.monotonic() + 0.5, self.timer_seq, res, obj))
            self.timer_cv.notify()

    def _timer_loop(self):
        while True:
            with self.timer_cv:
                while not self.timers or self.timers[0][0] > time.monotonic():
                    self.timer_cv.wait(timeout=(self.timers[0][0] - time.monotonic()) if self.timers else None)
                _, _, res, obj = heapq.heappop(self.timers)
            try:
                self._check_owners(res, obj)
            except Exception as e:  # noqa: BLE001
                print(f'gc: owner check: {e}', flush=True)

    def _check_owners(self, res, obj):
        with self.s.lock:
            cur = self.s.peek(res, obj['metadata'].get('namespace', ''), obj['metadata']['name'])
            if cur is None or cur['metadata']['uid'] != obj['metadata']['uid']:
                return
            obj = cur           # its owner references now (an orphaning may have removed them)
            m = obj['metadata']
            for ref in m.get('ownerReferences') or []:
                kind = ref.get('kind')
                ores = {'JAXJob': R.JAXJOBS, 'TrainJob': R.TRAINJOBS, 'Pod': R.PODS}.get(kind)
                if ores is None:
                    continue
                owner = self.s.peek(ores, m.get('namespace', ''), ref.get('name'))
                if owner is not None and owner['metadata']['uid'] == ref.get('uid'):
                    return
            # every owner we know of is gone
            if any(({'JAXJob', 'TrainJob', 'Pod'} & {r.get('kind')}) for r in m.get('ownerReferences') or []):
                self._delete_dependent(res, obj)

    # ------------------------------------------------------------------------------------------
    def ssar(self, body, user):
        try:
            o = json.loads(body or b'')
        except ValueError:
            raise err(400, 'the object provided is unrecognized (must be of type SelfSubjectAccessReview)')
        spec = o.get('spec') or {}
        ra = spec.get('resourceAttributes')
        nra = spec.get('nonResourceAttributes')
        if ra:
            allowed = user.can(ra.get('verb', ''), ra.get('group', ''), ra.get('resource', ''),
                               ra.get('subresource', ''), ra.get('namespace', ''))
        elif nra:
            allowed = 'system:masters' in user.groups
        else:
            raise err(422, 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: '
                           'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must '
                           'be specified', details={'group': 'authorization.k8s.io', 'kind': 'SelfSubjectAccessReview'})
        for k in ('resourceAttributes', 'nonResourceAttributes'):
            if isinstance(spec.get(k), dict):
                spec[k] = {a: b for a, b in spec[k].items() if b not in ('', None)}
        return {'kind': 'SelfSubjectAccessReview', 'apiVersion': 'authorization.k8s.io/v1',
                'metadata': {'creationTimestamp': None}, 'spec': spec, 'status': {'allowed': allowed}}


    RULE_VERBS = ('get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection')

    def ssrr(self, body, user, crds):
        """SelfSubjectRulesReview as the RBAC authorizer answers it: the rules that apply in
        spec.namespace, complete (incomplete: false). The test users' allow/deny patterns are
        expanded into one rule per resource the server knows, with the verbs allowed on it."""
        try:
            o = json.loads(body or b'')
        except ValueError:
            raise err(400, 'the object provided is unrecognized (must be of type SelfSubjectRulesReview)')
        ns = (o.get('spec') or {}).get('namespace') or ''
        if not ns:
            raise err(400, 'no namespace on request')
        rules = [{'verbs': ['create'], 'apiGroups': ['authorization.k8s.io'],
                  'resources': ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']}]
        if 'system:masters' in user.groups:
            rules.insert(0, {'verbs': ['*'], 'apiGroups': ['*'], 'resources': ['*']})
        else:
            for res in R.ALL:
                if res is R.SSAR or (res.custom and res.group not in crds):
                    continue
                for sub in ('',) + tuple(res.subresources):
                    verbs = [v for v in self.RULE_VERBS if user.can(v, res.group, res.plural, sub, ns)]
                    if verbs:
                        rules.append({'verbs': verbs, 'apiGroups': [res.group],
                                      'resources': [f'{res.plural}/{sub}' if sub else res.plural]})
        return {'kind': 'SelfSubjectRulesReview', 'apiVersion': 'authorization.k8s.io/v1',
                'metadata': {'creationTimestamp': None}, 'spec': {},
                'status': {'resourceRules': rules,
                           'nonResourceRules': [{'verbs': ['get'], 'nonResourceURLs': ['/api', '/api/*', '/apis',
                                                                                      '/apis/*', '/healthz',
                                                                                      '/version']}],
                           'incomplete': False}}


class DropStream(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# patches

def merge_patch(target, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target


def _ptr(path):
    if path == '':
        return []
    if not path.startswith('/'):
        raise err(422, 'the server rejected our request due to an error in our request', details={})
    return [p.replace('~1', '/').replace('~0', '~') for p in path[1:].split('/')]


def _walk(doc, parts):
    cur = doc
    for p in parts:
        if isinstance(cur, dict):
            if p not in cur:
                return None, False
            cur = cur[p]
        elif isinstance(cur, list):
            try:
                cur = cur[int(p)]
            except (ValueError, IndexError):
                return None, False
        else:
            return None, False
    return cur, True


def json_patch(doc, ops):
    """RFC 6902 the way the apiserver's library behaves (replace of a missing key adds it)."""
    bad = err(422, 'the server rejected our request due to an error in our request', details={})
    if not isinstance(ops, list):
        raise err(400, 'Invalid JSON Patch')
    for op in ops:
        if not isinstance(op, dict) or 'op' not in op:
            raise err(400, 'Invalid JSON Patch')
        kind = op['op']
        parts = _ptr(op.get('path', ''))
        if kind == 'test':
            v, ok = _walk(doc, parts)
            if not ok or v != op.get('value'):
                raise bad
            continue
        if kind in ('move', 'copy'):
            src = _ptr(op.get('from', ''))
            v, ok = _walk(doc, src)
            if not ok:
                raise bad
            v = copy.deepcopy(v)
            if kind == 'move':
                parent, _ = _walk(doc, src[:-1])
                if isinstance(parent, dict):
                    parent.pop(src[-1], None)
                elif isinstance(parent, list):
                    parent.pop(int(src[-1]))
            kind, op = 'add', {'value': v}
        if not parts:
            if kind in ('add', 'replace'):
                doc = copy.deepcopy(op.get('value'))
                continue
            raise bad
        parent, ok = _walk(doc, parts[:-1])
        if not ok:
            raise bad
        last = parts[-1]
        if isinstance(parent, dict):
            if kind in ('add', 'replace'):
                parent[last] = copy.deepcopy(op.get('value'))
            elif kind == 'remove':
                if last not in parent:
                    raise bad
                del parent[last]
            else:
                raise err(400, f'Unexpected kind: {kind}')
        elif isinstance(parent, list):
            try:
                i = len(parent) if last == '-' else int(last)
            except ValueError:
                raise bad
            if kind == 'add':
                if i > len(parent):
                    raise bad
                parent.insert(i, copy.deepcopy(op.get('value')))
            elif kind == 'replace':
                if i >= len(parent):
                    raise bad
                parent[i] = copy.deepcopy(op.get('value'))
            elif kind == 'remove':
                if i >= len(parent):
                    raise bad
                parent.pop(i)
            else:
                raise err(400, f'Unexpected kind: {kind}')
        else:
            raise bad
    return doc
