import { GRPCDeadlineExceededError, GRPCFailedPreconditionError, type Etcd3 } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { LeaseClock } from '../clock/lease-clock.js';
import { isLeaseError } from '../errors/lease-error.js';
import { LeaseIdTakenError } from '../errors/lease-id-taken.js';
import { CallRunner } from '../transport/call-runner.js';
import { ETCD_RPC_ERROR } from '../transport/etcd-rpc-error.js';
import { grantPooledLease } from './grant.js';
import { LeaseIdSpace } from './lease-id.js';
import { LeasePool } from './lease-pool.js';

const ID = '123456789';

function leaseExists(): Error {
  return Object.assign(new GRPCFailedPreconditionError(`9 FAILED_PRECONDITION: ${ETCD_RPC_ERROR.leaseExists}`), { details: ETCD_RPC_ERROR.leaseExists });
}

/**
 * etcd behind a LeaseGrant that answers with `grants` in turn (an error to throw, or undefined for a grant), and a
 * LeaseTimeToLive that answers `ttl`. The lease clock is frozen at 0: the TTL question is sent at 0.
 */
function etcdAnswering(grants: Array<Error | undefined>, ttl: { TTL: string; grantedTTL: string }) {
  const asked: string[] = [];
  const client = {
    leaseClient: {
      leaseGrant: async (req: { TTL: number }) => {
        asked.push('grant');
        const next = grants.shift();
        if (next) throw next;
        return { TTL: String(req.TTL), ID };
      },
      leaseTimeToLive: async () => {
        asked.push('ttl');
        return ttl;
      },
    },
  } as unknown as Etcd3;
  const context = {
    client,
    runner: new CallRunner(50, 'test/'),
    clock: new LeaseClock({ monotonic: () => 0, wall: () => Date.UTC(2026, 0, 1) }),
    logger: {},
    budget: () => ({ deadlineMs: 2000 }),
  };
  return { context, asked };
}

/** What a lease granted when the clock read 0 claims, on both scales (they agree: the test clock does not move). */
const claim = (ms: number) => ({ notBefore: ms, steadyNotBefore: ms });

const failure = (p: Promise<unknown>) => p.then(() => undefined, (error: unknown) => error);

describe('granting a pooled lease under a chosen id', () => {
  it('"already exists" on the first attempt means taken: another holder of the id, never adopted', async () => {
    // The other holder's lease has plenty of TTL left: it still is not ours to vouch for.
    const { context, asked } = etcdAnswering([leaseExists()], { TTL: '60', grantedTTL: '60' });
    const error = await failure(grantPooledLease(context, 11, ID, claim(11_000)));
    expect(error).toBeInstanceOf(LeaseIdTakenError);
    expect(isLeaseError(error) && error.code).toBe('ELEASE_UNAVAILABLE');
    expect(asked).toEqual(['grant']);
  });

  it('a grant for less than asked is refused as taken (its id would claim more than the lease has), coded', async () => {
    const { context } = etcdAnswering([], { TTL: '0', grantedTTL: '0' });
    context.client.leaseClient.leaseGrant = (async () => ({ TTL: '5', ID })) as never;
    expect(await failure(grantPooledLease(context, 11, ID, claim(11_000)))).toBeInstanceOf(LeaseIdTakenError);
  });

  it('on a retry, adopts the lease when its remaining TTL, counted from when it was asked, covers notBefore', async () => {
    const { context, asked } = etcdAnswering([new GRPCDeadlineExceededError('timed out'), leaseExists()], { TTL: '11', grantedTTL: '11' });
    await expect(grantPooledLease(context, 11, ID, claim(11_000))).resolves.toBeUndefined();
    expect(asked).toEqual(['grant', 'grant', 'ttl']);
  });

  it.each([
    // Granted for as long as asked, but 3 s ago: 8 s left where the id stands for 11 s.
    ['a lease that may end before notBefore (a same-tag provider with a clock ahead granted it)', '8', '11', 11_000],
    ["etcd's truncated TTL read as a lower bound: 10 s left does not cover a notBefore 10.5 s away", '10', '11', 10_500],
    ["a just-elected leader's placeholder TTL", '9223372036', '11', 11_000],
    ['a lease that is gone by the time its TTL is read', '-1', '0', 11_000],
  ])('on a retry, refuses %s', async (_what, TTL, grantedTTL, notBefore) => {
    const { context } = etcdAnswering([new GRPCDeadlineExceededError('timed out'), leaseExists()], { TTL, grantedTTL });
    expect(await failure(grantPooledLease(context, 11, ID, claim(notBefore)))).toBeInstanceOf(LeaseIdTakenError);
  });

  it('a call whose pooled grants find every id taken tries again, and fails coded at its deadline, never with an internal error', async () => {
    // Every id etcd is asked for exists already, on a lease that is gone by the time its TTL is read (what an
    // overloaded cluster answers when each grant's first answer is lost and the lease expired before the retry).
    const taken = () => Array.from({ length: 1000 }, leaseExists);
    const { context, asked } = etcdAnswering(taken(), { TTL: '-1', grantedTTL: '0' });
    const raw = { monotonic: 0, wall: Date.UTC(2026, 0, 1) };
    const clock = new LeaseClock({ monotonic: () => raw.monotonic, wall: () => raw.wall });
    const pool = new LeasePool((ttl, id, claims) => grantPooledLease({ ...context, clock }, ttl, id, claims), 1000, clock, new LeaseIdSpace(clock.wallOrigin, 4242));
    const error = await failure(
      context.runner.run('renewLease', { deadlineMs: 300 }, async () => {
        raw.monotonic += 20; // each attempt of the call a little later: a new grant, fresh ids
        raw.wall += 20;
        return pool.leaseFor(5_000, clock.moment());
      }),
    );
    expect(isLeaseError(error) && error.code).toBe('ELEASE_UNAVAILABLE');
    expect(asked.filter((a) => a === 'grant').length).toBeGreaterThan(8); // more than one grant's worth of ids
  });
});
