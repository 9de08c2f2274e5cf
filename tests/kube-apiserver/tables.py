"""Server-side printing (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), so `kubectl get`
shows the usual columns: JAXJob/TrainJob State (type of the last condition, the CRDs' printer
column) and Age, Pod Ready/Status/Restarts/Age, Namespace Status/Age, Event columns."""
import datetime
import time


def _age(ts):
    if not ts:
        return '<unknown>'
    try:
        t = datetime.datetime.strptime(ts[:19], '%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return '<unknown>'
    s = max(0, int(time.time() - t.timestamp()))
    if s < 120:
        return f'{s}s'
    if s < 3600 * 2:
        return f'{s // 60}m'
    if s < 86400 * 2:
        return f'{s // 3600}h'
    return f'{s // 86400}d'


def _col(name, typ='string', fmt='', desc=''):
    return {'name': name, 'type': typ, 'format': fmt, 'description': desc or name, 'priority': 0}


def _pod_status(p):
    if p['metadata'].get('deletionTimestamp'):
        return 'Terminating'
    st = p.get('status') or {}
    reason = st.get('reason') or st.get('phase') or 'Pending'
    for cs in st.get('containerStatuses') or []:
        state = cs.get('state') or {}
        if state.get('waiting', {}).get('reason'):
            reason = state['waiting']['reason']
        elif state.get('terminated', {}).get('reason'):
            reason = state['terminated']['reason']
    for c in st.get('conditions') or []:
        if c.get('type') == 'PodScheduled' and c.get('status') == 'False' and c.get('reason'):
            reason = 'Pending'
    return reason


def _columns(kind):
    name = _col('Name', fmt='name')
    if kind in ('JAXJob', 'TrainJob'):
        return [name, _col('State'), _col('Age', 'date')]
    if kind == 'Pod':
        return [name, _col('Ready'), _col('Status'), _col('Restarts'), _col('Age')]
    if kind == 'Namespace':
        return [name, _col('Status'), _col('Age')]
    if kind == 'Event':
        return [_col('Last Seen'), _col('Type'), _col('Reason'), _col('Object'), _col('Message'), dict(name, priority=1)]
    return [name, _col('Age')]


def _cells(kind, o):
    m = o.get('metadata') or {}
    age = _age(m.get('creationTimestamp'))
    if kind in ('JAXJob', 'TrainJob'):
        conds = (o.get('status') or {}).get('conditions') or []
        return [m.get('name'), conds[-1].get('type') if conds else None, age]
    if kind == 'Pod':
        cs = (o.get('status') or {}).get('containerStatuses') or []
        ready = sum(1 for c in cs if c.get('ready'))
        total = len((o.get('spec') or {}).get('containers') or [])
        return [m.get('name'), f'{ready}/{total}', _pod_status(o), sum(c.get('restartCount', 0) for c in cs), age]
    if kind == 'Namespace':
        return [m.get('name'), (o.get('status') or {}).get('phase'), age]
    if kind == 'Event':
        inv = o.get('involvedObject') or {}
        return [_age(o.get('lastTimestamp') or m.get('creationTimestamp')), o.get('type'), o.get('reason'),
                f'{(inv.get("kind") or "").lower()}/{inv.get("name")}', o.get('message'), m.get('name')]
    return [m.get('name'), age]


def wants_table(accept):
    return 'as=Table' in (accept or '')


def table(kind, items, rv=None):
    rows = []
    for o in items:
        m = o.get('metadata') or {}
        rows.append({'cells': _cells(kind, o),
                     'object': {'kind': 'PartialObjectMetadata', 'apiVersion': 'meta.k8s.io/v1', 'metadata': m}})
    t = {'kind': 'Table', 'apiVersion': 'meta.k8s.io/v1', 'metadata': {}, 'columnDefinitions': _columns(kind),
         'rows': rows}
    if rv is not None:
        t['metadata']['resourceVersion'] = str(rv)
    return t
