#!/usr/bin/env bash
# Security properties (issue #8):
#   1. TLS verification cannot be turned off by the environment alone: with
#      the kubeconfig naming the wrong CA, environment variables that curl,
#      OpenSSL or a careless wrapper might honour do not get a request
#      through; only the explicit flag does (with a warning);
#   2. render reads nothing outside the repository (symlinks, ../, absolute
#      paths): refused, and the outside file's content appears nowhere;
#   3. no parameter value changes a manifest's structure: injection strings
#      through every string parameter of `launch --dry-run` are either
#      refused cleanly or end up verbatim as one value, with the key set of
#      the manifest unchanged;
#   4. the image runs as non-root (Dockerfile USER of the final stage).
# Secrets of the test server are registered for 99-secrets.sh.
. "$JAXJOB_TOP/tests/suites/90-reliability.lib"

# --- 1. TLS ------------------------------------------------------------------
ks_start
register_secrets
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=wrong-ca \
	-keyout "$T/wrong.key" -out "$T/wrong-ca.pem" -days 2 >/dev/null 2>&1
sed "s#certificate-authority: .*#certificate-authority: $T/wrong-ca.pem#" "$KS/kubeconfig" >"$T/kc-wrong"
# a kubeconfig that would skip verification, offered through $KUBECONFIG
sed "s#certificate-authority: .*#insecure-skip-tls-verify: true#" "$KS/kubeconfig" >"$T/kc-insecure"
grep -q 'insecure-skip-tls-verify: true' "$T/kc-insecure" || echo "not ok - building the insecure kubeconfig"
# a home with a .curlrc that says "insecure" (only the curl tool reads it)
mkdir -p "$T/home"
echo insecure >"$T/home/.curlrc"

tls_refused() { # DESCRIPTION ENV... : launch must fail closed, create nothing
	local desc=$1
	shift
	ks_mark
	env "$@" "$JAXJOB" launch --kubeconfig "$T/kc-wrong" --name tls-env --image x/jax:1 \
		--timeout 30 -- python x.py >"$KEEP/tls.out" 2>"$KEEP/tls.err"
	local rc=$?
	if [ "$rc" -eq 4 ] && [ ! -s "$KEEP/tls.out" ] && grep -qi 'certificate\|tls' "$KEEP/tls.err" &&
		[ "$(requests | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -eq 0 ] &&
		[ "$(job_state tls-env)" = absent ]; then
		ok "TLS fails closed with the wrong CA although $desc"
	else
		not_ok "TLS fails closed with the wrong CA although $desc"
		{ echo "--- rc=$rc"; cat "$KEEP/tls.err"; requests | head -c 400; } >&2
	fi
}
tls_refused 'CURL_CA_BUNDLE names the right CA' CURL_CA_BUNDLE="$KS/ca.pem"
tls_refused 'SSL_CERT_FILE/SSL_CERT_DIR name the right CA' SSL_CERT_FILE="$KS/ca.pem" SSL_CERT_DIR="$KS"
tls_refused 'JAXJOB_INSECURE, KUBE_INSECURE, INSECURE_SKIP_TLS_VERIFY, CURL_INSECURE, GIT_SSL_NO_VERIFY, NODE_TLS_REJECT_UNAUTHORIZED=0, PYTHONHTTPSVERIFY=0 are set' \
	JAXJOB_INSECURE=1 JAXJOB_INSECURE_SKIP_TLS_VERIFY=1 KUBE_INSECURE=1 INSECURE_SKIP_TLS_VERIFY=true \
	KUBERNETES_INSECURE=true CURL_INSECURE=1 CURLOPT_SSL_VERIFYPEER=0 GIT_SSL_NO_VERIFY=1 \
	NODE_TLS_REJECT_UNAUTHORIZED=0 PYTHONHTTPSVERIFY=0
tls_refused 'HOME has a .curlrc saying insecure and CURL_HOME points there' HOME="$T/home" CURL_HOME="$T/home"
tls_refused 'KUBECONFIG names a second kubeconfig with insecure-skip-tls-verify (--kubeconfig wins)' \
	KUBECONFIG="$T/kc-insecure"
# positive control: the same kubeconfig works with the explicit flag, warned
expect 'only the explicit --insecure-skip-tls-verify gets through, with a warning on stderr' '
	jj launch --kubeconfig "$T/kc-wrong" --insecure-skip-tls-verify --server-dry-run --name tls-flag \
		--image x/jax:1 -- python x.py >"$KEEP/tls-flag.out" 2>"$KEEP/tls-flag.err" &&
	grep -q "^kind: JAXJob" "$KEEP/tls-flag.out" && grep -qi "warning: TLS verification is disabled" "$KEEP/tls-flag.err"'
# the right CA but another expected server name (tls-server-name): refused too
expect 'a server certificate that does not match the expected name (tls-server-name) is refused' '
	sed "s#^\(    certificate-authority: .*\)#\1\n    tls-server-name: not-the-server.example#" "$KS/kubeconfig" >"$T/kc-name" &&
	grep -q "tls-server-name: not-the-server.example" "$T/kc-name" &&
	! jj launch --kubeconfig "$T/kc-name" --server-dry-run --name tls-name --image x/jax:1 -- python x.py \
		>"$KEEP/tls-name.out" 2>"$KEEP/tls-name.err" && ! test -s "$KEEP/tls-name.out" &&
	grep -qi "tls\|certificate\|not-the-server" "$KEEP/tls-name.err"'

# --- 2. render stays inside the repository -------------------------------------
MARK="outside-secret-$RANDOM$RANDOM-do-not-print"
O=$T/outside
mkdir -p "$O"
printf 'name: stolen\nimage: x/jax:1\nworkers: 1\n# %s\n' "$MARK" >"$O/job.jaxjob.yaml"
printf 'apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: ((name)), annotations: {x: "%s"}}\nspec: {}\n' "$MARK" >"$O/tmpl.yaml"
printf 'workers: 3\nimage: "%s"\n' "$MARK" >"$O/jaxjob-defaults.yaml"
mkdir -p "$O/dir"
cp "$O/job.jaxjob.yaml" "$O/dir/"

# render_in SETUP DESCRIPTION: the repository gets one good job plus what
# SETUP adds. Either render refuses (non-zero, nothing on stdout) or it
# renders exactly the good job as if the outside file did not exist
# (workers 1, no job "stolen"); either way the outside content never shows.
render_in() {
	local R=$T/repo-$1
	rm -rf "$R"
	mkdir -p "$R/app"
	printf 'name: good\nimage: x/jax:1\nworkers: 1\n' >"$R/app/good.jaxjob.yaml"
	(cd "$R" && git init -q . && "$1" "$R")
	(cd "$R/app" && env -i PATH="$PATH" HOME="$T" ARGOCD_APP_NAMESPACE=ns ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" LSAN_OPTIONS="suppressions=$JAXJOB_TOP/tests/render/lsan.supp" \
		"$JAXJOB" render) >"$KEEP/render-$1.out" 2>"$KEEP/render-$1.err"
	local rc=$? how=
	if grep -q "$MARK" "$KEEP/render-$1.out" "$KEEP/render-$1.err"; then
		how=
	elif [ "$rc" -ne 0 ] && [ ! -s "$KEEP/render-$1.out" ]; then
		how=refused
	elif [ "$rc" -eq 0 ] && [ "$(grep -c '^kind: JAXJob' "$KEEP/render-$1.out")" -eq 1 ] &&
		grep -q '^  name: good-' "$KEEP/render-$1.out" && grep -q '^      replicas: 1$' "$KEEP/render-$1.out"; then
		how=ignored
	fi
	if [ -n "$how" ]; then
		ok "render reads nothing through $2 ($how), and prints nothing of the outside file"
	else
		not_ok "render reads nothing through $2, and prints nothing of the outside file"
		{ echo "--- rc=$rc"; head -c 600 "$KEEP/render-$1.out"; cat "$KEEP/render-$1.err"; } >&2
	fi
}
job_symlink() { ln -s "$O/job.jaxjob.yaml" "$1/app/stolen.jaxjob.yaml"; }
defaults_symlink() { ln -s "$O/jaxjob-defaults.yaml" "$1/app/jaxjob-defaults.yaml"; }
dir_symlink() { ln -s "$O/dir" "$1/app/linked"; }
tmpl_dotdot() { printf 'template: ../../outside/tmpl.yaml\n' >>"$1/app/good.jaxjob.yaml"; }
tmpl_absolute() { printf 'template: %s\n' "$O/tmpl.yaml" >>"$1/app/good.jaxjob.yaml"; }
tmpl_symlink() { ln -s "$O/tmpl.yaml" "$1/app/t.yaml"; printf 'template: t.yaml\n' >>"$1/app/good.jaxjob.yaml"; }
tmpl_proc() { printf 'template: /proc/self/environ\n' >>"$1/app/good.jaxjob.yaml"; }
render_in job_symlink 'a job file symlinked to a file outside the repository'
render_in defaults_symlink 'a jaxjob-defaults.yaml symlinked outside the repository'
render_in dir_symlink 'a directory symlinked outside the repository'
render_in tmpl_dotdot 'a template path climbing out with ../'
render_in tmpl_absolute 'an absolute template path'
render_in tmpl_symlink 'a template symlinked outside the repository'
render_in tmpl_proc 'a template at /proc/self/environ'

# --- 3. parameters cannot change a manifest's structure ------------------------
# run python directly: its report goes to stderr, the TAP line is ours
if python3 - "$JAXJOB" "$KEEP/injection.log" 2>"$T/inj.err" <<'PY'
import json, subprocess, sys
jaxjob, logf = sys.argv[1], sys.argv[2]
# flag -> how a value goes in (%s = the payload); benign value for the baseline
FLAGS = {
    '--name': 'n%s', '--namespace': '%s', '--image': '%s', '--image-pull-policy': '%s',
    '--restart-policy': '%s', '--command': '%s', '--arg': '%s', '--env': 'E=%s',
    '--label': 'l=%s', '--annotation': 'a=%s', '--pod-annotation': 'p=%s', '--cpu': '%s',
    '--memory': '%s', '--gpu-resource': '%s', '--resource': 'example.com/r=%s',
    '--service-account': '%s', '--image-pull-secret': '%s', '--node-selector': 'k=%s',
    '--toleration': 'k=%s:NoSchedule', '--volume': 'v=hostpath:/d%s', '--mount': 'm:/m%s',
    '--clean-pod-policy': '%s', '--queue': '%s', '--priority-class': '%s',
    '--workers': '%s', '--coordinator-port': '%s', '--backoff-limit': '%s',
    '--suspend': '%s', '--active-deadline-seconds': '%s', '--gpus-per-worker': '%s',
}
BENIGN = {'--image-pull-policy': 'Always', '--restart-policy': 'OnFailure', '--cpu': '1',
          '--memory': '1Gi', '--gpu-resource': 'example.com/gpu', '--resource': 'example.com/r=1',
          '--clean-pod-policy': 'All', '--workers': '2', '--coordinator-port': '7000',
          '--backoff-limit': '1', '--suspend': 'true', '--active-deadline-seconds': '5',
          '--gpus-per-worker': '1', '--name': 'nbenign'}
PAYLOADS = [
    'x\nkind: Secret\nmetadata:\n  name: pwned',
    'x", "kind": "Secret',
    '---\napiVersion: v1\nkind: Secret',
    'a: b',
    '((image))',
    '((name?))',
    '{{workflow.name}} $(id) `id`',
    '*alias &anchor !!map <<: {}',
    '\\n\\r\\t#comment \r',
    'x' * 300,
    '\u202epwned\u00e9',
]
def keys(node, path, out):
    if isinstance(node, dict):
        for k, v in node.items():
            p = path + '/' + k
            out.add(p)
            keys(v, p, out)
    elif isinstance(node, list):
        for v in node:
            keys(v, path + '[]', out)
    return out
def values(node, out):
    if isinstance(node, dict):
        for v in node.values(): values(v, out)
    elif isinstance(node, list):
        for v in node: values(v, out)
    else:
        out.append(node)
    return out
def run(flag, value):
    args = [jaxjob, 'launch', '--dry-run', '-o', 'json', '--image', 'x/jax:1']
    if flag == '--volume':
        args += ['--mount', 'v:/data']
    if flag == '--mount':
        args += ['--volume', 'm=emptydir']
    if flag == '--gpus-per-worker':
        args += ['--gpu-resource', 'example.com/gpu']
    if flag != '--name':
        args += ['--name', 'inj']
    args += [f'{flag}={value}']     # bool options take only the --opt=VALUE form
    if flag != '--command':
        args += ['--', 'python', 'x.py']
    p = subprocess.run(args, capture_output=True)
    return p.returncode, p.stdout, p.stderr
bad, tried, refused, accepted = [], 0, 0, 0
with open(logf, 'w') as log:
    for flag, form in FLAGS.items():
        rc, out, err = run(flag, BENIGN.get(flag, form % 'benign'))
        if rc != 0:
            bad.append(f'{flag}: baseline refused: {err.decode()[:200]}')
            continue
        base = keys(json.loads(out), '', set())
        for pl in PAYLOADS:
            tried += 1
            val = form % pl
            rc, out, err = run(flag, val)
            log.write(f'{flag} {pl!r}: rc={rc} {err.decode()[:160]!r}\n')
            if rc != 0:
                lines = err.decode().splitlines()
                if rc != 2 or out or len(lines) != 1 or not lines[0].startswith('error: '):
                    bad.append(f'{flag} {pl!r}: refused unclean rc={rc} out={len(out)}B err={err[:200]!r}')
                refused += 1
                continue
            accepted += 1
            try:
                doc = json.loads(out)
            except ValueError:
                bad.append(f'{flag} {pl!r}: output is not one JSON document')
                continue
            if doc.get('kind') != 'JAXJob' or keys(doc, '', set()) != base:
                bad.append(f'{flag} {pl!r}: key set changed: +{sorted(keys(doc, "", set()) - base)} -{sorted(base - keys(doc, "", set()))}')
                continue
            vals = [v for v in values(doc, []) if isinstance(v, str)]
            if not any(pl in v for v in vals):
                bad.append(f'{flag} {pl!r}: accepted but the payload is not one value verbatim')
    log.write(f'tried {tried}, refused {refused}, accepted {accepted}\n')
print(f'tried {tried}, refused {refused}, accepted {accepted}', file=sys.stderr)
if bad:
    print('\n'.join(bad), file=sys.stderr)
    sys.exit(1)
PY
then
	ok "injection strings through every string parameter of launch --dry-run: refused cleanly or one verbatim value, key set unchanged ($(tail -n 1 "$T/inj.err"))"
else
	not_ok 'injection strings through every string parameter of launch --dry-run: refused cleanly or one verbatim value, key set unchanged'
	cat "$T/inj.err" >&2
fi

# --- 4. the image runs as non-root -------------------------------------------
if [ -f "$JAXJOB_TOP/Dockerfile" ]; then
	expect 'the image runs as non-root: the final stage of the Dockerfile sets a numeric non-zero USER' '
		user=$(awk "/^FROM /{u=\"\"} /^USER /{u=\$2} END{print u}" "$JAXJOB_TOP/Dockerfile")
		echo "USER=$user"
		case "$user" in ""|0|0:*|root|root:*) exit 1 ;; esac
		uid=${user%%:*}; gid=${user#*:}
		[ "$uid" -gt 0 ] 2>/dev/null && [ "$gid" -gt 0 ] 2>/dev/null'
else
	not_ok 'the image runs as non-root: Dockerfile exists'
fi
exit 0
