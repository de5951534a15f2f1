// A process that holds one key through hold() and, told to, suspends itself (SuspendableClock.suspendProcess: the
// thread blocks and the monotonic clock stops, while etcd and the parent's fault proxies run on). On waking it
// reports how long after waking the handle's signal aborted. Run by clock-step.test.ts; never on its own.
import { createInterface } from 'node:readline';
import { LeaseClock } from '../../../src/clock/lease-clock.js';
import type { LeaseLostError } from '../../../src/errors/lease-lost.js';
import { createLeaseProvider } from '../../../src/provider.js';
import { SuspendableClock } from '../../chaos/suspendable-clock.js';

export const SUSPENDED_HOLDER_ENV = 'SUSPENDED_HOLDER_CONFIG';

export interface SuspendedHolderConfig {
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly key: string;
  readonly ttlMs: number;
  readonly suspendMs: number;
  /** How long after waking to wait for the signal before reporting that it did not abort. */
  readonly waitMs: number;
}

export type SuspendedHolderMessage =
  | { readonly held: string }
  | { readonly woke: { readonly abortedAfterMs: number | undefined; readonly reason: string | undefined } };

if (process.env[SUSPENDED_HOLDER_ENV] !== undefined) {
  const config = JSON.parse(process.env[SUSPENDED_HOLDER_ENV]) as SuspendedHolderConfig;
  const send = (message: SuspendedHolderMessage) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const clock = new SuspendableClock();
  const provider = createLeaseProvider({ hosts: [...config.endpoints], prefix: config.prefix }, { clock: new LeaseClock(clock) });
  const handle = await provider.hold(config.key, 'A', config.ttlMs);
  let abortedAt: number | undefined;
  handle.signal.addEventListener('abort', () => (abortedAt ??= performance.now()));
  send({ held: handle.fencingToken });
  createInterface({ input: process.stdin }).once('line', () => {
    const wokeAt = clock.suspendProcess(config.suspendMs);
    setTimeout(() => {
      const reason = handle.signal.aborted ? (handle.signal.reason as LeaseLostError).reason : undefined;
      send({ woke: { abortedAfterMs: abortedAt === undefined ? undefined : abortedAt - wokeAt, reason } });
      void provider.close().then(() => process.exit(0));
    }, config.waitMs);
  });
}
