#!/usr/bin/env bash
# tests/suites/62-launch-errors.sh - what `jaxjob launch` says when the
# cluster side goes wrong in the ways a new user meets first, word for word
# and with the exit code: a server that is not there (a bounded wait with
# progress lines, then one line naming the server and the likely cause, in
# about 10 s), a name taken by an earlier local run (what to do about it),
# a namespace that does not exist (where the name came from), a timeout
# (its words once). And the README's launch command can run twice.
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start
kc=$KS/kubeconfig
ctx=$(sed -n 's/^current-context: *//p' "$kc")

# --- a server that is not there: one first contact, one window ----------------------
sed 's|server: https://127.0.0.1:[0-9]*|server: https://127.0.0.1:1|' "$kc" >"$T/kc-down"
start=$(date +%s%N)
"$JAXJOB" launch --kubeconfig "$T/kc-down" --name mnist --image x/jax:1 -- python t.py >"$T/down.out" 2>"$T/down.err" &
pid=$!
# the wait as stderr shows it: from its first line to its error line (the
# process's own start and end, slow on a loaded machine, are not the wait)
wait_until -t 60 grep -q 'connecting to' "$T/down.err"
first=$(date +%s%N)
kill -0 "$pid" 2>/dev/null && running=1 || running=0
wait_until -t 60 grep -q '^error:' "$T/down.err"
last=$(date +%s%N)
wait "$pid"
rc=$? wall_ms=$(( ($(date +%s%N) - start) / 1000000 )) wait_ms=$(( (last - first) / 1000000 ))
expect 'an unreachable server: exit 4, nothing on stdout' "[ $rc -eq 4 ] && [ ! -s '$T/down.out' ]"
expect 'the first line says where it connects, while the launch still waits for the server' \
	"[ $running -eq 1 ] && head -n 1 '$T/down.err' | grep -Eq '^jaxjob: [0-9:]+ \\(\\+[0-9.]+s\\) connecting to https://127\\.0\\.0\\.1:1 \\(context $ctx of $T/kc-down\\)\$'"
expect 'while it retries it says what it waits for: waiting for the API server at URL (attempt N, next in N s)' \
	"grep -Eq '^jaxjob: [0-9:]+ \\(\\+[0-9.]+s\\) waiting for the API server at https://127\\.0\\.0\\.1:1 \\(attempt [0-9]+, next in [0-9]+ s\\)\$' '$T/down.err'"
want="error: cannot reach the API server at https://127.0.0.1:1 (connection refused or no route): is the cluster running, and is context \"$ctx\" of $T/kc-down the one you meant? (gave up after N attempts in S s)"
expect 'then one line naming the server and the likely cause, and nothing else' \
	'[ "$(grep -v "waiting for the API server\|connecting to" "$T/down.err" | sed -E "s/after [0-9]+ attempts( by [0-9]+ requests)? in [0-9.]+ s/after N attempts in S s/")" = "$want" ]'
# One window for every step before the create (the rules review, the access
# reviews, the create): the attempts are counted across them - the numbers
# the progress lines say never start again - and the final count has them all.
attempts=$(sed -n 's/.*(attempt \([0-9]*\),.*/\1/p' "$T/down.err")
total=$(sed -n 's/.*gave up after \([0-9]*\) attempts\( by [0-9]* requests\)\{0,1\} in [0-9.]* s.*/\1/p' "$T/down.err")
requests=$(sed -n 's/.*gave up after [0-9]* attempts by \([0-9]*\) requests in [0-9.]* s.*/\1/p' "$T/down.err")
expect 'one window: the attempts said count on across the steps, and the final message counts them all' \
	'[ -n "$total" ] && [ -n "$attempts" ] && [ "$attempts" = "$(echo "$attempts" | sort -n)" ] &&
	 [ "$total" -ge "$(echo "$attempts" | tail -n 1)" ]'
expect "... and names the requests they were of, fewer than the attempts (${requests:-none} of ${total:-?})" \
	'[ -n "$requests" ] && [ "$requests" -ge 2 ] && [ "$requests" -lt "$total" ]'
said=$(sed -n 's/.*gave up after [0-9]* attempts.* in \([0-9]*\)\.\([0-9]\) s.*/\1\2/p' "$T/down.err")
expect "the seconds the message says are the whole wait's: ${said:-?}00 ms said, ${wait_ms} ms from the first line to the error (within 1 s; ${wall_ms} ms the whole process)" \
	'[ -n "$said" ] && [ $(( 10#$said * 100 - wait_ms )) -le 1000 ] && [ $(( wait_ms - 10#$said * 100 )) -le 1000 ] &&
	 [ $(( 10#$said * 100 )) -le "$wall_ms" ]'
expect "... and that wait is one window (10 s), not one per step (the rules review, the access reviews and the create had 5 + 5 + 10 s)" \
	'[ -n "$said" ] && [ $(( 10#$said * 100 )) -le 11000 ]'

# --- the README's launch command runs twice (its --identity re-attaches) ----------------
readme_cmd=$(sed -n '/^jaxjob launch --name mnist --identity/,/-- python train.py$/p' "$JAXJOB_TOP/README.md" | tr -d '\\\n')
expect "the README's launch command is there (with --identity)" '[ -n "$readme_cmd" ]'
mkdir -p "$T/readme" "$T/bin" && ln -sf "$JAXJOB" "$T/bin/jaxjob"
run_readme() { (demo=$T/readme PATH=$T/bin:$PATH KUBECONFIG=$kc eval "$readme_cmd"); }
expect "the README's launch command succeeds" 'run_readme >"$T/r1.out" 2>"$T/r1.err" && [ "$(cat "$T/readme/state")" = Succeeded ]'
expect '... and again, re-attaching to the job it created instead of failing' \
	'run_readme >"$T/r2.out" 2>"$T/r2.err" && grep -q "re-attached to JAXJob" "$T/r2.err"'

for api in auto trainjob; do
	start=$(date +%s)
	"$JAXJOB" launch --kubeconfig "$T/kc-down" --api $api --name mnist --image x/jax:1 -- python t.py >"$T/down-$api.out" 2>"$T/down-$api.err"
	rc=$? took=$(( $(date +%s) - start ))
	expect "--api $api against an unreachable server: the questions before the create wait as briefly, exit 4 within 25 s" \
		"[ $rc -eq 4 ] && [ $took -le 25 ] && [ \"\$(grep -c '^error: cannot reach the API server at https://127.0.0.1:1 ' '$T/down-$api.err')\" -eq 1 ] &&
		 ! grep -q '^warning' '$T/down-$api.err'"
done

# --- a name taken by an earlier local run -------------------------------------------
expect_run 0 'a local run creates local1' first launch --name local1 --image x/jax:1 --env SIM_DURATION=0.2 -- python t.py
expect_run 4 'the same command again: exit 4' second launch --name local1 --image x/jax:1 -- python t.py
want='error: JAXJob team-a/local1 already exists, left by an earlier local run (local runs are never re-attached): delete it with `kubectl delete jaxjobs.kubeflow.org local1 -n team-a`, choose another --name, or give every run the same --identity'
expect '... saying what to do: the kubectl delete command, another --name, or --identity' \
	'[ "$(grep "^error:" "$T/second.err")" = "$want" ] && [ "$(grep -c "^error:" "$T/second.err")" -eq 1 ]'

# --- a namespace that does not exist ---------------------------------------------------
expect_run 4 '-n with a namespace that does not exist: exit 4' ns1 \
	launch -n no-such-ns --name mnist --image x/jax:1 -- python t.py
want='error: namespace "no-such-ns" does not exist (it is the one -n/--namespace gave): create it, or pass an existing one with -n'
expect '... naming -n as where it came from' '[ "$(grep -v " connecting to https://" "$T/ns1.err")" = "$want" ]'
sed 's/namespace: team-a/namespace: gone-ns/' "$kc" >"$T/kc-ns"
expect_run 4 "the kubeconfig context's namespace does not exist: exit 4" ns2 \
	"$JAXJOB" launch --kubeconfig "$T/kc-ns" --name mnist --image x/jax:1 -- python t.py
want="error: namespace \"gone-ns\" does not exist (it is the namespace of context \"$ctx\" in $T/kc-ns, or the template's): create it, or pass an existing one with -n"
expect '... naming the kubeconfig context as where it came from' '[ "$(grep -v " connecting to https://" "$T/ns2.err")" = "$want" ]'

# --- a timeout says Timeout once ---------------------------------------------------------
expect_run 3 '--timeout reached: exit 3' tmo launch --name slow --image x/jax:1 --timeout 1s \
	--env SIM_HANG=1 -- python t.py
expect '... and the last line says Timeout once' \
	'tail -n 1 "$T/tmo.err" | grep -Eq "^jaxjob: .* Timeout: --timeout of 1s reached while the job was [A-Za-z]+ \(exit 3\)$" &&
	 ! grep -q "Timeout: Timeout" "$T/tmo.err"'
