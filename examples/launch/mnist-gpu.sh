#!/bin/sh
# examples/launch/mnist-gpu.sh - the smallest GPU job: 4 workers, one GPU each.
#   examples/launch/mnist-gpu.sh --dry-run     print the JAXJob (mnist-gpu.yaml)
#   examples/launch/mnist-gpu.sh --timeout 2h  run it, stream the logs, wait
# $JAXJOB is the binary (default: jaxjob on PATH).
exec "${JAXJOB:-jaxjob}" launch "$@" \
	--name mnist \
	--image ghcr.io/x/jax:1 \
	--workers 4 \
	--gpus-per-worker 1 \
	-- python train.py
