#!/usr/bin/env python3
"""fuzz/seeds.py OUTDIR [--shared DIR] - write seed inputs for every fuzz target.

Seeds come from the repository's own files (templates, examples, health-check
test data) and from literals below, in the input layout each target documents
in its header comment. With --shared, the reference material in ../shared is
turned into seeds too (recorded API server answers -> Status bodies and watch
streams, status samples -> health, CRDs -> YAML); those are generated at run
time into the build tree and never committed (fuzz/run.sh does that).

fuzz/corpus/ holds the output without --shared (regenerate: fuzz/seeds.py fuzz/corpus).
"""
import argparse
import glob
import hashlib
import json
import os
import struct
import sys

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def put(out, target, data, cap=16384):
    if isinstance(data, str):
        data = data.encode()
    data = data[:cap]
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), 'wb') as f:
        f.write(data)


def job(name, rv, conds=None, uid=None):
    o = {'apiVersion': 'kubeflow.org/v1', 'kind': 'JAXJob',
         'metadata': {'name': name, 'namespace': 'team-a', 'resourceVersion': str(rv),
                      'uid': uid or f'uid-{name}'},
         'spec': {'jaxReplicaSpecs': {'Worker': {'replicas': 2}}}}
    if conds:
        o['status'] = {'conditions': [{'type': c, 'status': 'True', 'reason': 'JAXJob' + c} for c in conds]}
    return o


def watch_seed(events, list_items=None, sizes=(7, 50, 1), max_shift=3):
    flags = (max_shift << 1) | (1 if list_items is not None else 0)
    head = bytes([flags, len(sizes)]) + bytes(s - 1 for s in sizes)
    stream = ''.join(json.dumps(e, separators=(',', ':')) + '\n' for e in events).encode()
    if list_items is None:
        return head + stream
    body = json.dumps({'kind': 'JAXJobList', 'apiVersion': 'kubeflow.org/v1',
                       'metadata': {'resourceVersion': '5'}, 'items': list_items}).encode()
    return head + body + b'\0' + stream


def api_error_seed(status, body, ctype=0, path=0, attempt=1):
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    return struct.pack('>H', status) + bytes([ctype | (path << 2), attempt]) + body.encode()


def status_body(code, reason, message, causes=None):
    d = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
         'message': message, 'reason': reason, 'code': code}
    if causes:
        d['details'] = {'name': 'j', 'group': 'kubeflow.org', 'kind': 'JAXJob', 'causes': causes}
    return d


def own(out):
    for p in sorted(glob.glob(os.path.join(TOP, 'templates', '*.yaml')) +
                    glob.glob(os.path.join(TOP, 'examples', '**', '*.yaml'), recursive=True)):
        text = open(p, 'rb').read()
        put(out, 'yj', text)
        put(out, 'tmpl', b'\0' + text)
    for p in sorted(glob.glob(os.path.join(TOP, 'health-checks', '*', '*', 'testdata', '*.yaml'))):
        try:
            obj = yaml.safe_load(open(p))
        except yaml.YAMLError:
            continue
        put(out, 'health', b'\0' + json.dumps(obj).encode())
        put(out, 'yj', open(p, 'rb').read())
        if isinstance(obj, dict) and isinstance(obj.get('status'), dict):
            put(out, 'health', b'\1' + json.dumps(obj['status']).encode())
    # tmpl: byte 0 even = built-in template with these values (YAML mapping);
    #       odd = template text, NUL, values
    put(out, 'tmpl', b'\0image: x/jax:1\nworkers: 4\ncommand: [python, train.py]\n'
        b'env: [{name: A, value: "x\\nkind: Secret"}]\nlabels: {team: a}\n')
    # byte 0 with bit 2: the built-in TrainJob template (runtime patch, tidy)
    put(out, 'tmpl', b'\4name: mnist\nworkers: 4\nruntime: jax-distributed\nimage: x/jax:1\n'
        b'volumes: [{name: shm, emptyDir: {}}]\nvolume-mounts: [{name: shm, mountPath: /dev/shm}]\n'
        b'node-selector: {pool: gpu}\nsuspend: true\n')
    put(out, 'tmpl', b'\1a: ((x))\nb: "pre-((y))-post"\nc: [((z?)), 2]\nd: {e: ((w?))}\n\0'
        b'x: [1, 2]\ny: s\nw: null\n')
    put(out, 'tmpl', b'\1spec:\n  replicas: ((n))\n  name: "((name))"\n\0n: 3\nname: "((n))"\n')
    # kubeconfig: byte 0 even = kubeconfig YAML, odd = ExecCredential JSON
    kc = ('apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n'
          '    server: https://127.0.0.1:6443\n    insecure-skip-tls-verify: false\n'
          'users:\n- name: admin\n  user:\n    token: s3cr3t-t0ken-abcdef\n'
          '- name: ex\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n'
          '      command: my-plugin\n      args: [get-token]\n      env: [{name: A, value: b}]\n'
          'contexts:\n- name: test\n  context: {cluster: test, user: admin, namespace: team-a}\n'
          '- name: other\n  context: {cluster: test, user: ex}\ncurrent-context: test\n')
    put(out, 'kubeconfig', b'\0' + kc.encode())
    put(out, 'kubeconfig', b'\2' + kc.encode())
    put(out, 'kubeconfig', b'\x0c' + kc.replace('token: s3cr3t-t0ken-abcdef', 'tokenFile: tok')
        .encode())
    put(out, 'kubeconfig', b'\0' + kc.replace('current-context: test', 'current-context: nope').encode())
    for v in ('v1', 'v1beta1'):
        ec = {'apiVersion': f'client.authentication.k8s.io/{v}', 'kind': 'ExecCredential',
              'status': {'token': 'exec-t0ken-123456789', 'expirationTimestamp': '2030-01-02T03:04:05Z'}}
        put(out, 'kubeconfig', (b'\1' if v == 'v1' else b'\3') + json.dumps(ec).encode())
    put(out, 'kubeconfig', b'\1{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
        b'"status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n",'
        b'"clientKeyData":"-----BEGIN PRIVATE KEY-----\\nMIGH\\n-----END PRIVATE KEY-----\\n"}}')
    # api_error
    put(out, 'api_error', api_error_seed(422, status_body(422, 'Invalid', 'JAXJob.kubeflow.org "j" is invalid: '
                                                          'spec.x: Required value',
                                                          [{'reason': 'FieldValueRequired', 'message': 'Required value',
                                                            'field': 'spec.x'}])))
    put(out, 'api_error', api_error_seed(403, status_body(403, 'Forbidden', 'jaxjobs.kubeflow.org is forbidden: '
                                                          'User "u" cannot create resource')))
    put(out, 'api_error', api_error_seed(409, status_body(409, 'AlreadyExists', 'jaxjobs "j" already exists')))
    put(out, 'api_error', api_error_seed(404, '404 page not found\n', ctype=1, path=0))
    put(out, 'api_error', api_error_seed(429, '3\n' + json.dumps(status_body(429, 'TooManyRequests', 'slow down'))))
    put(out, 'api_error', api_error_seed(503, 'Sun, 06 Nov 1994 08:49:37 GMT\n<html>bad gateway</html>', ctype=1))
    put(out, 'api_error', api_error_seed(502, '', ctype=2, path=2))
    # watch decoder
    ev = [{'type': 'ADDED', 'object': job('j', 2)},
          {'type': 'MODIFIED', 'object': job('j', 3, ['Created'])},
          {'type': 'BOOKMARK', 'object': {'kind': 'JAXJob', 'metadata': {'resourceVersion': '4'}}},
          {'type': 'MODIFIED', 'object': job('j', 5, ['Created', 'Running'])},
          {'type': 'DELETED', 'object': job('j', 6, ['Succeeded'])}]
    put(out, 'watch_decoder', watch_seed(ev))
    put(out, 'watch_decoder', watch_seed(ev, list_items=[job('j', 1), job('k', 1)]))
    gone = [{'type': 'ADDED', 'object': job('j', 2)},
            {'type': 'ERROR', 'object': status_body(410, 'Expired', 'too old resource version: 1 (5)')},
            {'type': 'MODIFIED', 'object': job('j', 7, ['Running'])}]
    put(out, 'watch_decoder', watch_seed(gone, list_items=[job('j', 3, ['Created'])], sizes=(3,)))
    put(out, 'watch_decoder', watch_seed(ev, sizes=(1,), max_shift=0))
    put(out, 'watch_decoder', bytes([2, 2, 0, 9]) + b'line one\r\nline two is long enough to be cut\nlast')
    # argocd params: byte 0 picks the ARGOCD_ENV_* variable; then the
    # first line is its value, the rest ARGOCD_APP_PARAMETERS
    params = [
        [{'name': 'workers', 'string': '8'}],
        [{'name': 'mnist.image', 'string': 'x/jax:2'}, {'name': 'gpt.env', 'array': ['A=1', '{"name":"B","value":"2"}']}],
        [{'name': 'labels', 'map': {'team': 'b'}}, {'name': 'mnist.node-selector', 'map': {'k': 'v'}}],
        [{'name': 'mnist.command', 'array': ['python', 'x.py']}],
        [{'name': 'nope', 'string': '1'}],
    ]
    for i, p in enumerate(params):
        put(out, 'argocd_params', bytes([i]) + b'2\n' + json.dumps(p).encode())
    put(out, 'argocd_params', b'\0"x\\nkind: Secret"\n[{"name":"mnist.image","string":"a\\nkind: Secret"}]')


def shared(out, d):
    ref = os.path.join(d, 'reference')
    for p in sorted(glob.glob(os.path.join(ref, 'apiserver', '*.yaml'))):
        try:
            doc = yaml.safe_load(open(p))
        except yaml.YAMLError:
            continue
        for ex in doc.get('exchanges') or []:
            rs = ex.get('response') or {}
            rq = ex.get('request') or {}
            body = rs.get('body')
            st = int(rs.get('status') or 0)
            if st >= 400 and body is not None:
                put(out, 'api_error', api_error_seed(st, body if isinstance(body, str) else json.dumps(body),
                                                     ctype=0 if not isinstance(body, str) else 1))
            if isinstance(body, list) and 'watch' in str(rq.get('path', '')):
                put(out, 'watch_decoder', watch_seed([e for e in body if isinstance(e, dict)]))
            if isinstance(body, dict) and body.get('kind') == 'JAXJob':
                put(out, 'health', b'\0' + json.dumps(body).encode())
    for p in sorted(glob.glob(os.path.join(ref, 'status-samples', '*.yaml'))):
        text = open(p, 'rb').read()
        put(out, 'yj', text)
        try:
            for obj in yaml.safe_load_all(text):
                put(out, 'health', b'\0' + json.dumps(obj, default=str).encode())
        except yaml.YAMLError:
            pass
    for p in sorted(glob.glob(os.path.join(ref, 'crds', '*.yaml')) +
                    glob.glob(os.path.join(ref, 'upstream-examples', '**', '*.yaml'), recursive=True)):
        put(out, 'yj', open(p, 'rb').read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--shared')
    a = ap.parse_args()
    if a.shared:
        shared(a.out, a.shared)
    else:
        own(a.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
