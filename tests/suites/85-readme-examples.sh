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
# block it is replaced by `make -n check` (the target exists and expands).
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
# make check would run this suite again: dry-run it instead.
for a in "\$@"; do [ "\$a" = check ] && exec "$real_make" -n "\$@" >/dev/null; done
exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$real_make" "\$@"
EOF
chmod +x "$T/bin/make"

count=0
for b in "$T"/blocks/*.sh; do
	[ -e "$b" ] || break
	count=$((count + 1))
	title=$(cat "${b%.sh}.title")
	if [ -e "${b%.sh}.skip" ]; then
		skip "$title runs" "$(cat "${b%.sh}.skip")"
		continue
	fi
	if (cd "$top" && HOME=$T/home PATH=$T/bin:$PATH timeout 600 bash -euo pipefail "$b") \
		>"$T/block.out" 2>"$T/block.err"; then
		ok "$title runs"
	else
		not_ok "$title runs"
		{ echo "--- $title"; sed 's/^/| /' "$b"; tail -n 20 "$T/block.out"; tail -n 20 "$T/block.err"; } >&2
	fi
done
expect 'README.md has runnable examples' '[ "$count" -gt 0 ]'
