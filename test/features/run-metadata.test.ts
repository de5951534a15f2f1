import { EventEmitterPubSub, type LeaseProvider } from '@mastra/core/events';
import { describe, expect, it } from 'vitest';
import { EtcdLeaseProvider, LeaseArgumentRangeError } from '../../src/index.js';
import { withEtcdLeases } from '../../src/mastra/index.js';
import type { LeaseRecordProvider } from '../../src/mastra/lease-record-provider.js';
import { MAX_ENTRY_BYTES } from '../../src/keys/key-codec.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';

// Run metadata (the optional extension; no Mastra passes it) where only a real cluster can show it: records written before metadata
// existed — plain owner bytes on a lease the provider never minted, exactly as earlier versions stored them — the
// bytes etcd really holds, the request-size limit, the exact acquire shape, and the Mastra adapter end to end.
// The semantics themselves (exact match, undefined vs '', transfers) run in the contract suite's metadata variant
// (test/contract/lease-contract.ts) against this provider and an in-memory model.
const etcd = useEtcdCluster();
const TTL_MS = 30_000;
const HEADER_BYTES = 6; // the envelope of keys/lease-value.ts: 0xFF, a version byte, the owner's length

/** Writes `owner` the way every version before metadata did: its plain UTF-8 bytes, on an etcd lease of its own. */
async function writeLegacy(prefix: string, key: string, owner: string): Promise<void> {
  const raw = etcd.rawClient();
  const lease = raw.lease(30, { autoKeepAlive: false });
  await lease.put(`${prefix}${key}`).value(owner);
}

async function storedBytes(prefix: string, key: string): Promise<Buffer | null> {
  return etcd.rawClient().get(`${prefix}${key}`).buffer();
}

describe('records from before metadata', () => {
  it('a provider call without metadata stores the owner as plain bytes, as every earlier version did', async () => {
    const p = etcd.provider();
    const owner = 'mastra:agent-thread:run-1';
    await p.acquireLease('k', owner, TTL_MS);
    expect(await storedBytes(p.prefix, 'k')).toEqual(Buffer.from(owner, 'utf8'));
    const info = await p.getLease('k');
    expect(info).not.toHaveProperty('metadata');
    expect(info).toMatchObject({ owner });
  });

  it('a raw legacy record reads as { owner } and is renewable, transferable and releasable without metadata — never with', async () => {
    const prefix = etcd.uniquePrefix();
    const [a, b] = [etcd.provider({ prefix }), etcd.provider({ prefix })];
    await writeLegacy(prefix, 'renew-then-transfer', 'run-legacy');
    await writeLegacy(prefix, 'release', 'run-legacy');

    expect(await a.getLeaseRecord('renew-then-transfer')).toStrictEqual({ owner: 'run-legacy' });
    expect(await b.getLeaseOwner('renew-then-transfer')).toBe('run-legacy');
    expect(await a.renewLease('renew-then-transfer', 'run-legacy', TTL_MS, 'run-legacy')).toBe(false);
    expect(await a.renewLease('renew-then-transfer', 'run-legacy', TTL_MS)).toBe(true);
    expect(await b.acquireLease('renew-then-transfer', 'run-legacy', TTL_MS, 'x')).toStrictEqual({ acquired: false, owner: 'run-legacy' });
    expect(await b.transferLease('renew-then-transfer', 'run-legacy', 'mastra:v2:a', TTL_MS, 'run-legacy', 'run-legacy')).toBe(false);
    expect(await b.transferLease('renew-then-transfer', 'run-legacy', 'mastra:v2:a', TTL_MS, undefined, 'run-legacy')).toBe(true);
    expect(await a.getLeaseRecord('renew-then-transfer')).toStrictEqual({ owner: 'mastra:v2:a', metadata: 'run-legacy' });

    await b.releaseLease('release', 'run-legacy', 'run-legacy');
    expect(await a.getLeaseRecord('release')).toStrictEqual({ owner: 'run-legacy' });
    await b.releaseLease('release', 'run-legacy');
    expect(await a.getLeaseRecord('release')).toBeUndefined();
  });

  it('a raw owner that looks like a record is never read as metadata, and moves only under its whole string', async () => {
    const prefix = etcd.uniquePrefix();
    const [a, b] = [etcd.provider({ prefix }), etcd.provider({ prefix })];
    const json = '{"owner":"parsed-owner","metadata":"parsed-run"}';
    await writeLegacy(prefix, 'k', json);
    expect(await a.getLeaseRecord('k')).toStrictEqual({ owner: json });
    expect(await b.transferLease('k', 'parsed-owner', 'new-owner', TTL_MS, 'parsed-run', 'new-run')).toBe(false);
    expect(await b.renewLease('k', 'parsed-owner', TTL_MS, 'parsed-run')).toBe(false);
    expect(await a.getLeaseRecord('k')).toStrictEqual({ owner: json });
    expect(await b.transferLease('k', json, 'new-owner', TTL_MS, undefined, 'new-run')).toBe(true);
    expect(await a.getLeaseRecord('k')).toStrictEqual({ owner: 'new-owner', metadata: 'new-run' });
  });
});

describe('metadata bytes', () => {
  it('etcd holds the owner and the metadata byte for byte: NUL and unicode unchanged, empty metadata distinct from none', async () => {
    const p = etcd.provider();
    const owner = 'o\u0000wner-é';
    for (const [key, metadata] of [
      ['nul', 'run\u0000id'],
      ['unicode', '線程-😀-\u00ff'],
      ['empty', ''],
    ] as const) {
      await p.acquireLease(key, owner, TTL_MS, metadata);
      const bytes = (await storedBytes(p.prefix, key))!;
      const ownerBytes = Buffer.from(owner, 'utf8');
      expect(bytes.subarray(HEADER_BYTES, HEADER_BYTES + ownerBytes.length)).toEqual(ownerBytes);
      expect(bytes.subarray(HEADER_BYTES + ownerBytes.length)).toEqual(Buffer.from(metadata, 'utf8'));
      expect(await p.getLease(key)).toMatchObject({ owner, metadata });
    }
    await p.acquireLease('none', owner, TTL_MS);
    expect(await storedBytes(p.prefix, 'none')).toEqual(Buffer.from(owner, 'utf8'));
    expect(await p.getLeaseRecord('none')).toStrictEqual({ owner });
  });

  it('metadata counts toward the size limit: the largest entry is stored, one byte more is refused and writes nothing', async () => {
    const p = etcd.provider();
    const key = 'size';
    const owner = 'A';
    const fits = 'm'.repeat(MAX_ENTRY_BYTES - Buffer.byteLength(p.prefix + key) - HEADER_BYTES - owner.length);
    const tooLong = `${fits}m`;

    const refused = await p.acquireLease(key, owner, TTL_MS, tooLong).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LeaseArgumentRangeError);
    expect(await p.getLeaseOwner(key)).toBeUndefined();

    expect(await p.acquireLease(key, owner, TTL_MS, fits)).toMatchObject({ acquired: true });
    expect((await p.getLeaseRecord(key))?.metadata).toBe(fits);
    await expect(p.renewLease(key, owner, TTL_MS, tooLong)).rejects.toBeInstanceOf(LeaseArgumentRangeError);
    await expect(p.releaseLease(key, owner, tooLong)).rejects.toBeInstanceOf(LeaseArgumentRangeError);
    // A transfer carries the old and the new holder: together they must fit, each alone is not enough.
    await expect(p.transferLease(key, owner, 'B', TTL_MS, fits, 'run-b')).rejects.toBeInstanceOf(LeaseArgumentRangeError);
    expect(await p.getLeaseRecord(key)).toStrictEqual({ owner, metadata: fits });
  });
});

describe("Mastra's exact acquire shape", () => {
  it('contractResults: true resolves exactly { acquired: true, owner }, with and without metadata; the default adds the fencing token', async () => {
    const prefix = etcd.uniquePrefix();
    const exact = etcd.provider({ prefix, contractResults: true });
    const other = etcd.provider({ prefix, contractResults: true });
    expect(await exact.acquireLease('plain', 'owner-a', TTL_MS)).toStrictEqual({ acquired: true, owner: 'owner-a' });
    expect(await exact.acquireLease('plain', 'owner-a', TTL_MS)).toStrictEqual({ acquired: true, owner: 'owner-a' });
    expect(await exact.acquireLease('scoped', 'owner-a', TTL_MS, 'run-a')).toStrictEqual({ acquired: true, owner: 'owner-a' });
    expect(await other.acquireLease('scoped', 'owner-a', TTL_MS, 'run-a')).toStrictEqual({ acquired: true, owner: 'owner-a' });
    expect(await other.acquireLease('scoped', 'owner-b', TTL_MS, 'run-b')).toStrictEqual({ acquired: false, owner: 'owner-a' });

    const extended = await etcd.provider().acquireLease('k', 'owner-a', TTL_MS);
    expect(extended).toStrictEqual({ acquired: true, owner: 'owner-a', fencingToken: expect.stringMatching(/^\d+$/) });
  });
});

describe('withEtcdLeases on a real cluster', () => {
  it('passes run metadata through to etcd and offers getLeaseRecord only with a provider that keeps metadata', async () => {
    const prefix = etcd.uniquePrefix();
    const reader = etcd.provider({ prefix });
    // Plain, and with an error policy (which wraps the provider): both must keep metadata and getLeaseRecord.
    for (const options of [{}, { onLeaseError: () => {} }]) {
      const pubsub = withEtcdLeases(new EventEmitterPubSub(), { hosts: etcd.cluster.endpoints(), prefix }, options);
      try {
        const leases = pubsub.getLeaseProvider() as LeaseRecordProvider;
        expect(typeof pubsub.getLeaseRecord).toBe('function');
        expect(typeof leases.getLeaseRecord).toBe('function');
        const key = `thread-${Object.keys(options).length}`;
        expect(await pubsub.acquireLease(key, 'owner-a', TTL_MS, 'run-a')).toMatchObject({ acquired: true, owner: 'owner-a' });
        expect(await reader.getLeaseRecord(key)).toStrictEqual({ owner: 'owner-a', metadata: 'run-a' });
        expect(await pubsub.renewLease(key, 'owner-a', TTL_MS, 'wrong-run')).toBe(false);
        expect(await leases.renewLease(key, 'owner-a', TTL_MS, 'run-a')).toBe(true);
        expect(await pubsub.transferLease(key, 'owner-a', 'owner-b', TTL_MS, 'run-a', 'run-b')).toBe(true);
        expect(await pubsub.getLeaseRecord!(key)).toStrictEqual({ owner: 'owner-b', metadata: 'run-b' });
        await pubsub.releaseLease(key, 'owner-b', 'wrong-run');
        expect(await reader.getLeaseOwner(key)).toBe('owner-b');
        await leases.releaseLease(key, 'owner-b', 'run-b');
        expect(await reader.getLeaseRecord(key)).toBeUndefined();
      } finally {
        await pubsub.close();
      }
    }
    // A provider without getLeaseRecord (Mastra's in-memory one): the adapter must not claim to keep metadata.
    const legacy = withEtcdLeases(new EventEmitterPubSub(), new EventEmitterPubSub() as LeaseProvider);
    expect('getLeaseRecord' in legacy).toBe(false);
    expect('getLeaseRecord' in legacy.getLeaseProvider()).toBe(false);
    await legacy.close();
    // The etcd provider itself keeps metadata, so it has getLeaseRecord.
    expect(typeof (reader as EtcdLeaseProvider).getLeaseRecord).toBe('function');
  });
});
