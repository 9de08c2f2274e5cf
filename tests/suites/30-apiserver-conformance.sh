#!/usr/bin/env bash
# The Kubernetes API test server answers like the recorded kube-apiserver: replay every recorded
# exchange of ../shared/reference/apiserver with ../shared/tools/apiserver-conformance (including
# the no-permission user) and turn each PASS/FAIL/SKIP line into a TAP line.
set -u
if [ -z "${JAXJOB_SHARED:-}" ] || [ ! -x "$JAXJOB_SHARED/tools/apiserver-conformance" ]; then
	echo "ok - apiserver conformance # SKIP ../shared absent"
	exit 0
fi
if ! python3 -c 'import yaml' 2>/dev/null; then
	echo "ok - apiserver conformance # SKIP python3-yaml missing"
	exit 0
fi
dir=${JAXJOB_TMP:-/tmp}/apiserver-conformance.$$
srv=$JAXJOB_TOP/tests/kube-apiserver
# the recorded cluster: no operator, only the JAXJob CRD; bookmarks every second
if ! "$srv/start.sh" "$dir" --profile recorded --bookmark-interval 1 >&2; then
	echo "not ok - apiserver conformance: the test server did not start"
	exit 0
fi
trap '"$srv/stop.sh" "$dir"' EXIT
start=$(date +%s)
"$JAXJOB_SHARED/tools/apiserver-conformance" --server "$(cat "$dir/url")" --cacert "$dir/ca.pem" \
	--token-file "$dir/admin.token" --nobody-token-file "$dir/nobody.token" >"$dir/out" 2>"$dir/err"
rc=$?
while IFS= read -r line; do
	case "$line" in
	PASS\ *) echo "ok - ${line#PASS }" ;;
	FAIL\ *) echo "not ok - ${line#FAIL }" ;;
	SKIP\ *)
		rest=${line#SKIP }
		echo "ok - ${rest%% — *} # SKIP ${rest#* — }" ;;
	*passed,*failed,*skipped) echo "# conformance: $line ($(($(date +%s) - start)) s)" ;;
	esac
done <"$dir/out"
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$dir/out"; then
	echo "not ok - apiserver conformance tool exited with status $rc"
	cat "$dir/err" >&2
fi
exit 0
