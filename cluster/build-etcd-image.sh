#!/usr/bin/env bash
# Builds an etcd image for the container driver and docker-compose from an etcd binary, with no registry
# access: a FROM scratch image holding the binary, the shared libraries ldd says it needs, and an empty
# /tmp. Prints the image's name on stdout (everything else goes to stderr), for ETCD_IMAGE:
#
#   export ETCD_IMAGE="$(bash cluster/build-etcd-image.sh)"
#
# The tag is the binary's etcd version and content hash (etcd-lease-provider/etcd:3.5.30-1a2b3c4d5e6f),
# so another binary gets another image and an existing image is reused only for the very same binary.
#
# usage: cluster/build-etcd-image.sh
#   ETCD_BIN  etcd binary to pack (default: etcd from PATH)
set -euo pipefail

[ $# -eq 0 ] || { echo "usage: build-etcd-image.sh (no arguments; ETCD_BIN picks the binary)" >&2; exit 2; }

etcd_bin="$(command -v "${ETCD_BIN:-etcd}")" || { echo "etcd binary not found (set ETCD_BIN)" >&2; exit 1; }
etcd_bin="$(readlink -f "$etcd_bin")"
version="$("$etcd_bin" --version | awk '/^etcd Version:/ { print $3 }')"
[ -n "$version" ] || { echo "$etcd_bin --version names no etcd version" >&2; exit 1; }
hash="$(sha256sum "$etcd_bin" | cut -c1-12)"
image="etcd-lease-provider/etcd:$version-$hash"

if docker image inspect "$image" >/dev/null 2>&1; then
  echo "image $image exists (built from this very binary)" >&2
  echo "$image"
  exit 0
fi

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT

mkdir -p "$context/rootfs/usr/local/bin" "$context/rootfs/tmp"
cp "$etcd_bin" "$context/rootfs/usr/local/bin/etcd"

# ldd lines look like "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or, for the
# loader, "/lib64/ld-linux-x86-64.so.2 (0x...)". Copy each library to the same path inside
# the image, resolving symlinks, because the binary looks the loader up by absolute path.
libs="$(ldd "$etcd_bin" | awk '/=> \// { print $3 } /^\t\// { print $1 }' || true)"
if [ -z "$libs" ]; then
  echo "ldd found no shared libraries: assuming $etcd_bin is static" >&2
fi
for lib in $libs; do
  mkdir -p "$context/rootfs$(dirname "$lib")"
  cp "$(readlink -f "$lib")" "$context/rootfs$lib"
done

# Same layout as the official image: the binary at /usr/local/bin/etcd (the container driver and
# docker-compose.yml name it as the entrypoint, because the official image has none).
cat >"$context/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
ENTRYPOINT ["/usr/local/bin/etcd"]
DOCKERFILE

# The classic builder needs no buildx plugin and pulls nothing for FROM scratch.
echo "building $image from $etcd_bin" >&2
DOCKER_BUILDKIT=0 docker build --quiet --tag "$image" "$context" >&2
docker run --rm --network none "$image" --version >&2
echo "$image"
