#!/bin/sh
# start.sh DIR [server options...] - start the Kubernetes API test server in the background.
#
# Writes into DIR: ca.pem, admin.token, nobody.token (+ nowatch/nocreate/nologs.token),
# admin.crt/admin.key (client certificate, CN=admin, O=system:masters), kubeconfig (token),
# kubeconfig-tokenfile, kubeconfig-cert, kubeconfig-cert-data (namespace team-a), port, pid,
# url, server.log. Returns once the server answers; exit 1 if it did not come up.
# Options are passed to server.py (e.g. --no-operator, --bookmark-interval 1, --profile recorded).
#
# Under the test runner ($JAXJOB_TMP set), the server's secrets are appended to
# $JAXJOB_TMP/secrets.list (JAXJOB_SECRETS_LIST overrides), the list
# tests/suites/99-secrets.sh greps every test output for: each token, every
# base64 line of the client keys and certificates, and the start of each of
# those files' base64 encoding (what *-data fields in a kubeconfig hold). So
# every suite that starts a server is covered, whoever wrote it.
set -eu
if [ $# -lt 1 ]; then
	echo "usage: $0 DIR [server options...]" >&2
	exit 2
fi
dir=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -f "$dir/url" "$dir/port" "$dir/pid"
nohup python3 "$here/server.py" --state-dir "$dir" "$@" >"$dir/server.log" 2>&1 </dev/null &
pid=$!
end=$(($(date +%s) + 60))
while [ ! -s "$dir/url" ]; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "start.sh: the test server exited:" >&2
		tail -n 20 "$dir/server.log" >&2
		exit 1
	fi
	if [ "$(date +%s)" -ge "$end" ]; then	# a ceiling against hangs (a busy machine is slow)
		echo "start.sh: the test server did not become ready in 60 s" >&2
		kill "$pid" 2>/dev/null || true
		exit 1
	fi
	sleep 0.05	# sleep-ok: poll interval (until the server wrote its url)
done
echo "$pid" >"$dir/pid"
list=${JAXJOB_SECRETS_LIST:-${JAXJOB_TMP:+$JAXJOB_TMP/secrets.list}}
if [ -n "$list" ]; then
	for f in "$dir"/*.token; do
		[ -s "$f" ] && tr -d '\n' <"$f" && echo
	done | "$(dirname "$0")/../lib/append-locked" "$list"
	for f in "$dir"/*.key "$dir"/admin.crt "$dir"/nobody.crt; do
		[ -s "$f" ] || continue
		grep -v -- '-----' "$f" | awk 'length($0) >= 40'
		base64 -w0 <"$f" | cut -c 1-60
		echo
	done | "$(dirname "$0")/../lib/append-locked" "$list"
fi
