#!/bin/sh
# examples/launch/gang-scheduled.sh - a large job on a shared GPU pool: gang
# scheduling (all 16 workers or none), dedicated GPU nodes (node selector +
# toleration), the dataset from a PVC, /dev/shm in memory for the data
# loaders, a service account for the bucket, and the operator's TTL cleanup.
#   examples/launch/gang-scheduled.sh --dry-run   print the JAXJob (gang-scheduled.yaml)
exec "${JAXJOB:-jaxjob}" launch "$@" \
	--name llm-pretrain \
	--namespace research \
	--label team=nlp --label app.kubernetes.io/part-of=llm \
	--annotation example.com/owner=nlp-oncall \
	--image registry.example.com/nlp/jax-train:2.3.1 \
	--image-pull-secret registry-creds \
	--service-account trainer \
	--workers 16 \
	--cpu 16 --memory 200Gi --gpus-per-worker 8 \
	--node-selector cloud.example.com/pool=a100 \
	--toleration nvidia.com/gpu=present:NoSchedule \
	--volume data=pvc:pretrain-corpus --mount data:/data:ro \
	--volume shm=emptydir:Memory --mount shm:/dev/shm \
	--env JAX_COMPILATION_CACHE_DIR=/data/cache \
	--clean-pod-policy Running \
	--ttl-seconds-after-finished 86400 \
	--backoff-limit 0 \
	--queue research --min-available 16 --priority-class training-high \
	--schedule-timeout-seconds 1800 \
	-- python -m pretrain --config /data/configs/base.yaml
