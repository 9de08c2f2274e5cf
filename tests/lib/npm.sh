# tests/lib/npm.sh - sourced by the suites whose validators are npm packages
# (the CycloneDX SBOM validator, @kubernetes-models/argo-workflows and
# @kubernetes-models/argo-cd): they run wherever the npm registry answers,
# and are one SKIP line naming the reason where it does not.
#
#   npm_packages DIR PKG@VERSION...   install into DIR (kept: build/npm/NAME),
#                                     0 when DIR has them; else 1 with the
#                                     reason in $NPM_WHY
#
# Reachability is asked of npm itself (`npm ping` against whatever registry
# npm is configured with; no host is named here), under a short ceiling so
# that an offline machine costs seconds. An install already in DIR is used
# without asking. A failed install is a SKIP with npm's last line, never a
# failure: the registry is not the code under test.
NPM_WHY=

npm_packages() {
	local dir=$1 p missing=
	shift
	for p in "$@"; do
		[ -f "$dir/node_modules/${p%@*}/package.json" ] || missing=1
	done
	[ -z "$missing" ] && return 0
	if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
		NPM_WHY='npm/node not installed (make deps installs them)'
		return 1
	fi
	# 20 s: a ceiling for a busy machine, not a measurement.
	if ! timeout 20 npm ping --fetch-retries=0 --fetch-timeout=15000 >"$T/npm-ping.log" 2>&1; then
		NPM_WHY="the npm registry does not answer (npm ping: $(grep -v '^npm notice' "$T/npm-ping.log" | tail -n 1))"
		return 1
	fi
	mkdir -p "$dir" && [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
	if ! (cd "$dir" && timeout 300 npm install --no-audit --no-fund --loglevel=error "$@") >"$T/npm-install.log" 2>&1; then
		NPM_WHY="npm install $* failed: $(tail -n 1 "$T/npm-install.log")"
		return 1
	fi
	return 0
}
