"""The API surface we serve: resource table, discovery documents, Status bodies, RBAC."""
import fnmatch

import gojson


class Res:
    def __init__(self, group, version, plural, kind, namespaced=True, custom=False, singular='',
                 subresources=(), verbs=None, field_labels=(), short_names=(), hash_=''):
        self.group, self.version, self.plural, self.kind = group, version, plural, kind
        self.namespaced, self.custom = namespaced, custom
        self.singular = singular or kind.lower()
        self.subresources = subresources
        self.verbs = verbs or ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']
        self.field_labels = set(field_labels) | {'metadata.name', 'metadata.namespace'}
        self.short_names = short_names
        self.hash = hash_

    @property
    def gv(self):
        return f'{self.group}/{self.version}' if self.group else self.version

    @property
    def qualified(self):
        """How the apiserver names the resource in messages: jaxjobs.kubeflow.org, pods."""
        return f'{self.plural}.{self.group}' if self.group else self.plural


CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']

NAMESPACES = Res('', 'v1', 'namespaces', 'Namespace', namespaced=False, subresources=('status',),
                 verbs=['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
                 field_labels=('status.phase',), short_names=('ns',), hash_='Q3oi5N2YM8M=')
PODS = Res('', 'v1', 'pods', 'Pod', subresources=('log', 'status'),
           field_labels=('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName',
                         'status.phase', 'status.podIP', 'status.nominatedNodeName'),
           short_names=('po',), hash_='xPOwRZ+Yhw8=')
EVENTS = Res('', 'v1', 'events', 'Event',
             field_labels=('involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name',
                           'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion',
                           'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'),
             short_names=('ev',), hash_='r2yiGXH7wu8=')
JAXJOBS = Res('kubeflow.org', 'v1', 'jaxjobs', 'JAXJob', custom=True, subresources=('status', 'scale'),
              verbs=CR_VERBS, hash_='KqPD8lNapuo=')
TRAINJOBS = Res('trainer.kubeflow.org', 'v1alpha1', 'trainjobs', 'TrainJob', custom=True,
                subresources=('status',), verbs=CR_VERBS, hash_='hX1cF0e2u5s=')
CTRS = Res('trainer.kubeflow.org', 'v1alpha1', 'clustertrainingruntimes', 'ClusterTrainingRuntime',
           namespaced=False, custom=True, verbs=CR_VERBS, hash_='0c3n8Qm4y1E=')
TRS = Res('trainer.kubeflow.org', 'v1alpha1', 'trainingruntimes', 'TrainingRuntime', custom=True,
          verbs=CR_VERBS, hash_='Vf2o7fB9r0A=')
# Kueue (kubernetes-sigs/kueue config/components/crd/bases; v1beta2 is the storage version):
# served only when --crds names kueue.x-k8s.io. No schema checks: the simulated Kueue
# (tests/kueue/simkueue.py) writes them through the API like the real controller.
WORKLOADS = Res('kueue.x-k8s.io', 'v1beta2', 'workloads', 'Workload', custom=True,
                subresources=('status',), verbs=CR_VERBS, short_names=('wl',))
LOCALQUEUES = Res('kueue.x-k8s.io', 'v1beta2', 'localqueues', 'LocalQueue', custom=True,
                  subresources=('status',), verbs=CR_VERBS, short_names=('lq',))
CLUSTERQUEUES = Res('kueue.x-k8s.io', 'v1beta2', 'clusterqueues', 'ClusterQueue', namespaced=False,
                    custom=True, subresources=('status',), verbs=CR_VERBS, short_names=('cq',))
SSAR = Res('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview',
           namespaced=False, verbs=['create'])

ALL = [NAMESPACES, PODS, EVENTS, JAXJOBS, TRAINJOBS, CTRS, TRS, WORKLOADS, LOCALQUEUES, CLUSTERQUEUES,
       SSAR]


def query_bool(v):
    """A boolean query parameter as the apiserver reads it (Go's strconv.ParseBool):
    the official Python client sends watch=True, kubectl sends watch=true."""
    return v in ('1', 't', 'T', 'true', 'TRUE', 'True')


def served(crds):
    """Resources served given the installed CRD groups (a set like {'kubeflow.org', 'trainer.kubeflow.org'})."""
    return [r for r in ALL if not r.custom or r.group in crds]


def find(group, version, plural, crds):
    for r in served(crds):
        if r.group == group and r.version == version and r.plural == plural:
            return r
    return None


def groups(crds):
    out = []
    for r in served(crds):
        if r.group and r.group not in [g for g, _ in out]:
            out.append((r.group, r.version))
    return out


# --- discovery ---------------------------------------------------------------------------------

def resource_list(group, version, crds):
    rs = [r for r in served(crds) if r.group == group and r.version == version]
    if not rs:
        return None
    out = []
    for r in rs:
        e = {'name': r.plural, 'singularName': r.singular, 'namespaced': r.namespaced, 'kind': r.kind,
             'verbs': r.verbs}
        if r.short_names:
            e['shortNames'] = list(r.short_names)
        if r.hash:
            e['storageVersionHash'] = r.hash
        out.append(e)
        for sub in r.subresources:
            s = {'name': f'{r.plural}/{sub}', 'singularName': '', 'namespaced': r.namespaced, 'kind': r.kind,
                 'verbs': ['get', 'patch', 'update']}
            if sub == 'scale':
                s = {'name': f'{r.plural}/scale', 'singularName': '', 'namespaced': r.namespaced,
                     'group': 'autoscaling', 'version': 'v1', 'kind': 'Scale', 'verbs': ['get', 'patch', 'update']}
            if sub == 'log':
                s = {'name': f'{r.plural}/log', 'singularName': '', 'namespaced': True, 'kind': r.kind,
                     'verbs': ['get']}
            out.append(s)
    return {'kind': 'APIResourceList', 'apiVersion': 'v1', 'groupVersion': f'{group}/{version}' if group else version,
            'resources': out}


def api_group(name, crds):
    for g, v in groups(crds):
        if g == name:
            gv = {'groupVersion': f'{g}/{v}', 'version': v}
            return {'kind': 'APIGroup', 'apiVersion': 'v1', 'name': g, 'versions': [gv], 'preferredVersion': gv}
    return None


def api_group_list(crds):
    gl = []
    for g, v in groups(crds):
        gv = {'groupVersion': f'{g}/{v}', 'version': v}
        gl.append({'name': g, 'versions': [gv], 'preferredVersion': gv})
    return {'kind': 'APIGroupList', 'apiVersion': 'v1', 'groups': gl}


VERSION = {'major': '1', 'minor': '24', 'gitVersion': 'v1.24.0+jaxjob-test', 'gitCommit': '0' * 40,
           'gitTreeState': 'clean', 'buildDate': '2022-05-06T09:44:28Z', 'goVersion': 'go1.19.8',
           'compiler': 'gc', 'platform': 'linux/amd64'}


# --- Status bodies -----------------------------------------------------------------------------

class ApiError(Exception):
    def __init__(self, code, body, headers=None):
        super().__init__(body.get('message', ''))
        self.code, self.body, self.headers = code, body, headers or {}


REASONS = {400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
           406: 'NotAcceptable', 409: 'Conflict', 410: 'Expired', 413: 'RequestEntityTooLarge',
           415: 'UnsupportedMediaType', 422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError',
           503: 'ServiceUnavailable', 504: 'Timeout'}


def status(code, message, reason=None, details=None, success=False):
    s = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Success' if success else 'Failure'}
    if message is not None:
        s['message'] = message
    r = reason if reason is not None else REASONS.get(code)
    if r:
        s['reason'] = r
    if details is not None:
        s['details'] = details
    if not success:
        s['code'] = code
    return gojson.builtin_order(s)


def err(code, message, reason=None, details=None, headers=None):
    return ApiError(code, status(code, message, reason, details), headers)


def _details(res, name=None, kind=None):
    d = {}
    if name:
        d['name'] = name
    if res.group:
        d['group'] = res.group
    d['kind'] = kind or res.plural
    return d


def not_found(res, name):
    return err(404, f'{res.qualified} "{name}" not found', details=_details(res, name))


def ns_not_found(ns):
    return err(404, f'namespaces "{ns}" not found', details={'name': ns, 'kind': 'namespaces'})


def already_exists(res, name):
    return err(409, f'{res.qualified} "{name}" already exists', reason='AlreadyExists', details=_details(res, name))


def conflict(res, name):
    return err(409, f'Operation cannot be fulfilled on {res.qualified} "{name}": the object has been modified; '
                    'please apply your changes to the latest version and try again', details=_details(res, name))


def invalid(res, name, errs):
    """422 Invalid from (reason, field, detail) tuples, worded like the apiserver."""
    parts = [f'{f}: {d}' for _, f, d in errs]
    msg = parts[0] if len(parts) == 1 else '[' + ', '.join(parts) + ']'
    qual = f'{res.kind}.{res.group}' if res.group else res.kind
    d = {}
    if name:
        d['name'] = name
    if res.group:
        d['group'] = res.group
    d['kind'] = res.kind
    d['causes'] = [{'reason': r, 'message': m, 'field': f} for r, f, m in errs]
    return err(422, f'{qual} "{name}" is invalid: {msg}', details=d)


def forbidden(user, verb, res, sub, ns, name):
    what = f'{res.plural}/{sub}' if sub else res.plural
    scope = f'in the namespace "{ns}"' if ns else 'at the cluster scope'
    subj = f'{res.qualified} "{name}"' if name else res.qualified
    msg = f'{subj} is forbidden: User "{user}" cannot {verb} resource "{what}" in API group "{res.group}" {scope}'
    return err(403, msg, details=_details(res, name))


def forbidden_path(user, verb, path):
    return err(403, f'forbidden: User "{user}" cannot {verb} path "{path}"', details={})


# --- users and RBAC ----------------------------------------------------------------------------

class User:
    """An identity with simple RBAC: rules are "verb resource" patterns (fnmatch), e.g. "* *",
    "get jaxjobs", "create pods/log", "* jaxjobs.kubeflow.org"; deny rules win over allow rules
    (RBAC has no deny; it is a shorthand for tests: "everything but watch")."""

    def __init__(self, name, groups=(), allow=(), deny=(), namespaces=None):
        self.name, self.groups = name, list(groups)
        self.allow, self.deny = list(allow), list(deny)
        self.namespaces = namespaces      # None = every namespace

    def can(self, verb, group, resource, sub, ns):
        if 'system:masters' in self.groups:
            return True
        if self.namespaces is not None and ns and ns not in self.namespaces:
            return False
        what = f'{resource}/{sub}' if sub else resource
        names = [what, f'{what}.{group}' if group else what]

        def hit(rules):
            for r in rules:
                parts = r.split(None, 1)
                if len(parts) != 2:
                    continue
                v, res = parts
                if fnmatch.fnmatchcase(verb, v) and any(fnmatch.fnmatchcase(n, res) for n in names):
                    return True
            return False
        return hit(self.allow) and not hit(self.deny)

    def to_json(self):
        return {'name': self.name, 'groups': self.groups, 'allow': self.allow, 'deny': self.deny,
                'namespaces': self.namespaces}
