#!/usr/bin/env bash
# scripts/install-deps.sh - install the Debian (bookworm) packages that the
# build, the tests and the demo need. Idempotent and quick when all is there:
# it asks dpkg first and only calls apt-get for what is missing.
#   scripts/install-deps.sh          install what is missing (root or sudo)
#   scripts/install-deps.sh --check  exit 1 if something is missing
set -eu
pkgs=(
	build-essential pkg-config clang libfuzzer-14-dev libclang-rt-14-dev
	libcurl4-openssl-dev libssl-dev openssl ca-certificates
	libyaml-dev libcjson-dev libgit2-dev libcmocka-dev
	lua5.1 python3 python3-yaml python3-jsonschema
	git
	procps			# ps: tests/run-all.sh finds what a suite left running
	time			# /usr/bin/time: peak memory of hostile inputs (74-hostile-inputs)
	libnghttp2-dev zlib1g-dev cmake dpkg-dev strace	# build-slim-deps.sh and the image binary (static nghttp2, zlib); strace counts connections (56-kube-http2-real)
	etcd-server etcd-client curl	# the real control plane of the 6[5-9]-real-* suites (../shared/tools/kube-control-plane)
	python3-kubernetes	# the peer Python client of bench/launch.sh
	python3-venv	# the KFP SDK venvs of make test-deps (stack/venv.sh: /usr/bin/python3 -m venv)
	umoci skopeo runc	# make image without a daemon (scripts/mkimage.sh), run by runc (82-image-runc)
)
missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *"install ok installed"*) ;; *) missing+=("$p") ;; esac
done
# kubectl (for `kubectl kustomize` tests) may come from another package.
if ! command -v kubectl >/dev/null 2>&1; then
	missing+=(kubernetes-client)
fi
# npm (and node) for the validations that use npm packages (the CycloneDX
# validator, @kubernetes-models/*; tests/lib/npm.sh): Debian's unless a node
# with its npm is installed already (e.g. from another repository).
if ! command -v npm >/dev/null 2>&1; then
	missing+=(npm)
fi
# go for `make test-deps` (only `go mod download` from the module proxy: any Go >= 1.19, so
# Debian's golang-go unless a Go is installed already; the real stack's build needs the
# newer Go of stack/versions.env, which stack/build.sh names).
if ! command -v go >/dev/null 2>&1; then
	missing+=(golang-go)
fi
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "${1:-}" = "--check" ]; then
	echo "missing packages: ${missing[*]}" >&2
	exit 1
fi
echo "installing: ${missing[*]}" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null || true
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
