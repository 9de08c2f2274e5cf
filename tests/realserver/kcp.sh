# tests/realserver/kcp.sh - sourced (bash): a real control plane (../shared/tools/kube-control-plane)
# with the simulated operator/kubelet (operator.py), for suites and benchmarks. See README.md.
#
#   kcp_check                 0: can run; 1: cannot, $KCP_WHY says why (skip); 2: ../shared is
#                             present but something it needs is missing (a failure, not a skip)
#   kcp_up DIR                bring it up in DIR (free loopback ports), export its env (KUBE_SERVER,
#                             KUBECONFIG, KCP_AUDIT_LOG, ...), start the operator; KCP_KUBECONFIG
#                             is a token kubeconfig whose namespace is team-a. Registers every
#                             token/key in $JAXJOB_TMP/secrets.list. Returns non-zero on failure.
#   kcp_down [--graceful]     stop the operator and the control plane (idempotent; call from a trap);
#                             SIGKILL unless --graceful (down.sh: SIGTERM, state kept)
#   kcp_kill_apiserver        SIGKILL the kube-apiserver and wait until it is gone
#   kcp_start_apiserver       start it again (same etcd, same certificates), wait until ready
#   kcp_ctl METHOD PATH [JSON|@FILE]  call the API as admin (client certificate); body on stdout,
#                             non-zero exit on an HTTP error (PATCH is a merge patch)
#   kcp_audit UA_PREFIX       every request in the audit log of clients whose user agent starts with
#                             UA_PREFIX, one JSON line each {verb, uri, code, ua, user, time}
#   kcp_secret FILE           register a file's content (a minted token) in secrets.list
#   kcp_token NS SA FILE      mint a 10-minute token of service account NS/SA (TokenRequest API,
#                             what `kubectl create token` does from kubectl 1.24 on) into FILE
#   kcp_stop_operator, kcp_start_operator   play the operator yourself for a while
#   kcp_wait_established CRD...             until the apiserver serves those CRDs
#   jaxjob_begun PID          jaxjob's own code runs in PID (signals held or caught): see below
#
# The control plane runs in sessions of its own (setsid, as up.sh starts it): a watchdog started by
# kcp_up kills it when the shell that called kcp_up is gone without kcp_down (SIGKILL, a runner
# killing the suite), so no test leaves an apiserver behind.
#
# Needs: bash, openssl, curl, kubectl, etcd (Debian etcd-server), /usr/bin/python3.
KCP_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KCP_TOOL=${KCP_TOOL:-${JAXJOB_SHARED:+$JAXJOB_SHARED/tools/kube-control-plane}}
KCP_PY=${KCP_PY:-/usr/bin/python3}
KCP_WHY=

# The backend: the real stack (stack/up.sh: Kubernetes, the training operator, Kueue, Trainer
# v2, built from the registries into $JAXJOB_CACHE by `make stack`) when KCP_BACKEND=stack (make
# check-real sets it) or, unset, when its cache is built; else the 1.24 plane of ../shared.
KCP_TOP=$(cd "$KCP_HERE/../.." && pwd)
kcp_stack_built() { # 0 when every binary stack/up.sh starts is in the cache; else KCP_WHY says
	local f miss=
	# shellcheck disable=SC1091
	. "$KCP_TOP/stack/lib.sh" || return 1
	for f in "$STACK_ETCD_DIR/bin/etcd" "$STACK_KUBE_DIR/bin/kube-apiserver" \
		"$STACK_KUBE_DIR/bin/kube-controller-manager" "$STACK_KUBE_DIR/bin/kube-scheduler" \
		"$STACK_KUBE_DIR/bin/kubectl" "$STACK_TO_DIR/bin/training-operator"; do
		[ -x "$f" ] || miss="$miss ${f#"$JAXJOB_CACHE"/}"
	done
	[ -d "$STACK_CRDS_DIR" ] || miss="$miss ${STACK_CRDS_DIR#"$JAXJOB_CACHE"/}"
	[ -z "$miss" ] && return 0
	KCP_WHY="the real stack is not built in $JAXJOB_CACHE (missing:$miss): run make stack (cold: ~40 min on 2 cores, then cached)"
	return 1
}
# make check-real sets JAXJOB_REAL=1: the real stack, which must then be built (a failure, not a
# skip, when it is not). Otherwise, where the stack is built, a skip naming make check-real (which
# .ci/run runs there); else the 1.24 plane of ../shared where it is (KCP_FORCE_1_24=1 takes it
# even beside a built stack), else a skip naming make check-real.
# kcp_stack_has kueue|trainer: that optional part of the stack is built
kcp_stack_has() {
	# shellcheck disable=SC1091
	[ -n "${STACK_KUEUE_DIR:-}" ] || . "$KCP_TOP/stack/lib.sh" || return 1
	case $1 in
	kueue) [ -x "$STACK_KUEUE_DIR/bin/kueue" ] ;;
	trainer) [ -x "$STACK_TRAINER_DIR/bin/trainer-controller-manager" ] && [ -x "$STACK_JOBSET_DIR/bin/jobset" ] ;;
	*) return 1 ;;
	esac
}
if [ -z "${KCP_BACKEND:-}" ]; then
	if [ -n "${JAXJOB_REAL:-}" ]; then KCP_BACKEND=stack; else KCP_BACKEND=kcp124; fi
fi

kcp_check() {
	local c
	if [ "$KCP_BACKEND" = stack ]; then
		kcp_stack_built || return 2
		for c in openssl curl; do
			command -v "$c" >/dev/null 2>&1 || { KCP_WHY="needed for the real stack but missing: $c (scripts/install-deps.sh installs it)"; return 2; }
		done
		[ -x "$KCP_PY" ] || { KCP_WHY="needed for the real stack but missing: $KCP_PY"; return 2; }
		return 0
	fi
	# the stack built here: these suites are make check-real's (.ci/run runs it), not run twice
	if [ -z "${KCP_FORCE_1_24:-}" ] && kcp_stack_built; then
		KCP_WHY="runs on the real stack in make check-real (built in $JAXJOB_CACHE)"
		return 1
	fi
	if [ -z "$KCP_TOOL" ] || [ ! -d "$KCP_TOOL" ]; then
		KCP_WHY="runs on the real stack in make check-real (it builds the stack once, cached in ${JAXJOB_CACHE:-~/.cache/jaxjob})"
		return 1
	fi
	local miss=
	[ -x "$KCP_TOOL/bin/kube-apiserver" ] || miss="$miss $KCP_TOOL/bin/kube-apiserver"
	[ -x "$KCP_TOOL/bin/kube-controller-manager" ] || miss="$miss $KCP_TOOL/bin/kube-controller-manager"
	local c hint=
	for c in etcd etcdctl kubectl openssl curl; do
		command -v "$c" >/dev/null 2>&1 || { miss="$miss $c"; hint=" (scripts/install-deps.sh installs them)"; }
	done
	[ -x "$KCP_PY" ] || miss="$miss $KCP_PY"
	if [ -n "$miss" ]; then
		KCP_WHY="needed for the real control plane but missing:$miss$hint"
		return 2
	fi
	return 0
}

# five free loopback ports (bound together, so they differ; released before use)
kcp_ports() {
	"$KCP_PY" -c '
import socket
ss = [socket.socket() for _ in range(5)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'
}

kcp_up() {
	[ "$KCP_BACKEND" = stack ] && { kcp_up_stack "$@"; return; }
	local dir=$1 p
	mkdir -p "$dir" || return 1
	KCP_DIR=$(cd "$dir" && pwd)
	export KCP_DIR
	read -r -a p <<<"$(kcp_ports)"
	export APISERVER_PORT=${p[0]} ETCD_PORT=${p[1]} ETCD_PEER_PORT=${p[2]} KCM_PORT=${p[3]} KUBELET_PORT=${p[4]}
	export PYTHON=$KCP_PY
	# up.sh's kubectl through kubectl-compat: apply without the OpenAPI download that timed
	# out under load, and the node status patch for a kubectl older than 1.24 (Debian
	# bookworm's 1.20)
	[ -n "${KUBECTL:-}" ] || export KUBECTL=$KCP_HERE/kubectl-compat
	KCP_UP=1
	# certificates and tokens: generated once per test run (RSA keys cost ~2 s on a busy machine)
	local cache=${JAXJOB_TMP:+$JAXJOB_TMP/kcp-pki-cache}
	if [ -n "$cache" ] && [ -f "$cache/pki/done" ] && [ ! -e "$KCP_DIR/pki" ]; then
		cp -a "$cache/pki" "$KCP_DIR/pki" && cp -p "$cache"/*.token "$KCP_DIR/"
	fi
	# up.sh gives the apiserver 90 s to be ready; beside a make check at JOBS=16 and two busy
	# loops (load 25-30) a first start took longer four times in one run. While its process
	# lives it is coming up: wait for it, then run up.sh again (it starts only what is not
	# running and goes on with the CRDs, the controller-manager, the kubelet and the node).
	if ! "$KCP_TOOL/up.sh" >"$KCP_DIR/up.log" 2>&1 &&
		! { grep -q "kube-apiserver not ready" "$KCP_DIR/up.log" && kcp_await_apiserver 180 &&
			"$KCP_TOOL/up.sh" >>"$KCP_DIR/up.log" 2>&1; }; then
		echo "kcp_up: up.sh failed:" >&2
		tail -n 20 "$KCP_DIR/up.log" >&2
		kcp_register_secrets
		return 1
	fi
	# shellcheck disable=SC1091
	. "$KCP_DIR/env"
	if [ -n "$cache" ] && [ ! -e "$cache" ]; then
		# built aside and renamed: a suite starting in parallel sees all of it or nothing
		local tmp
		tmp=$(mktemp -d "$cache.XXXXXX") && cp -a "$KCP_DIR/pki" "$tmp/" && cp -p "$KCP_DIR"/*.token "$tmp/" &&
			mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
	fi
	kcp_register_secrets
	# a token kubeconfig for the launcher, namespace team-a (kubeconfig* is never searched by 99-secrets)
	sed 's/namespace: default/namespace: team-a/' "$KCP_DIR/admin-token.kubeconfig" >"$KCP_DIR/kubeconfig"
	chmod 600 "$KCP_DIR/kubeconfig"
	KCP_KUBECONFIG=$KCP_DIR/kubeconfig
	# the rest through the API directly: each kubectl costs ~0.5-1 s of discovery on a busy machine
	kcp_ctl POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}' >/dev/null &&
		kcp_ctl POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions @"$KCP_HERE/crd-clustertrainingruntimes.json" >/dev/null &&
		kcp_ctl POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions @"$KCP_HERE/crd-trainingruntimes.json" >/dev/null &&
		kcp_wait_established clustertrainingruntimes.trainer.kubeflow.org trainingruntimes.trainer.kubeflow.org &&
		kcp_ctl POST /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes @"$KCP_HERE/runtime-jax-distributed.json" >/dev/null || {
		echo "kcp_up: cluster setup (namespace team-a, training runtimes) failed" >&2
		return 1
	}
	kcp_watchdog $$
	kcp_start_operator
}

# the real stack: stack/up.sh brings up every part (control plane, kubelet double, training
# operator, Trainer v2 + JobSet, Kueue); its env file exports what up.sh's of the 1.24 plane did
kcp_up_stack() {
	local dir=$1
	mkdir -p "$dir" || return 1
	KCP_DIR=$(cd "$dir" && pwd)
	export KCP_DIR
	KCP_UP=1
	# the parts whose binaries are built (Kueue and Trainer v2 + JobSet are optional:
	# kcp_stack_has tells a suite that needs one)
	local parts="controlplane kubelet operator"
	kcp_stack_has trainer && parts="$parts trainer"
	kcp_stack_has kueue && parts="$parts kueue"
	# (run-all already counts this suite's control plane: the slot is the runner's)
	if ! STACK_PARTS=${STACK_PARTS:-$parts} STACK_CP_SLOT=held STACK_PKI_CACHE=${JAXJOB_TMP:+$JAXJOB_TMP/stack-pki-cache} \
		"$KCP_TOP/stack/up.sh" "$KCP_DIR" >"$KCP_DIR/up.log" 2>&1; then
		echo "kcp_up: stack/up.sh failed:" >&2
		tail -n 25 "$KCP_DIR/up.log" >&2
		kcp_register_secrets
		return 1
	fi
	# shellcheck disable=SC1091
	. "$KCP_DIR/env"
	export PYTHON=$KCP_PY
	kcp_register_secrets
	sed 's/namespace: default/namespace: team-a/' "$KCP_DIR/admin-token.kubeconfig" >"$KCP_DIR/kubeconfig"
	chmod 600 "$KCP_DIR/kubeconfig"
	KCP_KUBECONFIG=$KCP_DIR/kubeconfig
	kcp_watchdog $$
	kcp_ctl POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}' >/dev/null || {
		echo "kcp_up: cluster setup (namespace team-a) failed" >&2
		return 1
	}
}

kcp_watchdog() { # PID: when PID is gone, kill what $KCP_DIR/pids names
	local pid=$1
	setsid bash -c '
		while kill -0 "$1" 2>/dev/null && [ -d "$2/pids" ]; do sleep 2; done	# sleep-ok: poll interval (until the caller is gone)
		for f in "$2"/pids/*.pid; do [ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done' \
		kcp-watchdog "$pid" "$KCP_DIR" >/dev/null 2>&1 </dev/null &
	disown $!
}

kcp_start_operator() {
	if [ "$KCP_BACKEND" = stack ]; then
		STACK_CP_SLOT=held "$KCP_TOP/stack/up.sh" "$KCP_DIR" operator >>"$KCP_DIR/up.log" 2>&1
		return
	fi
	rm -f "$KCP_DIR/operator.ready"
	setsid "$KCP_PY" "$KCP_HERE/operator.py" --env "$KCP_DIR/env" --ready-file "$KCP_DIR/operator.ready" \
		>>"$KCP_DIR/logs/operator.log" 2>&1 </dev/null &
	echo $! >"$KCP_DIR/pids/operator.pid"
	disown $!	# no "Killed" notice from this shell when kcp_down ends it
	local end=$((SECONDS + 120))	# a ceiling against hangs: its first lists take a while on a busy machine
	until [ -e "$KCP_DIR/operator.ready" ]; do
		if [ "$SECONDS" -ge "$end" ] || ! kill -0 "$(cat "$KCP_DIR/pids/operator.pid")" 2>/dev/null; then
			echo "kcp_up: the simulated operator did not start:" >&2
			tail -n 20 "$KCP_DIR/logs/operator.log" >&2
			return 1
		fi
		sleep 0.1	# sleep-ok: poll interval (until operator.ready exists)
	done
}

kcp_down() { # [--graceful]: by default SIGKILL (a test's cluster is thrown away with its directory)
	[ -n "${KCP_UP:-}" ] || return 0
	KCP_UP=
	local f pid
	if [ "${1:-}" = --graceful ] && [ "$KCP_BACKEND" = stack ]; then
		"$KCP_TOP/stack/down.sh" "$KCP_DIR" >>"$KCP_DIR/down.log" 2>&1
		return 0
	fi
	if [ "${1:-}" = --graceful ]; then
		kcp_stop_operator
		KCP_DIR=$KCP_DIR "$KCP_TOOL/down.sh" >>"$KCP_DIR/down.log" 2>&1
		return 0
	fi
	for f in "$KCP_DIR"/pids/*.pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		kill -KILL "$pid" 2>/dev/null
		while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done	# sleep-ok: poll interval (until the killed process is gone)
		rm -f "$f"
	done
	return 0
}

kcp_stop_operator() {
	[ "$KCP_BACKEND" = stack ] && { "$KCP_TOP/stack/down.sh" "$KCP_DIR" training-operator >>"$KCP_DIR/down.log" 2>&1; return 0; }
	local f=$KCP_DIR/pids/operator.pid pid
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	kill -TERM "$pid" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done	# sleep-ok: poll interval of a 2 s grace period before SIGKILL
	kill -KILL "$pid" 2>/dev/null
	rm -f "$f"
}

kcp_register_secrets() {
	local list=${JAXJOB_SECRETS_LIST:-${JAXJOB_TMP:+$JAXJOB_TMP/secrets.list}} f
	[ -n "$list" ] || return 0
	for f in "$KCP_DIR"/*.token; do
		[ -s "$f" ] && tr -d '\n' <"$f" && echo
	done | "$KCP_HERE/../lib/append-locked" "$list"
	for f in "$KCP_DIR"/pki/*.key "$KCP_DIR"/pki/*.crt; do
		[ -s "$f" ] || continue
		case $f in */ca.crt) continue ;; esac	# the CA certificate is public
		grep -v -- '-----' "$f" | awk 'length($0) >= 40'
		base64 -w0 <"$f" | cut -c 1-60
		echo
	done | "$KCP_HERE/../lib/append-locked" "$list"
}

kcp_secret() { # FILE: a token minted by a test
	local list=${JAXJOB_SECRETS_LIST:-${JAXJOB_TMP:+$JAXJOB_TMP/secrets.list}}
	[ -n "$list" ] && { tr -d '\n' <"$1"; echo; } | "$KCP_HERE/../lib/append-locked" "$list"
}

# jaxjob_begun PID: jaxjob's own code has run in PID - the earliest moment it can promise to act
# on a signal. SigBlk exactly SIGTERM (bit 15) and SIGINT (bit 2) (jaxjob.c hold_signals; before
# it the loader and the sanitizer runtime block every signal for moments: a mask with these two
# among the others is not ours), or, that window missed by a slow poll, both caught (the run's
# handler, launch_run.c prepare), on a process already exec'd as jaxjob (the forking shell's own
# traps are not ours). Read without a fork, so it can be polled fast.
jaxjob_begun() {
	local k v n= b= c=
	{ while read -r k v; do
		case $k in Name:) n=$v ;; SigBlk:) b=$v ;; SigCgt:) c=$v ;; esac
	done <"/proc/$1/status"; } 2>/dev/null || return 1
	[ "$n" = jaxjob ] || return 1
	[ "$b" = 0000000000004002 ] || { [ -n "$c" ] && [ $((0x$c & 0x4002)) = $((0x4002)) ]; }
}

kcp_kill_apiserver() {
	local pid
	pid=$(cat "$KCP_DIR/pids/apiserver.pid") || return 1
	kill -KILL "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done	# sleep-ok: poll interval (until the killed apiserver is gone)
	rm -f "$KCP_DIR/pids/apiserver.pid"
}

kcp_start_apiserver() {
	if [ "$KCP_BACKEND" = stack ]; then
		STACK_CP_SLOT=held "$KCP_TOP/stack/up.sh" "$KCP_DIR" controlplane >>"$KCP_DIR/up.log" 2>&1 && return 0
		kcp_await_apiserver 120
		return
	fi
	"$KCP_TOOL/up.sh" apiserver >>"$KCP_DIR/up.log" 2>&1 && return 0
	# up.sh waits 90 s for /readyz; a restarted apiserver re-reading a compacted etcd beside two
	# busy loops and another control plane took longer
	kcp_await_apiserver 120
}

# kcp_await_apiserver SECONDS: the apiserver whose process lives answers /readyz within
# SECONDS; a process that is gone fails at once
kcp_await_apiserver() {
	local pid end=$((SECONDS + $1))
	pid=$(cat "$KCP_DIR/pids/apiserver.pid" 2>/dev/null) || return 1
	while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
		# (up.sh's own readiness probe: before kcp_up sources the env file, the port is all
		# this shell knows of the server)
		curl -sf --cacert "$KCP_DIR/pki/ca.crt" -H "Authorization: Bearer $(cat "$KCP_DIR/admin.token")" \
			"https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null 2>&1 && return 0
		sleep 0.5	# sleep-ok: poll interval (until the apiserver is ready)
	done
	return 1
}

kcp_ctl() { # METHOD PATH [JSON|@FILE]
	local ctype=application/json out code
	[ "$1" = PATCH ] && ctype=application/merge-patch+json
	# (a user agent starting with "curl" gets indented JSON from the apiserver: say who we are)
	out=$(curl -sS -X "$1" --cacert "$KUBE_CA" --cert "$KCP_DIR/pki/admin.crt" --key "$KCP_DIR/pki/admin.key" \
		-A kcp-ctl/1 -H "Content-Type: $ctype" ${3:+--data-binary "$3"} -w '\n%{http_code}' "$KUBE_SERVER$2") || return 1
	code=${out##*$'\n'}
	printf '%s\n' "${out%$'\n'*}"
	case $code in 2*) return 0 ;; *) return 1 ;; esac
}

kcp_token() { # NS SA FILE: a TokenRequest (any kubectl: `create token` needs 1.24)
	kcp_ctl POST "/api/v1/namespaces/$1/serviceaccounts/$2/token" \
		'{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":600}}' |
		"$KCP_PY" -c 'import json, sys; print(json.load(sys.stdin)["status"]["token"])' >"$3"
}

kcp_wait_established() { # CRD...: until the apiserver serves them (90 s at most: a ceiling
	# against hangs; Kueue's large CRDs took over 30 s on a loaded 2-core machine)
	local c end=$((SECONDS + 90))
	for c in "$@"; do
		until kcp_ctl GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$c" 2>/dev/null |
			grep -q '"type":"Established","status":"True"'; do
			[ "$SECONDS" -lt "$end" ] || { echo "kcp_wait_established: $c not Established after 90 s" >&2; return 1; }
			sleep 0.2	# sleep-ok: poll interval (until the CRD is Established)
		done
	done
}

kcp_audit() { # UA_PREFIX: requests of that client, one JSON line each (a watch still open counts)
	"$KCP_PY" "$KCP_HERE/auditlog.py" "$KCP_AUDIT_LOG" "$1"
}
