# tests/render/lib.sh - helpers shared by the 70-render* suites (sourced).
#
# cmp_render DIR [VAR=VALUE...] -- [ARGS...]
#   runs `jaxjob render ARGS` the way Argo CD's sidecar does: cwd = DIR (the
#   app directory), a clean environment holding only PATH, the sanitizer
#   options and the given variables. stdout -> $T/out, stderr -> $T/err,
#   exit status in $rc.
# fixed_git DIR ARGS...   git with fixed identity and dates (stable SHAs)
# copy_example DEST       examples/gitops as DEST/examples/gitops (repo root DEST)

RENDER_TOP=${JAXJOB_TOP:?}
EXPECTED=$RENDER_TOP/tests/render/expected
FIXED_REV=0123456789abcdef0123456789abcdef01234567

cmp_render() {
	local dir=$1
	shift
	local vars=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		vars+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	(cd "$dir" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" TMPDIR="${TMPDIR:-/tmp}" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		LSAN_OPTIONS="${LSAN_OPTIONS:-}" "${vars[@]}" "$JAXJOB" render "$@") \
		>"$T/out" 2>"$T/err"
	rc=$?
}

# The environment of a generate call for examples/gitops.
ARGO_ENV=(ARGOCD_APP_NAME=training-jobs ARGOCD_APP_NAMESPACE=training
	ARGOCD_APP_PROJECT_NAME=default
	ARGOCD_APP_SOURCE_PATH=examples/gitops
	ARGOCD_APP_SOURCE_REPO_URL=https://git.example.com/ml/jobs.git
	ARGOCD_APP_SOURCE_TARGET_REVISION=main
	KUBE_VERSION=1.29.3 KUBE_API_VERSIONS=v1,apps/v1,kubeflow.org/v1)

# The overrides of the parameters case (expected/gitops-params.yaml).
PARAMS_JSON='[{"name":"resnet50.workers","string":"8"},
 {"name":"vit-base.args","array":["--model=base","--epochs=300"]},
 {"name":"labels","map":{"cost-center":"research"}},
 {"name":"gpt-small.env","array":["JAX_PLATFORMS=cpu","XLA_FLAGS=--xla_dump_to=/tmp"]}]'
PARAMS_ENV=(ARGOCD_ENV_IMAGE_PULL_POLICY=IfNotPresent ARGOCD_ENV_UNRELATED_TOOL=x
	"ARGOCD_APP_PARAMETERS=$PARAMS_JSON")

fixed_git() {
	local dir=$1
	shift
	(cd "$dir" && env GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com \
		GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com \
		GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git "$@")
}

copy_example() {
	mkdir -p "$1/examples"
	cp -R "$RENDER_TOP/examples/gitops" "$1/examples/"
}

# one_error: exit 2, empty stdout, exactly one stderr line starting "error: "
one_error() {
	[ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q '^error: ' "$T/err"
}

# report DESCRIPTION CONDITION-EXIT-STATUS: TAP line, details on failure
report() {
	if [ "$2" -eq 0 ]; then
		ok "$1"
	else
		not_ok "$1"
		{ echo "--- $1 (rc=${rc:-?})"; head -c 600 "$T/out"; head -n 5 "$T/err"; } >&2
	fi
}
