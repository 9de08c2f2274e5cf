#!/usr/bin/python3
"""argo_validate.py [--plain | --strict] FILE...

Validates the Argo Workflows objects in YAML files (Workflow, WorkflowTemplate,
ClusterWorkflowTemplate, CronWorkflow, WorkflowEventBinding; other documents are
skipped) against argoproj/argo-workflows api/jsonschema/schema.json (draft
2020-12; the file $ARGO_SCHEMA names: `make test-deps` copies it out of the Go module
github.com/argoproj/argo-workflows/v4 at ARGO_WORKFLOWS_VERSION of stack/versions.env),
in two modes:

  plain   the schema as shipped: types, enums, required fields.
          Unknown keys pass (the schema does not forbid them).
  strict  every definition that lists properties also gets
          additionalProperties: false, so a misspelt key (retryStrategy.limt,
          valueFrom.pth) fails, as `argo lint` (strict by default) rejects it.

Both modes run unless --plain or --strict is given.
Output: "ok   [mode] FILE#N Kind name" or up to 10 "FAIL [mode] FILE#N Kind: /json/path: message"
lines per document; last line "N passed, N failed" (one count per document and mode).
Exit status: 0 all passed, 1 a document failed, 2 usage error or unreadable file.
Needs python3-jsonschema (>= 4.0, for draft 2020-12) and python3-yaml.
"""
import copy
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:
    sys.exit("argo_validate.py: %s (apt-get install python3-jsonschema python3-yaml)" % e)

KINDS = {'WorkflowTemplate', 'Workflow', 'ClusterWorkflowTemplate', 'CronWorkflow', 'WorkflowEventBinding'}


def schemas(modes):
    path = os.environ.get('ARGO_SCHEMA')
    if not path:
        sys.exit('argo_validate.py: set ARGO_SCHEMA to Argo Workflows\' schema.json (make test-deps fetches it)')
    with open(path) as f:
        base = json.load(f)
    out = []
    if 'plain' in modes:
        out.append(('plain', base))
    if 'strict' in modes:
        strict = copy.deepcopy(base)
        for d in strict['definitions'].values():
            if isinstance(d, dict) and 'properties' in d and 'additionalProperties' not in d:
                d['additionalProperties'] = False
        out.append(('strict', strict))
    return out


def main(argv):
    modes = ['plain', 'strict']
    files = []
    for a in argv:
        if a == '--plain':
            modes = ['plain']
        elif a == '--strict':
            modes = ['strict']
        elif a.startswith('-'):
            sys.stderr.write(__doc__)
            return 2
        else:
            files.append(a)
    if not files:
        sys.stderr.write(__doc__)
        return 2
    validator = jsonschema.Draft202012Validator
    checks = schemas(modes)
    good = bad = 0
    for f in files:
        try:
            with open(f) as fh:
                docs = list(yaml.safe_load_all(fh))
        except (OSError, yaml.YAMLError) as e:
            print('argo_validate.py: %s: %s' % (f, e), file=sys.stderr)
            return 2
        for i, doc in enumerate(docs):
            if not isinstance(doc, dict) or doc.get('kind') not in KINDS:
                continue
            name = (doc.get('metadata') or {}).get('name') or (doc.get('metadata') or {}).get('generateName')
            for label, sch in checks:
                s = dict(sch)
                s.pop('oneOf', None)
                s['$ref'] = '#/definitions/io.argoproj.workflow.v1alpha1.' + doc['kind']
                errs = sorted(validator(s).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
                if errs:
                    bad += 1
                    for e in errs[:10]:
                        print('FAIL [%s] %s#%d %s: /%s: %s' % (label, f, i, doc['kind'],
                              '/'.join(map(str, e.absolute_path)), e.message[:300]))
                else:
                    good += 1
                    print('ok   [%s] %s#%d %s %s' % (label, f, i, doc['kind'], name))
    print('%d passed, %d failed' % (good, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
