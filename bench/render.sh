#!/usr/bin/env bash
# bench/render.sh [BINARY] [JOBS] - how long `jaxjob render` takes for a
# repository of JOBS (default 1,000) job files, against `kubectl kustomize`
# building the same 1,000 manifests, in the same run.
#
# The repository: JOBS concise job files in 20 team directories, each with a
# jaxjob-defaults.yaml, plus one repo-level defaults file (every job goes
# through defaults merging, jobparams, the built-in template, validation,
# hashing, stamping and sorted YAML output). For kustomize, the rendered
# manifests are written one per file and listed in a kustomization.yaml, so
# both tools print the same objects (checked before timing: same set of
# documents, compared as data). Each tool runs RUNS times (default 5); the
# table shows the median and the best wall-clock time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$top/build/jaxjob}
JOBS=${2:-1000}
RUNS=${RUNS:-5}
W=$(mktemp -d /tmp/jaxjob-bench-render.XXXXXX)
trap 'rm -rf "$W"' EXIT

repo=$W/repo
mkdir -p "$repo"
printf 'image: ghcr.io/example/jax-train:2024.10\nrestart-policy: OnFailure\nclean-pod-policy: Running\nlabels:\n  org: ml\n' \
	>"$repo/jaxjob-defaults.yaml"
for t in $(seq -w 1 20); do
	mkdir -p "$repo/team-$t"
	printf 'gpus-per-worker: 1\nmemory: 32Gi\nlabels:\n  team: team-%s\n' "$t" >"$repo/team-$t/jaxjob-defaults.yaml"
done
for i in $(seq 1 "$JOBS"); do
	t=$(printf '%02d' $(( (i - 1) % 20 + 1 )))
	printf 'name: job-%04d\nworkers: %d\ncommand: [python, -m, train]\nargs: [--seed=%d, --steps=10000]\nenv:\n  - name: RUN\n    value: "%d"\n' \
		"$i" $(( i % 8 + 1 )) "$i" "$i" >"$repo/team-$t/job-$i.jaxjob.yaml"
done

render() { (cd "$repo" && env -i PATH="$PATH" ARGOCD_APP_NAMESPACE=training \
	ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567 "$BIN" render); }
render >"$W/render.yaml"

# the same manifests for kustomize, one file each
kdir=$W/kustomize
mkdir -p "$kdir"
python3 - "$W/render.yaml" "$kdir" <<'EOF'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
names = []
for d in docs:
    n = "%s.yaml" % d["metadata"]["name"]
    yaml.safe_dump(d, open("%s/%s" % (sys.argv[2], n), "w"), sort_keys=True)
    names.append(n)
yaml.safe_dump({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                "resources": names}, open(sys.argv[2] + "/kustomization.yaml", "w"))
EOF
kubectl kustomize "$kdir" >"$W/kustomize.yaml"
python3 - "$W/render.yaml" "$W/kustomize.yaml" "$JOBS" <<'EOF'
import json, sys, yaml
key = lambda d: json.dumps(d, sort_keys=True)
a = sorted(map(key, yaml.safe_load_all(open(sys.argv[1]))))
b = sorted(map(key, yaml.safe_load_all(open(sys.argv[2]))))
assert len(a) == int(sys.argv[3]), len(a)
assert a == b, "the two tools print different objects"
EOF

# time CMD: milliseconds of wall clock, one run
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%d %d", v[int((NR + 1) / 2)], v[1] }'; }
r=$(for _ in $(seq "$RUNS"); do ms render; done | stats)
k=$(for _ in $(seq "$RUNS"); do ms kubectl kustomize "$kdir"; done | stats)
set -- $r $k
files=$(find "$repo" -name '*.yaml' | wc -l)
bytes=$(wc -c <"$W/render.yaml")
echo "jobs: $JOBS ($files files in, $bytes bytes out), $RUNS runs, $(nproc) CPUs, $(kubectl version --client 2>/dev/null | sed -n 's/^Kustomize Version: //p' | head -1) kustomize"
printf '| tool | median (ms) | best (ms) |\n|---|---|---|\n'
printf '| jaxjob render (%s jobs from job files) | %d | %d |\n' "$JOBS" "$1" "$2"
printf '| kubectl kustomize (same %s manifests, plain files) | %d | %d |\n' "$JOBS" "$3" "$4"
awk -v a="$1" -v b="$3" 'BEGIN { printf "ratio kustomize/render (median): %.1fx\n", (a > 0 ? b / a : 0) }'
