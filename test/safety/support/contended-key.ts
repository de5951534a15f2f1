import { expect } from 'vitest';
import { Recorder } from '../../../safety-checker/recorder.js';
import type { RecordedOp } from '../../../safety-checker/types.js';
import type { ProviderUnderTest } from '../../chaos/provider-under-test.js';
import { waitFor } from '../../support/wait.js';
import { pollAcquire, type Poller } from './poller.js';

export const KEY = 'K';

export interface ScenarioSteps {
  /** A's calls, recorded. */
  readonly a: Recorder;
  readonly history: RecordedOp[];
  /** Starts B now, for a scenario in which K is rightly free for a while after A took it. */
  startPolling(): void;
}

/**
 * The shape every safety scenario shares. A (the provider under test) takes K; B (a correct provider) polls for
 * K every 50 ms while `steps` run — the fault and A's further calls — and the run ends once B has won K. Every
 * call of both lands in one history on the machine clock, which the checker then judges: if etcd let K go while
 * A still believed, B's win overlaps A's belief. Both providers are closed at the end.
 */
export async function contendedKey(
  providers: { a: ProviderUnderTest; b: ProviderUnderTest },
  ttlMs: number,
  steps: (scenario: ScenarioSteps) => Promise<void>,
  options: { pollFromStart?: boolean } = {},
): Promise<RecordedOp[]> {
  const history: RecordedOp[] = [];
  const a = new Recorder('A', providers.a, (op) => history.push(op));
  const b = new Recorder('B', providers.b, (op) => history.push(op));
  let poller: Poller | undefined;
  const startPolling = () => {
    poller ??= pollAcquire(b, KEY, 'B', ttlMs);
  };
  try {
    expect(await a.acquire(KEY, 'A', ttlMs)).toBe(true);
    // B starts only once A holds K: before that, B winning would just be B coming first.
    if (options.pollFromStart !== false) startPolling();
    await steps({ a, history, startPolling });
    startPolling();
    await waitFor('B to win K', () => poller!.won, { timeoutMs: ttlMs + 10_000, intervalMs: 50 });
    return history;
  } finally {
    await poller?.stop();
    await Promise.all([providers.a.close(), providers.b.close()]);
  }
}

/** The last call of `owner` of this kind in the history. */
export function lastCall(history: readonly RecordedOp[], owner: string, op: RecordedOp['op']): RecordedOp {
  const found = history.filter((o) => o.owner === owner && o.op === op).at(-1);
  if (found === undefined) throw new Error(`no ${op} by ${owner} in the history`);
  return found;
}

/** B's winning acquire. */
export function bWon(history: readonly RecordedOp[]): RecordedOp {
  const won = history.find((o) => o.owner === 'B' && o.outcome === 'ok');
  if (won === undefined) throw new Error('B never won K');
  return won;
}
