#!/usr/bin/env bash
# 70-render.sh - `jaxjob render` as Argo CD's CMP sidecar runs it: the
# contract end to end (cwd = app dir in a copy of the repository, Argo CD's
# environment, with and without .git), byte-for-byte expected output,
# parameter overrides, determinism, hash names, CRD validity.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"

W=$T/render
rm -rf "$W"
mkdir -p "$W"

# --- the contract, no .git (an admin excluded it from the tarball) ---------
copy_example "$W/nogit"
APP=$W/nogit/examples/gitops
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
cp "$T/out" "$W/base.yaml"
[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$EXPECTED/gitops.yaml"
report 'generate in the app dir renders exactly tests/render/expected/gitops.yaml' $?

[ "$(grep -c '^kind: JAXJob$' "$W/base.yaml")" -eq 6 ] &&
	[ "$(grep -c '^---$' "$W/base.yaml")" -eq 6 ] &&
	grep -Eq "jaxjob.dev/source-revision: \"?$FIXED_REV" "$W/base.yaml" &&
	grep -q 'jaxjob.dev/source-path: examples/gitops/vision/resnet50.jaxjob.yaml' "$W/base.yaml" &&
	! grep -q "name: .*${FIXED_REV:0:7}" "$W/base.yaml"
report 'six jobs, stamped with revision and source path, commit never in a name' $?

grep -q '^  namespace: training$' "$W/base.yaml" &&
	[ "$(grep -c '^  namespace: training$' "$W/base.yaml")" -eq 6 ]
report 'ARGOCD_APP_NAMESPACE is the namespace of jobs that set none' $?

# --- the same with .git, and no ARGOCD_APP_REVISION: revision from HEAD ---
# (the emitter quotes a SHA that could read as a number, e.g. all digits)
norm_rev() { sed -E 's/(source-revision: )"?[0-9a-f]{40}"?$/\1REV/' "$1"; }
copy_example "$W/git"
fixed_git "$W/git" init -q -b main . && fixed_git "$W/git" add -A &&
	fixed_git "$W/git" commit -q -m jobs
HEAD_REV=$(git -C "$W/git" rev-parse HEAD)
cmp_render "$W/git/examples/gitops" "${ARGO_ENV[@]}" --
[ "$rc" -eq 0 ] && grep -Eq "jaxjob.dev/source-revision: \"?$HEAD_REV" "$T/out" &&
	cmp -s <(norm_rev "$T/out") <(norm_rev "$EXPECTED/gitops.yaml")
report 'with .git and no ARGOCD_APP_REVISION the revision is HEAD; otherwise the same bytes' $?

cmp_render "$W/git/examples/gitops" ARGOCD_APP_NAMESPACE=training --
[ "$rc" -eq 0 ] && cmp -s <(norm_rev "$T/out") <(norm_rev "$EXPECTED/gitops.yaml")
report 'without ARGOCD_APP_SOURCE_PATH the repository root comes from .git' $?

cmp_render "$W/git/examples/gitops" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
cmp -s "$T/out" "$EXPECTED/gitops.yaml"
report 'ARGOCD_APP_REVISION wins over .git' $?

# .git without a readable HEAD (a fresh `git init`, a damaged HEAD) only
# loses the revision stamp; ARGOCD_APP_REVISION still works
copy_example "$W/unborn" && git -C "$W/unborn" init -q
cmp_render "$W/unborn/examples/gitops" "${ARGO_ENV[@]}" --
[ "$rc" -eq 0 ] && ! grep -q source-revision "$T/out" &&
	grep -v source-revision "$EXPECTED/gitops.yaml" | cmp -s - "$T/out"
report 'a repository with an unborn HEAD renders without a revision stamp' $?
echo 'ref: refs/heads/nowhere/../..' >"$W/unborn/.git/HEAD"
cmp_render "$W/unborn/examples/gitops" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
cmp -s "$T/out" "$EXPECTED/gitops.yaml"
report 'a damaged .git does not stop a render that has ARGOCD_APP_REVISION' $?

# no .git, no source path: the app dir is the root (paths relative to it)
cmp_render "$APP" ARGOCD_APP_NAMESPACE=training ARGOCD_APP_REVISION=$FIXED_REV --
[ "$rc" -eq 0 ] && sed 's#jaxjob.dev/source-path: #jaxjob.dev/source-path: examples/gitops/#' "$T/out" |
	cmp -s - "$EXPECTED/gitops.yaml"
report 'without .git or ARGOCD_APP_SOURCE_PATH the app dir is the root' $?

# --- parameters and ARGOCD_ENV_* override the job files -------------------
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV "${PARAMS_ENV[@]}" --
cp "$T/out" "$W/params.yaml"
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$EXPECTED/gitops-params.yaml"
report 'parameters and ARGOCD_ENV_* render exactly tests/render/expected/gitops-params.yaml' $?

python3 - "$W/base.yaml" "$W/params.yaml" <<'EOF'
import sys, yaml
base = {d["metadata"]["labels"]["jaxjob.dev/job"]: d for d in yaml.safe_load_all(open(sys.argv[1]))}
new = {d["metadata"]["labels"]["jaxjob.dev/job"]: d for d in yaml.safe_load_all(open(sys.argv[2]))}
w = lambda d: d["spec"]["jaxReplicaSpecs"]["Worker"]
c = lambda d: w(d)["template"]["spec"]["containers"][0]
assert w(base["resnet50"])["replicas"] == 4 and w(new["resnet50"])["replicas"] == 8
assert c(new["vit-base"])["args"] == ["--model=base", "--epochs=300"]
assert c(new["vit-large"])["args"] == ["--model=large"]          # other jobs keep theirs
assert {e["name"]: e["value"] for e in c(new["gpt-small"])["env"]} == {
    "JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_dump_to=/tmp"}
for name, d in new.items():
    if d["metadata"]["annotations"].get("jaxjob.dev/name-suffix") is None:  # concise jobs
        assert d["metadata"]["labels"]["cost-center"] == "research", name
        assert "team" not in d["metadata"]["labels"], name   # a map parameter is the whole map
        assert c(d)["imagePullPolicy"] == "IfNotPresent", name
# the plain manifest is passed through untouched by parameters
assert new["gpt-small-eval"]["spec"] == base["gpt-small-eval"]["spec"]
EOF
report 'overrides land where they should: one job or every job, lists and maps replaced whole' $?

# precedence: parameter > ARGOCD_ENV_* > job file > defaults
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_ENV_WORKERS=3 \
	'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"6"}]' --
python3 - "$T/out" <<'EOF'
import sys, yaml
jobs = {d["metadata"]["labels"]["jaxjob.dev/job"]: d for d in yaml.safe_load_all(open(sys.argv[1]))}
r = lambda n: jobs[n]["spec"]["jaxReplicaSpecs"]["Worker"]["replicas"]
assert r("resnet50") == 6 and r("vit-base") == 3 and r("vit-large") == 3, (r("resnet50"), r("vit-base"))
assert r("gpt-small-eval") == 1
EOF
report 'precedence: parameter beats ARGOCD_ENV_* beats the job file' $?

# a repository template without ((namespace?)) still gets the default namespace
copy_example "$W/nons"
sed -i '/((namespace?))/d' "$W/nons/examples/gitops/templates/checkpointed.yaml"
cmp_render "$W/nons/examples/gitops" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$EXPECTED/gitops.yaml"
report 'the default namespace needs no placeholder in a repository template' $?

# --- determinism ------------------------------------------------------------
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
cmp -s "$T/out" "$W/base.yaml"
report 'rendering twice gives the same bytes' $?

# recreate the tree with files created in reverse order (new inodes, new
# directory order), and the environment in reverse order
mkdir -p "$W/rev/examples/gitops"
(cd "$APP" && find . -type d | sort) | while read -r d; do mkdir -p "$W/rev/examples/gitops/$d"; done
(cd "$APP" && find . -type f | sort -r) | while read -r f; do cp "$APP/$f" "$W/rev/examples/gitops/$f"; done
(cd "$W/rev/examples/gitops" && env -i PATH="$PATH" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" ARGOCD_APP_REVISION=$FIXED_REV \
	KUBE_VERSION=1.29.3 ARGOCD_APP_SOURCE_PATH=examples/gitops ARGOCD_APP_NAMESPACE=training \
	ARGOCD_APP_NAME=training-jobs "$JAXJOB" render) >"$T/out" 2>"$T/err"
cmp -s "$T/out" "$W/base.yaml"
report 'files created in reverse order and a reordered environment: same bytes' $?

# --- the name hash changes exactly when the spec does ----------------------
names() { grep '^  name: ' "$1" | sort; }
mkdir -p "$W/h" && cp -R "$W/nogit" "$W/h/a"
H=$W/h/a/examples/gitops
printf '# a comment, keys reordered, same job\ncpu: "8"\nworkers: 4\nargs: [--epochs=90, --batch-size=1024]\ncommand: [python, -m, train.resnet]\nname: resnet50\n' \
	>"$H/vision/resnet50.jaxjob.yaml"
cmp_render "$H" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
cmp -s "$T/out" "$W/base.yaml"
report 'comments, key order and quoting in a job file do not change any name' $?

sed -i 's/^workers: 4$/workers: 5/' "$H/vision/resnet50.jaxjob.yaml"
cmp_render "$H" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
cp "$T/out" "$W/h5.yaml"
[ "$(diff <(names "$W/base.yaml") <(names "$W/h5.yaml") | grep -c '^[<>]')" -eq 2 ] &&
	diff <(names "$W/base.yaml") <(names "$W/h5.yaml") | grep -q '^> *name: resnet50-'
report 'a spec change renames exactly that job' $?

printf 'annotations:\n  owner: alice\nsuspend: true\n' >>"$H/vision/resnet50.jaxjob.yaml"
cmp_render "$H" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
[ "$rc" -eq 0 ] && diff <(names "$W/h5.yaml") <(names "$T/out") >/dev/null &&
	grep -q 'owner: alice' "$T/out" && grep -q 'suspend: true' "$T/out"
report 'metadata-only changes and suspend apply in place (same name)' $?

sed -i 's/^nameSuffix: none .*$/nameSuffix: none/; s/^workers: 8$/workers: 9/' "$H/vision/vit-sweep.jaxjob.yaml"
cmp_render "$H" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV --
grep -q '^  name: vit-large$' "$T/out" && grep -q 'replicas: 9' "$T/out"
report 'nameSuffix: none keeps the plain name through a spec change' $?

# --- every rendered manifest validates against the CRD ----------------------
if [ -z "$JAXJOB_TESTDATA" ]; then
	skip 'rendered manifests validate against the JAXJob CRD' "needs the JAXJob CRD, $JAXJOB_DEPS_WHY"
else
	cat "$W/base.yaml" "$W/params.yaml" "$W/h5.yaml" >"$W/all.yaml"
	python3 "$JAXJOB_TOP/tests/tools/crd_validate.py" \
		"$JAXJOB_TESTDATA/crds/kubeflow.org_jaxjobs.yaml" "$W/all.yaml" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ok ' "$T/out")" -eq 18 ]
	report 'every rendered manifest (18) validates against the JAXJob CRD schema, strictly' $?
fi

# --- --params: the dynamic parameter announcements ---------------------------
cmp_render "$APP" ARGOCD_APP_NAME=training-jobs -- --params
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$EXPECTED/params.json"
report '--params prints exactly tests/render/expected/params.json' $?
python3 - "$T/out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
assert isinstance(a, list) and a
by = {p["name"]: p for p in a}
assert by["resnet50.workers"]["string"] == "4" and by["resnet50.workers"]["collectionType"] == "string"
assert by["resnet50.args"]["array"] == ["--epochs=90", "--batch-size=1024"]
assert by["resnet50.node-selector"]["collectionType"] == "map"
assert by["gpt-small.checkpoint-claim"]["string"] == "gpt-small-ckpt"
assert by["resnet50.env"]["array"] == ["JAX_PLATFORMS=cuda"]
assert not any(p["name"].startswith("gpt-small-eval.") for p in a)  # plain manifest: none
for p in a:
    assert set(p) == {"name", "title", "tooltip", "collectionType", p["collectionType"]}, p
EOF
report '--params is a JSON array of announcements with current values and collection types' $?

# Argo CD's UI sends back what it was shown: every announcement as a
# parameter must render exactly the same jobs
RT=$(python3 -c 'import json,sys; print(json.dumps([{"name": a["name"], a["collectionType"]: a[a["collectionType"]]} for a in json.load(open(sys.argv[1]))]))' "$EXPECTED/params.json")
cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV "ARGOCD_APP_PARAMETERS=$RT" --
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$W/base.yaml"
report 'every announced value sent back as a parameter renders the same bytes' $?

cmp_render "$APP" 'ARGOCD_APP_PARAMETERS=[{"name":"resnet50.workers","string":"7"}]' -- --params
python3 -c 'import json,sys; a={p["name"]:p for p in json.load(open(sys.argv[1]))}; assert a["resnet50.workers"]["string"]=="7"' "$T/out"
report '--params shows values set by the Application' $?

# An Application whose plugin section has no parameters (plugin: {},
# only a name, only env) gets ARGOCD_APP_PARAMETERS=null: the repo-server
# json.Marshal's a nil list (argo-cd reposerver/repository/repository.go getPluginParamEnvs, 37ee0097).
# null, [], whitespace around them and absent all mean "no parameters".
for v in 'null' '[]' ' null ' $'[\t]' ''; do
	cmp_render "$APP" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV "ARGOCD_APP_PARAMETERS=$v" --
	[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$W/base.yaml"
	report "ARGOCD_APP_PARAMETERS='${v//$'\t'/\\t}' renders the same bytes as no parameters" $?
	cmp_render "$APP" "ARGOCD_APP_PARAMETERS=$v" -- --params
	[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$EXPECTED/params.json"
	report "ARGOCD_APP_PARAMETERS='${v//$'\t'/\\t}': --params announces the repository's values" $?
done
cmp_render "$APP" -- --params
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$EXPECTED/params.json"
report 'ARGOCD_APP_PARAMETERS unset: --params announces the repository values' $?

exit 0
