# stack/parts/trainer.sh: JobSet ($JOBSET_VERSION) and Kubeflow Trainer v2 ($TRAINER_VERSION),
# built by stack/build.sh jobset trainer, as host processes with their webhooks by URL on
# loopback, and the jax-distributed ClusterTrainingRuntime from Trainer's module. Facts:
# - JobSet v0.12.0: main.go takes --leader-elect/--metrics-bind-address/--health-probe-bind-
#   address over the Configuration (flag.Visit); webhook.certDir is honoured by its webhook
#   server, while its rotator waits on the literal /tmp/k8s-webhook-server/serving-certs
#   (pkg/util/cert/cert.go: namespace jobset-system without a service-account file, CAName
#   jobset-ca, configurations jobset-{validating,mutating}-webhook-configuration). The mutating
#   webhook is required: it defaults what the controller dereferences (pkg/webhooks/
#   jobset_webhook.go Default). The pod entries keep the objectSelector of
#   config/components/webhook/patches/*.yaml (pods labelled jobset.sigs.k8s.io/jobset-name).
# - Trainer v2.3.0: cmd/trainer-controller-manager/main.go starts controllers and webhooks once
#   the rotator is ready (pkg/util/cert/cert.go: namespace kubeflow-system, CAName
#   kubeflow-trainer-ca, literal /tmp cert dir; the webhook server reads TMPDIR's), configurations
#   validator.trainer.kubeflow.org / defaulter.trainer.kubeflow.org (manifests/base/webhook/
#   patch_*.yaml rename them). "JobSet CRDs must be installed in advance" (pkg/runtime/framework/
#   plugins/jobset/jobset.go). Applying a runtime calls Trainer's webhook: it comes last.
# Env it adds to DIR/env: JOBSET_{WEBHOOK,HEALTH}_PORT, TRAINER_{WEBHOOK,HEALTH}_PORT.
# shellcheck shell=bash
# shellcheck source=ops.lib
. "$STACK_DIR/parts/ops.lib"

jobset_config() {
  cat <<YAML
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
webhook:
  host: 127.0.0.1
  port: $JOBSET_WEBHOOK_PORT
  certDir: $STACK_RUN/jobset/certs
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: true
  webhookServiceName: jobset-webhook-service
  webhookSecretName: jobset-webhook-server-cert
YAML
}

trainer_config() {
  cat <<YAML
apiVersion: config.trainer.kubeflow.org/v1alpha1
kind: Configuration
health:
  healthProbeBindAddress: 127.0.0.1:$TRAINER_HEALTH_PORT
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: $TRAINER_WEBHOOK_PORT
leaderElection:
  leaderElect: false
certManagement:
  enable: true
  webhookServiceName: kubeflow-trainer-controller-manager
  webhookSecretName: kubeflow-trainer-webhook-cert
YAML
}

# JobSet's mutating webhook answers through the apiserver: a server-side dry run comes back
# with the defaults it sets (successPolicy)
jobset_webhook_defaults() {
  local out
  out=$(ops_kubectl create --dry-run=server -o json -f - 2>/dev/null <<'JSON'
{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "stack-probe", "namespace": "default"},
 "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {"template": {"spec": {
   "restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}}]}}
JSON
  )
  [[ $out == *'"successPolicy"'* ]]
}

jobset_up() {
  local bin=$STACK_JOBSET_DIR/bin/jobset src
  stack_running jobset && return 0
  ops_port JOBSET_WEBHOOK_PORT
  ops_port JOBSET_HEALTH_PORT
  src=$STACK_CRDS_DIR/manifests/jobset-webhook
  ops_crds "$STACK_CRDS_DIR"/jobset/*.yaml || stack_die "JobSet's CRD was not established"
  ops_secret jobset-system jobset-webhook-server-cert || stack_die "JobSet's cert Secret was not created"
  "$OPS_PY" "$OPS_MANIFESTS" webhooks "$src/manifests.yaml" --prefix jobset- \
    --url "https://127.0.0.1:$JOBSET_WEBHOOK_PORT" --ca "$OPS_CERTS/ca.crt" \
    --patch "MutatingWebhookConfiguration=$src/patches/mutating-patch.yaml" \
    --patch "ValidatingWebhookConfiguration=$src/patches/validating-patch.yaml" | ops_apply ||
    stack_die "JobSet's webhook configurations were not applied"
  ops_install_certs "$STACK_RUN/jobset/certs" && jobset_config >"$STACK_RUN/jobset/config.yaml" ||
    stack_die "cannot write JobSet's config and certs under $STACK_RUN/jobset"
  stack_start jobset env TMPDIR="$(ops_tmpdir jobset)" "$bin" --config "$STACK_RUN/jobset/config.yaml" \
    --kubeconfig "$KUBECONFIG" --leader-elect=false --metrics-bind-address=0 \
    --health-probe-bind-address="127.0.0.1:$JOBSET_HEALTH_PORT" --zap-log-level=info
  stack_wait "${STACK_JOBSET_TIMEOUT:-120}" jobset jobset ops_readyz "$JOBSET_HEALTH_PORT"
  stack_wait 30 "JobSet's mutating webhook" jobset jobset_webhook_defaults
}

trainer_up() {
  local bin=$STACK_TRAINER_DIR/bin/trainer-controller-manager src
  stack_running trainer || {
    ops_port TRAINER_WEBHOOK_PORT
    ops_port TRAINER_HEALTH_PORT
    src=$STACK_CRDS_DIR/manifests/trainer-webhook
    ops_crds "$STACK_CRDS_DIR"/trainer/*.yaml || stack_die "Trainer's CRDs were not established"
    ops_secret kubeflow-system kubeflow-trainer-webhook-cert || stack_die "Trainer's cert Secret was not created"
    "$OPS_PY" "$OPS_MANIFESTS" webhooks "$src/manifests.yaml" \
      --url "https://127.0.0.1:$TRAINER_WEBHOOK_PORT" --ca "$OPS_CERTS/ca.crt" \
      --patch "MutatingWebhookConfiguration=$src/patch_mutating.yaml" \
      --patch "ValidatingWebhookConfiguration=$src/patch_validating.yaml" | ops_apply ||
      stack_die "Trainer's webhook configurations were not applied"
    mkdir -p "$STACK_RUN/trainer" && trainer_config >"$STACK_RUN/trainer/config.yaml" ||
      stack_die "cannot write $STACK_RUN/trainer/config.yaml"
    stack_start trainer env TMPDIR="$(ops_tmpdir trainer)" "$bin" --config "$STACK_RUN/trainer/config.yaml" \
      --kubeconfig "$KUBECONFIG" --zap-log-level=info
    stack_wait "${STACK_TRAINER_TIMEOUT:-120}" trainer trainer ops_readyz "$TRAINER_HEALTH_PORT"
  }
  # the runtime goes through Trainer's validating webhook (retried while it settles)
  stack_wait 60 "the jax-distributed ClusterTrainingRuntime (Trainer's webhook)" trainer \
    ops_apply_file "$STACK_CRDS_DIR/trainer-runtimes/jax_distributed.yaml"
}

ops_apply_file() { "$OPS_PY" "$OPS_MANIFESTS" plain "$1" | ops_apply; }

part_up() {
  ops_need "$STACK_JOBSET_DIR/bin/jobset" jobset
  ops_need "$STACK_TRAINER_DIR/bin/trainer-controller-manager" trainer
  ops_need "$STACK_CRDS_DIR/trainer-runtimes/jax_distributed.yaml" crds
  ops_certs || stack_die "the webhook certificates ($OPS_CERTS) could not be made"
  jobset_up || return 1
  trainer_up
}
