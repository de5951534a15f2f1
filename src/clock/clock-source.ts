/**
 * The two raw clocks the provider reads. Neither alone measures elapsed real time safely:
 * - `monotonic` (`performance.now()`, CLOCK_MONOTONIC) never steps, but it stops while the machine or VM
 *   is suspended — etcd's clock does not;
 * - `wall` (`Date.now()`) keeps counting through a suspend, but NTP (or an operator) may step it either way.
 * `LeaseClock` combines them. Tests inject a source to emulate a suspend.
 */
export interface ClockSource {
  /** Milliseconds on a clock that never goes back (it may stop during a suspend). */
  monotonic(): number;
  /** Milliseconds since the Unix epoch (it may jump). */
  wall(): number;
}

export const SYSTEM_CLOCK: ClockSource = Object.freeze({
  monotonic: () => performance.now(),
  wall: () => Date.now(),
});
