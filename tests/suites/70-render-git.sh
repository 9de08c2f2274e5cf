#!/usr/bin/env bash
# 70-render-git.sh - `jaxjob render --repo/--revision/--diff` against a real
# repository built here with git: commits, a branch, tags, a revision where
# a job changed and one where a job was removed. What --revision reads from
# Git objects must equal what the sidecar renders from a checkout of the
# same commit, byte for byte.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
. "$JAXJOB_TOP/tests/render/lib.sh"
# libgit2 1.5 leaks pcre2 match data while fetching (file:// clones): not ours
export LSAN_OPTIONS="suppressions=$JAXJOB_TOP/tests/render/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

W=$T/git
rm -rf "$W"
R=$W/repo
mkdir -p "$R/apps/train" "$R/apps/other"
job() { printf 'name: %s\nworkers: %s\ncommand: [python, %s.py]\n' "$1" "$2" "$1"; }
printf 'image: ghcr.io/example/jax:1\nrestart-policy: OnFailure\n' >"$R/apps/train/jaxjob-defaults.yaml"
job a 1 >"$R/apps/train/a.jaxjob.yaml"
job b 2 >"$R/apps/train/b.jaxjob.yaml"
job c 3 >"$R/apps/train/c.jaxjob.yaml"
printf 'name: z\nimage: x:1\n' >"$R/apps/other/z.jaxjob.yaml"
g() { fixed_git "$R" "$@" >/dev/null; }
g init -q -b main . && g add -A && g commit -q -m v1 && g tag v1
g checkout -q -b feature && job b 5 >"$R/apps/train/b.jaxjob.yaml" && g commit -q -am feature
g checkout -q main
job a 4 >"$R/apps/train/a.jaxjob.yaml" && echo notes >"$R/README" && g add -A && g commit -q -m v2 && g tag v2
g rm -q apps/train/c.jaxjob.yaml && job d 1 >"$R/apps/train/d.jaxjob.yaml" && g add -A && g commit -q -m v3 && g tag v3
printf '# reviewed\n' >>"$R/apps/train/b.jaxjob.yaml" && g commit -q -am v4 && g tag v4
g checkout -q -b evil v4 && ln -s /etc/passwd "$R/apps/train/evil.jaxjob.yaml" && g add -A && g commit -q -m evil
g checkout -q main
g tag -a v3-annotated -m 'release v3' v3
sha() { git -C "$R" rev-parse "$1"; }

# sidecar_at REV: what the sidecar renders from `git archive REV` (no .git)
sidecar_at() {
	rm -rf "$W/x" && mkdir -p "$W/x"
	git -C "$R" archive "$1" | tar -x -C "$W/x"
	cmp_render "$W/x/apps/train" ARGOCD_APP_NAMESPACE=ml ARGOCD_APP_SOURCE_PATH=apps/train \
		ARGOCD_APP_REVISION="$(sha "$1")" --
	cp "$T/out" "$W/sidecar.yaml"
}

for rev in v1 v3 feature "$(sha v2)" main~1; do
	sidecar_at "$rev"
	cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision "$rev" --path apps/train
	[ "$rc" -eq 0 ] && [ -s "$T/out" ] && cmp -s "$T/out" "$W/sidecar.yaml" &&
		grep -Eq "source-revision: \"?$(sha "$rev")" "$T/out"
	report "--revision $rev reads Git objects and renders what the sidecar renders from that commit" $?
done

cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision v3-annotated --path apps/train
cp "$T/out" "$W/annotated.yaml"
cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision v3 --path apps/train
[ -s "$T/out" ] && cmp -s "$T/out" "$W/annotated.yaml"
report 'an annotated tag renders its commit' $?

cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision v2 --path apps/train
grep -q 'name: c-' "$T/out"
report 'a job exists at the revision before its removal' $?
cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision v3 --path apps/train
! grep -q 'name: c-' "$T/out" && grep -q 'name: d-' "$T/out"
report 'and is gone at the revision that removed it' $?

cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision feature --path apps/train
cp "$T/out" "$W/local.yaml"
cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "file://$R" --revision feature --path apps/train
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$W/local.yaml"
report 'a file:// URL is cloned and renders the same bytes as the local path' $?
[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'jaxjob-clone.*' -newer "$W/local.yaml" 2>/dev/null)" ]
report 'the temporary clone is removed afterwards' $?
cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo="$R" --revision=feature --path=apps/train
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$W/local.yaml"
report '--repo=PATH --revision=REV --path=DIR read as --repo PATH ... (one dialect with launch, health)' $?

# the whole repository (no --path): both apps
cmp_render "$W" -- --repo "$R" --revision v1
[ "$rc" -eq 0 ] && [ "$(grep -c '^kind: JAXJob$' "$T/out")" -eq 4 ]
report 'without --path the whole repository is the app' $?

# --- the sidecar with .git and no ARGOCD_APP_REVISION ------------------------
rm -rf "$W/clone" && git clone -q "$R" "$W/clone" && git -C "$W/clone" checkout -q v2
cmp_render "$W/clone/apps/train" ARGOCD_APP_NAMESPACE=ml ARGOCD_APP_SOURCE_PATH=apps/train --
cp "$T/out" "$W/clone.yaml"
cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --revision v2 --path apps/train
cmp -s "$T/out" "$W/clone.yaml"
report 'a checkout with .git renders with HEAD as revision, equal to --revision' $?

# --- --diff ---------------------------------------------------------------------
diff_of() { cmp_render "$W" ARGOCD_APP_NAMESPACE=ml -- --repo "$R" --diff "$1" "$2" --path apps/train; }
diff_of v1 v2
[ "$rc" -eq 0 ] && grep -Eq '^rerun +ml/a-[0-9a-f]{8} -> a-[0-9a-f]{8} \(apps/train/a.jaxjob.yaml\)$' "$T/out" &&
	tail -n 1 "$T/out" | grep -qx '0 created, 1 re-run, 0 updated in place, 0 pruned, 2 unchanged' &&
	[ "$(wc -l <"$T/out")" -eq 2 ]
report '--diff v1 v2: the changed job is re-run under a new name, the others unchanged' $?
diff_of v2 v3
grep -Eq '^create +ml/d-[0-9a-f]{8} \(apps/train/d.jaxjob.yaml\)$' "$T/out" &&
	grep -Eq '^prune +ml/c-[0-9a-f]{8} \(apps/train/c.jaxjob.yaml\)$' "$T/out" &&
	tail -n 1 "$T/out" | grep -qx '1 created, 0 re-run, 0 updated in place, 1 pruned, 2 unchanged'
report '--diff v2 v3: the removed job is pruned, the new one created' $?
diff_of v3 v4
tail -n 1 "$T/out" | grep -qx '0 created, 0 re-run, 0 updated in place, 0 pruned, 3 unchanged'
report '--diff v3 v4: a comment-only change re-runs nothing' $?
diff_of main feature
grep -Eq '^rerun +ml/a-.*' "$T/out" && grep -Eq '^rerun +ml/b-.*' "$T/out" &&
	grep -Eq '^create +ml/c-' "$T/out" && grep -Eq '^prune +ml/d-' "$T/out"
report '--diff between a branch and main' $?

# --- refusals -----------------------------------------------------------------------
cmp_render "$W" -- --repo "$R" --revision evil --path apps/train
one_error && grep -q "'apps/train/evil.jaxjob.yaml' is a symbolic link that leaves the repository" "$T/err"
report 'a committed symlink to /etc/passwd is refused when reading Git objects' $?
cmp_render "$W" -- --repo "$R" --revision no-such-tag
one_error && grep -q "revision 'no-such-tag' not found" "$T/err"
report 'an unknown revision is one clean error' $?
cmp_render "$W" -- --repo "$R" --revision v1 --path ../outside
one_error && grep -q -- "--path: path '../outside' leaves the repository" "$T/err"
report '--path cannot leave the repository' $?
cmp_render "$W" -- --repo "$R" --revision v1 --path apps/missing
[ "$rc" -ne 0 ] && [ ! -s "$T/out" ] && grep -q "directory 'apps/missing' does not exist" "$T/err"
report '--path naming no directory is an error' $?
cmp_render "$W" -- --repo "$W/not-a-repo" --revision v1
[ "$rc" -ne 0 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]
report 'a --repo that is not a repository is one clean error' $?

# --- http clone with credentials from GIT_ASKPASS (Argo CD's provideGitCreds) ---
git clone -q --bare "$R" "$W/srv/jobs.git"
python3 "$JAXJOB_TOP/tests/render/git_http_server.py" "$W/srv" robot 's3cret-Pa55' "$W/port" "$W/http.log" &
SERVER=$!
wait_until test -s "$W/port"
URL="http://127.0.0.1:$(cat "$W/port" 2>/dev/null)/jobs.git"
# an askpass program the way Argo CD's works: one prompt in argv[1], the answer on stdout
cat >"$W/askpass" <<'EOS'
#!/bin/sh
echo "$1 nonce=$ARGOCD_GIT_ASKPASS_NONCE binary=$ARGOCD_BINARY_NAME" >>"${ASKPASS_LOG:?}"
case "$1" in
Username*) echo robot ;;
Password*) echo "${ASKPASS_PASSWORD:-s3cret-Pa55}" ;;
*) exit 1 ;;
esac
EOS
chmod +x "$W/askpass"
ASK=(GIT_ASKPASS="$W/askpass" ARGOCD_GIT_ASKPASS_NONCE=4f1c-nonce GIT_TERMINAL_PROMPT=0
	ARGOCD_BINARY_NAME=argocd-git-ask-pass ASKPASS_LOG="$W/ask.log")
cmp_render "$W" ARGOCD_APP_NAMESPACE=ml "${ASK[@]}" -- --repo "$URL" --revision feature --path apps/train
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$W/local.yaml" && grep -q '^GET /jobs.git/info/refs robot 200$' "$W/http.log"
report 'an http clone asks GIT_ASKPASS for credentials and renders the same bytes' $?
grep -q "^Username for 'http://127.0.0.1:[0-9]*/jobs.git': *nonce=4f1c-nonce binary=argocd-git-ask-pass$" "$W/ask.log" &&
	grep -q "^Password for 'http://" "$W/ask.log"
report 'askpass gets git-style prompts and the ARGOCD_GIT_ASKPASS_NONCE environment' $?
cmp_render "$W" "${ASK[@]}" ASKPASS_PASSWORD=wrong -- --repo "$URL" --revision feature
[ "$rc" -eq 3 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	grep -q "^error: cannot clone $URL" "$T/err" && ! grep -q 'wrong\|s3cret' "$T/err" &&
	grep -q 'robot(wrong-password) 401' "$W/http.log"
report 'refused credentials: one line, exit 3, no password in the message, no retry loop' $?
[ "$(grep -c 'wrong-password' "$W/http.log")" -le 2 ]
report 'refused credentials are not retried over and over' $?
cmp_render "$W" -- --repo "$URL" --revision feature
[ "$rc" -eq 3 ] && [ ! -s "$T/out" ] && grep -q '^error: cannot clone .*GIT_ASKPASS is not set; set provideGitCreds' "$T/err"
report 'without GIT_ASKPASS a protected repository is a clean error' $?
kill "$SERVER" 2>/dev/null
wait "$SERVER" 2>/dev/null

exit 0
