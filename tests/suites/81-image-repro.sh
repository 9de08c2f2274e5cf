#!/usr/bin/env bash
# tests/suites/81-image-repro.sh - one commit, one image: `make image` in a
# second clone of this checkout, at another path, from an empty build/ (the
# slim libcurl/libgit2 cache may stay, as the issue allows), gives the
# manifest digest 81-image got. When it does not, scripts/image-diff.sh names
# what differs (config fields, history, files: mode, owner, size, hash, mtime).
# run-all: after 81-image
. "$JAXJOB_TOP/tests/lib/tap.sh"
top=$JAXJOB_TOP
A=$JAXJOB_TMP/image-a
B=$JAXJOB_TMP/image-b
version=$(sed -n 's/^#define JAXJOB_VERSION "\(.*\)"/\1/p' "$top/lib/version.h")

if [ ! -s "$A/build/image.digest" ] || [ ! -f "$A/build/image/index.json" ]; then
	skip 'two make image runs of one commit give one manifest digest' '81-image built no image (see its report)'
	exit 0
fi
want=$(cat "$A/build/image.digest")

git clone -q --shared "$top" "$B" &&
	(cd "$top" && git ls-files -z -m -o --exclude-standard | tar -cf - --null -T -) | tar -xf - -C "$B" &&
	(cd "$top" && git ls-files -z -d) | (cd "$B" && xargs -0r rm -f)
slim=()
[ -f "${JAXJOB_SLIM_DIR:-/var/cache/jaxjob-slim}/VERSIONS" ] || slim=(IMAGE_SLIM=if-cached)
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$B" -j2 image "${slim[@]}" >"$T/mk.out" 2>"$T/mk.err"; then
	not_ok 'make image in a second clone'
	tail -n 30 "$T/mk.out" "$T/mk.err" >&2
	exit 1
fi
got=$(skopeo inspect --format '{{.Digest}}' "oci:$B/build/image:$version")
if [ "$got" = "$want" ]; then
	ok "two make image runs of one commit, from empty build/ dirs at two paths, give one manifest digest ($want)"
else
	not_ok "two make image runs of one commit give one manifest digest: $want, then $got"
	"$top/scripts/image-diff.sh" "oci:$A/build/image:$version" "oci:$B/build/image:$version" | sed 's/^/differs: /' >&2
fi
expect 'the two docker-archives are byte for byte the same file' \
	'cmp "$A/build/jaxjob-image.tar" "$B/build/jaxjob-image.tar"'
expect 'the two SBOMs are byte for byte the same file' \
	'cmp "$A/build/jaxjob-sbom.cdx.json" "$B/build/jaxjob-sbom.cdx.json"'
# The comparison tool itself: it names a difference it is shown.
expect 'scripts/image-diff.sh names a changed label and a changed file, exit 1' \
	'cp -a "$B/build/rootfs" "$T/root2" && echo changed >>"$T/root2/etc/nsswitch.conf" &&
	 (cd "$B" && VERSION=other scripts/mkimage.sh "$T/root2" build/jaxjob-sbom.cdx.json "$T/other" "$T/other.tar" jaxjob:x) >/dev/null &&
	 ! "$top/scripts/image-diff.sh" "oci:$B/build/image:$version" "oci:$T/other:x" >"$T/diff.out" &&
	 grep -q "^config Labels: " "$T/diff.out" && grep -q "^file etc/nsswitch.conf (type mode owner size mtime link hash): " "$T/diff.out"'
rm -rf "$B" "$T/root2" "$T/other" "$T/other.tar"
