import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './free-ports.js';

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
  /** The fault proxies in front of the member (what clients and peers dial), when the cluster has them. */
  readonly proxyPorts: { readonly client: number; readonly peer: number } | undefined;
}

export interface ClusterLayout {
  /** One temp dir per cluster, so cleanup is a single recursive remove. */
  readonly rootDir: string;
  /**
   * --initial-cluster-token, unique per cluster: the cluster ID is derived from it, so a member
   * of one cluster can never join another one that happens to reuse its ports.
   */
  readonly token: string;
  readonly members: readonly MemberLayout[];
}

/** Where clients and peers are told to reach each member: its own ports, or the proxies in front of them. */
export interface MemberAddresses {
  clientUrl(index: number): string;
  peerUrl(index: number): string;
}

export async function createClusterLayout(size: number, label: string, withProxies: boolean): Promise<ClusterLayout> {
  const rootDir = await mkdtemp(join(tmpdir(), `${label}-`));
  try {
    // One call for all ports, etcd's and the proxies': ports picked separately could collide,
    // because each is released as soon as it is read.
    const perMember = withProxies ? 4 : 2;
    const ports = await freePorts(perMember * size);
    const members: MemberLayout[] = [];
    for (let index = 0; index < size; index++) {
      const name = `m${index}`;
      const dataDir = join(rootDir, name);
      await mkdir(dataDir, { mode: 0o700 });
      const port = (k: number) => ports[perMember * index + k]!;
      members.push({
        index,
        name,
        dataDir,
        logFile: join(rootDir, `${name}.log`),
        clientPort: port(0),
        peerPort: port(1),
        proxyPorts: withProxies ? { client: port(2), peer: port(3) } : undefined,
      });
    }
    return { rootDir, token: `${label}-${randomUUID()}`, members };
  } catch (error) {
    await rm(rootDir, { recursive: true, force: true });
    throw error;
  }
}

/** Members reached on their own ports: no proxy in the path. */
export function directAddresses(layout: ClusterLayout, clientScheme: 'http' | 'https'): MemberAddresses {
  const member = (index: number) => layout.members[index]!;
  return {
    clientUrl: (index) => `${clientScheme}://127.0.0.1:${member(index).clientPort}`,
    peerUrl: (index) => `http://127.0.0.1:${member(index).peerPort}`,
  };
}

export async function removeClusterLayout(layout: ClusterLayout): Promise<void> {
  await rm(layout.rootDir, { recursive: true, force: true });
}

/** For process-exit hooks, which cannot wait for promises. */
export function removeClusterLayoutSync(layout: ClusterLayout): void {
  rmSync(layout.rootDir, { recursive: true, force: true });
}
