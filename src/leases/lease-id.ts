import { randomInt } from 'node:crypto';

/**
 * The etcd lease ids one provider mints. etcd lets the client choose a lease's id (LeaseGrant.ID), and a
 * transaction can compare a key's lease id (`LEASE` target, `<` / `>`). The provider uses both:
 *
 *   bit 63      0 (ids are positive int64)
 *   bits 62–37  tag: 26 random bits per provider instance, so its ids form one contiguous range of its own
 *   bits 36–0   notBefore: the earliest moment the lease may expire, in whole units of 16 ms, rounded down
 *
 * Inside one provider, ids never repeat (rounding down keeps their order, and two leases of one unit get two ids: the
 * pool never asks for one twice). An id alone does not decide where a refresh leaves a key, though: it is one
 * LeaseClock reading, and a forward wall-clock step between two grants puts the later one's id far above the earlier
 * one's whatever their real ends. A refresh compares what the pool recorded of both leases on both of the clock's
 * scales (calls/refresh-choice.ts); an id of ours the pool holds no record of is read like a foreign one (its TTL).
 *
 *
 * Why 16 ms units: 37 bits of them span as long as 41 bits of milliseconds (until 2093) and leave 26 bits for the
 * tag, so two of N live providers share a tag with probability ≈ N²/2²⁷ (0.0075 % for 100, 0.75 % for 1 000)
 * instead of N²/2²³. A shared tag costs a grant ("already exists": leases/grant.ts), never a lease that ends
 * early. An id claims up to 15 ms less life than its lease has, which only makes the pool's choice a little
 * less tight.
 *
 * notBefore counts from 2024-01-01 on the wall clock at the provider's start plus its LeaseClock, so it grows
 * across restarts and a restarted provider that drew the same tag ranks its new leases above the old ones.
 */
export const TAG_BITS = 26n;
const TIME_BITS = 37n;
/** Milliseconds per unit of an id's notBefore. */
export const ID_UNIT_MS = 16;
const TIME_MASK = (1n << TIME_BITS) - 1n;
const EPOCH_MS = Date.UTC(2024, 0, 1);

export class LeaseIdSpace {
  /** Smallest and largest id this provider can mint (decimal strings, as etcd3 carries int64). */
  readonly lowest: string;
  readonly highest: string;
  private readonly base: bigint;
  private readonly originMs: number;

  /**
   * @param clockWallOrigin wall-clock ms at which the provider's LeaseClock read 0
   * @param tag 1 … 2^26-1; random when omitted
   */
  constructor(clockWallOrigin: number, tag: number = randomInt(1, Number(1n << TAG_BITS))) {
    if (!Number.isInteger(tag) || tag < 1 || BigInt(tag) >= 1n << TAG_BITS) throw new RangeError(`tag out of range: ${tag}`);
    this.base = BigInt(tag) << TIME_BITS;
    this.originMs = clockWallOrigin - EPOCH_MS;
    this.lowest = this.base.toString();
    this.highest = (this.base | TIME_MASK).toString();
  }

  /**
   * The largest notBefore (LeaseClock ms) an id can stand for that is not after `notBefore`: what the id of a lease
   * that cannot expire before `notBefore` claims. Leases record this value, so a lease and its id agree.
   */
  floor(notBefore: number): number {
    return this.unitsOf(notBefore) * ID_UNIT_MS - this.originMs;
  }

  /** The id for a lease that cannot expire before `notBefore` (LeaseClock ms); rounds it down to a whole unit. */
  idFor(notBefore: number): string {
    const units = BigInt(this.unitsOf(notBefore));
    if (units < 0n || units > TIME_MASK) throw new RangeError(`lease expiry outside the id space: ${notBefore}`);
    return (this.base | units).toString();
  }

  /** Whole units from the id epoch to the last unit boundary not after `notBefore`. */
  private unitsOf(notBefore: number): number {
    const units = Math.floor((this.originMs + notBefore) / ID_UNIT_MS);
    // The sum rounds to the nearest double, so it can land on a unit boundary a hair after the exact one: that
    // unit would claim a moment after notBefore, more life than the lease has. Then the unit before is the floor.
    return units * ID_UNIT_MS - this.originMs > notBefore ? units - 1 : units;
  }

  /** The LeaseClock notBefore an id of this space stands for, or undefined for an id it did not mint. */
  notBeforeOf(id: string): number | undefined {
    const value = BigInt(id);
    if ((value & ~TIME_MASK) !== this.base) return undefined;
    return Number(value & TIME_MASK) * ID_UNIT_MS - this.originMs;
  }

  contains(id: string): boolean {
    return this.notBeforeOf(id) !== undefined;
  }
}
