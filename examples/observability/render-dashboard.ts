/**
 * Draws docs/images/dashboard.svg: the dashboard of this folder as it looks during a real run. A 3-member etcd
 * cluster, Mastra-like lease holders and an EtcdPubSub workload export their metrics through OpenTelemetry's
 * Prometheus exporter; a real Prometheus server (Debian's `prometheus` package) scrapes them every second; the
 * leader is killed a third of the way in and restarted at two thirds; then every panel's own query (grafana-dashboard.json,
 * with `$job` matching all and `$__rate_interval` set to 10 s) is asked of Prometheus over the run, and drawn.
 *
 *   npx tsx examples/observability/render-dashboard.ts [--seconds 90] [--out docs/images/dashboard.svg]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { startCluster } from '../../launcher/cluster.js';
import { findExecutable } from '../../launcher/find-executable.js';
import { freePorts } from '../../launcher/free-ports.js';
import { waitFor } from '../../launcher/wait-for.js';
import { EtcdLeaseProvider } from '../../src/index.js';
import { EtcdPubSub } from '../../src/mastra/index.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '90' }, out: { type: 'string', default: join(HERE, '../../docs/images/dashboard.svg') } } });
const RUN_MS = Number(values.seconds) * 1000;

interface Panel {
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Array<{ expr: string; legendFormat: string }>;
}

async function main(): Promise<void> {
  const prometheusBin = findExecutable('prometheus');
  if (prometheusBin === undefined) throw new Error('prometheus not found: apt-get install -y prometheus');
  const [exporterPort, prometheusPort] = await freePorts(2);
  const work = mkdtempSync(join(tmpdir(), 'dashboard-'));
  const cluster = await startCluster({ label: 'dashboard-picture' });
  const exporter = new PrometheusExporter({ port: exporterPort!, host: '127.0.0.1' });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  writeFileSync(
    join(work, 'prometheus.yml'),
    `global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: mastra-app\n    static_configs: [{ targets: ['127.0.0.1:${exporterPort}'] }]\n`,
  );
  const prometheus = spawn(prometheusBin, [`--config.file=${join(work, 'prometheus.yml')}`, `--storage.tsdb.path=${join(work, 'data')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`], { stdio: 'ignore' });
  const api = `http://127.0.0.1:${prometheusPort}/api/v1`;
  try {
    await waitFor('prometheus', async () => (await fetch(`${api}/status/buildinfo`).catch(() => undefined))?.ok === true, { timeoutMs: 30_000 });
    const start = Date.now() / 1000;
    const faults = await workload(cluster.endpoints(), meterProvider, cluster);
    const end = Date.now() / 1000;
    const marks: Mark[] = [
      { at: (faults.killedAt - start) / (end - start), label: 'leader killed' },
      { at: (faults.restartedAt - start) / (end - start), label: 'restarted' },
    ];
    const dashboard = JSON.parse(readFileSync(join(HERE, 'grafana-dashboard.json'), 'utf8')) as { panels: Panel[] };
    const drawn: string[] = [];
    for (const panel of dashboard.panels) {
      if (panel.type === 'row') {
        drawn.push(rowSvg(panel));
        continue;
      }
      const series: Series[] = [];
      for (const target of panel.targets ?? []) {
        const expr = target.expr.replaceAll('{job=~"$job"}', '').replaceAll('job=~"$job",', '').replaceAll('$__rate_interval', '10s');
        const url = `${api}/query_range?query=${encodeURIComponent(expr)}&start=${start}&end=${end}&step=2`;
        const answer = (await (await fetch(url)).json()) as { status: string; error?: string; data: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> } };
        if (answer.status !== 'success') throw new Error(`${panel.title}: ${answer.error} (${expr})`);
        for (const result of answer.data.result) {
          const name = target.legendFormat.replace(/\{\{(\w+)\}\}/g, (_, label: string) => result.metric[label] ?? '');
          series.push({ name, points: result.values.map(([t, v]) => [t - start, Number(v)] as [number, number]).filter(([, v]) => Number.isFinite(v)) });
        }
      }
      drawn.push(panelSvg(panel, series, end - start, marks));
    }
    const height = Math.max(...dashboard.panels.map((p) => (p.gridPos.y + p.gridPos.h) * ROW_PX)) + 10;
    writeFileSync(
      values.out!,
      `<svg xmlns="http://www.w3.org/2000/svg" width="${24 * COL_PX + 10}" height="${height}" font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="#111217"/>\n${drawn.join('\n')}\n</svg>\n`,
    );
    console.log(`wrote ${values.out} (${Math.round(end - start)} s of a real run; leader killed at a third, restarted at two thirds)`);
  } finally {
    prometheus.kill('SIGTERM');
    await meterProvider.shutdown();
    await cluster.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Mastra-like lease holders and events for RUN_MS; the leader killed at a third and restarted at two thirds. */
async function workload(hosts: string[], meterProvider: MeterProvider, cluster: Awaited<ReturnType<typeof startCluster>>): Promise<{ killedAt: number; restartedAt: number }> {
  const providers = [0, 1].map(() => new EtcdLeaseProvider({ hosts, prefix: 'picture/lease/', meterProvider }));
  const pubsub = new EtcdPubSub({ hosts, prefix: 'picture/pubsub/', meterProvider, maxDeliveryAttempts: 3, redeliveryDelayMs: 50 });
  const timers: NodeJS.Timeout[] = [];
  let handled = 0;
  try {
    await pubsub.subscribe('agent-events', () => {});
    await pubsub.subscribe('work', async () => {
      // One in ten fails once and is redelivered.
      if (++handled % 10 === 0) throw new Error('try again');
    }, { group: 'workers' });
    const ttlMs = 6000;
    // A few long-lived holders through hold(): handles renewed in the background.
    const handles = await Promise.all([0, 1, 2, 3, 4].map((i) => providers[0]!.hold(`singleton-${i}`, 'scheduler', ttlMs)));
    timers.push(setTimeout(() => void Promise.all(handles.map((h) => h.release())).catch(() => {}), RUN_MS * 0.9));
    for (let thread = 0; thread < 40; thread++) {
      const key = `thread-${thread}`;
      // Two instances want each thread; each renews what it holds every TTL/3, not waiting for the last call.
      providers.forEach((provider, i) => {
        const owner = `run-${thread}-${i}`;
        let holding = false;
        timers.push(
          setInterval(() => {
            const call = holding ? provider.renewLease(key, owner, ttlMs).then((ok) => (holding = ok)) : provider.acquireLease(key, owner, ttlMs).then((r) => (holding = r.acquired));
            call.catch(() => {});
          }, ttlMs / 3 + thread * 7),
        );
      });
    }
    timers.push(
      setInterval(() => {
        void pubsub.publish('agent-events', { type: 'chunk', runId: 'r', data: null }).catch(() => {});
        void pubsub.publish('work', { type: 'job', runId: 'r', data: null }).catch(() => {});
      }, 50),
    );
    await new Promise((resolve) => setTimeout(resolve, RUN_MS / 3));
    const leader = await cluster.leader();
    const killedAt = Date.now() / 1000;
    await cluster.kill(leader);
    await new Promise((resolve) => setTimeout(resolve, RUN_MS / 3));
    const restartedAt = Date.now() / 1000;
    await cluster.restart(leader);
    await new Promise((resolve) => setTimeout(resolve, RUN_MS / 3));
    return { killedAt, restartedAt };
  } finally {
    for (const timer of timers) clearInterval(timer);
    await pubsub.close();
    await Promise.all(providers.map((p) => p.close()));
  }
}

/** A fault, as a fraction of the run. */
interface Mark {
  at: number;
  label: string;
}

interface Series {
  name: string;
  points: Array<[number, number]>;
}

const COL_PX = 50;
const ROW_PX = 30;
const COLORS = ['#73bf69', '#f2cc0c', '#8ab8ff', '#ff780a', '#f2495c', '#5794f2', '#b877d9', '#fade2a'];

function rowSvg(panel: Panel): string {
  return `<text x="${panel.gridPos.x * COL_PX + 10}" y="${panel.gridPos.y * ROW_PX + 21}" fill="#ccccdc" font-size="14" font-weight="bold">${escape(panel.title)}</text>`;
}

function panelSvg(panel: Panel, series: Series[], seconds: number, marks: Mark[]): string {
  const x0 = panel.gridPos.x * COL_PX + 5;
  const y0 = panel.gridPos.y * ROW_PX + 5;
  const width = panel.gridPos.w * COL_PX - 5;
  const height = panel.gridPos.h * ROW_PX - 5;
  const plot = { x: x0 + 44, y: y0 + 26, w: width - 54, h: height - 26 - 20 - 14 * Math.min(2, Math.ceil(series.length / 3)) };
  const max = Math.max(1e-9, ...series.flatMap((s) => s.points.map(([, v]) => v)));
  const unit = panel.fieldConfig?.defaults?.unit ?? 'short';
  const parts = [
    `<rect x="${x0}" y="${y0}" width="${width}" height="${height}" fill="#181b1f" stroke="#2c3235"/>`,
    `<text x="${x0 + 8}" y="${y0 + 17}" fill="#ccccdc" font-weight="bold">${escape(panel.title)}</text>`,
  ];
  for (const fraction of [0, 0.5, 1]) {
    const y = plot.y + plot.h * (1 - fraction);
    parts.push(`<line x1="${plot.x}" x2="${plot.x + plot.w}" y1="${y}" y2="${y}" stroke="#2c3235"/>`);
    parts.push(`<text x="${plot.x - 4}" y="${y + 4}" fill="#8e8e8e" text-anchor="end">${format(max * fraction, unit)}</text>`);
  }
  // The kill and the restart, where the run placed them.
  for (const { at, label } of marks) {
    const x = plot.x + plot.w * at;
    parts.push(`<line x1="${x}" x2="${x}" y1="${plot.y}" y2="${plot.y + plot.h}" stroke="#f2495c" stroke-dasharray="3,3" opacity="0.6"/>`);
    parts.push(`<text x="${x + 3}" y="${plot.y + 10}" fill="#f2495c" opacity="0.8" font-size="9">${label}</text>`);
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const path = s.points.map(([t, v], j) => `${j === 0 ? 'M' : 'L'}${(plot.x + (t / seconds) * plot.w).toFixed(1)},${(plot.y + plot.h * (1 - v / max)).toFixed(1)}`).join(' ');
    if (path !== '') parts.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
    const legendX = x0 + 8 + (i % 3) * Math.floor((width - 16) / 3);
    const legendY = plot.y + plot.h + 18 + Math.floor(i / 3) * 14;
    if (i < 6) parts.push(`<rect x="${legendX}" y="${legendY - 8}" width="10" height="3" fill="${color}"/><text x="${legendX + 14}" y="${legendY - 3}" fill="#ccccdc">${escape(s.name.slice(0, 28))}</text>`);
  });
  if (series.length === 0) parts.push(`<text x="${plot.x + plot.w / 2}" y="${plot.y + plot.h / 2}" fill="#8e8e8e" text-anchor="middle">none in this run</text>`);
  return parts.join('\n');
}

function format(value: number, unit: string): string {
  if (unit === 's') return value >= 1 ? `${value.toFixed(1)} s` : `${(value * 1000).toFixed(value * 1000 >= 10 ? 0 : 1)} ms`;
  const text = value >= 1000 ? `${(value / 1000).toFixed(1)}k` : value >= 10 ? value.toFixed(0) : value.toFixed(value === 0 ? 0 : 2);
  return unit === 'ops' ? `${text}/s` : text;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
