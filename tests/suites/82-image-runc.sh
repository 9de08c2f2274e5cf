#!/usr/bin/env bash
# tests/suites/82-image-runc.sh - the image under the runtime a kubelet uses
# (containerd -> runc), not only under chroot (80-rootfs): 81-image's image is
# unpacked to an OCI bundle with `umoci unpack` (the runtime config comes from
# the image config: user, entrypoint, cmd, working dir, env), then every role
# runs with Debian's runc as uid 65532 (the image's USER, the pipeline step)
# and 999 (the Argo CD sidecar's), terminal: false (CI has no TTY). The
# outputs are compared with the same binary run on the host and, for render,
# with tests/render/expected/gitops.yaml.
#
# Whether this machine can run containers at all is decided by running a
# trivial bundle (the host's /bin/true and its libraries) first: when runc
# cannot, one SKIP line quotes runc's error.
# run-all: after 81-image
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"
top=$JAXJOB_TOP
A=$JAXJOB_TMP/image-a
version=$(sed -n 's/^#define JAXJOB_VERSION "\(.*\)"/\1/p' "$top/lib/version.h")
users="65532 999"

if ! command -v runc >/dev/null 2>&1 || ! command -v umoci >/dev/null 2>&1; then
	skip 'the image runs every role under runc' 'runc/umoci not installed (make deps installs them)'
	exit 0
fi
if [ ! -f "$A/build/image/index.json" ]; then
	skip 'the image runs every role under runc' '81-image built no image (see its report)'
	exit 0
fi
state=$T/runc-state
mkdir -p "$state"
n=0
# run_bundle DIR: runc run of the bundle DIR, a fresh container id each time;
# stdout/stderr of the container are this function's
run_bundle() {
	n=$((n + 1))
	runc --root "$state" run --bundle "$1" "jaxjob-82-$$-$n" </dev/null
}
# spec BASE OUT UID CWD ENV-JSON ARGS...: BASE's runtime config with the
# process replaced (uid = gid, extra environment, no terminal)
spec() {
	python3 - "$@" <<'PY'
import json, sys
base, out, uid, cwd, env = sys.argv[1:6]
c = json.load(open(base))
p = c["process"]
p["terminal"] = False
p["user"] = {"uid": int(uid), "gid": int(uid), "additionalGids": [int(uid)]}
p["cwd"] = cwd
p["env"] = [e for e in p.get("env", []) if not e.startswith("TERM=")] + json.loads(env)
if len(sys.argv) > 6:
    p["args"] = sys.argv[6:]
json.dump(c, open(out, "w"), indent=1)
PY
}

# ---- a trivial bundle: can this machine run containers? ------------------------
triv=$T/trivial
mkdir -p "$triv/rootfs/bin"
cp /bin/true "$triv/rootfs/bin/true"
for l in $(ldd /bin/true | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
	mkdir -p "$triv/rootfs$(dirname "$l")" && cp -L "$l" "$triv/rootfs$l"
done
(cd "$triv" && runc spec) 2>"$T/spec.err"
if [ -f "$triv/config.json" ]; then
	spec "$triv/config.json" "$triv/config.json" 0 / '[]' /bin/true
	run_bundle "$triv" >"$T/triv.out" 2>"$T/triv.err"
	rc=$?
else
	rc=1
	cp "$T/spec.err" "$T/triv.err"
fi
if [ "$rc" -ne 0 ]; then
	why=$(grep -v '^\s*$' "$T/triv.err" | tail -n 1)
	skip 'the image runs every role under runc' "runc cannot run a trivial bundle here (exit $rc): ${why:-no message}; 80-rootfs runs the roles under chroot"
	exit 0
fi
ok 'runc runs a trivial bundle here (/bin/true, terminal: false)'

# ---- the image as an OCI bundle ------------------------------------------------
B=$T/bundle
if ! umoci unpack --image "$A/build/image:$version" "$B" >"$T/unpack.out" 2>&1; then
	not_ok "umoci unpack of build/image:$version"
	cat "$T/unpack.out" >&2
	exit 1
fi
cp "$B/config.json" "$T/base.json"
expect 'umoci unpack: the runtime config is the image config (uid/gid 65532, /usr/local/bin/jaxjob help, cwd /tmp, PATH)' \
	'python3 - "$T/base.json" <<"PY"
import json, sys
p = json.load(open(sys.argv[1]))["process"]
assert p["user"]["uid"] == 65532 and p["user"]["gid"] == 65532, p["user"]
assert p["args"] == ["/usr/local/bin/jaxjob", "help"], p["args"]
assert p["cwd"] == "/tmp", p["cwd"]
assert any(e.startswith("PATH=") for e in p["env"]), p["env"]
PY'
host=$B/rootfs/usr/local/bin/jaxjob	# the very file in the image, run on the host
spec "$T/base.json" "$B/config.json" 65532 /tmp '[]'
expect 'uid 65532: the image as it is configured (entrypoint + cmd help) prints the usage, exit 0' \
	'run_bundle "$B" >"$T/help.out" 2>&1 && grep -q "launch" "$T/help.out" && grep -q "render" "$T/help.out"'

# The inputs, inside the bundle as a volume would bring them, owned by each user.
argo_env=$(printf '"%s",' "${ARGO_ENV[@]}" "ARGOCD_APP_REVISION=$FIXED_REV")
argo_env="[${argo_env%,}]"
vectors=$(find "$top/health-checks" -path '*testdata*' -name '*.yaml' | LC_ALL=C sort)
for v in $vectors; do echo '---'; cat "$v"; done >"$T/samples.yaml"
"$host" health -o json -f "$T/samples.yaml" >"$T/health.host" 2>&1
hrc=$?
launch_args='--name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py'
# shellcheck disable=SC2086
"$host" launch --dry-run $launch_args >"$T/dry.host" 2>&1
want_version=$("$host" --version)

for u in $users; do
	rm -rf "$B/rootfs/tmp/in"
	mkdir -p "$B/rootfs/tmp/in/examples"
	cp -R "$top/examples/gitops" "$B/rootfs/tmp/in/examples/"
	cp "$T/samples.yaml" "$B/rootfs/tmp/in/samples.yaml"
	chown -R "$u:$u" "$B/rootfs/tmp/in"

	spec "$T/base.json" "$B/config.json" "$u" /tmp '[]' /usr/local/bin/jaxjob --version
	expect "uid $u under runc: --version prints '$want_version'" \
		'[ "$(run_bundle "$B")" = "$want_version" ] && [[ "$want_version" =~ ^jaxjob\ $version\ \(commit\ [0-9a-f]{12}(-dirty)?\)$ ]]'

	spec "$T/base.json" "$B/config.json" "$u" /tmp '[]' /usr/local/bin/jaxjob health -o json -f /tmp/in/samples.yaml
	expect "uid $u under runc: health -o json -f of $(echo "$vectors" | wc -l) sample objects equals the host judgement (exit $hrc)" \
		'run_bundle "$B" >"$T/health.$u" 2>&1; [ $? -eq '"$hrc"' ] && grep -q "\"status\"" "$T/health.$u" && cmp "$T/health.host" "$T/health.$u"'

	spec "$T/base.json" "$B/config.json" "$u" /tmp/in/examples/gitops "$argo_env" /usr/local/bin/jaxjob render
	expect "uid $u under runc: render of examples/gitops as the Argo CD sidecar runs it is tests/render/expected/gitops.yaml" \
		'run_bundle "$B" >"$T/render.$u" 2>"$T/render.$u.err" && cmp "$T/render.$u" "$EXPECTED/gitops.yaml"'

	# shellcheck disable=SC2086
	spec "$T/base.json" "$B/config.json" "$u" /tmp '[]' /usr/local/bin/jaxjob launch --dry-run $launch_args
	expect "uid $u under runc: launch --dry-run prints the host's JAXJob" \
		'run_bundle "$B" >"$T/dry.$u" 2>&1 && grep -q "^kind: JAXJob" "$T/dry.$u" && cmp "$T/dry.host" "$T/dry.$u"'

	spec "$T/base.json" "$B/config.json" "$u" /tmp '[]' /usr/local/bin/jaxjob no-such-command
	expect "uid $u under runc: bad input is one 'error:' line, exit 2" \
		'run_bundle "$B" >"$T/o" 2>"$T/e"; [ $? -eq 2 ] && [ ! -s "$T/o" ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^error: " "$T/e"'
done
runc --root "$state" list -q | while read -r id; do runc --root "$state" delete -f "$id"; done
