#!/usr/bin/env bash
# tests/suites/14-stack-steps.sh - a failing step stops its part, in stack/up.sh and stack/build.sh.
#
# Both scripts run each part apart from themselves and test how it ended. Run as a subshell
# inside `if ! ( set -e ... )`, bash ignores set -e there (a condition's context), so a
# failing step went by and the part's last command decided: a part half up was "up", a build
# missing files was renamed into the cache as done. Each part now runs as a bash process of
# its own. No control plane and no Go: fake parts (STACK_PARTS_DIR) and a fake `go` that
# answers `go mod download -json` with a module tree made here.
. "$JAXJOB_TOP/tests/lib/tap.sh"
S=$JAXJOB_TOP/stack

# ---- up.sh: parts from a folder of our own -------------------------------------------------
mkdir -p "$T/parts"
cat >"$T/parts/good.sh" <<'SH'
# a part that sees lib.sh's pins and up.sh's helpers
part_up() { stack_env GOOD_PIN "$KUBERNETES_VERSION"; }
SH
cat >"$T/parts/bad.sh" <<'SH'
bad_step() { false; }
part_up() {
  bad_step
  touch "$STACK_RUN/after-the-failing-step"
}
SH
up() { STACK_CP_SLOT=held STACK_PARTS_DIR=$T/parts "$S/up.sh" "$@"; }
expect 'up.sh: a part runs with lib.sh'"'"'s pins and the helpers; up.sh prints DIR/env' '
	out=$(up "$T/ok" good 2>"$T/ok.err") && test "$out" = "$T/ok/env" &&
	(. "$T/ok/env" && . "$S/versions.env" && test "$GOOD_PIN" = "$KUBERNETES_VERSION")'
expect 'up.sh: a failing step inside a part stops the part; up.sh says so and exits non-zero' '
	! up "$T/bad" good bad 2>"$T/bad.err" && test ! -e "$T/bad/after-the-failing-step" &&
	grep -q "^up.sh: part bad failed; stopping what was started" "$T/bad.err"'

# ---- build.sh: the crds part from a fake module tree -------------------------------------------
mkdir -p "$T/bin"
cat >"$T/bin/go" <<'SH'
#!/bin/sh
# the go commands stack/build.sh's crds part runs: every module is $FAKE_MOD
case "$1 $2" in
"mod download") printf '{\n\t"Path": "%s",\n\t"Dir": "%s",\n}\n' "$4" "$FAKE_MOD" ;;
"version "*) echo "go version go0.0-fake linux/amd64" ;;
*) echo "fake go: $*" >&2; exit 1 ;;
esac
SH
chmod +x "$T/bin/go"
m=$T/mod
for d in manifests/base/crds manifests/base/webhook manifests/base/runtimes config/components/crd/bases \
	config/components/webhook config/components/visibility config/components/manager; do
	mkdir -p "$m/$d" && echo "kind: X" >"$m/$d/x.yaml"
done
for f in kubeflow.org_jaxjobs trainer.kubeflow.org_trainjobs; do echo "kind: CustomResourceDefinition" >"$m/manifests/base/crds/$f.yaml"; done
build() { # CACHE MODULE-DIR
	JAXJOB_CACHE=$1 FAKE_MOD=$2 PATH=$T/bin:$PATH "$S/build.sh" crds
}
crds_dir() { (JAXJOB_CACHE=$1 && . "$S/lib.sh" && echo "$STACK_CRDS_DIR"); }
expect 'build.sh crds: built from the modules into the cache (the builder sees lib.sh'"'"'s pins)' '
	build "$T/c1" "$m" >"$T/b1.out" 2>&1 && d=$(crds_dir "$T/c1") &&
	test -f "$d/trainer-runtimes/x.yaml" && test -f "$d/jobset/x.yaml" && test -f "$d/BUILD_INFO"'
# a module without the runtimes: the copy fails midway, the later steps succeed
cp -a "$m" "$T/mod2" && rm -r "$T/mod2/manifests/base/runtimes"
expect 'build.sh crds: a failing step midway fails the part; nothing is renamed into the cache' '
	! build "$T/c2" "$T/mod2" >"$T/b2.out" 2>&1 && d=$(crds_dir "$T/c2") && test ! -e "$d" &&
	grep -q "build failed" "$T/b2.out" && ! ls -d "$d".tmp.* >/dev/null 2>&1'
