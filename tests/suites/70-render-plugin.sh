#!/usr/bin/env bash
# 70-render-plugin.sh - the Argo CD side of the plugin: plugin.yaml (its
# discovery glob finds the example, its commands are the ones tested), the
# repo-server sidecar (uid, entrypoint, mounts), the Application example
# (schema-validated with npm @kubernetes-models/argo-cd, SKIP without npm),
# and the knownTypeFields snippet (its path exists in rendered jobs).
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"
P=$JAXJOB_TOP/argocd-plugin
W=$T/plugin
rm -rf "$W" && mkdir -p "$W"

python3 - "$P/plugin.yaml" "$JAXJOB_TOP/examples/gitops" "$W" <<'EOF' >"$T/out" 2>&1
import glob, os, sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
assert p["apiVersion"] == "argoproj.io/v1alpha1" and p["kind"] == "ConfigManagementPlugin"
assert p["metadata"]["name"] == "jaxjob" and "version" not in p["spec"]
s = p["spec"]
assert "init" not in s                                     # nothing runs before generate
gen = s["generate"]["command"] + s["generate"].get("args", [])
dyn = s["parameters"]["dynamic"]["command"] + s["parameters"]["dynamic"].get("args", [])
assert os.path.basename(gen[0]) == "jaxjob" and gen[1:] == ["render"], gen
assert dyn[1:] == ["render", "--params"] and dyn[0] == gen[0], dyn
assert s["provideGitCreds"] is False and s["preserveFileMode"] is False
g = s["discover"]["find"]["glob"]
assert "fileName" not in s["discover"]
# go-zglob's ** matches any depth, including none (Python's recursive glob too)
assert sorted(glob.glob(os.path.join(sys.argv[2], g), recursive=True)), "example not discovered"
os.makedirs(os.path.join(sys.argv[3], "plain", "sub"))
open(os.path.join(sys.argv[3], "plain", "sub", "kustomization.yaml"), "w").write("resources: []\n")
assert not glob.glob(os.path.join(sys.argv[3], "plain", g), recursive=True)
open(os.path.join(sys.argv[3], "plain", "sub", "x.jaxjob.yaml"), "w").write("name: x\n")
assert glob.glob(os.path.join(sys.argv[3], "plain", g), recursive=True)
print(" ".join(gen[1:]), "|", " ".join(dyn[1:]))
EOF
report 'plugin.yaml: CMP v2, discovers *.jaxjob.yaml at any depth, generate = jaxjob render, dynamic = --params' $?

# The commands plugin.yaml names, run as the sidecar runs them
copy_example "$W/repo"
cmp_render "$W/repo/examples/gitops" "${ARGO_ENV[@]}" ARGOCD_APP_REVISION=$FIXED_REV -- $(python3 -c 'import sys,yaml; print(" ".join(yaml.safe_load(open(sys.argv[1]))["spec"]["generate"]["command"][2:]))' "$P/plugin.yaml")
cmp -s "$T/out" "$EXPECTED/gitops.yaml"
report 'the generate command of plugin.yaml renders the expected stream' $?

python3 - "$P/repo-server-sidecar.yaml" <<'EOF' >"$T/out" 2>&1
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["kind"] == "Deployment" and d["metadata"]["name"] == "argocd-repo-server"
pod = d["spec"]["template"]["spec"]
(c,) = pod["containers"]
assert c["name"] == "jaxjob"
assert c["command"] == ["/var/run/argocd/argocd-cmp-server"]
sc = c["securityContext"]
assert sc["runAsUser"] == 999 and sc["runAsNonRoot"] is True and sc["allowPrivilegeEscalation"] is False
m = {x["mountPath"]: x for x in c["volumeMounts"]}
assert m["/var/run/argocd"]["name"] == "var-files"
assert m["/home/argocd/cmp-server/plugins"]["name"] == "plugins"
cfg = m["/home/argocd/cmp-server/config/plugin.yaml"]
assert cfg["subPath"] == "plugin.yaml"
vols = {v["name"]: v for v in pod["volumes"]}
assert vols[cfg["name"]]["configMap"]["name"] == "jaxjob-cmp-plugin"
assert "emptyDir" in vols[m["/tmp"]["name"]], "own /tmp"
assert m["/tmp"]["name"] not in ("tmp",)       # never the repo-server's tmp volume
# var-files and plugins come from the install; we must not redefine them
assert "var-files" not in vols and "plugins" not in vols
EOF
report 'sidecar: uid 999 non-root, argocd-cmp-server entrypoint, plugin.yaml by subPath, var-files, plugins, own /tmp' $?

# Application: plugin name, path, parameters that exist
cmp_render "$W/repo/examples/gitops" -- --params
cp "$T/out" "$W/params.json"
python3 - "$P/application.yaml" "$P/plugin.yaml" "$W/params.json" "$JAXJOB_TOP" "$W/application.json" <<'EOF' >"$T/out" 2>&1
import json, os, sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
p = yaml.safe_load(open(sys.argv[2]))
ann = {x["name"] for x in json.load(open(sys.argv[3]))}
src = a["spec"]["source"]
assert src["plugin"]["name"] == p["metadata"]["name"]
assert os.path.isdir(os.path.join(sys.argv[4], src["path"]))
for prm in src["plugin"]["parameters"]:
    assert prm["name"] in ann or "." not in prm["name"], prm["name"]
json.dump(a, open(sys.argv[5], "w"))
EOF
report 'Application: uses the plugin by name, a path that exists, parameters the plugin announces' $?

# the Application's parameters render (same env as Argo CD would pass)
PJSON=$(python3 -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))["spec"]["source"]["plugin"]["parameters"]))' "$P/application.yaml")
EJSON=$(python3 -c 'import sys,yaml; print(" ".join("ARGOCD_ENV_%s=%s" % (e["name"], e["value"]) for e in yaml.safe_load(open(sys.argv[1]))["spec"]["source"]["plugin"]["env"]))' "$P/application.yaml")
# shellcheck disable=SC2086
cmp_render "$W/repo/examples/gitops" "${ARGO_ENV[@]}" $EJSON "ARGOCD_APP_PARAMETERS=$PJSON" --
[ "$rc" -eq 0 ] && [ "$(grep -c 'argocd.argoproj.io/sync-options: Prune=false' "$T/out")" -eq 5 ] &&
	grep -q -- '--epochs=300' "$T/out" && grep -q 'imagePullPolicy: IfNotPresent' "$T/out"
report 'the Application example renders with its env and parameters' $?

# The schema of Argo CD's Application from npm, wherever the registry answers
# (tests/lib/npm.sh; installed once into build/npm/argo-cd).
. "$JAXJOB_TOP/tests/lib/npm.sh"
NPM_DIR=$JAXJOB_TOP/build/npm/argo-cd
if ! npm_packages "$NPM_DIR" @kubernetes-models/argo-cd@4.0.0; then
	skip 'Application validates against @kubernetes-models/argo-cd' "$NPM_WHY"
else
	cat >"$NPM_DIR/validate.mjs" <<'EOF'
import { readFileSync } from "node:fs";
import { Application } from "@kubernetes-models/argo-cd/argoproj.io/v1alpha1";
const obj = JSON.parse(readFileSync(process.argv[2], "utf8"));
new Application(obj).validate();
let broken = structuredClone(obj);
broken.spec.source.plugin.parameters[0].array = "not-a-list";
try { new Application(broken).validate(); console.log("broken copy accepted"); process.exit(1); }
catch (e) { console.log("valid; a broken copy is rejected:", e.message.split("\n")[0]); }
EOF
	(cd "$NPM_DIR" && node validate.mjs "$W/application.json") >"$T/out" 2>"$T/err"
	rc=$?
	report 'Application validates against @kubernetes-models/argo-cd (and a broken copy does not)' $rc
fi

python3 - "$P/argocd-cm-diffing.yaml" "$EXPECTED/gitops.yaml" <<'EOF' >"$T/out" 2>&1
import sys, yaml
cm = yaml.safe_load(open(sys.argv[1]))
(key,) = [k for k in cm["data"] if k.startswith("resource.customizations.knownTypeFields.")]
assert key.endswith("kubeflow.org_JAXJob")
(f,) = yaml.safe_load(cm["data"][key])
assert f["type"] == "core/v1/PodTemplateSpec"
for job in yaml.safe_load_all(open(sys.argv[2])):
    node = job
    for part in f["field"].split("."):
        node = node[part]
    assert isinstance(node, dict) and node["spec"]["containers"][0]["name"] == "jax"
EOF
report 'knownTypeFields names the worker pod template (a PodTemplateSpec in every rendered job)' $?

exit 0
