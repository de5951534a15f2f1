import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { EtcdLeaseProvider } from '../../src/index.js';
import { EtcdPubSub } from '../../src/mastra/index.js';
import { findExecutable } from '../../launcher/find-executable.js';
import { startCluster, type TestCluster } from '../harness/cluster.js';
import { waitFor } from '../support/wait.js';

// The dashboard and the alert rules of examples/observability/ reference only what a real run exports: a provider and
// an EtcdPubSub on a real cluster, through OpenTelemetry's Prometheus exporter, go through every path that makes a
// series (acquires won, contended and failed, a hold and a waiter, a lease lost, nacks and a drop, a write-behind
// flush that fails, a watch that resumes), and every metric name and label in the dashboard's queries and the
// rules' expressions must be in the scrape. The rules also pass promtool's checks and their own unit tests.

const EXAMPLES = fileURLToPath(new URL('../../examples/observability/', import.meta.url));
/** Labels Prometheus adds when it scrapes (never in an exporter's output). */
const ADDED_BY_PROMETHEUS = new Set(['job', 'instance']);
/** PromQL words that look like labels or metrics in a `by (…)` clause or an expression. */
const PROMQL_WORDS = new Set(['sum', 'max', 'min', 'rate', 'increase', 'by', 'histogram_quantile', 'and', 'or', 'unless']);

function promtool(): string {
  const found = findExecutable('promtool');
  if (found === undefined) throw new Error('promtool not found: install Debian’s prometheus package (apt-get install -y prometheus)');
  return found;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: EXAMPLES, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${stdout}${stderr}`, { cause: error }));
      else resolve(stdout + stderr);
    });
  });
}

/** Every PromQL expression of the dashboard and the rules. */
function expressions(): Array<{ where: string; expr: string }> {
  const dashboard = JSON.parse(readFileSync(`${EXAMPLES}grafana-dashboard.json`, 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ name: string; definition?: string }> };
  };
  const rules = parseYaml(readFileSync(`${EXAMPLES}alert-rules.yml`, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
  return [
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
    ...dashboard.templating.list.flatMap((v) => (v.definition === undefined ? [] : [{ where: `variable ${v.name}`, expr: v.definition }])),
    ...rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
  ];
}

/** Metric names and label names an expression references. */
function references(expr: string): { metrics: string[]; labels: string[] } {
  const metrics = [...expr.matchAll(/\blease_provider_[a-z_]+/g)].map((m) => m[0]);
  const labels = [
    ...[...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!=|!~|=)/g)].map((l) => l[1]!)),
    ...[...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim())),
  ].filter((l) => l !== '' && !PROMQL_WORDS.has(l));
  return { metrics, labels };
}

/** Series names and label names of Prometheus text output. */
function scraped(text: string): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_:][a-z0-9_:]*)(?:\{([^}]*)\})?\s/i.exec(line);
    if (match === null) continue;
    const labels = series.get(match[1]!) ?? new Set<string>();
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(pair[1]!);
    series.set(match[1]!, labels);
  }
  return series;
}

describe('the dashboard and the alert rules, against a real run', () => {
  let cluster: TestCluster;
  let exporter: PrometheusExporter;
  let meterProvider: MeterProvider;
  let text = '';

  beforeAll(async () => {
    // One member, so that restarting it breaks every watch stream (a resume) and leaves no other member to answer.
    cluster = await startCluster({ size: 1 });
    exporter = new PrometheusExporter({ preventServerStart: true });
    meterProvider = new MeterProvider({ readers: [exporter] });
  });
  afterAll(async () => {
    await meterProvider?.shutdown();
    await cluster?.stop();
  });

  it('a provider and an EtcdPubSub on a real cluster export every series the dashboard and the rules query', async () => {
    const hosts = cluster.endpoints();
    const options = { hosts, meterProvider, deadlineMs: 2000 };
    const provider = new EtcdLeaseProvider({ ...options, prefix: 'obs/lease/' });
    const pubsub = new EtcdPubSub({ ...options, prefix: 'obs/pubsub-lease/', maxDeliveryAttempts: 2, redeliveryDelayMs: 10, publishMode: (topic) => (topic === 'stream' ? 'write-behind' : 'durable') });
    const raw = new Etcd3({ hosts });
    try {
      // Leases: won, contended, a waiter, a hold whose key is deleted under it (a loss).
      expect((await provider.acquireLease('k1', 'a', 10_000)).acquired).toBe(true);
      expect((await provider.acquireLease('k1', 'b', 10_000)).acquired).toBe(false);
      const waiting = provider.waitForLease('k1', 'b', 10_000, { timeoutMs: 20_000 });
      const handle = await provider.hold('k2', 'a', 10_000);
      await raw.delete().key('obs/lease/k2');
      await waitFor('the hold to learn it lost its key', () => handle.signal.aborted, { timeoutMs: 15_000 });
      await provider.releaseLease('k1', 'a');
      await waiting;

      // Events: delivered, nacked to the cap (a redelivery and a drop), a fan-out subscriber, published.
      const delivered: string[] = [];
      await pubsub.subscribe('fan', (event) => void delivered.push(event.type));
      await pubsub.subscribe('work', async () => {
        throw new Error('cannot');
      }, { group: 'g' });
      await pubsub.publish('fan', { type: 'hello', runId: 'r', data: null });
      await pubsub.publish('work', { type: 'job', runId: 'r', data: null });
      await waitFor('a delivery', () => delivered.length > 0, { timeoutMs: 10_000 });
      await waitFor('the drop after the last attempt', async () => (await collect(exporter)).includes('lease_provider_pubsub_dropped_events_total{'), { timeoutMs: 15_000 });

      // etcd down: an acquire fails (ELEASE_UNAVAILABLE, the member's circuit opens), a write-behind flush fails,
      // and the watch stream resumes once the member is back.
      await cluster.kill(0);
      await expect(provider.acquireLease('k3', 'a', 10_000)).rejects.toMatchObject({ code: 'ELEASE_UNAVAILABLE' });
      await pubsub.publish('stream', { type: 'chunk', runId: 'r', data: null });
      await waitFor('the failed write-behind flush', async () => (await collect(exporter)).includes('lease_provider_pubsub_write_behind_failures_total{'), { timeoutMs: 15_000 });
      await cluster.restart(0);
      await waitFor('the watch to resume', async () => (await collect(exporter)).includes('lease_provider_pubsub_watch_resumes_total{'), { timeoutMs: 30_000 });
      await pubsub.publish('fan', { type: 'again', runId: 'r', data: null });
      await waitFor('a delivery after the restart', () => delivered.includes('again'), { timeoutMs: 15_000 });
      text = await collect(exporter);
    } finally {
      raw.close();
      await pubsub.close();
      await provider.close();
    }

    const series = scraped(text);
    expect(unexported(series, expressions()), `scraped:\n${text}`).toEqual([]);
    // The comparison can fail: a metric the run does not export, and a label no referenced metric carries.
    expect(
      unexported(series, [
        { where: 'planted', expr: 'sum(rate(lease_provider_renewals_total[5m]))' },
        { where: 'planted', expr: 'sum by (tenant) (rate(lease_provider_acquire_duration_count[5m]))' },
      ]),
    ).toEqual(['planted: metric lease_provider_renewals_total', 'planted: label tenant (on lease_provider_acquire_duration_count)']);
  });

  it('the alert rules pass promtool check rules and their unit tests (each alert fires on its condition, stays quiet without it)', async () => {
    const tool = promtool();
    expect(await run(tool, ['check', 'rules', 'alert-rules.yml'])).toMatch(/SUCCESS: 10 rules found/);
    expect(await run(tool, ['test', 'rules', 'alert-rules.test.yml'])).toMatch(/SUCCESS/);
    // Every alert has a case in the unit tests.
    const rules = parseYaml(readFileSync(`${EXAMPLES}alert-rules.yml`, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string }> }> };
    const tests = readFileSync(`${EXAMPLES}alert-rules.test.yml`, 'utf8');
    for (const { alert } of rules.groups.flatMap((g) => g.rules)) {
      expect(tests, alert).toMatch(new RegExp(`alertname: ${alert}\\b[^\\n]*\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
      expect(tests, alert).toMatch(new RegExp(`alertname: ${alert}, exp_alerts: \\[\\]|alertname: ${alert}\\n\\s+exp_alerts: \\[\\]`));
    }
  });
});

/** What the expressions reference that the scrape does not have: each metric, and each label on one of them. */
function unexported(series: Map<string, Set<string>>, exprs: Array<{ where: string; expr: string }>): string[] {
  const missing: string[] = [];
  for (const { where, expr } of exprs) {
    const { metrics, labels } = references(expr);
    if (metrics.length === 0) missing.push(`${where}: queries no metric of this package: ${expr}`);
    for (const metric of metrics) {
      if (!series.has(metric)) missing.push(`${where}: metric ${metric}`);
    }
    for (const label of new Set(labels)) {
      if (ADDED_BY_PROMETHEUS.has(label)) continue;
      // A label of another metric of the same expression is fine: `by (le)` of a histogram, say.
      const present = metrics.filter((m) => series.has(m));
      if (present.length > 0 && !present.some((m) => series.get(m)!.has(label))) missing.push(`${where}: label ${label} (on ${present.join(', ')})`);
    }
  }
  return missing;
}

async function collect(exporter: PrometheusExporter): Promise<string> {
  const { resourceMetrics } = await exporter.collect();
  return new PrometheusSerializer().serialize(resourceMetrics);
}
