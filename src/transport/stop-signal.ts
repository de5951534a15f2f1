import { TaskCancelledError } from 'cockatiel';

/**
 * The part of AbortSignal the provider's own call machinery listens on: whether the call has ended, why, and a
 * listener for the moment it does. `AbortSignal` satisfies it, so a caller's signal can be passed where one is
 * taken (the group committer, key lanes); a CallScope implements it without an AbortController, because a Node
 * AbortSignal costs microseconds to create and to listen on — per call, on the hot path, that was a large share of
 * the client's CPU.
 */
export interface StopSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * Settles like `work`, or rejects with `stopped()` (TaskCancelledError by default) as soon as `signal` fires (then `work` runs on, unheard).
 * For the few waits of an attempt that do not end with its signal by themselves (a lease grant shared with other
 * calls, a request with its own deadline).
 */
export function untilStopped<T>(signal: StopSignal, work: Promise<T>, stopped: () => Error = () => new TaskCancelledError('call ended')): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(stopped());
  }
  return new Promise<T>((resolve, reject) => {
    const onStop = () => {
      work.catch(() => {});
      reject(stopped());
    };
    signal.addEventListener('abort', onStop, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onStop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onStop);
        reject(error);
      },
    );
  });
}
