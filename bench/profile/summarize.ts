/**
 * Summarizes a .cpuprofile (from `node --cpu-prof`, or a benchmark's `--profile`) by part of the process:
 *
 *   node --import tsx bench/profile/summarize.ts FILE.cpuprofile [--ops N --per renewal]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CpuProfile } from './cpu-profile.js';
import { formatProfileSummary, summarizeProfile } from './profile-summary.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { ops: { type: 'string' }, per: { type: 'string', default: 'operation' } } });
const file = positionals[0];
if (file === undefined) throw new Error('usage: summarize.ts FILE.cpuprofile [--ops N --per LABEL]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const summary = summarizeProfile(profile);
console.log(`${file}: ${(summary.totalMs / 1000).toFixed(1)} s profiled`);
console.log(formatProfileSummary(summary, values.ops === undefined ? undefined : { ops: Number(values.ops), label: values.per }));
