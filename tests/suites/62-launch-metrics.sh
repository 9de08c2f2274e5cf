#!/usr/bin/env bash
# Training metrics from the workers' logs (issue 16): the simulated workers print
# real-shaped training logs (tests/metrics/mklogs.py: CLU under absl, JSON lines with
# NaN/Infinity, Flax's MNIST epochs, an Optax-style loop, free-form lines for
# --metric), with noise lines full of numbers that are not metrics; jaxjob's
# metrics JSON, CSV, chart, report, progress line and KFP executor output are
# checked against what the logs printed (tests/metrics/check.py).
. "$JAXJOB_TOP/tests/suites/60-launch.lib"
ks_start

L=$T/logs
O=$T/outputs
BAD="$T/bad-outputs"	# the bad runs must not write here
CHECK="python3 $JAXJOB_TOP/tests/metrics/check.py"
python3 "$JAXJOB_TOP/tests/metrics/mklogs.py" "$L"

# mouts DIR: every metrics output under DIR
mouts() {
	printf -- '--out-metrics=%s/metrics.json --out-metrics-csv=%s/series.csv ' "$1" "$1"
	printf -- '--out-metrics-chart=%s/chart.svg --out-metrics-report=%s/report.md ' "$1" "$1"
	printf -- '--out-summary=%s/summary.md' "$1"
}

# ---- CLU under absl logging, 2 workers, progress lines ------------------------------
# shellcheck disable=SC2046
expect_run 0 'a 2-worker job printing CLU-shaped metrics (600 steps, noise) succeeds' clu \
	launch --name clu --image x/jax:1 --workers 2 --env SIM_LOG_FILE="$L/clu.log" \
	--env SIM_DURATION=3 --progress-every 0.5s --metrics-points 100 $(mouts "$O/clu") -- python train.py
expect '... the log lines are not altered: worker 0'"'"'s lines are the file, byte for byte (+ the sim'"'"'s own)' '
	grep "^\[worker-0\] " "$T/clu.out" | sed "s/^\[worker-0\] //" | grep -v "^INFO:sim:" >"$T/clu.w0" &&
	cmp "$T/clu.w0" "$L/clu.log"'
expect '... metrics JSON: last, min, max and their steps as printed (the spike at step 300 is the max)' \
	"$CHECK json $O/clu/metrics.json $L/clu.expect.json"
expect '... CSV: 100 rows per metric, each a printed point, first, last and the spike kept (LTTB)' \
	"$CHECK csv $O/clu/series.csv $L/clu.expect.json 100"
expect '... SVG: well-formed, self-contained, one panel per metric with the CSV'"'"'s points, axes cover the data' \
	"$CHECK svg $O/clu/chart.svg $O/clu/series.csv"
expect '... the chart says the job and its outcome' '
	grep -q "JAXJob team-a/clu" "$O/clu/chart.svg" && grep -q "class=\"ok title\"[^>]*>Succeeded<" "$O/clu/chart.svg"'
expect '... progress lines on stderr: step, values, steps/s, at a bounded rate, and a last one' '
	n=$(grep -c "training: step [0-9]*, train_loss [0-9.e-]*, learning_rate [0-9.e-]*" "$T/clu.err") &&
	test "$n" -ge 2 && test "$n" -le 10 &&
	grep -q "training: step [0-9]*,.* steps/s" "$T/clu.err" &&
	grep -q "training: reached step 600, train_loss 0.1069 (min 0.1069 at step 600)" "$T/clu.err"'
expect '... stdout holds only worker lines; every stderr line is a whole jaxjob line' '
	! grep -v "^\[worker-[01]\] " "$T/clu.out" && ! grep -v "^jaxjob: " "$T/clu.err"'
expect '... the summary has the metrics table; the report embeds the chart as an SVG data: image' '
	grep -q "^| train_loss | 0.106895 (step 600) | 0.106895 (step 600) | 4 (step 300) |$" "$O/clu/summary.md" &&
	python3 - "$O/clu/report.md" <<PY
import base64, re, sys, xml.etree.ElementTree as ET
md = open(sys.argv[1]).read()
assert md.startswith("### JAXJob team-a/clu: Succeeded"), md[:80]
m = re.search(r"!\[training metrics\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", md)
assert m, "no embedded chart"
root = ET.fromstring(base64.b64decode(m.group(1)))
assert root.tag.endswith("svg")
assert len(md) < 400000, "KFP renders at most 400,000 characters of Markdown"
PY'

# ---- the same lines again give the same bytes -------------------------------------------
# shellcheck disable=SC2046
expect_run 0 'the same log again (another job) succeeds' clu2 \
	launch --name clu2 --image x/jax:1 --workers 2 --env SIM_LOG_FILE="$L/clu.log" --delete-after always \
	--env SIM_DURATION=1 --progress-every 0 --metrics-points 100 $(mouts "$O/clu2") -- python train.py
expect '... identical chart and CSV bytes for identical lines (other timing; the title names the job)' '
	sed "s|team-a/clu2|team-a/clu|" "$O/clu2/chart.svg" | cmp "$O/clu/chart.svg" - &&
	cmp "$O/clu/series.csv" "$O/clu2/series.csv"'
expect '... --progress-every 0: no training progress lines' '! grep -q "training:" "$T/clu2.err"'

# ---- a restarted worker repeats steps -------------------------------------------------------
# shellcheck disable=SC2046
expect_run 0 'a worker that crashes halfway and restarts (OnFailure) repeats its steps: still exits 0' rs \
	launch --name rs --image x/jax:1 --workers 1 --restart-policy OnFailure --env SIM_RESTART=1 \
	--env SIM_LOG_FILE="$L/clu.log" --env SIM_DURATION=2 --metrics-points 100 $(mouts "$O/rs") -- python train.py
expect '... the series restarted at the repeated step: one rewind, the values as last printed' \
	"$CHECK json $O/rs/metrics.json $L/clu.expect.json 1 && $CHECK csv $O/rs/series.csv $L/clu.expect.json 100"

# ---- JSON lines with NaN and Infinity ------------------------------------------------------
# shellcheck disable=SC2046
expect_run 0 'JSON-lines metrics with a NaN and a final Infinity' js \
	launch --name js --image x/jax:1 --env SIM_LOG_FILE="$L/jsonl.log" --metrics-points 50 \
	$(mouts "$O/js") -- python train.py
expect '... counted as nonfinite, Infinity is the last loss, min/max and the CSV are finite' \
	"$CHECK json $O/js/metrics.json $L/jsonl.expect.json && $CHECK csv $O/js/series.csv $L/jsonl.expect.json 50 &&
	 $CHECK svg $O/js/chart.svg $O/js/series.csv && grep -q '\"last\": \"Infinity\"' $O/js/metrics.json"

# ---- Flax epochs, 4 metrics ---------------------------------------------------------------
# shellcheck disable=SC2046
expect_run 0 'Flax MNIST-style epoch lines' fx \
	launch --name fx --image x/jax:1 --env SIM_LOG_FILE="$L/flax.log" $(mouts "$O/fx") -- python main.py
expect '... x is the epoch; four metrics, four panels; "11.06 MiB" is no metric' \
	"$CHECK json $O/fx/metrics.json $L/flax.expect.json && $CHECK csv $O/fx/series.csv $L/flax.expect.json 300 &&
	 $CHECK svg $O/fx/chart.svg $O/fx/series.csv && grep -q '>epoch</text>' $O/fx/chart.svg"

# ---- every worker: a series per worker, totals from the log ------------------------------
# shellcheck disable=SC2046
expect_run 0 '--metrics-from all: "Step [s/1000]" lines of 2 workers' ox \
	launch --name ox --image x/jax:1 --workers 2 --env 'SIM_LOG_FILE='"$L"'/optax{worker}.log' \
	--metrics-from all --progress-every 0.2s $(mouts "$O/ox") -- python train.py
expect '... Loss@0 and Loss@1 hold each worker'"'"'s values; the total 1000 comes from the log' "
	python3 - $O/ox/metrics.json $L/optax0.expect.json $L/optax1.expect.json <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
for w, path in ((0, sys.argv[2]), (1, sys.argv[3])):
    pts = json.load(open(path))['series']['Loss']
    m = got['metrics'][f'Loss@{w}']
    assert m['last'] == pts[-1][1] and m['count'] == len(pts), (w, m)
assert got['step']['total'] == 1000, got['step']
PY"
expect '... the progress line shows the total, the percentage and an ETA' '
	grep -q "training: step [0-9]*/1000 ([0-9]*%)" "$T/ox.err" &&
	grep -q "training: reached step 1000/1000 (100%)" "$T/ox.err"'

# ---- user patterns, the step named by the user --------------------------------------------
# shellcheck disable=SC2046
expect_run 0 '--metrics patterns with --metric NAME=REGEX and a step pattern' cu \
	launch --name cu --image x/jax:1 --env SIM_LOG_FILE="$L/custom.log" --metrics patterns \
	--metric 'val_ppl=perplexity is ([0-9.]+)' --metric 'step=^update ([0-9]+):' \
	$(mouts "$O/cu") -- python train.py
expect '... the pattern'"'"'s metric over the pattern'"'"'s steps, nothing else' \
	"$CHECK json $O/cu/metrics.json $L/custom.expect.json && $CHECK csv $O/cu/series.csv $L/custom.expect.json 300"

# ---- several patterns in one value, as the component's metric_patterns passes them ---------
# (one argv element, one NAME=REGEX per line, indented as in a triple-quoted string)
python3 - "$L/llm.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for s in range(10, 101, 10):
        mfu = f"mfu: {40 + s / 10:.1f}" if s % 20 else f"MFU {40 + s / 10:.1f}%"
        f.write(f"step {s} loss={2 - s / 100:.2f} | {1000 + s} tokens/s | {mfu} | port 8476\n")
PY
PATS=$'\n    tokens_per_s=([0-9.]+) tokens/s\n\n    mfu=mfu: ([0-9.]+)\n    mfu=MFU ([0-9.]+)%\n'
# shellcheck disable=SC2046
expect_run 0 'one --metric value with three lines (tokens_per_s, and mfu in two shapes) next to the built-in shapes' llm \
	launch --name llm --image x/jax:1 --env SIM_LOG_FILE="$L/llm.log" --metric "$PATS" \
	$(mouts "$O/llm") -- python train.py
expect '... both user metrics in the metrics JSON, over the log'"'"'s steps; mfu from both shapes; loss still built in' "
	python3 - $O/llm/metrics.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))['metrics']
assert sorted(m) == ['loss', 'mfu', 'tokens_per_s'], sorted(m)
t, u = m['tokens_per_s'], m['mfu']
assert (t['count'], t['last'], t['last_step'], t['min'], t['min_step']) == (10, 1100, 100, 1010, 10), t
assert (u['count'], u['last'], u['min'], u['max'], u['max_step']) == (10, 50.0, 41.0, 50.0, 100), u
assert m['loss']['last'] == 1.0, m['loss']
PY"
expect_fail_clean 'a multi-line --metric value with a bad line: one error line, exit 2' \
	launch --name b2 --image x/jax:1 --metric $'tokens_per_s=([0-9.]+) tokens/s\nmfu=(mfu) ([0-9.]+)' \
	--out-metrics "$BAD/m.json" -- python t.py
expect '... it names the flag, the line, the metric and the fix' '
	launch --name b2 --image x/jax:1 --metric $'"'"'tokens_per_s=([0-9.]+) tokens/s\nmfu=(mfu) ([0-9.]+)'"'"' -- python t.py 2>&1 |
	grep -qxF "error: --metric line 2 (mfu): the regex needs exactly one capture group (the number), it has 2; use (...) once, e.g. '"'"'loss ([0-9.eE+-]+)'"'"'"'
expect_fail_clean 'several bad lines: still one error line, the first explained, the others listed' \
	launch --name b2 --image x/jax:1 --metric $'x=(\nok=ok ([0-9]+)\nnope\n9x=(1)' -- python t.py
expect '... "lines 3, 4 are bad too"' '
	launch --name b2 --image x/jax:1 --metric $'"'"'x=(\nok=ok ([0-9]+)\nnope\n9x=(1)'"'"' -- python t.py 2>&1 | grep -q "; lines 3, 4 are bad too$"'

# ---- KFP: scalars into the executor output for system.Metrics outputs ----------------------
EI=$(python3 -c '
import json, sys
d = sys.argv[1]
print(json.dumps({"inputs": {"parameterValues": {"name": "kf"}}, "outputs": {
    "outputFile": d + "/kfp_outputs/output_metadata.json",
    "artifacts": {
        "metrics": {"artifacts": [{"name": "metrics", "uri": "minio://b/r/metrics",
                                   "type": {"schemaTitle": "system.Metrics", "schemaVersion": "0.0.1"}}]},
        "metrics_report": {"artifacts": [{"name": "metrics_report", "uri": "minio://b/r/report",
                                          "type": {"schemaTitle": "system.Markdown"}}]}},
    "parameters": {"state": {"outputFile": d + "/state"}}}}))' "$O/kf")
expect_run 0 '--kfp-executor-input: KFP'"'"'s {{$}} is accepted' kf \
	launch --name kf --image x/jax:1 --env SIM_LOG_FILE="$L/jsonl.log" --kfp-executor-input "$EI" \
	--out-metrics "$O/kf/metrics" -- python train.py
expect '... the executor output gives the system.Metrics artifact (only) its scalars as metadata' "
	python3 - $O/kf/kfp_outputs/output_metadata.json $L/jsonl.expect.json <<'PY'
import json, sys
eo = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))['series']
assert list(eo) == ['artifacts'], eo
assert list(eo['artifacts']) == ['metrics'], eo['artifacts'].keys()
a = eo['artifacts']['metrics']['artifacts'][0]
assert a['name'] == 'metrics' and a['uri'] == 'minio://b/r/metrics'
md = a['metadata']
assert md['accuracy'] == want['accuracy'][-1][1], md
assert md['loss.min'] == min(v for _, v in want['loss']) and md['loss.max'] == max(v for _, v in want['loss']), md
assert 'loss' not in md, 'a non-finite last value is left out (JSON has no Infinity)'
assert md['step'] == 2000 and md['steps_per_s'] > 0
PY"

# ---- --metrics none, and bad input ---------------------------------------------------------
# shellcheck disable=SC2046
expect_run 0 '--metrics none: no metrics read' no \
	launch --name no --image x/jax:1 --env SIM_LOG_FILE="$L/clu.log" --metrics none $(mouts "$O/no") -- python t.py
expect '... no progress line; the outputs exist and say "no metrics" (KFP and Argo need the files)' '
	! grep -q "training:" "$T/no.err" &&
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j[\"metrics\"]=={} and j[\"step\"][\"last\"] is None" "$O/no/metrics.json" &&
	test "$(cat "$O/no/series.csv")" = "metric,step,value" &&
	grep -q "no metrics were recognised" "$O/no/chart.svg"'

expect_fail_clean 'a --metric regex that does not compile: one error line, exit 2' \
	launch --name b1 --image x/jax:1 --metric 'loss=([0-9' --out-metrics "$BAD/m.json" -- python t.py
expect_fail_clean 'a --metric without exactly one capture group' \
	launch --name b1 --image x/jax:1 --metric 'loss=loss ([0-9]+) ([0-9]+)' -- python t.py
expect_fail_clean 'a --metric without NAME=' launch --name b1 --image x/jax:1 --metric '([0-9]+)' -- python t.py
expect_fail_clean '--metrics patterns without a --metric' launch --name b1 --image x/jax:1 --metrics patterns -- python t.py
expect_fail_clean '--metrics-from all with --logs first' \
	launch --name b1 --image x/jax:1 --metrics-from all --logs first -- python t.py
expect_fail_clean '--metrics-points out of range' launch --name b1 --image x/jax:1 --metrics-points 5 -- python t.py
expect_fail_clean '--total-steps that is not a number' launch --name b1 --image x/jax:1 --total-steps 1e3 -- python t.py
expect_fail_clean '--kfp-executor-input that is not the executor input' \
	launch --name b1 --image x/jax:1 --kfp-executor-input '{"outputs": {}}' -- python t.py
expect '... nothing was created and no output written by the bad runs' \
	'test "$(job_state b1)" = absent && test "$(job_state b2)" = absent && test ! -e "$BAD"'
expect 'the error names the flag and the fix' '
	launch --name b1 --image x/jax:1 --metric "loss=a(b)(c)" -- python t.py 2>&1 | grep -q "^error: --metric loss: the regex needs exactly one capture group"'
