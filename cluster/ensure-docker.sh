#!/usr/bin/env bash
# Makes sure a Docker engine answers before container-driver tests run (CI has docker.io
# installed but no engine started). Starts dockerd in the background when needed and waits,
# bounded, for it to answer; fails loudly, with the daemon's log, when it does not.
#
# usage: cluster/ensure-docker.sh
#   DOCKERD_LOG        where dockerd writes its log     (default /tmp/dockerd.log)
#   DOCKER_WAIT_SECS   how long to wait for the engine  (default 30)
set -euo pipefail

log="${DOCKERD_LOG:-/tmp/dockerd.log}"
wait_secs="${DOCKER_WAIT_SECS:-30}"

if docker info >/dev/null 2>&1; then
  echo "docker engine is up"
  exit 0
fi

command -v dockerd >/dev/null || { echo "ERROR: no docker engine answers and dockerd is not installed" >&2; exit 1; }

echo "starting dockerd (log: $log)"
# nohup + setsid: the engine must outlive this script and the CI step that called it.
nohup setsid dockerd >"$log" 2>&1 </dev/null &
pid=$!

for _ in $(seq 1 "$wait_secs"); do
  if docker info >/dev/null 2>&1; then
    echo "docker engine is up (dockerd pid $pid)"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    break
  fi
  sleep 1
done

echo "ERROR: docker engine did not come up within ${wait_secs}s; dockerd log tail:" >&2
tail -n 40 "$log" >&2 || true
exit 1
