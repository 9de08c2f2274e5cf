#!/usr/bin/env bash
# tests/suites/85-readme-examples.sh - every runnable example in README.md runs.
#
# A block is runnable when it is fenced as ```sh. Each one runs as a bash
# script (set -euo pipefail) from the repository top, in a scratch HOME, with
# `jaxjob` on PATH being the binary under test ($JAXJOB); it passes when it
# exits 0. A block that needs what a test machine does not have (a real
# cluster, a container registry, an Argo CD) says so on the line right above
# its fence:
#
#   <!-- readme-test: skip needs a real cluster -->
#
# and is reported as SKIP with that reason, so the list of untested examples is
# visible in every test run. Blocks fenced otherwise (```yaml, ```console,
# ```text) are not commands and are not run.
#
# One exception, by necessity: `make check` runs this very suite, so inside a
# block it (and check-quick, check-long) is replaced by `make -n check` (the
# target exists and expands; the suites' recipe line is not run).
#
# Blocks run with KUBECONFIG pointing at a Kubernetes API test server started
# here (tests/kube-apiserver), so what needs "a cluster" but no real one runs.
# A test server that a block starts itself (`tests/kube-apiserver/start.sh
# DIR`) is stopped after the block, whatever happened.
#
# Troubleshooting entries are checked too: a comment
#
#   <!-- readme-test: error N: COMMAND -->
#
# right above a ```text block runs COMMAND (bash, from the top, same
# environment plus $KS, $KS_NOCRD: test servers with and without the JAXJob
# CRD and kubeconfigs $KS/kubeconfig-{noca,down,badtoken,nobody}; $EMPTY_DIR:
# an empty directory); it must exit N, and every line of the text block must
# equal a line of its stderr, where "…" in the README stands for any text.
#
# Finally every option that `jaxjob launch|render|health --help` prints must
# appear in README.md, so the flag reference cannot fall behind.
#
# The README runs `make rootfs`, as 80-rootfs.sh does: one at a time, not two
# makes compiling the same build tree at once.
# run-all: after 80-rootfs
. "$JAXJOB_TOP/tests/lib/tap.sh"
top=$JAXJOB_TOP
readme=$top/README.md

# Extract blocks into $T/blocks/NNN.sh, with a .skip file holding the reason
# and a .title file (the nearest heading above) for the test description.
mkdir -p "$T/blocks" "$T/bin" "$T/home"
python3 - "$readme" "$T/blocks" <<'EOF'
import re, sys
readme, out = sys.argv[1], sys.argv[2]
lines = open(readme, encoding="utf-8").read().split("\n")
heading, n, i = "top", 0, 0
while i < len(lines):
    line = lines[i]
    if line.startswith("#") and not line.startswith("#!"):
        heading = line.lstrip("#").strip()
    m = re.match(r"^```(\S*)\s*$", line)
    if not m:
        i += 1
        continue
    lang = m.group(1)
    j = i + 1
    while j < len(lines) and not lines[j].startswith("```"):
        j += 1
    prev = lines[i - 1].strip() if i > 0 else ""
    em = re.match(r"^<!--\s*readme-test:\s*error\s+(\d+):\s*(.*?)\s*-->$", prev)
    if em and lang == "text":
        n += 1
        base = f"{out}/{n:03d}"
        with open(base + ".errcmd", "w") as f:
            f.write(em.group(2) + "\n")
        with open(base + ".errcode", "w") as f:
            f.write(em.group(1))
        with open(base + ".expect", "w") as f:
            f.write("\n".join(lines[i + 1:j]) + "\n")
        with open(base + ".title", "w") as f:
            f.write(f"README line {i + 1} ({heading})")
    if lang == "sh":
        n += 1
        base = f"{out}/{n:03d}"
        with open(base + ".sh", "w") as f:
            f.write("\n".join(lines[i + 1:j]) + "\n")
        with open(base + ".title", "w") as f:
            f.write(f"README line {i + 1} ({heading})")
        prev = lines[i - 1].strip() if i > 0 else ""
        sm = re.match(r"^<!--\s*readme-test:\s*skip\s*(.*?)\s*-->$", prev)
        if sm:
            with open(base + ".skip", "w") as f:
                f.write(sm.group(1) or "marked skip")
    i = j + 1
EOF

ln -sf "$JAXJOB" "$T/bin/jaxjob"
real_make=$(command -v make)
cat >"$T/bin/make" <<EOF
#!/bin/sh
# make check (-quick, -long) would run the suites again: dry-run it instead.
for a in "\$@"; do case "\$a" in check|check-*) exec "$real_make" -n "\$@" >/dev/null ;; esac; done
exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$real_make" "\$@"
EOF
chmod +x "$T/bin/make"

# ---- test servers ----------------------------------------------------------
KS=$T/ks KS_NOCRD=$T/ks-nocrd EMPTY_DIR=$T/empty
export KS KS_NOCRD EMPTY_DIR
mkdir -p "$EMPTY_DIR"
servers=
if [ ! -x "$top/tests/kube-apiserver/start.sh" ]; then
	not_ok 'the Kubernetes API test server exists (tests/kube-apiserver/start.sh)'
elif "$top/tests/kube-apiserver/start.sh" "$KS" >"$T/ks.log" 2>&1 &&
	"$top/tests/kube-apiserver/start.sh" "$KS_NOCRD" --crds trainer.kubeflow.org >>"$T/ks.log" 2>&1; then
	servers=1
else
	not_ok 'the Kubernetes API test servers start'
	cat "$T/ks.log" >&2
fi
cleanup() {
	"$top/tests/kube-apiserver/stop.sh" "$KS" >/dev/null 2>&1
	"$top/tests/kube-apiserver/stop.sh" "$KS_NOCRD" >/dev/null 2>&1
}
trap cleanup EXIT
if [ -n "$servers" ]; then
	export KUBECONFIG=$KS/kubeconfig
	grep -v 'certificate-authority' "$KS/kubeconfig" >"$KS/kubeconfig-noca"
	sed 's|server: https://127.0.0.1:[0-9]*|server: https://127.0.0.1:1|' "$KS/kubeconfig" >"$KS/kubeconfig-down"
	sed 's|token: .*|token: expired-or-wrong|' "$KS/kubeconfig" >"$KS/kubeconfig-badtoken"
	sed "s|token: .*|token: $(cat "$KS/nobody.token")|" "$KS/kubeconfig" >"$KS/kubeconfig-nobody"
	# A job named "taken" that this step did not launch (troubleshooting #7).
	"$JAXJOB" launch --name taken --identity first-owner --image x/jax:1 --quiet -- python t.py >/dev/null 2>"$T/taken.err" ||
		{ echo "# could not create the job 'taken'" >&2; cat "$T/taken.err" >&2; }
	# and one left by an earlier local run (no identity)
	"$JAXJOB" launch --name earlier --image x/jax:1 --quiet -- python t.py >/dev/null 2>"$T/earlier.err" ||
		{ echo "# could not create the job 'earlier'" >&2; cat "$T/earlier.err" >&2; }
fi

count=0
for b in "$T"/blocks/*.sh; do
	[ -e "$b" ] || break
	count=$((count + 1))
	title=$(cat "${b%.sh}.title")
	if [ -e "${b%.sh}.skip" ]; then
		skip "$title runs" "$(cat "${b%.sh}.skip")"
		continue
	fi
	if [ -z "$servers" ] && grep -q 'jaxjob launch' "$b" && ! grep -q -- '--dry-run' "$b"; then
		skip "$title runs" 'needs the Kubernetes API test server (tests/kube-apiserver)'
		continue
	fi
	if (cd "$top" && HOME=$T/home PATH=$T/bin:$PATH timeout 600 bash -euo pipefail "$b") \
		>"$T/block.out" 2>"$T/block.err"; then
		ok "$title runs"
	else
		not_ok "$title runs"
		{ echo "--- $title"; sed 's/^/| /' "$b"; tail -n 20 "$T/block.out"; tail -n 20 "$T/block.err"; } >&2
	fi
	# servers the block started (and maybe did not stop, having failed)
	for d in $(grep -o 'tests/kube-apiserver/start.sh [^ ;&|]*' "$b" | awk '{print $2}'); do
		(cd "$top" && eval "tests/kube-apiserver/stop.sh $d" >/dev/null 2>&1)
	done
done

# ---- troubleshooting entries -----------------------------------------------
errors=0
for c in "$T"/blocks/*.errcmd; do
	[ -e "$c" ] || break
	errors=$((errors + 1))
	base=${c%.errcmd}
	title=$(cat "$base.title")
	want=$(cat "$base.errcode")
	if [ -z "$servers" ] && grep -q '\$KS\|jaxjob launch --name' "$c"; then
		skip "$title: error text and exit $want" 'needs the Kubernetes API test server'
		continue
	fi
	(cd "$top" && HOME=$T/home PATH=$T/bin:$PATH timeout 120 bash "$c") >"$T/e.out" 2>"$T/e.err"
	rc=$?
	if [ "$rc" -eq "$want" ] && python3 - "$base.expect" "$T/e.err" <<'EOF'
import re, sys
want = [l for l in open(sys.argv[1]).read().split("\n") if l.strip()]
have = open(sys.argv[2]).read().split("\n")
for w in want:
    rx = "^" + ".*".join(re.escape(p) for p in w.split("\u2026")) + "$"
    if not any(re.match(rx, h) for h in have):
        sys.exit("no stderr line matches: " + w)
EOF
	then
		ok "$title: error text and exit $want as documented"
	else
		not_ok "$title: error text and exit $want as documented (got exit $rc)"
		{ echo "--- $title"; cat "$c" "$base.expect"; echo "stderr:"; head -n 20 "$T/e.err"; } >&2
	fi
done
expect 'README.md documents at least ten errors with their texts' '[ "$errors" -ge 10 ]'

# ---- every option is in the README --------------------------------------------
for role in launch render health; do
	"$JAXJOB" "$role" --help 2>&1 | grep -oE '(^|[ ,[])--[a-z][a-z0-9-]*' | sed 's/^[ ,[]//' |
		grep -vx -- '--opt\|--help' | sort -u >"$T/flags.$role"
	expect "every option of jaxjob $role --help ($(wc -l <"$T/flags.$role")) is in README.md" \
		'[ -s "$T/flags.'"$role"'" ] && missing=$(while read -r f; do grep -q -- "\`$f\`" "$readme" || echo "$f"; done <"$T/flags.'"$role"'") && [ -z "$missing" ] || { echo "missing: $missing"; false; }'
done
expect 'README.md has runnable examples' '[ "$count" -gt 0 ]'
