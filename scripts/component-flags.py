#!/usr/bin/env python3
"""component-flags.py - hold component/component.yaml (the Kubeflow Pipelines
component) and examples/argo/workflowtemplate.yaml against the flag table of
`jaxjob launch`, the one that writes --help (component/launch/cli/launch_flags.c and
lib/job/jobparams.c, dumped by `jaxjob launch --help=json`).

    scripts/component-flags.py [--jaxjob BIN]            rewrite the inputs (make component)
    scripts/component-flags.py --check [--jaxjob BIN]    only check (make component-check)
    scripts/component-flags.py --check --flags-json F    check against a saved dump (tests)

The rules, so that a new flag cannot be forgotten:
  - every launch flag is an input of the component, or written by it as an
    output (--out-* with {outputPath}), or given a fixed value (--kfp-executor-
    input '{{$}}'), or listed in component/absent-flags.yaml with the reason;
  - an input's KFP type follows the flag's kind (KFP_TYPE below): the type a
    pipeline author passes (workers=4, labels={...}, command=[...]);
  - every input but the required ones is optional without a default and sits
    in an `if: isPresent`, so an unset input leaves its flag out and launch's
    own default applies (a default would be passed on every run: restart_policy
    "Never" would break api=trainjob);
  - no output shares a name with an input;
  - the WorkflowTemplate's train step passes --launch-args from a workflow
    parameter, so every flag is reachable from Argo too, and it names no flag
    launch lacks.

Rewriting keeps what is written by hand (the header, every input's description,
the outputs, the arguments after the marker line) and regenerates the rest: the
order of the inputs (the table's), their types, the `if: isPresent` arguments,
and a new input (named after the parameter or flag, described by its help line)
for a flag that is in none of the lists above. Review the diff, then commit.
"""
import argparse
import json
import os
import subprocess
import sys

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPONENT = os.path.join(TOP, "component", "component.yaml")
ABSENT = os.path.join(TOP, "component", "absent-flags.yaml")
WORKFLOW = os.path.join(TOP, "examples", "argo", "workflowtemplate.yaml")
MARKER = "    # --- outputs and fixed values (written by hand, kept as they are)"

# what KFP's launcher makes of each input type is what launch parses
# (component/README.md, "Typed inputs"): JSON text for JsonObject/JsonArray,
# true/false for Boolean, a whole number for Integer
KFP_TYPE = {
    "string": "String", "enum": "String", "quantity": "String", "duration": "String",
    "int": "Integer", "bool": "Boolean",
    "map": "JsonObject", "object": "JsonObject",
    "list": "JsonArray", "objlist": "JsonArray",
}
# input names that are not the parameter's or flag's own (snake_case)
NAMES = {"metrics": "metrics_mode", "metric": "metric_patterns", "metric-step": "metric_steps"}
REQUIRED = {"image"}


def die(msg):
    print("error: " + msg, file=sys.stderr)
    sys.exit(1)


def snake(s):
    return s.replace("-", "_")


def input_name(f):
    return NAMES.get(f["flag"], snake(f["param"] or f["flag"]))


def flags_of(args):
    if args.flags_json:
        with open(args.flags_json) as fh:
            return json.load(fh)
    binary = args.jaxjob or os.environ.get("JAXJOB") or os.path.join(TOP, "build", "jaxjob")
    r = subprocess.run([binary, "launch", "--help=json"], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.startswith("["):
        die(f"{binary} launch --help=json did not list the flags ({r.stderr.strip()}); build it first")
    return json.loads(r.stdout)


def wiring(spec):
    """(input -> flag, output -> flag, flags with a fixed value) from the args."""
    ins, outs, fixed = {}, {}, set()

    def walk(items):
        for i, a in enumerate(items):
            flag = items[i - 1] if i and isinstance(items[i - 1], str) else None
            if isinstance(a, dict) and "inputValue" in a and flag:
                ins.setdefault(a["inputValue"], flag[2:])
            elif isinstance(a, dict) and "outputPath" in a and flag:
                outs[a["outputPath"]] = flag[2:]
            elif isinstance(a, dict) and "if" in a:
                walk(a["if"].get("then", []))
                walk(a["if"].get("else", []))
            elif isinstance(a, str) and flag and flag.startswith("--") and not a.startswith("--"):
                fixed.add(flag[2:])
    walk(spec["implementation"]["container"].get("args", []))
    return ins, outs, fixed


def load_absent():
    with open(ABSENT) as fh:
        absent = yaml.safe_load(fh) or {}
    for flag, why in absent.items():
        if not isinstance(why, str) or len(why.split()) < 4:
            die(f"component/absent-flags.yaml: --{flag} needs a reason (a sentence), got {why!r}")
    return absent


def check(flags, spec, absent, wt):
    """Every problem, one line each."""
    bad = []
    by_flag = {f["flag"]: f for f in flags}
    ins, outs, fixed = wiring(spec)
    inputs = {i["name"]: i for i in spec.get("inputs", [])}
    wired_flags = set(ins.values()) | set(outs.values()) | fixed
    for f in flags:
        fl = f["flag"]
        if fl in wired_flags and fl in absent:
            bad.append(f"--{fl} is wired in component/component.yaml and also listed as absent "
                       "in component/absent-flags.yaml; drop one")
        elif fl not in wired_flags and fl not in absent:
            how = ("add an output and `- --%s` `- {outputPath: NAME}` after the marker line" % fl
                   if fl.startswith("out-") else "run `make component` to add it as an input")
            bad.append(f"launch flag --{fl} is neither an input of component/component.yaml nor "
                       f"listed in component/absent-flags.yaml with the reason; {how}")
    for fl in absent:
        if fl not in by_flag:
            bad.append(f"component/absent-flags.yaml lists --{fl}, which launch does not have")
    for name, fl in sorted(ins.items()):
        f = by_flag.get(fl)
        i = inputs.get(name)
        if f is None:
            bad.append(f"input {name} passes --{fl}, which launch does not have")
            continue
        if i is None:
            bad.append(f"the arguments use input {name}, which is not declared")
            continue
        want = KFP_TYPE.get(f["kind"])
        if i.get("type") != want:
            bad.append(f"input {name} (--{fl}, {f['kind']}) has type {i.get('type')}, want {want}")
        if "default" in i:
            bad.append(f"input {name} has a default; make it optional without one (unset = flag absent)")
        if name not in REQUIRED and not i.get("optional"):
            bad.append(f"input {name} is not optional: only {', '.join(sorted(REQUIRED))} is required")
    for name in inputs:
        if name not in ins:
            bad.append(f"input {name} reaches no flag")
    for o in spec.get("outputs", []):
        if o["name"] in inputs:
            bad.append(f"output {o['name']} has the name of an input; rename it")
    # the Argo WorkflowTemplate: every flag through --launch-args, and no unknown flag
    train = [t for t in wt["spec"]["templates"] if t["name"] == "train"][0]
    wargs = train["container"]["args"]
    if not any(a.startswith("--launch-args={{") for a in wargs):
        bad.append(f"{os.path.relpath(WORKFLOW, TOP)}: the train step does not pass "
                   "--launch-args={{workflow.parameters.launch-args}}, so most flags are out of reach")
    for a in wargs:
        if a == "--":
            break
        if a.startswith("--") and a[2:].split("=", 1)[0] not in by_flag:
            bad.append(f"{os.path.relpath(WORKFLOW, TOP)}: {a.split('=', 1)[0]} is not a launch flag")
    return bad


def q(s):
    """A YAML double-quoted scalar (JSON's string syntax is one)."""
    return json.dumps(s, ensure_ascii=False)


def input_line(i):
    parts = [f"name: {i['name']}", f"type: {i['type']}"]
    if i.get("optional"):
        parts.append("optional: true")
    parts.append("description: " + q(i.get("description", "")))
    return "- {" + ", ".join(parts) + "}"


def rewrite(flags, spec, absent, text):
    ins, outs, fixed = wiring(spec)
    inputs = {i["name"]: i for i in spec.get("inputs", [])}
    by_input = {}
    for name, fl in ins.items():
        by_input.setdefault(fl, []).append(name)
    head, rest = text.split("\ninputs:\n", 1)
    _, rest = rest.split("\noutputs:\n", 1)
    outputs, rest = rest.split("\nimplementation:\n", 1)
    impl_head, tail = rest.split("\n    args:\n", 1)
    if MARKER not in tail:
        die(f"component/component.yaml: the marker line is missing: {MARKER.strip()!r}")
    tail = tail[tail.index(MARKER):]
    lines, args, group = [], [], None
    for f in flags:
        fl = f["flag"]
        if fl in absent or fl in outs.values() or fl in fixed or fl.startswith("out-"):
            continue
        names = by_input.get(fl) or [input_name(f)]
        if f["group"] != group:
            group = f["group"]
            lines.append(f"# --- {group} " + "-" * max(3, 74 - len(group)))
        for name in names:
            i = dict(inputs.get(name) or {"name": name, "description": f["help"]})
            i["type"] = KFP_TYPE[f["kind"]]
            i.pop("default", None)
            i["optional"] = name not in REQUIRED
            lines.append(input_line(i))
            if i["optional"]:
                args.append(f"    - if: {{cond: {{isPresent: {name}}}, then: [--{fl}, {{inputValue: {name}}}]}}")
            else:
                args += [f"    - --{fl}", f"    - {{inputValue: {name}}}"]
    return (head + "\ninputs:\n" + "\n".join(lines) + "\noutputs:\n" + outputs
            + "\nimplementation:\n" + impl_head + "\n    args:\n" + "\n".join(args) + "\n" + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only check, change nothing")
    ap.add_argument("--jaxjob", help="the binary (default $JAXJOB, else build/jaxjob)")
    ap.add_argument("--flags-json", help="a saved `jaxjob launch --help=json`")
    ap.add_argument("--component", default=COMPONENT)
    ap.add_argument("--workflow", default=WORKFLOW)
    args = ap.parse_args()
    flags = flags_of(args)
    absent = load_absent()
    with open(args.component) as fh:
        text = fh.read()
    with open(args.workflow) as fh:
        wt = yaml.safe_load(fh)
    if not args.check:
        text = rewrite(flags, yaml.safe_load(text), absent, text)
        with open(args.component, "w") as fh:
            fh.write(text)
    bad = check(flags, yaml.safe_load(text), absent, wt)
    for b in bad:
        print("error: " + b, file=sys.stderr)
    if bad:
        sys.exit(1)
    n = len(yaml.safe_load(text)["inputs"])
    print(f"ok: {len(flags)} launch flags: {n} component inputs, the rest outputs, fixed or "
          f"absent with a reason ({len(absent)}); the WorkflowTemplate passes --launch-args")


if __name__ == "__main__":
    main()
