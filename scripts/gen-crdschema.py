#!/usr/bin/python3
"""scripts/gen-crdschema.py CRD.yaml... > lib/job/crdschema_data.c

Compiles the structural schemas of the CRDs jaxjob emits into C (lib/job/crdschema.h,
crdschema_validate()): the openAPIV3Schema of each served version, with what
validation does not need removed (description, default, readOnly, example) and
the CEL rules (x-kubernetes-validations) translated into the few forms
lib/job/crdschema.c evaluates:

  {"match": RE}                 self.matches(RE)
  {"match": RE, "orEmpty": 1}   self == '' || self.matches(RE)
  {"in": [...]}                 self in [...]
  {"maxLen": N, "of": "metadata.name"}, {"match": RE, "of": "metadata.name"}
                                size(self.metadata.name) <= N, self.metadata.name.matches(RE)

Transition rules (they read oldSelf: immutability) cannot fail on create and are
dropped, as are rules on `status` (the client never writes it). A rule in any
other form stops the generator: a CRD update must not silently lose a check.

The output is C tables (lib/job/crdschema_data.h), not the schema's JSON: validation
then parses nothing per job (issue 26). Identical subschemas are written once.
The output is committed (a clone builds without the CRDs); 73-crd-corpus.sh checks it
is what this script gives from the upstream CRDs that `make test-deps` copies out of
their Go modules ($JAXJOB_TESTDATA/crds).
"""
import json
import re
import sys

import yaml

KEEP = {"default", "type", "properties", "required", "items", "additionalProperties", "enum", "pattern",
        "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
        "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "nullable",
        "anyOf", "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
        "x-kubernetes-embedded-resource", "x-kubernetes-validations"}
DROP = {"description", "readOnly", "example"}

STR = r"'((?:[^'\\]|\\.)*)'"


def cel_string(s):
    return s.encode().decode("unicode_escape")


def translate(rule, path):
    r = rule["rule"].strip()
    msg = rule.get("message", "")
    if "oldSelf" in r:
        return None
    m = re.fullmatch(r"self\.matches\(" + STR + r"\)", r)
    if m:
        return {"match": cel_string(m.group(1)), "message": msg}
    m = re.fullmatch(r"self == '' \|\| self\.matches\(" + STR + r"\)", r)
    if m:
        return {"match": cel_string(m.group(1)), "orEmpty": 1, "message": msg}
    m = re.fullmatch(r"self in \[(.*)\]", r)
    if m:
        return {"in": [cel_string(x) for x in re.findall(STR, m.group(1))], "message": msg}
    m = re.fullmatch(r"size\(self\.metadata\.name\) <= (\d+)", r)
    if m:
        return {"maxLen": int(m.group(1)), "of": "metadata.name", "message": msg}
    m = re.fullmatch(r"self\.metadata\.name\.matches\(" + STR + r"\)", r)
    if m:
        return {"match": cel_string(m.group(1)), "of": "metadata.name", "message": msg}
    sys.exit(f"gen-crdschema: {path}: CEL rule not understood, teach lib/job/crdschema.c: {r}")


def strip(node, path):
    if isinstance(node, list):
        return [strip(x, path) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in DROP or (k == "default" and isinstance(v, (dict, list))):
            continue        # scalar defaults stay: list-map keys use them
        if k not in KEEP:
            sys.exit(f"gen-crdschema: {path}: schema keyword {k} not known to lib/job/crdschema.c")
        if k == "properties":
            out[k] = {name: strip(s, f"{path}.{name}") for name, s in v.items()}
        elif k == "x-kubernetes-validations":
            rules = [t for t in (translate(x, path) for x in v) if t]
            if rules:
                out[k] = rules
        else:
            out[k] = strip(v, path)
    return out


TYPES = {None: "CRD_ANY", "object": "CRD_OBJECT", "array": "CRD_ARRAY", "string": "CRD_STRING",
         "boolean": "CRD_BOOLEAN", "integer": "CRD_INTEGER", "number": "CRD_NUMBER"}
FORMATS = {"int32": "CRD_FMT_INT32", "int64": "CRD_FMT_INT64"}
# keywords lib/job/crdschema.c does not read: kept by strip() (known), not carried
UNREAD = {"anyOf", "x-kubernetes-map-type", "x-kubernetes-embedded-resource"}


def c_str(s):
    """A C string literal for s (printable ASCII, as the schemas are)."""
    assert s.isascii() and s.isprintable(), f"non-printable schema text: {s!r}"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_num(x):
    return repr(float(x)) if isinstance(x, float) else str(int(x))


class Tables:
    """C tables, each identical piece written once, children before parents."""

    def __init__(self):
        self.lines, self.memo, self.patterns = [], {}, []

    def name(self, prefix, key, text):
        if key not in self.memo:
            self.memo[key] = f"{prefix}{len(self.memo)}"
            self.lines.append(text.replace("{name}", self.memo[key]))
        return self.memo[key]

    def pattern(self, re_text):
        if re_text not in self.patterns:
            self.patterns.append(re_text)
        return self.patterns.index(re_text)

    def strings(self, items, path):
        if not all(isinstance(x, str) for x in items):
            sys.exit(f"gen-crdschema: {path}: a non-string enum or key list; teach lib/job/crdschema.c")
        body = ", ".join(c_str(x) for x in items)
        return self.name("l", ("strings", tuple(items)),
                         "static const char *const {name}[] = { " + body + " };"), len(items)

    def rules(self, rules, path):
        out = []
        for r in rules:
            f = [f".match = {self.pattern(r['match']) if 'match' in r else -1}",
                 f".or_empty = {int(bool(r.get('orEmpty')))}",
                 f".max_len = {r['maxLen'] if 'maxLen' in r else 'CRD_NO_LIMIT'}"]
            if "in" in r:
                name, n = self.strings(r["in"], path)
                f += [f".in = {name}", f".n_in = {n}"]
            if "of" in r:
                f.append(f".of = {c_str(r['of'])}")
            f.append(f".message = {c_str(r.get('message') or 'a CRD validation rule fails')}")
            out.append("\t{ " + ", ".join(f) + " },")
        text = "\n".join(out)
        return self.name("r", ("rules", text), "static const struct crdschema_rule {name}[] = {\n" + text + "\n};"), len(rules)

    def bounds(self, n):
        lim = lambda k: str(n[k]) if k in n else "CRD_NO_LIMIT"
        f = [f".min_length = {lim('minLength')}", f".max_length = {lim('maxLength')}",
             f".min_items = {lim('minItems')}", f".max_items = {lim('maxItems')}",
             f".min_props = {lim('minProperties')}", f".max_props = {lim('maxProperties')}"]
        if "minimum" in n:
            f += [".has_minimum = 1", f".minimum = {c_num(n['minimum'])}",
                  f".exclusive_minimum = {int(n.get('exclusiveMinimum') is True)}"]
        if "maximum" in n:
            f += [".has_maximum = 1", f".maximum = {c_num(n['maximum'])}",
                  f".exclusive_maximum = {int(n.get('exclusiveMaximum') is True)}"]
        text = "{ " + ", ".join(f) + " }"
        return self.name("b", ("bounds", text), "static const struct crdschema_bounds {name} = " + text + ";")

    def node(self, n, path):
        key = json.dumps(n, sort_keys=True)
        if key in self.memo:
            return self.memo[key]
        if n.get("type") not in TYPES:
            sys.exit(f"gen-crdschema: {path}: type {n.get('type')} not known to lib/job/crdschema.c")
        f = [f".type = {TYPES[n.get('type')]}", f".format = {FORMATS.get(n.get('format'), 'CRD_FMT_NONE')}"]
        flags = [flag for k, flag in (("nullable", "CRD_NULLABLE"), ("x-kubernetes-int-or-string", "CRD_INT_OR_STRING"),
                                      ("x-kubernetes-preserve-unknown-fields", "CRD_PRESERVE")) if n.get(k) is True]
        addl = n.get("additionalProperties")
        if addl is True:
            flags.append("CRD_ADDL_TRUE")
        elif addl is False:
            flags.append("CRD_ADDL_FALSE")
        elif isinstance(addl, dict):
            f.append(f".addl = &{self.node(addl, path + '.*')}")
        lt, keys = n.get("x-kubernetes-list-type"), n.get("x-kubernetes-list-map-keys")
        if lt == "set":
            flags.append("CRD_LIST_SET")
        elif lt == "map" and isinstance(keys, list):
            flags.append("CRD_LIST_MAP")
            name, k = self.strings(keys, path)
            f += [f".map_keys = {name}", f".n_map_keys = {k}"]
        f.append(f".pattern = {self.pattern(n['pattern']) if 'pattern' in n else -1}")
        if any(k in n for k in ("minLength", "maxLength", "minItems", "maxItems", "minProperties",
                                "maxProperties", "minimum", "maximum")):
            f.append(f".bounds = &{self.bounds(n)}")
        if "properties" in n:
            flags.append("CRD_HAS_PROPS")
            props = sorted(n["properties"].items())
            if props:
                assert all(k.isascii() for k, _ in props), "non-ASCII property name"
                body = "\n".join(f"\t{{ {c_str(k)}, &{self.node(v, path + '.' + k)} }}," for k, v in props)
                name = self.name("p", ("props", body), "static const struct crdschema_prop {name}[] = {\n" + body + "\n};")
                f += [f".props = {name}", f".n_props = {len(props)}"]
        if isinstance(n.get("items"), dict):
            f.append(f".items = &{self.node(n['items'], path + '[]')}")
        elif "items" in n:
            sys.exit(f"gen-crdschema: {path}: items that are not one schema; teach lib/job/crdschema.c")
        for k, field in (("required", "required"), ("enum", "enums")):
            if n.get(k):
                name, c = self.strings(n[k], path)
                f += [f".{field} = {name}", f".n_{field} = {c}"]
        if n.get("x-kubernetes-validations"):
            name, c = self.rules(n["x-kubernetes-validations"], path)
            f += [f".rules = {name}", f".n_rules = {c}"]
        d = n.get("default")
        if isinstance(d, bool):
            f.append(f".def = {{ .kind = '{'t' if d else 'f'}' }}")
        elif isinstance(d, str):
            f.append(f".def = {{ .kind = 's', .string = {c_str(d)} }}")
        elif isinstance(d, (int, float)):
            f.append(f".def = {{ .kind = 'n', .number = {c_num(d)} }}")
        f.insert(2, ".flags = " + (" | ".join(flags) if flags else "0"))
        text = "static const struct crdschema_node {name} = { " + ", ".join(f) + " };"
        name = f"n{len(self.memo)}"
        self.memo[key] = name
        self.lines.append(text.replace("{name}", name))
        return name


def main():
    print("/*\n * lib/job/crdschema_data.c - GENERATED by scripts/gen-crdschema.py from the CRDs")
    print(" * below; do not edit. Structural schemas for lib/job/crdschema.c (see there),")
    print(" * as the static tables of lib/job/crdschema_data.h.")
    print(" * Source: the CRDs' openAPIV3Schema (Kubeflow training-operator and Trainer,")
    print(" * Apache-2.0), descriptions and defaults removed, CEL rules translated.\n */")
    print('#include "crdschema_data.h"\n')
    tables, entries = Tables(), []
    for f in sys.argv[1:]:
        crd = yaml.safe_load(open(f))
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for v in crd["spec"]["versions"]:
            if not v.get("served"):
                continue
            schema = v["schema"]["openAPIV3Schema"]
            props = schema.get("properties", {})
            props.pop("status", None)      # never written by a client
            root = tables.node(strip(schema, ""), "")
            tables.lines.append(f"/* {f.rsplit('/', 1)[-1]}: {group}/{v['name']} {kind}: {root} */")
            entries.append((f"{group}/{v['name']}", kind, root))
    print("\n".join(tables.lines))
    print("\nconst struct crdschema_src crdschema_srcs[] = {")
    for av, kind, root in entries:
        print(f'\t{{ "{av}", "{kind}", &{root} }},')
    print("\t{ 0, 0, 0 },\n};\n")
    print("const char *const crdschema_patterns[] = {")
    for p in tables.patterns:
        print(f"\t{c_str(p)},")
    print("};\nconst size_t crdschema_n_patterns = sizeof(crdschema_patterns) / sizeof(crdschema_patterns[0]);")


main()
