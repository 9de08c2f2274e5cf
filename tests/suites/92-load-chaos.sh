#!/usr/bin/env bash
# Load and cancellation chaos, small versions of bench/load.sh and
# bench/chaos.sh (which run 100 launches and 200 SIGTERMs):
#   - 20 concurrent `jaxjob launch` processes against one test server: all
#     exit 0 with state Succeeded, jobs created == launches, every launch
#     printed its own workers' logs only;
#   - 20 launches each sent SIGTERM at a random moment of its life (before
#     the create, during it, while running, while finishing): afterwards no
#     job is left unfinished (the default --on-cancel=delete), and the
#     outputs agree with the exit code (5 = cancelled: job gone; 0 = it had
#     finished: Succeeded; 143 = the signal came before main() installed its
#     handler: no job).
. "$JAXJOB_TOP/tests/suites/90-reliability.lib"
ks_start
register_secrets
N=${LOAD_PROCS:-20}
C=${CHAOS_KILLS:-20}

# --- load ------------------------------------------------------------------------
ks_mark
for i in $(seq 1 "$N"); do
	d=$KEEP/load-$i
	mkdir -p "$d"
	launch --name "load-$i" --image x/jax:1 --workers 2 --env SIM_LINES=3 --timeout 120 \
		--out-state "$d/state" --out-exit-code "$d/exit-code" -- python t.py >"$d/stdout" 2>"$d/stderr" &
done
wait
bad=
for i in $(seq 1 "$N"); do
	d=$KEEP/load-$i
	[ "$(cat "$d/state" 2>/dev/null)" = Succeeded ] && [ "$(cat "$d/exit-code" 2>/dev/null)" = 0 ] ||
		bad="$bad load-$i($(cat "$d/state" 2>/dev/null))"
	[ "$(grep -c '^\[worker-[01]\] INFO:sim:worker [01] finished' "$d/stdout")" -eq 2 ] || bad="$bad load-$i(logs)"
	! grep -q "load-$((i % N + 1))-worker" "$d/stdout" || bad="$bad load-$i(foreign logs)"
done
created=$(posts)
if [ -z "$bad" ] && [ "$created" -eq "$N" ]; then
	ok "$N concurrent launches against one server: all Succeeded with exit 0, $created jobs created, each with its own workers' logs"
else
	not_ok "$N concurrent launches against one server: all Succeeded with exit 0, $N jobs created"
	echo "--- created $created;$bad" >&2
fi

# --- cancellation chaos ------------------------------------------------------------
ks_mark
for i in $(seq 1 "$C"); do
	d=$KEEP/chaos-$i
	mkdir -p "$d"
	(
		# the binary itself in the background (not the launch() function, whose
		# subshell would take the signal instead)
		"$JAXJOB" launch --kubeconfig "$KS/kubeconfig" --name "chaos-$i" --image x/jax:1 --workers 2 --env SIM_LINES=4 --env SIM_DURATION=2 \
			--timeout 120 --out-state "$d/state" --out-exit-code "$d/exit-code" -- python t.py \
			>"$d/stdout" 2>"$d/stderr" &
		pid=$!
		# a random moment in 0..3.5 s: the job lives ~2.5 s, deletion after
		sleep "$(awk -v s="$RANDOM" 'BEGIN { printf "%.3f", (s % 3500) / 1000 }')"	# sleep-ok: chaos: a random moment is the input under test
		kill -TERM "$pid" 2>/dev/null
		wait "$pid"
		echo $? >"$d/rc"
	) &
done
wait
bad= cancelled=0 finished=0 early=0
state_json=$(ctl GET /_test/state)
for i in $(seq 1 "$C"); do
	d=$KEEP/chaos-$i
	rc=$(cat "$d/rc")
	st=$(printf '%s' "$state_json" | python3 -c '
import json, sys
for j in json.load(sys.stdin)["jaxjobs"]:
    if j["name"] == sys.argv[1]:
        print(",".join(j["conditions"]) + (" deleting" if j["deleting"] else "")); break
else:
    print("absent")' "chaos-$i")
	out_state=$(cat "$d/state" 2>/dev/null)
	out_rc=$(cat "$d/exit-code" 2>/dev/null)
	case "$rc" in
	5)	cancelled=$((cancelled + 1))
		[ "$st" = absent ] || bad="$bad chaos-$i(cancelled but job $st)"
		[ "$out_state" = Cancelled ] && [ "$out_rc" = 5 ] || bad="$bad chaos-$i(outputs '$out_state' '$out_rc' for exit 5)" ;;
	0)	finished=$((finished + 1))
		case "$st" in *Succeeded*) ;; *) bad="$bad chaos-$i(exit 0 but job $st)" ;; esac
		[ "$out_state" = Succeeded ] && [ "$out_rc" = 0 ] || bad="$bad chaos-$i(outputs '$out_state' '$out_rc' for exit 0)" ;;
	143)	# killed before main() installed its handler: it cannot have created anything
		early=$((early + 1))
		[ "$st" = absent ] || bad="$bad chaos-$i(killed by the signal, but job $st)" ;;
	*)	bad="$bad chaos-$i(exit $rc)" ;;
	esac
done
if [ -z "$bad" ]; then
	ok "SIGTERM at $C random moments of a launch: no job left unfinished against --on-cancel=delete, outputs agree with the exit code ($cancelled cancelled, $finished had finished, $early killed before start-up)"
else
	not_ok "SIGTERM at $C random moments of a launch: no job left unfinished, outputs agree with the exit code"
	for i in $(seq 1 "$C"); do
		case "$bad" in *"chaos-$i("*) tail -n 4 "$KEEP/chaos-$i/stderr" | sed "s/^/chaos-$i: /" ;; esac
	done >&2
	echo "---$bad" >&2
fi
exit 0
