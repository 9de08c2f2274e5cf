#!/usr/bin/env python3
"""engine.py - play the part of Kubeflow Pipelines' driver and launcher, or of
Argo Workflows' controller and wait container, for one `jaxjob launch` step, so
that tests/suites/62-kfp-argo.sh runs the step's command line exactly as the
engine would build it and reads its outputs exactly as the engine would.

Each rule is the engine's, restated (no upstream code here); the file:line
citations are to kubeflow/pipelines at 7b70c7b and argoproj/argo-workflows at
v4.1.2 (tag commit 16a52d67), as gathered in the team's notes:

KFP, from the compiled IR (what the SDK wrote, not component.yaml):
  - driver: a task input given as a constant is replaced when the constant IS
    one of the pipeline placeholders, else passed unchanged
    (backend/src/v2/driver/resolve.go:422-455); inputs from pipeline
    parameters follow componentInputParameter up to the root's defaults;
    inputs the task does not give take the component's defaultValue, an
    optional input without one is absent.
  - launcher: {{$.inputs.parameters['x']}} becomes the value as text
    (metadata.PbValueToText: a string as is, a number with FormatFloat 'f' -1),
    {{$.outputs.parameters['x'].output_file}} the file /tmp/kfp/outputs/x
    (driver.go provisionOutputs), {{$.outputs.artifacts['x'].path}} the local
    path of the artifact's URI (LocalPathForURI: minio://b/k -> /minio/b/k),
    {{$}} the executor input as JSON, {"IfPresent": ...} expands its
    Then/Else, {"Concat": [...]} joins; outputs are collected only when the
    command exits 0 (launcher_v2.go:436-462): the executor output file
    /tmp/kfp_outputs/output_metadata.json, when present, must be an
    ExecutorOutput (its parameter values win), each other output parameter
    file must exist and parse by its type (metadata.TextToPbValue,
    converter.go:50-96), each output artifact's local file is uploaded.
Argo, from the WorkflowTemplate:
  - {{workflow.*}} and {{workflow.parameters.*}} are filled in anywhere in a
    string; output parameters are read from valueFrom.path after the main
    container ends, whatever its exit code (postmain.go:27-69), a missing file
    gives valueFrom.default, one trailing newline is trimmed
    (executor.go:738-786).

Subcommands (files are paths; ROOT is where "/" of the step's pod is mapped):
  ir-check IR                      the assertions on the compiled IR (prints what it checked)
  kfp-argv IR TASK ROOT [k=v...]   the step's argv, NUL-separated; k=v: run=, task_id=,
                                   param.NAME= (pipeline parameter), input.NAME= (override),
                                   item= (the ParallelFor item)
  kfp-env IR TASK run=ID            env words from kfp.kubernetes field paths (NUL-separated)
  kfp-collect IR TASK ROOT EXIT [run= task_name=]  the outputs as KFP reads them, as JSON
                                   (or exit 1 naming the output that fails to parse)
  kfp-branch IR TASK STATE         which condition branch of the IR runs for that state
  kfp-branch-outputs IR TASK COLLECTED  which tasks the IR's conditions on TASK's outputs let
                                   run, given the JSON kfp-collect printed (If/Elif/Else on
                                   any String output, e.g. failure_category)
  argo-argv WT TEMPLATE ROOT [k=v...]  argv of a template (k=v: workflow.uid=, workflow.name=)
  argo-collect WT TEMPLATE ROOT    the output parameters as Argo reads them, as JSON
  argo-depends WT TASK PHASE       which DAG tasks run after TASK ended in PHASE
  snippet MD HEADING LANG          the first LANG code block under "## HEADING" of MD
"""
import decimal
import json
import os
import re
import sys

import yaml

# driver: resolve.go's whole-value switch; the values are what the test says
# the run is (run id, task name, DAG execution id, ...)
WHOLE_VALUE = {
    "{{$.pipeline_job_name}}": "job_name",
    "{{$.pipeline_job_resource_name}}": "job_resource_name",
    "{{$.pipeline_job_uuid}}": "run",
    "{{$.pipeline_task_name}}": "task_name",
    "{{$.pipeline_task_uuid}}": "task_id",
    "{{$.pipeline_job_create_time_utc}}": "create_time",
    "{{$.pipeline_job_schedule_time_utc}}": "schedule_time",
}
OUTPUT_DIR = "/tmp/kfp/outputs"


def die(msg):
    print("error: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    """The first document (an IR file may carry a platform spec as a second one)."""
    with open(path) as f:
        return next(d for d in yaml.safe_load_all(f) if d)


def platform_of(path):
    """The kubernetes platform spec of an IR file, or {}."""
    with open(path) as f:
        for d in yaml.safe_load_all(f):
            if d and "platforms" in d:
                return d["platforms"].get("kubernetes", {})
    return {}


def kv(pairs):
    return dict(p.split("=", 1) for p in pairs)


# ---- the IR ------------------------------------------------------------------

def dags(ir):
    """(component name, dag) for the root and every DAG component."""
    yield "root", ir["root"]
    for name, comp in ir.get("components", {}).items():
        if "dag" in comp:
            yield name, comp


def find_task(ir, task):
    """(parent component name, task spec) of the task named TASK."""
    for cname, comp in dags(ir):
        t = comp["dag"]["tasks"].get(task)
        if t is not None:
            return cname, t
    die(f"no task {task} in the IR")


def caller_of(ir, cname):
    """(parent name, task spec) of the task that runs DAG component CNAME."""
    for pname, comp in dags(ir):
        for t in comp["dag"]["tasks"].values():
            if t["componentRef"]["name"] == cname:
                return pname, t
    die(f"nothing calls {cname}")


def resolve_input(ir, cname, spec, ctx):
    """The value (a Python value) of one task input spec inside component CNAME."""
    if "runtimeValue" in spec:
        v = spec["runtimeValue"]["constant"]
        if isinstance(v, str) and v in WHOLE_VALUE:
            return ctx[WHOLE_VALUE[v]]
        return v
    if "componentInputParameter" in spec:
        name = spec["componentInputParameter"]
        if cname == "root":
            if "param." + name in ctx:
                return ctx["param." + name]
            return ir["root"]["inputDefinitions"]["parameters"][name].get("defaultValue")
        pname, ptask = caller_of(ir, cname)
        given = ptask.get("inputs", {}).get("parameters", {})
        if name not in given and ptask.get("parameterIterator", {}).get("itemInput") == name:
            if "item" not in ctx:
                die(f"{cname} is a loop: say which item (item=...)")
            return ctx["item"]      # one ParallelFor iteration
        return resolve_input(ir, pname, given[name], ctx)
    die(f"input kind not emulated: {spec}")


def task_inputs(ir, task, ctx):
    """The driver's view: every input of the task's component, resolved."""
    cname, t = find_task(ir, task)
    comp = ir["components"][t["componentRef"]["name"]]
    given = t.get("inputs", {}).get("parameters", {})
    values = {}
    for name, d in comp["inputDefinitions"]["parameters"].items():
        if "input." + name in ctx:
            values[name] = ctx["input." + name]
        elif name in given:
            values[name] = resolve_input(ir, cname, given[name], ctx)
        elif "defaultValue" in d:
            values[name] = d["defaultValue"]
        elif not d.get("isOptional"):
            die(f"required input {name} not given")
    return comp, values


def go_float(f):
    """strconv.FormatFloat(f, 'f', -1, 64): the shortest digits that read back,
    never an exponent (1e-07 -> 0.0000001, 1e21 -> 1000000000000000000000)."""
    f = float(f)
    if f.is_integer():
        return str(int(f))
    return format(decimal.Decimal(repr(f)), "f")


def proto_numbers(v):
    """A structpb number is a double: protojson writes 4.0 as 4."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return int(v) if float(v).is_integer() and abs(v) < 2 ** 53 else float(v)
    if isinstance(v, list):
        return [proto_numbers(x) for x in v]
    return {k: proto_numbers(x) for k, x in v.items()}


def as_text(v):
    """The launcher's input placeholder (launcher_v2.go:1139-1163, as
    metadata.PbValueToText): a string as is, a number FormatFloat 'f' -1, a
    bool FormatBool, a list or struct json.Marshal (compact, HTML characters
    escaped as \u003c..., UTF-8 kept)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return go_float(v)
    if isinstance(v, (list, dict)):
        text = json.dumps(proto_numbers(v), separators=(",", ":"), ensure_ascii=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return v


PH_IN = re.compile(r"\{\{\$\.inputs\.parameters\['([^']+)'\]\}\}")
PH_OUT = re.compile(r"\{\{\$\.outputs\.parameters\['([^']+)'\]\.output_file\}\}")
PH_ART = re.compile(r"\{\{\$\.outputs\.artifacts\['([^']+)'\]\.(path|uri)\}\}")
EXECUTOR_OUTPUT = "/tmp/kfp_outputs/output_metadata.json"   # launcher_v2.go:526
ARTIFACT_ROOT = "minio://mlpipeline/v2/artifacts"            # the default pipeline root


def artifact_uri(name, ctx):
    """Where the driver puts an output artifact (pipeline root/pipeline/run/task/name)."""
    return f"{ARTIFACT_ROOT}/{ctx['job_name']}/{ctx['run']}/{ctx['task_name']}/{name}"


def local_path(uri):
    """The launcher's LocalPathForURI: minio://x -> /minio/x."""
    scheme, rest = uri.split("://", 1)
    return f"/{scheme}/{rest}"


def executor_input(comp, values, root, ctx):
    """What {{$}} becomes: the executor input as JSON (protojson field names)."""
    outs = comp.get("outputDefinitions", {})
    arts = {}
    for name, d in outs.get("artifacts", {}).items():
        arts[name] = {"artifacts": [{"name": name, "type": d["artifactType"],
                                     "uri": artifact_uri(name, ctx), "metadata": {}}]}
    return json.dumps({
        "inputs": {"parameterValues": values},
        "outputs": {
            "parameters": {n: {"outputFile": root + OUTPUT_DIR + "/" + n}
                           for n in outs.get("parameters", {})},
            "artifacts": arts,
            "outputFile": root + EXECUTOR_OUTPUT,
        },
    }, separators=(",", ":"))


def launcher_arg(a, values, root, out, env=None):
    if a.startswith('{"Concat"'):
        parts = []
        for b in json.loads(a)["Concat"]:
            launcher_arg(b, values, root, parts, env)
        out.append("".join(parts))
        return
    if a.startswith('{"IfPresent"'):
        c = json.loads(a)["IfPresent"]
        for b in c.get("Then" if c["InputName"] in values else "Else", []) or []:
            launcher_arg(b, values, root, out, env)
        return
    # each placeholder of the template is replaced once; a value is not scanned again
    def one(m):
        tok = m.group(0)
        if tok == "{{$}}":
            return env["executor_input"]
        x = PH_IN.fullmatch(tok)
        if x:
            return as_text(values[x.group(1)])
        x = PH_OUT.fullmatch(tok)
        if x:
            return root + OUTPUT_DIR + "/" + x.group(1)
        x = PH_ART.fullmatch(tok)
        if x:
            uri = artifact_uri(x.group(1), env["ctx"])
            return uri if x.group(2) == "uri" else root + local_path(uri)
        die(f"placeholder not emulated: {tok}")
    out.append(re.sub(r"\{\{\$[^}]*\}\}", one, a))


def kfp_argv(ir_path, task, root, pairs):
    ir = load(ir_path)
    ctx = {"job_name": "jax-mnist-run", "job_resource_name": "run-resource",
           "create_time": "2026-01-01T00:00:00Z", "schedule_time": ""}
    ctx.update(kv(pairs))
    comp, values = task_inputs(ir, task, ctx)
    ex = ir["deploymentSpec"]["executors"][comp["executorLabel"]]["container"]
    argv = []
    env = {"ctx": ctx, "executor_input": executor_input(comp, values, root, ctx)}
    for a in ex.get("command", []) + ex.get("args", []):
        launcher_arg(a, values, root, argv, env)
    sys.stdout.write("\0".join(argv))


def kfp_env(ir_path, task, pairs):
    """NAME=VALUE words (NUL-separated) the driver adds from kfp.kubernetes
    field paths (driver/k8s.go); the pod label pipeline/runid is the run."""
    ir = load(ir_path)
    ctx = kv(pairs)
    _, t = find_task(ir, task)
    comp = ir["components"][t["componentRef"]["name"]]
    ex = platform_of(ir_path).get("deploymentSpec", {}).get("executors", {})
    words = []
    for f in ex.get(comp["executorLabel"], {}).get("fieldPathAsEnv", []):
        if f["fieldPath"] != "metadata.labels['pipeline/runid']":
            die(f"field path not emulated: {f['fieldPath']}")
        words.append(f"{f['name']}={ctx['run']}")
    sys.stdout.write("\0".join(words))


GO_INT = re.compile(r"^[+-]?[0-9]+$")


def text_to_value(text, ptype, name):
    """metadata.TextToPbValue; raises ValueError like the launcher fails the task."""
    if ptype == "STRING":
        return text
    s = text.strip()
    if ptype == "NUMBER_INTEGER":
        if not GO_INT.match(s):
            raise ValueError(f"{name}: {text!r} is not an integer (strconv.ParseInt)")
        return int(s)
    if ptype == "NUMBER_DOUBLE":
        return float(s)
    if ptype == "BOOLEAN":
        table = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
                 "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}
        if s not in table:
            raise ValueError(f"{name}: {text!r} is not a boolean (strconv.ParseBool)")
        return table[s]
    v = json.loads(text)     # ValueError on bad JSON
    if ptype == "LIST" and not isinstance(v, list):
        raise ValueError(f"{name}: {text!r} is not a JSON array")
    if ptype == "STRUCT" and not isinstance(v, dict):
        raise ValueError(f"{name}: {text!r} is not a JSON object")
    return v


def kfp_collect(ir_path, task, root, code, pairs=()):
    ir = load(ir_path)
    _, t = find_task(ir, task)
    comp = ir["components"][t["componentRef"]["name"]]
    if int(code) != 0:
        print(json.dumps({"collected": False}))
        return
    # the executor output file, when written, is protojson ExecutorOutput: its
    # parameter values win over the files, its artifact metadata is merged
    eo = {}
    eo_path = root + EXECUTOR_OUTPUT
    if os.path.exists(eo_path):
        try:
            eo = json.load(open(eo_path))
        except ValueError as e:
            die(f"{EXECUTOR_OUTPUT} is not JSON ({e}): KFP fails the task")
        extra = set(eo) - {"parameterValues", "artifacts"}
        if not isinstance(eo, dict) or extra:
            die(f"{EXECUTOR_OUTPUT} is not an ExecutorOutput (unknown {extra}): KFP fails the task")
    got = {}
    for name, d in comp["outputDefinitions"].get("parameters", {}).items():
        if name in eo.get("parameterValues", {}):
            got[name] = eo["parameterValues"][name]
            continue
        path = root + OUTPUT_DIR + "/" + name
        if not os.path.exists(path):
            die(f"output {name}: {OUTPUT_DIR}/{name} does not exist (KFP fails the task)")
        try:
            got[name] = text_to_value(open(path).read(), d["parameterType"], name)
        except ValueError as e:
            die(f"output {e} (KFP fails the task)")
    arts = {}
    ctx = {"job_name": "jax-mnist-run", **kv(pairs)}
    for name in comp["outputDefinitions"].get("artifacts", {}):
        path = root + local_path(artifact_uri(name, ctx))
        if not os.path.exists(path):
            die(f"output artifact {name}: {path[len(root):]} does not exist (the launcher's upload fails)")
        md = {}
        for a in eo.get("artifacts", {}).get(name, {}).get("artifacts", [])[:1]:
            md = a.get("metadata", {})
        arts[name] = {"bytes": os.path.getsize(path), "metadata": md}
    print(json.dumps({"collected": True, "outputs": got, "artifacts": arts}))


def kfp_branch(ir_path, task, state):
    """The branch whose triggerPolicy condition holds for this state output."""
    ir = load(ir_path)
    ran = []
    for cname, comp in dags(ir):
        for tname, t in comp["dag"]["tasks"].items():
            cond = t.get("triggerPolicy", {}).get("condition")
            if not cond or f"pipelinechannel--{task}-state" not in cond:
                continue
            m = re.fullmatch(r"(!\()?inputs\.parameter_values\['pipelinechannel--"
                             + re.escape(task) + r"-state'\] == '([^']*)'\)?", cond)
            if not m:
                die(f"condition not emulated: {cond}")
            hold = (state == m.group(2)) != bool(m.group(1))
            if hold:
                inner = ir["components"][t["componentRef"]["name"]]["dag"]["tasks"]
                ran += sorted(inner)
    print(" ".join(ran))


CHANNEL = r"inputs\.parameter_values\['pipelinechannel--{task}-([A-Za-z0-9_]+)'\]"


def condition_holds(cond, task, outputs):
    """KFP's driver evaluates a task's triggerPolicy.condition as CEL over the executor
    input (backend/src/v2/expression/expression.go:134 Condition). The SDK writes only
    string comparisons of upstream outputs joined by !( ), && and || (dsl.If/Elif/Else);
    that subset is restated here in Python, anything else is refused."""
    expr = re.sub(CHANNEL.format(task=re.escape(task)), lambda m: f"V[{m.group(1)!r}]", cond)
    if "inputs.parameter_values" in expr:
        die(f"condition on another task's output not emulated: {cond}")
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!\(", " not (", expr)
    if not re.fullmatch(r"[\sA-Za-z0-9_'\[\]()=!.,:-]*", expr) or "__" in expr:
        die(f"condition not emulated: {cond}")
    return bool(eval(expr, {"__builtins__": {}}, {"V": {k: str(v) if not isinstance(v, str) else v
                                                          for k, v in outputs.items()}}))


def kfp_branch_outputs(ir_path, task, collected):
    """The leaf tasks that run after TASK, given its collected outputs: a group runs
    when its condition holds (or it has none), and so do the tasks inside it."""
    ir = load(ir_path)
    outputs = json.load(open(collected))["outputs"]
    ran = []

    def walk(dag):
        for tname, t in sorted(dag["tasks"].items()):
            cond = t.get("triggerPolicy", {}).get("condition")
            if tname == task or (cond and not condition_holds(cond, task, outputs)):
                continue
            sub = ir["components"][t["componentRef"]["name"]]
            if "dag" in sub:
                walk(sub["dag"])
            else:
                ran.append(tname)
    walk(ir["root"]["dag"])
    print(" ".join(ran))


def ir_check(ir_path, task):
    """The compiled IR is what component/README.md says."""
    ir = load(ir_path)
    _, t = find_task(ir, task)
    given = t["inputs"]["parameters"]

    def const(name):
        return given.get(name, {}).get("runtimeValue", {}).get("constant")
    checks = []
    for name, ph in (("run_id", "{{$.pipeline_job_uuid}}"), ("task_name", "{{$.pipeline_task_name}}"),
                     ("task_id", "{{$.pipeline_task_uuid}}")):
        if name in given:
            assert const(name) == ph, f"{name} is the whole-value placeholder {ph}: {given[name]}"
            checks.append(f"{name}={ph}")
    # no placeholder hidden inside a longer constant: the driver would pass it literally
    for name, spec in given.items():
        v = spec.get("runtimeValue", {}).get("constant")
        if isinstance(v, str) and "{{$." in v:
            assert v in WHOLE_VALUE, f"input {name} holds a placeholder inside a string: {v!r}"
    assert not given.get("name", {}).get("runtimeValue"), "the job name is not a constant"
    checks.append("no placeholder inside a string")
    if "name_prefix" in given:
        p = const("name_prefix")
        assert re.fullmatch(r"[a-z]([-a-z0-9]*[a-z0-9])?", p), p
        checks.append(f"name_prefix={p}")
    if "outcome" in given:
        assert const("outcome") == "outputs", given["outcome"]
        checks.append("outcome=outputs")
    rp = t.get("retryPolicy")
    assert rp and rp["maxRetryCount"] >= 1, f"retry policy: {rp}"
    checks.append(f"retry maxRetryCount={rp['maxRetryCount']}")
    assert "cachingOptions" in t and not t["cachingOptions"].get("enableCache"), t.get("cachingOptions")
    checks.append("caching off")
    print(" ".join(checks))


# ---- Argo --------------------------------------------------------------------

def argo_vals(wt, pairs):
    vals = {"workflow.name": "jax-train-x7k2p", "workflow.uid": "00000000-0000-4000-8000-000000000001"}
    for p in wt["spec"].get("arguments", {}).get("parameters", []):
        vals["workflow.parameters." + p["name"]] = p.get("value", "")
    vals.update(kv(pairs))
    return vals


def argo_sub(s, vals):
    def one(m):
        k = m.group(1).strip()
        if k not in vals:
            die(f"variable not emulated: {{{{{k}}}}}")
        return vals[k]
    return re.sub(r"\{\{([^}]+)\}\}", one, s)


def template(wt, name):
    for t in wt["spec"]["templates"]:
        if t["name"] == name:
            return t
    die(f"no template {name}")


def argo_argv(wt_path, tname, root, pairs):
    wt = load(wt_path)
    t = template(wt, tname)
    vals = argo_vals(wt, pairs)
    c = t["container"]
    argv = [argo_sub(a, vals) for a in c.get("command", []) + c.get("args", [])]
    # the pod's /tmp is ROOT/tmp here
    argv = [a.replace("=/tmp/", "=" + root + "/tmp/") if a.startswith("--out-") else a for a in argv]
    sys.stdout.write("\0".join(argv))


def argo_collect(wt_path, tname, root):
    wt = load(wt_path)
    t = template(wt, tname)
    got = {}
    for p in t.get("outputs", {}).get("parameters", []):
        vf = p["valueFrom"]
        path = root + vf["path"]
        if os.path.exists(path):
            v = open(path).read()
            got[p["name"]] = v[:-1] if v.endswith("\n") else v
        elif "default" in vf:
            got[p["name"]] = vf["default"]
        else:
            die(f"output {p['name']}: {vf['path']} missing and no default (the step errors)")
    print(json.dumps(got))


def argo_depends(wt_path, task, phase):
    """DAG tasks whose `depends` holds when TASK ended in PHASE (the rest not run)."""
    wt = load(wt_path)
    words = {"Succeeded": phase == "Succeeded", "Failed": phase == "Failed",
             "Errored": phase == "Error", "Skipped": False, "Omitted": False,
             "Daemoned": False}
    ran = []
    for t in wt["spec"]["templates"]:
        for d in t.get("dag", {}).get("tasks", []):
            dep = d.get("depends")
            if not dep or task + "." not in dep:
                continue
            expr = re.sub(re.escape(task) + r"\.(\w+)", lambda m: str(words[m.group(1)]), dep)
            expr = expr.replace("||", " or ").replace("&&", " and ").replace("!", " not ")
            if eval(expr, {"__builtins__": {}}, {}):
                ran.append(d["name"])
    print(" ".join(ran))


def snippet(md, heading, lang):
    text = open(md).read()
    start = text.index("\n## " + heading + "\n")
    end = text.find("\n## ", start + 1)
    sec = text[start:end if end > 0 else len(text)]
    m = re.search("```" + lang + "\n(.*?)```", sec, re.S)
    if not m:
        die(f"no {lang} block under ## {heading} in {md}")
    sys.stdout.write(m.group(1))


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "ir-check":
        ir_check(args[0], args[1] if len(args) > 1 else "jaxjob-launch")
    elif cmd == "kfp-argv":
        kfp_argv(args[0], args[1], args[2], args[3:])
    elif cmd == "kfp-env":
        kfp_env(args[0], args[1], args[2:])
    elif cmd == "kfp-collect":
        kfp_collect(args[0], args[1], args[2], args[3], args[4:])
    elif cmd == "kfp-branch":
        kfp_branch(*args[:3])
    elif cmd == "kfp-branch-outputs":
        kfp_branch_outputs(*args[:3])
    elif cmd == "argo-argv":
        argo_argv(args[0], args[1], args[2], args[3:])
    elif cmd == "argo-collect":
        argo_collect(*args[:3])
    elif cmd == "snippet":
        snippet(*args[:3])
    elif cmd == "argo-depends":
        argo_depends(*args[:3])
    else:
        die(f"unknown subcommand {cmd}")


if __name__ == "__main__":
    main(sys.argv)
