import { LeaseAbortedError } from '../errors/aborted.js';
import { ProviderClosedError } from '../errors/closed.js';
import { LeaseArgumentRangeError, LeaseArgumentTypeError } from '../errors/invalid-argument.js';
import { LeaseWaitTimeoutError } from '../errors/wait-timeout.js';
import { checkMetadata } from '../config/call-arguments.js';
import type { WaitForLeaseOptions } from './wait-options.js';

/** Largest delay `setTimeout` honours; a longer timeout is treated as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One signal for everything that ends a wait; its `reason` is the typed error the wait rejects with. */
export interface StopSignal {
  readonly signal: AbortSignal;
  /** Clears the timer and the listeners on the caller's and the provider's signals. */
  dispose(): void;
}

/** Checks `options` the way the provider checks its own arguments: the message names the parameter. */
export function checkWaitOptions(options: WaitForLeaseOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new LeaseArgumentTypeError('options', 'must be an object like { signal?, timeoutMs? }');
  }
  const { signal, timeoutMs } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new LeaseArgumentTypeError('options.signal', 'must be an AbortSignal');
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0)) {
    throw new LeaseArgumentRangeError('options.timeoutMs', `must be a number above 0, got ${String(timeoutMs)}`);
  }
  checkMetadata('options.metadata', options.metadata);
}

/**
 * Combines the caller's signal, the caller's timeout and the provider closing into one signal whose
 * reason is `LeaseAbortedError`, `LeaseWaitTimeoutError` or `ProviderClosedError`.
 * The timer is cleared as soon as the wait ends, whichever way (`dispose`).
 */
export function stopSignal(operation: string, options: WaitForLeaseOptions | undefined, closing: AbortSignal): StopSignal {
  const controller = new AbortController();
  const caller = options?.signal;
  const timeoutMs = options?.timeoutMs;
  const onCaller = () => controller.abort(new LeaseAbortedError(operation, caller?.reason));
  const onClosing = () => controller.abort(new ProviderClosedError(operation));
  let timer: NodeJS.Timeout | undefined;

  const dispose = () => {
    if (timer) clearTimeout(timer);
    caller?.removeEventListener('abort', onCaller);
    closing.removeEventListener('abort', onClosing);
  };
  controller.signal.addEventListener('abort', dispose, { once: true });

  if (closing.aborted) onClosing();
  else if (caller?.aborted) onCaller();
  else {
    closing.addEventListener('abort', onClosing, { once: true });
    caller?.addEventListener('abort', onCaller, { once: true });
    if (timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS) {
      timer = setTimeout(() => controller.abort(new LeaseWaitTimeoutError(operation, timeoutMs)), timeoutMs);
    }
  }
  return { signal: controller.signal, dispose };
}
