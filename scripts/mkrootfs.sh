#!/usr/bin/env bash
# scripts/mkrootfs.sh - assemble the container image's complete filesystem.
#
#   scripts/mkrootfs.sh BINARY ROOTFS     (normally via `make rootfs`)
#
# ROOTFS is emptied and gets exactly:
#   usr/local/bin/jaxjob               BINARY, stripped
#   <PT_INTERP> (lib64/ld-linux-*.so)  the dynamic loader named in BINARY
#   <each library ldd resolves>        copied to the path ldd prints (no
#                                      symlinks: the file itself, under the
#                                      name the loader looks for)
#   etc/ssl/certs/ca-certificates.crt  the CA bundle libcurl reads by default
#   etc/passwd, etc/group              root, argocd (999, the Argo CD sidecar
#                                      user), jaxjob (65532, the image's USER)
#   etc/nsswitch.conf                  "hosts: files dns": without it glibc asks
#                                      DNS before /etc/hosts (hostAliases)
#   tmp/                               mode 1777
# and nothing else: no shell, no package database, no templates (the binary
# embeds its default template). Everything is owned by root and not writable
# by anyone else; nothing is setuid. The file list and a size breakdown (who
# pulls each library in) are written to ROOTFS.files and ROOTFS.sizes, the
# path of BINARY to ROOTFS.binary (which build went in: `make rootfs` picks
# build/slim/jaxjob when the slim libraries are cached), and the
# total is printed as the last line:
#   "rootfs: N bytes (X.Y MB) in M files; as a gzipped layer Z.Z MB".
#
# Environment: STRIP (default strip), CA_BUNDLE (default the Debian path),
# SOURCE_DATE_EPOCH (mtimes of everything in ROOTFS; default 0 = 1970, so two
# builds of the same inputs are byte-identical trees).
set -euo pipefail

die() { echo "error: $*" >&2; exit 2; }

[ $# -eq 2 ] || die "usage: scripts/mkrootfs.sh BINARY ROOTFS"
bin=$1 root=$2
STRIP=${STRIP:-strip}
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
epoch=${SOURCE_DATE_EPOCH:-0}

[ -x "$bin" ] || die "binary '$bin' is missing or not executable; run 'make' first"
[ -r "$CA_BUNDLE" ] || die "CA bundle '$CA_BUNDLE' not found; install the ca-certificates package"
case "$root" in
"" | / | /usr | /etc) die "refusing to use '$root' as the rootfs directory" ;;
esac
command -v ldd >/dev/null || die "ldd not found (package libc-bin)"
command -v readelf >/dev/null || die "readelf not found (package binutils)"

# The loader comes from the ELF header, not from a guess per architecture.
interp=$(readelf -l "$bin" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || die "'$bin' has no program interpreter; a static binary needs no rootfs libraries, adapt this script"

# ldd lines: "libx.so.1 => /lib/.../libx.so.1 (0x...)", the vdso (no file),
# and the loader as an absolute path. "not found" is fatal.
ldd_out=$(ldd "$bin")
if grep -q 'not found' <<<"$ldd_out"; then
	die "'$bin' needs libraries that are not installed: $(grep 'not found' <<<"$ldd_out" | awk '{print $1}' | tr '\n' ' ')"
fi
libs=$(awk '$2 == "=>" && $3 ~ /^\// {print $3}' <<<"$ldd_out" | sort -u)

rm -rf "$root"
mkdir -p "$root"
umask 022

put() { # put SRC DEST-IN-ROOTFS MODE: copy the file itself, never a symlink
	local src=$1 dst=$root$2 mode=$3
	mkdir -p "$(dirname "$dst")"
	cp -L "$src" "$dst"
	chmod "$mode" "$dst"
}

put "$bin" /usr/local/bin/jaxjob 0755
"$STRIP" --strip-all "$root/usr/local/bin/jaxjob"
put "$interp" "$interp" 0755
for l in $libs; do
	[ "$l" = "$interp" ] && continue
	put "$l" "$l" 0644
	# Debian ships libraries stripped of debug info, but with symbol
	# tables for debugging and a debuglink section; the loader needs
	# only the dynamic symbols.
	"$STRIP" --strip-unneeded "$root$l"
done
put "$CA_BUNDLE" /etc/ssl/certs/ca-certificates.crt 0644

mkdir -p "$root/etc"
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
argocd:x:999:999:Argo CD sidecar:/home/argocd:/sbin/nologin
jaxjob:x:65532:65532:jaxjob:/home/jaxjob:/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
argocd:x:999:
jaxjob:x:65532:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
chmod 0644 "$root/etc/passwd" "$root/etc/group" "$root/etc/nsswitch.conf"
mkdir -p "$root/tmp"
chmod 1777 "$root/tmp"

if [ "$(id -u)" -eq 0 ]; then
	chown -R 0:0 "$root"
fi
find "$root" -exec touch -h -d "@$epoch" {} +

# ---- report -------------------------------------------------------------
(cd "$root" && find . -mindepth 1 | sed 's|^\./|/|' | LC_ALL=C sort) >"$root.files"
readlink -f "$bin" >"$root.binary"

# Who drags in what: for each library its size and the objects in the rootfs
# that NEED it; then, for each direct dependency of the binary, the bytes
# that would leave the image with it (the libraries only it pulls in).
python3 - "$root" /usr/local/bin/jaxjob "$interp" $libs >"$root.sizes" <<'PY'
import os, subprocess, sys
root, binpath, interp, libs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
files = [binpath, interp] + [l for l in libs if l != interp]
size = {f: os.path.getsize(root + f) for f in files}
by_soname = {os.path.basename(f): f for f in files}
needs = {}
for f in files:
    out = subprocess.run(["readelf", "-d", root + f], capture_output=True, text=True).stdout
    needs[f] = [by_soname[l.split("[")[1].split("]")[0]] for l in out.splitlines()
                if "(NEEDED)" in l and l.split("[")[1].split("]")[0] in by_soname]
def reach(start, cut=None):
    """Objects reachable from start, ignoring the edge start -> cut."""
    seen, todo = set(), [start]
    while todo:
        f = todo.pop()
        for n in needs[f]:
            if (f, n) != (start, cut) and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen
everything = reach(binpath) | {interp}
print("%10s  %-40s %s" % ("bytes", "file", "needed by"))
for f in sorted(files, key=lambda f: -size[f]):
    users = sorted(os.path.basename(g) for g in files if f in needs[g])
    shown = " ".join(users[:4]) + (" +%d more" % (len(users) - 4) if len(users) > 4 else "")
    print("%10d  %-40s %s" % (size[f], f, shown))
print()
print("bytes that would leave the image without each direct dependency of jaxjob")
print("(itself, unless something else needs it, and the libraries only it pulls in):")
rows = []
for d in needs[binpath]:
    gone = everything - (reach(binpath, cut=d) | {interp}) 
    rows.append((sum(size[g] for g in gone), d, gone))
for total, d, gone in sorted(rows, key=lambda r: -r[0]):
    others = sorted(os.path.basename(g) for g in gone if g != d)
    print("%10d  %-20s %s" % (total, os.path.basename(d),
          ("+ %d: %s" % (len(others), " ".join(others))) if others else ""))
PY
total=$(find "$root" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
nfiles=$(find "$root" -type f | wc -l)
cat "$root.sizes"
echo "CA bundle: $(stat -c %s "$root/etc/ssl/certs/ca-certificates.crt") bytes"
gz=$(tar -C "$root" --sort=name --numeric-owner -cf - . | gzip -9n | wc -c)
awk -v t="$total" -v n="$nfiles" -v gz="$gz" 'BEGIN {printf "rootfs: %d bytes (%.1f MB) in %d files; as a gzipped layer %.1f MB\n", t, t / 1e6, n, gz / 1e6}'
