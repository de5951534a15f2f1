import type { Etcd3 } from 'etcd3';
import { SYSTEM_CLOCK } from '../../../src/clock/clock-source.js';
import { EtcdLeaseProvider } from '../../../src/index.js';
import type { ProviderFactory, ProviderUnderTest } from '../../chaos/provider-under-test.js';
import type { useEtcdCluster } from '../../support/etcd-fixture.js';
import { untilMemberAnswers } from './key-state.js';

/** The member whose client link a cut-link scenario cuts; it leads while the scenario runs. */
export const CUT_MEMBER = 0;

export interface CutScenario {
  readonly prefix: string;
  /** The provider under test: its first attempts go to CUT_MEMBER, its retries to member 1. */
  readonly a: ProviderUnderTest;
  /** A correct provider on members 1 and 2 only. */
  readonly b: ProviderUnderTest;
  /** A plain reader of what etcd stores, off the cut member too (closed with the fixture). */
  readonly raw: Etcd3;
}

/**
 * The clients of the scenarios in which a request of A's sits in a cut link and lands late. Needs
 * useDeterministicHostOrder: etcd3 then tries the last host first, so A's hosts are [member 1, CUT_MEMBER].
 */
export async function cutScenario(etcd: ReturnType<typeof useEtcdCluster>, factory: ProviderFactory): Promise<CutScenario> {
  const { cluster } = etcd;
  // An earlier scenario's cut may still have this process backing off from the member.
  await untilMemberAnswers(cluster, CUT_MEMBER);
  // The provider sends its attempts to the leader once it knows it: the cut link must be the leader's for A's first
  // attempts to sit in it (on a follower's link, the host order alone would not put them there).
  await cluster.moveLeader(CUT_MEMBER);
  const prefix = etcd.uniquePrefix();
  return {
    prefix,
    a: factory({ hosts: [cluster.endpoint(1), cluster.endpoint(CUT_MEMBER)], prefix }, SYSTEM_CLOCK),
    b: new EtcdLeaseProvider({ hosts: [cluster.endpoint(1), cluster.endpoint(2)], prefix }),
    raw: etcd.rawClient(),
  };
}
