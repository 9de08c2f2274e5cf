#!/usr/bin/env bash
# scripts/demo.sh - `make demo`: render the launch examples with
# `build/jaxjob launch --dry-run` and show what each one creates.
#
# For now this touches no cluster: it prints the JAXJob of each script under
# examples/launch/ and checks it against the manifest committed beside it
# (examples/launch/NAME.yaml), so a change in what launch produces is seen
# here first. A later issue runs the main job end to end against the local
# Kubernetes API test server.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export JAXJOB=${JAXJOB:-$top/build/jaxjob}

say() { printf '\n==> %s\n' "$*"; }

say "the issue's command"
echo "\$ jaxjob launch --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py"
"$JAXJOB" launch --dry-run --name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 \
	-- python train.py

failed=0
for script in "$top"/examples/launch/*.sh; do
	name=$(basename "$script" .sh)
	say "examples/launch/$name.sh --dry-run"
	out=$("$script" --dry-run)
	printf '%s\n' "$out" | sed -n '1,12p'
	echo "  ... ($(printf '%s\n' "$out" | wc -l) lines)"
	if printf '%s\n' "$out" | cmp -s - "$top/examples/launch/$name.yaml"; then
		echo "  = examples/launch/$name.yaml"
	else
		echo "  DIFFERS from examples/launch/$name.yaml" >&2
		failed=1
	fi
done

say "bad input is refused with one line and exit 2"
set +e
"$JAXJOB" launch --dry-run --name mnist --image ghcr.io/x/jax:1 --memory '4 GB'
echo "  (exit $?)"
set -e
exit $failed
