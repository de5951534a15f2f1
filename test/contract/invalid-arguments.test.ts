import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdLeaseProvider, LeaseArgumentRangeError, LeaseArgumentTypeError } from '../../src/index.js';
import { MAX_ENTRY_BYTES } from '../../src/keys/key-codec.js';
import { MAX_TTL_MS } from '../../src/keys/ttl.js';
import { CountingProxy, portOf } from '../security/support/counting-proxy.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { elapse, waitFor } from '../support/wait.js';

// Every method refuses every invalid parameter with a typed error naming it, and sends nothing: the provider
// reaches etcd only through a counting proxy, and not one byte crosses it while the bad calls run. The proxy is
// shown to see traffic (a valid call before and after moves the counter), so "zero bytes" is a measurement,
// not an idle connection. A check placed after the first request — or a request sent before the check — fails
// here even if it is refused a moment later by etcd.
const etcd = useEtcdCluster({ size: 1 });

type ErrorClass = typeof LeaseArgumentTypeError | typeof LeaseArgumentRangeError;
type Call = (p: EtcdLeaseProvider) => Promise<unknown>;
interface Case {
  name: string;
  call: Call;
  parameter: string;
  type: ErrorClass;
}

const huge = 'x'.repeat(MAX_ENTRY_BYTES + 1);
const badText: Array<[string, unknown, ErrorClass]> = [
  ['empty', '', LeaseArgumentTypeError],
  ['a number', 5, LeaseArgumentTypeError],
  ['null', null, LeaseArgumentTypeError],
  ['a lone surrogate', 'x\uD800', LeaseArgumentTypeError],
];
const badTtl: Array<[string, unknown, ErrorClass]> = [
  ['zero', 0, LeaseArgumentRangeError],
  ['negative', -5, LeaseArgumentRangeError],
  ['NaN', NaN, LeaseArgumentRangeError],
  ['Infinity', Infinity, LeaseArgumentRangeError],
  ['a string', '1000', LeaseArgumentTypeError],
  ['beyond the longest lease', MAX_TTL_MS + 1, LeaseArgumentRangeError],
];
const badMetadata: Array<[string, unknown, ErrorClass]> = [
  ['a number', 5, LeaseArgumentTypeError],
  ['null', null, LeaseArgumentTypeError],
  ['a lone surrogate', 'run\uDC00', LeaseArgumentTypeError],
];

/** Each method, its parameters in order, and valid values to hold the others at. */
const methods: Record<string, { parameters: string[]; valid: unknown[]; invoke: (p: EtcdLeaseProvider, args: unknown[]) => Promise<unknown> }> = {
  acquireLease: { parameters: ['key', 'owner', 'ttlMs', 'metadata'], valid: ['k', 'A', 5000, 'run'], invoke: (p, a) => p.acquireLease(...(a as [string, string, number, string])) },
  renewLease: { parameters: ['key', 'owner', 'ttlMs', 'metadata'], valid: ['k', 'A', 5000, 'run'], invoke: (p, a) => p.renewLease(...(a as [string, string, number, string])) },
  releaseLease: { parameters: ['key', 'owner', 'metadata'], valid: ['k', 'A', 'run'], invoke: (p, a) => p.releaseLease(...(a as [string, string, string])) },
  transferLease: {
    parameters: ['key', 'fromOwner', 'toOwner', 'ttlMs', 'fromMetadata', 'toMetadata'],
    valid: ['k', 'A', 'B', 5000, 'run-a', 'run-b'],
    invoke: (p, a) => p.transferLease(...(a as [string, string, string, number, string, string])),
  },
  getLeaseOwner: { parameters: ['key'], valid: ['k'], invoke: (p, a) => p.getLeaseOwner(a[0] as string) },
  getLeaseRecord: { parameters: ['key'], valid: ['k'], invoke: (p, a) => p.getLeaseRecord(a[0] as string) },
  getLease: { parameters: ['key'], valid: ['k'], invoke: (p, a) => p.getLease(a[0] as string) },
  waitForLease: { parameters: ['key', 'owner', 'ttlMs'], valid: ['k', 'A', 5000], invoke: (p, a) => p.waitForLease(...(a as [string, string, number])) },
  hold: { parameters: ['key', 'owner', 'ttlMs'], valid: ['k', 'A', 5000], invoke: (p, a) => p.hold(...(a as [string, string, number])) },
};

function casesFor(method: string): Case[] {
  const { parameters, valid, invoke } = methods[method]!;
  const cases: Case[] = [];
  const withValue = (index: number, value: unknown): Call => (p) => invoke(p, valid.map((v, i) => (i === index ? value : v)));
  parameters.forEach((parameter, index) => {
    const table = parameter === 'ttlMs' ? badTtl : parameter.toLowerCase().endsWith('metadata') ? badMetadata : badText;
    for (const [label, value, type] of table) cases.push({ name: `${method}: ${parameter} ${label}`, call: withValue(index, value), parameter, type });
  });
  // Too large for one etcd request: reported on the key, as the entry (key, owner and metadata together). Every
  // method, waitForLease and hold included: below etcd's own 1.5 MiB limit such a key would be stored and held.
  cases.push({ name: `${method}: oversized key`, call: withValue(0, huge), parameter: 'key', type: LeaseArgumentRangeError });
  const metadataAt = parameters.findIndex((p) => p.endsWith('etadata'));
  if (metadataAt >= 0) cases.push({ name: `${method}: oversized metadata`, call: withValue(metadataAt, huge), parameter: 'key', type: LeaseArgumentRangeError });
  return cases;
}

const cases: Case[] = [
  ...Object.keys(methods).flatMap(casesFor),
  // Per-call options are checked before anything is sent, too.
  { name: 'acquireLease: deadlineMs 0', call: (p) => p.acquireLease('k', 'A', 5000, { deadlineMs: 0 }), parameter: 'deadlineMs', type: LeaseArgumentRangeError },
  { name: 'renewLease: deadlineMs NaN', call: (p) => p.renewLease('k', 'A', 5000, 'run', { deadlineMs: NaN }), parameter: 'deadlineMs', type: LeaseArgumentRangeError },
  { name: 'releaseLease: deadlineMs -1', call: (p) => p.releaseLease('k', 'A', { deadlineMs: -1 }), parameter: 'deadlineMs', type: LeaseArgumentRangeError },
  { name: 'getLeaseOwner: deadlineMs 0', call: (p) => p.getLeaseOwner('k', { deadlineMs: 0 }), parameter: 'deadlineMs', type: LeaseArgumentRangeError },
  { name: 'waitForLease: options.timeoutMs 0', call: (p) => p.waitForLease('k', 'A', 5000, { timeoutMs: 0 }), parameter: 'options.timeoutMs', type: LeaseArgumentRangeError },
  // A call-options object where only run metadata (a string) may stand: options may replace metadata only in the
  // 5th position, so an object as toMetadata is neither. Taken for options, it would be dropped and the transfer
  // would store toOwner without the metadata the caller meant to give it.
  { name: 'transferLease: toMetadata an object', call: (p) => p.transferLease('k', 'A', 'B', 5000, 'run-a', {} as never), parameter: 'toMetadata', type: LeaseArgumentTypeError },
];

let proxy: CountingProxy;
let provider: EtcdLeaseProvider;

beforeAll(async () => {
  proxy = await CountingProxy.forward(portOf(etcd.cluster.endpoint(0)));
  provider = new EtcdLeaseProvider({ hosts: [proxy.endpoint('http')], prefix: etcd.uniquePrefix(), deadlineMs: 2000 });
  // Warm: the connection is open and the lease pool has a lease, so only a call's own requests could move bytes.
  await provider.acquireLease('warm-up', 'W', 60_000);
  expect(proxy.bytesToServer).toBeGreaterThan(0);
});

afterAll(async () => {
  await provider?.close();
  await proxy?.close();
});

/** Waits until no byte has crossed the proxy for `quietMs` (HTTP/2 settings acks and the like settle first). */
async function quiet(quietMs = 300): Promise<number> {
  let last = proxy.bytesToServer;
  let since = performance.now();
  return waitFor(
    'the connection to go quiet',
    async () => {
      if (proxy.bytesToServer !== last) {
        last = proxy.bytesToServer;
        since = performance.now();
        return undefined;
      }
      return performance.now() - since >= quietMs ? last : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 50 },
  );
}

/** A call that should have been refused went through: undo what it holds, so it cannot move bytes in later cases. */
async function undo(outcome: unknown): Promise<void> {
  const handle = outcome as { release?: () => Promise<void> } | undefined;
  if (typeof handle?.release === 'function') await handle.release().catch(() => {});
}

describe('invalid arguments: a typed error naming the parameter, and not one byte sent', () => {
  beforeAll(async () => {
    await quiet();
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, { call, parameter, type }) => {
    const before = proxy.bytesToServer;
    const outcome = await call(provider).then(
      (value) => ({ resolved: value }),
      (e: unknown) => e,
    );
    if (outcome !== null && typeof outcome === 'object' && 'resolved' in outcome) await undo(outcome.resolved);
    expect(outcome).toBeInstanceOf(type);
    expect((outcome as { code?: string }).code).toBe('ELEASE_INVALID_ARGUMENT');
    expect((outcome as { parameter?: string }).parameter).toBe(parameter);
    expect((outcome as Error).message.startsWith(`${parameter}: `)).toBe(true);
    // A request the call had started would be on the wire within a few event-loop turns (gRPC writes at once).
    await elapse(30);
    expect(proxy.bytesToServer).toBe(before);
  });

  it('an oversized metadata is refused as the entry it would make, and the message says so', async () => {
    const error = await provider.acquireLease('k', 'A', 5000, huge).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/metadata/);
  });

  it('the proxy does see a valid call: the counter is live, so zero bytes above is a measurement', async () => {
    const before = await quiet();
    expect(await provider.getLeaseOwner('warm-up')).toBe('W');
    expect(proxy.bytesToServer).toBeGreaterThan(before);
  });
});
