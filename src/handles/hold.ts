import { ProviderClosedError } from '../errors/closed.js';
import type { LeaseOps } from '../waiting/lease-ops.js';
import type { WaitForLeaseOptions } from '../waiting/wait-options.js';
import { waitForLease } from '../waiting/wait-for-lease.js';
import { HeldLease } from './held-lease.js';
import type { LeaseHandle } from './lease-handle.js';

/**
 * Waits like `waitForLease`, then keeps the lease renewed until the handle is released, the lease is
 * lost, or the provider closes. The handle's belief window starts at the winning acquire's send time.
 */
export async function hold(
  ops: LeaseOps,
  key: string,
  owner: string,
  ttlMs: number,
  options: WaitForLeaseOptions | undefined,
): Promise<LeaseHandle> {
  const won = await waitForLease(ops, key, owner, ttlMs, options, 'hold');
  const handle = new HeldLease(ops, key, owner, ttlMs, won.result.fencingToken, won.sentAt, options?.metadata);
  // close() began between the win and now: the handle has already ended itself and released the key.
  if (ops.lifecycle.closing.aborted) throw new ProviderClosedError('hold');
  return handle;
}
