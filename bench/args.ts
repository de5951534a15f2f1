import { parseArgs } from 'node:util';

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
}

const USAGE = `usage: node --expose-gc --import tsx bench/run.ts [--quick] [--json out.json]
       [--rounds N] [--seconds S] [--held-keys N] [--held-spread S] [--only id[,id]] [--check]`;

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
  };
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
