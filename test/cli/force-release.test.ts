import { afterEach, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../launcher/network/tcp-proxy.js';
import { useEtcdCluster } from '../support/etcd-fixture.js';
import { waitFor } from '../support/wait.js';
import type { EtcdLeaseProvider } from '../../src/provider.js';
import { CliProcess, cleanEnv, runCli, type CliResult } from './support/cli-process.js';

// `release --force` deletes exactly the version of the key it showed (or was given, --token): a retried attempt,
// or one delivered late, can never delete what was written after it — a renewal, or another owner's tenure.
// A blind delete would let a late or retried attempt remove a later tenure; the tests below hold a delete in a cut
// link or retry it, and check the later write survives.
const etcd = useEtcdCluster();

const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** A link of the CLI's own to member 0: the faults on it touch neither the other clients nor the peers. */
async function cliLink(latencyMs: number): Promise<FaultProxy> {
  const proxy = await FaultProxy.listen({ targetPort: Number(new URL(etcd.cluster.endpoint(0)).port) });
  proxy.setFaults({ latencyMs });
  proxies.push(proxy);
  return proxy;
}

/**
 * `release k --force` through a link of its own with latency, so the test can act between the CLI's read (it prints
 * the holder) and its delete reaching etcd: `interfere` cuts or damages the link, changes the key and heals.
 */
async function forceReleaseInterrupted(interfere: (link: FaultProxy, provider: EtcdLeaseProvider) => Promise<void>): Promise<{ result: CliResult; provider: EtcdLeaseProvider }> {
  const provider = etcd.provider();
  await provider.acquireLease('k', 'A', 15_000);
  const link = await cliLink(600);
  const cli = new CliProcess(['release', 'k', '--force', '--endpoints', link.url, '--prefix', provider.prefix, '--timeout', '30000'], cleanEnv());
  try {
    await cli.until('the holder to be shown', (p) => p.stdout.includes('held by "A"'));
    await interfere(link, provider);
    return { result: await cli.exited, provider };
  } finally {
    cli.signal('SIGKILL');
    await cli.exited;
  }
}

describe('etcd-lease release --force', () => {
  it('--token of a tenure that has since been freed and taken again deletes nothing and exits 1', async () => {
    const provider = etcd.provider();
    const first = await provider.acquireLease('k', 'A', 15_000);
    await provider.releaseLease('k', 'A');
    await provider.acquireLease('k', 'B', 15_000, 'run-b');

    const result = await runCli(['release', 'k', '--force', '--token', first.fencingToken!, '--endpoints', etcd.cluster.endpoints().join(','), '--prefix', provider.prefix]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not deleted: it was freed and taken again');
    expect(result.stderr).toContain('now held by "B" (metadata "run-b")');
    expect(await provider.getLeaseRecord('k')).toEqual({ owner: 'B', metadata: 'run-b' });
  });

  it('--token of a version the holder has since renewed deletes nothing: the holder is alive', async () => {
    const provider = etcd.provider();
    const first = await provider.acquireLease('k', 'A', 15_000);
    expect(await provider.renewLease('k', 'A', 15_000)).toBe(true);

    const result = await runCli(['release', 'k', '--force', '--token', first.fencingToken!, '--endpoints', etcd.cluster.endpoints().join(','), '--prefix', provider.prefix]);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('was written again (renewed or transferred)');
    expect(await provider.getLeaseOwner('k')).toBe('A');
  });

  it('a delete held on the way and delivered after the key was freed and taken again does not delete the new tenure', async () => {
    const { result, provider } = await forceReleaseInterrupted(async (link, provider) => {
      link.setFaults({ holdRequests: true, holdResponses: true }); // the delete is on its way: hold it (and every retry)
      await provider.releaseLease('k', 'A');
      await provider.acquireLease('k', 'B', 15_000);
      link.setFaults({ holdRequests: false, holdResponses: false, latencyMs: 0 }); // the held delete and its retries now reach etcd
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not deleted: it was freed and taken again');
    expect(await provider.getLeaseOwner('k')).toBe('B');
  });

  it('a retried delete whose first attempt committed but lost its answer never deletes the tenure taken after it', async () => {
    const { result, provider } = await forceReleaseInterrupted(async (link, provider) => {
      link.setFaults({ dropResponses: true }); // the delete commits; its answer is lost, so the CLI retries
      await waitFor('the delete to commit', async () => ((await provider.getLeaseOwner('k')) === undefined ? true : undefined), { timeoutMs: 10_000 });
      await provider.acquireLease('k', 'B', 15_000);
      link.setFaults({ dropResponses: false, latencyMs: 0 }); // the CLI reconnects; its retry meets B's tenure
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('now held by "B"');
    expect(await provider.getLeaseOwner('k')).toBe('B');
  });
});
