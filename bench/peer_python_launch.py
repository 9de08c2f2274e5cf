#!/usr/bin/python3
"""The peer of `jaxjob launch` for bench/launch.sh: the same create-and-wait
through the official Kubernetes Python client (Debian's python3-kubernetes),
written the way a careful Python launcher would be - a watch, not a poll, and
one log-follow thread per worker (as the Kubeflow TrainingClient's
get_job_logs does), lines prefixed [worker-N].

    peer_python_launch.py KUBECONFIG NAMESPACE NAME WORKERS [SIM_ENV=VALUE...]

Exit 0 when the JAXJob Succeeded, 1 when it Failed. No outputs, no cleanup,
no re-attach, no fail-fast: it is a lower bound of the work a Python step does.
"""
import sys
import threading

from kubernetes import client, config, watch

GROUP, VERSION, PLURAL = "kubeflow.org", "v1", "jaxjobs"


def manifest(name, ns, workers, env):
    return {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "JAXJob",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"jaxReplicaSpecs": {"Worker": {
            "replicas": workers, "restartPolicy": "Never",
            "template": {"spec": {"containers": [{
                "name": "jax", "image": "ghcr.io/x/jax:1", "command": ["python", "train.py"],
                "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}},
    }


def finished(job):
    for c in (job.get("status") or {}).get("conditions") or []:
        if c.get("status") == "True" and c.get("type") in ("Succeeded", "Failed"):
            return c["type"]
    return None


def follow(core, ns, pod, index, out_lock):
    resp = core.read_namespaced_pod_log(pod, ns, container="jax", follow=True, _preload_content=False)
    buf = b""
    for chunk in resp.stream(4096):
        buf += chunk
        *lines, buf = buf.split(b"\n")
        with out_lock:
            for line in lines:
                sys.stdout.write(f"[worker-{index}] {line.decode(errors='replace')}\n")
            sys.stdout.flush()


def follow_pods(core, ns, name, stop, out_lock):
    started = set()
    w = watch.Watch()
    for ev in w.stream(core.list_namespaced_pod, ns, label_selector=f"training.kubeflow.org/job-name={name}"):
        pod = ev["object"]
        if stop.is_set():
            w.stop()
            break
        st = (pod.status.container_statuses or [None])[0]
        if pod.metadata.uid in started or not st or not (st.state.running or st.state.terminated):
            continue
        started.add(pod.metadata.uid)
        idx = pod.metadata.labels.get("training.kubeflow.org/replica-index", "?")
        threading.Thread(target=follow, args=(core, ns, pod.metadata.name, idx, out_lock), daemon=True).start()


def main():
    kubeconfig, ns, name, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    env = dict(a.split("=", 1) for a in sys.argv[5:])
    config.load_kube_config(kubeconfig)
    api = client.CustomObjectsApi()
    core = client.CoreV1Api()
    api.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, manifest(name, ns, workers, env))
    stop = threading.Event()
    out_lock = threading.Lock()
    threading.Thread(target=follow_pods, args=(core, ns, name, stop, out_lock), daemon=True).start()
    w = watch.Watch()
    verdict = None
    for ev in w.stream(api.list_namespaced_custom_object, GROUP, VERSION, ns, PLURAL,
                       field_selector=f"metadata.name={name}"):
        verdict = finished(ev["object"])
        if verdict:
            w.stop()
            break
    stop.set()
    print(f"{name}: {verdict}", file=sys.stderr)
    sys.stdout.flush()
    return 0 if verdict == "Succeeded" else 1


if __name__ == "__main__":
    sys.exit(main())
