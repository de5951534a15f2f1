import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { getContainerRuntimeClient } from 'testcontainers';
import type { ClusterOptions } from './types.js';
import { ensureEtcdImage } from './etcd-image.js';
import { onProcessExit } from './exit-cleanup.js';
import { launchCluster } from './launch.js';
import type { ManagedCluster } from './managed-cluster.js';
import { runningMember, unavailableReason, type MemberDriver, type MemberLaunch } from './member-driver.js';

/**
 * Runs each member in a container of `image` (the official etcd image, or one built offline by
 * launcher/build-etcd-image.sh). Host networking, with etcd bound to 127.0.0.1 by its flags: the in-process
 * fault proxies reach members exactly as they reach child processes, and nothing uses a bridge network.
 */
export async function startContainerCluster(options: ClusterOptions, image: string): Promise<ManagedCluster> {
  // The reaper image may not be pullable (offline), and this driver removes its own containers
  // (stop() and the exit hook), so default to no reaper unless the caller decided otherwise.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // Loaded here, not at the top: testcontainers is a devDependency, and the built CLI, which bundles
  // this launcher for its demo, must load where it is not installed.
  const testcontainers = await import('testcontainers');
  const runtime = await testcontainers.getContainerRuntimeClient();
  await ensureEtcdImage(image);
  return launchCluster(new ContainerMemberDriver(testcontainers, image, runtime), options);
}

type Testcontainers = typeof import('testcontainers');
type Runtime = Awaited<ReturnType<typeof getContainerRuntimeClient>>;
type DockerContainer = ReturnType<Runtime['container']['getById']>;

interface RunningMember {
  readonly container: DockerContainer;
  /** Resolves when the container exits, for whatever reason. */
  readonly exited: Promise<void>;
  paused: boolean;
  ended: string | undefined;
  readonly forgetOnExit: () => void;
}

class ContainerMemberDriver implements MemberDriver {
  private readonly members = new Map<number, RunningMember>();

  constructor(
    private readonly testcontainers: Testcontainers,
    private readonly image: string,
    private readonly runtime: Runtime,
  ) {}

  async start(member: MemberLaunch): Promise<void> {
    const current = this.members.get(member.index);
    if (current !== undefined && current.ended === undefined) {
      throw new Error(`member ${member.index} is still running; kill it before restarting it`);
    }
    const log = createWriteStream(member.logFile, { flags: 'a' });
    const { GenericContainer, Wait } = this.testcontainers;
    const container = new GenericContainer(this.image)
      .withNetworkMode('host')
      // The official image has no entrypoint (only a command); the locally built one has this same path.
      .withEntrypoint(['/usr/local/bin/etcd'])
      // Same path inside as outside, so both drivers share one command line, and a restarted
      // container finds the data the killed one left.
      .withBindMounts([
        { source: member.dataDir, target: member.dataDir, mode: 'rw' },
        ...(member.readOnlyFiles ?? []).map((file) => ({ source: file, target: file, mode: 'ro' as const })),
      ])
      // Whose container this is: a run that keeps its temp dirs in a folder of its own (CI) finds its
      // leftovers by this label, and never touches a container it did not start.
      .withLabels({ 'etcd-lease-provider.data-dir': member.dataDir })
      // Run as the host user so the data dir stays removable without root.
      .withUser(hostUser())
      .withCommand([...member.args])
      .withLogConsumer((stream) => stream.pipe(log))
      // Printed before etcd needs its peers, so one member's start never waits on another's;
      // whether it serves is the shared health wait's job.
      .withWaitStrategy(Wait.forLogMessage(/starting an etcd server/))
      .withStartupTimeout(30_000);
    let id: string;
    try {
      id = (await container.start()).getId();
    } catch (error) {
      log.end();
      throw new Error(`cannot start member ${member.index} from image ${this.image}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const docker = this.runtime.container.getById(id);
    const running: RunningMember = {
      container: docker,
      exited: docker.wait().then(
        (result: { StatusCode?: number }) => {
          running.ended ??= `container exited with code ${result.StatusCode}`;
        },
        () => {
          running.ended ??= 'container is gone';
        },
      ),
      paused: false,
      ended: undefined,
      forgetOnExit: onProcessExit(() => {
        spawnSync('docker', ['rm', '--force', id], { stdio: 'ignore' });
      }),
    };
    this.members.set(member.index, running);
  }

  async kill(index: number): Promise<void> {
    const member = runningMember(this.members, index);
    member.ended = 'killed';
    await member.container.kill({ signal: 'SIGKILL' });
    await member.exited;
    await this.remove(member);
  }

  async pause(index: number): Promise<void> {
    const member = runningMember(this.members, index);
    await member.container.pause();
    member.paused = true;
  }

  async resume(index: number): Promise<void> {
    const member = runningMember(this.members, index);
    await member.container.unpause();
    member.paused = false;
  }

  unavailable(index: number): string | undefined {
    return unavailableReason(this.members.get(index));
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.members.values()].map(async (member) => {
        member.ended ??= 'stopped';
        await this.remove(member);
      }),
    );
  }

  /** Force-removal also kills a running or paused container; a missing one is fine. */
  private async remove(member: RunningMember): Promise<void> {
    try {
      await member.container.remove({ force: true });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
    member.forgetOnExit();
  }
}

function hostUser(): string {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return `${uid}:${gid}`;
}
