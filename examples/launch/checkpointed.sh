#!/bin/sh
# examples/launch/checkpointed.sh - a user template with placeholders of its
# own: --param NAME=VALUE gives a string, --param NAME:=JSON a typed value.
#   examples/launch/checkpointed.sh --dry-run   print the JAXJob (checkpointed.yaml)
here=$(dirname "$0")
exec "${JAXJOB:-jaxjob}" launch "$@" \
	--template "$here/templates/checkpointed.yaml" \
	--name resnet50 \
	--image ghcr.io/x/jax-vision:1 \
	--workers 2 \
	--gpus-per-worker 1 \
	--param bucket=team-vision-ckpt \
	--param steps:=20000
