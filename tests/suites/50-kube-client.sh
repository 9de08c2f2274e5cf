#!/usr/bin/env bash
# The Kubernetes client (lib/kube/) against the test API server: requests,
# Status errors, retries with faults injected, TLS and auth, watches through
# dropped streams / 410 / forbidden watch, log follow, signals. The scenarios
# live in tests/kube-client-driver/driver.c (one TAP line each); this script
# starts the server, gives the driver a CA that did not sign the server
# certificate (for the wrong-CA case), and stops the server.
set -u
driver=$JAXJOB_BUILD/tests/kube-client-driver
if ! command -v python3 >/dev/null || ! command -v openssl >/dev/null; then
	echo "ok - kube client integration # SKIP needs python3 and openssl"
	exit 0
fi
if [ ! -x "$driver" ]; then
	echo "not ok - kube client: driver not built ($driver; run make unit)"
	exit 0
fi
dir=$JAXJOB_TMP/kube-client
if ! "$JAXJOB_TOP/tests/kube-apiserver/start.sh" "$dir" >&2; then
	echo "not ok - kube client: the test API server did not start"
	exit 0
fi
trap '"$JAXJOB_TOP/tests/kube-apiserver/stop.sh" "$dir"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/other-ca.key" -out "$dir/other-ca.pem" \
	-subj /CN=other-ca -days 2 2>/dev/null
"$driver" "$dir"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "not ok - kube client: driver exited with status $rc (sanitizer report above)"
	tail -n 20 "$dir/server.log" >&2
fi
exit 0
