#!/usr/bin/env bash
# stack/down.sh DIR [NAME...]: stop what stack/up.sh DIR started, by the PIDs in DIR/pids
# (all, in reverse start order, or only the NAMEs given, e.g. apiserver): SIGTERM, then
# SIGKILL after STACK_GRACE seconds (default 15). State stays in DIR; rm -rf DIR for a fresh one.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: stack/down.sh DIR [NAME...]" >&2; exit 2; }
D=$1; shift
[ -d "$D/pids" ] || exit 0
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  # reverse start order, then any pid file not in the order list
  mapfile -t names < <({ tac "$D/pids.order" 2>/dev/null; ls "$D/pids" | sed -n 's/\.pid$//p'; } | awk '!seen[$0]++')
fi
alive() { kill -0 "$1" 2>/dev/null && case $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) in Z | X | "") false ;; *) true ;; esac; }
for n in "${names[@]}"; do
  f=$D/pids/$n.pid
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null
    end=$((SECONDS + ${STACK_GRACE:-15}))
    while alive "$pid" && ((SECONDS < end)); do sleep 0.1; done # sleep-ok: poll interval of the grace period before SIGKILL
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null
      echo "down.sh: $n (pid $pid) killed after ${STACK_GRACE:-15} s" >&2
      while alive "$pid"; do sleep 0.05; done # sleep-ok: poll interval (until the killed process is gone)
    fi
  fi
  rm -f "$f"
done
exit 0
