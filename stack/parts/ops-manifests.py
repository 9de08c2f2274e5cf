#!/usr/bin/python3
"""stack/parts/ops-manifests.py: turn the manifests a controller's module ships (kubebuilder
output, meant for an in-cluster install with a Service in front of the webhook server) into
what a host-process stack on loopback applies. Prints a JSON `List` for `kubectl apply -f -`.

  webhooks FILE --prefix P --url https://127.0.0.1:PORT --ca CA.crt [--keep NAME,...] [--patch FILE]
      the {Mutating,Validating}WebhookConfigurations of FILE (multi-document YAML), renamed
      P<name> (kustomize's namePrefix), each entry's clientConfig.service replaced by
      url=URL+path (no service network here) and caBundle=CA; only entries named in --keep
      (all when absent); --patch KIND=FILE: a JSON-patch list (add, replace) applied to
      the configuration of KIND first, as the upstream kustomization does.
  conversion CRD.yaml... --url URL --ca CA.crt
      the CRDs with spec.conversion = Webhook at URL/convert (conversionReviewVersions v1),
      as Kueue's config/components/crd/patches/webhook_in_*.yaml make them, by url.
  plain FILE...
      the documents of FILE as they are (CRDs, runtimes).
"""
import argparse
import base64
import json
import sys

import yaml


LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)   # libyaml: CRDs are large


def docs(path):
    with open(path) as fh:
        return [d for d in yaml.load_all(fh, Loader=LOADER) if d]


def ca_b64(path):
    with open(path, 'rb') as fh:
        return base64.b64encode(fh.read()).decode()


def json_patch(obj, ops):
    for op in ops:
        if op.get('op') not in ('replace', 'add'):
            sys.exit(f'ops-manifests: patch op {op.get("op")!r} is not supported (add, replace)')
        parts = [p for p in op['path'].split('/') if p]
        tgt = obj
        for p in parts[:-1]:
            tgt = tgt[int(p)] if isinstance(tgt, list) else tgt[p]
        last = parts[-1]
        if not isinstance(tgt, list):
            tgt[last] = op['value']
        elif last == '-':
            tgt.append(op['value'])
        elif op['op'] == 'add':
            tgt.insert(int(last), op['value'])
        else:
            tgt[int(last)] = op['value']


def webhooks(a):
    keep = set(filter(None, (a.keep or '').split(',')))
    patches = {}
    for p in a.patch or []:
        kind, path = p.split('=', 1)
        patches[kind] = docs(path)[0]
    ca = ca_b64(a.ca)
    out = []
    for d in docs(a.file):
        if d.get('kind') not in ('MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'):
            continue
        if d['kind'] in patches:
            json_patch(d, patches[d['kind']])
        d['metadata'] = {'name': a.prefix + d['metadata']['name']}
        hooks = []
        for h in d.get('webhooks') or []:
            if keep and h['name'] not in keep:
                continue
            svc = (h.get('clientConfig') or {}).get('service') or {}
            h['clientConfig'] = {'url': a.url + svc.get('path', '/'), 'caBundle': ca}
            hooks.append(h)
        d['webhooks'] = hooks
        out.append(d)
    return out


def conversion(a):
    ca = ca_b64(a.ca)
    out = []
    for f in a.files:
        for d in docs(f):
            d['spec']['conversion'] = {'strategy': 'Webhook', 'webhook': {
                'clientConfig': {'url': a.url + '/convert', 'caBundle': ca},
                'conversionReviewVersions': ['v1']}}
            out.append(d)
    return out


def plain(a):
    return [d for f in a.files for d in docs(f)]


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    w = sub.add_parser('webhooks')
    w.add_argument('file')
    w.add_argument('--prefix', default='')
    w.add_argument('--url', required=True)
    w.add_argument('--ca', required=True)
    w.add_argument('--keep')
    w.add_argument('--patch', action='append', help='KIND=FILE')
    c = sub.add_parser('conversion')
    c.add_argument('files', nargs='+')
    c.add_argument('--url', required=True)
    c.add_argument('--ca', required=True)
    p = sub.add_parser('plain')
    p.add_argument('files', nargs='+')
    a = ap.parse_args()
    items = {'webhooks': webhooks, 'conversion': conversion, 'plain': plain}[a.cmd](a)
    json.dump({'apiVersion': 'v1', 'kind': 'List', 'items': items}, sys.stdout)


if __name__ == '__main__':
    main()
