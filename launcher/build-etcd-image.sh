#!/usr/bin/env bash
# Builds an etcd image for the container driver and docker-compose from an etcd binary, with no registry
# access: a FROM scratch image holding the binary and etcdctl (like the official image; the tests run
# etcdctl from it where the machine has none), the shared libraries ldd says they need, and an empty
# /tmp. Prints the image's name on stdout (everything else goes to stderr), for ETCD_IMAGE:
#
#   export ETCD_IMAGE="$(bash launcher/build-etcd-image.sh)"
#
# The tag is the binaries' etcd version and content hash (etcd-lease-provider/etcd:3.5.30-1a2b3c4d5e6f),
# so other binaries get another image and an existing image is reused only for the very same binaries.
#
# usage: launcher/build-etcd-image.sh
#   ETCD_BIN      etcd binary to pack (default: etcd from PATH)
#   ETCDCTL_BIN   etcdctl to pack (default: the one beside the etcd binary, else etcdctl from PATH)
set -euo pipefail

[ $# -eq 0 ] || { echo "usage: build-etcd-image.sh (no arguments; ETCD_BIN picks the binary)" >&2; exit 2; }

etcd_bin="$(command -v "${ETCD_BIN:-etcd}")" || { echo "etcd binary not found (set ETCD_BIN)" >&2; exit 1; }
etcd_bin="$(readlink -f "$etcd_bin")"
version="$("$etcd_bin" --version | awk '/^etcd Version:/ { print $3 }')"
[ -n "$version" ] || { echo "$etcd_bin --version names no etcd version" >&2; exit 1; }
etcdctl_bin="${ETCDCTL_BIN:-$(dirname "$etcd_bin")/etcdctl}"
[ -x "$etcdctl_bin" ] || etcdctl_bin="$(command -v etcdctl || true)"
[ -n "$etcdctl_bin" ] || { echo "etcdctl not found beside $etcd_bin nor on PATH (set ETCDCTL_BIN)" >&2; exit 1; }
etcdctl_bin="$(readlink -f "$etcdctl_bin")"
hash="$(cat "$etcd_bin" "$etcdctl_bin" | sha256sum | cut -c1-12)"
image="etcd-lease-provider/etcd:$version-$hash"

if docker image inspect "$image" >/dev/null 2>&1; then
  echo "image $image exists (built from these very binaries)" >&2
  echo "$image"
  exit 0
fi

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT

mkdir -p "$context/rootfs/usr/local/bin" "$context/rootfs/tmp"
cp "$etcd_bin" "$context/rootfs/usr/local/bin/etcd"
cp "$etcdctl_bin" "$context/rootfs/usr/local/bin/etcdctl"

# ldd lines look like "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or, for the
# loader, "/lib64/ld-linux-x86-64.so.2 (0x...)". Copy each library to the same path inside
# the image, resolving symlinks, because the binary looks the loader up by absolute path.
libs="$( (ldd "$etcd_bin"; ldd "$etcdctl_bin") | awk '/=> \// { print $3 } /^\t\// { print $1 }' | sort -u || true)"
if [ -z "$libs" ]; then
  echo "ldd found no shared libraries: assuming the binaries are static" >&2
fi
for lib in $libs; do
  mkdir -p "$context/rootfs$(dirname "$lib")"
  cp "$(readlink -f "$lib")" "$context/rootfs$lib"
done

# Same layout as the official image: the binaries in /usr/local/bin (the container driver and
# docker-compose.yml name etcd as the entrypoint, because the official image has none).
cat >"$context/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
ENTRYPOINT ["/usr/local/bin/etcd"]
DOCKERFILE

# The classic builder needs no buildx plugin and pulls nothing for FROM scratch.
echo "building $image from $etcd_bin and $etcdctl_bin" >&2
DOCKER_BUILDKIT=0 docker build --quiet --tag "$image" "$context" >&2
docker run --rm --network none "$image" --version >&2
docker run --rm --network none --entrypoint /usr/local/bin/etcdctl "$image" version >&2
echo "$image"
