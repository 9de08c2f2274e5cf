"""Structural schemas (our own, hand-written from the API facts) and what the apiserver does with
them: pruning of unknown fields, type validation with the apiserver's 422 wording, defaulting.
Also name validation and the built-in Pod defaults the apiserver applies.

A schema node is a dict: {'t': type, 'p': {prop: node}, 'items': node, 'map': node,
'req': [...], 'default': v}. Types: object, array, string, integer, boolean, number, any
(anything, kept as is: used where we do not model the upstream schema in detail, so we never
prune a field the real CRD would keep).
"""
import re

ANY = {'t': 'any'}
STR = {'t': 'string'}
INT = {'t': 'integer'}
BOOL = {'t': 'boolean'}
INT_OR_STR = {'t': 'int-or-string'}


def obj(props, req=(), **kw):
    d = {'t': 'object', 'p': props, 'req': list(req)}
    d.update(kw)
    return d


def arr(items):
    return {'t': 'array', 'items': items}


def smap(v):
    return {'t': 'object', 'map': v}


ENV = obj({'name': STR, 'value': STR, 'valueFrom': ANY}, req=['name'])
PORT = obj({'name': STR, 'containerPort': INT, 'hostPort': INT, 'hostIP': STR, 'protocol': STR},
           req=['containerPort'])
RESOURCES = obj({'limits': smap(INT_OR_STR), 'requests': smap(INT_OR_STR), 'claims': ANY})
CONTAINER = obj({
    'name': STR, 'image': STR, 'command': arr(STR), 'args': arr(STR), 'workingDir': STR,
    'ports': arr(PORT), 'envFrom': ANY, 'env': arr(ENV), 'resources': RESOURCES, 'resizePolicy': ANY,
    'restartPolicy': STR, 'volumeMounts': ANY, 'volumeDevices': ANY, 'livenessProbe': ANY,
    'readinessProbe': ANY, 'startupProbe': ANY, 'lifecycle': ANY, 'terminationMessagePath': STR,
    'terminationMessagePolicy': STR, 'imagePullPolicy': STR, 'securityContext': ANY, 'stdin': BOOL,
    'stdinOnce': BOOL, 'tty': BOOL}, req=['name'])
POD_SPEC_FIELDS = ['volumes', 'initContainers', 'ephemeralContainers', 'restartPolicy',
                   'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'dnsPolicy', 'nodeSelector',
                   'serviceAccountName', 'serviceAccount', 'automountServiceAccountToken', 'nodeName',
                   'hostNetwork', 'hostPID', 'hostIPC', 'hostUsers', 'shareProcessNamespace', 'securityContext',
                   'imagePullSecrets', 'hostname', 'subdomain', 'affinity', 'schedulerName', 'tolerations',
                   'hostAliases', 'priorityClassName', 'priority', 'dnsConfig', 'readinessGates',
                   'runtimeClassName', 'enableServiceLinks', 'preemptionPolicy', 'overhead',
                   'topologySpreadConstraints', 'setHostnameAsFQDN', 'os', 'schedulingGates',
                   'resourceClaims', 'resources']
POD_SPEC = obj(dict({k: ANY for k in POD_SPEC_FIELDS},
                    containers=arr(CONTAINER), initContainers=arr(CONTAINER), restartPolicy=STR,
                    nodeName=STR, nodeSelector=smap(STR), schedulerName=STR),
               req=['containers'])
TEMPLATE = obj({
    'metadata': obj({'annotations': smap(STR), 'finalizers': arr(STR), 'labels': smap(STR),
                     'name': STR, 'namespace': STR}),
    'spec': POD_SPEC})

CONDITION = obj({'type': STR, 'status': STR, 'reason': STR, 'message': STR, 'lastUpdateTime': STR,
                 'lastTransitionTime': STR}, req=['status', 'type'])

JAXJOB = obj({
    'apiVersion': STR, 'kind': STR, 'metadata': ANY,
    'spec': obj({
        'runPolicy': obj({
            'cleanPodPolicy': STR, 'ttlSecondsAfterFinished': INT, 'activeDeadlineSeconds': INT,
            'backoffLimit': INT,
            'schedulingPolicy': obj({'minAvailable': INT, 'queue': STR, 'minResources': smap(INT_OR_STR),
                                     'priorityClass': STR, 'scheduleTimeoutSeconds': INT}),
            'suspend': dict(BOOL, default=False), 'managedBy': STR}),
        'jaxReplicaSpecs': smap(obj({'replicas': INT, 'restartPolicy': STR, 'template': TEMPLATE})),
    }, req=['jaxReplicaSpecs']),
    'status': obj({
        'conditions': arr(CONDITION),
        'replicaStatuses': smap(obj({'active': INT, 'succeeded': INT, 'failed': INT, 'labelSelector': ANY,
                                     'selector': STR})),
        'startTime': STR, 'completionTime': STR, 'lastReconcileTime': STR}),
})

METACOND = obj({'type': STR, 'status': STR, 'reason': STR, 'message': STR, 'lastTransitionTime': STR,
                'observedGeneration': INT}, req=['lastTransitionTime', 'message', 'reason', 'status', 'type'])

TRAINJOB = obj({
    'apiVersion': STR, 'kind': STR, 'metadata': ANY,
    'spec': obj({
        'runtimeRef': obj({'apiGroup': dict(STR, default='trainer.kubeflow.org'),
                           'kind': dict(STR, default='ClusterTrainingRuntime'), 'name': STR}, req=['name']),
        'initializer': ANY,
        'trainer': obj({'image': STR, 'command': arr(STR), 'args': arr(STR), 'env': arr(ENV),
                        'numNodes': INT, 'resourcesPerNode': RESOURCES, 'numProcPerNode': ANY}),
        'runtimePatches': ANY, 'podTemplateOverrides': ANY, 'labels': smap(STR), 'annotations': smap(STR),
        'suspend': dict(BOOL, default=False),
        'activeDeadlineSeconds': INT,
        'managedBy': dict(STR, default='trainer.kubeflow.org/trainjob-controller'),
    }, req=['runtimeRef']),
    'status': obj({'conditions': arr(METACOND), 'jobsStatus': ANY, 'trainerStatus': ANY}),
})

RUNTIME = obj({'apiVersion': STR, 'kind': STR, 'metadata': ANY, 'spec': ANY})

GO_TYPE = {bool: 'boolean', int: 'integer', float: 'number', str: 'string', list: 'array', dict: 'object',
           type(None): 'null'}


def go_type(v):
    return GO_TYPE.get(type(v), 'object')


def _type_ok(t, v):
    if t == 'any':
        return True
    if t == 'integer':
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == 'number':
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == 'int-or-string':
        return isinstance(v, (int, str)) and not isinstance(v, bool)
    return go_type(v) == t


def fmt_path(parts):
    out = ''
    for p in parts:
        if isinstance(p, int):
            out += f'[{p}]'
        else:
            out += ('.' if out else '') + p
    return out


def validate(node, v, path, errs):
    """Check v against node, prune unknown fields in place, apply defaults. Returns the pruned value.
    errs gets (reason, field, detail) tuples in the apiserver's wording."""
    t = node['t']
    if t == 'any':
        return v
    if v is None:
        return v        # null: the apiserver drops nulls of non-nullable fields (pruning) before validating
    if not _type_ok(t, v):
        p = fmt_path(path)
        want = 'integer-or-string' if t == 'int-or-string' else t
        errs.append(('FieldValueTypeInvalid', p,
                     f'Invalid value: "{go_type(v)}": {p} in body must be of type {want}: "{go_type(v)}"'))
        return v
    if t == 'array':
        return [validate(node['items'], x, path + [i], errs) for i, x in enumerate(v)]
    if t != 'object':
        return v
    if 'map' in node:
        return {k: validate(node['map'], x, path + [k], errs) for k, x in v.items() if x is not None}
    props = node['p']
    out = {}
    for k, x in v.items():
        if k in props and x is not None:
            out[k] = validate(props[k], x, path + [k], errs)
    for k, sub in props.items():
        if k not in out and 'default' in sub:
            out[k] = sub['default']
    for k in node.get('req', ()):
        if k not in out:
            errs.append(('FieldValueRequired', fmt_path(path + [k]), 'Required value'))
    return out


# --- names ------------------------------------------------------------------------------------

DNS1123_SUB = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
DNS1123_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation "
             "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def name_errors(name, label=False):
    """Errors for metadata.name as (reason, field, detail)."""
    if not name:
        return [('FieldValueRequired', 'metadata.name', 'Required value: name or generateName is required')]
    errs = []
    limit = 63 if label else 253
    if len(name) > limit:
        errs.append(('FieldValueInvalid', 'metadata.name',
                     f'Invalid value: "{name}": must be no more than {limit} characters'))
    if not (DNS1123_LABEL if label else DNS1123_SUB).match(name):
        errs.append(('FieldValueInvalid', 'metadata.name',
                     f'Invalid value: "{name}": ' + (LABEL_MSG if label else SUBDOMAIN_MSG)))
    return errs


def label_errors(labels):
    errs = []
    if not isinstance(labels, dict):
        return errs
    for k, v in labels.items():
        if not isinstance(v, str) or len(v) > 63 or not re.match(r'^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$', v):
            errs.append(('FieldValueInvalid', f'metadata.labels', f'Invalid value: "{v}": a valid label must be '
                         "an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
                         "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                         "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"))
    return errs


# --- custom resource validation as the apiserver does it ------------------------------------------

CEL_SKIPPED = ('FieldValueInvalid', '<nil>',
               'Invalid value: "null": some validation rules were not checked because the object was invalid; '
               'correct the existing errors to complete validation')


def validate_jaxjob(o):
    """Prune/default/validate a JAXJob body in place (spec and status). Returns error tuples."""
    errs = []
    pruned = validate(JAXJOB, o, [], errs)
    for k in list(o):
        if k not in pruned:
            del o[k]
    o.update(pruned)
    # the scale subresource reads .spec.jaxReplicaSpecs.Worker.replicas as int64
    w = (((o.get('spec') or {}).get('jaxReplicaSpecs') or {}).get('Worker') or {})
    r = w.get('replicas') if isinstance(w, dict) else None
    if r is not None and not _type_ok('integer', r):
        errs.append(('FieldValueInvalid', '.spec.jaxReplicaSpecs.Worker.replicas',
                     f'Invalid value: 0: .spec.jaxReplicaSpecs.Worker.replicas accessor error: {r} is of the type '
                     f'{go_type(r) if go_type(r) != "integer" else "int64"}, expected int64'))
    if errs:
        errs.append(CEL_SKIPPED)   # the CRD has x-kubernetes-validations rules: CEL is skipped
    return errs


def validate_trainjob(o):
    errs = []
    pruned = validate(TRAINJOB, o, [], errs)
    for k in list(o):
        if k not in pruned:
            del o[k]
    o.update(pruned)
    name = (o.get('metadata') or {}).get('name') or ''
    spec = o.get('spec') or {}
    if name and not re.match(r'^[a-z]([-a-z0-9]*[a-z0-9])?$', name):
        errs.append(('FieldValueInvalid', 'metadata', 'Invalid value: "object": metadata.name must match RFC 1035 '
                     'DNS label format'))
    if len(name) > 63:
        errs.append(('FieldValueInvalid', 'metadata', 'Invalid value: "object": metadata.name must be no more '
                     'than 63 characters'))
    mb = spec.get('managedBy')
    if isinstance(mb, str) and mb not in ('trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue'):
        errs.append(('FieldValueInvalid', 'spec.managedBy', f'Invalid value: "string": ManagedBy must be '
                     'trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set'))
    ads = spec.get('activeDeadlineSeconds')
    if isinstance(ads, int) and not isinstance(ads, bool) and ads < 1:
        errs.append(('FieldValueInvalid', 'spec.activeDeadlineSeconds',
                     f'Invalid value: {ads}: spec.activeDeadlineSeconds in body should be greater than or equal to 1'))
    return errs


def validate_runtime(o):
    errs = []
    pruned = validate(RUNTIME, o, [], errs)
    for k in list(o):
        if k not in pruned:
            del o[k]
    o.update(pruned)
    return errs


# --- Pods: the defaults the apiserver (and its default admission plugins) add -----------------------

DEFAULT_TOLERATIONS = [
    {'key': 'node.kubernetes.io/not-ready', 'operator': 'Exists', 'effect': 'NoExecute', 'tolerationSeconds': 300},
    {'key': 'node.kubernetes.io/unreachable', 'operator': 'Exists', 'effect': 'NoExecute', 'tolerationSeconds': 300},
]


def _pull_policy(image):
    last = (image or '').rsplit('/', 1)[-1]
    if '@' in last:
        return 'IfNotPresent'
    if ':' not in last or last.endswith(':latest'):
        return 'Always'
    return 'IfNotPresent'


def default_container(c):
    for p in c.get('ports') or []:
        if isinstance(p, dict):
            p.setdefault('protocol', 'TCP')
    c.setdefault('resources', {})
    c.setdefault('terminationMessagePath', '/dev/termination-log')
    c.setdefault('terminationMessagePolicy', 'File')
    c.setdefault('imagePullPolicy', _pull_policy(c.get('image')))
    for e in c.get('env') or []:
        vf = e.get('valueFrom') if isinstance(e, dict) else None
        if isinstance(vf, dict) and isinstance(vf.get('fieldRef'), dict):
            vf['fieldRef'].setdefault('apiVersion', 'v1')


def default_pod(pod):
    spec = pod.setdefault('spec', {})
    for c in (spec.get('initContainers') or []) + (spec.get('containers') or []):
        if isinstance(c, dict):
            default_container(c)
    spec.setdefault('restartPolicy', 'Always')
    spec.setdefault('terminationGracePeriodSeconds', 30)
    spec.setdefault('dnsPolicy', 'ClusterFirst')
    spec.setdefault('securityContext', {})
    spec.setdefault('schedulerName', 'default-scheduler')
    tol = spec.setdefault('tolerations', [])
    for t in DEFAULT_TOLERATIONS:
        if not any(isinstance(x, dict) and x.get('key') == t['key'] for x in tol):
            tol.append(dict(t))
    spec.setdefault('priority', 0)
    spec.setdefault('enableServiceLinks', True)
    spec.setdefault('preemptionPolicy', 'PreemptLowerPriority')
    st = pod.setdefault('status', {})
    st.setdefault('phase', 'Pending')
    st.setdefault('qosClass', qos_class(spec))


def qos_class(spec):
    reqs, lims = [], []
    for c in spec.get('containers') or []:
        r = (c.get('resources') or {}) if isinstance(c, dict) else {}
        reqs.append(r.get('requests') or {})
        lims.append(r.get('limits') or {})
    if not any(reqs) and not any(lims):
        return 'BestEffort'
    guaranteed = all(l.get('cpu') and l.get('memory') and all(r.get(k, l[k]) == l[k] for k in r)
                     for r, l in zip(reqs, lims))
    return 'Guaranteed' if guaranteed else 'Burstable'


def validate_pod(pod):
    errs = []
    spec = pod.get('spec')
    if not isinstance(spec, dict):
        return [('FieldValueRequired', 'spec.containers', 'Required value')]
    cs = spec.get('containers')
    if not isinstance(cs, list) or not cs:
        errs.append(('FieldValueRequired', 'spec.containers', 'Required value'))
        return errs
    seen = set()
    for i, c in enumerate(cs):
        if not isinstance(c, dict):
            errs.append(('FieldValueTypeInvalid', f'spec.containers[{i}]', 'Invalid value: must be an object'))
            continue
        n = c.get('name')
        if not n:
            errs.append(('FieldValueRequired', f'spec.containers[{i}].name', 'Required value'))
        elif not DNS1123_LABEL.match(n):
            errs.append(('FieldValueInvalid', f'spec.containers[{i}].name', f'Invalid value: "{n}": ' + LABEL_MSG))
        elif n in seen:
            errs.append(('FieldValueDuplicate', f'spec.containers[{i}].name', f'Duplicate value: "{n}"'))
        seen.add(n)
        if not c.get('image'):
            errs.append(('FieldValueRequired', f'spec.containers[{i}].image', 'Required value'))
    rp = spec.get('restartPolicy')
    if rp is not None and rp not in ('Always', 'OnFailure', 'Never'):
        errs.append(('FieldValueNotSupported', 'spec.restartPolicy',
                     f'Unsupported value: "{rp}": supported values: "Always", "OnFailure", "Never"'))
    return errs
