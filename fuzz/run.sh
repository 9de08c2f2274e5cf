#!/usr/bin/env bash
# fuzz/run.sh [-t SECONDS] [--tap] [TARGET...] - run the libFuzzer targets
# built by `make fuzz-build` (build/fuzz/fuzz_TARGET), one after the other.
#
# For each target: first every input under fuzz/regress/TARGET/ is replayed
# once (inputs that once crashed: they must pass now), then the fuzzer runs
# SECONDS (default 60) from the committed seeds fuzz/corpus/TARGET/, seeds
# generated from ../shared when present (fuzz/seeds.py --shared), and its
# own growing corpus build/fuzz/corpus/TARGET/ (kept between runs).
# Crashes are saved as build/fuzz/crashes/TARGET/crash-*; turn each into a
# file under fuzz/regress/TARGET/ once fixed.
#
# Output: one line per target, "TARGET: N execs in S s, C crashes, R
# regressions replayed", or with --tap "ok - ..." / "not ok - ...".
# Figures are appended to build/fuzz/stats.tsv (read by
# scripts/reliability-report.sh). Exit status 1 if anything crashed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
fb=$top/build/fuzz
secs=60 tap=0
while [ $# -gt 0 ]; do
	case $1 in
	-t) secs=$2; shift 2 ;;
	--tap) tap=1; shift ;;
	*) break ;;
	esac
done
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$top"/fuzz/fuzz_*.c; do
		t=${f##*/fuzz_}; targets+=("${t%.c}")
	done
fi
shared=${JAXJOB_SHARED:-}
[ -z "$shared" ] && [ -d "$top/../shared/reference" ] && shared=$(cd "$top/../shared" && pwd)
if [ -n "$shared" ] && [ ! -d "$fb/seeds-shared" ]; then
	python3 "$top/fuzz/seeds.py" "$fb/seeds-shared.tmp" --shared "$shared" >/dev/null 2>&1 &&
		mv "$fb/seeds-shared.tmp" "$fb/seeds-shared"
fi
rc=0
for t in "${targets[@]}"; do
	bin=$fb/fuzz_$t
	if [ ! -x "$bin" ]; then
		[ "$tap" = 1 ] && echo "not ok - fuzz $t: $bin is not built (make fuzz-build)" || echo "$t: not built"
		rc=1
		continue
	fi
	mkdir -p "$fb/corpus/$t" "$fb/crashes/$t" "$fb/logs"
	log=$fb/logs/$t.log
	# 1. regressions
	nreg=0 regfail=
	if [ -d "$top/fuzz/regress/$t" ]; then
		for f in "$top/fuzz/regress/$t"/*; do
			[ -f "$f" ] || continue
			nreg=$((nreg + 1))
			if ! "$bin" "$f" >"$fb/logs/$t.regress.log" 2>&1 </dev/null; then
				regfail="$regfail ${f##*/}"
			fi
		done
	fi
	# 2. fuzzing
	dirs=("$fb/corpus/$t" "$top/fuzz/corpus/$t")
	[ -d "$fb/seeds-shared/$t" ] && dirs+=("$fb/seeds-shared/$t")
	before=$(ls "$fb/crashes/$t" | wc -l)
	start=$(date +%s)
	# FUZZ_SEED/FUZZ_RUNS make a run reproducible (make check's short run uses
	# them: the same inputs on every machine); unset, libFuzzer explores at random.
	extra=()
	[ -n "${FUZZ_SEED:-}" ] && extra+=(-seed="$FUZZ_SEED")
	[ -n "${FUZZ_RUNS:-}" ] && extra+=(-runs="$FUZZ_RUNS")
	"$bin" "${extra[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$fb/crashes/$t/" "${dirs[@]}" \
		>"$log" 2>&1 </dev/null
	frc=$?
	took=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	execs=${execs:-0}
	crashes=$(( $(ls "$fb/crashes/$t" | wc -l) - before ))
	[ "$frc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$took" "$execs" "$crashes" "$nreg" \
		>>"$fb/stats.tsv"
	what="fuzz $t: $execs execs in ${took}s, $crashes crashes, $nreg regression inputs replayed"
	if [ "$crashes" -ne 0 ] || [ -n "$regfail" ]; then
		rc=1
		[ -n "$regfail" ] && what="$what; regressions FAILING:$regfail"
		if [ "$tap" = 1 ]; then
			echo "not ok - $what"
			{ echo "--- $what (log: $log)"; grep -E 'contract broken|ERROR:|SUMMARY|^    #[0-9] ' "$log" | head -n 30;
			  [ -n "$regfail" ] && tail -n 30 "$fb/logs/$t.regress.log"; } >&2
		else
			echo "$what (see $log, crashes in $fb/crashes/$t/)"
		fi
	else
		[ "$tap" = 1 ] && echo "ok - $what" || echo "$what"
	fi
done
exit $rc
