#!/usr/bin/python3
"""bench/sim_operator.py - the training operator's and the kubelet's part for
one JAXJob on the real control plane (../shared/tools/kube-control-plane),
minimal: what a launcher needs to see to follow a job to its end.

    sim_operator.py NS NAME WORKERS [--lines N] [--outcome Succeeded|Failed]
                    [--stuck K] [--run-s S] [--wait-s S] [--ready-file F]
                    [--verdict-delay-s S]

Reads the control plane's env from the environment (source $KCP_DIR/env):
KUBE_SERVER, KUBE_CA, KUBE_TOKEN_FILE, FAKE_KUBELET_LOG_ROOT, FAKE_NODE.

  1. waits (a watch) for the JAXJob NS/NAME to be created by whoever
     launches it;
  2. creates WORKERS pods as the operator names and labels them
     (NAME-worker-I, training.kubeflow.org/{job-name,replica-type,
     replica-index}, controller ownerReference), bound to the fake node;
  3. writes each worker's log (N lines "NAME worker I line J") where the
     stub kubelet serves it, marks the containers running (pods/status)
     and the job Created + Running (jaxjobs/status);
  4. after --run-s: Succeeded: every container terminates with 0 (log
     file marked exited, pod Succeeded), then the job gets Succeeded.
     Failed: worker 0 exits 1, workers 1..K (--stuck, default all others)
     stay running with their log stream open ("stuck in a collective");
     the remaining ones exit 0; then the job gets Failed.
     With --verdict-delay-s S the terminal status is written S seconds
     after the pods' (a real operator's next reconcile writes it 100 ms to
     seconds after the pod failed); default 0: at once.

Prints one JSON line: {"seen": <time.time() the job's ADDED event came>,
"decided": <time.time() when the terminal status PATCH was sent>, "uid": ...,
"lines": N*WORKERS}. realsrv's tests/realserver/operator.py is the full
operator (SIM_* scenarios, restarts, TrainJobs); this one exists for the
bench because it knows the exact moment the verdict is written and has
failures with survivors that never exit (bench/launch-real.sh).
"""
import argparse
import datetime
import http.client
import json
import os
import ssl
import sys
import time
import urllib.parse

GROUP = "/apis/kubeflow.org/v1"
UA = "sim-operator/bench"    # the bench tells its requests from the launcher's by this


class Api:
    def __init__(self):
        u = urllib.parse.urlparse(os.environ["KUBE_SERVER"])
        self.host, self.port = u.hostname, u.port
        self.ctx = ssl.create_default_context(cafile=os.environ["KUBE_CA"])
        with open(os.environ["KUBE_TOKEN_FILE"]) as f:
            self.token = f.read().strip()
        self.conn = None

    def _conn(self):
        if self.conn is None:
            self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)
        return self.conn

    def call(self, method, path, body=None, ctype="application/json"):
        data = json.dumps(body).encode() if body is not None else None
        hdr = {"Authorization": "Bearer " + self.token, "Accept": "application/json",
               "User-Agent": UA}
        if data is not None:
            hdr["Content-Type"] = ctype
        for attempt in range(3):
            try:
                c = self._conn()
                c.request(method, path, body=data, headers=hdr)
                r = c.getresponse()
                out = r.read()
                if r.status >= 300:
                    raise RuntimeError(f"{method} {path}: {r.status} {out[:300]!r}")
                return json.loads(out or b"null")
            except (http.client.HTTPException, OSError):
                self.conn = None
                if attempt == 2:
                    raise

    def wait_created(self, ns, name, timeout_s, ready_file=None):
        """The job's ADDED event (a watch on its own connection); ready_file
        is created once the watch is open (the bench starts the tool then)."""
        c = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout_s)
        sel = urllib.parse.quote(f"metadata.name={name}")
        c.request("GET", f"{GROUP}/namespaces/{ns}/jaxjobs?watch=1&fieldSelector={sel}",
                  headers={"Authorization": "Bearer " + self.token, "User-Agent": UA})
        r = c.getresponse()
        if r.status != 200:
            raise RuntimeError(f"watch jaxjobs: {r.status}")
        if ready_file:
            open(ready_file, "w").close()
        while True:
            line = r.readline()
            if not line:
                raise RuntimeError("watch ended before the job was created")
            ev = json.loads(line)
            if ev.get("type") == "ADDED":
                t = time.time()
                c.close()
                return ev["object"], t


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def cond(typ, reason, msg):
    t = now_rfc3339()
    return {"type": typ, "status": "True", "reason": reason, "message": msg,
            "lastUpdateTime": t, "lastTransitionTime": t}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ns")
    ap.add_argument("name")
    ap.add_argument("workers", type=int)
    ap.add_argument("--lines", type=int, default=100)
    ap.add_argument("--outcome", choices=["Succeeded", "Failed"], default="Succeeded")
    ap.add_argument("--stuck", type=int, default=-1)
    ap.add_argument("--run-s", type=float, default=0.5)
    ap.add_argument("--wait-s", type=float, default=60)
    ap.add_argument("--ready-file")
    ap.add_argument("--verdict-delay-s", type=float, default=0.0)
    a = ap.parse_args()
    api = Api()
    job, seen = api.wait_created(a.ns, a.name, a.wait_s, a.ready_file)
    uid = job["metadata"]["uid"]
    node = os.environ.get("FAKE_NODE", "fake-node")
    logroot = os.environ["FAKE_KUBELET_LOG_ROOT"]
    image = "ghcr.io/x/jax:1"
    try:
        c0 = job["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
        image = c0.get("image", image)
    except (KeyError, IndexError, TypeError):
        pass
    owner = [{"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "name": a.name, "uid": uid,
              "controller": True, "blockOwnerDeletion": True}]
    pods = []
    for i in range(a.workers):
        pod = f"{a.name}-worker-{i}"
        pods.append(pod)
        d = os.path.join(logroot, a.ns, pod)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "jax.log"), "w") as f:
            for j in range(a.lines):
                f.write(f"{a.name} worker {i} line {j}\n")
        api.call("POST", f"/api/v1/namespaces/{a.ns}/pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": pod, "namespace": a.ns, "ownerReferences": owner, "labels": {
                "training.kubeflow.org/job-name": a.name,
                "training.kubeflow.org/operator-name": "jaxjob-controller",
                "training.kubeflow.org/replica-type": "worker",
                "training.kubeflow.org/replica-index": str(i)}},
            "spec": {"nodeName": node, "restartPolicy": "Never",
                     "containers": [{"name": "jax", "image": image}]}})
    started = now_rfc3339()

    def pod_status(i, phase, state, ready):
        api.call("PATCH", f"/api/v1/namespaces/{a.ns}/pods/{pods[i]}/status", {"status": {
            "phase": phase, "hostIP": "127.0.0.1", "podIP": f"10.0.{i // 250}.{i % 250 + 1}",
            "startTime": started,
            "containerStatuses": [{"name": "jax", "image": image, "imageID": image,
                                   "containerID": f"containerd://{uid[:8]}{i:04d}",
                                   "ready": ready, "restartCount": 0, "started": ready,
                                   "state": state}]}},
            "application/merge-patch+json")

    for i in range(a.workers):
        pod_status(i, "Running", {"running": {"startedAt": started}}, True)
    job_status = {"startTime": started, "conditions": [
        cond("Created", "JAXJobCreated", f"JAXJob {a.name} is created."),
        cond("Running", "JAXJobRunning", f"JAXJob {a.ns}/{a.name} is running.")],
        "replicaStatuses": {"Worker": {"active": a.workers}}}
    api.call("PATCH", f"{GROUP}/namespaces/{a.ns}/jaxjobs/{a.name}/status", {"status": job_status},
             "application/merge-patch+json")
    time.sleep(a.run_s)

    def exit_worker(i, code):
        open(os.path.join(logroot, a.ns, pods[i], "jax.log.exited"), "w").close()
        fin = now_rfc3339()
        pod_status(i, "Succeeded" if code == 0 else "Failed",
                   {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error",
                                   "startedAt": started, "finishedAt": fin}}, False)

    if a.outcome == "Succeeded":
        for i in range(a.workers):
            exit_worker(i, 0)
        last = cond("Succeeded", "JAXJobSucceeded", f"JAXJob {a.ns}/{a.name} successfully completed.")
        rs = {"Worker": {"succeeded": a.workers}}
    else:
        stuck = a.workers - 1 if a.stuck < 0 else min(a.stuck, a.workers - 1)
        exit_worker(0, 1)
        for i in range(1 + stuck, a.workers):
            exit_worker(i, 0)
        last = cond("Failed", "JAXJobFailed", f"JAXJob {a.ns}/{a.name} has failed because 1 Worker replica(s) failed.")
        rs = {"Worker": {"failed": 1, "active": stuck, "succeeded": a.workers - 1 - stuck}}
    job_status["conditions"][1]["status"] = "False"
    job_status["conditions"].append(last)
    job_status["completionTime"] = now_rfc3339()
    job_status["replicaStatuses"] = rs
    if a.verdict_delay_s > 0:
        time.sleep(a.verdict_delay_s)
    decided = time.time()
    api.call("PATCH", f"{GROUP}/namespaces/{a.ns}/jaxjobs/{a.name}/status", {"status": job_status},
             "application/merge-patch+json")
    print(json.dumps({"seen": seen, "decided": decided, "uid": uid, "lines": a.lines * a.workers}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
