#!/usr/bin/python3
"""tests/tools/crd_corpus.py - the client-side CRD check against the real API server.

    crd_corpus.py CASES.yaml JAXJOB WORKDIR [--server URL --ca FILE --token-file FILE]
    crd_corpus.py --create FILE --server URL --ca FILE --token-file FILE

For each case of CASES.yaml (format in its header) the object is written as a
plain manifest into an app directory and rendered by `JAXJOB render` (the
client: one `error: FILE: job NAME: PATH ...` line when refused). With a
server, the same object (render's output when accepted) is created with
server-side dry-run (`?dryRun=All`): a 422's causes name the fields it
refuses. Checks, one TAP line per case:
  - the client's verdict is the case's (`refused: PATH` or accepted), and a
    refusal names PATH first;
  - with a server: accepted by the client -> created by the server (dry-run,
    201); refused -> refused by the server with a cause on PATH (`[Worker]`
    written `.Worker`), or, for `server: prune`, created with PATH dropped,
    or, for `server: pod`, a dry-run Pod with the template's spec refused
    with a cause on the pod's part of PATH.
"""
import copy
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

import yaml


def merge(base, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(base) if isinstance(base, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge(out.get(k), v)
    return out


def expand(o):
    """"@N" stands for a string of N bytes (large annotations)."""
    if isinstance(o, dict):
        return {k: expand(v) for k, v in o.items()}
    if isinstance(o, list):
        return [expand(v) for v in o]
    if isinstance(o, str) and re.fullmatch(r"@\d+", o):
        return "x" * int(o[1:])
    return o


def related(a, b):
    """The same field, or one inside the other (the server may name a
    map where the client names its key, or the reverse)."""
    return a == b or any(x.startswith(y + sep) for x, y in ((a, b), (b, a)) for sep in ".[")


def norm(path):
    return re.sub(r"\[([^\]0-9][^\]]*)\]", r".\1", path or "")


class Server:
    def __init__(self, url, ca, token_file):
        self.url = url
        self.ctx = ssl.create_default_context(cafile=ca)
        self.token = open(token_file).read().strip()

    def create(self, path, obj):
        req = urllib.request.Request(self.url + path + "?dryRun=All", method="POST",
                                     data=json.dumps(obj).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + self.token})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)


def resource_path(obj):
    g, v = obj["apiVersion"].split("/")
    plural = obj["kind"].lower() + "s"
    return f"/apis/{g}/{v}/namespaces/{obj['metadata'].get('namespace', 'default')}/{plural}"


def lookup(obj, path):
    """The value at a client path, or KeyError."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        obj = obj[int(part[1:-1])] if part.startswith("[") else obj[part]
    return obj


def client(jaxjob, work, name, obj):
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "case.jaxjob.yaml"), "w") as f:
        json.dump(obj, f)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "HOME")}
    env.update(ARGOCD_APP_NAMESPACE="default", ARGOCD_APP_REVISION="0" * 40)
    p = subprocess.run([jaxjob, "render"], cwd=d, env=env, capture_output=True, text=True, timeout=60)
    if p.returncode == 0:
        docs = [x for x in yaml.safe_load_all(p.stdout) if x]
        return None, docs[0] if docs else None, p
    m = re.match(r"error: case\.jaxjob\.yaml: (?:job [^:]*: )?(\S+)", p.stderr)
    return (m.group(1) if m else "?"), None, p


def create_all(args):
    """--create FILE: every document of a YAML stream is created (dry-run)."""
    f = args[1]
    opt = dict(zip(args[2::2], args[3::2]))
    srv = Server(opt["--server"], opt["--ca"], opt["--token-file"])
    n = 0
    for doc in yaml.safe_load_all(open(f)):
        if not doc:
            continue
        code, body = srv.create(resource_path(doc), doc)
        if code != 201:
            print(f"{doc['kind']} {doc['metadata']['name']}: {code} {body.get('message', '')[:400]}")
            return 1
        n += 1
    print(f"{n} object(s) created")
    return 0 if n else 1


def main():
    args = sys.argv[1:]
    if args and args[0] == "--create":
        return create_all(args)
    cases_file, jaxjob, work = args[:3]
    srv = None
    if "--server" in args:
        opt = dict(zip(args[3::2], args[4::2]))
        srv = Server(opt["--server"], opt["--ca"], opt["--token-file"])
    spec = yaml.safe_load(open(cases_file))
    failed = 0
    for c in spec["cases"]:
        obj = expand(c["object"]) if "object" in c else expand(merge(spec["bases"][c["base"]], c["patch"]))
        want = c.get("refused")
        got, rendered, p = client(jaxjob, work, c["name"], obj)
        problems = []
        if p.returncode not in (0, 2) or (p.returncode == 2 and (p.stdout or p.stderr.count("\n") != 1)):
            problems.append(f"client: exit {p.returncode}, {len(p.stdout)} bytes out, stderr {p.stderr[:300]!r}")
        elif want is None and got is not None:
            problems.append(f"client refused it: {p.stderr.strip()[:300]}")
        elif want is not None and got != want:
            problems.append(f"client: want refusal on {want}, got {got!r}: {p.stderr.strip()[:300]}")
        if srv and not problems:
            mode = c.get("server", "crd")
            if want is None:
                code, body = srv.create(resource_path(rendered), rendered)
                if code != 201:
                    problems.append(f"server refused what the client accepts: {code} {body.get('message', '')[:300]}")
            elif mode == "crd":
                code, body = srv.create(resource_path(obj), obj)
                causes = (body.get("details") or {}).get("causes", [])
                # a root CEL rule has no field; its message names the path
                fields = [norm(x.get("field")) if x.get("field") not in (None, "<nil>") else
                          (want if want in x.get("message", "") else "<nil>") for x in causes]
                if code != 422:
                    problems.append(f"server: want 422 on {want}, got {code}")
                elif not any(related(norm(want), f) for f in fields):
                    problems.append(f"server refused on {fields}, client on {want}: {body.get('message', '')[:300]}")
            elif mode == "operator":
                # our own rule, stricter than the server (the case says why):
                # the server accepting it shows the rule is not redundant
                code, body = srv.create(resource_path(obj), obj)
                if code != 201 or not c.get("why"):
                    problems.append(f"operator rule: want the server to accept it (and a why), got {code}")
            elif mode == "prune":
                code, body = srv.create(resource_path(obj), obj)
                try:
                    lookup(body, want)
                    problems.append(f"server kept {want} (code {code}); the client should not refuse it")
                except (KeyError, IndexError, TypeError):
                    if code != 201:
                        problems.append(f"server: want 201 with {want} pruned, got {code}")
            elif mode == "pod":
                head, _, tail = want.partition(".template.spec.")
                tmpl = lookup(obj, head + ".template")
                pod = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "corpus", "namespace": obj["metadata"].get("namespace", "default")},
                       "spec": tmpl["spec"]}
                code, body = srv.create(f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods", pod)
                fields = [norm(x.get("field")) for x in (body.get("details") or {}).get("causes", [])]
                if code != 422 or not any(related("spec." + tail, f) for f in fields):
                    problems.append(f"dry-run Pod: want 422 on spec.{tail}, got {code} {fields}")
        if problems:
            failed += 1
            print(f"not ok - corpus {c['name']}: " + "; ".join(problems))
        else:
            verdict = f"refused on {want}" if want else "accepted"
            by = f", server agrees ({c.get('server', 'crd')})" if srv else ""
            print(f"ok - corpus {c['name']}: client {verdict}{by}")
    return 1 if failed else 0


sys.exit(main())
