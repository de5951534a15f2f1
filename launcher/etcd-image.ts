/**
 * Makes sure the etcd image is on the Docker engine before any member starts: pulled once here, not
 * by three members at once, and a failed pull (no registry reachable) says how to get an image
 * offline instead of surfacing as a container start error.
 */
export async function ensureEtcdImage(image: string): Promise<void> {
  const { ImageName, getContainerRuntimeClient } = await import('testcontainers');
  const runtime = await getContainerRuntimeClient();
  const name = ImageName.fromString(image);
  if (await runtime.image.exists(name)) return;
  try {
    await runtime.image.pull(name);
  } catch (error) {
    throw new Error(pullFailure(image, (error as Error).message), { cause: error });
  }
  // A pull can end without an error and without the image (the failure is only in the progress stream).
  if (!(await runtime.image.exists(name))) throw new Error(pullFailure(image, 'the pull ended without the image'));
}

function pullFailure(image: string, why: string): string {
  return (
    `cannot pull the etcd image ${image}: ${why}\n` +
    'Without a reachable registry, build one from an etcd binary (`bash launcher/build-etcd-image.sh` prints its name) ' +
    'and point ETCD_IMAGE at it.'
  );
}
