/**
 * Long JSON-shaped owner tokens (a prefix + JSON): strings with quotes and braces, so the demo exercises the
 * encoding paths a long, structured owner takes. (Mastra 1.71 itself owns a thread under the bare run id.)
 */
const PREFIX = 'mastra-thread-owner:';

export function ownerToken(workerId: string, run: number): string {
  return `${PREFIX}${JSON.stringify({ worker: workerId, run, pid: process.pid })}`;
}

/** `w2/run7` for a demo token; the quoted string for anything else (e.g. another tool's owner). */
export function shortOwner(owner: string): string {
  if (owner.startsWith(PREFIX)) {
    try {
      const parsed = JSON.parse(owner.slice(PREFIX.length)) as { worker?: unknown; run?: unknown };
      if (typeof parsed.worker === 'string' && typeof parsed.run === 'number') return `${parsed.worker}/run${parsed.run}`;
    } catch {
      // fall through
    }
  }
  return JSON.stringify(owner);
}

/** The worker a demo owner token belongs to, for colouring; undefined for foreign owners. */
export function workerOf(owner: string): string | undefined {
  const short = shortOwner(owner);
  return short.includes('/run') ? short.slice(0, short.indexOf('/run')) : undefined;
}
