#!/usr/bin/env bash
# tests/suites/80-deploy.sh - the install manifests under deploy/.
#
#  - the generated copies are up to date with their sources (make deploy-check)
#  - `kubectl kustomize` builds deploy/pipeline-step and deploy/argocd offline,
#    and the objects are the ones documented (kinds, names, namespaces, the
#    plugin ConfigMap holding argocd-plugin/plugin.yaml byte for byte, the
#    sidecar wired the way Argo CD's CMP contract needs it)
#  - the component, included from an Argo CD kustomization, patches the
#    repo-server and argocd-cm without losing anything of theirs
. "$JAXJOB_TOP/tests/lib/tap.sh"
top=$JAXJOB_TOP
cd "$top" || exit 1

if ! command -v kubectl >/dev/null 2>&1; then
	skip 'deploy: kubectl kustomize builds the install manifests' 'kubectl not installed (scripts/install-deps.sh)'
	exit 0
fi

# Every source of deploy/ exists: a missing one is a failure, not a skip.
for s in argocd-plugin/plugin.yaml argocd-plugin/repo-server-sidecar.yaml health-checks/argocd-cm.yaml; do
	[ -f "$s" ] || not_ok "deploy source $s exists"
done

if python3 deploy/generate.py --check 2>"$T/gen.err"; then
	ok 'generated files under deploy/ are up to date with their sources (make deploy-check)'
else
	not_ok 'generated files under deploy/ are up to date with their sources (make deploy-check)'
	cat "$T/gen.err" >&2
fi

# validate WHAT BUILD-OUTPUT: python checks on the objects kustomize built.
validate() {
	python3 - "$1" "$2" <<'EOF'
import sys, yaml
what, path = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(path)) if d]
by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
def need(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)

if what == "pipeline-step-trainjob":
    src = {(d["kind"], d["metadata"]["name"]): d
           for d in yaml.safe_load_all(open("examples/rbac-trainjob.yaml")) if d}
    need(by == src, "objects equal examples/rbac-trainjob.yaml")
    kinds = sorted(k for k, _ in by)
    need(kinds == ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"], f"kinds {kinds}")
    for (k, n), d in by.items():
        if k.endswith("Binding"):
            need((d["roleRef"]["kind"], d["roleRef"]["name"]) in by, f"{n} binds a role of this build")
            need(all(sb["kind"] == "ServiceAccount" and sb["name"] == "jaxjob-launcher" for sb in d["subjects"]),
                 f"{n} binds the step's ServiceAccount jaxjob-launcher")
    sys.exit(0)

if what == "pipeline-step":
    src = {(d["kind"], d["metadata"]["name"]): d
           for d in yaml.safe_load_all(open("examples/rbac.yaml")) if d}
    need(sorted(by) == sorted(src), f"objects {sorted(by)} != examples/rbac.yaml {sorted(src)}")
    need(sorted(k for k, _ in by) == ["Role", "RoleBinding", "ServiceAccount"], f"kinds {sorted(by)}")
    for key, d in by.items():
        s = src[key]
        for field in ("rules", "subjects", "roleRef"):
            need(d.get(field) == s.get(field), f"{key} {field} differs from examples/rbac.yaml")
    rb = next(d for (k, _), d in by.items() if k == "RoleBinding")
    sa = next(d for (k, _), d in by.items() if k == "ServiceAccount")
    role = next(d for (k, _), d in by.items() if k == "Role")
    need(rb["roleRef"]["name"] == role["metadata"]["name"], "RoleBinding binds the Role")
    need(any(s["kind"] == "ServiceAccount" and s["name"] == sa["metadata"]["name"]
             and s.get("namespace") == sa["metadata"]["namespace"] for s in rb["subjects"]),
         "RoleBinding names the ServiceAccount in its namespace")
    verbs = {(r["apiGroups"][0], res): set(r["verbs"]) for r in role["rules"] for res in r["resources"]}
    need({"create", "watch", "delete"} <= verbs.get(("kubeflow.org", "jaxjobs"), set()), "jaxjobs verbs")
    need("get" in verbs.get(("", "pods/log"), set()), "pods/log get")
    sys.exit(0)

# argocd (the partial objects of deploy/argocd) or component (stub base + component)
plugin_src = open("argocd-plugin/plugin.yaml").read()
plugin = yaml.safe_load(plugin_src)
need(plugin["kind"] == "ConfigManagementPlugin", "plugin.yaml kind")
cms = [d for d in docs if d["kind"] == "ConfigMap" and "plugin.yaml" in d.get("data", {})]
need(len(cms) == 1, f"one ConfigMap carries plugin.yaml, got {len(cms)}")
pcm = cms[0]
need(pcm["data"]["plugin.yaml"] == plugin_src, "the ConfigMap's plugin.yaml equals argocd-plugin/plugin.yaml byte for byte")
need(pcm["metadata"]["name"].startswith("jaxjob-cmp-plugin-"), "plugin ConfigMap has its content hash suffix")
dep = by.get(("Deployment", "argocd-repo-server"))
need(dep is not None, "argocd-repo-server Deployment in the build")
need(dep["metadata"].get("namespace") == "argocd", "everything in namespace argocd")
pod = dep["spec"]["template"]["spec"]
side = [c for c in pod["containers"] if c.get("command") == ["/var/run/argocd/argocd-cmp-server"]]
need(len(side) == 1, "exactly one container runs /var/run/argocd/argocd-cmp-server")
c = side[0]
sc = c.get("securityContext", {})
need(sc.get("runAsUser") == 999 and sc.get("runAsNonRoot") is True, "sidecar runs as uid 999, runAsNonRoot")
need("jaxjob" in c["image"], f"sidecar image is the jaxjob image: {c['image']}")
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
vols = {v["name"]: v for v in pod["volumes"]}
need("/var/run/argocd" in mounts and mounts["/var/run/argocd"]["name"] == "var-files", "var-files at /var/run/argocd")
need("/home/argocd/cmp-server/plugins" in mounts and mounts["/home/argocd/cmp-server/plugins"]["name"] == "plugins",
     "plugins at /home/argocd/cmp-server/plugins")
cfg = mounts.get("/home/argocd/cmp-server/config/plugin.yaml")
need(cfg is not None and cfg.get("subPath") == "plugin.yaml", "plugin.yaml mounted by subPath at the config path")
need(vols[cfg["name"]]["configMap"]["name"] == pcm["metadata"]["name"],
     "the config volume refers to the generated ConfigMap (hash suffix rewritten)")
tmp = mounts.get("/tmp")
need(tmp is not None and "emptyDir" in vols[tmp["name"]], "sidecar has its own /tmp emptyDir")
need(tmp["name"] not in {m["name"] for cc in pod["containers"] if cc is not c for m in cc.get("volumeMounts", [])},
     "the sidecar's /tmp is not shared with another container")
cm = by.get(("ConfigMap", "argocd-cm"))
need(cm is not None, "argocd-cm in the build")
key = "resource.customizations.health.kubeflow.org_JAXJob"
need(key in cm["data"], f"argocd-cm has {key}")
lua = open("health-checks/kubeflow.org/JAXJob/health.lua").read()
need(cm["data"][key].strip() == lua.strip(), "argocd-cm's JAXJob check is health-checks/kubeflow.org/JAXJob/health.lua")
if what == "argocd":
    need(len(docs) == 3, f"deploy/argocd builds 3 objects, got {len(docs)}: {sorted(by)}")
    need([x["name"] for x in pod["containers"]] == [c["name"]], "the partial Deployment names only the sidecar")
if what == "component":
    names = [x["name"] for x in pod["containers"]]
    need("argocd-repo-server" in names and c["name"] in names, f"both containers kept: {names}")
    need({"var-files", "plugins", "stub-keep"} <= set(vols), f"base volumes kept: {sorted(vols)}")
    need(cm["data"].get("url") == "https://argocd.example.com", "argocd-cm's own keys kept")
    need(dep["spec"]["replicas"] == 2, "base fields kept")
EOF
}

# ---- pipeline step -----------------------------------------------------------
if kubectl kustomize deploy/pipeline-step >"$T/step.yaml" 2>"$T/step.err"; then
	ok 'kubectl kustomize deploy/pipeline-step builds offline'
	expect 'deploy/pipeline-step: ServiceAccount, Role, RoleBinding as in examples/rbac.yaml, bound together' \
		'validate pipeline-step "$T/step.yaml"'
else
	not_ok 'kubectl kustomize deploy/pipeline-step builds offline'
	cat "$T/step.err" >&2
fi
if kubectl kustomize deploy/pipeline-step-trainjob >"$T/step-tj.yaml" 2>"$T/step-tj.err"; then
	expect 'kubectl kustomize deploy/pipeline-step-trainjob builds: the Trainer v2 RBAC of examples/rbac-trainjob.yaml, bound to jaxjob-launcher' \
		'validate pipeline-step-trainjob "$T/step-tj.yaml"'
else
	not_ok 'kubectl kustomize deploy/pipeline-step-trainjob builds offline'
	cat "$T/step-tj.err" >&2
fi
mkdir -p "$T/ns"
# kustomize v2 (Debian's kubectl 1.20) takes directories only under `bases:`.
overlay_field=resources
if kubectl version --client 2>/dev/null | grep -q 'Minor:"\(1[0-9]\|20\)"'; then overlay_field=bases; fi
printf 'namespace: ml-team\n%s:\n- %s\n' "$overlay_field" "$(realpath --relative-to="$T/ns" deploy/pipeline-step)" >"$T/ns/kustomization.yaml"
expect 'an overlay moves the step RBAC to another namespace, RoleBinding subject included' \
	'kubectl kustomize "$T/ns" >"$T/ns.yaml" && [ "$(grep -c "namespace: ml-team" "$T/ns.yaml")" -eq 4 ] && ! grep -q "namespace: team-a" "$T/ns.yaml"'

if kubectl kustomize deploy/overlay-example >"$T/ov.yaml" 2>"$T/ov.err"; then
	expect 'deploy/overlay-example (the documented overlay): every object of the three pipeline-step folders in ml-team, subjects and the ClusterRoleBinding name too, no team-a left' \
		"python3 - '$T/ov.yaml' <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
kinds = sorted((d['kind'], d['metadata']['name']) for d in docs)
assert ('ClusterRoleBinding', 'jaxjob-launcher-runtimes-ml-team') in kinds, kinds
assert ('Role', 'argo-workflows-executor') in kinds and ('Role', 'jaxjob-launcher-trainjob') in kinds, kinds
for d in docs:
    if d['kind'] not in ('ClusterRole', 'ClusterRoleBinding'):
        assert d['metadata']['namespace'] == 'ml-team', d['metadata']
    for s in d.get('subjects', []):
        assert s['namespace'] == 'ml-team', d
assert 'team-a' not in open(sys.argv[1]).read()
PY"
elif grep -q "unknown field\|json: unknown\|cannot unmarshal object into Go struct field Kustomization" "$T/ov.err"; then
	skip 'deploy/overlay-example builds' "this kubectl's kustomize predates patches: (kubectl <= 1.20): $(head -n 1 "$T/ov.err")"
else
	not_ok 'deploy/overlay-example builds with kubectl kustomize'
	cat "$T/ov.err" >&2
fi

# ---- one image reference: make image IMAGE=... writes it everywhere -----------
# (in a copy of the tree: the checkout keeps the default; where no container
# engine works, make image still writes the references and says it built nothing)
mkdir -p "$T/tree"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -co --exclude-standard -z | (cd "$top" && xargs -0 cp --parents -t "$T/tree" 2>/dev/null)
else	# a copy without .git (a release tarball, make fresh-check): every file but the build
	(cd "$top" && tar --exclude=./build --exclude=__pycache__ --exclude-vcs-ignores -cf - .) | (cd "$T/tree" && tar -xf -)
fi
NEW=registry.example.com/ml/jaxjob:1.2.3
goal=image	# with a working engine, only its first step (building is left to CI)
for e in docker podman; do
	if command -v "$e" >/dev/null 2>&1 && "$e" info >/dev/null 2>&1; then goal=set-image; fi
done
expect "make $goal IMAGE=$NEW: the component, the WorkflowTemplate, the KFP example, the Argo CD sidecar (and its deploy/ copy) all name $NEW, and nothing names another jaxjob image" \
	"env -u MAKEFLAGS -u MAKELEVEL make -s -C '$T/tree' $goal IMAGE=$NEW >'$T/img.out' 2>&1 &&
	 python3 '$T/tree/scripts/set-image.py' --root '$T/tree' --check $NEW &&
	 grep -q 'image: $NEW\$' '$T/tree/deploy/argocd/component/repo-server-sidecar.yaml' &&
	 grep -q 'image=\"$NEW\"' '$T/tree/examples/kfp/container_component.py' &&
	 ! grep -rn 'jaxjob:0\.1\.0' '$T/tree/component' '$T/tree/examples' '$T/tree/argocd-plugin' '$T/tree/deploy/argocd'"
expect '... and the checkout itself names the default, make image'\''s IMAGE (set-image --check)' \
	"python3 scripts/set-image.py --check \"\$(env -u MAKEFLAGS -u MAKELEVEL make -s --eval 'print-image: ; @echo \$(IMAGE)' print-image)\""
expect 'set-image refuses a reference that is not jaxjob'\''s, naming the fix' \
	"! python3 scripts/set-image.py --root '$T/tree' busybox:1 2>'$T/si.err' && grep -q '^error: IMAGE \"busybox:1\" is not an image reference of jaxjob' '$T/si.err'"

# ---- Argo CD -----------------------------------------------------------------
if kubectl kustomize deploy/argocd >"$T/argocd.yaml" 2>"$T/argocd.err"; then
	ok 'kubectl kustomize deploy/argocd builds offline'
	expect 'deploy/argocd: sidecar (uid 999, cmp-server, config, plugins, own /tmp), plugin ConfigMap = plugin.yaml, argocd-cm health keys' \
		'validate argocd "$T/argocd.yaml"'
else
	not_ok 'kubectl kustomize deploy/argocd builds offline'
	cat "$T/argocd.err" >&2
fi

# The component against an Argo CD base: a stub with the parts of the upstream
# install it touches, plus fields that must survive the patches.
mkdir -p "$T/acd"
cat >"$T/acd/install.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
spec:
  replicas: 2
  selector:
    matchLabels: {app.kubernetes.io/name: argocd-repo-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: argocd-repo-server}
    spec:
      containers:
      - name: argocd-repo-server
        image: quay.io/argoproj/argocd:v2.13.0
        volumeMounts:
        - {name: var-files, mountPath: /var/run/argocd}
        - {name: plugins, mountPath: /home/argocd/cmp-server/plugins}
      volumes:
      - {name: var-files, emptyDir: {}}
      - {name: plugins, emptyDir: {}}
      - {name: stub-keep, emptyDir: {}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
data:
  url: https://argocd.example.com
EOF
printf 'namespace: argocd\nresources:\n- install.yaml\ncomponents:\n- %s\n' \
	"$(realpath --relative-to="$T/acd" deploy/argocd/component)" >"$T/acd/kustomization.yaml"
# Components need kustomize v3.7+ (kubectl 1.21+); Debian bookworm's kubectl
# 1.20 has v2.0.3, which only the one-command deploy/argocd is written for.
# Two bases: the upstream install.yaml style (no namespace in the objects, the
# kustomization sets it) and a base whose objects name their namespace.
sed 's/^  name: \(argocd-repo-server\|argocd-cm\)$/  name: \1\n  namespace: argocd/' "$T/acd/install.yaml" >"$T/acd/install-ns.yaml"
for base in install.yaml install-ns.yaml; do
	sed -i "s/^- install.*\.yaml$/- $base/" "$T/acd/kustomization.yaml"
	if kubectl kustomize "$T/acd" >"$T/acd.yaml" 2>"$T/acd.err"; then
		expect "the component patches an Argo CD install ($base): sidecar added, repo-server, volumes and argocd-cm keys kept" \
			'validate component "$T/acd.yaml"'
	elif grep -q 'unknown field "components"' "$T/acd.err"; then
		skip "the component patches an Argo CD install ($base)" "this kubectl's kustomize predates components: $(kubectl version --client 2>&1 | head -n 1)"
	else
		not_ok "the component patches an Argo CD install ($base) (kubectl kustomize)"
		cat "$T/acd.err" >&2
	fi
done
