"""verify.py COMPONENT_YAML [OUT_YAML]

Checks the KFP SDK end to end: imports kfp (dsl, compiler, components,
kubernetes), loads a component.yaml with components.load_component_from_file,
builds a one-step pipeline around it (required inputs get a constant of their
type), compiles it with compiler.Compiler().compile to OUT_YAML (default: a
temporary file, removed afterwards), and reads the IR YAML back.

Run it with the Python of a venv that has kfp (make test-deps; tests/suites/62-kfp-argo.sh):
  "$JAXJOB_KFP_PYTHON" -W always tests/kfp-argo/verify.py component/component.yaml
Last line on success: "ok: <component> (<n> inputs, <n> outputs) compiled to <bytes> bytes of IR YAML (schemaVersion <v>)".
Exit status 0 on success; any failure raises (exit 1).
"""
import os
import sys
import tempfile

import yaml
from kfp import compiler, components, dsl, kubernetes  # noqa: F401 (kubernetes: importable)

CONSTANTS = {"String": "x", "Integer": 1, "Float": 1.0, "Boolean": False,
             "Dict": {}, "List": [], "JsonObject": {}, "JsonArray": []}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    comp = components.load_component_from_file(sys.argv[1])
    spec = comp.component_spec
    args = {}
    for name, inp in spec.inputs.items():
        if inp.optional or inp.default is not None:
            continue
        if inp.type not in CONSTANTS:
            sys.exit(f"verify.py: required input {name!r} has type {inp.type}, which needs an upstream task")
        args[name] = CONSTANTS[inp.type]

    @dsl.pipeline(name="verify-one-step")
    def one_step():
        comp(**args)

    out = sys.argv[2] if len(sys.argv) == 3 else None
    tmp = None
    if out is None:
        fd, tmp = tempfile.mkstemp(suffix=".yaml")
        os.close(fd)
        out = tmp
    try:
        compiler.Compiler().compile(one_step, out)
        with open(out) as f:
            ir = yaml.safe_load(f)
        size = os.path.getsize(out)
    finally:
        if tmp:
            os.unlink(tmp)
    tasks = ir["root"]["dag"]["tasks"]
    assert len(tasks) == 1, tasks
    print(f"ok: {spec.name} ({len(spec.inputs)} inputs, {len(spec.outputs or {})} outputs) "
          f"compiled to {size} bytes of IR YAML (schemaVersion {ir['schemaVersion']})")


if __name__ == "__main__":
    main()
