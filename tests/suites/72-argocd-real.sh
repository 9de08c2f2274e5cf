#!/usr/bin/env bash
# 72-argocd-real.sh - jaxjob's Argo CD artefacts run through reproductions of
# Argo CD's own code (argocd-lua and argocd-cmp, in the folder $ARGOCD_TOOLS names;
# run-all.sh sets it to the team's ../shared/tools/argocd/bin where that exists;
# argo-cd 37ee0097):
#
#   argocd-cmp  cmp-server reading argocd-plugin/plugin.yaml, with the exact
#               environment the repo-server gives a plugin, on every example
#               app: Applications with full parameters, without (plugin:
#               {name}, plugin: {}, only env, parameters: []: all give
#               ARGOCD_APP_PARAMETERS=null), discovered without a plugin
#               section, at another revision. Each generate output must be
#               the bytes `jaxjob render` gives for the same inputs.
#   argocd-lua  Argo CD's Lua engine on every health and action vector of
#               health-checks/ and every argocd-cm file shipped (lua5.1 in
#               40-health-vectors.sh stays as a second engine).
#
# Also `jaxjob render` on every example app with ARGOCD_APP_PARAMETERS unset,
# null, [] and real parameters. SKIP (one reason) when $ARGOCD_TOOLS has no tools.
# They are not built from the registries: they reproduce upstream code (which this
# repository must not copy), and building the real engine, argo-cd's util/lua, takes
# argo-cd v3.6's module graph (Kubernetes libraries; go >= 1.27 in its go.mod).
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"

TOOLS=${ARGOCD_TOOLS:-}
if [ -z "$TOOLS" ] || [ ! -x "$TOOLS/argocd-cmp" ] || [ ! -x "$TOOLS/argocd-lua" ]; then
	skip 'Argo CD cmp-server and Lua engine reproductions' \
		"needs argocd-lua and argocd-cmp (Argo CD's Lua engine and cmp-server, not on any registry): set ARGOCD_TOOLS to the folder that has them${TOOLS:+ (not in $TOOLS)}"
	exit 0
fi
# the status samples: ours, and the real objects of upstream docs (make test-deps)
SAMPLES=$T/status-samples
mkdir -p "$SAMPLES" && cp "$JAXJOB_TOP"/tests/status-samples/*.yaml "$SAMPLES/"
EXPECT=health-checks/reference-samples.yaml
if [ -n "${JAXJOB_TESTDATA:-}" ]; then
	cp "$JAXJOB_TESTDATA"/status-samples/*.yaml "$SAMPLES/"
else
	skip 'argocd-lua on the real objects of upstream docs' "$JAXJOB_DEPS_WHY"
	# without them -expect would miss two samples: expect only the ones there are
	EXPECT=$T/expect.yaml
	/usr/bin/python3 - "$JAXJOB_TOP/health-checks/reference-samples.yaml" "$SAMPLES" >"$EXPECT" <<'PY'
import os, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
d['samples'] = [s for s in d['samples'] if os.path.exists(os.path.join(sys.argv[2], s['sample']))]
yaml.safe_dump(d, sys.stdout)
PY
fi
CMP=$TOOLS/argocd-cmp LUA=$TOOLS/argocd-lua
W=$T/argocd
rm -rf "$W" && mkdir -p "$W/repo/examples"
for app in "$JAXJOB_TOP"/examples/gitops*/; do
	cp -R "$app" "$W/repo/examples/"
done
APPS=$(cd "$W/repo" && ls -d examples/gitops* | sort)
[ -n "$APPS" ]
report 'the example apps are found (examples/gitops*)' $?

# --- argocd-lua -------------------------------------------------------------
CMS=("$JAXJOB_TOP/health-checks/argocd-cm.yaml" "$JAXJOB_TOP/health-checks/argocd-cm-nested.yaml"
	"$JAXJOB_TOP/deploy/argocd/component/argocd-cm-health.yaml")
cmargs=()
for f in "${CMS[@]}"; do cmargs+=(-cm "$f"); done
(cd "$JAXJOB_TOP" && "$LUA" -root health-checks "${cmargs[@]}" \
	-samples "$SAMPLES" -expect "$EXPECT") \
	>"$W/lua.out" 2>&1
rc=$?
last=$(tail -n 1 "$W/lua.out")
npass=${last%% passed*}
[ "$rc" -eq 0 ] && [[ "$last" =~ ^[0-9]+\ passed,\ 0\ failed$ ]] && [ "$npass" -ge 500 ] &&
	[ "$(grep -c '^# .* -> overrides: kubeflow.org/JAXJob(health=true,actions=true' "$W/lua.out")" -eq 3 ] &&
	[ "$(grep -c 'trainer.kubeflow.org/TrainJob(health=true,actions=true' "$W/lua.out")" -eq 3 ]
report "argocd-lua: every health and action vector and reference sample, in every mode and argocd-cm ($last)" $?
[ "$rc" -eq 0 ] || cat "$W/lua.out" >&2

# Every argocd-cm the project ships parses as Argo CD parses it (the diffing
# snippet carries no script, so nothing runs; a parse error exits 2)
mkdir -p "$W/empty-root"
ncm=0
for f in $(cd "$JAXJOB_TOP" && grep -rl --include='*.yaml' -e '^kind: ConfigMap' argocd-plugin health-checks deploy | sort); do
	grep -q '^  name: argocd-cm$' "$JAXJOB_TOP/$f" || continue
	ncm=$((ncm + 1))
	"$LUA" -root "$W/empty-root" -cm "$JAXJOB_TOP/$f" >"$W/cm.out" 2>&1
	[ $? -eq 0 ] && grep -q '^# .* -> overrides: kubeflow.org/JAXJob(' "$W/cm.out"
	report "argocd-lua parses shipped argocd-cm $f as Argo CD does" $?
done
[ "$ncm" -ge 4 ]
report "every shipped argocd-cm is checked ($ncm files)" $?

# The engine is not a rubber stamp: a script that returns a status outside
# Argo CD's set is reported, and a changed script differs from its cm copy
cp -R "$JAXJOB_TOP/health-checks/kubeflow.org" "$W/bad-root"
sed -i 's/"Healthy"/"Fine"/' "$W/bad-root/JAXJob/health.lua"
"$LUA" -root "$W/bad-root" -cm "$JAXJOB_TOP/health-checks/argocd-cm.yaml" >"$W/bad.out" 2>&1
[ $? -eq 1 ] && grep -q 'argocd-cm script differs' "$W/bad.out" && grep -q '^FAIL \[upstream\]' "$W/bad.out"
report 'argocd-lua fails a health script Argo CD would reject (control)' $?

# TrainJob's actions (suspend/resume) run on the engine too: each vector, and a
# suspend that does not suspend is caught
(cd "$JAXJOB_TOP" && "$LUA" -v -root health-checks "${cmargs[@]}") >"$W/lua-v.out" 2>&1
[ "$(grep -c '^ok .*TrainJob/actions' "$W/lua-v.out")" -ge 12 ] && ! grep -q '^FAIL .*TrainJob' "$W/lua-v.out"
report "argocd-lua: the TrainJob suspend/resume actions, discovery and patched objects ($(grep -c '^ok .*TrainJob/actions' "$W/lua-v.out") checks)" $?
cp -R "$JAXJOB_TOP/health-checks/trainer.kubeflow.org" "$W/bad-tj"
sed -i 's/obj.spec.suspend = true/obj.spec.suspend = false/' "$W/bad-tj/TrainJob/actions/suspend/action.lua"
"$LUA" -root "$W/bad-tj" >"$W/bad-tj.out" 2>&1
[ $? -eq 1 ] && grep -q '^FAIL \[upstream\] .*TrainJob/actions.*suspend' "$W/bad-tj.out"
report 'argocd-lua fails a TrainJob suspend action that does not suspend (control)' $?

# --- argocd-cmp on every example app -----------------------------------------
# application NAME PATH PLUGIN-YAML: an Application for the example app (the
# plugin section given as YAML lines indented under `source:`)
application() {
	cat >"$W/$1.app.yaml" <<EOF
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: $1
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://git.example.com/ml/jobs.git
    targetRevision: main
    path: $2
$3
  destination:
    server: https://kubernetes.default.svc
    namespace: training
EOF
}

# cmp_app LABEL APPFILE APPDIR REVISION [ARGS...]: argocd-cmp, dump in $W/dump.LABEL
cmp_app() {
	local label=$1 app=$2 dir=$3 rev=$4
	shift 4
	rm -rf "$W/dump.$label" && mkdir -p "$W/dump.$label"
	"$CMP" -plugin "$JAXJOB_TOP/argocd-plugin/plugin.yaml" ${app:+-app "$app"} -repo "$W/repo" \
		-bin "/usr/local/bin/jaxjob=$JAXJOB" -revision "$rev" -dump "$W/dump.$label" "$@" "$dir" \
		>"$W/cmp.$label" 2>&1
	crc=$?
	dump=$W/dump.$label/${dir//\//_}.yaml
}

# render_like DIR VAR=VALUE...: what `jaxjob render` gives in DIR (expected)
render_like() {
	local dir=$1
	shift
	cmp_render "$W/repo/$dir" ARGOCD_APP_NAMESPACE=training ARGOCD_APP_SOURCE_PATH="$dir" "$@" --
}

REV2=fedcba9876543210fedcba9876543210fedcba98
for dir in $APPS; do
	# a plugin.env entry every job of the app can take, and one for another tool
	case $dir in
	*trainjob*) EN=ACTIVE_DEADLINE_SECONDS EV=7200 EGREP='activeDeadlineSeconds: 7200' ;;
	*) EN=IMAGE_PULL_POLICY EV=IfNotPresent EGREP='imagePullPolicy: IfNotPresent' ;;
	esac
	# what the Parameters tab shows, edited: workers of the first job + 1,
	# and every announced value sent back
	cmp_render "$W/repo/$dir" -- --params
	cp "$T/out" "$W/params.json"
	PJSON=$(python3 - "$W/params.json" <<'EOF'
import json, sys
ann = json.load(open(sys.argv[1]))
out, bumped = [], False
for a in ann:
    v = a[a["collectionType"]]
    if not bumped and a["name"].endswith(".workers"):
        v, bumped = str(int(v) + 1), True
    out.append({"name": a["name"], a["collectionType"]: v})
assert bumped, "no job announces workers"
print(json.dumps(out))
EOF
)
	[ -n "$PJSON" ]
	report "$dir: --params announces parameters (workers among them)" $?
	PYAML=$(python3 -c 'import json, sys, yaml
p = {"name": "jaxjob", "env": [{"name": sys.argv[2], "value": sys.argv[3]}, {"name": "UNRELATED_TOOL", "value": "x"}], "parameters": json.loads(sys.argv[1])}
print("\n".join("    " + l for l in yaml.safe_dump({"plugin": p}, sort_keys=False).splitlines()))' "$PJSON" "$EN" "$EV")

	application full "$dir" "$PYAML"
	application name-only "$dir" "    plugin:
      name: jaxjob"
	application empty "$dir" "    plugin: {}"
	application env-only "$dir" "    plugin:
      env:
      - name: $EN
        value: '$EV'
      - name: UNRELATED_TOOL
        value: x"
	application empty-list "$dir" "    plugin:
      name: jaxjob
      parameters: []"

	# without parameters: the same bytes as a render with no ARGOCD_APP_PARAMETERS
	render_like "$dir" ARGOCD_APP_REVISION=$FIXED_REV
	cp "$T/out" "$W/plain.yaml"
	for v in name-only empty empty-list; do
		cmp_app "$v" "$W/$v.app.yaml" "$dir" "$FIXED_REV"
		[ "$crc" -eq 0 ] && grep -q '^     ARGOCD_APP_PARAMETERS=null$' "$W/cmp.$v" &&
			grep -q '^ok   generate exits 0' "$W/cmp.$v" && grep -q '^ok   parameters.dynamic exits 0' "$W/cmp.$v" &&
			cmp -s "$dump" "$W/plain.yaml"
		report "argocd-cmp $dir, Application $v: ARGOCD_APP_PARAMETERS=null, generate and --params succeed, same bytes as no parameters" $?
		[ "$crc" -eq 0 ] || tail -n 20 "$W/cmp.$v" >&2
	done

	render_like "$dir" ARGOCD_APP_REVISION=$FIXED_REV "ARGOCD_ENV_$EN=$EV" ARGOCD_ENV_UNRELATED_TOOL=x
	cp "$T/out" "$W/env.yaml"
	cmp_app env-only "$W/env-only.app.yaml" "$dir" "$FIXED_REV"
	[ "$crc" -eq 0 ] && grep -q '^     ARGOCD_APP_PARAMETERS=null$' "$W/cmp.env-only" &&
		cmp -s "$dump" "$W/env.yaml" && ! cmp -s "$dump" "$W/plain.yaml" && grep -q "$EGREP" "$dump"
	report "argocd-cmp $dir, Application with only plugin.env: env applied, parameters null" $?

	render_like "$dir" ARGOCD_APP_REVISION=$REV2 "ARGOCD_ENV_$EN=$EV" ARGOCD_ENV_UNRELATED_TOOL=x "ARGOCD_APP_PARAMETERS=$PJSON"
	cp "$T/out" "$W/full.yaml"
	cmp_app full "$W/full.app.yaml" "$dir" "$REV2"
	[ "$crc" -eq 0 ] && grep -q '^     ARGOCD_APP_PARAMETERS=\[{' "$W/cmp.full" &&
		cmp -s "$dump" "$W/full.yaml" && ! cmp -s "$dump" "$W/env.yaml" &&
		grep -q "jaxjob.dev/source-revision: \"\\?$REV2" "$dump"
	report "argocd-cmp $dir, Application with env and every parameter (one edited), at revision ${REV2:0:8}: the bytes render gives" $?
	[ "$crc" -eq 0 ] || tail -n 20 "$W/cmp.full" >&2

	# discovered, no Application plugin section: no ARGOCD_APP_PARAMETERS at all
	cmp_app discovered "" "$dir" "$FIXED_REV"
	[ "$crc" -eq 0 ] && ! grep -q 'ARGOCD_APP_PARAMETERS=' "$W/cmp.discovered" &&
		grep -q '^ok   discovery: this plugin supports the app directory' "$W/cmp.discovered" &&
		grep -q '^ok   generate output: .* all Kubernetes objects (bad: 0)' "$W/cmp.discovered"
	report "argocd-cmp $dir, plugin found by discovery without an Application: generates Kubernetes objects" $?

	# render itself, every form of "no parameters" and real ones
	for v in unset null '[]'; do
		if [ "$v" = unset ]; then
			render_like "$dir" ARGOCD_APP_REVISION=$FIXED_REV
		else
			render_like "$dir" ARGOCD_APP_REVISION=$FIXED_REV "ARGOCD_APP_PARAMETERS=$v"
		fi
		[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && cmp -s "$T/out" "$W/plain.yaml"
		report "render $dir with ARGOCD_APP_PARAMETERS $v" $?
		if [ "$v" = unset ]; then cmp_render "$W/repo/$dir" -- --params
		else cmp_render "$W/repo/$dir" "ARGOCD_APP_PARAMETERS=$v" -- --params; fi
		[ "$rc" -eq 0 ] && cmp -s "$T/out" "$W/params.json"
		report "render --params $dir with ARGOCD_APP_PARAMETERS $v" $?
	done
	cmp_render "$W/repo/$dir" "ARGOCD_APP_PARAMETERS=$PJSON" -- --params
	python3 -c 'import json, sys
got = {a["name"]: a[a["collectionType"]] for a in json.load(open(sys.argv[1]))}
want = {p["name"]: [v for k, v in p.items() if k != "name"][0] for p in json.loads(sys.argv[2])}
assert got == want, (got, want)' "$T/out" "$PJSON"
	report "render --params $dir with real parameters announces the values the Application sets" $?
done

# --- the repository's own Application example --------------------------------
cmp_app example "$JAXJOB_TOP/argocd-plugin/application.yaml" examples/gitops "$FIXED_REV"
[ "$crc" -eq 0 ] && grep -q '^ok   Application plugin.name "jaxjob" selects this plugin' "$W/cmp.example" &&
	grep -q '^ok   strict decode' "$W/cmp.example"
report 'argocd-cmp: argocd-plugin/application.yaml with plugin.yaml (strict decode, plugin selected, generate)' $?

# A bad parameter is an Argo CD generate failure with our one error line
application bad examples/gitops "    plugin:
      name: jaxjob
      parameters:
      - name: nosuch.workers
        string: '2'"
cmp_app bad "$W/bad.app.yaml" examples/gitops "$FIXED_REV"
[ "$crc" -eq 1 ] && grep -q 'FAIL generate.*failed exit status 2: error: parameter nosuch.workers' "$W/cmp.bad"
report 'argocd-cmp: an unknown parameter fails generate with the one error line Argo CD shows' $?
[ "$crc" -eq 1 ] || cat "$W/cmp.bad" >&2

exit 0
