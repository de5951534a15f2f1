#!/usr/bin/env bash
# Prints the path of an etcd binary of Debian suite $1's `etcd-server` package (e.g. `sid` for the
# 3.5 line), fetched into a cache folder and unpacked there with the same version's `etcd-client`
# (etcdctl, beside etcd): nothing is installed, and the system's apt state (sources, lists, locks)
# is not touched. The mirror is the one this machine's apt uses.
#
# usage: .ci/fetch-etcd.sh SUITE
#   CI_CACHE_DIR  where downloads are kept between runs (default ~/.cache/etcd-lease-provider-ci)
set -euo pipefail

suite="${1:?usage: fetch-etcd.sh SUITE}"
cache="${CI_CACHE_DIR:-$HOME/.cache/etcd-lease-provider-ci}/etcd-$suite"
mkdir -p "$cache"

# The mirror of the machine's own Debian sources (deb822 first, then the one-line format).
mirror="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
if [ -z "$mirror" ]; then
  mirror="$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)"
fi
[ -n "$mirror" ] || { echo "fetch-etcd: no Debian mirror found in this machine's apt sources" >&2; exit 1; }

# Our own sources list, lists and package cache, so `apt-get update` reads and writes only $cache.
mkdir -p "$cache/lists/partial" "$cache/archives/partial"
: >"$cache/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$cache/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$cache/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache" -o Debug::NoLocking=1
  # An empty dpkg status: what this machine has installed (bookworm's etcd, say) must not answer for the suite.
  -o "Dir::State::status=$cache/status"
  # The cache folder belongs to whoever runs this, not to apt's download user.
  -o "APT::Sandbox::User=$(id -un)"
)

# Refresh the index at most daily: the package is the same between CI runs of one day.
if [ -z "$(find "$cache/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
  # apt-get update only warns (exit 0) when the mirror does not answer; no index afterwards is the failure.
  apt-get "${apt_opts[@]}" -qq update >&2 || true
  if [ -z "$(find "$cache/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
    # The mirror did not answer: the last etcd fetched is better than no run.
    cached="$(ls -d "$cache"/etcd_*/usr/bin/etcd 2>/dev/null | sort -V | tail -1)"
    [ -n "$cached" ] || { echo "fetch-etcd: cannot update the $suite index and no etcd is cached" >&2; exit 1; }
    echo "fetch-etcd: cannot update the $suite index; using the cached $cached" >&2
    echo "$cached"
    exit 0
  fi
fi
# awk reads to the end: quitting early would kill apt-cache with SIGPIPE and fail the pipeline.
version="$(apt-cache "${apt_opts[@]}" show etcd-server | awk '/^Version:/ && !v { v = $2 } END { print v }')"
[ -n "$version" ] || { echo "fetch-etcd: etcd-server is not in suite $suite" >&2; exit 1; }

unpacked="$cache/etcd_$version"
if [ ! -x "$unpacked/usr/bin/etcd" ] || [ ! -x "$unpacked/usr/bin/etcdctl" ]; then
  (cd "$cache" && apt-get "${apt_opts[@]}" -qq download "etcd-server=$version" "etcd-client=$version" >&2)
  rm -rf "$unpacked.partial"
  for deb in "$cache"/etcd-server_*.deb "$cache"/etcd-client_*.deb; do dpkg -x "$deb" "$unpacked.partial"; done
  rm -f "$cache"/etcd-server_*.deb "$cache"/etcd-client_*.deb
  rm -rf "$unpacked"
  mv "$unpacked.partial" "$unpacked"
fi
echo "$unpacked/usr/bin/etcd"
