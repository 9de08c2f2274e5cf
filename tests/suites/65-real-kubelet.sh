#!/usr/bin/env bash
# The kubelet double of the real stack (stack/kubelet/kubelet.py) holds a kubelet's contract,
# seen through a real kube-apiserver: its Node (capacity, Ready, a Lease it renews), a pod that
# runs with the downward API and the job's names resolving, logs followed with timestamps
# (tailLines, limitBytes, previous), exit code + restart + lastState, deletion with SIGTERM and
# SIGKILL after the grace period, the OOMKilled hook, and real JAX across two pods.
# On the real stack (stack/up.sh DIR controlplane kubelet; the kube-scheduler binds the pods)
# when its cache is built; else on ../shared's 1.24 plane with the simulated operator stopped
# (no scheduler there: the pods name their node). Neither: one SKIP line naming the command.
# run-all: uses control-plane
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/stack/lib.sh"
PY=/usr/bin/python3
NS=team-a
DESC="the kubelet double's contract"
JAXPY=$JAXJOB_CACHE/venv-jax-$JAX_VERSION/bin/python

hold_slot() { # TEAM.md: at most two control planes on the machine
	exec 9>/tmp/cp-slot-1.lock
	flock -n 9 || { exec 9>/tmp/cp-slot-2.lock; flock 9; }
}

# the backend as kcp.sh chooses it: the real stack under make check-real (JAXJOB_REAL=1), where
# it must be built; else ../shared's 1.24 plane where it is; else one SKIP naming the command
. "$JAXJOB_TOP/tests/realserver/kcp.sh"
if [ "$KCP_BACKEND" = stack ]; then
	MODE=stack
	if [ ! -x "$STACK_KUBE_DIR/bin/kube-apiserver" ] || [ ! -x "$STACK_ETCD_DIR/bin/etcd" ] || [ ! -x "$JAXJOB_TOP/stack/up.sh" ]; then
		not_ok "$DESC: the real stack is built"
		echo "missing $STACK_KUBE_DIR/bin/kube-apiserver or $STACK_ETCD_DIR/bin/etcd: make stack builds them" >&2
		exit 1
	fi
else
	kcp_check
	case $? in
	0) MODE=kcp ;;
	2) not_ok "$DESC: ../shared's control plane can run here"; echo "$KCP_WHY" >&2; exit 1 ;;
	*) skip "$DESC" "$KCP_WHY"
		exit 0 ;;
	esac
fi

kl_gone() { ! kill -0 "$KPID" 2>/dev/null; }
cleanup() {
	[ -n "${kpid:-}" ] && kill -CONT "$kpid" 2>/dev/null
	# SIGTERM: the kubelet stops its containers, then goes
	[ -n "${KPID:-}" ] && kill -TERM "$KPID" 2>/dev/null && wait_until -t 10 kl_gone
	if [ "$MODE" = stack ]; then
		[ -d "$T/stack" ] && "$JAXJOB_TOP/stack/down.sh" "$T/stack" >/dev/null 2>&1
	else
		kcp_down
	fi
	[ -n "${REAL_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
hold_slot
t0=$SECONDS
if [ "$MODE" = stack ]; then
	export STACK_CP_SLOT=held STACK_NODES=2 STACK_NODE_PREFIX=kl STACK_NODE_GPUS=4 STACK_NODE_CPU=6 \
		STACK_KUBELET_ARGS="--backoff-initial 1"
	if ! "$JAXJOB_TOP/stack/up.sh" "$T/stack" controlplane kubelet >"$T/up.log" 2>&1; then
		not_ok "the real control plane and the kubelet come up"
		tail -n 30 "$T/up.log" >&2
		exit 1
	fi
	. "$T/stack/env"
	NODE=kl-0 KROOT=$KUBELET_ROOT KLOG=$T/stack/logs/kubelet.log BIND=
	ADMIN_CRT=$KUBE_PKI/admin.crt ADMIN_KEY=$KUBE_PKI/admin.key
	curl -sS --cacert "$KUBE_CA" --cert "$ADMIN_CRT" --key "$ADMIN_KEY" -X POST -H 'Content-Type: application/json' \
		"$KUBE_SERVER/api/v1/namespaces" -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}' >/dev/null
else
	if ! kcp_up "$T/kcp" 2>"$T/kcp-up.err"; then
		not_ok "the 1.24 control plane comes up"
		cat "$T/kcp-up.err" >&2
		exit 1
	fi
	kcp_stop_operator	# it plays kubelet too: the double is the only one here
	P=$KCP_DIR/pki NODE=kl-0 KROOT=$T/kubelet KLOG=$T/kubelet.log BIND='"nodeName": "kl-0",'
	ADMIN_CRT=$P/admin.crt ADMIN_KEY=$P/admin.key
	printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$T/serving.ext"
	openssl req -new -newkey rsa:2048 -nodes -keyout "$P/kl-serving.key" -subj /CN=system:node:kl-0 -out "$T/serving.csr" 2>/dev/null &&
		openssl x509 -req -in "$T/serving.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 2 -sha256 \
			-extfile "$T/serving.ext" -out "$P/kl-serving.crt" 2>/dev/null || { not_ok "kubelet serving certificate"; exit 1; }
	kport=$(kcp_ports | cut -d' ' -f1)
	setsid "$PY" "$JAXJOB_TOP/stack/kubelet/kubelet.py" --server "$KUBE_SERVER" --ca "$KUBE_CA" \
		--cert "$ADMIN_CRT" --key "$ADMIN_KEY" --root "$KROOT" --node-names kl-0,kl-1 --cpu 6 --gpus 4 \
		--address 127.0.0.1 --port "$kport" --tls-cert "$P/kl-serving.crt" --tls-key "$P/kl-serving.key" \
		--client-ca "$P/ca.crt" --ready-file "$T/kubelet.ready" --backoff-initial 1 >"$KLOG" 2>&1 </dev/null &
	KPID=$!
	disown "$KPID"
	echo "$KPID" >"$KCP_DIR/pids/kubelet-double.pid"	# kcp's watchdog kills it if this shell is killed
	if ! wait_until -t 60 test -e "$T/kubelet.ready"; then
		not_ok "the kubelet double comes up"
		cat "$KLOG" >&2
		exit 1
	fi
fi
echo "# $MODE: control plane and kubelet up in $((SECONDS - t0)) s"

api() { # METHOD PATH [JSON]: body on stdout, non-zero on an HTTP error
	local out code
	out=$(curl -sS -X "$1" --cacert "$KUBE_CA" --cert "$ADMIN_CRT" --key "$ADMIN_KEY" -A kubelet-suite/1 \
		-H "Content-Type: ${CT:-application/json}" ${3:+--data-binary "$3"} -w '\n%{http_code}' "$KUBE_SERVER$2") || return 1
	code=${out##*$'\n'}
	printf '%s\n' "${out%$'\n'*}"
	case $code in 2*) return 0 ;; *) return 1 ;; esac
}
# jq-less field access: pyget PATH EXPR (EXPR over o, the object)
pyget() { api GET "$1" | "$PY" -c "import json,sys; o=json.load(sys.stdin); print($2)"; }
pod() { pyget "/api/v1/namespaces/$NS/pods/$1" "$2"; }
phase() { pod "$1" 'o["status"].get("phase")' 2>/dev/null; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
gone() { ! api GET "/api/v1/namespaces/$NS/pods/$1" >/dev/null 2>&1; }
mkpod() { # NAME RESTART-POLICY IMAGE CONTAINER-JSON-REST [SPEC-EXTRA]
	api POST "/api/v1/namespaces/$NS/pods" "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",
		\"metadata\":{\"name\":\"$1\",\"namespace\":\"$NS\",\"labels\":{\"suite\":\"kubelet\"},
			\"annotations\":{\"batch.kubernetes.io/job-completion-index\":\"3\"}},
		\"spec\":{$BIND \"restartPolicy\":\"$2\" ${5:+,$5},
			\"containers\":[{\"name\":\"c\",\"image\":\"$3\" ${4:+,$4}}]}}" >/dev/null
}
host_pod() { mkpod "$1" "$2" jaxjob.local/host:1 "\"command\":[\"sh\",\"-c\",$3]${4:+,$4}" "${5:-}"; }
sim_pod() { mkpod "$1" "$2" x/jax:1 "\"env\":[$3]" "${4:-}"; }
env1() { printf '{"name":"%s","value":"%s"}' "$1" "$2"; }
logs() { # POD [QUERY]: the body as served (an error: its body, non-zero)
	curl -sS --fail-with-body --cacert "$KUBE_CA" --cert "$ADMIN_CRT" --key "$ADMIN_KEY" -A kubelet-suite/1 \
		"$KUBE_SERVER/api/v1/namespaces/$NS/pods/$1/log${2:+?$2}"
}

# ---- the Node ----------------------------------------------------------------------------------
expect "Node $NODE: declared capacity (cpu 6, 4 nvidia.com/gpu), InternalIP, kubelet port, Ready" '
	pyget /api/v1/nodes/$NODE "o[\"status\"][\"capacity\"][\"cpu\"], o[\"status\"][\"capacity\"][\"nvidia.com/gpu\"], [c[\"status\"] for c in o[\"status\"][\"conditions\"] if c[\"type\"]==\"Ready\"][0], o[\"status\"][\"daemonEndpoints\"][\"kubeletEndpoint\"][\"Port\"]>0" >"$T/node" &&
	grep -qx "6 4 True True" "$T/node"'
lease=/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/$NODE
r1=$(pyget "$lease" 'o["spec"]["renewTime"]' 2>/dev/null)
lease_renewed() { local r; r=$(pyget "$lease" 'o["spec"]["renewTime"]') && [ -n "$r" ] && [ "$r" != "$r1" ]; }
expect "its Lease in kube-node-lease: held by the node, renewed (the node lifecycle controller's heartbeat)" '
	[ -n "$r1" ] && [ "$(pyget "$lease" "o[\"spec\"][\"holderIdentity\"]")" = "$NODE" ] && wait_until -t 40 lease_renewed'

# ---- a pod runs: env (downward API), names --------------------------------------------------------
api POST "/api/v1/namespaces/$NS/services" '{"apiVersion":"v1","kind":"Service","metadata":{"name":"grp"},
	"spec":{"clusterIP":"None","selector":{"suite":"kubelet"},"ports":[{"port":6666}]}}' >/dev/null
host_pod env1 Never '"echo idx=$IDX pod=$POD ns=$PODNS ip=$IP x=$X; hostname; getent hosts grp grp.team-a.svc.cluster.local w-3.grp | wc -l"' \
	"\"env\":[{\"name\":\"IDX\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}},
		{\"name\":\"POD\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}},
		{\"name\":\"PODNS\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.namespace\"}}},
		{\"name\":\"IP\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"status.podIP\"}}},
		{\"name\":\"X\",\"value\":\"x-\$(POD)\"}]" '"hostname":"w-3","subdomain":"grp"'
wait_until -t 60 is_phase env1 Succeeded
expect 'a pod runs: Succeeded, exit 0 Completed, bound to a node of the double' '
	[ "$(pod env1 "o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"exitCode\"], o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"reason\"], o[\"spec\"][\"nodeName\"][:3]")" = "0 Completed kl-" ]'
ip=$(pod env1 'o["status"]["podIP"]')
expect 'its env: downward-API fieldRef (annotation, name, namespace, podIP), $(VAR) expansion' '
	logs env1 | head -n 1 | grep -qx "idx=3 pod=env1 ns=team-a ip=$ip x=x-env1"'
expect 'its hostname is the pod'"'"'s; the Service and hostname.subdomain names resolve' '
	[ "$(logs env1 | sed -n 2,3p | tr "\n" " ")" = "w-3 3 " ]'

# ---- logs: follow with timestamps; tailLines, limitBytes, sinceTime -----------------------------
sim_pod lf Never "$(env1 SIM_LINES 4),$(env1 SIM_DURATION 3)"
wait_until -t 60 is_phase lf Running
logs lf 'follow=true&timestamps=true' >"$T/follow" 2>&1
expect 'logs follow with timestamps: every line, each stamped RFC 3339 with 9 digits, in order; the stream ends at the exit' '
	[ "$(wc -l <"$T/follow")" = 6 ] &&
	! grep -vqE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{9}Z " "$T/follow" &&
	cut -d" " -f1 "$T/follow" | sort -c &&
	grep -q " INFO:sim:worker 0 finished$" "$T/follow" && tail -n 1 "$T/follow" | grep -q finished'
wait_until -t 30 is_phase lf Succeeded
expect 'the log view <root>/logs/<ns>/<pod>/<container>.log: the CRI lines, .exited once the container ended' '
	wait_until -t 10 test -e "$KROOT/logs/$NS/lf/c.log.exited" &&
	[ "$(grep -c " stdout F " "$KROOT/logs/$NS/lf/c.log")" = 6 ] && tail -n 1 "$KROOT/logs/$NS/lf/c.log" | grep -q " stdout F INFO:sim:worker 0 finished$"'
third=$(sed -n 3p "$T/follow" | cut -d" " -f1)
expect 'tailLines=2, limitBytes=10, sinceTime (the 3rd line'"'"'s time: 4 lines from it)' '
	[ "$(logs lf tailLines=2 | wc -l)" = 2 ] && logs lf tailLines=2 | tail -n 1 | grep -q finished &&
	[ "$(logs lf limitBytes=10 | wc -c)" = 10 ] &&
	[ "$(logs lf "sinceTime=$third&timestamps=true" | wc -l)" -ge 4 ]'

# ---- the shim writes the log: a stopped kubelet stalls no container -------------------------------
sim_pod st Never "$(env1 SIM_HANG 1)"
wait_until -t 60 is_phase st Running
kpid=${KPID:-$(cat "$T/stack/pids/kubelet.pid" 2>/dev/null)}
view=$KROOT/logs/$NS/st/c.log
lines() { grep -c "still running" "$view"; }
wait_until -t 30 eval '[ "$(lines)" -ge 1 ]'
kill -STOP "$kpid"
n0=$(lines)
grew() { [ "$(lines)" -ge $((n0 + 2)) ]; }
wait_until -t 20 grew
grown=$?
kill -CONT "$kpid"
expect 'the container'"'"'s output goes on into its log while the kubelet is stopped (SIGSTOP), as a runtime shim writes it' '
	[ "$grown" = 0 ] && logs st | grep -q "still running ($((n0 + 2)))"'
api DELETE "/api/v1/namespaces/$NS/pods/st" >/dev/null

# ---- exit code, restart, lastState, previous --------------------------------------------------------
sim_pod rs OnFailure "$(env1 SIM_LINES 2),$(env1 SIM_RESTART 1),$(env1 SIM_RESTART_EXIT 3),$(env1 SIM_DURATION 1)"
wait_until -t 90 is_phase rs Succeeded
expect 'restartPolicy OnFailure: exit 3 then success - restartCount 1, lastState terminated exit 3 Error, Succeeded' '
	[ "$(pod rs "o[\"status\"][\"containerStatuses\"][0][\"restartCount\"], o[\"status\"][\"containerStatuses\"][0][\"lastState\"][\"terminated\"][\"exitCode\"], o[\"status\"][\"containerStatuses\"][0][\"lastState\"][\"terminated\"][\"reason\"]")" = "1 3 Error" ]'
expect 'previous=true serves the crashed instance'"'"'s log, the plain read the current one' '
	logs rs previous=true | tail -n 1 | grep -q "crashed (exit code 3" && logs rs | tail -n 1 | grep -q "finished$"'
# the training operator's ExitCode policy: a retryable exit, the pod deleted and made again under
# the same owner; SIM_RESTART counts the worker's runs across the pods
owner=$(api POST "/api/v1/namespaces/$NS/configmaps" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"job-x"}}' |
	"$PY" -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
rc_pod() {
	api POST "/api/v1/namespaces/$NS/pods" "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"rc-worker-0\",
		\"labels\":{\"training.kubeflow.org/replica-index\":\"0\"},\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",
		\"name\":\"job-x\",\"uid\":\"$owner\",\"controller\":true}]},\"spec\":{$BIND \"restartPolicy\":\"Never\",
		\"containers\":[{\"name\":\"jax\",\"image\":\"x/jax:1\",\"env\":[$(env1 SIM_RESTART 1),$(env1 SIM_LINES 1),$(env1 SIM_DURATION 1)]}]}}" >/dev/null
}
rc_pod
wait_until -t 60 is_phase rc-worker-0 Failed
first=$(pod rc-worker-0 'o["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"]')
api DELETE "/api/v1/namespaces/$NS/pods/rc-worker-0" >/dev/null
wait_until -t 60 gone rc-worker-0
rc_pod
wait_until -t 60 is_phase rc-worker-0 Succeeded
expect 'SIM_RESTART=1 across a re-created pod of the same owner and index: the first pod exits 137, the second succeeds' '
	[ "$first" = 137 ] && is_phase rc-worker-0 Succeeded'
host_pod nv Never '"echo bye; exit 7"'
wait_until -t 60 is_phase nv Failed
expect 'restartPolicy Never: exit 7 - Failed, terminated exit 7 Error, no restart; previous: the kubelet'"'"'s 400' '
	[ "$(pod nv "o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"exitCode\"], o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"reason\"], o[\"status\"][\"containerStatuses\"][0][\"restartCount\"]")" = "7 Error 0" ] &&
	! logs nv previous=true >"$T/prev" 2>&1 && grep -q "previous terminated container .*c.* in pod .*nv.* not found" "$T/prev"'
host_pod al Always '"echo run; exit 0"'
al_backoff() { pod al 'o["status"]["containerStatuses"][0]["state"]' | grep -q CrashLoopBackOff; }
al_restarted() { [ "$(pod al 'o["status"]["containerStatuses"][0]["restartCount"]')" -ge 2 ]; }
expect 'restartPolicy Always: exit 0 restarts too, with the crash-loop back-off (CrashLoopBackOff seen)' '
	wait_until -t 60 al_restarted && wait_until -t 30 al_backoff'
api DELETE "/api/v1/namespaces/$NS/pods/al" >/dev/null

# ---- deletion: SIGTERM, then SIGKILL after the grace period ------------------------------------------
sim_pod hang Never "$(env1 SIM_HANG 1)"
host_pod stub Never '"trap \"echo got TERM, staying\" TERM; echo started; while :; do sleep 0.1; done"' '' '"terminationGracePeriodSeconds":3'	# sleep-ok: the container's own loop (it runs until killed), not a wait
wait_until -t 60 is_phase hang Running && wait_until -t 60 is_phase stub Running
rv=$(api GET "/api/v1/namespaces/$NS/pods" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])')
curl -sS -N --cacert "$KUBE_CA" --cert "$ADMIN_CRT" --key "$ADMIN_KEY" --max-time 60 \
	"$KUBE_SERVER/api/v1/namespaces/$NS/pods?watch=1&resourceVersion=$rv&labelSelector=suite%3Dkubelet" >"$T/watch" 2>/dev/null &
WPID=$!
logs hang follow=true >"$T/hang.log" 2>&1 &
FPID=$!
wait_until -t 30 grep -q "still running" "$T/hang.log"
del_t=$(date +%s)
api DELETE "/api/v1/namespaces/$NS/pods/hang" >/dev/null
api DELETE "/api/v1/namespaces/$NS/pods/stub" >/dev/null
wait_until -t 60 gone hang && wait_until -t 60 gone stub
wait "$FPID"
kill "$WPID" 2>/dev/null
final() { # POD: exit code, deletionTimestamp and finishedAt of the last status before DELETED
	"$PY" - "$T/watch" "$1" <<'EOF'
import json, sys
last = None
for line in open(sys.argv[1]):
    try:
        ev = json.loads(line)
    except ValueError:
        continue
    o = ev["object"]
    if o["metadata"]["name"] != sys.argv[2]:
        continue
    t = ((o.get("status") or {}).get("containerStatuses") or [{}])[0].get("state", {}).get("terminated")
    if t and o["metadata"].get("deletionTimestamp"):
        last = (t["exitCode"], o["metadata"]["deletionTimestamp"], t["finishedAt"], ev["type"])
print(*last if last else ("none",))
EOF
}
secs() { date -u -d "$1" +%s; }
expect 'delete: the container gets SIGTERM (its last line), exits 143, the follow ends, the pod goes' '
	tail -n 1 "$T/hang.log" | grep -qx "INFO:sim:received SIGTERM, exiting" && final hang | grep -q "^143 "'
read -r code _ fin _ <<<"$(final stub)"
expect 'delete of a process that ignores SIGTERM: SIGKILL after terminationGracePeriodSeconds (3 s): exit 137' '
	[ "$code" = 137 ] && [ $(( $(secs "$fin") - del_t )) -ge 2 ]'
expect 'the kubelet finished the deletion: an Event Killing for each, the pods removed (DELETED seen)' '
	grep -q "\"type\":\"DELETED\".*\"name\":\"stub\"" "$T/watch" &&
	api GET "/api/v1/namespaces/$NS/events?fieldSelector=reason%3DKilling" | grep -q "Stopping container c"'

# ---- OOMKilled hook ----------------------------------------------------------------------------------
sim_pod oom Never "$(env1 SIM_FAILURE oom),$(env1 SIM_EXIT 137),$(env1 SIM_LINES 2),$(env1 SIM_DURATION 1)"
sim_pod oom2 Never "$(env1 SIM_OOM 1),$(env1 SIM_HANG 1)"
sim_pod ev Never "$(env1 SIM_FAILURE evict),$(env1 SIM_EXIT 1),$(env1 SIM_LINES 1),$(env1 SIM_DURATION 1)"
host_pod oomh Never '"echo eating; while :; do sleep 0.1; done"'	# sleep-ok: the container's own loop (it runs until killed), not a wait
wait_until -t 60 is_phase oomh Running
uid=$(pod oomh 'o["metadata"]["uid"]')
touch "$KROOT/pods/${NS}_oomh_$uid/c.oom"
wait_until -t 60 is_phase oom Failed && wait_until -t 60 is_phase oomh Failed && wait_until -t 60 is_phase oom2 Failed
expect 'OOMKilled: SIM_FAILURE=oom, SIM_OOM=1 and the hook file <pod dir>/<container>.oom end the container exit 137, reason OOMKilled' '
	[ "$(pod oom "o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"reason\"], o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"exitCode\"]")" = "OOMKilled 137" ] &&
	[ "$(pod oomh "o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"reason\"]")" = OOMKilled ] &&
	[ "$(pod oom2 "o[\"status\"][\"containerStatuses\"][0][\"state\"][\"terminated\"][\"reason\"]")" = OOMKilled ]'

wait_until -t 60 is_phase ev Failed
expect 'eviction (SIM_FAILURE=evict, the <pod dir>/evict hook): Failed, reason Evicted, DisruptionTarget TerminationByKubelet' '
	[ "$(pod ev "o[\"status\"].get(\"reason\"), \",\".join(c[\"reason\"] for c in o[\"status\"][\"conditions\"] if c[\"type\"]==\"DisruptionTarget\")")" = "Evicted TerminationByKubelet" ]'

# ---- real JAX across two pods ----------------------------------------------------------------------------
if [ ! -x "$JAXPY" ]; then
	skip 'jax.distributed across two pods' "no JAX venv: stack/venv.sh jax builds it"
else
	for i in 0 1; do
		api POST "/api/v1/namespaces/$NS/services" "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"jx-worker-$i\"},
			\"spec\":{\"clusterIP\":\"None\",\"selector\":{\"jx\":\"$i\"},\"ports\":[{\"port\":6670}]}}" >/dev/null
		api POST "/api/v1/namespaces/$NS/pods" "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"jx-worker-$i\",\"labels\":{\"jx\":\"$i\"}},
			\"spec\":{$BIND \"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"jax\",\"image\":\"jaxjob.local/jax-cpu:$JAX_VERSION\",
			\"command\":[\"python\",\"/app/train.py\"],\"env\":[$(env1 COORDINATOR_ADDRESS jx-worker-0),$(env1 COORDINATOR_PORT 6670),
			$(env1 NUM_PROCESSES 2),$(env1 PROCESS_ID $i),$(env1 TRAIN_STEPS 30)]}]}}" >/dev/null
	done
	jx_done() { for i in 0 1; do case $(phase jx-worker-$i) in Succeeded | Failed) ;; *) return 1 ;; esac; done; }
	t1=$SECONDS
	wait_until -t 240 jx_done
	echo "# 2 JAX workers done in $((SECONDS - t1)) s"
	expect 'jax.distributed across two pods (coordinator by Service name): a real all-reduce, both Succeeded' '
		is_phase jx-worker-0 Succeeded && is_phase jx-worker-1 Succeeded &&
		logs jx-worker-1 | grep -qx "worker 1: all-reduce of the process ids gives 1 (expected 1)" &&
		logs jx-worker-0 | grep -q "^step 30/30 loss=[0-9.]* worker=0$"'
fi
expect 'the kubelet logged no Python traceback' '! grep -q Traceback "$KLOG"'
