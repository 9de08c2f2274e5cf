#!/usr/bin/env bash
# tests/render/update-expected.sh [JAXJOB] - regenerate tests/render/expected/
# from examples/gitops with the same environment 70-render.sh uses. Review
# the diff before committing: these files are the contract.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
export JAXJOB_TOP=$top JAXJOB=${1:-$top/build/jaxjob}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$top/tests/render/lib.sh"
copy_example "$T/repo"
APP=$T/repo/examples/gitops
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
[ "$rc" -eq 0 ] || { cat "$T/err"; exit 1; }; cp "$T/out" "$EXPECTED/gitops.yaml"
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV "${PARAMS_ENV[@]}" --
[ "$rc" -eq 0 ] || { cat "$T/err"; exit 1; }; cp "$T/out" "$EXPECTED/gitops-params.yaml"
cmp_render "$APP" ARGOCD_APP_NAME=training-jobs -- --params
[ "$rc" -eq 0 ] || { cat "$T/err"; exit 1; }; cp "$T/out" "$EXPECTED/params.json"
# examples/gitops-trainjob (api: trainjob), as 71-render-trainjob.sh renders it
mkdir -p "$T/tj/examples" && cp -R "$top/examples/gitops-trainjob" "$T/tj/examples/"
cmp_render "$T/tj/examples/gitops-trainjob" ARGOCD_APP_NAME=trainer-jobs ARGOCD_APP_NAMESPACE=training \
	ARGOCD_APP_SOURCE_PATH=examples/gitops-trainjob ARGOCD_APP_REVISION=$FIXED_REV --
[ "$rc" -eq 0 ] || { cat "$T/err"; exit 1; }; cp "$T/out" "$EXPECTED/gitops-trainjob.yaml"
git -C "$top" diff --stat -- tests/render/expected
