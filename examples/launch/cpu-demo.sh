#!/bin/sh
# examples/launch/cpu-demo.sh - the upstream CPU demo (2 workers, Gloo) as a
# pipeline step would run it: bounded CPU/memory, two virtual CPU devices per
# process, retry a crashed worker in place, give up after an hour.
#   examples/launch/cpu-demo.sh --dry-run      print the JAXJob (cpu-demo.yaml)
exec "${JAXJOB:-jaxjob}" launch "$@" \
	--name jaxjob-simple \
	--namespace kubeflow \
	--image ghcr.io/kubeflow/training-v1/jaxjob-simple:latest \
	--image-pull-policy Always \
	--workers 2 \
	--restart-policy OnFailure \
	--cpu 2 --memory 4Gi \
	--env XLA_FLAGS=--xla_force_host_platform_device_count=2 \
	--active-deadline-seconds 3600 \
	--backoff-limit 3 \
	-- python3 train.py
