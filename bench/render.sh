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
# table shows the median and best wall-clock and CPU (user + sys) times and
# the median peak RSS. PEER=none skips kustomize (at 10,000 manifests it
# takes many minutes on the 2-CPU machine): render alone is timed.
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

# the sidecar's call, as a program (timed with /usr/bin/time below)
printf '#!/bin/sh\ncd "%s" && exec env -i PATH="$PATH" ARGOCD_APP_NAMESPACE=training ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567 "%s" render\n' \
	"$repo" "$BIN" >"$W/render"
chmod +x "$W/render"
"$W/render" >"$W/render.yaml"

PEER=${PEER:-kustomize}
# the same manifests for kustomize, one file each
kdir=$W/kustomize
if [ "$PEER" = kustomize ]; then
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
fi

# one run: "wall_ms cpu_ms rss_mb" (cpu = user + sys, which a loaded machine
# does not inflate the way it inflates wall-clock time; rss = peak resident)
run1() {
	/usr/bin/time -f '%e %U %S %M' -o "$W/time" "$@" >/dev/null
	awk '{ printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, $4 / 1024 }' "$W/time"
}
# median and best of each column over RUNS runs
col() { cut -d' ' -f"$1" "$2" | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d ", v[int((NR + 1) / 2)], v[1] }'; }
stats() { cat >"$W/runs"; col 1 "$W/runs"; col 2 "$W/runs"; col 3 "$W/runs"; }
r=$(for _ in $(seq "$RUNS"); do run1 "$W/render"; done | stats)
k="0 0 0 0 0 0"
[ "$PEER" = kustomize ] && k=$(for _ in $(seq "$RUNS"); do run1 kubectl kustomize "$kdir"; done | stats)
set -- $r $k
files=$(find "$repo" -name '*.yaml' | wc -l)
bytes=$(wc -c <"$W/render.yaml")
echo "jobs: $JOBS ($files files in, $bytes bytes out), $RUNS runs, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(kubectl version --client 2>/dev/null | sed -n 's/^Kustomize Version: //p' | head -1) kustomize"
printf '| tool | wall median (ms) | wall best (ms) | CPU median (ms) | CPU best (ms) | peak RSS median (MB) |\n|---|---|---|---|---|---|\n'
printf '| jaxjob render (%s jobs from job files) | %d | %d | %d | %d | %d |\n' "$JOBS" "$1" "$2" "$3" "$4" "$5"
[ "$PEER" = kustomize ] || exit 0
printf '| kubectl kustomize (same %s manifests, plain files) | %d | %d | %d | %d | %d |\n' "$JOBS" "$7" "$8" "$9" "${10}" "${11}"
awk -v a="$1" -v b="$7" -v c="$3" -v d="$9" 'BEGIN {
	printf "ratio kustomize/render (median): wall %.1fx, CPU %.1fx\n", (a > 0 ? b / a : 0), (c > 0 ? d / c : 0) }'
