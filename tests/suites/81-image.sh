#!/usr/bin/env bash
# tests/suites/81-image.sh - `make image` without a container daemon: the OCI
# layout and the docker-archive, the config the Dockerfile declares, the
# SBOM (its components, versions and licences checked against dpkg here, and
# the CycloneDX validator where the npm registry answers), bad IMAGE values.
#
# The image is built in a clone of this checkout (its uncommitted changes
# copied over) under $JAXJOB_TMP/image-a, from an empty build/: the suites
# after it run that image with runc (82-image-runc) and build it a second
# time from a second clone (81-image-repro). With the slim libcurl/libgit2
# cached (scripts/build-slim-deps.sh) it is the image `make image` ships;
# without, IMAGE_SLIM=if-cached builds it on the system's libraries instead of
# spending minutes of CPU on them, and a SKIP says so.
#
# run-all: after 56-kube-http2-real 65-real-kueue 65-real-launch 66-real-faults 67-real-failure 68-real-safety 94-stall
# (a whole build, minutes of CPU: beside the control planes starting on 2 cores it starved
# them past kubectl's 32 s openapi timeout, so it waits until they are done)
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/lib/npm.sh"
top=$JAXJOB_TOP
A=$JAXJOB_TMP/image-a
version=$(sed -n 's/^#define JAXJOB_VERSION "\(.*\)"/\1/p' "$top/lib/version.h")

missing=
for t in umoci skopeo git; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
if [ -n "$missing" ]; then
	skip 'make image builds the OCI image without a daemon' "not installed:$missing (make deps installs them)"
	exit 0
fi

# clone_checkout DIR: this checkout at DIR, uncommitted changes included
clone_checkout() {
	git clone -q --shared "$top" "$1" || return 1
	(cd "$top" && git ls-files -z -m -o --exclude-standard | tar -cf - --null -T -) | tar -xf - -C "$1" &&
		(cd "$top" && git ls-files -z -d) | (cd "$1" && xargs -0r rm -f)
}
mk() { # mk DIR ARGS...: a make of its own, not make check's (jobserver, SAN=1)
	local d=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$d" -j2 "$@"
}
slim=()
slim_dir=${JAXJOB_SLIM_DIR:-/var/cache/jaxjob-slim}
if [ ! -f "$slim_dir/VERSIONS" ]; then
	slim=(IMAGE_SLIM=if-cached)
	skip 'the image carries the slim binary (static libcurl, libgit2, OpenSSL, ...)' \
		"no slim cache in $slim_dir (scripts/build-slim-deps.sh: minutes of CPU); built on the system's libraries"
fi

if ! clone_checkout "$A"; then
	not_ok 'a clone of this checkout to build the image in'
	exit 1
fi
git -C "$A" status --porcelain >"$T/status.before"
rev=$(git -C "$A" rev-parse HEAD)
git -C "$A" diff --quiet HEAD -- || rev=$rev-dirty
epoch=$(git -C "$A" log -1 --format=%ct)
if mk "$A" image "${slim[@]}" >"$T/mk.out" 2>"$T/mk.err"; then
	ok "make image (no daemon: umoci, skopeo) from an empty build/ in a clone"
else
	not_ok "make image (no daemon: umoci, skopeo) from an empty build/ in a clone"
	tail -n 30 "$T/mk.out" "$T/mk.err" >&2
	exit 1
fi
sed 's/^/# /' "$T/mk.out" | tail -n 4
img=oci:$A/build/image:$version
digest=$(skopeo inspect --format '{{.Digest}}' "$img" 2>"$T/insp.err")
echo "$digest" >"$A/build/image.digest"	# for 81-image-repro
expect "the last line names the image and its manifest digest ($digest)" \
	'tail -n 1 "$T/mk.out" | grep -qx "image: build/image (oci:build/image:$version, manifest $digest), build/jaxjob-image.tar (docker-archive jaxjob:$version)"'
expect 'make image without IMAGE= leaves every tracked file as it was' \
	'git -C "$A" status --porcelain | diff "$T/status.before" -'
expect 'build/image is an OCI layout whose one tag is the version' \
	'grep -q imageLayoutVersion "$A/build/image/oci-layout" &&
	 [ "$(python3 -c "import json,sys; print(\" \".join(m[\"annotations\"][\"org.opencontainers.image.ref.name\"] for m in json.load(open(sys.argv[1]))[\"manifests\"]))" "$A/build/image/index.json")" = "$version" ]'

# ---- the config: what the Dockerfile declares ---------------------------------
skopeo inspect --config "$img" >"$T/config.json" 2>"$T/cfg.err"
skopeo inspect "$img" >"$T/inspect.json" 2>>"$T/cfg.err"
python3 - "$top/Dockerfile" "$T/config.json" "$version" "$rev" "$epoch" >"$T/cfgcheck" 2>&1 <<'PY'
import json, re, sys
from datetime import datetime, timezone
df, cfg, version, rev, epoch = sys.argv[1:]
text = open(df).read().replace("\\\n", " ")
final = text[text.rindex("\nFROM scratch"):]
c = json.load(open(cfg))
conf = c["config"]
bad = []
user = re.search(r"^USER (\S+)", final, re.M).group(1)
if conf.get("User") != user: bad.append("User %r, Dockerfile USER %s" % (conf.get("User"), user))
ep = json.loads(re.search(r"^ENTRYPOINT (\[.*\])", final, re.M).group(1))
if conf.get("Entrypoint") != ep: bad.append("Entrypoint %r, Dockerfile %r" % (conf.get("Entrypoint"), ep))
cmd = json.loads(re.search(r"^CMD (\[.*\])", final, re.M).group(1))
if conf.get("Cmd") != cmd: bad.append("Cmd %r, Dockerfile %r" % (conf.get("Cmd"), cmd))
wd = re.search(r"^WORKDIR (\S+)", final, re.M).group(1)
if conf.get("WorkingDir") != wd: bad.append("WorkingDir %r, Dockerfile %s" % (conf.get("WorkingDir"), wd))
labels = conf.get("Labels") or {}
for key in re.findall(r"(org\.opencontainers\.image\.[a-z]+)=", final):
    if key not in labels: bad.append("label %s missing" % key)
want = {"org.opencontainers.image.version": version, "org.opencontainers.image.revision": rev,
        "org.opencontainers.image.licenses": "Apache-2.0", "org.opencontainers.image.title": "jaxjob"}
for k, v in want.items():
    if labels.get(k) != v: bad.append("label %s=%r, want %r" % (k, labels.get(k), v))
t = datetime.fromtimestamp(int(epoch), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
if c.get("created") != t: bad.append("created %s, want the commit's time %s" % (c.get("created"), t))
for h in c.get("history", []):
    if h.get("created") != t: bad.append("history %r created %s, want %s" % (h.get("created_by"), h.get("created"), t))
if int(conf.get("User", "0").split(":")[0]) == 0: bad.append("runs as root")
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
expect "skopeo inspect --config: USER, ENTRYPOINT, CMD, WORKDIR and the OCI labels of the Dockerfile, revision $rev" \
	'cat "$T/cfgcheck" "$T/cfg.err" && [ ! -s "$T/cfgcheck" ]'
expect "created and every history entry are the commit's time (SOURCE_DATE_EPOCH $epoch)" \
	'! grep -q "created" "$T/cfgcheck"'

# ---- layers: the rootfs, then the SBOM ----------------------------------------
layers=$(python3 -c 'import json,sys; print(" ".join(l[7:] for l in json.load(open(sys.argv[1]))["Layers"]))' "$T/inspect.json")
set -- $layers
l1=$A/build/image/blobs/sha256/${1:-none} l2=$A/build/image/blobs/sha256/${2:-none}
(cd "$A/build/rootfs" && find . -mindepth 1 -printf '%P %m\n' | LC_ALL=C sort) >"$T/rootfs.list"
expect 'layer 1 is build/rootfs: the same paths and modes, owned by root, mtime the commit time' \
	'[ $# -eq 2 ] && tar -tvzf "$l1" --numeric-owner >"$T/l1.tv" &&
	 tar -tzf "$l1" | sed "s|^\./||; s|/$||" | grep -v "^\.\?$" | LC_ALL=C sort >"$T/l1.paths" &&
	 (cd "$A/build/rootfs" && find . -mindepth 1 -printf "%P\n" | LC_ALL=C sort) | diff - "$T/l1.paths" &&
	 ! awk "{print \$2}" "$T/l1.tv" | grep -qv "^0/0$" &&
	 [ "$(awk "{print \$4}" "$T/l1.tv" | sort -u)" = "$(date -u -d @"$epoch" +%Y-%m-%d)" ]'
expect 'layer 2 holds only the SBOM, /usr/share/doc/jaxjob/sbom.cdx.json, as make image wrote it beside the image' \
	'[ "$(tar -tzf "$l2" | grep -v "/$")" = usr/share/doc/jaxjob/sbom.cdx.json ] &&
	 tar -xzOf "$l2" usr/share/doc/jaxjob/sbom.cdx.json | cmp - "$A/build/jaxjob-sbom.cdx.json"'
expect "the docker-archive build/jaxjob-image.tar is the same image, tagged jaxjob:$version for docker load" \
	'skopeo inspect --config "docker-archive:$A/build/jaxjob-image.tar" | cmp - "$T/config.json" &&
	 tar -xOf "$A/build/jaxjob-image.tar" manifest.json | grep -q "/jaxjob:$version\""'

# ---- the SBOM -----------------------------------------------------------------
sbom=$A/build/jaxjob-sbom.cdx.json
# Every expected component, its version checked against dpkg here (and the
# slim sources against SOURCES), a licence, and jaxjob with the commit.
python3 - "$sbom" "$A/build/rootfs" "$slim_dir" "${slim[*]:-slim}" "$rev" >"$T/sbomcheck" 2>&1 <<'PY'
import json, os, subprocess, sys
sbom, root, slim_dir, mode, rev = sys.argv[1:]
b = json.load(open(sbom))
bad = []
if b.get("bomFormat") != "CycloneDX" or b.get("specVersion") != "1.5": bad.append("not CycloneDX 1.5")
comps = b["components"]
by = {}
for c in comps: by.setdefault(c["name"], []).append(c)
def src_version(pkg):
    return subprocess.run(["dpkg-query", "-W", "-f", "${source:Version}", pkg], capture_output=True, text=True).stdout
def check(name, version):
    cs = by.get(name)
    if not cs: bad.append("no component %s" % name); return
    for c in cs:
        if c.get("version") != version: bad.append("%s %s: version %s, want %s" % (name, c["bom-ref"], c.get("version"), version))
        if not c.get("licenses") or "unknown" in json.dumps(c["licenses"]): bad.append("%s: no licence" % name)
slim = mode == "slim"
srcs = dict(l.split() for l in open(os.path.join(slim_dir, "SOURCES"))) if slim else {}
check("curl", srcs.get("curl") or src_version("libcurl4-openssl-dev" if slim else "libcurl4"))
check("libgit2", srcs.get("libgit2") or src_version("libgit2-dev" if slim else "libgit2-1.5"))
for name, pkg in [("openssl", "libssl3"), ("libyaml", "libyaml-0-2"), ("http-parser", "libhttp-parser2.9"),
                  ("nghttp2", "libnghttp2-14"), ("zlib", "zlib1g"), ("glibc", "libc6"), ("cjson", "libcjson1"),
                  ("ca-certificates", "ca-certificates")]:
    check(name, src_version(pkg))
if slim:
    static = sorted(c["bom-ref"] for c in comps if c["bom-ref"].startswith("static:"))
    want = sorted("static:" + a for a in ["libcurl.a", "libgit2.a", "libyaml.a", "libhttp_parser.a",
                                         "libnghttp2.a", "libssl.a", "libcrypto.a", "libz.a"])
    if static != want: bad.append("static archives %s, want %s" % (static, want))
j = by.get("jaxjob", [{}])[0]
if j.get("licenses") != [{"license": {"id": "Apache-2.0"}}]: bad.append("jaxjob licence %s" % j.get("licenses"))
if {"name": "jaxjob:commit", "value": rev} not in j.get("properties", []): bad.append("jaxjob commit not %s" % rev)
# every regular file of the rootfs is a component (the binary is jaxjob's)
files = {"/" + os.path.relpath(os.path.join(d, n), root) for d, _, ns in os.walk(root) for n in ns}
listed = {c["bom-ref"][5:] for c in comps if c["bom-ref"].startswith("file:")} | {"/usr/local/bin/jaxjob"}
if files != listed: bad.append("rootfs files %s, SBOM files %s" % (sorted(files), sorted(listed)))
if any(p["name"] == "jaxjob:flag" for c in comps for p in c.get("properties", [])): bad.append("a flagged file")
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
expect 'SBOM: libcurl, libgit2, OpenSSL, libyaml, http-parser, nghttp2, zlib, glibc, cJSON, the CA bundle with their Debian source versions (dpkg, SOURCES) and licences; jaxjob Apache-2.0 at the commit; every rootfs file' \
	'cat "$T/sbomcheck"; [ ! -s "$T/sbomcheck" ]'
expect 'SBOM: licences from the copyright files (curl: curl, OpenSSL: Apache-2.0, glibc: LGPL-2.1-or-later, cJSON: MIT, zlib: Zlib)' \
	'python3 - "$sbom" <<"PY"
import json, sys
lic = {}
for c in json.load(open(sys.argv[1]))["components"]:
    lic[c["name"]] = json.dumps(c.get("licenses"))
for name, want in [("curl", "curl"), ("openssl", "Apache-2.0"), ("glibc", "LGPL-2.1-or-later"), ("cjson", "MIT"), ("zlib", "Zlib")]:
    assert "\"%s\"" % want in lic[name], (name, lic[name])
PY'
cp "$sbom" "$T/sbom.image.json"
expect 'make sbom alone writes the same SBOM as make image put in the image' \
	'mk "$A" sbom "${slim[@]}" SBOM="$T/sbom.alone.json" >"$T/sbom.out" 2>&1 && cmp "$T/sbom.alone.json" "$T/sbom.image.json"'

# A rootfs file that no package owns and the project does not claim: listed,
# flagged, named on stderr; never dropped.
cp -a "$A/build/rootfs" "$T/stray"
echo x >"$T/stray/etc/stray.conf"
expect 'a rootfs file no package owns is in the SBOM, flagged (jaxjob:flag), and named on stderr' \
	'(cd "$A" && python3 scripts/sbom.py --rootfs "$T/stray" --out "$T/stray.json") 2>"$T/stray.err" >/dev/null &&
	 grep -q "^sbom: warning: /etc/stray.conf: no package owns it" "$T/stray.err" &&
	 python3 -c "import json,sys; c=[c for c in json.load(open(sys.argv[1]))[\"components\"] if c[\"name\"]==\"/etc/stray.conf\"]; assert c and any(p[\"name\"]==\"jaxjob:flag\" for p in c[0][\"properties\"])" "$T/stray.json"'

# The CycloneDX schema, by CycloneDX's own library, wherever npm reaches it.
NPM_DIR=$top/build/npm/cyclonedx
if npm_packages "$NPM_DIR" @cyclonedx/cyclonedx-library@9.5.0 ajv@8.17.1 ajv-formats@3.0.1 ajv-formats-draft2019@1.6.1; then
	cat >"$NPM_DIR/validate.cjs" <<'EOF'
const { Validation, Spec } = require("@cyclonedx/cyclonedx-library");
const fs = require("node:fs");
new Validation.JsonStrictValidator(Spec.Version.v1dot5).validate(fs.readFileSync(process.argv[2], "utf8"))
  .then((errs) => { if (errs) { console.log(JSON.stringify(errs).slice(0, 2000)); process.exit(1); } });
EOF
	python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); b["components"][1]["licenses"]=[{"license":{"id":"Not-An-SPDX-Id"}}]; json.dump(b,open(sys.argv[2],"w"))' \
		"$sbom" "$T/sbom-bad.json"
	expect 'SBOM: valid CycloneDX 1.5 (@cyclonedx/cyclonedx-library strict JSON schema); a copy with a made-up licence id is not' \
		'node "$NPM_DIR/validate.cjs" "$sbom" && ! node "$NPM_DIR/validate.cjs" "$T/sbom-bad.json" >/dev/null'
else
	skip 'SBOM: valid CycloneDX 1.5 (@cyclonedx/cyclonedx-library)' "$NPM_WHY"
fi

# ---- IMAGE ------------------------------------------------------------------------
# A bad reference: one line naming the rule, exit non-zero, nothing written.
for bad in 'Registry.example.com/ML/jaxjob:1' 'jaxjob:bad tag' 'registry.example.com/ml/busybox:1' ''; do
	expect "make image IMAGE='$bad': one line naming the rule, nothing built or rewritten" \
		'! mk "$A" image IMAGE="$bad" >"$T/bad.out" 2>"$T/bad.err" && [ ! -s "$T/bad.out" ] && [ "$(wc -l <"$T/bad.err")" -eq 1 ] &&
		 grep -q "error: IMAGE .*\[REGISTRY\[:PORT\]/\]\[PATH/\]jaxjob\[:TAG\]" "$T/bad.err" &&
		 git -C "$A" status --porcelain | diff "$T/status.before" - &&
		 [ "$(skopeo inspect --format "{{.Digest}}" "$img")" = "$digest" ]'
done
expect 'make image IMAGE=jaxjob@sha256:...: a build cannot name its digest; one line' \
	'! mk "$A" image IMAGE=jaxjob@sha256:$(printf "%064d" 0) >/dev/null 2>"$T/bad.err" && [ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "names a digest" "$T/bad.err"'
# Given, IMAGE is first written into the files that run the image (make -n:
# set-image before the build), and names the layout's tag and the
# docker-archive's (scripts/mkimage.sh on the built rootfs: no second build).
name=registry.example.com/ml/jaxjob:1.2.3
expect "make image IMAGE=$name runs set-image $name first" \
	'mk "$A" -n image IMAGE=$name >"$T/named.n" 2>&1 && head -n 1 "$T/named.n" | grep -qx "python3 scripts/set-image.py .$name."'
expect "IMAGE=$name: the layout's tag is 1.2.3, docker load names it $name" \
	'(cd "$A" && SOURCE_DATE_EPOCH=$epoch scripts/mkimage.sh build/rootfs build/jaxjob-sbom.cdx.json "$T/named" "$T/named.tar" $name) >/dev/null &&
	 skopeo inspect "oci:$T/named:1.2.3" >/dev/null && tar -xOf "$T/named.tar" manifest.json | grep -q "\"$name\""'
rm -rf "$T/named" "$T/named.tar"
