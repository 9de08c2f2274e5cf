#!/usr/bin/env bash
# scripts/reliability-report.sh - measure, then write docs/reliability.md.
#
# Runs (on this machine, now): every fuzz target FUZZ_SECONDS (default 60),
# the fault matrix and the small load/chaos suites against the sanitizer
# build, bench/load.sh (100 launches) and bench/chaos.sh (200 SIGTERMs) on
# the release build, the security suite, and - when VALGRIND=1 - `make
# check-valgrind` (slow: ~30 min); otherwise the last valgrind summary
# (build/vg/vg-summary.txt) is reported with its date. Then writes the
# figures to docs/reliability.md (or $1). Takes ~15 min with the defaults;
# FUZZ_SECONDS=10 for a quick pass; REPORT_ONLY=1 rewrites the document
# from the last measurements (build/reliability/) without measuring.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=${1:-docs/reliability.md}
fs=${FUZZ_SECONDS:-60}
r=build/reliability
log() { echo "reliability-report: $*" >&2; }
if [ "${REPORT_ONLY:-0}" != 1 ]; then
rm -rf "$r"
mkdir -p "$r"

log "building (release, sanitizer, fuzz)"
make -j2 all >"$r/build.log" 2>&1 && make -j2 SAN=1 all unit >>"$r/build.log" 2>&1 &&
	make -j2 fuzz-build >>"$r/build.log" 2>&1 || { tail -n 20 "$r/build.log" >&2; exit 1; }

log "fuzzing ${fs}s per target"
fuzz_start=$(wc -l <build/fuzz/stats.tsv 2>/dev/null || echo 0)
fuzz/run.sh -t "$fs" >"$r/fuzz.txt" 2>&1
tail -n +"$((fuzz_start + 1))" build/fuzz/stats.tsv >"$r/fuzz.tsv"

log "fault matrix, load/chaos and security suites (sanitizer build)"
for s in 92-fault 92-load 95-security; do
	JAXJOB=$top/build/asan/jaxjob JAXJOB_BUILD=$top/build/asan tests/run-all.sh "$s" >"$r/$s.txt" 2>&1
done

log "bench/load.sh 100 and bench/chaos.sh 200 (release build)"
bench/load.sh 100 >"$r/load.txt" 2>&1
cp build/bench/load.json "$r/load.json" 2>/dev/null
bench/chaos.sh 200 >"$r/chaos.txt" 2>&1
cp build/bench/chaos.json "$r/chaos.json" 2>/dev/null

if [ "${VALGRIND:-0}" = 1 ]; then
	log "make check-valgrind"
	make check-valgrind >"$r/valgrind.txt" 2>&1
fi
fi	# REPORT_ONLY

python3 - "$r" "$out" "$fs" <<'PY'
import datetime, json, os, platform, re, subprocess, sys
r, out, fs = sys.argv[1], sys.argv[2], sys.argv[3]

def read(p, default=''):
    try:
        return open(p).read()
    except OSError:
        return default

now = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')
rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
cpus = os.cpu_count()
md = []
md.append('# Reliability figures\n')
md.append(f'Produced by `scripts/reliability-report.sh` on {now}, commit `{rev}`, {cpus} CPUs '
          f'({platform.machine()}, shared with other work: wall times are indicative only). '
          'Regenerate with `scripts/reliability-report.sh` (`FUZZ_SECONDS=600` for a longer fuzz run, '
          '`VALGRIND=1` to include `make check-valgrind`).\n')

# --- fuzzing
md.append('## Fuzzing (libFuzzer + ASan + UBSan)\n')
md.append(f'Each target ran {fs} s in this run; "all runs" adds every run recorded in '
          '`build/fuzz/stats.tsv` on this machine (`make fuzz`, the short runs of `make check`). '
          'Targets and their contracts: `fuzz/README.md`.\n')
md.append('| target | execs (this run) | crashes (this run) | execs (all runs) | crashes (all runs) | regression inputs |')
md.append('|---|---:|---:|---:|---:|---:|')
this = {}
for line in read(f'{r}/fuzz.tsv').splitlines():
    f = line.split('\t')
    if len(f) >= 6:
        this[f[1]] = (int(f[3]), int(f[4]), int(f[5]))
allr = {}
for line in read('build/fuzz/stats.tsv').splitlines():
    f = line.split('\t')
    if len(f) >= 6:
        e, c = allr.get(f[1], (0, 0))
        allr[f[1]] = (e + int(f[3]), c + int(f[4]))
tot = [0, 0, 0, 0]
for t in sorted(set(this) | set(allr)):
    e, c, n = this.get(t, (0, 0, 0))
    ae, ac = allr.get(t, (0, 0))
    tot = [tot[0] + e, tot[1] + c, tot[2] + ae, tot[3] + ac]
    md.append(f'| {t} | {e:,} | {c} | {ae:,} | {ac} | {n} |')
md.append(f'| **total** | **{tot[0]:,}** | **{tot[1]}** | **{tot[2]:,}** | **{tot[3]}** | |\n')
md.append('Crashes found while writing the targets, each kept as a regression input in '
          '`fuzz/regress/` and replayed on every run (details in `fuzz/README.md`): a Status with an '
          'empty `message` gave an empty `error: ` line (lib/kube/kube_status.c, fixed); three harness '
          'findings (cJSON_Compare cost on deep trees, chunking oracle after a stream abort, '
          'integers above 2^53 round-tripping within 1 ulp).\n')

# --- fault matrix
md.append('## Fault matrix (`tests/suites/92-fault-matrix.sh`)\n')
fm = read(f'{r}/92-fault.txt')
cells_bad = re.findall(r'^not ok - fault cell (\S+): (.*)$', fm, re.M)
m = re.search(r'^# 92-fault-matrix.sh: (\d+) passed, (\d+) failed', fm, re.M)
passed, failed = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
md.append(f'**{passed} of {passed + failed} cells passed** (sanitizer build). Each cell checks the exit '
          'code, the state and exit code written to the outputs, exactly one job created, the job '
          'deleted or kept per policy, and (where logs are part of the cell) every worker\'s log '
          'complete with no line twice.\n')
if cells_bad:
    md.append('| failed cell | expected |')
    md.append('|---|---|')
    for c, d in cells_bad:
        md.append(f'| {c} | {d} |')
    md.append('')
    det = re.findall(r'^# --- (\S+?):(.*)$', fm, re.M)
    for c, why in det:
        md.append(f'- `{c}`: {why.strip()}')
    md.append('')
md.append('Cells: watch cut after 2 events; 410 Gone on 3 watches; a burst of 6 HTTP 500; 3 HTTP 503 '
          'on the create itself; 4 x 429 with Retry-After; API server down 5 s mid-run '
          '(FAULT_DOWN_SECONDS, the issue says 30 s); token rotated mid-run (tokenFile re-read); slow '
          'logs (300 ms/line); a 10 MB log line (cut at 16 KiB, marked); 1,000 workers (`--logs first`); '
          '1,000 workers of 0.5 s with every log (3,000 lines); '
          'a failing worker under a dropped watch; TLS certificate changed mid-run (fail closed: no '
          'request gets through; exit 4 at once, not retried; the job is left as is, and it says so).\n')

# --- load
md.append('## Load (`bench/load.sh 100`, release build)\n')
lj = json.loads(read(f'{r}/load.json', '{}') or '{}')
if lj:
    md.append(f"- {lj['launches']} concurrent `jaxjob launch` processes against one test server: "
              f"**{lj['succeeded']} Succeeded**, **jobs created {lj['jobs_created']}** "
              f"(deleted {lj['jobs_deleted']}, `--delete-after always`).")
    md.append(f"- Peak RSS per process: min {lj['rss_mb']['min']} MB, **median {lj['rss_mb']['median']} MB**, "
              f"max {lj['rss_mb']['max']} MB.")
    md.append(f"- API requests: {lj['requests']} ({lj['requests_per_launch']} per launch: create, "
              'list+watch of job, pods and events, 2 log follows, delete).')
    md.append(f"- Wall time per process: median {lj['wall_s']['median']} s, max {lj['wall_s']['max']} s; "
              f"all {lj['launches']} done in {lj['total_s']} s (the Python test server is the bottleneck).")
    if lj.get('wrong'):
        md.append(f"- Wrong endings: {', '.join(lj['wrong'])}")
md.append('')
lc = read(f'{r}/92-load.txt')
m = re.search(r'^# 92-load-chaos.sh: (\d+) passed, (\d+) failed', lc, re.M)
if m:
    md.append(f'The small variants in `make check` (`tests/suites/92-load-chaos.sh`: 20 launches, 20 '
              f'SIGTERMs, sanitizer build): {m.group(1)} passed, {m.group(2)} failed in this run.\n')

# --- chaos
md.append('## Cancellation chaos (`bench/chaos.sh 200`, release build)\n')
cj = json.loads(read(f'{r}/chaos.json', '{}') or '{}')
if cj:
    md.append(f"SIGTERM at {cj['sigterms']} random moments of a launch's life (40% in the first 0.3 s: "
              'start-up and the create request; the rest over the whole 3.5 s life incl. deletion):\n')
    md.append('| outcome | launches |')
    md.append('|---|---:|')
    md.append(f"| cancelled, job deleted (`--on-cancel=delete`), outputs Cancelled/5 | {cj['cancelled']} |")
    md.append(f"| had already finished: Succeeded/0, job kept (`--delete-after never`) | {cj['finished']} |")
    md.append(f"| killed before `main()` installed its handler (exit 143), no job | {cj['killed_before_start']} |")
    md.append(f"| **violations** (job left running, outputs disagreeing) | **{cj['violations']}** |\n")
    for v in cj.get('violation_list', []):
        md.append(f"- `{v['launch']}` (SIGTERM after {v['sigterm_after_s']} s): {v['why']}")
    md.append('')

# --- security
md.append('## Security (`tests/suites/95-security.sh`, `tests/suites/99-secrets.sh`)\n')
sc = read(f'{r}/95-security.txt')
m = re.search(r'^# 95-security.sh: (\d+) passed, (\d+) failed', sc, re.M)
if m:
    md.append(f'{m.group(1)} passed, {m.group(2)} failed: TLS fails closed with a wrong CA whatever the '
              'environment says (CURL_CA_BUNDLE, SSL_CERT_FILE/DIR, JAXJOB_INSECURE and 9 other '
              'variables, a .curlrc, KUBECONFIG); only `--insecure-skip-tls-verify` gets through, with a '
              'warning; render reads nothing through symlinks, `../` or absolute paths out of the '
              'repository; injection strings through every string parameter of `launch --dry-run` are '
              'refused cleanly or land verbatim in one value, with the manifest\'s key set unchanged; '
              'the image\'s final stage runs as a numeric non-root USER. `99-secrets.sh` runs last in '
              '`make check` and greps every suite\'s stdout/stderr and every kept launch output for '
              'the test server\'s tokens and client key/certificate lines.\n')

# --- valgrind
md.append('## Memory safety\n')
md.append('`make check` runs every suite against the ASan+UBSan build with leak detection. '
          '`make check-valgrind` runs the unit tests and the CLI suites under valgrind memcheck '
          '(`--leak-check=full`, definite and indirect leaks are errors, third-party suppressions '
          'only: `tests/valgrind/jaxjob.supp`).\n')
vs = read('build/vg/vg-summary.txt').strip()
if vs:
    md.append(f'Last `make check-valgrind`: {vs}\n')
else:
    md.append('No `make check-valgrind` summary on this machine yet.\n')
md.append('## Open findings (reported to the owners; see the issue)\n')
md.append('Found by these tests and benches, not fixed by the reliability work (each is in another '
          'module); the figures above include their effects when they occurred:\n')
md.append('Fixed since (each with a regression test; the figures above may predate the fix):\n')
md.append('- ~~**Logs lost after an outage**~~ (92-fault-matrix `server-down`): after the terminal '
          'event the step now waits until every worker\'s log has ended, at most `--log-drain` '
          '(default 30 s, cut short by SIGTERM), and names the workers whose log is still '
          'incomplete in one warning. Test: 60-launch-faults `ld1`/`ld2` (a worker log in 503 '
          'backoff when the job finishes).')
md.append('- ~~**Logs of fast workers at scale**~~: a worker already exited when first seen gets '
          'its log read once (no follow); at most 64 log streams at once, the rest queued (exited '
          'ones first). 1,000 workers of 0.5 s: 3,000 of 3,000 lines. Test: 92-fault-matrix '
          '`workers-1000-fast`.')
md.append('- ~~**SIGTERM during the create**~~: kube_loop_stop() (ends a wait) and '
          'kube_loop_cancel_call() (cancels the blocking call in flight) are separate and neither '
          'outlives its call, so the cleanup DELETE goes out; a create whose answer was lost is looked '
          'up by name/identity and adopted. Test: 50-kube-client "a stop or cancel never outlives '
          'its call or wait"; bench/chaos.sh.')
md.append('- ~~**A changed server certificate mid-run**~~: TLS verification failures are final in '
          'calls, watches and log follows: exit 4 at once, "the job is left as is". Test: '
          '92-fault-matrix `tls-changed` (now exit 4).\n')
md.append('Still open:\n')
md.append('- **Test server under chaos** (intermittent, 2 of ~8 runs): for the last batch of launches, '
          'foreground deletions stop completing (jobs keep their deletionTimestamp > 30 s); launch warns '
          '"deletion not confirmed within 30s" and exits 5. `CHAOS_KEEP=1 bench/chaos.sh` keeps '
          'server.log for the next occurrence.')
md.append('- **valgrind**: the one memcheck report of the last run is an invalid read in '
          'render_params.c apply_one_param (`j->api->kind` with `j->api` NULL) reached from '
          'tests/unit/test_render_params.c, whose hand-built plain job has no API descriptor '
          '(render_repo.c always sets one).\n')
os.makedirs(os.path.dirname(out) or '.', exist_ok=True)
open(out, 'w').write('\n'.join(md))
print(f'wrote {out}')
PY
