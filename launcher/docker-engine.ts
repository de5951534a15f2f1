/**
 * Whether containers can run here, asked the way the container driver will run them: through
 * testcontainers, which finds the engine from DOCKER_HOST, its own config, Docker contexts or the
 * usual sockets. Loaded only when asked (it is a devDependency, and slow to load).
 */
export async function findDockerEngine(): Promise<{ ok: true } | { ok: false; reason: string }> {
  let testcontainers: typeof import('testcontainers');
  try {
    testcontainers = await import('testcontainers');
  } catch {
    return { ok: false, reason: 'testcontainers (a devDependency) is not installed, so containers cannot be used' };
  }
  try {
    await testcontainers.getContainerRuntimeClient();
    return { ok: true };
  } catch {
    return { ok: false, reason: 'no Docker engine answers (DOCKER_HOST, /var/run/docker.sock)' };
  }
}
