#!/usr/bin/env bash
# 74-hostile-inputs.sh - inputs an attacker or a careless user would give
# render, health and launch (issue 13), each run with a memory cap and a
# time bound, each expected to end with exactly one `error:` line naming the
# limit or the field, exit status 2 and nothing on stdout. The memory cap is
# `ulimit -v` for a release build; a sanitizer build reserves terabytes of
# address space for its shadow, so there the cap is ASan's own RSS limit
# (soft_rss_limit_mb with allocator_may_return_null: malloc fails past it).
# Then the smaller items of the issue, one test each.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"
PY=/usr/bin/python3
W=$T/hostile
rm -rf "$W" && mkdir -p "$W"
CAP_MB=768	# memory a run may use
TIME_S=60	# and wall time (generous: a loaded CI machine, a sanitizer build)

if ldd "$JAXJOB" 2>/dev/null | grep -q libasan; then
	SAN=1
fi

# run_capped NAME CWD STDIN CMD...: the command with the caps; sets rc,
# $W/NAME.{out,err,time}
run_capped() {
	local name=$1 cwd=$2 in=$3
	shift 3
	(
		cd "$cwd" || exit 99
		if [ -n "${SAN:-}" ]; then
			export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}soft_rss_limit_mb=$CAP_MB:allocator_may_return_null=1"
		else
			ulimit -v $((CAP_MB * 1024))
		fi
		exec /usr/bin/time -f '%e %M' -o "$W/$name.time" timeout -s KILL $TIME_S "$@" <"$in"
	) >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
}

# hostile NAME PATTERN CWD STDIN CMD...: one error line matching PATTERN,
# exit 2, empty stdout, within the caps
hostile() {
	local name=$1 pat=$2
	shift 2
	run_capped "$name" "$@"
	local secs kb lines
	read -r secs kb < <(tail -n 1 "$W/$name.time" 2>/dev/null) || { secs=999; kb=0; }
	lines=$(wc -l <"$W/$name.err")
	if [ "$rc" -eq 2 ] && [ ! -s "$W/$name.out" ] && [ "$lines" -eq 1 ] &&
		grep -q '^error: ' "$W/$name.err" && grep -Eq -- "$pat" "$W/$name.err" &&
		[ "${kb:-0}" -le $((CAP_MB * 1024 + 65536)) ]; then
		ok "hostile $name: one error line, exit 2, no output (${secs}s, $((kb / 1024)) MiB)"
	else
		not_ok "hostile $name"
		{ echo "--- $name: rc=$rc stdout=$(wc -c <"$W/$name.out")B stderr=$lines lines time=$secs kb=$kb"; head -c 600 "$W/$name.err"; echo; } >&2
	fi
}

app() {	# app NAME: an app directory with one job file written by stdin
	mkdir -p "$W/$1"
	cat >"$W/$1/job.jaxjob.yaml"
	echo "$W/$1"
}
E=/dev/null

# --- render: the parser's bounds ---------------------------------------------
A=$($PY -c '
big = "x" * (512 * 1024)
print("name: bomb\nimage: x\nenv:\n  A: &a \"" + big + "\"")
for i in range(1500): print("  B%d: *a" % i)' | app alias-bytes)
hostile alias-bytes 'job.jaxjob.yaml:[0-9]+:[0-9]+: aliases expand to more than 4194304 bytes' "$A" $E "$JAXJOB" render

A=$($PY -c '
print("name: lol\nimage: x\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]")
for i in range(1, 12): print("l%d: &l%d [%s]" % (i, i, ", ".join(["*l%d" % (i - 1)] * 10)))' | app alias-nodes)
hostile billion-laughs 'aliases expand to more than 100000 nodes' "$A" $E "$JAXJOB" render

A=$($PY -c 'print("name: deep\nimage: x\nlabels: " + "[" * 100000 + "]" * 100000)' | app deep)
hostile deep-nesting 'job.jaxjob.yaml:.*(deeper|nest)' "$A" $E "$JAXJOB" render

A=$($PY -c 'print("name: big\nimage: x\nargs: [" + ", ".join(["x" * 100] * 20000) + "]")' | app big-file)
hostile file-over-1MiB "job.jaxjob.yaml' is [0-9]+ bytes, more than the limit" "$A" $E "$JAXJOB" render

A=$(printf 'name: nul\nimage: x\x00y\n' | app nul)
hostile nul-byte 'NUL' "$A" $E "$JAXJOB" render

A=$(printf 'name: utf\nimage: x\xff\xfey\n' | app bad-utf8)
hostile invalid-utf8 'UTF-8' "$A" $E "$JAXJOB" render

A=$(printf 'name: s\nimage: "x\\ud83d y"\n' | app lone-surrogate)
hostile lone-surrogate 'half of a UTF-16 surrogate pair' "$A" $E "$JAXJOB" render

A=$(printf 'name: n\nimage: x\ncpu: 1e400\n' | app huge-number)
hostile number-1e400 'number 1e400 is out of range' "$A" $E "$JAXJOB" render

A=$($PY -c 'print("name: k\nimage: x\nlabels: {" + "k" * 5000 + ": v}")' | app long-key)
hostile long-key 'job.jaxjob.yaml' "$A" $E "$JAXJOB" render

A=$($PY -c 'print("name: " + "n" * 5000 + "\nimage: x")' | app long-name)
hostile long-name-keeps-the-fix 'name.*\[\.\.\.\].*(characters|shorten|at most)' "$A" $E "$JAXJOB" render
[ "$(wc -c <"$W/long-name-keeps-the-fix.err")" -le 1100 ]
report 'an error about a 5000-character value is one short line that still ends with the fix' $?

A=$($PY -c '
print("name: merge\nimage: x\nbase: &b {" + ", ".join("k%d: \"%s\"" % (i, "v" * 4000) for i in range(200)) + "}")
print("labels:")
for i in range(40): print("  m%d: {<<: *b}" % i)' | app merge-bomb)
hostile merge-key-bomb 'aliases expand to more than' "$A" $E "$JAXJOB" render

# --- render: Argo CD's variables ------------------------------------------------
A=$(printf 'name: p\nimage: x\n' | app params)
BIGV=$(head -c 100000 /dev/zero | tr '\0' 9)
hostile params-long-value 'parameter p.workers .*\[\.\.\.\]' "$A" $E env "ARGOCD_APP_PARAMETERS=[{\"name\":\"p.workers\",\"string\":\"$BIGV\"}]" "$JAXJOB" render
hostile params-deep 'ARGOCD_APP_PARAMETERS:.*(deeper|nest)' "$A" $E env "ARGOCD_APP_PARAMETERS=$($PY -c 'print("[" * 50000 + "]" * 50000)')" "$JAXJOB" render
hostile params-trailing 'has data after its JSON array' "$A" $E env 'ARGOCD_APP_PARAMETERS=[] {"name":"x"}' "$JAXJOB" render
hostile params-not-json 'is not a JSON array' "$A" $E env 'ARGOCD_APP_PARAMETERS={a: b}' "$JAXJOB" render

# --- health ----------------------------------------------------------------------
$PY -c '
big = "x" * (512 * 1024)
print("apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: a, annotations: {a: &a \"" + big + "\"}}\nstatus:\n  conditions:")
for i in range(1500): print("  - {type: Running, status: \"True\", message: *a}")' >"$W/health-alias.yaml"
hostile health-alias-bytes 'standard input:[0-9]+:[0-9]+: aliases expand to more than 4194304 bytes' "$W" "$W/health-alias.yaml" "$JAXJOB" health
$PY -c 'import sys; sys.stdout.write("a: \"" + "x" * (9 * 1024 * 1024) + "\"\n")' >"$W/health-big.yaml"
hostile health-over-8MiB 'more than the limit of 8388608 bytes' "$W" "$W/health-big.yaml" "$JAXJOB" health
$PY -c 'print("[" * 200000 + "]" * 200000)' >"$W/health-deep.json"
hostile health-deep 'standard input:.*(deeper|nest)' "$W" "$W/health-deep.json" "$JAXJOB" health

# --- launch ------------------------------------------------------------------------
$PY -c '
big = "x" * (512 * 1024)
print("metadata:\n  annotations:\n    a: &a \"" + big + "\"")
for i in range(1500): print("    b%d: *a" % i)' >"$W/patch-alias.yaml"
hostile patch-alias-bytes 'aliases expand to more than 4194304 bytes' "$W" $E "$JAXJOB" launch --dry-run --name t --image x --patch "@$W/patch-alias.yaml"
$PY -c '
print("apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata:\n  name: ((name))\n  annotations:")
for i in range(3000): print("    a%d: ((image))" % i)
print("spec: {}")' >"$W/template-bomb.yaml"
hostile template-bytes 'placeholders expand to more than 8388608 bytes' "$W" $E "$JAXJOB" launch --dry-run --name t --template "$W/template-bomb.yaml" --image "$(head -c 100000 /dev/zero | tr '\0' x)"
hostile patch-surrogate-half 'half of a UTF-16 surrogate pair' "$W" $E "$JAXJOB" launch --dry-run --name t --image x --patch '{"metadata":{"annotations":{"a":"\udca5"}}}'

# --- the smaller items of the issue -------------------------------------------------
jj launch --dry-run --name q --image x --cpu 1.5.2 >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'cpu "1.5.2" is not a Kubernetes quantity; write a number with an optional suffix' "$T/err" &&
	! grep -q 'write 1.5.2' "$T/err"
report 'a fix never repeats the bad value (cpu 1.5.2)' $?
for q in 1n 1u -0; do
	jj launch --dry-run --name q --image x --cpu "$q" >"$T/out" 2>"$T/err" && grep -q "cpu: \"$q\"" "$T/out"
	report "quantity $q is valid, as for the API server" $?
done
jj launch --dry-run --name q --image x --env 'A=1' --patch '{"spec":{"jaxReplicaSpecs":{"Worker":{"template":{"spec":{"volumes":[{"name":"a","emptyDir":{}},{"name":"b","emptyDir":{}}],"containers":[{"name":"jax","image":"x","volumeMounts":[{"name":"a","mountPath":"/d"},{"name":"b","mountPath":"/d"}]}]}}}}}}' >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'volumeMounts\[1\] has the same mountPath as item 0' "$T/err"
report 'two mounts at one path are refused (the CRD keys volumeMounts by mountPath)' $?
A=$(printf 'name: hp\nimage: x\nvolumes:\n  - name: h\n    hostPath: {path: /a/../etc}\nvolume-mounts:\n  - {name: h, mountPath: /h}\n' | app hostpath)
cmp_render "$A" --
[ "$rc" -eq 2 ] && grep -q "volumes\[0\].hostPath.path must not contain '..'" "$T/err"
report 'hostPath /a/../etc is refused (the API server refuses the pods)' $?
mkdir -p "$W/plain"
cat >"$W/plain/p.jaxjob.yaml" <<'EOF'
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: plain
  uid: 0b5cf0c2-0000-4000-8000-000000000000
  resourceVersion: "12345"
  generation: 3
  creationTimestamp: "2026-01-01T00:00:00Z"
  managedFields: [{manager: kubectl, operation: Apply}]
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers: [{name: jax, image: x}]
status:
  conditions: [{type: Running, status: "True"}]
EOF
cmp_render "$W/plain" ARGOCD_APP_NAMESPACE=ns --
[ "$rc" -eq 0 ] && ! grep -Eq 'uid:|resourceVersion|managedFields|generation:|creationTimestamp|^status:' "$T/out"
report 'a plain manifest copied from the cluster loses uid, resourceVersion, managedFields, status' $?
f=$(ls "$JAXJOB_TOP"/health-checks/kubeflow.org/JAXJob/testdata/*.yaml | head -n 1)
jj health -f "$f" >/dev/full 2>"$T/err"
[ $? -eq 2 ] && grep -q '^error: cannot write the verdicts to stdout' "$T/err"
report 'health exits 2 when stdout cannot be written' $?
for kind in outside dangling directory; do
	A=$(printf 'name: d\nimage: x\n' | app "defaults-$kind")
	case $kind in
	outside) ln -s /etc/hostname "$A/jaxjob-defaults.yaml" ;;
	dangling) ln -s nowhere.yaml "$A/jaxjob-defaults.yaml" ;;
	directory) mkdir "$A/jaxjob-defaults.yaml" ;;
	esac
	cmp_render "$A" --
	[ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && grep -q "^error: 'jaxjob-defaults.yaml' is" "$T/err"
	report "a jaxjob-defaults.yaml that is a link $kind of the repository is an error, as a job file" $?
done

# a SIGTERM while --repo clones (Argo CD cancelling, a pod stopping) leaves no clone
mkdir -p "$W/sig/tmp"
cat >"$W/sig/srv.py" <<'EOF'
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
while True:
    c, _ = s.accept(); conns.append(c)   # accept, never answer: the clone hangs
EOF
$PY "$W/sig/srv.py" "$W/sig/port" & SRV=$!
wait_until test -s "$W/sig/port"
TMPDIR=$W/sig/tmp "$JAXJOB" render --repo "http://127.0.0.1:$(cat "$W/sig/port")/jobs.git" --revision main >"$W/sig/out" 2>"$W/sig/err" &
P=$!
wait_until eval '[ -n "$(ls "$W/sig/tmp")" ]'
during=$(ls "$W/sig/tmp")
kill -TERM $P
wait $P
prc=$?
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
[ -n "$during" ] && [ "$prc" -eq 143 ] && [ -z "$(ls "$W/sig/tmp")" ] && [ ! -s "$W/sig/out" ]
report "a SIGTERM during a --repo clone removes the temporary clone and dies of the signal (exit $prc)" $?
exit 0
