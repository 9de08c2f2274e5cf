#!/usr/bin/env bash
# stack/test-deps.sh [PART...]: make what the test suites need from the registries, into
# $JAXJOB_CACHE (`make test-deps`). No Go build: modules are only downloaded
# (`go mod download -json MOD@V`, the module proxy) and files copied out of them; venvs come
# from PyPI (stack/venv.sh). Each part is made aside and renamed into place, so a half-made
# one is never taken for done. One line per part on stdout. Parts (default: all):
#   testdata    upstream files the suites read, from the modules that ship them:
#               the JAXJob CRD and the operator's JAX examples (training-operator),
#               the TrainJob CRD (trainer/v2), two real JAXJob objects that upstream docs print
#               (extracted from examples/jax/jax-dist-spmd-mnist/README.md and
#               docs/legacy-v1/user-guides/jax.md), Argo Workflows' api/jsonschema/schema.json
#   kfp         the KFP SDK the compile tests pin (stack/venv.sh kfp)
#   kfp-newest  the newest KFP SDK (stack/venv.sh kfp-newest)
# tests/lib/deps.sh (sourced by tests/run-all.sh) finds them; a suite whose part is missing
# skips with one line naming `make test-deps`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
ALL_PARTS="testdata kfp kfp-newest"
die() { echo "stack/test-deps.sh: $*" >&2; exit 1; }
mkdir -p "$JAXJOB_CACHE/logs"

# The directory of each part, from the pins (tests/lib/deps.sh computes the same names).
TESTDATA_DIR=$JAXJOB_CACHE/testdata-to$TRAINING_OPERATOR_VERSION-trainer$TRAINER_VERSION-argowf$ARGO_WORKFLOWS_VERSION

moddir() { # MOD@VERSION -> the module's directory in Go's module cache (downloaded if missing)
	local j d
	j=$(GOFLAGS=-mod=mod go mod download -json "$1" 2>&1) || { echo "go mod download $1: $j" >&2; return 1; }
	d=$(printf '%s\n' "$j" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	[ -n "$d" ] && [ -d "$d" ] || { echo "go mod download $1 gave no directory: $j" >&2; return 1; }
	echo "$d"
}

# fenced_object FILE OUT: the first fenced block of a Markdown FILE holding a JAXJob with a
# status (the `kubectl get -o yaml` output upstream docs print) into OUT, with a header
# naming where it came from.
fenced_object() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import re, sys
src, out, origin = sys.argv[1:]
for b in re.findall(r"```[a-z]*\n(.*?)```", open(src).read(), re.S):
    if "kind: JAXJob" in b and "\nstatus:" in b:
        with open(out, "w") as f:
            f.write("# VERBATIM, extracted by stack/test-deps.sh from %s\n" % origin)
            f.write(b)
        sys.exit(0)
sys.exit("no fenced JAXJob with a status in %s" % src)
PY
}

make_testdata() { # OUT
	local out=$1 d
	command -v go >/dev/null || die "testdata: needs \`go\` (any Go >= 1.19: only \`go mod download\`; make deps installs Debian's golang-go)"
	mkdir -p "$out/crds" "$out/status-samples" "$out/argo-workflows" "$out/upstream-examples/training-operator-$TRAINING_OPERATOR_VERSION" || return 1
	d=$(moddir "github.com/kubeflow/training-operator@$TRAINING_OPERATOR_VERSION") || return 1
	cp "$d/manifests/base/crds/kubeflow.org_jaxjobs.yaml" "$out/crds/" || return 1
	cp -R "$d/examples/jax" "$out/upstream-examples/training-operator-$TRAINING_OPERATOR_VERSION/" || return 1
	# only the manifests and the README (whose kubectl output is a sample): no code
	find "$out/upstream-examples" -type f ! -name '*.yaml' ! -name 'README.md' -delete || return 1
	fenced_object "$d/examples/jax/jax-dist-spmd-mnist/README.md" "$out/status-samples/jaxjob-succeeded-mnist.yaml" \
		"github.com/kubeflow/training-operator@$TRAINING_OPERATOR_VERSION examples/jax/jax-dist-spmd-mnist/README.md" || return 1
	d=$(moddir "github.com/kubeflow/trainer/v2@$TRAINER_VERSION") || return 1
	cp "$d/manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml" "$out/crds/" || return 1
	fenced_object "$d/docs/legacy-v1/user-guides/jax.md" "$out/status-samples/jaxjob-succeeded-simple.yaml" \
		"github.com/kubeflow/trainer/v2@$TRAINER_VERSION docs/legacy-v1/user-guides/jax.md" || return 1
	d=$(moddir "github.com/argoproj/argo-workflows/v4@$ARGO_WORKFLOWS_VERSION") || return 1
	cp "$d/api/jsonschema/schema.json" "$out/argo-workflows/" || return 1
	chmod -R u+w "$out" || return 1
	find "$out" -type f | sed "s|^$out/||" | sort >"$out/FILES" || return 1
}

# made NAME DIR FUNCTION: skip when DIR exists, else FUNCTION TMP, then rename TMP to DIR.
made() {
	local name=$1 final=$2 fn=$3 tmp log t0
	if [ -d "$final" ]; then echo "$name: cached in $final"; return 0; fi
	tmp=$(mktemp -d "$final.tmp.XXXXXX")
	log=$JAXJOB_CACHE/logs/test-deps-$name.log
	t0=$(date +%s)
	# (FUNCTION checks each step itself: made runs in a tested context, where bash
	# ignores set -e, and a half-made part must never be renamed into place)
	local st=0
	("$fn" "$tmp") >"$log" 2>&1 || st=$?
	if [ "$st" -ne 0 ]; then
		tail -n 5 "$log" >&2
		rm -rf "$tmp"
		echo "stack/test-deps.sh: $name: failed after $(( $(date +%s) - t0 )) s (log: $log)" >&2
		return 1
	fi
	mv -T "$tmp" "$final" 2>/dev/null || { rm -rf "$tmp"; [ -d "$final" ] || die "$name: rename failed"; }
	echo "$name: made in $(( $(date +%s) - t0 )) s into $final"
}

parts=("$@"); [ ${#parts[@]} -gt 0 ] || read -r -a parts <<<"$ALL_PARTS"
venvs=()
for p in "${parts[@]}"; do
	case $p in
	testdata) ;;
	kfp | kfp-newest) venvs+=("$p") ;;
	*) die "unknown part '$p': use one of: $ALL_PARTS" ;;
	esac
done
# the venvs (pip: mostly waiting on PyPI) are made side by side, while the rest runs
declare -A vpid=()
t0=$(date +%s)
for p in "${venvs[@]}"; do
	"$here/venv.sh" "$p" >"$JAXJOB_CACHE/logs/test-deps-$p.out" 2>"$JAXJOB_CACHE/logs/test-deps-$p.log" &
	vpid[$p]=$!
done
rc=0
for p in "${parts[@]}"; do
	[ "$p" = testdata ] && { made testdata "$TESTDATA_DIR" make_testdata || rc=1; }
done
for p in "${venvs[@]}"; do
	if wait "${vpid[$p]}"; then
		echo "$p: $(cat "$JAXJOB_CACHE/logs/test-deps-$p.out") ($(( $(date +%s) - t0 )) s)"
	else
		tail -n 5 "$JAXJOB_CACHE/logs/test-deps-$p.log" >&2
		echo "stack/test-deps.sh: $p: stack/venv.sh $p failed (log: $JAXJOB_CACHE/logs/test-deps-$p.log)" >&2
		rc=1
	fi
done
# what the suites will look for (tests/lib/deps.sh names the same directories): a part made
# here that they would not find is a failure, not a silent skip later
if [ "$rc" -eq 0 ]; then
	found=$(JAXJOB_TOP=$(cd "$here/.." && pwd) JAXJOB_CACHE=$JAXJOB_CACHE bash -c \
		'. "$JAXJOB_TOP/tests/lib/deps.sh" && echo "testdata=$JAXJOB_TESTDATA kfp=$JAXJOB_KFP_PYTHON kfp-newest=$JAXJOB_KFP_NEWEST_PYTHON"')
	for p in "${parts[@]}"; do
		case " $found " in *" $p= "*) echo "stack/test-deps.sh: made $p, but tests/lib/deps.sh does not find it (names differ)" >&2; rc=1 ;; esac
	done
fi
exit $rc
