"""typed_pipeline.py - the compile matrix of component/component.yaml with the
real KFP SDK (run with the Python of a kfp venv, $JAXJOB_KFP_PYTHON: make test-deps):

    typed_pipeline.py COMPONENT IR.yaml           compile the pipeline below
    typed_pipeline.py --check COMPONENT IR.yaml   assert its IR (prints what it checked)

Three tasks, each passing native Python values as a pipeline author would:
  jaxjob-launch    the call of issue 22 (workers=4, gpus_per_worker=1,
                   labels={...}, command=[...], volumes=[...], queue=...);
  jaxjob-launch-2  every input of a JAXJob, a value of its type each (SAMPLES);
  jaxjob-launch-3  the TrainJob-only inputs, with api="trainjob".
Together they give every input a value: an input missing from SAMPLES gets
one by its type, so a new flag compiles here the day `make component` adds it
(give it a SAMPLES entry when that value does not suit launch).
"""
import sys

import yaml

# a value of the input's type that launch accepts (the JAXJob task)
SAMPLES = {
    "name": "every-input", "namespace": "team-a", "image": "ghcr.io/example/jax:1",
    "labels": {"team": "a"}, "annotations": {"example.com/owner": "ml"},
    "pod_annotations": {"sidecar.istio.io/inject": "false"},
    "workers": 2, "restart_policy": "OnFailure",
    "image_pull_policy": "IfNotPresent", "command": ["python", "train.py"],
    "args": ["--steps", "10"], "env": [{"name": "A", "value": "1"}],
    "coordinator_port": 7777, "cpu": "500m", "memory": "1Gi", "gpus_per_worker": 1,
    "gpu_resource": "amd.com/gpu", "extended_resources": {"example.com/fpga": "1"},
    "service_account": "trainer", "image_pull_secrets": ["regcred"],
    "node_selector": {"pool": "gpu"},
    "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}],
    "volume_mounts": [{"name": "data", "mountPath": "/data", "readOnly": True}],
    "clean_pod_policy": "Running", "ttl_seconds_after_finished": 600,
    "active_deadline_seconds": 7200, "backoff_limit": 3, "suspend": True,
    "local_queue": "team-a-q", "queue": "research", "min_available": 2,
    "priority_class": "high", "schedule_timeout_seconds": 120,
    "patch": {"metadata": {"annotations": {"example.com/patched": "yes"}}},
    "api": "jaxjob", "kubeconfig": "/var/run/kubeconfig", "context": "ctx",
    "timeout": "2h", "logs": "first", "delete_after": "success", "on_cancel": "suspend",
    "fail_fast_after": "10m", "delete_timeout": "25s", "log_drain": "5s", "log_turn": "10s",
    "queue_timeout": "1h", "queue_progress_every": "2m", "queue_hopeless_after": "5m",
    "identity": "every-input-1", "run_id": "run-1", "task_name": "t", "task_id": "1",
    "name_prefix": None,        # the name is given here; the TrainJob task has the prefix
    "outcome": "outputs", "adopt": False, "quiet": True,
    "metrics_mode": "patterns", "metric_patterns": "loss=loss ([0-9.]+)",
    "metric_pattern": "acc=acc ([0-9.]+)", "metric_steps": ["update"],
    "metrics_from": "first", "total_steps": 1000, "progress_every": "30s",
    "metrics_points": 100,
}
TRAINJOB = {"runtime": "jax-distributed", "runtime_kind": "ClusterTrainingRuntime",
            "procs_per_node": 1, "log_workers": "0-3"}  # (the JAXJob task streams "first")
BY_TYPE = {"String": "x", "Integer": 1, "Float": 0.5, "Boolean": True,
           "JsonObject": {"k": "v"}, "JsonArray": ["x"]}
IR_TYPE = {"String": "STRING", "Integer": "NUMBER_INTEGER", "Float": "NUMBER_DOUBLE",
           "Boolean": "BOOLEAN", "JsonObject": "STRUCT", "JsonArray": "LIST"}
OUT_TYPE = {"duration": "NUMBER_DOUBLE", "exit_code": "NUMBER_INTEGER",
            "job_json": "STRUCT", "worker_counts": "STRUCT", "state": "STRING"}
VOLUMES = [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}]


def inputs_of(component):
    with open(component) as f:
        return {i["name"]: i for i in yaml.safe_load(f)["inputs"]}


def compile_matrix(component, out):
    from kfp import compiler, components, dsl
    launch = components.load_component_from_file(component)
    inputs = inputs_of(component)
    every = {}
    for name, i in inputs.items():
        if name in TRAINJOB:
            continue
        v = SAMPLES[name] if name in SAMPLES else BY_TYPE[i["type"]]
        if v is not None:
            every[name] = v

    @dsl.pipeline(name="typed-inputs")
    def typed(image: str = "ghcr.io/example/jax:1"):
        # issue 22's pipeline, as a pipeline author writes it
        launch(name="mnist", image=image, workers=4, gpus_per_worker=1,
               labels={"team": "a"}, command=["python", "train.py"],
               volumes=VOLUMES, queue="research")
        launch(**every)
        launch(name_prefix="every-trainjob", run_id=dsl.PIPELINE_JOB_ID_PLACEHOLDER,
               image=image, api="trainjob", **TRAINJOB)
    compiler.Compiler().compile(typed, out)


def check(component, ir_path):
    with open(ir_path) as f:
        ir = next(d for d in yaml.safe_load_all(f) if d)
    inputs = inputs_of(component)
    comp = ir["components"]["comp-jaxjob-launch"]
    defs = comp["inputDefinitions"]["parameters"]
    assert set(defs) == set(inputs), set(defs) ^ set(inputs)
    for name, i in inputs.items():
        d = defs[name]
        assert d["parameterType"] == IR_TYPE[i["type"]], (name, d)
        assert "defaultValue" not in d, f"{name} has a default in the IR: {d}"
        assert d.get("isOptional", False) == (name != "image"), (name, d)
    outs = comp["outputDefinitions"]["parameters"]
    for name, t in OUT_TYPE.items():
        assert outs[name]["parameterType"] == t, (name, outs[name])
    assert not set(outs) & set(defs), set(outs) & set(defs)
    # every optional input's flag sits in an IfPresent: unset = no flag at all
    args = ir["deploymentSpec"]["executors"][comp["executorLabel"]]["container"]["args"]
    present = {yaml.safe_load(a)["IfPresent"]["InputName"] for a in args
               if a.startswith('{"IfPresent"')}
    assert present == set(inputs) - {"image"}, set(inputs) - {"image"} - present
    tasks = ir["root"]["dag"]["tasks"]
    given = {}
    for t in tasks.values():
        given.update(t["inputs"]["parameters"])
    assert set(given) == set(inputs), set(inputs) - set(given)
    p = tasks["jaxjob-launch"]["inputs"]["parameters"]
    c = {k: v["runtimeValue"]["constant"] for k, v in p.items() if "runtimeValue" in v}
    assert c == {"name": "mnist", "workers": 4, "gpus_per_worker": 1, "labels": {"team": "a"},
                 "command": ["python", "train.py"], "volumes": VOLUMES, "queue": "research"}, c
    assert p["image"] == {"componentInputParameter": "image"}, p["image"]
    print(f"ok: {len(inputs)} inputs typed, optional without a default, each in an IfPresent; "
          f"outputs {', '.join(f'{k} {v}' for k, v in OUT_TYPE.items())}; "
          f"every input given a typed value by one of {len(tasks)} tasks; the issue's call as constants")


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    else:
        compile_matrix(sys.argv[1], sys.argv[2])
