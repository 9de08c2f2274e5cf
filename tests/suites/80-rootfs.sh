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
python_bin=$(command -v python3)

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
rel=$top/build/jaxjob
expect 'make rootfs reports the total size as its last line' \
	'tail -n 1 "$T/mk.out" | grep -Eq "^rootfs: [0-9]+ bytes \([0-9.]+ MB\) in [0-9]+ files$"'

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
expect 'two builds of the same inputs give the same tree (content and mtimes)' \
	'env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" rootfs ROOTFS="$JAXJOB_TMP/rootfs2" >/dev/null &&
	 diff <(cd "$built" && find . -printf "%p %m %s %T@\n" | sort) <(cd "$JAXJOB_TMP/rootfs2" && find . -printf "%p %m %s %T@\n" | sort) &&
	 diff -r "$built" "$JAXJOB_TMP/rootfs2"'
rm -rf "$JAXJOB_TMP/rootfs2" "$JAXJOB_TMP/rootfs2".*

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
for u in $users; do
	expect "uid $u: --version from the rootfs prints '$want_version'" \
		'[ "$(in_root '"$u"' --version)" = "$want_version" ]'
	expect "uid $u: bad input from the rootfs is one 'error:' line, exit 2" \
		'in_root '"$u"' no-such-command >"$T/o" 2>"$T/e"; [ $? -eq 2 ] && [ ! -s "$T/o" ] && grep -q "^error: " "$T/e"'
done

# not_built ROLE: the role is still the placeholder (prints "is not built yet").
not_built() { "$rel" "$1" --help 2>&1 | grep -q 'is not built yet'; }

# ---- render ------------------------------------------------------------------
if not_built render || [ ! -d "$top/examples/gitops" ]; then
	skip 'render of examples/gitops from the rootfs equals the host render' 'jaxjob render or examples/gitops not there yet'
else
	(cd "$top/examples/gitops" && "$rel" render) >"$T/render.host" 2>"$T/render.err"
	cp -r "$top/examples/gitops" "$run/tmp/gitops"
	chmod -R a+rX "$run/tmp/gitops"
	for u in $users; do
		expect "uid $u: render of examples/gitops from the rootfs equals the host render" \
			'in_root_cd '"$u"' /tmp/gitops render >"$T/render.$u" && [ -s "$T/render.$u" ] && cmp "$T/render.host" "$T/render.$u"'
	done
	rm -rf "$run/tmp/gitops"
fi

# ---- health ----------------------------------------------------------------
sample=$(find "$top/health-checks" -path '*testdata*' -name '*.yaml' 2>/dev/null | LC_ALL=C sort | head -n 1)
if not_built health || [ -z "$sample" ]; then
	skip 'health of a sample JAXJob from the rootfs equals the host judgement' 'jaxjob health or its testdata not there yet'
else
	cp "$sample" "$run/tmp/sample.yaml"
	chmod 644 "$run/tmp/sample.yaml"
	"$rel" health /tmp/../"$sample" >"$T/health.host" 2>&1
	hrc=$?
	for u in $users; do
		expect "uid $u: health of $(basename "$sample") from the rootfs equals the host judgement" \
			'in_root '"$u"' health /tmp/sample.yaml >"$T/health.$u" 2>&1; [ $? -eq '"$hrc"' ] && [ -s "$T/health.$u" ] && cmp "$T/health.host" "$T/health.$u"'
	done
fi
