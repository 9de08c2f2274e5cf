"""A Kubeflow Pipelines (SDK v2) pipeline that trains with a JAXJob and acts on
*why* it failed: the step's failure_category output (issue 23) picks the branch.

    python3 examples/kfp/failure_branch.py          # writes jax_triage_pipeline.yaml

- outcome="outputs": a job that ended (failed, timed out, stuck) exits 0, so KFP
  hands its outputs on and the branches can read them.
- failure_category is "" when the job succeeded, else one of oom, evicted,
  preempted, image, scheduling, config, application, coordination, deadline,
  backoff, unknown (component/README.md, "Why it failed"); failure is the JSON
  with the first failing worker, its exit code, exception and last lines.
- dsl.If / dsl.Elif / dsl.Else compile to conditions KFP's driver evaluates on the
  step's outputs before it runs each branch (CEL, backend/src/v2/expression).
"""
import argparse
import os

from kfp import compiler, components, dsl

HERE = os.path.dirname(os.path.abspath(__file__))
jaxjob_launch = components.load_component_from_file(
    os.path.join(HERE, "..", "..", "component", "component.yaml"))


@dsl.component(base_image="python:3.12-slim")
def more_memory(failure: dict) -> str:
    """The first worker ran out of memory: say where, for a retry with a bigger limit."""
    return f"worker-{failure['worker']} OOMKilled on {failure['node']}: retry with more memory"


@dsl.component(base_image="python:3.12-slim")
def file_bug(failure: dict) -> str:
    """The training code raised: the exception and the lines before it, for the bug."""
    return failure["exception"] or "\n".join(failure["last_lines"])


@dsl.component(base_image="python:3.12-slim")
def evaluate(job_name: str) -> str:
    return f"{job_name} succeeded"


@dsl.component(base_image="python:3.12-slim")
def page_oncall(category: str, message: str):
    """Anything else (infrastructure: eviction, image, scheduling, ...): a person."""
    raise SystemExit(f"{category}: {message}")


@dsl.pipeline(name="jax-triage", description="Train, then act on why it failed")
def jax_triage(image: str = "ghcr.io/kubeflow/training-v1/jaxjob-dist-spmd-mnist:latest",
               workers: int = 4):
    step = jaxjob_launch(
        name_prefix="triage",
        run_id=dsl.PIPELINE_JOB_ID_PLACEHOLDER,
        task_name=dsl.PIPELINE_TASK_NAME_PLACEHOLDER,
        task_id=dsl.PIPELINE_TASK_ID_PLACEHOLDER,
        outcome="outputs",
        image=image,
        command=["python3", "spmd_mnist_classifier_fromscratch.py"],
        workers=workers,
    )
    step.set_caching_options(False)
    with dsl.If(step.outputs["failure_category"] == "oom"):
        more_memory(failure=step.outputs["failure"])
    with dsl.Elif(step.outputs["failure_category"] == "application"):
        file_bug(failure=step.outputs["failure"])
    with dsl.Elif(step.outputs["failure_category"] == ""):
        evaluate(job_name=step.outputs["job_name"])
    with dsl.Else():
        page_oncall(category=step.outputs["failure_category"], message=step.outputs["message"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="jax_triage_pipeline.yaml")
    args = ap.parse_args()
    compiler.Compiler().compile(jax_triage, args.output)


if __name__ == "__main__":
    main()
