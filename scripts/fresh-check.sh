#!/usr/bin/env bash
# scripts/fresh-check.sh - `make fresh-check`: does a new user's first run work?
#
# Builds (once, then cached) a minimal Debian bookworm with debootstrap from
# Debian's mirror, copies this checkout into a throw-away copy of it (the
# files git knows, committed or not, without build/ and without ../shared,
# as in a user's clone), and runs there, as root, what the README tells a new
# user to run on a machine that has nothing but the base system:
#
#   apt-get install make      (the one package the README says to add by hand)
#   make demo                 (installs the packages it needs, builds, runs)
#   make check-quick          (the unit and CLI suites)
#
# Each command must succeed the first time: a package missing from
# scripts/install-deps.sh, a Makefile that asks pkg-config too early, a suite
# that needs ../shared without saying so, all turn this red. The host's
# packages are never touched.
#
# Environment:
#   FRESH_CACHE   where the base system and the downloaded .debs are kept
#                 (default ${XDG_CACHE_HOME:-$HOME/.cache}/jaxjob-fresh; outside
#                 the tree so `git clean` and `make clean` keep it)
#   FRESH_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#   FRESH_STEPS   the commands to run (default: the three above, with
#                 `make check-quick`); e.g. FRESH_STEPS='make demo'
#   FRESH_SHARED=1  put ../shared beside the copy too (the CI layout)
#   FRESH_KEEP=1  keep the chroot afterwards (its path is printed)
# Needs root (debootstrap, chroot, mount). Takes ~3 minutes with a warm cache.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FRESH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jaxjob-fresh}
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
steps=${FRESH_STEPS:-"apt-get install -y -q make >/dev/null && make demo && make check-quick"}

say() { printf 'fresh-check: %s\n' "$*" >&2; }
if [ "$(id -u)" -ne 0 ]; then
	say "needs root (debootstrap, chroot, mount); run it as root"
	exit 2
fi
for tool in debootstrap chroot mount git; do
	command -v "$tool" >/dev/null 2>&1 || { say "needs $tool (apt-get install debootstrap)"; exit 2; }
done

# --- the base system, built once ---------------------------------------------
base=$cache/$suite-minbase
mkdir -p "$cache/debs"
if [ ! -f "$base/.complete" ]; then
	say "building a minimal $suite in $base from $mirror (once; a few minutes)"
	rm -rf "$base.tmp"
	debootstrap --variant=minbase --cache-dir="$cache/debs" "$suite" "$base.tmp" "$mirror" \
		>"$cache/debootstrap.log" 2>&1 || {
		tail -n 20 "$cache/debootstrap.log" >&2
		say "debootstrap failed (log: $cache/debootstrap.log)"
		exit 1
	}
	rm -rf "$base"
	mv "$base.tmp" "$base"
	touch "$base/.complete"
fi

# --- a throw-away copy with this checkout in it -------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/jaxjob-fresh.XXXXXX")
root=$work/root
mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[$i]}" 2>/dev/null || umount -l "${mounts[$i]}" 2>/dev/null || true
	done
	# never remove a tree that still has something mounted in it
	if grep -q " $root" /proc/mounts; then
		say "something is still mounted under $root; not removing $work"
	elif [ -z "${FRESH_KEEP:-}" ]; then
		rm -rf "$work"
	else
		say "kept $root"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp -a "$base" "$root"
rm -f "$root/.complete"

# /dev: a tmpfs with the few nodes builds and tests use (never the host's
# /dev, so removing the copy cannot touch it); /proc for ps, nproc, /dev/fd.
mount -t tmpfs -o mode=755,nosuid dev "$root/dev"
mounts+=("$root/dev")
for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
	IFS=: read -r name major minor <<<"$n"
	mknod -m 666 "$root/dev/$name" c "$major" "$minor"
done
mkdir -p "$root/dev/pts" "$root/dev/shm"
chmod 1777 "$root/dev/shm"
# a private devpts instance (apt opens a pty for its log)
if mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts" 2>/dev/null; then
	mounts+=("$root/dev/pts")
	ln -s pts/ptmx "$root/dev/ptmx"
fi
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t proc proc "$root/proc"
mounts+=("$root/proc")
# downloaded packages are kept between runs
mkdir -p "$root/var/cache/apt/archives"
mount --bind "$cache/debs" "$root/var/cache/apt/archives"
mounts+=("$root/var/cache/apt/archives")
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# the checkout: what git tracks plus new files it does not ignore, as they
# are in the work tree now
dest=$root/src/jaxjob
mkdir -p "$dest"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -C "$dest" -xf -
if [ -n "${FRESH_SHARED:-}" ] && [ -d "$top/../shared" ]; then
	mkdir -p "$root/src/shared"
	mount --bind -o ro "$top/../shared" "$root/src/shared"
	mounts+=("$root/src/shared")
fi

say "in $root: $steps"
start=$(date +%s)
set +e
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
	/bin/bash -c "cd /src/jaxjob && apt-get update -q >/dev/null && $steps"
rc=$?
set -e
say "$([ $rc -eq 0 ] && echo passed || echo "FAILED (exit $rc)") in $(( $(date +%s) - start )) s"
exit $rc
