# stack/parts/controlplane.sh: etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# at $KUBERNETES_VERSION from the cache (stack/build.sh etcd kube), on free loopback ports.
# Writes DIR/env with the variables of ../shared/tools/kube-control-plane/up.sh's env file.
# shellcheck shell=bash

cp_host_ip() { # the first global IPv4 address (aggregated APIs need a non-loopback endpoint)
  local ip=${STACK_HOST_IP:-}
  [ -n "$ip" ] || ip=$(ip -o -4 addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n 1)
  [ -n "$ip" ] || ip=$(hostname -I 2>/dev/null | awk '{print $1}')
  [ -n "$ip" ] || stack_die "no non-loopback IPv4 address on this host (set STACK_HOST_IP)"
  echo "$ip"
}

cp_pki() { # generated once per DIR
  local p=$STACK_RUN/pki leaf="basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment" ca
  [ -f "$p/done" ] && return 0
  # STACK_PKI_CACHE: reuse one set of keys across the stacks of a test run (RSA keys cost
  # seconds on a busy machine); filled once, built aside and renamed
  local cache=${STACK_PKI_CACHE:-}
  if [ -n "$cache" ] && [ -f "$cache/pki/done" ] && [ "$(cat "$cache/host-ip" 2>/dev/null)" = "$HOST_IP" ]; then
    cp -a "$cache/pki/." "$p/" && cp -p "$cache"/*.token "$STACK_RUN/" && return 0
  fi
  for ca in ca front-proxy-ca; do
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -sha256 -keyout "$p/$ca.key" -out "$p/$ca.crt" \
      -subj "/CN=jaxjob-stack-$ca" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
  done
  stack_sign apiserver "/CN=kube-apiserver" "$leaf\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost,IP:$HOST_IP,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  stack_sign admin "/O=system:masters/CN=admin" "$leaf\nextendedKeyUsage=clientAuth"
  stack_sign kube-controller-manager "/CN=system:kube-controller-manager" "$leaf\nextendedKeyUsage=clientAuth"
  stack_sign kube-scheduler "/CN=system:kube-scheduler" "$leaf\nextendedKeyUsage=clientAuth"
  stack_sign kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "$leaf\nextendedKeyUsage=clientAuth"
  stack_sign front-proxy-client "/CN=front-proxy-client" "$leaf\nextendedKeyUsage=clientAuth" front-proxy-ca
  openssl genrsa -out "$p/sa.key" 2048 2>/dev/null
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub" 2>/dev/null
  local admin nobody
  admin=$(openssl rand -hex 24) nobody=$(openssl rand -hex 24)
  printf '%s' "$admin" >"$STACK_RUN/admin.token"
  printf '%s' "$nobody" >"$STACK_RUN/nobody.token"
  printf '%s,admin,uid-admin,"system:masters"\n%s,nobody,uid-nobody\n' "$admin" "$nobody" >"$p/tokens.csv"
  chmod 600 "$p"/*.key "$p/tokens.csv" "$STACK_RUN/admin.token" "$STACK_RUN/nobody.token"
  touch "$p/done"
  if [ -n "$cache" ] && [ ! -e "$cache" ]; then
    local tmp
    tmp=$(mktemp -d "$cache.XXXXXX") && cp -a "$p" "$tmp/pki" && cp -p "$STACK_RUN"/*.token "$tmp/" &&
      echo "$HOST_IP" >"$tmp/host-ip" && mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
  fi
}

cp_kubeconfig() { # FILE USER-YAML
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: stack
  cluster: {server: "$KUBE_SERVER", certificate-authority-data: "$(base64 -w0 <"$STACK_RUN/pki/ca.crt")"}
users:
- name: user
  user: $2
contexts:
- name: stack
  context: {cluster: stack, user: user, namespace: default}
current-context: stack
KC
  chmod 600 "$1"
}
cp_cert_user() { echo "{client-certificate-data: \"$(base64 -w0 <"$STACK_RUN/pki/$1.crt")\", client-key-data: \"$(base64 -w0 <"$STACK_RUN/pki/$1.key")\"}"; }

cp_config() { # ports (kept for the life of DIR, so a restarted piece comes back where it was)
  if [ -f "$STACK_RUN/env" ] && grep -q '^export APISERVER_PORT=' "$STACK_RUN/env"; then
    . "$STACK_RUN/env"
    return 0
  fi
  local p
  read -r -a p <<<"$(stack_ports 5)"
  HOST_IP=$(cp_host_ip)
  stack_env KCP_DIR "$STACK_RUN"
  stack_env STACK_RUN "$STACK_RUN"
  stack_env STACK_KUBERNETES_VERSION "$KUBERNETES_VERSION"
  stack_env STACK_HOST_IP "$HOST_IP"
  stack_env APISERVER_PORT "${p[0]}"
  stack_env ETCD_PORT "${p[1]}"
  stack_env ETCD_PEER_PORT "${p[2]}"
  stack_env KCM_PORT "${p[3]}"
  stack_env SCHEDULER_PORT "${p[4]}"
  stack_env KUBE_SERVER "https://127.0.0.1:${p[0]}"
  stack_env KUBE_CA "$STACK_RUN/pki/ca.crt"
  stack_env KUBE_PKI "$STACK_RUN/pki"
  stack_env KUBE_TOKEN_FILE "$STACK_RUN/admin.token"
  stack_env KUBE_NOBODY_TOKEN_FILE "$STACK_RUN/nobody.token"
  stack_env KUBECONFIG "$STACK_RUN/admin.kubeconfig"
  stack_env KUBECTL "$STACK_KUBE_DIR/bin/kubectl"
  stack_env KCP_AUDIT_LOG "$STACK_RUN/logs/audit.log"
  stack_env KCP_PIDS "$STACK_RUN/pids"
  stack_env ETCDCTL_API 3
  stack_env ETCDCTL_ENDPOINTS "http://127.0.0.1:${p[1]}"
}

cp_etcd() {
  stack_running etcd && return 0
  stack_start etcd "$STACK_ETCD_DIR/bin/etcd" --name stack --data-dir "$STACK_RUN/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "stack=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
    --quota-backend-bytes 8589934592 --logger zap --log-outputs stderr
  stack_wait 60 etcd etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"
}

cp_apiserver_ready() { curl -sf --cacert "$KUBE_CA" -H "Authorization: Bearer $(cat "$KUBE_TOKEN_FILE")" "$KUBE_SERVER/readyz"; }
cp_apiserver() {
  stack_running apiserver && return 0
  local p=$STACK_RUN/pki
  cat >"$STACK_RUN/audit-policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
YAML
  # shellcheck disable=SC2086
  stack_start apiserver "$STACK_KUBE_DIR/bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$APISERVER_PORT" \
    --advertise-address "$STACK_HOST_IP" --endpoint-reconciler-type none \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --client-ca-file "$p/ca.crt" --token-auth-file "$p/tokens.csv" \
    --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --kubelet-client-certificate "$p/kubelet-client.crt" --kubelet-client-key "$p/kubelet-client.key" \
    --kubelet-certificate-authority "$p/ca.crt" --kubelet-preferred-address-types InternalIP \
    --requestheader-client-ca-file "$p/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$p/front-proxy-client.crt" --proxy-client-key-file "$p/front-proxy-client.key" \
    --enable-aggregator-routing=true --enable-priority-and-fairness=true \
    --audit-policy-file "$STACK_RUN/audit-policy.yaml" --audit-log-path "$KCP_AUDIT_LOG" \
    --audit-log-maxsize 2000 --audit-log-maxbackup 3 \
    --allow-privileged=true --profiling=false --v 1 ${APISERVER_EXTRA_ARGS:-}
  stack_wait "${STACK_APISERVER_TIMEOUT:-240}" kube-apiserver apiserver cp_apiserver_ready
}

cp_kcm() {
  stack_running kcm && return 0
  mkdir -p "$STACK_RUN/kcm"
  stack_start kcm "$STACK_KUBE_DIR/bin/kube-controller-manager" \
    --kubeconfig "$STACK_RUN/kcm.kubeconfig" \
    --authentication-kubeconfig "$STACK_RUN/kcm.kubeconfig" --authorization-kubeconfig "$STACK_RUN/kcm.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --cert-dir "$STACK_RUN/kcm" \
    --controllers "${STACK_KCM_CONTROLLERS:-job-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,endpoints-controller,endpointslice-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller,ttl-after-finished-controller,pod-garbage-collector-controller,node-lifecycle-controller,taint-eviction-controller}" \
    --service-account-private-key-file "$STACK_RUN/pki/sa.key" --root-ca-file "$STACK_RUN/pki/ca.crt" \
    --use-service-account-credentials=true --leader-elect=false --v 1
  stack_wait 120 kube-controller-manager kcm curl -sfk "https://127.0.0.1:$KCM_PORT/healthz"
}

cp_scheduler() {
  stack_running scheduler && return 0
  cat >"$STACK_RUN/scheduler.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $STACK_RUN/scheduler.kubeconfig
leaderElection:
  leaderElect: false
YAML
  stack_start scheduler "$STACK_KUBE_DIR/bin/kube-scheduler" --config "$STACK_RUN/scheduler.yaml" \
    --authentication-kubeconfig "$STACK_RUN/scheduler.kubeconfig" --authorization-kubeconfig "$STACK_RUN/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT" --v 1
  stack_wait 120 kube-scheduler scheduler curl -sfk "https://127.0.0.1:$SCHEDULER_PORT/readyz"
}

part_up() {
  local b miss=
  for b in "$STACK_ETCD_DIR/bin/etcd" "$STACK_KUBE_DIR/bin/kube-apiserver" \
    "$STACK_KUBE_DIR/bin/kube-controller-manager" "$STACK_KUBE_DIR/bin/kube-scheduler" "$STACK_KUBE_DIR/bin/kubectl"; do
    [ -x "$b" ] || miss="$miss $b"
  done
  [ -z "$miss" ] || stack_die "missing:$miss (make stack builds them)"
  for b in openssl curl; do command -v "$b" >/dev/null || stack_die "missing tool: $b"; done
  HOST_IP=$(cp_host_ip)
  cp_config
  cp_pki
  cp_kubeconfig "$STACK_RUN/admin.kubeconfig" "$(cp_cert_user admin)"
  cp_kubeconfig "$STACK_RUN/kcm.kubeconfig" "$(cp_cert_user kube-controller-manager)"
  cp_kubeconfig "$STACK_RUN/scheduler.kubeconfig" "$(cp_cert_user kube-scheduler)"
  cp_kubeconfig "$STACK_RUN/admin-token.kubeconfig" "{token: \"$(cat "$KUBE_TOKEN_FILE")\"}"
  cp_kubeconfig "$STACK_RUN/nobody-token.kubeconfig" "{token: \"$(cat "$KUBE_NOBODY_TOKEN_FILE")\"}"
  cp_etcd
  cp_apiserver
  cp_kcm
  cp_scheduler
}
