#!/bin/bash
# stack/venv.sh NAME... — make the cached Python virtualenv(s) NAME if missing.
#   jax   -> $JAXJOB_CACHE/venv-jax-$JAX_VERSION  (jax + jaxlib CPU wheels from PyPI)
#   kfp   -> $JAXJOB_CACHE/venv-kfp-$KFP_COMPILE_VERSION  (the KFP SDK the compile tests pin)
#   kfp-newest -> $JAXJOB_CACHE/venv-kfp-$KFP_NEWEST  (the newest KFP SDK, compiled too)
#   (kfp, kfp-kubernetes, kfp-pipeline-spec, kfp-server-api of one release, protobuf $KFP_PROTOBUF)
# Base interpreter: /usr/bin/python3 (Debian), never a pyenv shim. Each venv is built in a
# side directory and renamed into place, so a half-built one is never taken as done.
# Prints the venv's path on stdout (one line per NAME); progress goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$here/versions.env"
cache=${JAXJOB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jaxjob}
py=/usr/bin/python3

[ $# -ge 1 ] || { echo "usage: stack/venv.sh NAME... (names: jax kfp kfp-newest sdk)" >&2; exit 2; }

venv_spec() {   # NAME -> sets dir and reqs
	case $1 in
	jax) dir=$cache/venv-jax-$JAX_VERSION
	     reqs="jax==$JAX_VERSION jaxlib==$JAXLIB_VERSION" ;;
	kfp | kfp-newest)
	     local v=$KFP_COMPILE_VERSION
	     [ "$1" = kfp ] || v=$KFP_NEWEST
	     dir=$cache/venv-kfp-$v-pb$KFP_PROTOBUF
	     reqs="kfp==$v kfp-kubernetes==$v kfp-pipeline-spec==$v kfp-server-api==$v protobuf==$KFP_PROTOBUF" ;;
	sdk) # the Kubeflow SDKs users run, as peers in bench/ (issue 40): kubeflow-training's setup.py
	     # pins kubernetes<36, so the Python client is the SDKs' own pin, not KUBERNETES_PY
	     dir=$cache/venv-sdk-kt$KUBEFLOW_TRAINING_SDK-kf$KUBEFLOW_SDK-k$SDK_KUBERNETES_PY
	     reqs="kubeflow-training==$KUBEFLOW_TRAINING_SDK kubeflow==$KUBEFLOW_SDK kubernetes==$SDK_KUBERNETES_PY" ;;
	*) echo "stack/venv.sh: unknown venv name '$1' (known: jax kfp kfp-newest sdk)" >&2; exit 2 ;;
	esac
}

for name in "$@"; do
	venv_spec "$name"
	if [ -x "$dir/bin/python" ] && [ -f "$dir/.complete" ]; then
		echo "$dir"; continue
	fi
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.venv-$name.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	start=$(date +%s)
	echo "stack/venv.sh: building $name venv ($reqs) in $dir" >&2
	$py -m venv "$tmp" >&2
	# pip records the venv's path in scripts' shebangs; python -m pip works after the rename.
	"$tmp/bin/python" -m pip install --quiet --no-input $reqs >&2
	echo "$reqs" > "$tmp/.complete"
	rm -rf "$dir.old"; [ -e "$dir" ] && mv "$dir" "$dir.old"
	mv "$tmp" "$dir"; rm -rf "$dir.old"
	trap - EXIT
	echo "stack/venv.sh: $name venv ready in $(( $(date +%s) - start ))s" >&2
	echo "$dir"
done
