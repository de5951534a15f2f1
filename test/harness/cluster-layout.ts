import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../../cli/demo/free-ports.js';

/** Where one member lives on this machine: its own listeners (not the proxies) and files. */
export interface MemberLayout {
  readonly index: number;
  readonly name: string;
  /** etcd's --data-dir; created empty (mode 0700, which etcd insists on) so it can be bind-mounted. */
  readonly dataDir: string;
  /** etcd's stderr, beside the data dir rather than in it: etcd warns about unknown files there. */
  readonly logFile: string;
  readonly clientPort: number;
  readonly peerPort: number;
  /** The fault proxies in front of the member: what clients and peers are told to dial. */
  readonly clientProxyPort: number;
  readonly peerProxyPort: number;
}

export interface ClusterLayout {
  /** One temp dir per cluster, so cleanup is a single recursive remove. */
  readonly rootDir: string;
  /**
   * --initial-cluster-token, unique per cluster: the cluster ID is derived from it, so a member
   * of one test cluster can never join another one that happens to reuse its ports.
   */
  readonly token: string;
  readonly members: readonly MemberLayout[];
}

export async function createClusterLayout(size: number): Promise<ClusterLayout> {
  const rootDir = await mkdtemp(join(tmpdir(), 'etcd-harness-'));
  try {
    // One call for all ports, etcd's and the proxies': ports picked separately could collide,
    // because each is released as soon as it is read.
    const ports = await freePorts(4 * size);
    const members: MemberLayout[] = [];
    for (let index = 0; index < size; index++) {
      const name = `m${index}`;
      const dataDir = join(rootDir, name);
      await mkdir(dataDir, { mode: 0o700 });
      members.push({
        index,
        name,
        dataDir,
        logFile: join(rootDir, `${name}.log`),
        clientPort: ports[4 * index]!,
        peerPort: ports[4 * index + 1]!,
        clientProxyPort: ports[4 * index + 2]!,
        peerProxyPort: ports[4 * index + 3]!,
      });
    }
    return { rootDir, token: `harness-${randomUUID()}`, members };
  } catch (error) {
    await rm(rootDir, { recursive: true, force: true });
    throw error;
  }
}

export async function removeClusterLayout(layout: ClusterLayout): Promise<void> {
  await rm(layout.rootDir, { recursive: true, force: true });
}

/** For process-exit hooks, which cannot wait for promises. */
export function removeClusterLayoutSync(layout: ClusterLayout): void {
  rmSync(layout.rootDir, { recursive: true, force: true });
}
