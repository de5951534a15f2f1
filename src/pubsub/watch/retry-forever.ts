import type { LeaseLogger } from '../../config/options.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import { POLICY } from '../../policy.js';
import type { CallScope } from '../../transport/call-scope.js';

/**
 * Recovery work no caller waits for (a subscription re-established after its watch was lost, a group member
 * registered again): each try is one call with the usual deadline; between tries a growing pause. It ends when the
 * work succeeds, `signal` aborts (unsubscribe) or the core closes. Never rejects. The pauses: POLICY.errorBackoff.
 */
export async function retryForever(core: EtcdCore, operation: string, signal: AbortSignal, logger: LeaseLogger, work: (scope: CallScope) => Promise<void>): Promise<void> {
  let delay: number = POLICY.errorBackoff.firstMs;
  for (let tries = 1; !signal.aborted && !core.lifetime.aborted; tries++) {
    const scope = core.runner.open(operation, core.budget(core.options.deadlineMs, signal));
    try {
      await work(scope);
      return;
    } catch (error) {
      if (signal.aborted || core.lifetime.aborted) return;
      // Throttled: the first failure and then every tenth.
      if (tries === 1 || tries % 10 === 0) logger.warn?.(`${operation}: recovery failed; retrying`, { tries, error });
    } finally {
      scope.dispose();
    }
    await pause(delay, signal);
    delay = Math.min(POLICY.errorBackoff.maxMs, delay * 2);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
