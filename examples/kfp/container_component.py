"""The jaxjob step written in Python with @dsl.container_component, for authors
who prefer that to component/component.yaml. Same binary, same flags; only the
inputs this pipeline needs are exposed.

    python3 examples/kfp/container_component.py     # writes jax_sweep_pipeline.yaml

It shows the other way to give the step its run: instead of a run_id input,
the run id comes from the pod label pipeline/runid, which KFP's API server puts
on every pod of a run, mapped into KFP_RUN_ID through the downward API
(kfp.kubernetes.use_field_path_as_env). The task id (KFP's DAG execution id,
dsl.PIPELINE_TASK_ID_PLACEHOLDER) tells the ParallelFor iterations apart, so
each learning rate gets its own JAXJob, named sweep-<10 hex>, which a retry of
that iteration re-attaches to.

Run it with the service account of examples/rbac.yaml, chosen per run
(kfp.Client().create_run_from_pipeline_func(..., service_account=...) or the
UI): KFP has no per-task service account.
"""
import argparse

from kfp import compiler, dsl, kubernetes


@dsl.container_component
def jaxjob_launch(image: str, workers: int, gpus_per_worker: int, learning_rate: str,
                  task_name: str, task_id: str,
                  state: dsl.OutputPath(str), reason: dsl.OutputPath(str),
                  job_name: dsl.OutputPath(str), exit_code: dsl.OutputPath(int),
                  worker_counts: dsl.OutputPath(dict), summary: dsl.OutputPath(str)):
    return dsl.ContainerSpec(
        image="jaxjob:0.1.0",
        command=["/usr/local/bin/jaxjob", "launch"],
        args=[
            # name and identity from the run (KFP_RUN_ID, below) and the task
            "--name-prefix", "sweep",
            "--task-name", task_name,
            "--task-id", task_id,
            "--outcome", "outputs",
            "--image", image,
            "--workers", workers,
            "--gpus-per-worker", gpus_per_worker,
            # the launcher joins this at run time (a ConcatPlaceholder, not
            # string concatenation, which the SDK cannot do on a placeholder)
            "--env", dsl.ConcatPlaceholder(["LEARNING_RATE=", learning_rate]),
            "--timeout", "1h",
            "--delete-after", "success",
            "--out-state", state,
            "--out-reason", reason,
            "--out-job-name", job_name,
            "--out-exit-code", exit_code,
            "--out-workers", worker_counts,
            "--out-summary", summary,
            "--", "python3", "train.py",
        ])


@dsl.component(base_image="python:3.12-slim")
def collect(states: list) -> str:
    return ", ".join(states)


@dsl.pipeline(name="jax-sweep", description="A learning-rate sweep, one JAXJob per value")
def jax_sweep(image: str = "ghcr.io/example/jax-train:1", workers: int = 2,
              gpus_per_worker: int = 1):
    with dsl.ParallelFor(["0.1", "0.01", "0.001"]) as lr:
        step = jaxjob_launch(image=image, workers=workers, gpus_per_worker=gpus_per_worker,
                             learning_rate=lr,
                             task_name=dsl.PIPELINE_TASK_NAME_PLACEHOLDER,
                             task_id=dsl.PIPELINE_TASK_ID_PLACEHOLDER)
        kubernetes.use_field_path_as_env(step, env_name="KFP_RUN_ID",
                                         field_path="metadata.labels['pipeline/runid']")
        step.set_retry(num_retries=2, backoff_duration="30s")
        step.set_caching_options(False)
    collect(states=dsl.Collected(step.outputs["state"]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="jax_sweep_pipeline.yaml")
    compiler.Compiler().compile(jax_sweep, ap.parse_args().output)
