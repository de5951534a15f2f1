import type { LeaseCalls } from './lease-calls.js';

export interface TransferRace {
  /** What the two transfers answered: [from → to[0] by the holder's client, from → to[1] by the rival's]. */
  answers: [boolean, boolean];
  /** The holder once both returned. */
  owner: string | undefined;
  /** A poller read the key as free at some moment of the race. */
  sawFree: boolean;
}

/**
 * `from` holds `key`, taken through `holder`; at the same moment `holder` hands it to `to[0]` and `rival` (another
 * client, which never wrote the key) hands it to `to[1]`, while a third client reads the key in a loop. A correct
 * provider lets exactly one win, answers false to the other, ends with the winner holding the key, and never
 * shows it free. A transfer that does not compare the current holder in the same transaction lets both win; one
 * that deletes and re-creates the key shows it free.
 */
export async function raceTransfers(
  clients: { holder: LeaseCalls; rival: LeaseCalls; reader: LeaseCalls },
  key: string,
  from: string,
  to: [string, string],
  ttlMs: number,
): Promise<TransferRace> {
  const { holder, rival, reader } = clients;
  const taken = await holder.acquire(key, from, ttlMs);
  if (!taken.acquired) throw new Error(`setup: ${from} could not take ${key}`);
  let racing = true;
  let sawFree = false;
  const poll = (async () => {
    while (racing) if ((await reader.owner(key)) === undefined) sawFree = true;
  })();
  const answers = (await Promise.all([holder.transfer(key, from, to[0], ttlMs), rival.transfer(key, from, to[1], ttlMs)])) as [boolean, boolean];
  racing = false;
  await poll;
  return { answers, owner: await reader.owner(key), sawFree };
}
