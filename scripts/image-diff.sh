#!/usr/bin/env bash
# scripts/image-diff.sh - what differs between two images, in words.
#
#   scripts/image-diff.sh A B       A, B: skopeo transports, e.g.
#                                   oci:build/image:0.1.0
#                                   docker-archive:build/jaxjob-image.tar
#                                   docker-daemon:jaxjob:0.1.0 (make image-docker)
#
# Prints one line per difference and exits 1 when there is one (a different
# manifest digest alone included), 0 when the two are the same image. Compared: the manifest digest, the config's user, entrypoint, cmd,
# working dir, env, labels, created and history, and the files (path, type,
# mode, owner, size, SHA-256, link target, mtime) of the flattened layers.
# Used by tests/suites/81-image-repro.sh to name what made two builds of one
# commit differ, and to compare `make image` with `make image-docker`
# (README, Install). Needs skopeo and umoci (make deps).
set -euo pipefail

die() { echo "error: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: scripts/image-diff.sh IMAGE-A IMAGE-B (skopeo transports: oci:DIR:TAG, docker-archive:FILE, docker-daemon:NAME)"
for t in skopeo umoci; do
	command -v "$t" >/dev/null || die "'$t' not found; run 'make deps'"
done
py=$(command -v /usr/bin/python3 || command -v python3)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootless=()
[ "$(id -u)" -eq 0 ] || rootless=(--rootless)

# side N SRC: a copy as an OCI layout, its config and a listing of its files
side() {
	local n=$1 src=$2
	skopeo copy -q "$src" "oci:$work/$n:x" >/dev/null 2>"$work/$n.err" ||
		die "cannot read image $src: $(tail -n 1 "$work/$n.err")"
	skopeo inspect --raw "oci:$work/$n:x" >"$work/$n.manifest"
	skopeo inspect --config "oci:$work/$n:x" >"$work/$n.config"
	umoci raw unpack "${rootless[@]}" --image "$work/$n:x" "$work/$n.root" 2>"$work/$n.err" ||
		die "cannot unpack $src: $(tail -n 1 "$work/$n.err")"
	(cd "$work/$n.root" && find . -mindepth 1 -printf '%p %y %m %U:%G %s %T@ %l\n' | LC_ALL=C sort) >"$work/$n.tree"
	(cd "$work/$n.root" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum) >"$work/$n.sums"
}
side a "$1"
side b "$2"

# skopeo copy between transports may recompress layers, so the digests
# compared are those of the sources as given.
da=$(skopeo inspect --format '{{.Digest}}' "$1" 2>/dev/null || echo '?')
db=$(skopeo inspect --format '{{.Digest}}' "$2" 2>/dev/null || echo '?')
"$py" - "$work" "$1" "$2" "$da" "$db" <<'PY'
import json, sys
w, a, b, da, db = sys.argv[1:6]
diffs = []
if da != db:
    diffs.append("manifest digest: %s %s, %s %s" % (a, da, b, db))
ca, cb = (json.load(open("%s/%s.config" % (w, n))) for n in "ab")
for key in ("User", "Entrypoint", "Cmd", "WorkingDir", "Env", "Labels"):
    va, vb = ca.get("config", {}).get(key), cb.get("config", {}).get(key)
    if va != vb:
        diffs.append("config %s: %s, %s" % (key, json.dumps(va), json.dumps(vb)))
for key in ("created", "architecture", "os"):
    if ca.get(key) != cb.get(key):
        diffs.append("config %s: %s, %s" % (key, ca.get(key), cb.get(key)))
ha, hb = ca.get("history", []), cb.get("history", [])
if ha != hb:
    diffs.append("config history: %d entries (%s), %d entries (%s)" % (
        len(ha), ", ".join(h.get("created", "?") for h in ha),
        len(hb), ", ".join(h.get("created", "?") for h in hb)))
la = [l["digest"] for l in json.load(open(w + "/a.manifest"))["layers"]]
lb = [l["digest"] for l in json.load(open(w + "/b.manifest"))["layers"]]
def tree(n):
    t = {}
    for line in open("%s/%s.tree" % (w, n)):
        p, typ, mode, owner, size, mtime, link = line.rstrip("\n").split(" ", 6)
        # a directory's size is the file system's business, not the image's
        t[p[2:]] = " ".join([typ, mode, owner, size if typ == "f" else "-", mtime, link or "-"])
    for line in open("%s/%s.sums" % (w, n)):
        s, p = line.rstrip("\n").split("  ", 1)
        t[p[2:]] += " sha256:" + s[:16]
    return t
ta, tb = tree("a"), tree("b")
for p in sorted(set(ta) | set(tb)):
    if p not in tb:
        diffs.append("file %s only in %s" % (p, a))
    elif p not in ta:
        diffs.append("file %s only in %s" % (p, b))
    elif ta[p] != tb[p]:
        diffs.append("file %s (type mode owner size mtime link hash): %s, %s" % (p, ta[p], tb[p]))
same_files = not any(d.startswith("file ") for d in diffs)
if la != lb and same_files and da != db:
    diffs.append("layers: the same files, different layer blobs (tar headers or compression): %s, %s"
                 % (" ".join(x[7:19] for x in la), " ".join(x[7:19] for x in lb)))
for d in diffs:
    print(d)
sys.exit(1 if diffs else 0)
PY
