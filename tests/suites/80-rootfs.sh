#!/usr/bin/env bash
# tests/suites/80-rootfs.sh - the image's filesystem, verified without a
# container engine: `make rootfs` builds it from the release build, then the
# binary runs from it under chroot, as uid 999 (Argo CD's sidecar user) and as
# uid 65532 (the image's USER), for each role.
#
# What a container runtime adds to an image (a minimal /dev) is created in a
# scratch copy of the rootfs, never in the built tree; /proc is not mounted, so
# the binary is shown not to need it. Needs root (chroot, mknod): SKIP otherwise.
. "$JAXJOB_TOP/tests/lib/tap.sh"
top=$JAXJOB_TOP
users="999 65532"

if [ "$(id -u)" -ne 0 ]; then
	skip 'rootfs: build and run the binary under chroot' 'needs root (chroot)'
	exit 0
fi
if ! command -v chroot >/dev/null 2>&1; then
	skip 'rootfs: build and run the binary under chroot' 'chroot not available'
	exit 0
fi

chroot_bin=$(command -v chroot)
# the interpreter itself, not a wrapper (pyenv shims need PATH and bash)
python_bin=$(python3 -c "import sys; print(sys.executable)")

# ---- build ---------------------------------------------------------------
# A nested make must not inherit `make check`'s flags (SAN=1, jobserver fds).
built=$JAXJOB_TMP/rootfs
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" -j2 rootfs ROOTFS="$built" \
	>"$T/mk.out" 2>"$T/mk.err"; then
	ok 'make rootfs builds the image filesystem from the release build'
else
	not_ok 'make rootfs builds the image filesystem from the release build'
	cat "$T/mk.out" "$T/mk.err" >&2
	exit 1
fi
# The size breakdown for the log (run-all.sh shows suite stdout on failure).
sed 's/^/# /' "$T/mk.out"
# The binary make rootfs used: build/slim/jaxjob (static slim libcurl and
# libgit2, scripts/build-slim-deps.sh) when that cache exists, else build/jaxjob.
rel=$(cat "$built.binary")
expect 'make rootfs names the binary it packed (ROOTFS.binary), a release build' \
	'[ "$rel" = "$(readlink -f "$top/build/slim/jaxjob")" ] || [ "$rel" = "$(readlink -f "$top/build/jaxjob")" ]'
if grep -q '^rootfs: linking against the slim' "$T/mk.out"; then
	total=$(tail -n 1 "$T/mk.out" | sed -n 's/^rootfs: \([0-9]*\) bytes.*/\1/p')
	expect "slim build: the rootfs is at most 12 MB ($total bytes)" '[ "${total:-99999999}" -le 12000000 ]'
	expect 'slim build: no library of Debian libcurl4/libgit2 tail (GnuTLS, LDAP, RTMP, Kerberos, SSH, mbedTLS, IDN, PSL)' \
		'! grep -Eq "lib(gnutls|ldap|rtmp|krb5|gssapi|ssh2|mbed|idn2|psl|curl|git2)" "$built.files"'
	expect 'slim build: HTTP/2 (nghttp2) and OpenSSL linked into the binary (no libnghttp2/libssl/libcrypto files)' \
		'! grep -Eq "lib(nghttp2|ssl|crypto)" "$built.files" && strings -a "$built/usr/local/bin/jaxjob" | grep -q "^OpenSSL 3" &&
		strings -a "$built/usr/local/bin/jaxjob" | grep -q "The user callback function failed"'
	expect 'slim build: relative relocations packed (RELR: no 490 kB RELA table read at every start)' \
		'readelf -S "$built/usr/local/bin/jaxjob" | grep -q "\.relr\.dyn"'
else
	skip 'slim build: rootfs size and library set' "no slim libcurl/libgit2 cache (scripts/build-slim-deps.sh not run)"
fi
expect 'make rootfs reports the total size as its last line' \
	'tail -n 1 "$T/mk.out" | grep -Eq "^rootfs: [0-9]+ bytes \([0-9.]+ MB\) in [0-9]+ files; as a gzipped layer [0-9.]+ MB$"'

# ---- contents: exactly the listed set --------------------------------------
# The expectation is computed here, independently of mkrootfs.sh: the loader
# from the ELF header, the libraries ldd resolves, the fixed files, and every
# parent directory of those.
interp=$(readelf -l "$rel" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
{
	echo /usr/local/bin/jaxjob
	echo "$interp"
	ldd "$rel" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
	printf '%s\n' /etc/ssl/certs/ca-certificates.crt /etc/passwd /etc/group \
		/etc/nsswitch.conf /tmp
} | sort -u >"$T/want.files"
while read -r f; do
	d=$(dirname "$f")
	while [ "$d" != / ]; do echo "$d"; d=$(dirname "$d"); done
done <"$T/want.files" | sort -u >"$T/want.dirs"
LC_ALL=C sort -u "$T/want.files" "$T/want.dirs" >"$T/want"
(cd "$built" && find . -mindepth 1 | sed 's|^\./|/|' | LC_ALL=C sort) >"$T/have"
expect 'the rootfs holds exactly the binary, its loader and libraries, CA bundle, passwd/group/nsswitch, /tmp' \
	'diff -u "$T/want" "$T/have"'
expect 'the rootfs has no shell and no package tools' \
	'! ls "$built"/bin/sh "$built"/usr/bin/* "$built"/bin/* 2>/dev/null | grep -q .'
expect 'every library ldd names is a regular file (no symlinks into the host)' \
	'[ -z "$(find "$built" -type l)" ]'
expect 'no file in the rootfs is setuid or setgid' \
	'[ -z "$(find "$built" -perm /6000)" ]'
expect 'nothing is writable by others except /tmp (1777)' \
	'[ "$(find "$built" -perm -o+w | sed "s|^$built||")" = /tmp ] && [ "$(stat -c %a "$built/tmp")" = 1777 ]'
expect 'everything in the rootfs is owned by root' \
	'[ -z "$(find "$built" ! -user 0 -o ! -group 0)" ]'
expect 'the binary in the rootfs is stripped (no .symtab), the release build is not touched' \
	'! readelf -S "$built/usr/local/bin/jaxjob" | grep -q "\.symtab" && cmp -s "$rel" "$rel"'
expect '/etc/passwd names uid 999 (argocd) and 65532 (jaxjob), /etc/group their groups' \
	'grep -qx "argocd:x:999:999:.*" "$built/etc/passwd" && grep -qx "jaxjob:x:65532:65532:.*" "$built/etc/passwd" && grep -qx "argocd:x:999:" "$built/etc/group" && grep -qx "jaxjob:x:65532:" "$built/etc/group"'
expect 'the CA bundle is the system one, byte for byte' \
	'cmp "$built/etc/ssl/certs/ca-certificates.crt" /etc/ssl/certs/ca-certificates.crt'
# mkrootfs.sh twice on one copy of the binary (teammates may rebuild
# build/jaxjob meanwhile): the same tree, contents and mtimes.
cp "$rel" "$T/jaxjob.copy"
expect 'two rootfs builds from the same binary are identical (content, modes, mtimes)' \
	'"$top/scripts/mkrootfs.sh" "$T/jaxjob.copy" "$JAXJOB_TMP/rootfs2" >/dev/null &&
	 "$top/scripts/mkrootfs.sh" "$T/jaxjob.copy" "$JAXJOB_TMP/rootfs3" >/dev/null &&
	 diff <(cd "$JAXJOB_TMP/rootfs2" && find . -printf "%p %m %s %T@\n" | sort) <(cd "$JAXJOB_TMP/rootfs3" && find . -printf "%p %m %s %T@\n" | sort) &&
	 diff -r "$JAXJOB_TMP/rootfs2" "$JAXJOB_TMP/rootfs3"'
rm -rf "$JAXJOB_TMP"/rootfs[23] "$JAXJOB_TMP"/rootfs[23].*

# ---- the Dockerfile ships this tree -------------------------------------------
df=$top/Dockerfile
entry=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)".*/\1/p' "$df")
user=$(sed -n 's/^USER \([0-9]*\).*/\1/p' "$df")
expect 'Dockerfile: the final stage is FROM scratch and copies build/rootfs and the SBOM, built by make sbom (rootfs)' \
	'[ "$(grep "^FROM " "$df" | tail -n 1)" = "FROM scratch" ] && grep -q "^COPY --from=build /src/build/rootfs/ /$" "$df" && grep -q "^RUN make sbom JAXJOB_COMMIT=\${REVISION} " "$df" &&
	 grep -q "^COPY --from=build /src/build/jaxjob-sbom.cdx.json /usr/share/doc/jaxjob/sbom.cdx.json$" "$df" && grep -q "^FROM debian:bookworm " "$df"'
expect "Dockerfile: ENTRYPOINT $entry is the binary in the rootfs" \
	'[ -n "$entry" ] && [ -x "$built$entry" ] && [ -f "$built$entry" ]'
expect "Dockerfile: USER $user is non-root and named in the rootfs's /etc/passwd" \
	'[ -n "$user" ] && [ "$user" -ne 0 ] && grep -q "^[a-z]*:x:$user:$user:" "$built/etc/passwd"'
expect 'Dockerfile: OCI labels source, version, revision, licenses, title, description' \
	'for l in source version revision licenses title description; do grep -q "org.opencontainers.image.$l=" "$df" || exit 1; done'
expect 'Dockerfile: the licence label is Apache-2.0, the licence of LICENSE' \
	'grep -q "^      org.opencontainers.image.licenses=\"Apache-2.0\"\$" "$df" && grep -q "Apache License" "$top/LICENSE" && grep -q "Version 2.0, January 2004" "$top/LICENSE"'
version=$(sed -n 's/^#define JAXJOB_VERSION "\(.*\)"/\1/p' "$top/lib/version.h")
expect "the images named in component.yaml and the sidecar are jaxjob:$version, the tag make image builds" \
	'grep -q "image: jaxjob:$version\$" "$top/component/component.yaml" && grep -q "image: jaxjob:$version\$" "$top/argocd-plugin/repo-server-sidecar.yaml" &&
	 [ "$(env -u MAKEFLAGS -u MAKELEVEL make -s -C "$top" --eval "print-image: ; @echo \$(IMAGE)" print-image)" = "jaxjob:$version" ]'
expect 'the commands plugin.yaml (generate, parameters) and component.yaml run are executables in the rootfs' \
	'python3 - "$top" "$built" <<"PY"
import os, sys, yaml
top, root = sys.argv[1], sys.argv[2]
p = yaml.safe_load(open(top + "/argocd-plugin/plugin.yaml"))["spec"]
c = yaml.safe_load(open(top + "/component/component.yaml"))["implementation"]["container"]
cmds = [p["generate"]["command"][0], p["parameters"]["dynamic"]["command"][0], c["command"][0]]
for cmd in cmds:
    f = root + cmd
    assert os.path.isfile(f) and os.access(f, os.X_OK), cmd
PY'
# The image itself (umoci, no daemon) is 81-image.sh's; runc runs it in
# 82-image-runc.sh.

# ---- run from the rootfs ---------------------------------------------------
# A scratch copy plus what every container runtime provides: /dev/null,
# /dev/zero, /dev/urandom, /dev/random.
run=$JAXJOB_TMP/rootfs-run
cp -a "$built" "$run"
mkdir -p "$run/dev"
mknod -m 666 "$run/dev/null" c 1 3 && mknod -m 666 "$run/dev/zero" c 1 5 &&
	mknod -m 666 "$run/dev/random" c 1 8 && mknod -m 666 "$run/dev/urandom" c 1 9 ||
	echo "# mknod failed: running without /dev" >&2

# in_root UID CMD...: run CMD from the rootfs as UID (group = UID), with the
# environment a container would have and cwd /tmp.
in_root() {
	local uid=$1
	shift
	env -i PATH=/usr/local/bin HOME=/tmp ${IN_ROOT_ENV:-} \
		"$chroot_bin" --userspec="$uid:$uid" --groups="$uid" "$run" /usr/local/bin/jaxjob "$@"
}
# in_root_cd UID DIR CMD...: the same with cwd DIR inside the rootfs (what
# Argo CD does for plugin commands). chroot(1) always enters "/", and the image
# has no shell to cd with, so python does chroot, chdir, setgid, setuid, exec.
in_root_cd() {
	local uid=$1 dir=$2
	shift 2
	env -i PATH=/usr/local/bin HOME=/tmp ${IN_ROOT_ENV:-} "$python_bin" -c '
import os, sys
root, d, uid = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.chroot(root); os.chdir(d)
os.setgroups([uid]); os.setgid(uid); os.setuid(uid)
os.execv("/usr/local/bin/jaxjob", ["jaxjob"] + sys.argv[4:])
' "$run" "$dir" "$uid" "$@"
}

want_version=$("$rel" --version)
commit=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
expect "the release binary's --version names the version $version and the commit $commit" \
	'[[ "$want_version" =~ ^jaxjob\ $version\ \(commit\ $commit(-dirty)?\)$ ]]'
for u in $users; do
	expect "uid $u: --version from the rootfs prints '$want_version'" \
		'[ "$(in_root '"$u"' --version)" = "$want_version" ]'
	expect "uid $u: bad input from the rootfs is one 'error:' line, exit 2" \
		'in_root '"$u"' no-such-command >"$T/o" 2>"$T/e"; [ $? -eq 2 ] && [ ! -s "$T/o" ] && grep -q "^error: " "$T/e"'
done

# ---- render ----------------------------------------------------------------
# As the Argo CD sidecar runs it: cwd = the app directory of an extracted
# repository (no .git), ARGOCD_APP_* in the environment, files owned by the
# sidecar's user. The host render of the same tree is the expectation.
argo_env='ARGOCD_APP_NAME=ml-jobs ARGOCD_APP_NAMESPACE=team-a ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567 ARGOCD_APP_SOURCE_PATH=examples/gitops ARGOCD_APP_SOURCE_REPO_URL=https://git.example.com/ml/jobs.git'
if [ ! -d "$top/examples/gitops" ]; then
	not_ok 'render of examples/gitops from the rootfs equals the host render: examples/gitops exists'
else
	mkdir -p "$T/host-app"
	cp -r "$top/examples/gitops" "$T/host-app/gitops"
	(cd "$T/host-app/gitops" && env -i PATH=/usr/bin:/bin HOME=/tmp $argo_env "$rel" render) >"$T/render.host" 2>"$T/render.err"
	for u in $users; do
		rm -rf "$run/tmp/app"
		mkdir -p "$run/tmp/app"
		cp -r "$top/examples/gitops" "$run/tmp/app/gitops"
		chown -R "$u:$u" "$run/tmp/app"
		IN_ROOT_ENV=$argo_env expect "uid $u: render of examples/gitops from the rootfs (cwd = app dir, ARGOCD_APP_*) equals the host render" \
			'in_root_cd '"$u"' /tmp/app/gitops render >"$T/render.$u" && grep -q "^kind: JAXJob" "$T/render.$u" && cmp "$T/render.host" "$T/render.$u"'
		IN_ROOT_ENV=$argo_env expect "uid $u: the plugin's parameters command from the rootfs prints a JSON array" \
			'in_root_cd '"$u"' /tmp/app/gitops render --params >"$T/params.$u" && python3 -c "import json,sys; assert isinstance(json.load(open(sys.argv[1])), list)" "$T/params.$u"'
	done
	# libgit2 inside the rootfs: render a revision of a repository (objects,
	# not the worktree), owned by the user, as --repo/--revision does.
	if command -v git >/dev/null 2>&1; then
		for u in $users; do
			repo=$run/tmp/repo
			rm -rf "$repo"
			mkdir -p "$repo"
			cp -r "$top/examples/gitops" "$repo/gitops"
			git -C "$repo" init -q && git -C "$repo" add -A &&
				git -C "$repo" -c user.name=t -c user.email=t@example.com commit -q -m jobs
			rev=$(git -C "$repo" rev-parse HEAD)
			echo changed >"$repo/gitops/jaxjob-defaults.yaml"	# the worktree must not matter
			chown -R "$u:$u" "$repo"
			(cd "$T/host-app" && "$rel" render --repo "$repo" --revision "$rev" --path gitops) >"$T/rev.host" 2>"$T/rev.err"
			expect "uid $u: render --repo --revision (libgit2) from the rootfs equals the host render" \
				'[ -s "$T/rev.host" ] && in_root '"$u"' render --repo /tmp/repo --revision '"$rev"' --path gitops >"$T/rev.$u" && cmp "$T/rev.host" "$T/rev.$u"'
			rm -rf "$repo"
		done
	else
		skip 'render --repo --revision (libgit2) from the rootfs' 'git not installed'
	fi
fi

# ---- health ----------------------------------------------------------------
vectors=$(find "$top/health-checks" -path '*testdata*' -name '*.yaml' 2>/dev/null | LC_ALL=C sort)
if [ -z "$vectors" ]; then
	not_ok 'health of sample JAXJobs from the rootfs equals the host judgement: health-checks/*/testdata has vectors'
else
	# Every vector, as one multi-document stream: one run judges them all.
	for v in $vectors; do echo '---'; cat "$v"; done >"$run/tmp/samples.yaml"
	chmod 644 "$run/tmp/samples.yaml"
	"$rel" health -o json -f "$run/tmp/samples.yaml" >"$T/health.host" 2>&1
	hrc=$?
	for u in $users; do
		expect "uid $u: health -o json of $(echo "$vectors" | wc -l) sample objects from the rootfs equals the host judgement (exit $hrc)" \
			'in_root '"$u"' health -o json -f /tmp/samples.yaml >"$T/health.$u" 2>&1; [ $? -eq '"$hrc"' ] && grep -q "\"status\"" "$T/health.$u" && cmp "$T/health.host" "$T/health.$u"'
	done
	rm -f "$run/tmp/samples.yaml"
fi

# ---- launch --------------------------------------------------------------------
launch_args='--name mnist --image ghcr.io/x/jax:1 --workers 4 --gpus-per-worker 1 -- python train.py'
# shellcheck disable=SC2086
"$rel" launch --dry-run $launch_args >"$T/dry.host" 2>&1
for u in $users; do
	expect "uid $u: launch --dry-run from the rootfs prints the same JAXJob as the host" \
		'in_root '"$u"' launch --dry-run '"$launch_args"' >"$T/dry.$u" && grep -q "^kind: JAXJob" "$T/dry.$u" && cmp "$T/dry.host" "$T/dry.$u"'
done

# A real launch over loopback HTTPS against the Kubernetes API test server:
# the CA and the kubeconfig are copied into the rootfs's /tmp (as a Secret
# or the service account mount would put them in a Pod); TLS is verified
# against that CA, from inside the rootfs.
KS=$JAXJOB_TMP/ks-rootfs
if [ ! -x "$top/tests/kube-apiserver/start.sh" ]; then
	not_ok 'a real launch from the rootfs against the test server: tests/kube-apiserver/start.sh exists'
	exit 0
fi
if ! "$top/tests/kube-apiserver/start.sh" "$KS" >"$T/ks.log" 2>&1; then
	not_ok 'the Kubernetes API test server starts'
	cat "$T/ks.log" >&2
	exit 1
fi
trap '"$top/tests/kube-apiserver/stop.sh" "$KS" >/dev/null 2>&1' EXIT
mkdir -p "$run/tmp/kube"
cp "$KS/ca.pem" "$run/tmp/kube/ca.pem"
sed "s|$KS/ca.pem|/tmp/kube/ca.pem|g" "$KS/kubeconfig" >"$run/tmp/kube/kubeconfig"
chmod 644 "$run/tmp/kube/ca.pem" "$run/tmp/kube/kubeconfig"
expect 'the kubeconfig copied into the rootfs refers only to files inside it' \
	'! grep -q "$KS" "$run/tmp/kube/kubeconfig" && grep -q "/tmp/kube/ca.pem" "$run/tmp/kube/kubeconfig"'
for u in $users; do
	expect "uid $u: a 2-worker launch from the rootfs succeeds over HTTPS, streams both workers' logs, writes its outputs (exit 0)" \
		'in_root '"$u"' launch --kubeconfig /tmp/kube/kubeconfig --name rootfs-'"$u"' --image x/jax:1 --workers 2 --env SIM_LINES=2 --out-state /tmp/state-'"$u"' -- python train.py >"$T/launch.$u" 2>"$T/launch.$u.err" &&
		 grep -q "^\[worker-0\] " "$T/launch.$u" && grep -q "^\[worker-1\] " "$T/launch.$u" &&
		 [ "$(cat "$run/tmp/state-'"$u"'")" = Succeeded ]'
done
# Without the CA in the kubeconfig the server's certificate is refused: the
# rootfs's own bundle (public CAs) is what TLS is checked against.
grep -v 'certificate-authority' "$run/tmp/kube/kubeconfig" >"$run/tmp/kube/kubeconfig-noca"
chmod 644 "$run/tmp/kube/kubeconfig-noca"
expect 'uid 65532: without the test CA the launch from the rootfs refuses the server certificate (exit 4)' \
	'in_root 65532 launch --kubeconfig /tmp/kube/kubeconfig-noca --name rootfs-noca --image x/jax:1 -- python train.py >/dev/null 2>"$T/noca.err"; [ $? -eq 4 ] && grep -qi "certificate\|tls\|ssl" "$T/noca.err"'
