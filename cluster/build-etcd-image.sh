#!/usr/bin/env bash
# Builds the etcd image the container driver runs, from this machine's etcd binary, with no
# registry access (none is reachable here): a FROM scratch image holding the binary, the
# shared libraries ldd says it needs, and an empty /tmp.
#
# usage: cluster/build-etcd-image.sh [--force]
#   ETCD_TEST_IMAGE  image tag            (default etcd-lease-provider/etcd:local)
#   ETCD_BIN         etcd binary to pack  (default: etcd from PATH)
# Skips the build when the image already exists, unless --force.
set -euo pipefail

image="${ETCD_TEST_IMAGE:-etcd-lease-provider/etcd:local}"
force=false
for arg in "$@"; do
  case "$arg" in
    --force) force=true ;;
    *) echo "unknown argument: $arg (expected --force)" >&2; exit 2 ;;
  esac
done

if ! $force && docker image inspect "$image" >/dev/null 2>&1; then
  echo "image $image exists; skipping build (pass --force to rebuild)"
  exit 0
fi

etcd_bin="$(command -v "${ETCD_BIN:-etcd}")" || { echo "etcd binary not found (set ETCD_BIN)" >&2; exit 1; }
etcd_bin="$(readlink -f "$etcd_bin")"

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT

mkdir -p "$context/rootfs/usr/local/bin" "$context/rootfs/tmp"
cp "$etcd_bin" "$context/rootfs/usr/local/bin/etcd"

# ldd lines look like "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or, for the
# loader, "/lib64/ld-linux-x86-64.so.2 (0x...)". Copy each library to the same path inside
# the image, resolving symlinks, because the binary looks the loader up by absolute path.
libs="$(ldd "$etcd_bin" | awk '/=> \// { print $3 } /^\t\// { print $1 }')"
if [ -z "$libs" ]; then
  echo "ldd found no shared libraries: assuming $etcd_bin is static"
fi
for lib in $libs; do
  mkdir -p "$context/rootfs$(dirname "$lib")"
  cp "$(readlink -f "$lib")" "$context/rootfs$lib"
done

cat >"$context/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
ENTRYPOINT ["/usr/local/bin/etcd"]
DOCKERFILE

# The classic builder needs no buildx plugin and pulls nothing for FROM scratch.
DOCKER_BUILDKIT=0 docker build --quiet --tag "$image" "$context"
docker run --rm --network none "$image" --version
echo "built $image"
