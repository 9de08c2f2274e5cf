#!/usr/bin/env python3
"""tests/render/crd_check.py CRD.yaml MANIFESTS.yaml

Validate every document of a YAML stream against the served version's
openAPIV3Schema of a CustomResourceDefinition, like the API server does:
the JSON schema itself (types, enums, required, int-or-string), plus the
structural pruning check - a field the schema does not declare would be
dropped silently by the API server, so it is reported as an error here.
Prints one line per document; exit 1 on the first invalid one.
"""
import sys

import jsonschema
import yaml


def schema_of(crd, api_version):
    group, version = api_version.split("/")
    assert crd["spec"]["group"] == group, (crd["spec"]["group"], group)
    for v in crd["spec"]["versions"]:
        if v["name"] == version and v.get("served", True):
            return v["schema"]["openAPIV3Schema"]
    raise SystemExit("version %s not served by the CRD" % api_version)


def to_jsonschema(s):
    """x-kubernetes-int-or-string becomes anyOf integer|string."""
    if isinstance(s, dict):
        out = {k: to_jsonschema(v) for k, v in s.items() if not k.startswith("x-kubernetes")}
        if s.get("x-kubernetes-int-or-string"):
            out.pop("type", None)
            out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        return out
    if isinstance(s, list):
        return [to_jsonschema(x) for x in s]
    return s


def pruned(doc, s, path, out):
    """Fields the API server would prune (not declared, not preserved)."""
    if s.get("x-kubernetes-preserve-unknown-fields") or path in ("metadata",):
        return
    if isinstance(doc, dict):
        props = s.get("properties")
        extra = s.get("additionalProperties")
        for k, v in doc.items():
            p = "%s.%s" % (path, k) if path else k
            if props is not None and k in props:
                pruned(v, props[k], p, out)
            elif isinstance(extra, dict):
                pruned(v, extra, p, out)
            elif props is not None and k not in ("apiVersion", "kind", "metadata"):
                out.append(p)
    elif isinstance(doc, list) and isinstance(s.get("items"), dict):
        for i, v in enumerate(doc):
            pruned(v, s["items"], "%s[%d]" % (path, i), out)


def main():
    crd = yaml.safe_load(open(sys.argv[1]))
    n = 0
    for doc in yaml.safe_load_all(open(sys.argv[2])):
        if doc is None:
            continue
        n += 1
        s = schema_of(crd, doc["apiVersion"])
        name = doc.get("metadata", {}).get("name", "?")
        try:
            jsonschema.validate(doc, to_jsonschema(s))
        except jsonschema.ValidationError as ex:
            print("invalid %s: %s at %s" % (name, ex.message, "/".join(map(str, ex.absolute_path))))
            return 1
        extra = []
        pruned(doc, s, "", extra)
        if extra:
            print("invalid %s: fields the API server would prune: %s" % (name, ", ".join(extra)))
            return 1
        print("valid %s" % name)
    if n == 0:
        print("no documents")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
