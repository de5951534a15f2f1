import type { Etcd3 } from 'etcd3';
import type { TestCluster } from '../../harness/cluster.js';
import { plainClient, within } from '../../harness/plain-client.js';
import { waitFor } from '../../support/wait.js';

/** A lease key as etcd stores it. */
export interface KeyState {
  readonly value: string;
  readonly modRevision: string;
  /** The etcd lease it is attached to; the provider's ids grow with the lease's earliest expiry. */
  readonly lease: bigint;
}

/** Reads the key through `client` (which the scenario keeps off the faulted member). */
export async function keyState(client: Etcd3, key: string): Promise<KeyState | undefined> {
  const kv = (await client.get(key).exec()).kvs[0];
  return kv === undefined ? undefined : { value: kv.value.toString(), modRevision: kv.mod_revision, lease: BigInt(kv.lease) };
}

/**
 * Waits until this process can talk to member `index` again. grpc-js keeps one connection per member for the
 * whole process and, after a cut refused its reconnects, backs off before it dials again: a scenario that
 * wants its first attempts to reach that member waits for it.
 */
export async function untilMemberAnswers(cluster: TestCluster, index: number): Promise<void> {
  const client = plainClient(cluster.endpoint(index));
  try {
    await waitFor(
      `member ${index} to answer this process again`,
      () => client.get('probe').options(within(500)).then(() => true, () => false),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  } finally {
    client.close();
  }
}
