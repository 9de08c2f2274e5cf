#!/usr/bin/env bash
# 77-render-scale.sh - a repository of 10,000 jobs (RENDER_MAX_JOBS, the
# most render takes) renders completely, within a generous ceiling of CPU
# time and memory: a regression to per-job work that grows with the schema
# or keeps every tree (issue 26: 0.8 s became 12-20 s on the release build,
# 80 s and 616 MB under ASan) fails here, not in an Argo CD repo-server.
# CPU time (user + sys), not wall time: a loaded machine stretches the wall
# clock, not the work. The ceilings are bounds against that regression,
# never the quantity measured: the timings are bench/render.sh's
# (bench/README.md); the wall-clock limit only stops a hang.
# run-all: long
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
W=$T/scale
rm -rf "$W" && mkdir -p "$W/repo"
JOBS=10000
HANG_S=600
if ldd "$JAXJOB" 2>/dev/null | grep -q libasan; then
	CPU_S=30 CEIL_MB=2048	# sanitizer build: ~3.5 s CPU, ~600 MB (was ~80 s)
else
	CPU_S=5 CEIL_MB=300	# release: ~0.7 s CPU, ~75 MB (was 11-20 s, 140 MB)
fi

# the repository of bench/render.sh: 20 teams with defaults, concise jobs
printf 'image: ghcr.io/example/jax-train:2024.10\nrestart-policy: OnFailure\nlabels:\n  org: ml\n' \
	>"$W/repo/jaxjob-defaults.yaml"
for t in $(seq -w 1 20); do
	mkdir -p "$W/repo/team-$t"
	printf 'gpus-per-worker: 1\nmemory: 32Gi\nlabels:\n  team: team-%s\n' "$t" >"$W/repo/team-$t/jaxjob-defaults.yaml"
done
/usr/bin/python3 - "$W/repo" "$JOBS" <<'EOF'
import sys
repo, n = sys.argv[1], int(sys.argv[2])
for i in range(1, n + 1):
    with open("%s/team-%02d/job-%05d.jaxjob.yaml" % (repo, (i - 1) % 20 + 1, i), "w") as f:
        f.write("name: job-%05d\nworkers: %d\ncommand: [python, -m, train]\n"
                "args: [--seed=%d, --steps=10000]\nenv:\n  - name: RUN\n    value: \"%d\"\n"
                % (i, i % 8 + 1, i, i))
EOF

(cd "$W/repo" && exec env -i PATH="$PATH" ARGOCD_APP_NAMESPACE=training \
	ARGOCD_APP_REVISION=0123456789abcdef0123456789abcdef01234567 \
	/usr/bin/time -f '%e %U %S %M' -o "$W/time" timeout -s KILL $HANG_S "$JAXJOB" render) >"$W/out" 2>"$W/err"
rc=$?
read -r secs user sys kb < <(tail -n 1 "$W/time" 2>/dev/null) || true
case "$secs $user $sys $kb" in *[!0-9.\ ]*) secs=0 user=999 sys=0 kb=0 ;; esac
cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
expect "$JOBS jobs render (exit 0, nothing on stderr)" "[ $rc -eq 0 ] && [ ! -s '$W/err' ]"
expect "within ${CPU_S} s of CPU: took ${cpu} s (${secs} s wall)" "awk -v c=$cpu -v m=$CPU_S 'BEGIN { exit !(c <= m) }'"
expect "within ${CEIL_MB} MB: peaked at $((kb / 1024)) MB" "[ $kb -gt 0 ] && [ $kb -le $((CEIL_MB * 1024)) ]"
expect "every job is in the stream once, sorted by name" \
	"[ \$(grep -c '^kind: JAXJob$' '$W/out') -eq $JOBS ] &&
	 grep '^  name: job-' '$W/out' | sed 's/-[0-9a-f]*\$//' >'$W/names' && sort -c '$W/names' && [ \$(sort -u '$W/names' | wc -l) -eq $JOBS ]"
[ "$rc" -eq 0 ] || tail -n 5 "$W/err" >&2
