import type { Recorder } from '../../safety-checker/recorder.js';
import type { Rng } from './rng.js';

/**
 * How a holder ends a tenure, with weights. Each ending is one way real callers stress a provider:
 * - release, or release and then take the key again under the same owner string (a run that resumes):
 *   a release that lands late must not delete the new tenure;
 * - release racing a re-acquire (not awaited): the provider's per-key order decides which goes first;
 * - transfer to a follow-up run, which then holds the key;
 * - abandon: stop renewing without a word, as a crashed or stuck worker does. It keeps believing until its
 *   last renew's send time + ttl (that is what the history grants it), so the lease must last that long.
 */
const ENDINGS = {
  release: 15,
  'release-then-reacquire': 25,
  'release-racing-reacquire': 5,
  transfer: 20,
  abandon: 35,
} as const;

export interface HolderOptions {
  /** Unique in the run; owners are `${name}/run-${n}`. */
  readonly name: string;
  readonly keys: readonly string[];
  readonly ttlMs: number;
  readonly rng: Rng;
  readonly recorder: Recorder;
  /** Registers a call in flight, so the process can wait for every one of them before it exits. */
  readonly track: <T>(call: Promise<T>) => Promise<T>;
  readonly stopped: () => boolean;
}

/**
 * One worker driving leases the way Mastra's runtime does: it tries to take a key (again every 0.5–1.5 s
 * while someone else holds one), then holds it with a renew every ttl/3 from a `setInterval` that does not
 * wait for the previous renew — so under faults several renews of one owner are in flight at once, sometimes
 * with a re-acquire beside them — and after one to four renews ends the tenure one of the ENDINGS ways.
 */
export async function runHolder(o: HolderOptions): Promise<void> {
  let run = 0;
  const nextOwner = () => `${o.name}/run-${++run}`;
  while (!o.stopped()) {
    const key = o.rng.pick(o.keys);
    let owner: string | undefined = nextOwner();
    if ((await o.track(o.recorder.acquire(key, owner, o.ttlMs))) !== true) {
      await sleep(o.rng.int(500, 1500));
      continue;
    }
    while (owner !== undefined && !o.stopped()) owner = await holdOnce(o, key, owner, nextOwner);
  }
}

/**
 * One tenure of `owner` on `key`; resolves with the owner that holds the key next (a follow-up run, or the same
 * owner again), if any. It lasts a number of renews, not a time: a holder whose process was suspended renews as
 * soon as it wakes (its timer is overdue), as Mastra's does, before it ends the tenure.
 */
async function holdOnce(o: HolderOptions, key: string, owner: string, nextOwner: () => string): Promise<string | undefined> {
  let lost = false;
  let renewsSent = 0;
  const renews = o.rng.int(1, 4);
  const timer = setInterval(() => {
    // Now and then a re-acquire (an idempotent refresh) goes out beside the renew: two calls of one owner on one key.
    if (o.rng.next() < 0.1) void o.track(o.recorder.acquire(key, owner, o.ttlMs)).then((won) => (lost ||= won === false));
    renewsSent += 1;
    void o.track(o.recorder.renew(key, owner, o.ttlMs)).then((renewed) => (lost ||= renewed === false));
  }, o.ttlMs / 3);
  await waitUntil(() => renewsSent >= renews || lost || o.stopped());
  await sleep(o.rng.int(0, 200)); // the last renew may still be in flight when the tenure ends
  clearInterval(timer); // renews already sent stay in flight, as with Mastra's clearInterval
  if (lost || o.stopped()) return undefined;

  const again = async (): Promise<string | undefined> => ((await o.track(o.recorder.acquire(key, owner, o.ttlMs))) === true ? owner : undefined);
  switch (o.rng.weighted(ENDINGS)) {
    case 'release':
      await o.track(o.recorder.release(key, owner));
      return undefined;
    case 'release-then-reacquire':
      await o.track(o.recorder.release(key, owner));
      await sleep(o.rng.int(0, 100));
      return again();
    case 'release-racing-reacquire':
      void o.track(o.recorder.release(key, owner));
      return again();
    case 'transfer': {
      const to = nextOwner();
      return (await o.track(o.recorder.transfer(key, owner, to, o.ttlMs))) === true ? to : undefined;
    }
    case 'abandon':
      return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves as soon as `done()` holds (checked every 25 ms). */
async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await sleep(25);
}
