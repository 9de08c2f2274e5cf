#!/usr/bin/env bash
# jaxjob launch against a REAL kube-apiserver under faults only a real server shows (its own
# control plane, ../shared/tools/kube-control-plane; operator and kubelet simulated through the
# API by tests/realserver/operator.py):
#   - the shipped Role (deploy/pipeline-step) with one verb removed at a time, tokens from the
#     TokenRequest API: missing create/get is exit 4 before anything is created; anything else
#     one warning naming what is missing, the run goes on, no request denied in a loop;
#   - the apiserver killed for ~10 s and restarted mid-watch, etcd compacted (etcdctl compact +
#     defrag) while the launches are disconnected (one outage, both faults): the fresh watch cache
#     answers the old resourceVersion with 410 Expired; the launch must re-list and end with the
#     job's TRUE outcome and exit code, keep/delete the job per --delete-after, every log line once.
# run-all: after 65-real-launch
# run-all: uses control-plane
# (one real control plane at a time: each costs a CPU for tens of seconds on a 2-core machine)
. "$JAXJOB_TOP/tests/suites/65-real.lib"
real_start "real control plane fault scenarios"
O=$T/outputs

# ---- RBAC: the shipped Role minus one verb ------------------------------------------------------
# one ServiceAccount + Role + RoleBinding per removed verb, all from deploy/pipeline-step/rbac.yaml,
# created through the API with a token each from the TokenRequest API (what `kubectl create token`
# asks for; 65-real uses kubectl) and a kubeconfig per token; one process for all (cheap on a busy machine)
variants=$("$KCP_PY" - "$JAXJOB_TOP/deploy/pipeline-step/rbac.yaml" "$KCP_DIR" 2>"$T/rbac.err" <<'PY'
import copy, json, ssl, sys, urllib.request, yaml
src, kcp = sys.argv[1:3]
env = dict(l[7:].strip().split('=', 1) for l in open(kcp + '/env') if l.startswith('export '))
env = {k: v.strip('"') for k, v in env.items()}
ctx = ssl.create_default_context(cafile=env['KUBE_CA'])
ctx.load_cert_chain(kcp + '/pki/admin.crt', kcp + '/pki/admin.key')

def post(path, body):
    req = urllib.request.Request(env['KUBE_SERVER'] + path, data=json.dumps(body).encode(), method='POST',
                                 headers={'Content-Type': 'application/json', 'User-Agent': 'kcp-ctl/1'})
    with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
        return json.load(r)

docs = [d for d in yaml.safe_load_all(open(src)) if d]
role = next(d for d in docs if d['kind'] == 'Role')
base = open(kcp + '/admin-token.kubeconfig').read().replace('namespace: default', 'namespace: team-a')
admin = open(kcp + '/admin.token').read().strip()
names = []
for ri, rule in enumerate(role['rules']):
    for res in rule['resources']:
        for verb in rule['verbs']:
            name = 'no-' + verb + '-' + res.replace('/', '-')
            r = copy.deepcopy(role)
            r['metadata'] = {'name': name, 'namespace': 'team-a'}
            r['rules'] = []
            for j, x in enumerate(role['rules']):
                for xr in x['resources']:
                    vs = [v for v in x['verbs'] if not (j == ri and xr == res and v == verb)]
                    if vs:
                        r['rules'].append({'apiGroups': x['apiGroups'], 'resources': [xr], 'verbs': vs})
            ns = '/api/v1/namespaces/team-a'
            post(ns + '/serviceaccounts', {'apiVersion': 'v1', 'kind': 'ServiceAccount', 'metadata': {'name': name}})
            post('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles', r)
            post('/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings', {
                'apiVersion': 'rbac.authorization.k8s.io/v1', 'kind': 'RoleBinding', 'metadata': {'name': name},
                'subjects': [{'kind': 'ServiceAccount', 'name': name, 'namespace': 'team-a'}],
                'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': name}})
            tok = post(f'{ns}/serviceaccounts/{name}/token', {'apiVersion': 'authentication.k8s.io/v1',
                       'kind': 'TokenRequest', 'spec': {'expirationSeconds': 600}})['status']['token']
            with open(f'{kcp}/{name}.token', 'w') as f:
                f.write(tok)
            with open(f'{kcp}/kubeconfig-{name}', 'w') as f:
                f.write(base.replace(admin, tok))
            names.append(name)
print(' '.join(names))
PY
) || echo "creating the Role variants failed" >&2
for v in $variants; do kcp_secret "$KCP_DIR/$v.token"; done
t0=$SECONDS
i=0
for v in $variants; do
	# options that need every verb of the Role: logs (pods, pods/log), events, delete after,
	# suspend on cancel (patch). The job is named rb-N: a name holding the verb would match the
	# message checks below by itself.
	i=$((i + 1))
	eval "job_${v//-/_}=rb-$i"
	bg_launch_as "$KCP_DIR/kubeconfig-$v" "$v" --name "rb-$i" --image x/jax:1 --workers 2 --env SIM_LINES=2 \
		--delete-after always --on-cancel suspend --timeout 120s --out-state="$O/$v/state"
done
for v in $variants; do
	bg_wait "$v"
	eval "rc_${v//-/_}=$?"
done
echo "# the $(echo $variants | wc -w) Role variants ran in $((SECONDS - t0)) s"
kcp_audit jaxjob/ >"$T/rbac.audit"

for v in $variants; do
	verb=${v#no-} verb=${verb%%-*} res=${v#no-*-}
	[ "$res" = pods-log ] && res=pods/log
	eval "rc=\$rc_${v//-/_} job=\$job_${v//-/_}"
	denied=$("$KCP_PY" -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["user"] == "system:serviceaccount:team-a:" + sys.argv[2] and r["code"] == 403:
        n += 1
print(n)' "$T/rbac.audit" "$v")
	case "$verb $res" in
	"create jaxjobs" | "get jaxjobs")
		expect "Role without $verb $res: exit 4 before creating (got $rc), one error naming the verb and the resource" "
			test $rc -eq 4 && test \"\$(job_state $job)\" = absent &&
			test \"\$(grep -c '^error: ' $T/$v.err)\" -eq 1 &&
			grep '^error: ' $T/$v.err | grep -w -- '$verb' | grep -q -- '$res'"
		;;
	"get pods" | *" workloads" | *" localqueues" | *" localqueues-pendingworkloads")
		# not among what this launch needs (issue 11: list/watch pods, get pods/log; Kueue's
		# workloads, localqueues and the visibility API's pendingworkloads only for a job with a
		# queue-name label, which rb-N has not; 65-real-kueue and 60-launch-kueue-queue cover
		# those): nothing is lost
		expect "Role without $verb $res (not needed): exit 0 (got $rc), no warning about it" "
			test $rc -eq 0 && ! grep -i 'warning' $T/$v.err | grep -w -- '$verb' | grep -qw -- '$res'"
		;;
	*)
		expect "Role without $verb $res: the job still runs to its end, exit 0 (got $rc)" "test $rc -eq 0"
		expect "... one warning names '$verb' and '$res' and what is lost" "
			test \"\$(grep -i '^\\(jaxjob: .*\\)\\?warning' $T/$v.err | grep -w -- '$verb' | grep -c -- '$res')\" -eq 1"
		;;
	esac
	expect "... no forbidden request in a loop: $denied answered 403 (at most 1)" "test $denied -le 1"
done

# ---- the apiserver dies for ~10 s; etcd is compacted meanwhile; it restarts -----------------------
# One outage carries both faults (an apiserver restart costs 6-45 s on this machine): the restarted
# apiserver has a fresh watch cache, and etcd was compacted (compact + defrag) to its head while the
# launches were disconnected, so every resume from an old resourceVersion is 410 Expired.
# Four jobs run through it: one kept (--delete-after never), one deleted (always), one that fails
# (exit 1), and a short one (cp) whose containers end while the API is away (the kubelet does not
# need it): its Succeeded is written only after the restart.
# (--timeout only bounds the suite should the launch never see the end again; a starved machine
# took 45 s to bring the apiserver back, so it is generous)
LONG="--image x/jax:1 --workers 3 --env SIM_LINES=12 --env SIM_DURATION=12 --timeout 150s"
bg_launch rk --name rk $LONG --delete-after never --out-state="$O/rk/state" --out-exit-code="$O/rk/exit"
bg_launch rd --name rd $LONG --delete-after always --out-state="$O/rd/state"
bg_launch rf --name rf $LONG --env SIM_FAIL_WORKER=1 --env SIM_EXIT=3 --delete-after success \
	--out-state="$O/rf/state" --out-exit-code="$O/rf/exit"
bg_launch cp --name cp --image x/jax:1 --workers 2 --env SIM_LINES=6 --env SIM_DURATION=5 \
	--delete-after success --timeout 150s --out-state="$O/cp/state"
for n in rk rd rf; do wait_for grep -q "Running: 3/3" "$T/$n.err"; done
wait_for grep -q "Running: 2/2" "$T/cp.err"
t0=$SECONDS
kcp_kill_apiserver
rev=$(etcdctl endpoint status -w json | "$KCP_PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["Status"]["header"]["revision"])')
etcdctl compact "$rev" >/dev/null && etcdctl defrag >/dev/null || echo "etcd compaction failed" >&2
d=$((t0 + 10 - SECONDS)); [ "$d" -gt 0 ] && sleep "$d"	# sleep-ok: the outage length is the fault under test (apiserver down >= 10 s)
kcp_start_apiserver || echo "the apiserver did not come back" >&2
echo "# apiserver down for $((SECONDS - t0)) s (until ready again); etcd compacted at revision $rev"
for n in rk rd rf cp; do
	bg_wait $n
	eval "rc_$n=$?"
done
echo "# the jobs ended $((SECONDS - t0)) s after the kill"
grep -c "410\|Expired" "$KCP_DIR/logs/operator.log" | sed 's/^/# operator re-lists after 410: /'
expect "after the restart the launch ends with the job's true outcome: Succeeded, exit 0 (got $rc_rk)" \
	"test $rc_rk -eq 0 && test \"\$(cat $O/rk/state)\" = Succeeded && test \"\$(cat $O/rk/exit)\" = 0"
expect '... the job is kept (--delete-after=never) and Succeeded on the server' \
	'case "$(job_state rk)" in *Succeeded*) ;; *) exit 1 ;; esac'
expect "... with --delete-after=always: exit 0 (got $rc_rd), the finished job deleted" \
	"test $rc_rd -eq 0 && test \"\$(cat $O/rd/state)\" = Succeeded &&
	{ wait_for -t 60 job_absent rd || { job_state rd; tail -n 6 $T/rd.err; exit 1; } >&2; }"
expect "... a job that failed during the outage: exit 1 (got $rc_rf), Failed, kept (--delete-after=success)" "
	test $rc_rf -eq 1 && test \"\$(cat $O/rf/state)\" = Failed && case \"\$(job_state rf)\" in *Failed*) ;; *) exit 1 ;; esac"
expect '... every worker'"'"'s log line for line, each line exactly once, through the outage (3 jobs x 3 workers)' '
	for n in rk rd; do for w in 0 1 2; do
		expected_log $n $w 3 12 >$T/$n.want.$w && worker_log $T/$n.out $w >$T/$n.got.$w &&
		diff $T/$n.want.$w $T/$n.got.$w || exit 1
	done; done
	for w in 0 2; do expected_log rf $w 3 12 | diff - <(worker_log $T/rf.out $w) || exit 1; done
	expected_log rf 1 3 12 3 | diff - <(worker_log $T/rf.out 1)'
expect '... none of them ended as cancelled or timed out' \
	'! grep -q "Cancelled\|Timeout" $T/rk.err $T/rd.err $T/rf.err $T/cp.err'
expect "a job whose containers ended while the API was away (etcd compacted meanwhile): Succeeded, exit 0 (got $rc_cp)" \
	"test $rc_cp -eq 0 && test \"\$(cat $O/cp/state)\" = Succeeded"
expect '... the job deleted (--delete-after=success), every log line exactly once' '
	{ wait_for -t 60 job_absent cp || { job_state cp; tail -n 6 $T/cp.err; exit 1; } >&2; } &&
	for w in 0 1; do expected_log cp $w 2 6 | diff - <(worker_log $T/cp.out $w) || exit 1; done'
expect "... etcd really compacted: a LIST at the revision before (resourceVersionMatch=Exact) is 410 Expired" "
	! kcp_ctl GET '/api/v1/namespaces/team-a/pods?resourceVersion=$((rev - 1))&resourceVersionMatch=Exact' >$T/cp.list &&
	grep -q '\"code\":410' $T/cp.list"
