# stack/parts/kubelet.sh: the kubelet double (stack/kubelet/kubelet.py, Python stdlib) for the
# real stack: Nodes with declared capacity, bound pods' containers as host processes, logs at
# https://$STACK_HOST_IP:$KUBELET_PORT/containerLogs/... (stack/kubelet/README.md).
# Sourced by stack/up.sh (DIR/env sourced, stack_* helpers exported); defines part_up.
# Knobs (env): STACK_NODES (1) nodes named STACK_NODE_PREFIX (node)-0..N-1; STACK_NODE_CPU (8),
# STACK_NODE_MEMORY (32Gi), STACK_NODE_GPUS (8 nvidia.com/gpu), STACK_KUBELET_ARGS (more flags,
# e.g. --backoff-initial 1 for fast crash loops in a test).
# shellcheck shell=bash

part_up() {
  stack_running kubelet && return 0
  local ip=${STACK_HOST_IP:-127.0.0.1} pki=$STACK_RUN/pki port
  [ -f "$pki/kubelet-serving.crt" ] ||
    stack_sign kubelet-serving "/O=system:nodes/CN=system:node:${STACK_NODE_PREFIX:-node}" \
      "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,IP:$ip,DNS:localhost"
  if [ -z "${KUBELET_PORT:-}" ]; then
    port=$(stack_ports 1)
    stack_env KUBELET_PORT "$port"
  fi
  stack_env KUBELET_ROOT "$STACK_RUN/kubelet"
  # <ns>/<pod>/<container>.log (+ .exited): the view suites read (operator.py's log root before)
  stack_env FAKE_KUBELET_LOG_ROOT "$KUBELET_ROOT/logs"
  local n=${STACK_NODES:-1} i names=
  for ((i = 0; i < n; i++)); do names="$names${names:+,}${STACK_NODE_PREFIX:-node}-$i"; done
  stack_env STACK_NODE_NAMES "$names"
  stack_env FAKE_NODE "${names%%,*}"
  rm -f "$STACK_RUN/kubelet.ready"
  # shellcheck disable=SC2086
  stack_start kubelet "$STACK_PY" "$STACK_DIR/kubelet/kubelet.py" \
    --server "$KUBE_SERVER" --ca "$KUBE_CA" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    --root "$KUBELET_ROOT" --node-names "$names" \
    --cpu "${STACK_NODE_CPU:-8}" --memory "${STACK_NODE_MEMORY:-32Gi}" --gpus "${STACK_NODE_GPUS:-8}" \
    --address "$ip" --port "$KUBELET_PORT" \
    --tls-cert "$pki/kubelet-serving.crt" --tls-key "$pki/kubelet-serving.key" --client-ca "$pki/ca.crt" \
    --ready-file "$STACK_RUN/kubelet.ready" ${STACK_KUBELET_ARGS:-}
  stack_wait 120 kubelet kubelet test -e "$STACK_RUN/kubelet.ready"
}
