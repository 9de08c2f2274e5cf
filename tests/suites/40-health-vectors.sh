#!/usr/bin/env bash
# One set of vectors, two judges: every vector of every health-checks/*/*/
# health_test.yaml (and every status sample listed in
# health-checks/reference-samples.yaml: tests/status-samples, and two real
# objects from upstream docs, fetched by `make test-deps`) goes through the Lua check under
# lua5.1 in the argocd-cm sandbox (no string/math/io/os/require/load*) and
# through the C judge (`$JAXJOB health -o json`). TAP per vector per judge,
# plus one line per vector that both agree, Lua line coverage, the sandbox's
# own canaries and the JAXJob resource actions. Logic lives in
# tests/tools/health_vectors.py (lua5.1 cannot read YAML; Python converts it
# to Lua table literals).
set -u
for tool in lua5.1 python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "not ok - health vectors need $tool (make deps installs it)"
		exit 1
	fi
done
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "not ok - health vectors need python3-yaml (make deps installs it)"
	exit 1
fi
exec python3 "$JAXJOB_TOP/tests/tools/health_vectors.py" "$JAXJOB_TOP" "$JAXJOB" "${JAXJOB_TESTDATA:-}"
