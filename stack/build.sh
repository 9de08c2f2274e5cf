#!/usr/bin/env bash
# stack/build.sh [PART...]: build what is missing of the real stack into $JAXJOB_CACHE.
# Parts: etcd kube training-operator kueue trainer jobset crds (default: all, in that order).
# Each part is built in a temporary directory beside its final one and renamed into place,
# so a half-done build is never taken for a done one. One line per part on stdout.
set -euo pipefail
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

ALL_PARTS="etcd kube training-operator kueue trainer jobset crds"
die() { echo "stack/build.sh: $*" >&2; exit 1; }
command -v go >/dev/null || die "missing tool: go (Go >= ${GO_VERSION%.*}; the module proxy must be reachable)"
mkdir -p "$JAXJOB_CACHE/logs"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

# run_part NAME VERSION FINAL_DIR FUNCTION: skip when FINAL_DIR exists, else build into a
# sibling temp dir with FUNCTION TMPDIR LOG, then rename.
run_part() {
  local name=$1 ver=$2 final=$3 fn=$4 tmp log t0 secs
  if [ -d "$final" ]; then echo "$name $ver: cached in $final"; return 0; fi
  # one builder per part at a time: a second build.sh waits for the first, then finds it done
  exec 8>"$final.lock"
  if ! flock -n 8; then
    echo "$name $ver: another build.sh is building it; waiting" >&2
    flock 8
  fi
  if [ -d "$final" ]; then echo "$name $ver: cached in $final"; exec 8>&-; return 0; fi
  tmp=$(mktemp -d "$final.tmp.XXXXXX") && chmod 755 "$tmp"
  log=$JAXJOB_CACHE/logs/$name-$ver.log
  t0=$(date +%s)
  # the builder runs as a bash process of its own: inside `if ! ( ... )` bash ignores set -e
  # (a condition's context), so a failing step would not stop it and its last step would
  # decide; there every step stops the part (the functions are exported below)
  # shellcheck disable=SC2016
  if ! bash -euo pipefail -c '. "$STACK_DIR/lib.sh"; "$@"' build.sh-part "$fn" "$tmp" "$ver" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    rm -rf "$tmp"
    die "$name $ver: build failed after $(( $(date +%s) - t0 )) s (log: $log)"
  fi
  secs=$(( $(date +%s) - t0 ))
  printf 'part=%s\nversion=%s\nbuild_seconds=%s\nnproc=%s\nloadavg=%s\ngo=%s\n' "$name" "$ver" "$secs" \
    "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(go version | awk "{print \$3}")" >"$tmp/BUILD_INFO"
  mv -T "$tmp" "$final" 2>/dev/null || { rm -rf "$tmp"; [ -d "$final" ] || die "$name: rename failed"; }
  exec 8>&-
  echo "$name $ver: built in ${secs} s into $final"
}

# A throw-away main module: GOPATH-independent, GOFLAGS=-mod=mod lets go fill go.sum.
newmod() { mkdir -p "$1/src"; (cd "$1/src" && go mod init "$2" >/dev/null 2>&1); }

build_etcd() { # etcd's server/v3 go.mod has replaces, so `go install` refuses it: wrap etcdmain.
  local out=$1 v=$2 m
  newmod "$out" jaxjob.local/etcd-wrapper
  cat >"$out/src/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  cd "$out/src"
  for m in server/v3 api/v3 client/pkg/v3 client/v3 pkg/v3; do go mod edit -require="go.etcd.io/etcd/$m@$v"; done
  GOFLAGS="$GOFLAGS -mod=mod" go build -trimpath -ldflags "-s -w" -o "$out/bin/etcd" .
  cp go.mod "$out/wrapper.go.mod"
  rm -rf "$out/src"
}

build_kube() { # k8s.io/kubernetes replaces its staging modules with ./staging: pin each to v0.N.P.
  local out=$1 v=$2 gomod m major minor ld pkgs="" x
  newmod "$out" jaxjob.local/kube-wrapper
  cd "$out/src"
  gomod=$(go mod download -json "k8s.io/kubernetes@$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  [ -f "$gomod" ] || { echo "no go.mod for k8s.io/kubernetes@$v"; return 1; }
  for m in $(awk '$2 == "=>" && $3 ~ /^\.\/staging\// {print $1}' "$gomod"); do
    go mod edit -replace="$m=$m@$KUBERNETES_STAGING_VERSION"
  done
  go mod edit -require="k8s.io/kubernetes@$v"
  major=${v#v}; major=${major%%.*}; minor=${v#v"$major".}; minor=${minor%%.*}
  ld="-s -w"
  for x in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $x.gitVersion=$v -X $x.gitMajor=$major -X $x.gitMinor=$minor -X $x.gitTreeState=clean"
    ld="$ld -X $x.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  done
  for x in kube-apiserver kube-controller-manager kube-scheduler kubectl; do pkgs="$pkgs k8s.io/kubernetes/cmd/$x"; done
  # shellcheck disable=SC2086
  GOFLAGS="$GOFLAGS -mod=mod" go build -trimpath -tags providerless -ldflags "$ld" -o "$out/bin/" $pkgs
  cp go.mod "$out/wrapper.go.mod"
  rm -rf "$out/src"
}

# go install for modules without replaces; $3 = package, $4 = binary name wanted.
build_install() {
  local out=$1 v=$2 pkg=$3 want=$4 got
  mkdir -p "$out/bin"
  GOBIN="$out/bin" go install -trimpath -ldflags "-s -w" "$pkg@$v"
  got=$(ls "$out/bin")
  [ -n "$got" ] || { echo "go install $pkg@$v made no binary"; return 1; }
  [ "$got" = "$want" ] || mv "$out/bin/$got" "$out/bin/$want"
}
build_training_operator() { build_install "$1" "$2" github.com/kubeflow/training-operator/cmd/training-operator.v1 training-operator; }
build_kueue() { build_install "$1" "$2" sigs.k8s.io/kueue/cmd/kueue kueue; }
build_trainer() { build_install "$1" "$2" github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager trainer-controller-manager; }
# go install MOD@V first asks the proxy for MOD's version list (deprecation notice); the proxy
# refuses sigs.k8s.io/jobset's list (403) though it serves v0.12.0: build it from a wrapper
# module that requires it (no replaces in its go.mod, so the build list is the same)
build_jobset() {
  local out=$1 v=$2
  newmod "$out" jaxjob.local/jobset-wrapper
  cd "$out/src"
  go mod edit -require="sigs.k8s.io/jobset@$v"
  GOFLAGS="$GOFLAGS -mod=mod" go build -trimpath -ldflags "-s -w" -o "$out/bin/jobset" sigs.k8s.io/jobset
  cp go.mod "$out/wrapper.go.mod"
  rm -rf "$out/src"
}

moddir() { go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p'; }

build_crds() { # CRDs and runtimes from the modules that ship them (no ../shared)
  local out=$1 d f
  mkdir -p "$out/training-operator" "$out/kueue" "$out/trainer" "$out/trainer-runtimes" "$out/jobset"
  d=$(moddir "github.com/kubeflow/training-operator@$TRAINING_OPERATOR_VERSION")
  # manifests/: upstream's webhook configurations (and Kueue's visibility APIService and
  # manager config), for the parts that register them by URL
  mkdir -p "$out/manifests"
  cp "$d"/manifests/base/crds/kubeflow.org_*.yaml "$out/training-operator/"
  cp -r "$d/manifests/base/webhook" "$out/manifests/training-operator-webhook"
  d=$(moddir "sigs.k8s.io/kueue@$KUEUE_VERSION")
  cp "$d"/config/components/crd/bases/*.yaml "$out/kueue/"
  cp -r "$d/config/components/webhook" "$out/manifests/kueue-webhook"
  cp -r "$d/config/components/visibility" "$out/manifests/kueue-visibility"
  cp -r "$d/config/components/manager" "$out/manifests/kueue-manager"
  d=$(moddir "github.com/kubeflow/trainer/v2@$TRAINER_VERSION")
  cp "$d"/manifests/base/crds/trainer.kubeflow.org_*.yaml "$out/trainer/"
  cp "$d"/manifests/base/runtimes/*.yaml "$out/trainer-runtimes/"
  cp -r "$d/manifests/base/webhook" "$out/manifests/trainer-webhook"
  d=$(moddir "sigs.k8s.io/jobset@$JOBSET_VERSION")
  cp "$d"/config/components/crd/bases/*.yaml "$out/jobset/"
  cp -r "$d/config/components/webhook" "$out/manifests/jobset-webhook"
  chmod -R u+w "$out"
  for f in "$out"/*/; do echo "$(basename "$f"): $(find "$f" -type f | wc -l) files"; done
}

# shellcheck disable=SC2046
export -f newmod moddir $(compgen -A function build_)
export STACK_DIR
parts=("$@"); [ ${#parts[@]} -gt 0 ] || read -r -a parts <<<"$ALL_PARTS"
for p in "${parts[@]}"; do
  case $p in
    etcd) run_part etcd "$ETCD_VERSION" "$STACK_ETCD_DIR" build_etcd ;;
    kube) run_part kube "$KUBERNETES_VERSION" "$STACK_KUBE_DIR" build_kube ;;
    training-operator) run_part training-operator "$TRAINING_OPERATOR_VERSION" "$STACK_TO_DIR" build_training_operator ;;
    kueue) run_part kueue "$KUEUE_VERSION" "$STACK_KUEUE_DIR" build_kueue ;;
    trainer) run_part trainer "$TRAINER_VERSION" "$STACK_TRAINER_DIR" build_trainer ;;
    jobset) run_part jobset "$JOBSET_VERSION" "$STACK_JOBSET_DIR" build_jobset ;;
    crds) run_part crds "$(basename "$STACK_CRDS_DIR")" "$STACK_CRDS_DIR" build_crds ;;
    *) die "unknown part '$p': use one of: $ALL_PARTS" ;;
  esac
done
