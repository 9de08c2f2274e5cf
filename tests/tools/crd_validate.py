#!/usr/bin/env python3
"""tests/tools/crd_validate.py - validate manifests (JAXJob, TrainJob) against a CRD's schema.

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
    spells it out as anyOf);
  - CEL rules (`x-kubernetes-validations`) of the shapes these CRDs use are
    evaluated (cel_errors below): `self.a.b.matches('RE')`, `size(self.a)
    <= N`, `self in ['x', 'y']`, `self == ''`, `has(self.a)`, joined by
    `||`; transition rules (`oldSelf`) do not apply to a create. Any other
    rule is reported as unsupported rather than passed silently.
"""
import re
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


def cel_path(expr, value):
    """`self.a.b` -> (True, value.a.b) or (False, None) when a key is missing."""
    if expr != "self" and not expr.startswith("self."):
        raise ValueError(expr)
    for key in expr.split(".")[1:]:
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


def cel_term(term, value):
    """Evaluate one term of the supported CEL subset on `value` (self)."""
    m = re.fullmatch(r"(self(?:\.\w+)*)\.matches\('([^']*)'\)", term)
    if m:
        found, v = cel_path(m.group(1), value)
        return found and isinstance(v, str) and re.search(m.group(2), v) is not None
    m = re.fullmatch(r"size\((self(?:\.\w+)*)\) <= (\d+)", term)
    if m:
        found, v = cel_path(m.group(1), value)
        return found and len(v) <= int(m.group(2))
    m = re.fullmatch(r"self in \[(.*)\]", term)
    if m:
        return value in re.findall(r"'([^']*)'", m.group(1))
    m = re.fullmatch(r"self == '([^']*)'", term)
    if m:
        return value == m.group(1)
    m = re.fullmatch(r"has\((self(?:\.\w+)*)\.(\w+)\)", term)
    if m:
        found, v = cel_path(m.group(1), value)
        return found and isinstance(v, dict) and m.group(2) in v
    raise ValueError(term)


def cel_errors(schema, value, path="(top)"):
    """Yield (path, message) for every CEL rule `value` breaks, walking the schema."""
    if not isinstance(schema, dict):
        return
    for rule in schema.get("x-kubernetes-validations", []):
        expr = rule["rule"]
        if "oldSelf" in expr:
            continue
        try:
            ok = any(cel_term(t.strip(), value) for t in expr.split("||"))
        except ValueError:
            yield path, "unsupported CEL rule %r (teach crd_validate.py)" % expr
            continue
        if not ok:
            yield path, rule.get("message", expr)
    if isinstance(value, dict):
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                yield from cel_errors(sub, value[key], key if path == "(top)" else path + "." + key)
    elif isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            yield from cel_errors(schema["items"], item, "%s.%d" % (path, i))


class Validator:
    """jsonschema for the structural schema, plus the CEL rules it carries."""

    def __init__(self, schema):
        self.schema = schema
        self.json = jsonschema.Draft7Validator(adapt(schema))

    def iter_errors(self, doc):
        yield from self.json.iter_errors(doc)
        for where, message in cel_errors(self.schema, doc):
            yield jsonschema.ValidationError(message, path=[] if where == "(top)" else where.split("."))


def load_crd(path):
    with open(path, encoding="utf-8") as f:
        crd = next(d for d in yaml.safe_load_all(f) if d)
    group = crd["spec"]["group"]
    kind = crd["spec"]["names"]["kind"]
    versions = {}
    for v in crd["spec"]["versions"]:
        versions[group + "/" + v["name"]] = Validator(v["schema"]["openAPIV3Schema"])
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
