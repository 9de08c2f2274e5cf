"""A Kubeflow Pipelines (SDK v2) pipeline that trains with a 4-worker JAXJob and
hands the job's outcome to the next step.

    pip install kfp kfp-kubernetes
    python examples/kfp/pipeline.py          # writes jax_mnist_pipeline.yaml

The training step is the jaxjob component (component/component.yaml): it
creates the JAXJob, streams every worker's log into the step's log, waits
until the job Succeeds or Fails and exits with a code that says how it ended.
If the step is retried (set_retry below) it re-attaches to the JAXJob it
already created instead of starting a second one: KFP v2 runs on Argo
Workflows, whose ARGO_WORKFLOW_NAME is the same for every attempt of a run.
If the run is terminated, the step deletes the JAXJob (on_cancel="delete").

On a cluster with Kubeflow Trainer v2 instead of the Training Operator, run
the same pipeline with api="trainjob": the step creates a TrainJob on the
jax-distributed runtime from the same inputs (api="auto" asks the cluster).

The step's pod runs as the jaxjob-launcher service account from
examples/rbac.yaml (kubectl apply -f examples/rbac.yaml in the run's namespace).
"""
import os

from kfp import compiler, components, dsl
from kfp import kubernetes

HERE = os.path.dirname(os.path.abspath(__file__))
jaxjob_launch = components.load_component_from_file(
    os.path.join(HERE, "..", "..", "component", "component.yaml"))


@dsl.component(base_image="python:3.12-slim")
def report(state: str, reason: str, duration: str, workers: dict, summary: str) -> str:
    """Runs after the training step: prints the Markdown summary and
    returns a one-line verdict for the UI."""
    print(summary)
    return f"{state} ({reason}) after {duration}s; workers: {workers}"


@dsl.pipeline(name="jax-mnist", description="Distributed JAX training as a JAXJob")
def jax_mnist(image: str = "ghcr.io/kubeflow/training-v1/jaxjob-dist-spmd-mnist:latest",
              workers: int = 4,
              gpus_per_worker: str = "",
              timeout: str = "2h",
              api: str = "jaxjob"):
    train = jaxjob_launch(
        # unique per run, DNS-1035, short enough for {name}-worker-{i} Services
        name=f"mnist-{dsl.PIPELINE_JOB_ID_PLACEHOLDER}",
        api=api,
        image=image,
        command='["python3", "spmd_mnist_classifier_fromscratch.py"]',
        env='{"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}',
        workers=workers,
        gpus_per_worker=gpus_per_worker,
        cpu="2",
        memory="4Gi",
        timeout=timeout,
        delete_after="success",
        on_cancel="delete",
        fail_fast_after="5m",
    )
    train.set_display_name("train (JAX)")
    train.set_retry(num_retries=2)          # a retry re-attaches, never duplicates
    train.set_caching_options(False)        # a training run is not a cacheable function
    kubernetes.set_service_account_name(train, "jaxjob-launcher")

    report(
        state=train.outputs["state"],
        reason=train.outputs["reason"],
        duration=train.outputs["duration"],
        workers=train.outputs["workers"],
        summary=train.outputs["summary"],
    )


if __name__ == "__main__":
    compiler.Compiler().compile(jax_mnist, "jax_mnist_pipeline.yaml")
