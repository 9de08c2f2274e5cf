"""JSON the way the Go kube-apiserver writes it.

Two serializations matter to clients (see tests/apiserver-conformance/recordings/README.md):
- compact: Go encoding/json, no spaces, `<` `>` `&` escaped as \\u003c \\u003e \\u0026, then "\\n";
- indented: 2-space indent, no trailing newline (User-Agent starting with "curl", and /version).

Key order: custom resources are unstructured maps, so Go sorts their keys; built-in types keep
Go struct field order. `builtin_order()` rearranges a built-in object (Pod, Event, Namespace,
Status, ...) into struct order using the small field-order tables below; unknown keys keep
their place after the known ones, and Go maps (labels, annotations, ...) are sorted.
"""
import json

_ESC = (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026'),
        ('\u2028', '\\u2028'), ('\u2029', '\\u2029'))


def _escape(s):
    for a, b in _ESC:
        if a in s:
            s = s.replace(a, b)
    return s


def dumps(obj, sort_keys=False, indent=False):
    """Serialize like Go; `indent` gives the curl-style pretty form (no trailing newline)."""
    if indent:
        return _escape(json.dumps(obj, sort_keys=sort_keys, ensure_ascii=False, indent=2))
    return _escape(json.dumps(obj, sort_keys=sort_keys, ensure_ascii=False, separators=(',', ':'))) + '\n'


# ---------------------------------------------------------------------------------------------
# Go struct field order for the built-in types we serve. A table maps a key to the table of its
# value ('*map' = Go map: sorted keys; '*list:X' = list of X).

META = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation',
        'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations',
        'ownerReferences', 'finalizers', 'managedFields']

TABLES = {
    'meta': (META, {'labels': '*map', 'annotations': '*map', 'ownerReferences': '*list:ownerref',
                    'managedFields': '*list:mf'}),
    'ownerref': (['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'], {}),
    'mf': (['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'], {}),
    'listmeta': (['selfLink', 'resourceVersion', 'continue', 'remainingItemCount'], {}),
    'pod': (['kind', 'apiVersion', 'metadata', 'spec', 'status'],
            {'metadata': 'meta', 'spec': 'podspec', 'status': 'podstatus'}),
    'podspec': (['volumes', 'initContainers', 'containers', 'ephemeralContainers', 'restartPolicy',
                 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector',
                 'serviceAccountName', 'serviceAccount', 'automountServiceAccountToken', 'nodeName',
                 'hostNetwork', 'hostPID', 'hostIPC', 'shareProcessNamespace', 'securityContext',
                 'imagePullSecrets', 'hostname', 'subdomain', 'affinity', 'schedulerName', 'tolerations',
                 'hostAliases', 'priorityClassName', 'priority', 'dnsConfig', 'readinessGates',
                 'runtimeClassName', 'enableServiceLinks', 'preemptionPolicy', 'overhead',
                 'topologySpreadConstraints', 'setHostnameAsFQDN', 'os'],
                {'initContainers': '*list:container', 'containers': '*list:container',
                 'nodeSelector': '*map', 'tolerations': '*list:toleration'}),
    'container': (['name', 'image', 'command', 'args', 'workingDir', 'ports', 'envFrom', 'env', 'resources',
                   'volumeMounts', 'volumeDevices', 'livenessProbe', 'readinessProbe', 'startupProbe',
                   'lifecycle', 'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy',
                   'securityContext', 'stdin', 'stdinOnce', 'tty'],
                  {'ports': '*list:port', 'env': '*list:env', 'resources': 'resources'}),
    'resources': (['limits', 'requests'], {'limits': '*map', 'requests': '*map'}),
    'port': (['name', 'hostPort', 'containerPort', 'protocol', 'hostIP'], {}),
    'env': (['name', 'value', 'valueFrom'], {}),
    'toleration': (['key', 'operator', 'value', 'effect', 'tolerationSeconds'], {}),
    'podstatus': (['phase', 'conditions', 'message', 'reason', 'nominatedNodeName', 'hostIP', 'podIP',
                   'podIPs', 'startTime', 'initContainerStatuses', 'containerStatuses', 'qosClass',
                   'ephemeralContainerStatuses'],
                  {'conditions': '*list:podcond', 'containerStatuses': '*list:cstatus'}),
    'podcond': (['type', 'status', 'lastProbeTime', 'lastTransitionTime', 'reason', 'message'], {}),
    'cstatus': (['name', 'state', 'lastState', 'ready', 'restartCount', 'image', 'imageID', 'containerID',
                 'started'], {'state': 'cstate', 'lastState': 'cstate'}),
    'cstate': (['waiting', 'running', 'terminated'], {'waiting': 'cwait', 'terminated': 'cterm'}),
    'cwait': (['reason', 'message'], {}),
    'cterm': (['exitCode', 'signal', 'reason', 'message', 'startedAt', 'finishedAt', 'containerID'], {}),
    'event': (['kind', 'apiVersion', 'metadata', 'involvedObject', 'reason', 'message', 'source',
               'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'series', 'action',
               'related', 'reportingComponent', 'reportingInstance'],
              {'metadata': 'meta', 'involvedObject': 'objref', 'source': 'evsource'}),
    'objref': (['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'], {}),
    'evsource': (['component', 'host'], {}),
    'namespace': (['kind', 'apiVersion', 'metadata', 'spec', 'status'], {'metadata': 'meta'}),
    'status': (['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code'],
               {'details': 'details'}),
    'details': (['name', 'group', 'kind', 'uid', 'causes', 'retryAfterSeconds'], {'causes': '*list:cause'}),
    'cause': (['reason', 'message', 'field'], {}),
    'list': (['kind', 'apiVersion', 'metadata', 'items'], {'metadata': 'listmeta'}),
    'scale': (['kind', 'apiVersion', 'metadata', 'spec', 'status'], {'metadata': 'meta'}),
    'ssar': (['kind', 'apiVersion', 'metadata', 'spec', 'status'], {'metadata': 'meta'}),
    'watchevent': (['type', 'object'], {}),
}

KIND_TABLE = {'Pod': 'pod', 'Event': 'event', 'Namespace': 'namespace', 'Status': 'status',
              'Scale': 'scale', 'SelfSubjectAccessReview': 'ssar'}


def _apply(v, table):
    if table is None:
        return v
    if table == '*map':
        return {k: v[k] for k in sorted(v)} if isinstance(v, dict) else v
    if table.startswith('*list:'):
        sub = table[6:]
        return [_apply(x, sub) for x in v] if isinstance(v, list) else v
    if not isinstance(v, dict):
        return v
    order, subs = TABLES[table]
    out = {}
    for k in order:
        if k in v:
            out[k] = _apply(v[k], subs.get(k))
    for k in v:
        if k not in out:
            out[k] = v[k]
    return out


def builtin_order(obj):
    """Rearrange a built-in object (by its kind) into Go struct order."""
    t = KIND_TABLE.get(obj.get('kind')) if isinstance(obj, dict) else None
    return _apply(obj, t) if t else obj


def builtin_list(kind, api_version, list_meta, items, item_table):
    items = [_apply(i, item_table) for i in items]
    return {'kind': kind, 'apiVersion': api_version, 'metadata': _apply(list_meta, 'listmeta'), 'items': items}


def order_as(obj, table):
    return _apply(obj, table)
