#!/usr/bin/env bash
# scripts/build-slim-deps.sh - libcurl and libgit2 built from Debian's own
# source packages, configured for what jaxjob uses and nothing else, as
# static libraries for the image's binary (`make rootfs`, Dockerfile).
#
#   scripts/build-slim-deps.sh [PREFIX]     default $JAXJOB_SLIM_DIR or
#                                           /var/cache/jaxjob-slim
#
# Why: Debian's libcurl4 is built for every protocol and auth scheme
# (GnuTLS via librtmp, LDAP, Kerberos, SSH, IDN, PSL, brotli, zstd) and
# libgit2 for SSH, Kerberos and mbedTLS; loading that tail costs ~6 ms per
# start and 10+ MB of rootfs. jaxjob needs:
#   libcurl  HTTP/1.1 and HTTP/2 (nghttp2) over OpenSSL, the multi interface
#   libgit2  local repositories and clones over HTTPS (OpenSSL)
# Both share the system's libssl/libcrypto; libnghttp2 stays Debian's
# shared library (curl's own dependency, 190 kB, nothing below it).
#
# The result is PREFIX/{include,lib,lib/pkgconfig} plus PREFIX/VERSIONS (the
# installed -dev versions: the cache key) and PREFIX/SOURCES (the Debian
# source versions actually built, one "PACKAGE VERSION" line each: they can
# be older than the -dev package when the mirror lacks that exact source;
# the image's SBOM, scripts/sbom.py, reads them). A second run with the same
# -dev versions does nothing, so `make check` and `make rootfs` never rebuild
# it; a cache without SOURCES (made before it was recorded) is rebuilt once.
# It takes a few minutes of CPU once.
#
# Sources: `apt-get source` (deb-src lines are added to a private apt state
# under a temporary directory when the system has none, so the machine's
# apt configuration is left alone). Needs: dpkg-dev, cmake, libssl-dev,
# libnghttp2-dev, zlib1g-dev (scripts/install-deps.sh).
set -euo pipefail

die() { echo "error: $*" >&2; exit 2; }

prefix=${1:-${JAXJOB_SLIM_DIR:-/var/cache/jaxjob-slim}}
jobs=${JOBS:-$(nproc)}
curl_ver=$(dpkg-query -W -f='${Version}' libcurl4-openssl-dev 2>/dev/null || true)
git2_ver=$(dpkg-query -W -f='${Version}' libgit2-dev 2>/dev/null || true)
[ -n "$curl_ver" ] || die "libcurl4-openssl-dev is not installed; run scripts/install-deps.sh"
[ -n "$git2_ver" ] || die "libgit2-dev is not installed; run scripts/install-deps.sh"
stamp="curl $curl_ver libgit2 $git2_ver"
if [ -f "$prefix/VERSIONS" ] && [ "$(cat "$prefix/VERSIONS")" = "$stamp" ] && [ -s "$prefix/SOURCES" ]; then
	echo "slim deps: up to date in $prefix ($stamp)"
	exit 0
fi
for t in dpkg-source cmake make cc pkg-config; do
	command -v "$t" >/dev/null || die "'$t' not found; run scripts/install-deps.sh"
done
pkg-config --exists libnghttp2 || die "libnghttp2-dev is not installed; run scripts/install-deps.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

# ---- sources ------------------------------------------------------------
apt_opts=()
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	mkdir -p "$work/apt/lists/partial"
	cat >"$work/apt/sources.list" <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
	apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
		-o "APT::Sandbox::User=root")
	mkdir -p "$work/apt/cache/archives/partial"
	echo "slim deps: fetching Debian source indexes (private apt state)"
	apt-get -qq "${apt_opts[@]}" update >/dev/null
fi
mkdir -p "$work/src"
# The installed version first (headers and source agree); when the mirror
# lacks that exact file, the other versions apt knows, newest first.
fetch_source() { # fetch_source PACKAGE INSTALLED-VERSION; the version used -> $work/PACKAGE.source
	local v tried=
	for v in "$2" $(apt-cache "${apt_opts[@]}" showsrc "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -u | sort -rV); do
		case " $tried " in *" $v "*) continue ;; esac
		tried="$tried $v"
		if (cd "$work/src" && apt-get -qq "${apt_opts[@]}" source "$1=$v" >/dev/null 2>>"$work/source.log"); then
			[ "$v" = "$2" ] || echo "slim deps: $1 $2 is not on the mirror; using its source $v"
			echo "$v" >"$work/$1.source"
			return 0
		fi
	done
	cat "$work/source.log" >&2
	die "apt-get source $1 failed for versions:$tried (is deb.debian.org reachable?)"
}
# curl is kept across libgit2 updates (curl.version, curl.source); without
# curl.source its source version is unknown, so it is rebuilt.
[ -s "$prefix/curl.source" ] || rm -f "$prefix/curl.version"
[ "$(cat "$prefix/curl.version" 2>/dev/null)" = "$curl_ver" ] || fetch_source curl "$curl_ver"
fetch_source libgit2 "$git2_ver"
curl_src=$(find "$work/src" -maxdepth 1 -type d -name 'curl-*' | head -1)
git2_src=$(find "$work/src" -maxdepth 1 -type d -name 'libgit2-*' | head -1)
[ -d "$git2_src" ] || die "unpacked libgit2 source not found in $work/src"

# ---- libcurl: HTTP(S) over OpenSSL, HTTP/2 via nghttp2, nothing else ----
if [ "$(cat "$prefix/curl.version" 2>/dev/null)" = "$curl_ver" ]; then
	echo "slim deps: libcurl $curl_ver already built"
else
echo "slim deps: building libcurl $curl_ver (static)"
(
	cd "$curl_src"
	[ -x configure ] || autoreconf -fi >/dev/null
	./configure --prefix="$prefix" --disable-shared --enable-static --with-pic \
		--with-openssl --with-nghttp2 --with-ca-bundle=/etc/ssl/certs/ca-certificates.crt \
		--without-ca-path --disable-dict --disable-file --disable-ftp --disable-gopher \
		--disable-imap --disable-ldap --disable-ldaps --disable-mqtt --disable-pop3 \
		--disable-rtsp --disable-smb --disable-smtp --disable-telnet --disable-tftp \
		--disable-manual --disable-docs --disable-ntlm --disable-kerberos-auth \
		--disable-negotiate-auth --disable-aws --disable-netrc --disable-alt-svc \
		--disable-hsts --disable-cookies --disable-mime --disable-form-api \
		--disable-headers-api --disable-doh --disable-progress-meter --disable-dateparse \
		--disable-sspi --disable-tls-srp --disable-unix-sockets --disable-websockets \
		--without-zlib --without-brotli --without-zstd --without-libidn2 --without-libpsl \
		--without-librtmp --without-libssh2 --without-libssh --without-gssapi \
		--without-libgsasl --without-hyper --without-quiche --without-ngtcp2 \
		--without-nghttp3 --without-msh3 --disable-threaded-resolver --enable-ipv6 \
		>"$work/curl-configure.log" 2>&1 ||
		{ tail -30 "$work/curl-configure.log" >&2; die "curl configure failed"; }
	make -s -j"$jobs" -C lib >"$work/curl-make.log" 2>&1 ||
		{ tail -30 "$work/curl-make.log" >&2; die "curl build failed"; }
	make -s -C lib install >/dev/null
	make -s -C include install >/dev/null
	make -s install-pkgconfigDATA >/dev/null
)
cp "$work/curl.source" "$prefix/curl.source"
echo "$curl_ver" >"$prefix/curl.version"
fi

# ---- libgit2: local repositories, clones over HTTPS with OpenSSL ---------
# Debian's +ds tarball drops the bundled PCRE and http-parser: regex via
# glibc's regcomp, http-parser from Debian's libhttp_parser.a at link time.
echo "slim deps: building ${git2_src##*/} (static)"
(
	mkdir -p "$work/git2-build"
	cd "$work/git2-build"
	cmake "$git2_src" -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
		-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTS=OFF \
		-DBUILD_CLI=OFF -DBUILD_EXAMPLES=OFF -DBUILD_FUZZERS=OFF -DUSE_SSH=OFF \
		-DUSE_HTTPS=OpenSSL -DUSE_SHA1=CollisionDetection -DUSE_GSSAPI=OFF \
		-DUSE_SHA256=OpenSSL -DUSE_NTLMCLIENT=OFF -DREGEX_BACKEND=regcomp \
		-DUSE_HTTP_PARSER=system -DUSE_BUNDLED_ZLIB=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
		>"$work/git2-cmake.log" 2>&1 ||
		{ tail -30 "$work/git2-cmake.log" >&2; die "libgit2 cmake failed"; }
	make -s -j"$jobs" >"$work/git2-make.log" 2>&1 ||
		{ tail -30 "$work/git2-make.log" >&2; die "libgit2 build failed"; }
	make -s install >/dev/null
)
printf 'curl %s\nlibgit2 %s\n' "$(cat "$prefix/curl.source")" "$(cat "$work/libgit2.source")" >"$prefix/SOURCES"
echo "$stamp" >"$prefix/VERSIONS"
echo "slim deps: installed in $prefix ($stamp)"
