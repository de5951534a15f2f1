import type { CpuProfile, CpuProfileNode } from './cpu-profile.js';

/** Where a profile's samples went, by the part of the process that spent them. */
export type Part =
  | 'protobuf codec (etcd3 / proto-loader / protobufjs)'
  | 'grpc-js (calls, channel, HTTP/2 framing)'
  | 'etcd3 client (pool, policies)'
  | 'cockatiel'
  | 'provider (this package)'
  | 'benchmark harness (renew timers, tally)'
  | 'node timers'
  | 'node streams, sockets, HTTP/2 core'
  | 'garbage collection'
  | 'other JS / V8 builtins / native'
  | 'idle';

/** Library frames own the time of the untagged builtins and node internals they call. */
const OWNERS: ReadonlyArray<[RegExp, Part]> = [
  [/node_modules\/(protobufjs|@protobufjs|@grpc\/proto-loader|long)\//, 'protobuf codec (etcd3 / proto-loader / protobufjs)'],
  [/node_modules\/@grpc\/grpc-js\//, 'grpc-js (calls, channel, HTTP/2 framing)'],
  [/node_modules\/etcd3\//, 'etcd3 client (pool, policies)'],
  [/node_modules\/cockatiel\//, 'cockatiel'],
  [/\/bench\//, 'benchmark harness (renew timers, tally)'],
  [/\/(dist|src)\//, 'provider (this package)'],
];

function ownerOf(url: string): Part | undefined {
  for (const [pattern, part] of OWNERS) if (pattern.test(url)) return part;
  return undefined;
}

/** What a sample's own frame says when no library frame above it owns it. */
function leafPart(node: CpuProfileNode): Part {
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)') return 'idle';
  if (/^node:internal\/timers|^node:timers/.test(url) || functionName === 'processTimers' || functionName === 'listOnTimeout') return 'node timers';
  if (/^node:(internal\/)?(stream|net|http2|internal\/http2|internal\/stream_base|_stream|buffer)/.test(url)) return 'node streams, sockets, HTTP/2 core';
  return 'other JS / V8 builtins / native';
}

export interface ProfileSummary {
  totalMs: number;
  /** Busy time (all but idle) per part, ms, largest first. */
  parts: Array<{ part: Part; ms: number; share: number }>;
  /** The functions with the most self time, with their part. */
  top: Array<{ name: string; part: Part; ms: number }>;
}

/**
 * Sums a profile's samples by part: each sample goes to the nearest frame, from its own up the stack, that lies in a
 * known library or in this package — so the time of a builtin or node internal goes to the code that called it
 * (Buffer work in the protobuf encoder counts as encoding). Samples under no such frame keep their own frame's part
 * (timers, sockets, GC). Shares are of busy time, idle left out.
 */
export function summarizeProfile(profile: CpuProfile, topCount = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map<number, Part>();
  const resolve = (id: number): Part => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    let part = leafPart(node);
    if (part !== 'garbage collection' && part !== 'idle') {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const owner = ownerOf(byId.get(at)!.callFrame.url);
        if (owner !== undefined) {
          part = owner;
          break;
        }
      }
    }
    partOf.set(id, part);
    return part;
  };
  const msByPart = new Map<Part, number>();
  const selfMs = new Map<number, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    totalMs += ms;
    const part = resolve(id);
    msByPart.set(part, (msByPart.get(part) ?? 0) + ms);
    selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
  });
  const busy = totalMs - (msByPart.get('idle') ?? 0);
  const parts = [...msByPart]
    .filter(([part]) => part !== 'idle')
    .map(([part, ms]) => ({ part, ms, share: busy > 0 ? ms / busy : 0 }))
    .sort((a, b) => b.ms - a.ms);
  const byName = new Map<string, { name: string; part: Part; ms: number }>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    const part = resolve(id);
    if (part === 'idle') continue;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist|src|bench)\//, '$1/')}:${lineNumber + 1}`;
    const entry = byName.get(name) ?? { name, part, ms: 0 };
    entry.ms += ms;
    byName.set(name, entry);
  }
  const top = [...byName.values()].sort((a, b) => b.ms - a.ms).slice(0, topCount);
  return { totalMs, parts, top };
}

/** The summary as a markdown table, with `perOp` operations (renewals, acquires) to state µs per operation. */
export function formatProfileSummary(summary: ProfileSummary, perOp?: { ops: number; label: string }): string {
  const header = ['part', 'CPU ms', 'share of busy', ...(perOp ? [`µs per ${perOp.label}`] : [])];
  const lines = [`| ${header.join(' | ')} |`, `|---|${header.slice(1).map(() => '---:|').join('')}`];
  for (const p of summary.parts) {
    const cells = [p.part, p.ms.toFixed(0), `${(p.share * 100).toFixed(1)} %`];
    if (perOp) cells.push(((p.ms * 1000) / perOp.ops).toFixed(1));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('', 'top functions by self time:');
  for (const t of summary.top) lines.push(`${t.ms.toFixed(0).padStart(7)} ms  ${t.name}  [${t.part}]`);
  return lines.join('\n');
}
