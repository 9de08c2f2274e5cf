#!/usr/bin/env bash
# tests/suites/12-lib-knows-no-engine.sh - lib/ names none of the engines that run the
# front-ends (Argo CD, Argo Workflows, Kubeflow Pipelines): docs/architecture.md ("lib knows
# no engine") gives the grep, and lib/README.md, which states the rule, is its only hit.
# What a deployment provides reaches lib through arguments and callbacks; a comment that
# names an engine is where such knowledge starts to creep in, so comments count too.
. "$JAXJOB_TOP/tests/lib/tap.sh"
cd "$JAXJOB_TOP" || exit 1
hits=$(grep -rnIi 'argo\|kfp\|pipeline' lib/ | grep -v '^lib/README\.md:')
if [ -z "$hits" ]; then
	ok "grep -i 'argo\\|kfp\\|pipeline' lib/ finds only lib/README.md"
else
	not_ok "grep -i 'argo\\|kfp\\|pipeline' lib/ finds only lib/README.md"
	printf '%s\n' "$hits" | head -n 20 | sed 's/^/# names an engine: /' >&2
fi
