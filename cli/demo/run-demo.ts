import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { startCluster } from '../../launcher/cluster.js';
import { NoEtcdError, runningFrom } from '../../launcher/no-etcd-error.js';
import type { EtcdCluster } from '../../launcher/types.js';
import { deriveBeliefWindows } from '../../safety-checker/belief-windows.js';
import { checkFencingMonotonic, findOverlaps } from '../../safety-checker/check-overlaps.js';
import { longestStall, summarize } from '../../safety-checker/stalls.js';
import { print, printError } from '../command.js';
import type { ConnectionSettings } from '../connection.js';
import { describeError } from '../describe-error.js';
import { quote } from '../key-text.js';
import { count } from './count-words.js';
import { LeaseStore } from '../lease-store.js';
import { isInjected, runFaultPlan, type FaultEvent } from './fault-plan.js';
import { WorkerFleet } from './fleet.js';
import { LiveState } from './live-state.js';
import type { MemberView } from './live-frame.js';
import { LiveView } from './live-view.js';
import { renderReport } from './report-html.js';
import { preStartLines, wrapWords } from './pre-start.js';
import { summaryLine } from './summary-line.js';
import { now, type DemoOp, type WorkerConfig } from './worker-protocol.js';

export interface DemoOptions {
  /** The CLI entry file, forked again for each worker. */
  readonly cliEntry: string;
  /** An existing cluster to run against (nothing is killed); undefined: start a local one. */
  readonly external: ConnectionSettings | undefined;
  /** Parent of the run's own unique prefix. */
  readonly basePrefix: string;
  readonly durationMs: number;
  readonly workers: number;
  readonly keys: number;
  readonly ttlMs: number;
  readonly reportPath: string;
}

const RENDER_EVERY_MS = 500;
/** The package's own design document (docs/ ships with it), beside this file's folder as source and as dist/cli.js. */
const DESIGN_URL = `${new URL('../docs/design.md', import.meta.url.includes('/dist/') ? import.meta.url : new URL('../', import.meta.url)).href}#belief-windows`;
const LEADER_POLL_EVERY_MS = 2000;

/**
 * The whole demo: a cluster (local, or the operator's), worker processes contending for thread
 * keys, faults on a schedule, a live view, then teardown, the verdict from the recorded history,
 * report.html and the summary line. Exit code 1 when the history shows a safety violation.
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const stopEarly = new AbortController();
  // Where "stopping early" is said: stderr until the live view runs, then the view (which keeps it on screen).
  const notice = { stopping: (text: string): void => printError(`\n${text}`) };
  const onSignal = (): void => {
    if (stopEarly.signal.aborted) process.exit(130); // second Ctrl-C: exit hooks kill everything
    notice.stopping('stopping early: releasing leases and tearing down (Ctrl-C again to abort at once)');
    stopEarly.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const prefix = `${options.basePrefix}${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}/`;
  let cluster: EtcdCluster | undefined;
  try {
    let connection: ConnectionSettings;
    if (options.external === undefined) {
      print('starting a local 3-member etcd cluster on 127.0.0.1 …');
      cluster = await startLocalCluster();
      connection = { hosts: cluster.endpoints(), prefix, timeoutMs: 5000, explicitEndpoints: false };
      for (const line of wrapWords(`cluster up: ${cluster.endpoints().join(', ')}`)) print(line);
    } else {
      connection = { ...options.external, prefix };
      for (const line of wrapWords(`using the cluster at ${connection.hosts.join(', ')}; nothing will be killed`)) print(line);
    }
    return await run(options, connection, cluster, stopEarly.signal, notice);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cluster?.stop();
  }
}

/**
 * Three etcd members on loopback, straight on their ports (the demo faults members, not links): processes of
 * the etcd binary, else containers when Docker runs (the launcher's one choice). Processes run in their own
 * process group: a Ctrl-C reaches the demo, which lets the workers release first.
 */
async function startLocalCluster(): Promise<EtcdCluster> {
  try {
    return await startCluster({ size: 3, label: 'etcd-lease-demo', signals: 'caller' });
  } catch (error) {
    // Its message already names every way to get etcd, ETCD_ENDPOINTS (a running cluster) among them.
    if (error instanceof NoEtcdError) throw error;
    throw new Error(`local ${(error as Error).message}\n(set ETCD_BIN to the etcd binary, or ETCD_ENDPOINTS to use a running cluster)`, { cause: error });
  }
}

async function run(
  options: DemoOptions,
  connection: ConnectionSettings,
  cluster: EtcdCluster | undefined,
  stopEarly: AbortSignal,
  notice: { stopping: (text: string) => void },
): Promise<number> {
  // Mastra's thread key shape: resourceId + NUL + threadId.
  const keys = Array.from({ length: options.keys }, (_, i) => `demo-user\u0000thread-${i + 1}`);
  const workerIds = Array.from({ length: options.workers }, (_, i) => `w${i + 1}`);
  const state = new LiveState(keys);
  const fleet = new WorkerFleet(options.cliEntry, (ops) => state.apply(ops));
  const faults: FaultEvent[] = [];
  const problems: string[] = [];
  let history: DemoOp[] = [];
  let startAt = now();
  let endAt = startAt;
  let view: LiveView | undefined;

  try {
    const configs: WorkerConfig[] = workerIds.map((workerId) => ({ workerId, connection, keys, ttlMs: options.ttlMs, maxHeld: 2 }));
    for (const line of preStartLines({ firstKey: keys[0] as string, prefix: connection.prefix, hosts: connection.hosts, from: runningFrom() })) print(line);
    print(`starting ${count(options.workers, 'worker process', 'worker processes')} …`);
    await fleet.start(configs);
    startAt = now();

    const where = cluster === undefined ? `cluster ${connection.hosts.join(',')}` : 'local 3-member cluster';
    view = new LiveView(process.stdout, `etcd-lease demo: ${where}, ${count(options.workers, 'worker')}, ${count(options.keys, 'key')}, ttl ${options.ttlMs} ms`, startAt, options.durationMs);
    const live = view;
    live.start();
    notice.stopping = (text) => live.stopping(text);
    const runEnd = new AbortController();
    const timer = setTimeout(() => runEnd.abort(), options.durationMs);
    const forward = (): void => runEnd.abort();
    // Ctrl-C may have come while the cluster or the workers were starting.
    if (stopEarly.aborted) runEnd.abort();
    else stopEarly.addEventListener('abort', forward, { once: true });

    const plan =
      cluster === undefined
        ? Promise.resolve()
        : runFaultPlan(cluster, startAt, options.durationMs, runEnd.signal, (event) => {
            faults.push(event);
            live.event(event);
          }).catch((error: unknown) => {
            problems.push(`fault plan failed: ${describeError(error)}`);
            live.note(`fault plan failed: ${describeError(error)}`);
          });

    let leader: number | undefined;
    const pollLeader = async (): Promise<void> => {
      // The leader as it is right now, without waiting: none during an election.
      if (cluster !== undefined) leader = await cluster.leader(1).catch(() => undefined);
    };
    void pollLeader();
    const leaderPoller = setInterval(() => void pollLeader(), LEADER_POLL_EVERY_MS);
    const members = (): MemberView[] | undefined =>
      cluster?.members().map((m) => ({ name: m.name, state: m.state, leader: m.index === leader }));
    const renderer = setInterval(() => live.render(state, members()), RENDER_EVERY_MS);

    await new Promise<void>((resolve) => (runEnd.signal.aborted ? resolve() : runEnd.signal.addEventListener('abort', () => resolve(), { once: true })));
    clearTimeout(timer);
    stopEarly.removeEventListener('abort', forward);
    await plan; // repairs whatever is still broken, so the final releases find a quorum
    clearInterval(leaderPoller);
    clearInterval(renderer);
    live.note(`${stopEarly.aborted ? 'stopped early' : 'time is up'}: workers release their leases`);
    live.render(state, members());
    history = await fleet.stop();
    endAt = now();
    await pollLeader();
    live.render(state, members());
  } finally {
    view?.close();
    notice.stopping = (text) => printError(text);
    await fleet.stop(1000).catch(() => undefined); // no-op after a clean stop
    if (cluster === undefined) await cleanUp(connection);
  }

  const summary = summarize(history);
  const windows = deriveBeliefWindows(history);
  const overlaps = findOverlaps(windows);
  const fencingViolations = checkFencingMonotonic(history).length;
  const figures = { ...summary, faults: faults.filter(isInjected).length };
  const etcdVersion = await serverVersion(connection);
  const line = summaryLine(figures);
  const lastMoment = Math.max(endAt, ...windows.map((w) => w.end));
  const report = renderReport({
    mode: cluster === undefined ? `cluster at ${connection.hosts.join(', ')}` : 'local 3-member etcd cluster (child processes on 127.0.0.1)',
    startAt,
    endAt: lastMoment,
    keys,
    workers: workerIds,
    ttlMs: options.ttlMs,
    ops: history,
    windows,
    overlaps,
    fencingViolations,
    faults,
    stall: longestStall(history),
    summaryLine: line,
    etcdVersion,
    designUrl: DESIGN_URL,
  });
  const reportPath = resolve(options.reportPath);
  await writeFile(reportPath, report);

  for (const problem of problems) printError(problem);
  if (overlaps.length > 0) printError(`SAFETY VIOLATION: ${overlaps.length} overlapping belief windows (see the report)`);
  if (fencingViolations > 0) printError(`SAFETY VIOLATION: ${fencingViolations} fencing-token violations (see the report)`);
  print(`report: ${reportPath}`);
  print(line);
  return overlaps.length > 0 || fencingViolations > 0 || problems.length > 0 ? 1 : 0;
}

/** On someone else's cluster, leave nothing behind: keys whose release failed would otherwise wait out their TTL. */
async function cleanUp(connection: ConnectionSettings): Promise<void> {
  const store = new LeaseStore(connection);
  try {
    const deleted = await store.deleteAll();
    print(`cleaned up: prefix ${quote(connection.prefix)} is empty${deleted > 0 ? ` (${deleted} leftover keys deleted)` : ''}`);
  } catch (error) {
    printError(`could not delete the demo's keys under ${quote(connection.prefix)}: ${describeError(error)}`);
  } finally {
    store.close();
  }
}

/** The etcd server's version as a member reports it (maintenance status), for the report; undefined if none answers. */
async function serverVersion(connection: ConnectionSettings): Promise<string | undefined> {
  const store = new LeaseStore(connection);
  try {
    const gaveUp = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3000).unref());
    const status = await Promise.race([store.client.maintenance.status(), gaveUp]);
    return status?.version;
  } catch {
    return undefined;
  } finally {
    store.close();
  }
}
