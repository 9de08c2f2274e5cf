#!/usr/bin/env bash
# jaxjob launch: timeout and SIGTERM/SIGINT at any point (during create, while
# waiting, during cleanup) clean up per --on-cancel and exit 3 / 5; no job is
# left running against the policy.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start
O=$T/outputs
HANG="--image x/jax:1 --workers 2 --env SIM_HANG=1"

# (4 s: a worker starts and prints its first line at once within it on a busy machine; a
# 2 s timeout, waiting for the line it prints a second later, missed it in 61-launch-trainjob)
expect_run 3 '--timeout ends the wait with exit 3' to1 \
	launch --name to1 $HANG --timeout 4s --out-state="$O/to1/state" --out-message="$O/to1/message" \
	--out-job-uid="$O/to1/uid" -- python t.py
expect '... and the job was deleted (default --on-cancel=delete), confirmed before exit' '
	test "$(job_state to1)" = absent && grep -q "deleted JAXJob team-a/to1" $T/to1.err'
expect '... the outputs say Timeout and still name the job' '
	test "$(cat $O/to1/state)" = Timeout && grep -q "timeout of 4s" $O/to1/message && test -s $O/to1/uid'
expect '... the worker logs were streamed until then' \
	'hung_workers_began to1 2'

bg_launch sg1 --name sg1 $HANG --out-state="$O/sg1/state"
signal_when_running sg1 TERM
bg_wait sg1
rc=$?
expect "SIGTERM while waiting exits 5 (got $rc)" "test $rc -eq 5"
expect '... the job was deleted' 'test "$(job_state sg1)" = absent && grep -q "deleted JAXJob team-a/sg1" $T/sg1.err'
expect '... the outputs say Cancelled' 'test "$(cat $O/sg1/state)" = Cancelled'

bg_launch sg2 --name sg2 $HANG --on-cancel suspend
signal_when_running sg2 INT
bg_wait sg2
rc=$?
expect "SIGINT with --on-cancel=suspend exits 5 (got $rc)" "test $rc -eq 5"
expect '... the job is kept, suspended' 'case "$(job_state sg2)" in *Suspended*) ;; *) exit 1 ;; esac'
expect '... spec.runPolicy.suspend is true on the server' \
	'ctl GET /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/sg2 | grep -q "\"suspend\": *true"'

bg_launch sg3 --name sg3 $HANG --on-cancel leave
signal_when_running sg3 TERM
bg_wait sg3
rc=$?
expect "SIGTERM with --on-cancel=leave exits 5 (got $rc)" "test $rc -eq 5"
expect '... the job is left running' 'test "$(job_state sg3)" = Created,Running'
ctl DELETE /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/sg3 >/dev/null

# SIGTERM while the POST is in the server's hands (admission held until we
# signalled): the job appears after we gave up on the request; it must still
# be deleted. The signal goes once the server has the POST (its request log),
# however long the launch took to get there.
ks_mark
ctl POST /_test/faults '{"holdMatch": "/jaxjobs$", "holdMethod": "POST"}' >/dev/null
bg_launch sc1 --name sc1 $HANG
wait_for seen POST '/jaxjobs$'
kill -TERM "$BG_sc1"
wait_for grep -q "SIGTERM received" "$T/sc1.err"
ctl POST /_test/faults '{"holdMatch": null}' >/dev/null
bg_wait sc1
rc=$?
ctl DELETE /_test/faults >/dev/null
expect "SIGTERM during the create exits 5 (got $rc)" "test $rc -eq 5"
expect '... and no job is left behind' 'wait_for job_absent sc1'

# cancel_held NAME: a launch of NAME, SIGTERM once it runs; its cleanup's DELETE
# reaches the server and is held there. release NAME: answer it; the launch's
# exit code in $rc.
cancel_held() {
	ks_mark
	ctl POST /_test/faults "{\"holdMatch\": \"/jaxjobs/$1\$\", \"holdMethod\": \"DELETE\"}" >/dev/null
	bg_launch "$1" --name "$1" $HANG
	wait_for grep -q "Running:" "$T/$1.err"
	eval "kill -TERM \"\$BG_$1\""
	wait_for seen DELETE "/jaxjobs/$1\$"
}
release() {
	ctl POST /_test/faults '{"holdMatch": null}' >/dev/null
	bg_wait "$1"
	rc=$?
	ctl DELETE /_test/faults >/dev/null
}

# SIGTERM again while deleting: the deletion still completes. The second
# signal goes while the server holds the DELETE, and the DELETE is answered
# only once the launch said it got that signal.
cancel_held sd1
kill -TERM "$BG_sd1" 2>/dev/null
wait_for grep -q "signal received during cleanup" "$T/sd1.err"
release sd1
expect "a second SIGTERM during cleanup does not abort it: exit 5 (got $rc)" "test $rc -eq 5"
expect '... the launch said so and finished the cleanup' 'grep -q "signal received during cleanup" "$T/sd1.err"'
expect '... the job is gone' 'test "$(job_state sd1)" = absent'

# A DELETE the server takes and never answers: --delete-timeout bounds each attempt too, not
# only the retries (an attempt used to get curl's 60 s, past a pod's 30 s grace period). The
# DELETE stays held until the launch has exited on its own; curl's message names the bound
# the attempt had.
ks_mark
ctl POST /_test/faults '{"holdMatch": "/jaxjobs/dt1$", "holdMethod": "DELETE"}' >/dev/null
bg_launch dt1 --name dt1 --delete-timeout 2s $HANG
wait_for grep -q "Running:" "$T/dt1.err"
kill -TERM "$BG_dt1"
wait_for seen DELETE "/jaxjobs/dt1\$"
bg_wait dt1
rc=$?
ctl POST /_test/faults '{"holdMatch": null}' >/dev/null
ctl DELETE /_test/faults >/dev/null
expect "an unanswered DELETE: the launch ends on its own, exit 5 (got $rc)" "test $rc -eq 5"
expect '... saying the job could not be deleted within the bound it was given' \
	"grep -Eq 'could not delete JAXJob team-a/dt1: .*timed out after [0-9]{1,4} milliseconds' '$T/dt1.err'"
ctl DELETE /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/dt1 >/dev/null

# A job that changes between the look and the DELETE (issue 27): the DELETE carries the uid and
# resourceVersion it was decided on, so the server refuses it (409); the launch looks again,
# decides again and deletes what it now sees. The DELETE is held while the job is touched.
cancel_held cf1
ctl PATCH /apis/kubeflow.org/v1/namespaces/team-a/jaxjobs/cf1 '{"metadata":{"annotations":{"touched":"1"}}}' >/dev/null
release cf1
expect "a job changed between the look and the DELETE: 409, looked again, deleted (exit 5, got $rc)" \
	"test $rc -eq 5 && grep -q 'changed since it was seen: looking again' '$T/cf1.err' &&
	 grep -q 'deleted JAXJob team-a/cf1' '$T/cf1.err'"
expect '... two DELETEs reached the server, each with the uid and resourceVersion it was decided on' \
	"requests | python3 -c '
import json, sys
d = [e for e in json.load(sys.stdin) if e[\"method\"] == \"DELETE\" and e[\"path\"].endswith(\"/jaxjobs/cf1\")]
pre = [e.get(\"preconditions\") or {} for e in d]
ok = len(d) == 2 and all(p.get(\"uid\") and p.get(\"resourceVersion\") for p in pre) and \\
     pre[0][\"resourceVersion\"] != pre[1][\"resourceVersion\"]
sys.exit(0 if ok else print(d) or 1)'"

# Every DELETE of a job this suite's launches sent was conditional (the server's request log).
expect 'every DELETE of a job by the launch carried preconditions {uid, resourceVersion}' \
	"KS_MARK=0 requests | python3 -c '
import json, sys
d = [e for e in json.load(sys.stdin) if e[\"method\"] == \"DELETE\" and \"/jaxjobs/\" in e[\"path\"]
     and e[\"userAgent\"].startswith(\"jaxjob/\")]
bad = [e for e in d if not ((e.get(\"preconditions\") or {}).get(\"uid\") and (e.get(\"preconditions\") or {}).get(\"resourceVersion\"))]
sys.exit(0 if d and not bad else print(len(d), bad) or 1)'"
