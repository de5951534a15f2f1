/**
 * Opt-in soak showing that EtcdPubSub keeps etcd's db size flat over several minutes: a throwaway 3-member
 * cluster (etcd from PATH or ETCD_BIN, no fault proxies) with periodic auto-compaction, EtcdPubSub publishers and
 * subscribers at a steady rate for several retention periods, and every member's in-use db size sampled from its
 * /metrics. Exits 1 if the size keeps growing after warm-up (see flatness.ts for the rule), if a publish failed or
 * if the subscribers stopped getting events.
 *
 *   npm run soak:pubsub                                   # 4 min, 100 events/s, 60 s retention, compaction 30s
 *   npm run soak:pubsub -- --minutes 20 --compaction-retention 5m
 *   npm run soak:pubsub -- --compaction-retention 0       # control: no compaction, should fail
 *
 * The compaction mode is the README's (`--auto-compaction-mode=periodic`); its retention is shorter by default so
 * that several compactions fit in a few minutes — with 5m, warm-up alone is over 10 minutes. Not part of `npm test`
 * or CI. Starts etcd members: on a shared machine, run it where nothing else runs a cluster.
 */
import { parseArgs } from 'node:util';

import type { Event } from '@mastra/core/events';

import { startCluster } from '../../launcher/cluster.js';
import { EtcdPubSub } from '../../src/mastra/etcd-pubsub.js';
import { judgeFlatness, type Point } from './flatness.js';
import { readMember, type MemberSample } from './member-metrics.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '4' },
    rate: { type: 'string', default: '100' },
    payload: { type: 'string', default: '400' },
    retention: { type: 'string', default: '60' },
    'compaction-retention': { type: 'string', default: '30s' },
    interval: { type: 'string', default: '10' },
    tolerance: { type: 'string', default: '1.2' },
  },
});
const positive = (name: string, raw: string | undefined): number => {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name}: a number above 0, got ${raw}`);
  return n;
};
const durationS = positive('minutes', values.minutes) * 60;
const rate = positive('rate', values.rate);
const payloadBytes = positive('payload', values.payload);
const retentionS = positive('retention', values.retention);
const intervalS = positive('interval', values.interval);
const tolerance = positive('tolerance', values.tolerance);
const compaction = values['compaction-retention']!;
const compactionS = compactionSeconds(compaction);

/** etcd's periodic retention ('30s', '5m', '1h', or a bare number of hours) in seconds; 0 means off. */
function compactionSeconds(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(raw);
  if (!m) throw new Error(`--compaction-retention: like 30s, 5m or 1h (0: off), got ${raw}`);
  return Number(m[1]) * ({ s: 1, m: 60, h: 3600 }[m[2] ?? 'h'] ?? 3600);
}

// Warm-up: the first events have expired (retention) and two compactions have freed the history behind them. The
// windows the verdict compares are two compaction periods long; without compaction, one minute.
const windowS = compactionS > 0 ? 2 * compactionS : 60;
const warmUpS = retentionS + windowS;

const TOPICS = 4; // agent threads, two per publishing "pod"
const GROUP_TOPIC = 'soak.work'; // one grouped topic, as Mastra's workers use: claims are keys too
const THREAD_SHARE = 0.9; // of `rate`; the rest goes to the grouped topic

interface Pace {
  published: number;
  failed: number;
  firstError?: string;
}

/** Publishes `perSecond` events to `topic` until `stopAt`, each awaited, at a fixed cadence (no catch-up bursts). */
async function steady(pubsub: EtcdPubSub, topic: string, type: string, perSecond: number, stopAt: number, pace: Pace): Promise<void> {
  const gapMs = 1000 / perSecond;
  const pad = 't'.repeat(payloadBytes);
  let next = performance.now();
  for (let n = 0; performance.now() < stopAt; n++) {
    try {
      await pubsub.publish(topic, { type, runId: topic, data: { n, pad } });
      pace.published++;
    } catch (error) {
      pace.failed++;
      pace.firstError ??= String(error);
    }
    next = Math.max(next + gapMs, performance.now());
    await new Promise((r) => setTimeout(r, next - performance.now()));
  }
}

async function main(): Promise<number> {
  const compactionArgs = compactionS > 0 ? ['--auto-compaction-mode=periodic', `--auto-compaction-retention=${compaction}`] : [];
  const cluster = await startCluster({ size: 3, label: 'pubsub-soak', faultProxies: false, extraArgs: compactionArgs });
  const options = { hosts: cluster.endpoints(), prefix: 'soak/lease/', eventPrefix: 'soak/events/', retentionMs: retentionS * 1000 };
  // Two publishing pods and two subscribing pods, each with its own client and watch stream.
  const pods = [new EtcdPubSub(options), new EtcdPubSub(options), new EtcdPubSub(options), new EtcdPubSub(options)];
  const [pubA, pubB, subA, subB] = pods as [EtcdPubSub, EtcdPubSub, EtcdPubSub, EtcdPubSub];
  try {
    let fanout = 0;
    let grouped = 0;
    for (let i = 0; i < TOPICS; i++) await subA.subscribe(`agent.thread-stream.soak-${i}`, (_e: Event, ack) => void (fanout++, ack?.()));
    for (const sub of [subA, subB]) await sub.subscribe(GROUP_TOPIC, (_e: Event, ack) => void (grouped++, ack?.()), { group: 'workers' });

    console.log(
      `soak: ${durationS / 60} min, ${rate} events/s of ${payloadBytes} B (${TOPICS} thread topics, ${Math.round((1 - THREAD_SHARE) * 100)}% grouped), ` +
        `retention ${retentionS} s, compaction ${compactionS > 0 ? `periodic ${compaction}` : 'off'}; warm-up ${warmUpS} s, windows ${windowS} s, tolerance ${tolerance}x`,
    );
    const started = performance.now();
    const stopAt = started + durationS * 1000;
    const pace: Pace = { published: 0, failed: 0 };
    const load = Promise.all([
      ...Array.from({ length: TOPICS }, (_, i) => steady(i % 2 === 0 ? pubA : pubB, `agent.thread-stream.soak-${i}`, 'stream-part', (rate * THREAD_SHARE) / TOPICS, stopAt, pace)),
      steady(pubA, GROUP_TOPIC, 'work', rate * (1 - THREAD_SHARE), stopAt, pace),
    ]);

    const series: Point[][] = cluster.members().map(() => []);
    console.log('   t s  published  delivered  ' + cluster.members().map((m) => `${m.name} in-use MB  file MB   keys  compacted@`).join('  '));
    for (let tick = 0; ; tick++) {
      const dueAt = started + tick * intervalS * 1000;
      if (dueAt > stopAt + 1) break;
      await new Promise((r) => setTimeout(r, Math.max(0, dueAt - performance.now())));
      const t = Math.round((performance.now() - started) / 1000);
      const samples = await Promise.all(cluster.members().map((m) => readMember(cluster.endpoint(m.index))));
      samples.forEach((s, i) => s?.dbInUseBytes !== undefined && series[i]!.push({ t, bytes: s.dbInUseBytes }));
      console.log(`${String(t).padStart(6)}  ${String(pace.published).padStart(9)}  ${String(fanout + grouped).padStart(9)}  ${samples.map(formatSample).join('  ')}`);
    }
    await load;
    const endS = Math.round((performance.now() - started) / 1000);
    // The last publishes may still be on their way to the subscribers.
    const settleBy = performance.now() + 10_000;
    while (fanout + grouped < pace.published && performance.now() < settleBy) await new Promise((r) => setTimeout(r, 50));

    let ok = true;
    for (const [i, points] of series.entries()) {
      const v = judgeFlatness(points, warmUpS, windowS, endS, tolerance);
      console.log(`m${i}: in-use peak after warm-up ${mb(v.firstPeak)} MB, in the last ${windowS} s ${mb(v.lastPeak)} MB: ${v.ratio.toFixed(2)}x ${v.flat ? 'flat' : `GROWING (over ${tolerance}x)`}`);
      ok &&= v.flat;
    }
    // Every thread event reaches the fan-out subscriber, every grouped one a worker; a stalled watch would show here.
    console.log(`published ${pace.published} (${(pace.published / endS).toFixed(1)}/s), failed ${pace.failed}${pace.firstError ? ` (${pace.firstError})` : ''}; delivered ${fanout} fan-out + ${grouped} grouped`);
    if (pace.failed > 0 || fanout + grouped < pace.published) ok = false;
    console.log(ok ? 'OK' : 'FAILED');
    return ok ? 0 : 1;
  } finally {
    await Promise.allSettled(pods.map((p) => p.close()));
    await cluster.stop();
  }
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(2);

function formatSample(s: MemberSample | undefined): string {
  if (s === undefined) return '(no answer)'.padEnd(39);
  const n = (v: number | undefined, f: (x: number) => string) => (v === undefined ? '-' : f(v));
  return `${n(s.dbInUseBytes, mb).padStart(12)}  ${n(s.dbFileBytes, mb).padStart(7)}  ${n(s.keys, String).padStart(5)}  ${n(s.compactRevision, String).padStart(10)}`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
