#!/usr/bin/env python3
"""tests/tools/crd_validate.py - validate JAXJob manifests against a CRD's schema.

    crd_validate.py CRD.yaml FILE...

Each FILE is a YAML stream; every document must be of the CRD's kind and
valid against the openAPIV3Schema of its served version (apiVersion picks
the version). Prints one line per document ("ok FILE#N" or "FAIL FILE#N:
path: message") and exits 1 if any document fails.

The API server does more than plain JSON Schema, so the schema is adapted
the way it would behave for `kubectl apply` (strict field validation):
  - objects with `properties` and no `additionalProperties` /
    `x-kubernetes-preserve-unknown-fields` reject unknown fields (the server
    reports them with fieldValidation=Strict instead of silently pruning);
  - `format: int32` / `int64` become minimum/maximum bounds;
  - `x-kubernetes-int-or-string` means integer or string (the CRD already
    spells it out as anyOf); CEL rules (`x-kubernetes-validations`) are not
    evaluated (they only compare old and new objects here).
"""
import sys

import jsonschema
import yaml

INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def adapt(schema):
    """Return a copy of a structural schema with the server's behaviour added."""
    if isinstance(schema, list):
        return [adapt(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: adapt(v) for k, v in schema.items()}
    if (out.get("type") == "object" and "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    fmt = out.get("format")
    if out.get("type") == "integer" and fmt in INT_RANGE:
        out["minimum"], out["maximum"] = INT_RANGE[fmt]
    return out


def load_crd(path):
    with open(path, encoding="utf-8") as f:
        crd = next(d for d in yaml.safe_load_all(f) if d)
    group = crd["spec"]["group"]
    kind = crd["spec"]["names"]["kind"]
    versions = {}
    for v in crd["spec"]["versions"]:
        schema = adapt(v["schema"]["openAPIV3Schema"])
        versions[group + "/" + v["name"]] = jsonschema.Draft7Validator(schema)
    return kind, versions


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    kind, versions = load_crd(argv[1])
    failed = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        if not docs:
            print("FAIL %s: no document" % path)
            failed += 1
        for i, doc in enumerate(docs):
            where = "%s#%d" % (path, i)
            problems = []
            if not isinstance(doc, dict) or doc.get("kind") != kind:
                problems.append("kind is not %s" % kind)
            elif doc.get("apiVersion") not in versions:
                problems.append("apiVersion %r is not served" % doc.get("apiVersion"))
            else:
                for err in sorted(versions[doc["apiVersion"]].iter_errors(doc), key=str):
                    path_s = ".".join(str(p) for p in err.absolute_path) or "(top)"
                    problems.append("%s: %s" % (path_s, err.message))
            if problems:
                failed += 1
                print("FAIL %s: %s" % (where, "; ".join(problems[:3])))
            else:
                print("ok %s" % where)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
