#!/usr/bin/env bash
# tests/suites/12-kube-state.sh - the kube client's state is in parts (struct kube_client,
# lib/kube/kube_int.h), each written by one file, the file its member's comment names:
# setup by kube_client.c, the contact window and the calls by kube_call.c, the transfers and
# the traffic counters by kube_xfer.c, the loop by kube_loop.c, the watches by kube_watch.c,
# the log streams by kube_log.c. scripts/kube-state-writers.sh is the grep the architecture
# doc gives; here it runs on the tree (no line), then on copies where a file writes another's
# part, or the struct grows a member that is no part: each is named.
. "$JAXJOB_TOP/tests/lib/tap.sh"
CHECK="$JAXJOB_TOP/scripts/kube-state-writers.sh"

expect_silent 'each part of struct kube_client is written by the one file its comment names' \
	'move the write to the part'"'"'s writer' "$CHECK" "$JAXJOB_TOP"

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/t/lib"
cp -r "$JAXJOB_TOP/lib/kube" "$W/t/lib/"
# kube_log.c counts its held time into the loop's deaf time itself
printf 'void f(struct kube_client *c) { c->loop.deaf_s += 1; }\nvoid g(struct kube_client *c) { c->loop.running++; }\n' \
	>>"$W/t/lib/kube/kube_log.c"
"$CHECK" "$W/t" >"$W/out" 2>&1
rc=$?
expect 'a file that writes (+=, ++) a part of another file fails, naming the part, its writer and the line' '
	test $rc = 1 && test $(wc -l <"$W/out") = 2 &&
	grep -q "writes the client.s .loop. (its writer is kube_loop.c): lib/kube/kube_log.c:[0-9]*:void f" "$W/out" &&
	grep -q "kube_log.c:[0-9]*:void g" "$W/out"'

cp "$JAXJOB_TOP/lib/kube/kube_log.c" "$W/t/lib/kube/kube_log.c"
sed -i 's|^\tstruct kube_logs logs;.*|&\n\tint loose;|' "$W/t/lib/kube/kube_int.h"
"$CHECK" "$W/t" >"$W/out" 2>&1
rc=$?
expect '... and a member of struct kube_client that is no part with its writer fails, naming it' '
	test $rc = 1 && grep -q "struct kube_client has a member that is no part with its writer:.*int loose;" "$W/out"'
