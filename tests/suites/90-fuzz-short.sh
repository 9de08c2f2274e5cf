#!/usr/bin/env bash
# The fuzz targets (fuzz/README.md) in `make check`: every committed seed
# (fuzz/corpus/TARGET/) and every input that once crashed
# (fuzz/regress/TARGET/) replayed through the sanitizer build, the targets
# linked with fuzz/replay_main.c instead of libFuzzer ($JAXJOB_BUILD/fuzz-replay,
# built by `make unit`): seconds, no second build tree. One TAP line per target.
#
# With JAXJOB_LONG=1 (`make check-long`) it also fuzzes: builds the libFuzzer
# targets (make fuzz-build, clang), and runs each for FUZZ_RUNS inputs
# (default 6,000, fixed seed: reproducible) capped at FUZZ_SHORT_SECONDS
# (default 6); SKIP, saying why, without clang or libFuzzer. `make fuzz` is
# the long exploration.
set -u
top=$JAXJOB_TOP
targets=()
for f in "$top"/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}; targets+=("${t%.c}")
done

# --- replay: seeds and regressions, sanitizer build ---------------------------------
case "$JAXJOB_BUILD" in */asan) build_cmd='make SAN=1 unit' ;; *) build_cmd='make unit' ;; esac
for t in "${targets[@]}"; do
	bin=$JAXJOB_BUILD/fuzz-replay/fuzz_$t
	if [ ! -x "$bin" ] || [ "$top/fuzz/fuzz_$t.c" -nt "$bin" ]; then
		echo "not ok - fuzz $t: replay binary missing or stale ($bin; run \`$build_cmd\`)"
		continue
	fi
	dirs=()
	for d in "$top/fuzz/corpus/$t" "$top/fuzz/regress/$t"; do [ -d "$d" ] && dirs+=("$d"); done
	if [ ${#dirs[@]} -eq 0 ]; then
		echo "not ok - fuzz $t: no seeds in fuzz/corpus/$t"
		continue
	fi
	if out=$("$bin" "${dirs[@]}" 2>"$JAXJOB_TMP/fuzz-replay-$t.err"); then
		echo "ok - fuzz $t: $out (seeds and regression inputs) replayed under ASan+UBSan"
	else
		echo "not ok - fuzz $t: an input broke a contract or the sanitizer (the last one named below)"
		tail -n 30 "$JAXJOB_TMP/fuzz-replay-$t.err" >&2
	fi
done

# --- fuzzing, in make check-long -----------------------------------------------------
if [ -z "${JAXJOB_LONG:-}" ]; then
	echo "ok - libFuzzer run of every target # SKIP long: make check-long (or make fuzz) runs it"
	exit 0
fi
secs=${FUZZ_SHORT_SECONDS:-6}
skip_all() {
	for t in "${targets[@]}"; do echo "ok - fuzz $t # SKIP $1"; done
	exit 0
}
command -v clang >/dev/null 2>&1 || skip_all "clang is not installed"
probe=$JAXJOB_TMP/fuzz-probe
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
clang -fsanitize=fuzzer -o "$probe" "$probe.c" >/dev/null 2>&1 || skip_all "clang cannot link libFuzzer (libfuzzer-14-dev)"
if ! make -C "$top" -j2 fuzz-build >"$JAXJOB_TMP/fuzz-build.log" 2>&1; then
	tail -n 30 "$JAXJOB_TMP/fuzz-build.log" >&2
	for t in "${targets[@]}"; do echo "not ok - fuzz $t: make fuzz-build failed"; done
	exit 0
fi
# Reproducible in CI: a fixed seed and a fixed number of inputs per target
# (the time is only a cap); `make fuzz` explores at random for longer.
FUZZ_SEED=${FUZZ_SEED:-1} FUZZ_RUNS=${FUZZ_RUNS:-6000} \
	"$top/fuzz/run.sh" --tap -t "$secs" "${targets[@]}"
exit 0
