#!/usr/bin/env bash
# 76-as-written.sh - values mean what they meant where they were written
# (issue 26): a number spelled 0x1F, 0o17, 0644, 1_000, +1, .5, 1E3 or
# .inf stays that text where it becomes text (env values, labels,
# annotations) and is the value Kubernetes' reader gives where the field is
# a number (lib/yj/yj_scalar.c); YAML tags are decoded (!!binary) or refused
# with where they are; .inf/.nan are quoted as written in messages; a NUL
# in a string does not stop health (it is judged as the Lua judges it); and
# --dry-run with --server-dry-run is refused naming both.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
W=$T/written
rm -rf "$W" && mkdir -p "$W"

# job FILE-CONTENT: an app with that one job file; render it into $W/out, $W/err
job() {
	rm -rf "$W/app" && mkdir -p "$W/app" && printf '%b' "$1" >"$W/app/a.jaxjob.yaml"
	(cd "$W/app" && ARGOCD_APP_NAMESPACE=default "$JAXJOB" render) >"$W/out" 2>"$W/err"
}
# field PY-EXPR: true on the one rendered object d (YAML read as data)
field() {
	/usr/bin/python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); c = d["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]; env = {e["name"]: e["value"] for e in c.get("env", [])}; sys.exit(0 if eval(sys.argv[2]) else 1)' "$W/out" "$1"
}

job 'name: a\nimage: i:1\nenv: {H: 0x1F, O: 0o17, L: 0644, U: 1_000, B: 0b101, P: +1, D: .5, E: 1E3, I: .inf, N: .nan, F: 1.10}\n'
expect 'env values keep the spelling of every number as written (0x1F, 0o17, 0644, 1_000, 0b101, +1, .5, 1E3, .inf, .nan, 1.10)' \
	"field 'env == {\"H\": \"0x1F\", \"O\": \"0o17\", \"L\": \"0644\", \"U\": \"1_000\", \"B\": \"0b101\", \"P\": \"+1\", \"D\": \".5\", \"E\": \"1E3\", \"I\": \".inf\", \"N\": \".nan\", \"F\": \"1.10\"}'"
job 'name: a\nimage: i:1\nlabels: {h: 0x1F, o: 0644}\nannotations: {u: 1_000, i: .inf}\n'
expect 'labels and annotations keep them too' \
	"field 'd[\"metadata\"][\"labels\"][\"h\"] == \"0x1F\" and d[\"metadata\"][\"labels\"][\"o\"] == \"0644\" and d[\"metadata\"][\"annotations\"][\"u\"] == \"1_000\" and d[\"metadata\"][\"annotations\"][\"i\"] == \".inf\"'"
for w in '0x10:16' '017:15' '0o17:15' '1_6:16' '0b11:3' '+4:4' '09:9'; do
	job "name: a\nimage: i:1\nworkers: ${w%%:*}\n"
	expect "workers: ${w%%:*} is ${w#*:}, as Kubernetes' reader takes it" \
		"field 'd[\"spec\"][\"jaxReplicaSpecs\"][\"Worker\"][\"replicas\"] == ${w#*:}'"
done
job 'name: a\nimage: i:1\ncpu: 0x10\nmemory: 0.5Gi\n'
expect 'a quantity written as hex is its value (16); a decimal one stays as written' \
	"field 'c[\"resources\"][\"limits\"][\"cpu\"] == \"16\"'"

# --- .inf / .nan in number fields: refused, quoted as written ---------------------
job 'name: a\nimage: i:1\ncpu: .inf\n'
expect 'cpu: .inf is refused quoting .inf' "grep -q '^error: a.jaxjob.yaml: job a: cpu \".inf\" is not a Kubernetes quantity' '$W/err'"
job 'name: a\nimage: i:1\nworkers: .nan\n'
expect 'workers: .nan is refused quoting .nan' "grep -qx 'error: a.jaxjob.yaml: job a: workers must be a whole number, got \".nan\"' '$W/err'"
job 'apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: a}\nspec:\n  jaxReplicaSpecs:\n    Worker:\n      replicas: .nan\n      template: {spec: {containers: [{name: jax, image: i}]}}\n'
expect 'a manifest with replicas: .nan is refused quoting .nan' "grep -q 'replicas must be a whole number, got .nan$' '$W/err'"

# --- tags ------------------------------------------------------------------------
job 'name: a\nimage: !!binary aW1n\n'
expect '!!binary is decoded as Kubernetes decodes it (aW1n is img)' "field 'c[\"image\"] == \"img\"'"
job 'name: a\nimage: !!binary aW1\n'
expect 'invalid !!binary base64 is refused with where it is' \
	"grep -qx 'error: a.jaxjob.yaml:2:8: image: !!binary value is not valid base64; fix it, or drop the tag for text' '$W/err' && [ ! -s '$W/out' ]"
job 'name: a\nimage: i:1\nenv:\n- name: X\n  value: !custom y\n'
expect 'an unknown tag is refused with its path' \
	"grep -q '^error: a.jaxjob.yaml:5:10: env\[0\].value: tag !custom is not a tag jaxjob reads; remove it' '$W/err' && [ ! -s '$W/out' ]"
job 'name: a\nimage: !!python/object:os.system x\n'
expect '!!python/object is refused' "grep -q 'image: tag !!python/object:os.system is not a tag' '$W/err'"
job 'name: a\nimage: i:1\nlabels: !!set {a, b}\n'
expect '!!set is refused' "grep -q 'labels: tag !!set is not a tag' '$W/err'"

# --- health: a NUL in a string is judged, also inside a List --------------------------
printf '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"kubeflow.org/v1","kind":"JAXJob","metadata":{"name":"a"},"status":{"conditions":[{"type":"Failed","status":"True","message":"a\\u0000b"}]}},{"apiVersion":"kubeflow.org/v1","kind":"JAXJob","metadata":{"name":"b"},"status":{"conditions":[{"type":"Succeeded","status":"True","message":"done"}]}}]}' >"$W/list.json"
expect 'health: a List where one object has a NUL in its message judges both: a Degraded (the NUL shown as a space), b Healthy, exit 1' \
	"'$JAXJOB' health -f '$W/list.json' >'$W/h.out'; [ \$? -eq 1 ] && printf 'a: Degraded: a b\nb: Healthy: done\n' | cmp - '$W/h.out'"
expect 'health -o json gives the message with its NUL (\u0000), as the Lua does' \
	"'$JAXJOB' health -o json -f '$W/list.json' | /usr/bin/python3 -c 'import json, sys; v = json.load(sys.stdin); sys.exit(0 if v[0][\"message\"] == \"a\\x00b\" else 1)'"
printf 'apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: a}\nspec: {x: !!binary AA==}\n' >"$W/nul-binary.yaml"
expect_fail_clean 'a NUL that only a tag would make is still refused' "$JAXJOB" health -f "$W/nul-binary.yaml"

# --- launch: --dry-run with --server-dry-run ---------------------------------------
expect '--dry-run with --server-dry-run is an error naming both, exit 2, nothing on stdout' \
	"'$JAXJOB' launch --dry-run --server-dry-run --name a --image i:1 >'$W/l.out' 2>'$W/l.err'; [ \$? -eq 2 ] && [ ! -s '$W/l.out' ] &&
	 [ \$(wc -l <'$W/l.err') -eq 1 ] && grep -q '^error: --dry-run and --server-dry-run are both given' '$W/l.err'"
