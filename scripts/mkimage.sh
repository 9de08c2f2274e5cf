#!/usr/bin/env bash
# scripts/mkimage.sh - the OCI image from build/rootfs, without a container
# daemon: Debian's umoci writes the image, skopeo the docker-archive.
#
#   scripts/mkimage.sh ROOTFS SBOM OCI-DIR TAR IMAGE     (normally `make image`)
#
# OCI-DIR gets an OCI image layout whose one tag is IMAGE's tag (latest when
# IMAGE has none); TAR a docker-archive of it named IMAGE (`docker load`,
# `podman load`). Nothing is half-written: both are built beside their place
# and moved in at the end. The image is what the Dockerfile declares:
#   layer 1  ROOTFS, exactly (scripts/mkrootfs.sh: the binary, its loader and
#            libraries, the CA bundle, passwd/group/nsswitch.conf, /tmp)
#   layer 2  SBOM at /usr/share/doc/jaxjob/sbom.cdx.json (scripts/sbom.py):
#            the SBOM travels with the image, whatever registry or runtime
#            it goes through (an OCI artifact beside it would need a registry
#            that keeps referrers), in a layer of its own so that layer 1 is
#            the rootfs byte for byte
#   config   User 65532:65532, Entrypoint /usr/local/bin/jaxjob, Cmd help,
#            WorkingDir /tmp, the PATH a Dockerfile build gets, the OCI labels
#            (title, description, version, revision, source, licenses)
# Every time in it (created, history, file mtimes) is SOURCE_DATE_EPOCH, so
# one commit gives one manifest digest (tests/suites/81-image-repro.sh).
#
# Environment: VERSION, REVISION, SOURCE (label values; SOURCE unknown when
# empty), SOURCE_DATE_EPOCH (default 0).
set -euo pipefail

die() { echo "error: $*" >&2; exit 2; }

[ $# -eq 5 ] || die "usage: scripts/mkimage.sh ROOTFS SBOM OCI-DIR TAR IMAGE"
root=$1 sbom=$2 out=$3 tar=$4 image=$5
epoch=${SOURCE_DATE_EPOCH:-0}
for t in umoci skopeo; do
	command -v "$t" >/dev/null || die "'$t' not found; run 'make deps' (scripts/install-deps.sh installs it)"
done
[ -x "$root/usr/local/bin/jaxjob" ] || die "'$root' holds no /usr/local/bin/jaxjob; run 'make rootfs' first"
[ -s "$sbom" ] || die "SBOM '$sbom' is missing; run 'make sbom' first"
case "$out" in "" | / | .) die "refusing to use '$out' as the image directory" ;; esac

# The tag in the layout: IMAGE's tag (after the last ':' of its last path part).
last=${image##*/}
tag=latest
case "$last" in *:*) tag=${last##*:} ;; esac
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
rootless=()
[ "$(id -u)" -eq 0 ] || rootless=(--rootless)

work=$(mktemp -d "$(dirname "$out")/.mkimage.XXXXXX")
trap 'rm -rf "$work"' EXIT
oci=$work/oci
ref=$oci:$tag
hist=(--history.created "$created" --history.author jaxjob)

umoci init --layout "$oci"
umoci new --image "$ref"
# umoci new stamps the empty image with the current time: pinned below.
# The layers come from an unpacked bundle (umoci repack diffs it against the
# image it was unpacked from), so each holds its tree as it is (owner root,
# modes, mtimes) relative to "/". (umoci insert is not used: umoci 0.4.7's
# insert writes a truncated tar stream.)
# Layer 1: the rootfs.
umoci unpack "${rootless[@]}" --image "$ref" "$work/bundle" >/dev/null
cp -a "$root/." "$work/bundle/rootfs/"
umoci repack "${rootless[@]}" --refresh-bundle --image "$ref" "${hist[@]}" \
	--history.created_by "scripts/mkrootfs.sh (make rootfs): the binary, its libraries, CA bundle, passwd" \
	"$work/bundle"

# Layer 2: the SBOM, root-owned, mode 0644; every directory it touched gets
# its pinned mtime back, so only the new paths are in the layer.
r=$work/bundle/rootfs
doc=$r/usr/share/doc/jaxjob
mkdir -p "$doc"
cp "$sbom" "$doc/sbom.cdx.json"
chmod 0755 "$r/usr/share" "$r/usr/share/doc" "$doc"
chmod 0644 "$doc/sbom.cdx.json"
[ "$(id -u)" -ne 0 ] || chown -R 0:0 "$r/usr/share"
touch -h -d "@$epoch" "$r" "$r/usr" "$r/usr/share" "$r/usr/share/doc" "$doc" "$doc/sbom.cdx.json"
umoci repack "${rootless[@]}" --image "$ref" "${hist[@]}" \
	--history.created_by "scripts/sbom.py (make sbom): CycloneDX SBOM at /usr/share/doc/jaxjob/sbom.cdx.json" \
	"$work/bundle"
rm -rf "$work/bundle"

title="jaxjob"
desc="Kubeflow JAXJobs in pipelines and GitOps: pipeline step (jaxjob launch), Argo CD config management plugin (jaxjob render), health judge (jaxjob health)"
umoci config --image "$ref" "${hist[@]}" --history.created_by "umoci config: USER, ENTRYPOINT, CMD, WORKDIR, labels" \
	--created "$created" --author jaxjob --os linux --architecture "$(dpkg --print-architecture 2>/dev/null || echo amd64)" \
	--config.user 65532:65532 --config.entrypoint /usr/local/bin/jaxjob --config.cmd help \
	--config.workingdir /tmp --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	--config.label "org.opencontainers.image.title=$title" \
	--config.label "org.opencontainers.image.description=$desc" \
	--config.label "org.opencontainers.image.source=${SOURCE:-unknown}" \
	--config.label "org.opencontainers.image.version=${VERSION:-unknown}" \
	--config.label "org.opencontainers.image.revision=${REVISION:-unknown}" \
	--config.label "org.opencontainers.image.licenses=Apache-2.0"
umoci gc --layout "$oci"

skopeo copy -q "oci:$ref" "docker-archive:$work/image.tar:$image"

rm -rf "$out"
mv "$oci" "$out"
mv "$work/image.tar" "$tar"
digest=$(sed -n 's/.*"digest":"\(sha256:[0-9a-f]*\)".*/\1/p' "$out/index.json")
echo "image: $out (oci:$out:$tag, manifest $digest), $tar (docker-archive $image)"
