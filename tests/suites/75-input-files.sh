#!/usr/bin/env bash
# 75-input-files.sh - every file a command reads goes through the one reader
# (buf_read_file, lib/buf.h; gitsrc_read for a repository): only a regular
# file is read, a FIFO is refused without waiting for a writer, a socket or
# a directory is named for what it is, and the size limit is named (issue
# 26). Each FIFO case runs under `timeout`: a regression fails here, it
# cannot hang the run. The limit is a generous ceiling, not the quantity
# under test; the event waited for is the command's exit.
set -u
. "$JAXJOB_TOP/tests/lib/tap.sh"
PY=/usr/bin/python3
W=$T/inputs
rm -rf "$W" && mkdir -p "$W"
CEIL=60	# seconds: a hang would be a FIFO opened for blocking reads

mkfifo "$W/fifo"

# refused CODE DESCRIPTION PATTERN CMD...: exit CODE, one error line matching
# PATTERN (ERE), nothing on stdout, well before the ceiling
refused() {
	local code=$1 desc=$2 pat=$3
	shift 3
	timeout -s KILL $CEIL "$@" >"$W/out" 2>"$W/err" </dev/null
	local rc=$? lines
	# the first contact's progress line ("connecting to SERVER (context X of FILE)") may
	# come before a refusal that needs the server's credentials: it is not the error
	lines=$(grep -v ' connecting to https://' "$W/err" | grep -vc '^warning: ')
	if [ "$rc" -eq "$code" ] && [ ! -s "$W/out" ] && [ "$lines" -eq 1 ] &&
		grep -v '^warning: ' "$W/err" | grep -Eq -- "^error: $pat"; then
		ok "$desc"
	else
		not_ok "$desc"
		{ echo "--- $desc: rc=$rc (137 = killed at the ${CEIL}s ceiling) stdout=$(wc -c <"$W/out")B"; cat "$W/err"; } >&2
	fi
}

FIFO_IS="$W/fifo is a FIFO \(named pipe\), not a regular file; give a regular file$"

# --- launch: template, patch, kubeconfig and the files it names --------------------
refused 2 'launch --template FIFO: refused at once, named' "template: $FIFO_IS" \
	"$JAXJOB" launch --dry-run --name x --image i:1 --template "$W/fifo"
refused 2 'launch --template DIRECTORY: named a directory' "template: $W is a directory, not a regular file" \
	"$JAXJOB" launch --dry-run --name x --image i:1 --template "$W"
refused 2 'launch --patch @FIFO: refused at once, named' "--patch: $FIFO_IS" \
	"$JAXJOB" launch --dry-run --name x --image i:1 --patch "@$W/fifo"
refused 4 'launch --kubeconfig FIFO: refused at once, named' "kubeconfig: $FIFO_IS" \
	"$JAXJOB" launch --kubeconfig "$W/fifo" --name x --image i:1
refused 4 'KUBECONFIG=FIFO: refused (present, not skipped as a missing file is)' "kubeconfig: $FIFO_IS" \
	env KUBECONFIG="$W/fifo" "$JAXJOB" launch --name x --image i:1
kc() {	# kc FILE CLUSTER-EXTRA USER: a kubeconfig
	printf 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"%s}}]\nusers: [{name: u, user: %s}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n' "$2" "$3" >"$1"
}
kc "$W/kc-ca" ", certificate-authority: $W/fifo" '{token: t}'
refused 4 "a kubeconfig's certificate-authority FIFO: refused at once" "kubeconfig $W/kc-ca: cluster \"c\": certificate-authority: $FIFO_IS" \
	"$JAXJOB" launch --kubeconfig "$W/kc-ca" --name x --image i:1
kc "$W/kc-token" ", insecure-skip-tls-verify: true" "{tokenFile: $W/fifo}"
refused 4 "a kubeconfig's tokenFile FIFO: refused at once" "token file: $FIFO_IS" \
	"$JAXJOB" launch --kubeconfig "$W/kc-token" --name x --image i:1

# --- health ------------------------------------------------------------------------
refused 2 'health -f FIFO: refused at once, named' "$FIFO_IS" "$JAXJOB" health -f "$W/fifo"
$PY -c 'import sys; sys.stdout.write("a: \"" + "x" * (9 * 1024 * 1024) + "\"\n")' >"$W/big.yaml"
BIG=$(stat -c %s "$W/big.yaml")
refused 2 'health -f BIG: the file, its size and the limit named' \
	"$W/big.yaml is $BIG bytes, more than the limit of 8388608 bytes \(8 MiB\); split it or shrink it$" \
	"$JAXJOB" health -f "$W/big.yaml"
expect 'health < BIG (a file on standard input): "standard input", its size and the limit' \
	"! timeout -s KILL $CEIL '$JAXJOB' health <'$W/big.yaml' 2>'$W/e1' &&
	 grep -qx 'error: standard input is $BIG bytes, more than the limit of 8388608 bytes (8 MiB); split it or shrink it' '$W/e1'"
expect 'BIG | health (a pipe): "standard input" and the limit' \
	"cat '$W/big.yaml' | { ! timeout -s KILL $CEIL '$JAXJOB' health 2>'$W/e2'; } &&
	 grep -qx 'error: standard input is more than the limit of 8388608 bytes (8 MiB); split it or shrink it' '$W/e2'"
expect 'a parse error on standard input says "standard input"' \
	"printf 'a: [\n' | { ! '$JAXJOB' health 2>'$W/e3'; } && grep -q '^error: standard input:' '$W/e3'"
expect 'health -f - still reads standard input (documented)' \
	"printf 'apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata: {name: a}\n' | { '$JAXJOB' health -f - || [ \$? -eq 3 ]; } | grep -q '^a: Progressing'"

# --- render: job files, defaults, templates in the repository -----------------------
app() {	# app NAME: an app directory with one good job
	rm -rf "${W:?}/$1" && mkdir -p "$W/$1" && printf 'name: a\nimage: i:1\n' >"$W/$1/a.jaxjob.yaml"
}
app fifo-job && mkfifo "$W/fifo-job/f.jaxjob.yaml"
refused 2 'render: a job file that is a FIFO is an error, never skipped or waited on' \
	"'f.jaxjob.yaml' is a FIFO \(named pipe\), not a regular file; give a regular file$" env -C "$W/fifo-job" "$JAXJOB" render
app socket-job && $PY -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$W/socket-job/s.jaxjob.yaml"
refused 2 'render: a job file that is a socket is an error' \
	"'s.jaxjob.yaml' is a socket, not a regular file; give a regular file$" env -C "$W/socket-job" "$JAXJOB" render
app dir-job && mkdir -p "$W/dir-job/team/d.jaxjob.yaml" && printf 'name: b\nimage: i:1\n' >"$W/dir-job/team/d.jaxjob.yaml/b.jaxjob.yaml"
refused 2 'render: a directory named *.jaxjob.yaml is an error' \
	"'team/d.jaxjob.yaml' is a directory, not a job file; rename it" env -C "$W/dir-job" "$JAXJOB" render
app fifo-defaults && mkfifo "$W/fifo-defaults/jaxjob-defaults.yaml"
refused 2 'render: a jaxjob-defaults.yaml that is a FIFO is an error, not waited on' \
	"'jaxjob-defaults.yaml' is a FIFO \(named pipe\), not a regular file" env -C "$W/fifo-defaults" "$JAXJOB" render
app fifo-template && mkfifo "$W/fifo-template/t.yaml" && printf 'template: t.yaml\n' >>"$W/fifo-template/a.jaxjob.yaml"
refused 2 'render: a repository template that is a FIFO is an error, not waited on' \
	"a.jaxjob.yaml: job a: template: 't.yaml' is a FIFO \(named pipe\), not a regular file" env -C "$W/fifo-template" "$JAXJOB" render
app other-fifo && mkfifo "$W/other-fifo/notes.fifo"
expect 'render: a FIFO that is no job file is none of its business' \
	"timeout -s KILL $CEIL env -C '$W/other-fifo' '$JAXJOB' render | grep -q '^  name: a-'"
