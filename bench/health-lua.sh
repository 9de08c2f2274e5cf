#!/usr/bin/env bash
# bench/health-lua.sh - is our JAXJob Lua health check far inside Argo CD's
# 1 s per-evaluation limit on a big object? Compares with the C judge.
#
#   bench/health-lua.sh [JAXJOB-BINARY]      (default: build/jaxjob)
#
# The object: a JAXJob with 1,000 worker replicas, Running with 1,000 active,
# 1,000 per-worker annotations, and 1,000 extra condition entries of types
# the check ignores placed BEFORE the deciding ones (the check must walk them
# all; a real operator writes at most 6). About 300 KB of YAML.
# Measured (wall clock, this machine):
#   lua  eval    the script alone in the argocd-cm sandbox, object prebuilt
#                (lua5.1 os.clock over many rounds): what the 1 s limit covers
#                (Argo CD converts the object to Lua tables before that)
#   lua  process lua5.1 start + build the table from a literal + 1 evaluation
#   C    process `jaxjob health -f big.yaml`: start + YAML parse + judge
#   C    json    same with the object as JSON
# Prints a Markdown table (paste it into bench/README.md, section "health").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jaxjob=${1:-$top/build/jaxjob}
tmp=$(mktemp -d /tmp/health-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ROUNDS=${ROUNDS:-200}
RUNS=${RUNS:-20}

python3 - "$top" "$tmp" <<'PY'
import json, os, sys, yaml
top, tmp = sys.argv[1:]
sys.path.insert(0, os.path.join(top, "tests/tools"))
import health_vectors as hv
N = 1000
base = hv.load_yaml(os.path.join(top, "health-checks/kubeflow.org/JAXJob/testdata/running.yaml"))
base["metadata"]["annotations"] = {"example.com/worker-%04d-node" % i: "gpu-node-%04d.zone-b.example.com" % i for i in range(N)}
base["spec"]["jaxReplicaSpecs"]["Worker"]["replicas"] = N
noise = [{"type": "WorkerHeartbeat%04d" % i, "status": "True", "reason": "Heartbeat",
          "message": "worker %d reported step %d" % (i, 1000 + i),
          "lastTransitionTime": "2026-05-04T09:%02d:00Z" % (i % 60)} for i in range(N)]
base["status"]["conditions"] = noise + base["status"]["conditions"]
base["status"]["replicaStatuses"]["Worker"]["active"] = N
yaml.safe_dump(base, open(os.path.join(tmp, "big.yaml"), "w"), sort_keys=False)
json.dump(base, open(os.path.join(tmp, "big.json"), "w"))
small = hv.load_yaml(os.path.join(top, "health-checks/kubeflow.org/JAXJob/testdata/running.yaml"))
script = "health-checks/kubeflow.org/JAXJob/health.lua"
hv.write_vectors(os.path.join(tmp, "big.lua"), [{"name": "big", "script": script, "obj": base}])
hv.write_vectors(os.path.join(tmp, "small.lua"), [{"name": "small", "script": script, "obj": small}])
PY
cp "$top/health-checks/kubeflow.org/JAXJob/testdata/running.yaml" "$tmp/small.yaml"

runner=$top/tests/tools/lua_sandbox_runner.lua
cd "$top"
# Same verdict from both judges on the big object, or the numbers mean nothing.
lua_msg=$(lua5.1 "$runner" health "$tmp/big.lua" | head -1)
c_msg=$("$jaxjob" health -f "$tmp/big.yaml" || true)
case "$lua_msg" in *'"1000/1000 workers active"'*) ;; *) echo "lua verdict unexpected: $lua_msg" >&2; exit 1 ;; esac
[ "$c_msg" = "research/llm-pretrain: Progressing: 1000/1000 workers active" ] || { echo "C verdict unexpected: $c_msg" >&2; exit 1; }

per_eval() {	# seconds per evaluation, script only
	lua5.1 "$runner" bench "$1" "$ROUNDS" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); print("%.3f" % (1000*r["seconds"]/r["rounds"]))'
}
per_run() {	# ms per process run, mean of $RUNS
	python3 - "$RUNS" "$@" <<'PY'
import subprocess, sys, time
n = int(sys.argv[1]); cmd = sys.argv[2:]
t = time.perf_counter()
for _ in range(n):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.1f" % ((time.perf_counter() - t) * 1000 / n))
PY
}
size_big=$(wc -c <"$tmp/big.yaml")
echo "| object | lua eval (ms) | lua process (ms) | C process, YAML (ms) | C process, JSON (ms) |"
echo "|---|---|---|---|---|"
echo "| running.yaml ($(wc -c <"$tmp/small.yaml") B) | $(per_eval "$tmp/small.lua") | $(per_run lua5.1 "$runner" health "$tmp/small.lua") | $(per_run "$jaxjob" health -f "$tmp/small.yaml") | - |"
echo "| 1,000 workers ($size_big B) | $(per_eval "$tmp/big.lua") | $(per_run lua5.1 "$runner" health "$tmp/big.lua") | $(per_run "$jaxjob" health -f "$tmp/big.yaml") | $(per_run "$jaxjob" health -f "$tmp/big.json") |"
echo
echo "lua5.1 $(lua5.1 -v 2>&1 | head -1 | cut -d' ' -f2), $(nproc) CPUs, ROUNDS=$ROUNDS RUNS=$RUNS, binary $(basename "$jaxjob")"
