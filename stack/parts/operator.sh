# stack/parts/operator.sh: the Kubeflow training operator ($TRAINING_OPERATOR_VERSION, built by
# stack/build.sh training-operator) as a host process, JAXJob only, with its validating webhook
# called by URL on loopback. Facts (training-operator v1.9.4):
# - cmd/training-operator.v1/main.go: cert management cannot be turned off; controllers and
#   webhooks register only once the rotator says the certs are ready; /readyz answers once they
#   are and the webhook server has started. Flags used: --enable-scheme=jaxjob (otherwise every
#   kind, whose CRDs must then all exist), --leader-elect=false (its default), the ports
#   (defaults 8080/8081/9443 collide with other controllers and stacks).
# - pkg/cert/cert.go: namespace from MY_POD_NAMESPACE else kubeflow, Secret
#   training-operator-webhook-cert (flag default), service training-operator, CAName
#   training-operator-ca; the rotator injects the CA into the ValidatingWebhookConfiguration
#   validator.training-operator.kubeflow.org (main.go webhookConfigurationName).
# - manifests/base/webhook/manifests.yaml: entry validator.jaxjob.training-operator.kubeflow.org,
#   path /validate-kubeflow-org-v1-jaxjob, CREATE/UPDATE, failurePolicy Fail.
# Env it adds to DIR/env: OPERATOR_WEBHOOK_PORT, OPERATOR_HEALTH_PORT.
# shellcheck shell=bash
# shellcheck source=ops.lib
. "$STACK_DIR/parts/ops.lib"

operator_vwc() {
  local ca
  ca=$(base64 -w0 <"$OPS_CERTS/ca.crt")
  cat <<JSON
{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
 "metadata": {"name": "validator.training-operator.kubeflow.org"},
 "webhooks": [{"name": "validator.jaxjob.training-operator.kubeflow.org",
   "admissionReviewVersions": ["v1"], "sideEffects": "None", "failurePolicy": "Fail",
   "clientConfig": {"url": "https://127.0.0.1:$OPERATOR_WEBHOOK_PORT/validate-kubeflow-org-v1-jaxjob", "caBundle": "$ca"},
   "rules": [{"apiGroups": ["kubeflow.org"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
              "resources": ["jaxjobs"]}]}]}
JSON
}

# the webhook answers through the apiserver: a JAXJob without a "jax" container is denied
operator_webhook_denies() {
  local out
  out=$(ops_kubectl create --dry-run=server -f - 2>&1 <<'JSON'
{"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "stack-probe", "namespace": "default"},
 "spec": {"jaxReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {"containers": [
   {"name": "not-jax", "image": "x"}]}}}}}}
JSON
  )
  [[ $out == *'admission webhook "validator.jaxjob.training-operator.kubeflow.org" denied'* ]]
}

part_up() {
  local bin=$STACK_TO_DIR/bin/training-operator tmp
  ops_need "$bin" training-operator
  ops_need "$STACK_CRDS_DIR/training-operator/kubeflow.org_jaxjobs.yaml" crds
  stack_running training-operator && return 0
  ops_port OPERATOR_WEBHOOK_PORT
  ops_port OPERATOR_HEALTH_PORT
  ops_certs || stack_die "the webhook certificates ($OPS_CERTS) could not be made"
  ops_crds "$STACK_CRDS_DIR/training-operator/kubeflow.org_jaxjobs.yaml" || stack_die "the JAXJob CRD was not established"
  ops_secret kubeflow training-operator-webhook-cert || stack_die "the operator's cert Secret was not created"
  operator_vwc | ops_apply || stack_die "the operator's ValidatingWebhookConfiguration was not applied"
  tmp=$(ops_tmpdir training-operator) || stack_die "the operator's cert dirs could not be written"
  stack_start training-operator env TMPDIR="$tmp" MY_POD_NAMESPACE=kubeflow "$bin" \
    --kubeconfig "$KUBECONFIG" --enable-scheme=jaxjob --leader-elect=false \
    --metrics-bind-address=0 --health-probe-bind-address="127.0.0.1:$OPERATOR_HEALTH_PORT" \
    --webhook-server-port="$OPERATOR_WEBHOOK_PORT" --zap-log-level=info
  stack_wait "${STACK_OPERATOR_TIMEOUT:-120}" training-operator training-operator ops_readyz "$OPERATOR_HEALTH_PORT"
  stack_wait 30 "training-operator's webhook" training-operator operator_webhook_denies
}
