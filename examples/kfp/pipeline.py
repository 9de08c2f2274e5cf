"""A Kubeflow Pipelines (SDK v2) pipeline that trains with a 4-worker JAXJob,
branches on how the job ended, and always reports.

    python3 examples/kfp/pipeline.py                 # writes jax_mnist_pipeline.yaml
    python3 examples/kfp/pipeline.py --submit HOST   # also starts a run on HOST

(Needs the KFP SDK: pip install kfp kfp-kubernetes.)

The training step is the jaxjob component (component/component.yaml). What
each choice below relies on in KFP's backend is in component/README.md,
section "Kubeflow Pipelines v2":

- Naming: KFP fills a placeholder such as dsl.PIPELINE_JOB_ID_PLACEHOLDER only
  when it is the *whole* value of an input, so the name is never built with an
  f-string here. The step gets name_prefix="mnist" and the run id and task as
  inputs of their own, and names the job mnist-<10 hex> from them: unique per
  run, the same for every retry of this task.
- Identity: the same run_id / task_name / task_id make the launch identity, so
  a retried attempt (a new pod) re-attaches to the JAXJob the first attempt
  created instead of creating a second one.
- GPUs: gpus_per_worker goes to the JAXJob's workers; the step itself is a
  small client and needs none.
- Queues: local_queue="team-a" submits the job to a Kueue LocalQueue (the
  label kueue.x-k8s.io/queue-name on the job); queue="..." is something else,
  the Volcano gang-scheduling queue (runPolicy.schedulingPolicy.queue).
- Outcome: outcome="outputs" makes a Failed, timed-out or cancelled job end
  the step with exit 0 and the outcome in the outputs, because KFP hands
  outputs on only from a step that exits 0. dsl.If branches on the state; the
  ExitHandler's task runs whatever happened, even when the step failed.
- Retries: set_retry retries a step whose command exits non-zero. With
  outcome="outputs" that is no longer a genuinely Failed job (exit 0) but a
  lost pod (node failure, OOM kill: the retry re-attaches) or an API error
  (exit 4). A step pod stopped with SIGTERM (run terminated, pod evicted)
  ends Cancelled, exit 0: not retried.
- Service account: KFP runs every pod of a run (its drivers, launchers and
  Argo's executors too) as the run's service account, chosen when the run is
  created (below, or in the UI); there is no per-task setting. So bind the
  Role of examples/rbac.yaml to the account runs use, pipeline-runner (or a
  profile's default-editor), which already has what KFP's own pods need.

On a cluster with Kubeflow Trainer v2 instead of the Training Operator, run
the same pipeline with api="trainjob" (a TrainJob on the jax-distributed
runtime from the same inputs; api="auto" asks the cluster).
"""
import argparse
import os

from kfp import compiler, components, dsl

HERE = os.path.dirname(os.path.abspath(__file__))
jaxjob_launch = components.load_component_from_file(
    os.path.join(HERE, "..", "..", "component", "component.yaml"))

# the service account of the run: every pod of it runs as this account (bind
# examples/rbac.yaml's Role to it, see component/README.md)
SERVICE_ACCOUNT = "pipeline-runner"


@dsl.component(base_image="python:3.12-slim")
def evaluate(job_name: str, duration: float, worker_counts: dict,
             metrics: dsl.Input[dsl.Metrics]) -> str:
    """Runs only when the job Succeeded. `metrics` is the step's system.Metrics
    artifact: its metadata holds the scalars the UI shows (test_accuracy,
    test_accuracy.min, ..., from the step's metric_patterns)."""
    accuracy = metrics.metadata.get("test_accuracy")
    return (f"{job_name}: trained in {duration:.0f}s on {worker_counts['replicas']} workers, "
            f"test accuracy {accuracy}")


@dsl.component(base_image="python:3.12-slim")
def report_failure(state: str, reason: str, message: str, exit_code: int, summary: str):
    """Runs when the job Failed, timed out, was cancelled or got stuck."""
    print(summary)
    raise SystemExit(f"training ended {state} ({reason}, code {exit_code}): {message}")


@dsl.component(base_image="python:3.12-slim")
def notify(status: dsl.PipelineTaskFinalStatus):
    """The exit task: runs after everything else, whatever happened."""
    print(f"run {status.pipeline_job_resource_name}: {status.state}"
          f" {status.error_message or ''}")


def train(image: str, workers: int, gpus_per_worker: int, timeout: str, api: str):
    """The training step, set up for retries and for branching on its outcome."""
    step = jaxjob_launch(
        # naming and identity: whole-value inputs only (see the docstring)
        name_prefix="mnist",
        run_id=dsl.PIPELINE_JOB_ID_PLACEHOLDER,
        task_name=dsl.PIPELINE_TASK_NAME_PLACEHOLDER,
        task_id=dsl.PIPELINE_TASK_ID_PLACEHOLDER,
        outcome="outputs",
        api=api,
        image=image,
        # inputs are typed as you would pass them: lists, dicts, numbers
        command=["python3", "spmd_mnist_classifier_fromscratch.py"],
        env=[{"name": "XLA_FLAGS", "value": "--xla_force_host_platform_device_count=2"}],
        workers=workers,
        gpus_per_worker=gpus_per_worker,   # 0 = CPU only; 1 = one nvidia.com/gpu per worker
        # let the workers onto GPU nodes (tainted nvidia.com/gpu:NoSchedule on most clusters)
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        cpu="2",
        memory="4Gi",
        timeout=timeout,
        delete_after="success",
        on_cancel="delete",
        fail_fast_after="5m",
        # the example prints "Epoch 3 in 0.81 sec", "Training set accuracy 0.97" and
        # "Test set accuracy 0.96": built-in recognition would merge both accuracies into
        # one "accuracy", so name each with a pattern of its own, one per line (one
        # string: KFP passes an input as one argument); "step" names the counter
        metrics_mode="patterns",
        metric_patterns="""
            step=^Epoch ([0-9]+) in
            epoch_s=^Epoch [0-9]+ in ([0-9.]+) sec
            train_accuracy=^Training set accuracy ([0-9.]+)
            test_accuracy=^Test set accuracy ([0-9.]+)
        """,
    )
    step.set_display_name("train (JAX)")
    # a lost pod or an API error: retried, and the retry re-attaches
    step.set_retry(num_retries=2, backoff_duration="30s", backoff_factor=2)
    step.set_caching_options(False)         # a training run is not a cacheable function
    return step


@dsl.pipeline(name="jax-mnist", description="Distributed JAX training as a JAXJob")
def jax_mnist(image: str = "ghcr.io/kubeflow/training-v1/jaxjob-dist-spmd-mnist:latest",
              workers: int = 4,
              gpus_per_worker: int = 0,
              timeout: str = "2h",
              api: str = "jaxjob"):
    with dsl.ExitHandler(notify()):
        step = train(image, workers, gpus_per_worker, timeout, api)
        with dsl.If(step.outputs["state"] == "Succeeded"):
            evaluate(job_name=step.outputs["job_name"],
                     duration=step.outputs["duration"],
                     worker_counts=step.outputs["worker_counts"],
                     metrics=step.outputs["metrics"])
        with dsl.Else():
            report_failure(state=step.outputs["state"],
                           reason=step.outputs["reason"],
                           message=step.outputs["message"],
                           exit_code=step.outputs["exit_code"],
                           summary=step.outputs["summary"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="jax_mnist_pipeline.yaml")
    ap.add_argument("--submit", metavar="HOST", help="also start a run on this KFP API server")
    ap.add_argument("--service-account", default=SERVICE_ACCOUNT,
                    help="the run's service account (default %(default)s)")
    args = ap.parse_args()
    compiler.Compiler().compile(jax_mnist, args.output)
    if args.submit:
        import kfp
        # the service account is chosen per run (the UI has the same field)
        kfp.Client(host=args.submit).create_run_from_pipeline_func(
            jax_mnist, arguments={"workers": 4}, service_account=args.service_account)


if __name__ == "__main__":
    main()
