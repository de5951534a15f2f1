/**
 * What the cross-process Mastra suites ask of a worker about one agent thread: send it a message,
 * have it report the thread's runtime events, wait for a routed message to reach the owner. Each
 * command is answered by the worker in fixtures/thread-worker.ts; these helpers pair a command with
 * the report that answers it, so a suite never waits on a sleep.
 */
import type { ReportOf, WorkerProcess } from './worker-fleet.js';

export interface ThreadTarget {
  resourceId: string;
  threadId: string;
  /** The lease key Mastra derives for the thread (resource and thread id joined by a NUL). */
  key: string;
}

/** A thread of its own for one test: `name` tells the scenario, `testNo` keeps runs of a file apart. */
export function threadFor(testNo: number, name: string): ThreadTarget {
  const resourceId = `resource-${testNo}`;
  const threadId = `${name}-${testNo}`;
  return { resourceId, threadId, key: `${resourceId}\u0000${threadId}` };
}

/** Sends `text` to the thread from `worker`; resolves with the runtime's answer (`wake` or `deliver`, and the run id). */
export function send(worker: WorkerProcess, text: string, target: Pick<ThreadTarget, 'resourceId' | 'threadId'>): Promise<ReportOf<'accepted'>> {
  worker.send({ cmd: 'send', text, ...target });
  return worker.next('accepted', (r) => r.text === text);
}

/** Every worker reports the thread's runtime events from now on (see `watch` in the worker). */
export async function watch(workers: WorkerProcess[], target: Pick<ThreadTarget, 'resourceId' | 'threadId'>): Promise<void> {
  for (const worker of workers) worker.send({ cmd: 'watch', ...target });
  await Promise.all(workers.map((worker) => worker.next('watching')));
}

/**
 * Resolves once `owner` has received the message `text` that another process routed to it.
 * Its runtime admits the message in the same delivery, long before a release sent after this
 * resolves can reach it: releasing earlier could end the run before the message arrives.
 */
export function admitted(owner: WorkerProcess, text: string, timeoutMs?: number): Promise<ReportOf<'thread-event'>> {
  return owner.next('thread-event', (r) => r.event === 'signal-enqueued' && r.contents === text, timeoutMs);
}
