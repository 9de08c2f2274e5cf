"""Kueue's visibility API as the double serves it: the pending Workloads of a LocalQueue with
their positions, computed from the Workloads in the store.

    GET /apis/visibility.kueue.x-k8s.io/{v1beta2,v1beta1}/namespaces/NS/localqueues/LQ/pendingworkloads
        ?limit=N&offset=M

What Kueue answers (kubernetes-sigs/kueue at ff69552e; facts, not code):
- a PendingWorkloadsSummary, `items` in queue order, each with metadata (name, namespace,
  ownerReferences, creationTimestamp), priority, localQueueName, positionInClusterQueue and
  positionInLocalQueue, both 0-based (apis/visibility/v1beta2/types.go:66-91,
  pkg/visibility/storage/utils.go:40-66);
- `offset` counts within the LocalQueue, `limit` defaults to 1000 and is capped at 100,000
  (pkg/visibility/storage/pending_workloads_lq.go:65-97, utils.go:28-33, pkg/constants/constants.go:43-49);
- a LocalQueue its queue manager does not know: NotFound
  "localqueue.visibility.kueue.x-k8s.io \"LQ\" not found" (pending_workloads_lq.go:75-77:
  NewNotFound of the group-qualified resource; seen on the real Kueue v0.17.1 by
  65-real-operators, which compares it with not_found_message());
- versions v1beta2 and v1beta1, the same storage (pkg/visibility/server.go:187-191); a version
  whose APIService is not installed is the apiserver's plain "404 page not found".

Pending here means: a Workload whose QuotaReserved condition is not True and which is not
Finished, in a LocalQueue of the same ClusterQueue (LocalQueue spec.clusterQueue), ordered by
priority (higher first), then creationTimestamp, then name (StrictFIFO/BestEffortFIFO order,
ties broken by name so a test can order the Workloads it makes in the same second).

Test knobs (POST /_test/config): `visibility` = the versions served (default none: a cluster
without the APIService), `visibilityAnswer` = ok (default), malformed (not JSON), truncated
(JSON cut off), noitems (an object without items), huge (a valid answer of 1 MiB), unavailable
(503, the APIService's server down).
"""
import json

GROUP = 'visibility.kueue.x-k8s.io'


def _true(o, ctype):
    for c in (o.get('status') or {}).get('conditions') or []:
        if c.get('type') == ctype:
            return c.get('status') == 'True'
    return False


def not_found_message(lq):
    """What Kueue's visibility server says of a LocalQueue it does not know."""
    return f'localqueue.{GROUP} "{lq}" not found'


def pending(store, R, ns, lq):
    """(items of LQ in order with 0-based positions, or None when the LocalQueue is unknown)."""
    lqs, wls = R.LOCALQUEUES, R.WORKLOADS
    mine = store.get(lqs, ns, lq)
    if mine is None:
        return None
    cq = (mine.get('spec') or {}).get('clusterQueue')
    all_lqs, _ = store.list(lqs)
    in_cq = {(o['metadata']['namespace'], o['metadata']['name']) for o in all_lqs
             if (o.get('spec') or {}).get('clusterQueue') == cq}
    items, _ = store.list(wls)
    queue = [o for o in items
             if (o['metadata'].get('namespace'), (o.get('spec') or {}).get('queueName')) in in_cq
             and not _true(o, 'QuotaReserved') and not _true(o, 'Finished')]
    queue.sort(key=lambda o: (-int((o.get('spec') or {}).get('priority') or 0),
                              o['metadata'].get('creationTimestamp') or '', o['metadata']['name']))
    out = []
    for i, o in enumerate(queue):
        m = o['metadata']
        if m.get('namespace') != ns or o['spec'].get('queueName') != lq:
            continue
        out.append({'metadata': {'name': m['name'], 'namespace': m['namespace'],
                                 'ownerReferences': m.get('ownerReferences') or [],
                                 'creationTimestamp': m.get('creationTimestamp')},
                    'priority': int(o['spec'].get('priority') or 0), 'localQueueName': lq,
                    'positionInClusterQueue': i, 'positionInLocalQueue': len(out)})
    return out


def serve(h, cfg, store, R, version, ns, lq, q, not_found_page, err):
    """Answer one pendingworkloads GET (after the authorization check)."""
    if version not in (getattr(cfg, 'visibility', None) or ()):
        raise not_found_page()
    mode = getattr(cfg, 'visibility_answer', None) or 'ok'
    if mode == 'unavailable':
        raise err(503, 'the server is currently unable to handle the request')
    items = pending(store, R, ns, lq)
    if items is None:
        raise err(404, not_found_message(lq), details={'name': lq, 'group': GROUP, 'kind': 'localqueue'})
    try:
        limit = int(q.get('limit') or 1000)
        offset = int(q.get('offset') or 0)
    except ValueError:
        raise err(400, 'limit and offset must be integers')
    limit, offset = min(max(limit, 0), 100000), max(offset, 0)
    page = items[offset:offset + limit]
    body = {'kind': 'PendingWorkloadsSummary', 'apiVersion': f'{GROUP}/{version}',
            'metadata': {'creationTimestamp': None}, 'items': page}
    data = json.dumps(body).encode()
    if mode == 'malformed':
        data = b'<html>not json</html>'
    elif mode == 'truncated':
        data = data[:len(data) // 2]
    elif mode == 'noitems':
        data = b'{"kind": "PendingWorkloadsSummary", "metadata": {}}'
    elif mode == 'huge':
        filler = [{'metadata': {'name': f'filler-{i:06d}', 'namespace': ns}, 'priority': 0,
                   'localQueueName': lq, 'positionInClusterQueue': i,
                   'positionInLocalQueue': i, 'padding': 'x' * 200} for i in range(4000)]
        data = json.dumps(dict(body, items=filler + page)).encode()
    h.send_bytes(200, data, 'application/json')
