#!/usr/bin/env bash
# stack/up.sh DIR [PART...]: bring the real stack up on loopback, state under DIR.
# Parts are stack/parts/NAME.sh, brought up in the order of STACK_PARTS (those that exist;
# default: controlplane kubelet operator trainer kueue), or only the PARTs named. Idempotent:
# what is running is left alone, so `up.sh DIR controlplane` restarts a killed apiserver.
# Prints the path of DIR/env (source it). Interface of a part: stack/README.md.
# STACK_PARTS_DIR: where the parts are (default stack/parts; tests point it at their own).
# On failure it stops what it started (stack/down.sh DIR) and exits non-zero.
set -euo pipefail
STACK_DIR=$(cd "$(dirname "$0")" && pwd)
. "$STACK_DIR/lib.sh"
[ $# -ge 1 ] && [ -n "$1" ] || { echo "usage: stack/up.sh DIR [PART...]" >&2; exit 2; }
mkdir -p "$1"
STACK_RUN=$(cd "$1" && pwd); shift
STACK_PARTS_DIR=${STACK_PARTS_DIR:-$STACK_DIR/parts}
export STACK_RUN STACK_DIR
mkdir -p "$STACK_RUN/logs" "$STACK_RUN/pids" "$STACK_RUN/pki"
chmod 700 "$STACK_RUN" "$STACK_RUN/pki"
STACK_PY=${STACK_PY:-/usr/bin/python3}

stack_say() { echo "up.sh: $*" >&2; }
stack_die() { echo "up.sh: $*" >&2; exit 1; }
# stack_running NAME: the process recorded in DIR/pids/NAME.pid is alive (not a zombie)
stack_running() {
  local pid
  pid=$(cat "$STACK_RUN/pids/$1.pid" 2>/dev/null) || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  case $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) in Z | X | "") return 1 ;; esac
}
# stack_start NAME CMD...: start detached in a session of its own, log DIR/logs/NAME.log,
# PID in DIR/pids/NAME.pid (the order of starts is kept in DIR/pids.order for down.sh)
stack_start() {
  local name=$1; shift
  setsid "$@" >>"$STACK_RUN/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STACK_RUN/pids/$name.pid"
  grep -qx "$name" "$STACK_RUN/pids.order" 2>/dev/null || echo "$name" >>"$STACK_RUN/pids.order"
  stack_say "started $name (pid $!, log $STACK_RUN/logs/$name.log)"
}
# stack_wait SECONDS DESC NAME CMD...: poll CMD until it succeeds; fail at the ceiling or as
# soon as process NAME (may be "-") has exited
stack_wait() {
  local t0=$SECONDS end=$((SECONDS + $1)) desc=$2 name=$3; shift 3
  until "$@" >/dev/null 2>&1; do
    if [ "$name" != - ] && ! stack_running "$name"; then
      tail -n 15 "$STACK_RUN/logs/$name.log" >&2
      stack_die "$desc exited before it was ready (log: $STACK_RUN/logs/$name.log)"
    fi
    ((SECONDS < end)) || stack_die "$desc not ready within $1 s (logs: $STACK_RUN/logs)"
    sleep 0.2 # sleep-ok: poll interval of a readiness probe
  done
  stack_say "$desc ready in $((SECONDS - t0)) s"
}
# stack_ports N: N distinct free loopback ports (bound together, released before use)
stack_ports() {
  "$STACK_PY" -c '
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}
# stack_env NAME VALUE: export NAME=VALUE in DIR/env (replacing an earlier value) and here
stack_env() {
  local f=$STACK_RUN/env
  touch "$f"
  grep -v "^export $1=" "$f" >"$f.tmp" || true
  printf 'export %s=%q\n' "$1" "$2" >>"$f.tmp"
  mv "$f.tmp" "$f"
  export "$1=$2"
}
# stack_sign NAME SUBJECT EXTENSIONS [CA]: DIR/pki/NAME.{key,crt} signed by DIR/pki/CA (default ca)
stack_sign() {
  local n=$1 subj=$2 ext=$3 ca=${4:-ca} p=$STACK_RUN/pki
  openssl req -new -newkey rsa:2048 -nodes -keyout "$p/$n.key" -subj "$subj" -out "$p/$n.csr" 2>/dev/null
  printf '%b\n' "$ext" >"$p/$n.ext"
  openssl x509 -req -in "$p/$n.csr" -CA "$p/$ca.crt" -CAkey "$p/$ca.key" -CAcreateserial \
    -days 3650 -sha256 -extfile "$p/$n.ext" -out "$p/$n.crt" 2>/dev/null
  rm -f "$p/$n.csr" "$p/$n.ext"
  chmod 600 "$p/$n.key"
}
export -f stack_say stack_die stack_running stack_start stack_wait stack_ports stack_env stack_sign
export STACK_PY

# At most two control planes on the machine (TEAM.md): hold a slot; the started daemons inherit
# the descriptor, so the slot stays taken while any of them runs. STACK_CP_SLOT=held: the caller
# holds one already. A DIR with a process still running holds one (a restart of a killed piece).
slot=${STACK_CP_SLOT:-}
for f in "$STACK_RUN"/pids/*.pid; do
  [ -f "$f" ] && stack_running "$(basename "$f" .pid)" && slot=held
done
if [ "$slot" != held ]; then
  exec 9>/tmp/cp-slot-1.lock
  if ! flock -n 9; then
    exec 9>/tmp/cp-slot-2.lock
    if ! flock -n 9; then
      tw=$SECONDS
      stack_say "both control-plane slots are taken; waiting for one"
      # waiting on one slot alone missed the other one freeing (an hour, once): each in turn
      n=1
      until flock -w 1 9; do
        n=$((3 - n))
        exec 9>/tmp/cp-slot-$n.lock
      done
      stack_say "got a control-plane slot after $((SECONDS - tw)) s"
    fi
  fi
fi

want=("$@")
if [ ${#want[@]} -eq 0 ]; then
  for p in ${STACK_PARTS:-controlplane kubelet operator trainer kueue}; do
    [ -f "$STACK_PARTS_DIR/$p.sh" ] && want+=("$p")
  done
fi
t0=$SECONDS
for p in "${want[@]}"; do
  [ -f "$STACK_PARTS_DIR/$p.sh" ] || stack_die "no part '$p' ($STACK_PARTS_DIR/$p.sh)"
  tp=$SECONDS
  # A part runs as a bash process of its own, part_up at its top level: inside `if ! ( ... )`
  # bash ignores set -e (a condition's context, subshells included), so a failing step
  # would not stop the part and only its last command would count.
  # shellcheck disable=SC2016
  if ! bash -euo pipefail -c '
    . "$STACK_DIR/lib.sh"
    if [ -f "$STACK_RUN/env" ]; then . "$STACK_RUN/env"; fi
    . "$1"
    part_up' up.sh-part "$STACK_PARTS_DIR/$p.sh"; then
    stack_say "part $p failed; stopping what was started"
    "$STACK_DIR/down.sh" "$STACK_RUN" >&2 || true
    exit 1
  fi
  stack_say "part $p up in $((SECONDS - tp)) s"
done
stack_say "ready in $((SECONDS - t0)) s; source $STACK_RUN/env"
echo "$STACK_RUN/env"
