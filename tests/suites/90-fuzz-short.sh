#!/usr/bin/env bash
# A short libFuzzer run of every fuzz target (fuzz/README.md): builds them
# (make fuzz-build, clang -fsanitize=fuzzer,address,undefined), replays every
# input that once crashed (fuzz/regress/TARGET/), then fuzzes each target
# FUZZ_SHORT_SECONDS (default 6) from its seeds. One TAP line per target;
# SKIP when clang or libFuzzer is not installed. `make fuzz` is the long run.
set -u
top=$JAXJOB_TOP
secs=${FUZZ_SHORT_SECONDS:-6}
targets=()
for f in "$top"/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}; targets+=("${t%.c}")
done
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
