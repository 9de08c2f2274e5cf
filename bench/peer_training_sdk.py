"""The Kubeflow training operator's own SDK as a peer of `jaxjob launch`:
`kubeflow-training` (TrainingClient, pinned in stack/versions.env), used the
way its docstrings and the Kubeflow docs show for "create, follow the logs,
wait, report". Run with the SDK's venv (stack/venv.sh sdk).

    peer_training_sdk.py KUBECONFIG NAMESPACE NAME WORKERS [IMAGE] [SIM_ENV=VALUE...]

Exit 0 when the JAXJob Succeeded, 1 when it Failed (the SDK raises
RuntimeError), 2 on a timeout, 3 on another RuntimeError of the SDK (not a verdict).
Nothing is tuned: the SDK's defaults (wait_for_job_conditions polls every 15 s,
get_job_logs follows the pods that are not Pending when it is called) are what a user
gets, and what is measured.
"""
import sys

from kubernetes import client as k8s
from kubeflow.training import TrainingClient, models

import sdk_peer  # bench/sdk_peer.py: the command line and the ends they share


def jaxjob(name, ns, workers, image, env):
    container = k8s.V1Container(
        name="jax", image=image, command=["python", "train.py"],
        env=[k8s.V1EnvVar(name=k, value=v) for k, v in env.items()])
    replica = models.KubeflowOrgV1ReplicaSpec(
        replicas=workers, restart_policy="Never",
        template=k8s.V1PodTemplateSpec(spec=k8s.V1PodSpec(containers=[container])))
    return models.KubeflowOrgV1JAXJob(
        api_version="kubeflow.org/v1", kind="JAXJob",
        metadata=k8s.V1ObjectMeta(name=name, namespace=ns),
        # the generated model requires run_policy (ValueError without it), as its examples pass
        spec=models.KubeflowOrgV1JAXJobSpec(run_policy=models.KubeflowOrgV1RunPolicy(clean_pod_policy="None"),
                                            jax_replica_specs={"Worker": replica}))


def main():
    kubeconfig, ns, name, workers, image, env = sdk_peer.args(sys.argv)
    tc = TrainingClient(config_file=kubeconfig, namespace=ns, job_kind="JAXJob")
    tc.create_job(job=jaxjob(name, ns, workers, image, env))
    try:
        # logs of every worker (is_master=False), once the job runs
        tc.wait_for_job_conditions(name, expected_conditions={"Running", "Succeeded", "Failed"})
        tc.get_job_logs(name, is_master=False, follow=True)
        tc.wait_for_job_conditions(name)  # {"Succeeded"}; raises RuntimeError on Failed
    except RuntimeError as e:
        # wait_for_job_conditions' verdict ("JAXJob NS/NAME is Failed. ...") is exit 1; another
        # RuntimeError of the SDK (a read that failed) is not a verdict: exit 3
        return sdk_peer.raised(name, e, f"JAXJob {ns}/{name} is Failed" in str(e))
    except TimeoutError as e:
        return sdk_peer.timed_out(name, e)
    print(f"{name}: Succeeded", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
