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
