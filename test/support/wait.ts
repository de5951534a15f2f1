/** The one polling helper (shared with the etcd launcher, launcher/), for tests that wait on what they need to see. */
export { waitFor } from '../../launcher/wait-for.js';

/** Lets wall-clock time pass. Only for TTL tests, where the passage of time *is* the condition. */
export function elapse(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
