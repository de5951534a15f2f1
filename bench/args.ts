import { parseArgs } from 'node:util';
import type { HoldConfig } from './hold-cost/measure-hold.js';

export interface BenchConfig {
  /** Smoke mode for CI: short phases, few keys, no timing assertions. */
  quick: boolean;
  /** Where to write the JSON results; default `bench/results/<timestamp>.json`. */
  jsonPath: string | undefined;
  /** Rounds of every scenario, interleaved. */
  rounds: number;
  /** Duration of one scenario in one round, in ms. */
  phaseMs: number;
  /** Untimed run of every scenario before round 1 (JIT, connections, the lease pool's first grant). */
  warmupMs: number;
  /** Keys held at once for the live-lease count. */
  heldKeys: number;
  /** The same count again with the keys arriving over this long (ms); 0 skips it. */
  heldSpreadMs: number;
  /** Run only scenarios whose id contains one of these strings (for profiling one scenario). */
  only: string[];
  /** Exit with code 2 when a target fails (never in quick mode). */
  check: boolean;
  /** Hold-cost configurations (leases × TTL); empty skips the hold-cost table. */
  holds: HoldConfig[];
}

/** Hold-cost configurations: 1k and 10k leases at TTL 15 s and 3 s, and the 2000 at 3 s that a target names (targets.ts). */
const FULL_HOLDS = '1000@15,10000@15,1000@3,2000@3,10000@3';
const QUICK_HOLDS = '200@3';

const USAGE = `usage: node --expose-gc --import tsx bench/run.ts [--quick] [--json out.json]
       [--rounds N] [--seconds S] [--held-keys N] [--held-spread S] [--only id[,id]] [--check]
       [--hold LEASES@TTL_S[,…] | --hold none]`;

export function parseBenchArgs(argv: string[]): BenchConfig {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      'held-keys': { type: 'string' },
      'held-spread': { type: 'string' },
      only: { type: 'string' },
      check: { type: 'boolean', default: false },
      hold: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick ?? false;
  return {
    quick,
    jsonPath: values.json,
    rounds: count('--rounds', values.rounds, quick ? 1 : 5),
    phaseMs: Math.round(number('--seconds', values.seconds, quick ? 1 : 3) * 1000),
    warmupMs: quick ? 200 : 1000,
    heldKeys: count('--held-keys', values['held-keys'], quick ? 2_000 : 20_000),
    heldSpreadMs: Math.round(number('--held-spread', values['held-spread'], quick ? 3 : 30, true) * 1000),
    only: values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : [],
    check: !quick && (values.check ?? false),
    holds: parseHolds(values.hold ?? (quick ? QUICK_HOLDS : FULL_HOLDS)),
  };
}

function parseHolds(raw: string): HoldConfig[] {
  if (raw === 'none') return [];
  return raw.split(',').map((item) => {
    const match = /^\s*(\d+)@(\d+(?:\.\d+)?)\s*$/.exec(item);
    if (!match || Number(match[1]) < 1 || Number(match[2]) <= 0) throw new Error(`--hold takes LEASES@TTL_SECONDS items, got ${item}\n${USAGE}`);
    return { keys: Number(match[1]), ttlMs: Number(match[2]) * 1000 };
  });
}

function number(flag: string, raw: string | undefined, fallback: number, zeroAllowed = false): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed)) {
    throw new Error(`${flag} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, got ${raw}\n${USAGE}`);
  }
  return value;
}

function count(flag: string, raw: string | undefined, fallback: number): number {
  const value = number(flag, raw, fallback);
  if (!Number.isInteger(value)) throw new Error(`${flag} must be a whole number, got ${raw}\n${USAGE}`);
  return value;
}
