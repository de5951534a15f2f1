import { createRng, type Rng } from './rng.js';

/**
 * What a composed run can do to a cluster and its clients, one fault at a time in the suites, overlapping here:
 * - `kill`: SIGKILL a member, restart it on heal;
 * - `pause`: SIGSTOP a member (its connections stay open and answer nothing), SIGCONT on heal;
 * - `blackhole`: a member's client and peer traffic stalls both ways, delivered on heal;
 * - `cut-link`: a member's client link is cut, what was sent into it held and delivered late on heal;
 * - `slow-link`: requests to a member arrive 2.5–3.5 s late (after their caller's retry answered);
 * - `quorum-loss`: a majority of members (two of three) killed together for the outage, restarted together;
 * - `clock-step`: a client process's wall clock steps forward or back (NTP, an operator); no heal;
 * - `suspend`: a client process stops, its monotonic clock with it, while etcd runs on;
 * - `flood`: a client process sends fresh reads and acquires as fast as it can (more than the cluster serves);
 * - `nospace`: etcd's backend quota is filled until its NOSPACE alarm is raised; compacted, defragmented and
 *   disarmed on heal, as an operator does.
 */
export const FAULT_KINDS = ['kill', 'pause', 'blackhole', 'cut-link', 'slow-link', 'quorum-loss', 'clock-step', 'suspend', 'flood', 'nospace'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Faults that take their members out of the Raft quorum while they last. */
export const QUORUM_FAULTS: ReadonlySet<FaultKind> = new Set(['kill', 'pause', 'blackhole', 'quorum-loss']);
/** Faults that hit one client process rather than the cluster. */
export const CLIENT_FAULTS: ReadonlySet<FaultKind> = new Set(['clock-step', 'suspend', 'flood']);

/** One fault of a schedule: what, when (from the schedule's start), for how long, and whom it hits. */
export interface ScheduledFault {
  /** Position in the schedule (faults are in order of start). */
  readonly id: number;
  readonly kind: FaultKind;
  readonly atMs: number;
  /** How long it is held before healing; 0 for a clock step (it has nothing to heal). */
  readonly holdMs: number;
  /** Members it hits (indices), for cluster faults; empty otherwise. */
  readonly members: readonly number[];
  /** The client process it hits, for client faults. */
  readonly process?: number;
  /** For `clock-step`: how far the wall clock steps, negative for backward. */
  readonly stepMs?: number;
}

export interface FaultSchedule {
  readonly seed: number;
  readonly spanMs: number;
  readonly faults: readonly ScheduledFault[];
}

export interface ScheduleOptions {
  readonly seed: number;
  /** Faults start within [0, spanMs); they may be held past it. */
  readonly spanMs: number;
  /** Cluster size. @default 3 */
  readonly members?: number;
  /** Client processes a client fault can hit. @default 3 */
  readonly processes?: number;
  /** The kinds to draw from. @default FAULT_KINDS */
  readonly kinds?: readonly FaultKind[];
  /** How long quorum is gone in a `quorum-loss`. @default 20 000 (production outages last that long) */
  readonly outageMs?: number;
  /** Time between two fault starts, drawn in this range. @default [1000, 4000] — shorter than most holds, so faults overlap */
  readonly gapMs?: readonly [number, number];
}

/** How long each kind is held (ms, drawn in the range): as long as production's faults last — seconds, not a blink. */
const HOLD_MS: Readonly<Record<Exclude<FaultKind, 'quorum-loss' | 'clock-step'>, readonly [number, number]>> = {
  kill: [3000, 8000],
  pause: [2000, 6000],
  blackhole: [3000, 8000],
  'cut-link': [3000, 8000],
  'slow-link': [4000, 8000],
  suspend: [2000, 6000],
  flood: [3000, 6000],
  nospace: [4000, 8000],
};
/** A clock step's size, either way. */
const STEP_MS: readonly [number, number] = [3000, 15_000];
/**
 * A member stays reserved this long after its fault's hold, for the heal itself (a restart takes seconds): two faults
 * never hit one member at once, so each heal undoes exactly its own fault.
 */
const HEAL_MARGIN_MS = 3000;
/** How often a kind is drawn once each has had its turn. */
const WEIGHTS: Readonly<Record<FaultKind, number>> = {
  kill: 3,
  pause: 3,
  blackhole: 3,
  'cut-link': 3,
  'slow-link': 3,
  'quorum-loss': 1,
  'clock-step': 4,
  suspend: 2,
  flood: 2,
  nospace: 1,
};
/** When no kind fits at a moment (its members are busy), the next try is this much later. */
const RETRY_STEP_MS = 500;

/**
 * The fault schedule of one seed: pure and deterministic — the same options give the same schedule, so a printed
 * seed replays a run's faults. Every kind asked for comes once, in a seeded order, as soon as it fits (so a short run
 * still meets each: a NOSPACE first, the outage last), then kinds are drawn by weight until the span is used. Starts are 1–4 s apart and most holds
 * longer, so faults overlap. Two constraints keep every heal meaningful: no two faults hit one member at once, and a
 * `nospace` overlaps no cluster fault (its recovery — compaction, defragmentation of every member — needs them all);
 * at most one `quorum-loss` per schedule. Client faults of one kind never overlap on one process.
 */
export function generateSchedule(options: ScheduleOptions): FaultSchedule {
  const members = options.members ?? 3;
  const processes = options.processes ?? 3;
  const kinds = options.kinds ?? FAULT_KINDS;
  const outageMs = options.outageMs ?? 20_000;
  const [minGap, maxGap] = options.gapMs ?? [1000, 4000];
  validate(options, members, processes, kinds, outageMs, minGap, maxGap);

  const rng = createRng(options.seed);
  const memberFreeAt = new Array<number>(members).fill(0);
  /** Per kind and process: when a client fault of that kind on that process is over. */
  const processFreeAt = new Map<string, number>();
  let nospaceUntil = 0;
  let outages = 0;
  const faults: ScheduledFault[] = [];
  // A NOSPACE needs every member free and an outage most of them: the first comes before any other cluster fault,
  // the outage after all of them (the bag is tried in order, so no cluster fault starts while it waits for members).
  const rank = (k: FaultKind) => (k === 'nospace' ? 0 : k === 'quorum-loss' ? 2 : 1);
  const bag = shuffled(kinds, rng).sort((a, b) => rank(a) - rank(b));

  const place = (kind: FaultKind, at: number): ScheduledFault | undefined => {
    if (kind === 'quorum-loss' && outages > 0) return undefined;
    const free = memberFreeAt.flatMap((t, i) => (t <= at ? [i] : []));
    const hold = kind === 'quorum-loss' ? outageMs : kind === 'clock-step' ? 0 : rng.int(...HOLD_MS[kind]);
    const base = { id: faults.length, kind, atMs: at, holdMs: hold };
    if (kind === 'nospace') {
      if (free.length < members || nospaceUntil > at) return undefined;
      nospaceUntil = at + hold + HEAL_MARGIN_MS;
      memberFreeAt.fill(nospaceUntil);
      return { ...base, members: [] };
    }
    if (CLIENT_FAULTS.has(kind)) {
      const process = rng.int(0, processes - 1);
      const slot = `${kind === 'clock-step' ? 'suspend' : kind}/${process}`;
      if ((processFreeAt.get(slot) ?? 0) > at) return undefined; // a step into a suspended process would wait for its waking
      if (kind !== 'clock-step') processFreeAt.set(slot, at + hold);
      const step = kind === 'clock-step' ? { stepMs: rng.int(...STEP_MS) * (rng.next() < 0.5 ? -1 : 1) } : {};
      return { ...base, members: [], process, ...step };
    }
    const needed = kind === 'quorum-loss' ? Math.floor(members / 2) + 1 : 1;
    if (free.length < needed || nospaceUntil > at) return undefined;
    const hit: number[] = [];
    for (let i = 0; i < needed; i++) hit.push(free.splice(rng.int(0, free.length - 1), 1)[0]!);
    for (const m of hit) memberFreeAt[m] = at + hold + HEAL_MARGIN_MS;
    if (kind === 'quorum-loss') outages += 1;
    return { ...base, members: hit.sort((a, b) => a - b) };
  };

  let at = rng.int(0, maxGap);
  while (at < options.spanMs) {
    // The first kind of the bag that fits now, else one drawn by weight; when none fits, a little later.
    const tries = bag.length > 0 ? [...bag] : [rng.weighted(weightsOf(kinds))];
    const fault = firstPlaced(tries, (kind) => place(kind, at));
    if (fault === undefined) {
      at += RETRY_STEP_MS;
      continue;
    }
    bag.splice(bag.indexOf(fault.kind), 1);
    faults.push(fault);
    at += rng.int(minGap, maxGap);
  }
  return { seed: options.seed, spanMs: options.spanMs, faults };
}

/** One line naming a fault, for logs and failure messages. */
export function describeFault(fault: ScheduledFault): string {
  const when = `at ${(fault.atMs / 1000).toFixed(1)} s`;
  const held = `for ${(fault.holdMs / 1000).toFixed(1)} s`;
  const on = fault.members.length > 0 ? ` member${fault.members.length > 1 ? 's' : ''} ${fault.members.join('+')}` : '';
  switch (fault.kind) {
    case 'clock-step':
      return `#${fault.id} ${when}: step process ${fault.process}'s wall clock ${fault.stepMs! > 0 ? 'forward' : 'back'} ${(Math.abs(fault.stepMs!) / 1000).toFixed(1)} s`;
    case 'suspend':
    case 'flood':
      return `#${fault.id} ${when}: ${fault.kind} process ${fault.process} ${held}`;
    default:
      return `#${fault.id} ${when}: ${fault.kind}${on} ${held}`;
  }
}

/** Pairs of faults whose holds overlap in time (a clock step counts at its instant). */
export function overlappingPairs(schedule: FaultSchedule): Array<[ScheduledFault, ScheduledFault]> {
  const pairs: Array<[ScheduledFault, ScheduledFault]> = [];
  const { faults } = schedule;
  for (let i = 0; i < faults.length; i++) {
    for (let j = i + 1; j < faults.length; j++) {
      const a = faults[i]!;
      const b = faults[j]!;
      if (b.atMs <= a.atMs + a.holdMs && a.atMs <= b.atMs + b.holdMs) pairs.push([a, b]);
    }
  }
  return pairs;
}

function firstPlaced(kinds: readonly FaultKind[], place: (kind: FaultKind) => ScheduledFault | undefined): ScheduledFault | undefined {
  for (const kind of kinds) {
    const fault = place(kind);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function weightsOf(kinds: readonly FaultKind[]): Record<FaultKind, number> {
  return Object.fromEntries(kinds.map((k) => [k, WEIGHTS[k]])) as Record<FaultKind, number>;
}

function validate(options: ScheduleOptions, members: number, processes: number, kinds: readonly FaultKind[], outageMs: number, minGap: number, maxGap: number): void {
  const positiveInt = (name: string, value: number, min: number) => {
    if (!Number.isInteger(value) || value < min) throw new RangeError(`options.${name} must be an integer ≥ ${min}, got ${value}`);
  };
  positiveInt('seed', options.seed, 0);
  positiveInt('spanMs', options.spanMs, 1);
  positiveInt('members', members, 3);
  positiveInt('processes', processes, 1);
  positiveInt('outageMs', outageMs, 1);
  if (!(Number.isInteger(minGap) && Number.isInteger(maxGap) && minGap >= 1 && maxGap >= minGap)) {
    throw new RangeError(`options.gapMs must be [min, max] integers with 1 ≤ min ≤ max, got [${minGap}, ${maxGap}]`);
  }
  if (kinds.length === 0) throw new RangeError('options.kinds must name at least one fault kind');
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new RangeError(`options.kinds: unknown fault kind '${String(kind)}' (known: ${FAULT_KINDS.join(', ')})`);
  }
}
