import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LeaseArgumentRangeError, LeaseArgumentTypeError, type EtcdLeaseProvider } from '../../src/index.js';
import { MAX_ENTRY_BYTES } from '../../src/keys/key-codec.js';
import { MAX_TTL_MS } from '../../src/keys/ttl.js';
import { DEFAULTS } from '../../src/config/resolve-options.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { anyText, anyTtl, longText, opSequence } from './support/arbitraries.js';
import { LeaseModel, runOp, withKey, type LeaseOp } from './support/lease-model.js';

// Property-based tests on a real cluster: whatever a caller passes, invalid input is refused with an
// error naming the parameter and stores nothing; valid input round-trips exactly and never aliases
// another key; random operation sequences through two clients match the sequential model of the
// contract (test/security/support/lease-model.ts, checked against Mastra's anchor in lease-model.test.ts).
// A long TTL keeps time out of it. Runs are few and sequences short: the file stays well under 30 s.
const etcd = useEtcdCluster();
const TTL_MS = 60_000;
const TIMEOUT_MS = 60_000;

/** The oracle for text parameters, written independently of the provider's checks. */
function isValidText(value: string): boolean {
  return value.length > 0 && value.isWellFormed();
}
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
const fitsOneEntry = (p: EtcdLeaseProvider, key: string, ...owners: string[]) =>
  utf8(p.prefix) + utf8(key) + owners.reduce((n, o) => n + utf8(o), 0) <= MAX_ENTRY_BYTES;

async function rejection(call: () => Promise<unknown>): Promise<Error> {
  const outcome = await call().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as Error;
}

function expectArgumentError(error: Error, parameter: string): void {
  expect(error instanceof LeaseArgumentTypeError || error instanceof LeaseArgumentRangeError, String(error)).toBe(true);
  expect((error as LeaseArgumentTypeError).code).toBe('ELEASE_INVALID_ARGUMENT');
  expect(error.message.startsWith(`${parameter}: `), error.message).toBe(true);
}

function store(p: EtcdLeaseProvider) {
  const raw = etcd.rawClient();
  return {
    count: () => raw.getAll().prefix(p.prefix).count(),
    /** The stored value at exactly prefix + the key's UTF-8 bytes. */
    at: (key: string) => raw.get(Buffer.concat([Buffer.from(p.prefix, 'utf8'), Buffer.from(key, 'utf8')])).string(),
  };
}

describe('hostile keys and owners', () => {
  it('any key: a well-formed one round-trips at exactly its UTF-8 bytes; any other is refused and stores nothing', { timeout: TIMEOUT_MS }, async () => {
    const p = etcd.provider();
    const stored = store(p);
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 5, arbitrary: anyText() }, { weight: 1, arbitrary: longText }), async (key) => {
        if (!isValidText(key) || !fitsOneEntry(p, key, 'A')) {
          expectArgumentError(await rejection(() => p.acquireLease(key, 'A', TTL_MS)), 'key');
          expectArgumentError(await rejection(() => p.getLeaseOwner(key)), 'key');
          expect(await stored.count()).toBe(0);
          return;
        }
        expect(await p.acquireLease(key, 'A', TTL_MS)).toMatchObject({ acquired: true, owner: 'A' });
        expect(await stored.at(key)).toBe('A');
        expect(await p.getLeaseOwner(key)).toBe('A');
        await p.releaseLease(key, 'A');
        expect(await stored.count()).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('two different keys are always two leases: nothing aliases', { timeout: TIMEOUT_MS }, async () => {
    const p = etcd.provider();
    const stored = store(p);
    await fc.assert(
      fc.asyncProperty(anyText(6), anyText(6), async (k1, k2) => {
        fc.pre(k1 !== k2);
        const valid = [k1, k2].map(isValidText);
        for (const [key, ok] of [[k1, valid[0]], [k2, valid[1]]] as const) {
          if (!ok) expectArgumentError(await rejection(() => p.acquireLease(key, 'owner-of-' + key.length, TTL_MS)), 'key');
        }
        if (valid[0]) expect(await p.acquireLease(k1, 'A', TTL_MS)).toMatchObject({ acquired: true });
        if (valid[1]) expect(await p.acquireLease(k2, 'B', TTL_MS)).toMatchObject({ acquired: true });
        if (valid[0]) expect(await p.getLeaseOwner(k1)).toBe('A');
        if (valid[1]) expect(await p.getLeaseOwner(k2)).toBe('B');
        expect(await stored.count()).toBe(valid.filter(Boolean).length);
        if (valid[0]) await p.releaseLease(k1, 'A');
        if (valid[1]) await p.releaseLease(k2, 'B');
      }),
      // Lone surrogates are common in this alphabet, so pairs that UTF-8 would merge come up often.
      { numRuns: 100, examples: [['a\uD800', 'a\uDBFF'], ['x\uDC00', 'x\uFFFD'], ['a', 'a\u0000b']] },
    );
  });

  it('any owner: a well-formed one is stored and read back exactly; any other is refused, in every method', { timeout: TIMEOUT_MS }, async () => {
    const p = etcd.provider();
    const stored = store(p);
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 5, arbitrary: anyText() }, { weight: 1, arbitrary: longText }), async (owner) => {
        if (!isValidText(owner) || !fitsOneEntry(p, 'k', owner)) {
          const parameter = isValidText(owner) ? 'key' : 'owner'; // an oversized entry is reported on the key
          expectArgumentError(await rejection(() => p.acquireLease('k', owner, TTL_MS)), parameter);
          expectArgumentError(await rejection(() => p.renewLease('k', owner, TTL_MS)), parameter);
          expectArgumentError(await rejection(() => p.releaseLease('k', owner)), parameter);
          expect(await stored.count()).toBe(0);
          // A bad `toOwner` leaves a held lease untouched.
          await p.acquireLease('k', 'holder', TTL_MS);
          const transfer = await rejection(() => p.transferLease('k', 'holder', owner, TTL_MS));
          expectArgumentError(transfer, isValidText(owner) ? 'key' : 'toOwner');
          expect(await p.getLeaseOwner('k')).toBe('holder');
          await p.releaseLease('k', 'holder');
          return;
        }
        expect(await p.acquireLease('k', owner, TTL_MS)).toMatchObject({ acquired: true, owner });
        expect(await p.acquireLease('k', 'someone-else', TTL_MS)).toEqual({ acquired: false, owner });
        expect(await p.getLeaseOwner('k')).toBe(owner);
        expect(await stored.at('k')).toBe(owner);
        await p.releaseLease('k', owner);
        expect(await stored.count()).toBe(0);
      }),
      { numRuns: 120 },
    );
  });
});

describe('hostile TTLs', () => {
  it('any ttlMs: finite, above 0 and within etcd’s largest lease TTL is honoured; anything else is refused naming ttlMs and stores nothing', { timeout: TIMEOUT_MS }, async () => {
    const p = etcd.provider();
    const stored = store(p);
    await fc.assert(
      fc.asyncProperty(anyTtl, async (ttlMs) => {
        // The longest lease the provider grants is MAX_TTL_MS; its lease covers ttlMs plus one bucket, in whole seconds.
        const valid =
          typeof ttlMs === 'number' &&
          Number.isFinite(ttlMs) &&
          ttlMs > 0 &&
          Math.ceil((ttlMs + DEFAULTS.leaseBucketMs) / 1000) * 1000 <= MAX_TTL_MS;
        const ttl = ttlMs as number;
        if (!valid) {
          expectArgumentError(await rejection(() => p.acquireLease('k', 'A', ttl)), 'ttlMs');
          expect(await stored.count()).toBe(0);
          await p.acquireLease('held', 'A', TTL_MS);
          expectArgumentError(await rejection(() => p.renewLease('held', 'A', ttl)), 'ttlMs');
          expectArgumentError(await rejection(() => p.transferLease('held', 'A', 'B', ttl)), 'ttlMs');
          expect(await p.getLeaseOwner('held')).toBe('A');
          await p.releaseLease('held', 'A');
          return;
        }
        // Tiny and fractional TTLs are valid: etcd rounds them up to its minimum lease TTL.
        expect(await p.acquireLease('k', 'A', ttl)).toMatchObject({ acquired: true });
        expect(await p.renewLease('k', 'A', ttl)).toBe(true);
        expect(await p.transferLease('k', 'A', 'B', ttl)).toBe(true);
        await p.releaseLease('k', 'B');
        expect(await stored.count()).toBe(0);
      }),
      { numRuns: 100, examples: [[MAX_TTL_MS], [MAX_TTL_MS - 1000], [MAX_TTL_MS - 1001], [MAX_TTL_MS + 1], [0.5], [Number.MIN_VALUE]] },
    );
  });
});

describe('random operation sequences through two clients', () => {
  it('match the sequential model of the contract, with fencing tokens rising on every win', { timeout: TIMEOUT_MS }, async () => {
    const prefix = etcd.uniquePrefix();
    const clients = [etcd.provider({ prefix }), etcd.provider({ prefix })];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(opSequence, async (sequence) => {
        const namespace = `run-${++run}/`;
        const model = new LeaseModel({ transferToHolderSucceeds: true });
        const lastToken = new Map<string, bigint>();
        for (const [client, op] of sequence) {
          const scoped = withKey(op, (k) => namespace + k);
          const expected = model.apply(op);
          if (scoped.kind === 'acquire') {
            const result = await clients[client]!.acquireLease(scoped.key, scoped.owner, TTL_MS);
            expect({ acquired: result.acquired, owner: result.owner }, JSON.stringify(op)).toEqual(expected);
            if (result.acquired) {
              const token = BigInt(result.fencingToken!);
              expect(token > (lastToken.get(op.key) ?? -1n)).toBe(true);
              lastToken.set(op.key, token);
            }
          } else {
            expect(await runOp(clients[client]!, scoped, TTL_MS), JSON.stringify(op)).toEqual(expected);
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  it('concurrent operations on distinct keys (one group-commit batch) match the model too', { timeout: TIMEOUT_MS }, async () => {
    const prefix = etcd.uniquePrefix();
    const clients = [etcd.provider({ prefix }), etcd.provider({ prefix })];
    let run = 0;
    const batches = fc.array(
      fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 1 }), opSequence.map((s) => s[0]![1])), {
        selector: ([, op]: [number, LeaseOp]) => op.key,
        minLength: 1,
        maxLength: 3,
      }),
      { minLength: 1, maxLength: 5 },
    );
    await fc.assert(
      fc.asyncProperty(batches, async (steps) => {
        const namespace = `batch-${++run}/`;
        const model = new LeaseModel({ transferToHolderSucceeds: true });
        for (const step of steps) {
          // Distinct keys commute, so the model may apply them in any order.
          const expected = step.map(([, op]) => model.apply(op));
          const actual = await Promise.all(step.map(([client, op]) => runOp(clients[client]!, withKey(op, (k) => namespace + k), TTL_MS)));
          expect(actual, JSON.stringify(step)).toEqual(expected);
        }
      }),
      { numRuns: 80 },
    );
  });
});
