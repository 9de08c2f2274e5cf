"""The Kubeflow SDK's TrainerClient as a peer of `jaxjob launch --api trainjob`:
`kubeflow` (pinned in stack/versions.env, KUBEFLOW_SDK), used the way its docstrings
show for "create, follow every worker's log, wait, report", against Trainer v2 + JobSet
and the jax-distributed ClusterTrainingRuntime the stack installs. Run with the SDK's
venv (stack/venv.sh sdk).

    peer_trainer_sdk.py KUBECONFIG NAMESPACE NAME WORKERS [IMAGE] [SIM_ENV=VALUE...]

Exit 0 when the TrainJob is Complete, 1 when it Failed (wait_for_job_status raises
RuntimeError), 2 on the SDK's timeout, 3 when the SDK raised another RuntimeError (a log
read failed) before the verdict. Nothing is tuned: the SDK's defaults are what a
user gets, and what is measured (wait_for_job_status polls every 2 s; get_job_logs
follows one step per call, and returns nothing for a step whose pod is Pending).
"""
import sys

from kubeflow.common.types import KubernetesBackendConfig
from kubeflow.trainer import TrainerClient
from kubeflow.trainer.options import Name
from kubeflow.trainer.types.types import CustomTrainerContainer

import sdk_peer  # bench/sdk_peer.py: the command line and the ends they share


def main():
    kubeconfig, ns, name, workers, image, env = sdk_peer.args(sys.argv)
    client = TrainerClient(KubernetesBackendConfig(config_file=kubeconfig, namespace=ns))
    client.train(runtime="jax-distributed",
                 trainer=CustomTrainerContainer(image=image, num_nodes=workers, env=env or None),
                 options=[Name(name=name)])
    try:
        # follow the workers once they run (or the job has ended: a short job can end
        # between two polls, and "Running" is never seen again)
        client.wait_for_job_status(name, status={"Running", "Complete", "Failed"})
        # every worker: get_job_logs follows one step per call, node-0 by default
        steps = [s.name for s in client.get_job(name).steps if s.name.startswith("node-")]
        for step in steps:
            for line in client.get_job_logs(name, step=step, follow=True):
                print(f"[{step}] {line}", flush=False)
        sys.stdout.flush()
        client.wait_for_job_status(name)  # {"Complete"}; raises RuntimeError on Failed
    except RuntimeError as e:
        # wait_for_job_status's verdict ("TrainJob NAME is Failed") is exit 1; any other
        # RuntimeError of the SDK (a log read of a pod deleted under it: "Failed to read logs
        # for the pod ...") is what a user's script gets too, but not a verdict: exit 3
        return sdk_peer.raised(name, e, str(e) == f"TrainJob {name} is Failed")
    except TimeoutError as e:
        return sdk_peer.timed_out(name, e)
    print(f"{name}: Complete", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
