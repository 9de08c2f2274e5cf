#!/usr/bin/env bash
# No token, key or client certificate ever appears in any output of any test.
#
# Runs LAST (99-). Secrets: $JAXJOB_TMP/secrets.list, one string a line,
# appended by tests/kube-apiserver/start.sh each time a suite starts a
# Kubernetes API test server (and by register_secrets in
# tests/suites/90-reliability.lib, which is now redundant): its tokens, the
# base64 lines of its client keys and certificates, and the start of their
# base64 encoding (what *-data fields hold). Searched: everything under
# $JAXJOB_TMP - the stdout/stderr of every suite that ran before
# (tests/run-all.sh keeps them as NAME.out/.err) and every file the suites
# left there (launch stdout/stderr and --out-* files under kept/) - except
# the server state directories themselves (they hold the secrets: any
# directory with an admin.token) and the list.
# run-all: after all
set -u
list=$JAXJOB_TMP/secrets.list
if [ ! -s "$list" ]; then
	echo "ok - no test secret in any test output # SKIP no suite registered secrets (run the whole suite)"
	exit 0
fi
pat=$JAXJOB_TMP/secrets.patterns
sort -u "$list" | awk 'length($0) >= 16' >"$pat"
nsecrets=$(wc -l <"$pat")
# a canary: a secret planted in an output file, before the search, which must find it - so
# the search that judges the real outputs is the one shown to work (issue 25: a canary that
# grepped the pattern file for its own first line could not fail)
canary_dir=$JAXJOB_TMP/secrets-canary
mkdir -p "$canary_dir"
printf 'log line with %s inside\n' "$(shuf -n 1 "$pat")" >"$canary_dir/out"
# the files to search
files=$JAXJOB_TMP/secrets.files
# (a test server's state dir, and kubeconfig copies handed to the binary - in
# the rootfs chroot test, say - are credentials by design: inputs, not outputs)
find "$JAXJOB_TMP" -type d -exec test -e '{}/admin.token' ';' -prune -o \
	-type f -name 'kubeconfig*' -prune -o -type f -print |
	grep -v -e "^$list\$" -e "^$pat\$" -e "^$files\$" -e "/99-secrets.sh\.\(out\|err\)\$" >"$files"
nfiles=$(wc -l <"$files")
bytes=$(tr '\n' '\0' <"$files" | xargs -0 cat 2>/dev/null | wc -c)
suites=$(ls "$JAXJOB_TMP" | sed -n 's/\.out$//p' | grep -vc '^99-secrets.sh$')
hits=$(tr '\n' '\0' <"$files" | xargs -0 grep -lF -f "$pat" 2>/dev/null)
canary_found=$(printf '%s\n' "$hits" | grep -cxF "$canary_dir/out")
hits=$(printf '%s\n' "$hits" | grep -vxF "$canary_dir/out" | grep -v '^$')
rm -rf "$canary_dir"
nfiles=$((nfiles - 1))
if [ -z "$hits" ]; then
	echo "ok - none of $nsecrets test secrets (tokens, client key/certificate lines) in $nfiles output files ($bytes bytes) of $suites suites"
else
	echo "not ok - test secrets found in outputs"
	for f in $hits; do
		echo "--- $f:" >&2
		# say where, never print the secret itself
		grep -nF -f "$pat" "$f" | cut -d: -f1 | head -n 5 | sed 's/^/line /' >&2
	done
fi
# the files that would matter most must exist, or the test proves nothing
kept=$(find "$JAXJOB_TMP/kept" -type f 2>/dev/null | wc -l)
if [ "$kept" -gt 0 ]; then
	echo "ok - the search covered $kept launch output files kept by the reliability suites"
else
	echo "ok - the search covered launch output files # SKIP no reliability suite ran before (kept/ is empty)"
fi
if [ "$canary_found" = 1 ]; then
	echo "ok - the same search found a secret planted among the outputs (canary)"
else
	echo "not ok - the same search found a secret planted among the outputs (canary)"
fi
exit 0
