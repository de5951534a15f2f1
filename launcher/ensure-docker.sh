#!/usr/bin/env bash
# Makes sure a Docker engine answers (CI machines have docker.io installed but no engine started).
# When none does, starts dockerd in the background and waits, bounded, for it to answer; fails loudly,
# with the daemon's log, when it does not. An engine this script started is the caller's to stop:
# its pid goes to the file named by --pidfile (no file is written when an engine was already up, so a
# caller never stops an engine it did not start).
#
# usage: launcher/ensure-docker.sh [--pidfile FILE]
#   DOCKERD_LOG        where dockerd writes its log     (default /tmp/dockerd.log)
#   DOCKER_WAIT_SECS   how long to wait for the engine  (default 30)
set -euo pipefail

pidfile=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pidfile) pidfile="${2:?--pidfile needs a file}"; shift 2 ;;
    *) echo "unknown argument: $1 (expected --pidfile FILE)" >&2; exit 2 ;;
  esac
done

log="${DOCKERD_LOG:-/tmp/dockerd.log}"
wait_secs="${DOCKER_WAIT_SECS:-30}"

if docker info >/dev/null 2>&1; then
  echo "docker engine is up (not started by this script)"
  exit 0
fi

command -v dockerd >/dev/null || { echo "ERROR: no docker engine answers and dockerd is not installed" >&2; exit 1; }

echo "starting dockerd (log: $log)"
# setsid: the engine must not die with this script's process group (a Ctrl-C in the caller's terminal);
# the caller stops it by pid. setsid runs dockerd in place here (a background job is no group leader),
# so $! is dockerd's own pid.
setsid dockerd >"$log" 2>&1 </dev/null &
pid=$!
[ -z "$pidfile" ] || echo "$pid" >"$pidfile"

for _ in $(seq 1 "$wait_secs"); do
  if docker info >/dev/null 2>&1; then
    if [ -z "$pidfile" ]; then
      echo "docker engine is up (dockerd pid $pid; stop it with: kill $pid)"
    else
      echo "docker engine is up (dockerd pid $pid, in $pidfile)"
    fi
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    break
  fi
  sleep 1
done

echo "ERROR: docker engine did not come up within ${wait_secs}s; dockerd log tail:" >&2
tail -n 40 "$log" >&2 || true
kill "$pid" 2>/dev/null || true
[ -z "$pidfile" ] || rm -f "$pidfile"
exit 1
