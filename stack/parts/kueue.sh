# stack/parts/kueue.sh: Kueue ($KUEUE_VERSION, built by stack/build.sh kueue) as a host process
# with the kubeflow.org/jaxjob, trainer.kubeflow.org/trainjob and batch/job integrations, its
# webhooks and CRD conversion by URL on loopback, and its visibility API served through the
# apiserver's aggregation layer. Facts (kubernetes-sigs/kueue v0.17.1):
# - cmd/kueue/main.go: with internalCertManagement off, the metrics cert watcher reads the
#   hard-coded /etc/kueue/metrics/certs and a missing file ends Kueue; so it stays on (the
#   default), and then pkg/util/cert/cert.go BootstrapCerts blocks start-up until the rotator
#   (CertDir = webhook.certDir, CAName kueue-ca, Secret <webhookSecretName> in <namespace>,
#   DNS <webhookServiceName>.<namespace>.svc) has the files and has injected the CA into
#   kueue-{validating,mutating}-webhook-configuration and the conversion webhook of the CRDs
#   localqueues, clusterqueues, workloads, cohorts, multikueueclusters; a listed CRD without
#   spec.conversion.webhook.clientConfig is an error (cert-controller v0.16.0
#   injectCertToConversionWebhook). Those five get conversion by URL here, as
#   config/components/crd/kustomization.yaml patches them (webhook_in_*.yaml, path /convert).
# - leaderElection.leaderElect defaults to true: set false. The webhook entries registered are
#   those of the integrations enabled and Kueue's own kinds (config/components/webhook/
#   manifests.yaml, names kept below); every one is failurePolicy Fail, so an entry whose
#   server does not serve it would reject its kind.
# - pkg/visibility/server.go: the visibility server's cert dir is the literal /visibility
#   (apiserver.{crt,key}, self-signed there if absent: pre-written here, same bytes for every
#   stack); its delegated authn/authz kubeconfig comes only from the --kubeconfig flag.
#   APIServices v1beta1 and v1beta2 (config/components/visibility/*, insecureSkipTLSVerify)
#   name the Service kueue-visibility-server (namePrefix kueue-); the apiserver routes to its
#   endpoints (--enable-aggregator-routing=true), which may not be loopback
#   (ValidateNonSpecialIP), so a selector-less Service with an EndpointSlice (and Endpoints)
#   at $STACK_HOST_IP:KUEUE_VISIBILITY_PORT.
# Env it adds to DIR/env: KUEUE_WEBHOOK_PORT, KUEUE_HEALTH_PORT, KUEUE_VISIBILITY_PORT.
# shellcheck shell=bash
# shellcheck source=ops.lib
. "$STACK_DIR/parts/ops.lib"

KUEUE_HOOKS=mclusterqueue.kb.io,mresourceflavor.kb.io,mworkload.kb.io,mjaxjob.kb.io,mtrainjob.kb.io,mjob.kb.io
KUEUE_HOOKS=$KUEUE_HOOKS,vclusterqueue.kb.io,vcohort.kb.io,vresourceflavor.kb.io,vworkload.kb.io
KUEUE_HOOKS=$KUEUE_HOOKS,vjaxjob.kb.io,vtrainjob.kb.io,vjob.kb.io

kueue_config() {
  cat <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health:
  healthProbeBindAddress: 127.0.0.1:$KUEUE_HEALTH_PORT
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: $KUEUE_WEBHOOK_PORT
  certDir: $STACK_RUN/kueue/certs
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: true
  webhookServiceName: kueue-webhook-service
  webhookSecretName: kueue-webhook-server-cert
visibilityServer:
  bindAddress: $STACK_HOST_IP
  bindPort: $KUEUE_VISIBILITY_PORT
integrations:
  frameworks:
  - batch/job
  - kubeflow.org/jaxjob
  - trainer.kubeflow.org/trainjob
YAML
}

kueue_aggregation() {
  local v out='{"apiVersion": "v1", "kind": "List", "items": ['
  out="$out"'{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "kueue-visibility-server", "namespace": "kueue-system"},
   "spec": {"ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": '"$KUEUE_VISIBILITY_PORT"'}]}},
  {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
   "metadata": {"name": "kueue-visibility-server", "namespace": "kueue-system",
                "labels": {"kubernetes.io/service-name": "kueue-visibility-server",
                           "endpointslice.kubernetes.io/managed-by": "jaxjob-stack"}},
   "addressType": "IPv4", "endpoints": [{"addresses": ["'"$STACK_HOST_IP"'"], "conditions": {"ready": true}}],
   "ports": [{"name": "https", "port": '"$KUEUE_VISIBILITY_PORT"', "protocol": "TCP"}]}'
  for v in v1beta1 v1beta2; do
    out="$out"',{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
   "metadata": {"name": "'"$v"'.visibility.kueue.x-k8s.io"},
   "spec": {"group": "visibility.kueue.x-k8s.io", "version": "'"$v"'", "groupPriorityMinimum": 100,
            "versionPriority": 100, "insecureSkipTLSVerify": true,
            "service": {"name": "kueue-visibility-server", "namespace": "kueue-system", "port": 443}}}'
  done
  echo "$out]}"
}

# the aggregated API answers: a list through the apiserver
kueue_visibility_ready() {
  local out
  out=$(ops_kubectl get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/stack-probe/pendingworkloads 2>&1)
  [[ $out == *PendingWorkloadsSummary* || $out == *'"stack-probe" not found'* ]]
}

part_up() {
  local bin=$STACK_KUEUE_DIR/bin/kueue src tmp f
  local -a crds=() conv=() c=()
  ops_need "$bin" kueue
  ops_need "$STACK_CRDS_DIR/manifests/kueue-webhook/manifests.yaml" crds
  stack_running kueue && return 0
  ops_port KUEUE_WEBHOOK_PORT
  ops_port KUEUE_HEALTH_PORT
  ops_port KUEUE_VISIBILITY_PORT
  ops_certs || stack_die "the webhook certificates ($OPS_CERTS) could not be made"
  src=$STACK_CRDS_DIR/manifests/kueue-webhook
  ops_install_certs "$STACK_RUN/kueue/certs" || stack_die "Kueue's cert dir could not be written"
  # CRDs: the five the rotator injects get conversion by URL, the rest as shipped
  for f in "$STACK_CRDS_DIR"/kueue/*.yaml; do
    case $(basename "$f") in
      kueue.x-k8s.io_localqueues.yaml | kueue.x-k8s.io_clusterqueues.yaml | kueue.x-k8s.io_workloads.yaml | \
        kueue.x-k8s.io_cohorts.yaml | kueue.x-k8s.io_multikueueclusters.yaml) conv+=("$f") ;;
      *) crds+=("$f") ;;
    esac
  done
  "$OPS_PY" "$OPS_MANIFESTS" conversion "${conv[@]}" --url "https://127.0.0.1:$KUEUE_WEBHOOK_PORT" \
    --ca "$OPS_CERTS/ca.crt" | ops_apply || stack_die "Kueue's CRDs (with conversion) were not applied"
  ops_crds "${crds[@]}" || stack_die "Kueue's CRDs were not established"
  for f in "${conv[@]}"; do c+=("$(basename "$f" .yaml | sed 's/^\(kueue.x-k8s.io\)_\(.*\)/\2.\1/')"); done
  stack_wait 60 "Kueue's CRDs with conversion Established" - ops_established "${c[@]}"
  ops_secret kueue-system kueue-webhook-server-cert || stack_die "Kueue's cert Secret was not created"
  "$OPS_PY" "$OPS_MANIFESTS" webhooks "$src/manifests.yaml" --prefix kueue- \
    --url "https://127.0.0.1:$KUEUE_WEBHOOK_PORT" --ca "$OPS_CERTS/ca.crt" --keep "$KUEUE_HOOKS" | ops_apply ||
    stack_die "Kueue's webhook configurations were not applied"
  kueue_aggregation | ops_apply || stack_die "Kueue's APIServices, Service and EndpointSlice were not applied"
  kueue_config >"$STACK_RUN/kueue/config.yaml" || stack_die "cannot write $STACK_RUN/kueue/config.yaml"
  # /visibility: the literal cert dir of the visibility server (absent: it self-signs there)
  { ops_put "$OPS_CERTS/tls.crt" /visibility/apiserver.crt && ops_put "$OPS_CERTS/tls.key" /visibility/apiserver.key; } ||
    stack_die "cannot write /visibility/apiserver.{crt,key} (Kueue's visibility server reads that literal path)"
  tmp=$STACK_RUN/tmp/kueue
  mkdir -p "$tmp"
  stack_start kueue env TMPDIR="$tmp" "$bin" --config "$STACK_RUN/kueue/config.yaml" --kubeconfig "$KUBECONFIG" \
    --zap-log-level=info
  stack_wait "${STACK_KUEUE_TIMEOUT:-120}" kueue kueue ops_readyz "$KUEUE_HEALTH_PORT"
  stack_wait 60 "Kueue's visibility API through the aggregation layer" kueue kueue_visibility_ready
}
