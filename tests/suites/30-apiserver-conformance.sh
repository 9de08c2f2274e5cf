#!/usr/bin/env bash
# The Kubernetes API test server answers like the recorded kube-apiserver: replay every recorded
# exchange of tests/apiserver-conformance/recordings with tests/apiserver-conformance (including
# the no-permission user) and turn each PASS/FAIL/SKIP line into a TAP line.
#
# The scenarios are mostly waiting (watches run to their timeoutSeconds), so three groups run at
# the same time, each against its own server: 08 (the long watches), 07+09, and the rest.
set -u
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "ok - apiserver conformance # SKIP python3-yaml missing (make deps installs it)"
	exit 0
fi
srv=$JAXJOB_TOP/tests/kube-apiserver
base=${JAXJOB_TMP:-/tmp}/apiserver-conformance.$$
groups="08 07,09 01,02,03,04,05,06,10,11,12,13,14,15"
# only the recorded NN-name.yaml files (stray files next to them must not become scenarios)
mkdir -p "$base/transcripts"
tool=$JAXJOB_TOP/tests/apiserver-conformance
for f in "$tool"/recordings/*.yaml; do
	case "$(basename "$f")" in
	[0-9][0-9]-*.yaml) case "$(basename "$f")" in *.*.yaml) ;; *) ln -s "$f" "$base/transcripts/" ;; esac ;;
	esac
done
dirs=
cleanup() {
	for d in $dirs; do "$srv/stop.sh" "$d"; done
	rm -rf "$base"
}
trap cleanup EXIT
start=$(date +%s)
i=0
pids=
for g in $groups; do
	i=$((i + 1))
	d=$base/$i
	dirs="$dirs $d"
	# the recorded cluster: no operator, only the JAXJob CRD; bookmarks every second
	if ! "$srv/start.sh" "$d" --profile recorded --bookmark-interval 1 >&2; then
		echo "not ok - apiserver conformance: the test server did not start"
		exit 0
	fi
	"$tool/apiserver-conformance" --server "$(cat "$d/url")" --cacert "$d/ca.pem" \
		--token-file "$d/admin.token" --nobody-token-file "$d/nobody.token" --scenario "$g" \
		--transcripts "$base/transcripts" \
		>"$d/out" 2>"$d/err" &
	pids="$pids $!"
done
rc=0
for p in $pids; do
	wait "$p" || rc=1
done
pass=0 fail=0 skip=0
for d in $dirs; do
	grep -E '^(PASS|FAIL|SKIP) ' "$d/out"
done | sort -s -k2,2 | while IFS= read -r line; do
	case "$line" in
	PASS\ *) echo "ok - ${line#PASS }" ;;
	FAIL\ *) echo "not ok - ${line#FAIL }" ;;
	SKIP\ *)
		rest=${line#SKIP }
		echo "ok - ${rest%% — *} # SKIP ${rest#* — }" ;;
	esac
done
for d in $dirs; do
	set -- $(sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' "$d/out") 0 0 0
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
	if ! grep -q -E '^[0-9]+ passed' "$d/out"; then
		echo "not ok - apiserver conformance tool did not finish ($d)"
		cat "$d/err" >&2
	fi
done
echo "# conformance: $pass passed, $fail failed, $skip skipped ($(($(date +%s) - start)) s)"
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "not ok - apiserver conformance tool exited with an error"
	for d in $dirs; do cat "$d/err" >&2; done
fi
exit 0
