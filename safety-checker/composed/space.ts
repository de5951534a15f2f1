import { noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';
import type { EtcdCluster } from '../../launcher/types.js';
import type { SpaceFaults } from './apply.js';

/** The etcd flag a cluster needs for `spaceFaults` to fill it within seconds. */
export const SMALL_QUOTA_ARGS: readonly string[] = [`--quota-backend-bytes=${32 * 1024 * 1024}`];

const FILLER_PREFIX = '__composed-filler/';
const FILLER_VALUE = Buffer.alloc(512 * 1024, 7);
/** Enough 512 KiB writes to fill a quota of 1 GiB; a small quota (SMALL_QUOTA_ARGS) takes about 70. */
const MAX_FILLER_WRITES = 2048;

/**
 * NOSPACE as a fault: fills etcd's backend with large values under a prefix of its own until etcd refuses with
 * "database space exceeded" (its alarm is then raised), and recovers as an operator does — deletes them, compacts,
 * defragments every member, disarms. Needs a cluster with a small quota (SMALL_QUOTA_ARGS).
 */
export function spaceFaults(cluster: EtcdCluster): SpaceFaults {
  // A plain client: etcd3's breakers would open on the NOSPACE answers this provokes.
  const client = (hosts: string[]) => new Etcd3({ hosts, faultHandling: { global: noop, host: () => noop } });
  const alarms = async () => {
    const raw = client(cluster.endpoints());
    try {
      return (await raw.maintenance.alarm({ action: 'Get' })).alarms;
    } finally {
      raw.close();
    }
  };
  return {
    async fill() {
      const raw = client(cluster.endpoints());
      try {
        for (let i = 0; i < MAX_FILLER_WRITES; i++) {
          try {
            await raw.put(`${FILLER_PREFIX}${i % 4}`).value(FILLER_VALUE);
          } catch (error) {
            if (/database space exceeded/.test(String(error))) return;
            throw error;
          }
        }
        throw new Error(`etcd took ${MAX_FILLER_WRITES} writes of 512 KiB without raising NOSPACE: start it with ${SMALL_QUOTA_ARGS.join(' ')}`);
      } finally {
        raw.close();
      }
    },
    async recover() {
      const raw = client(cluster.endpoints());
      try {
        await raw.delete().prefix(FILLER_PREFIX);
        const { revision } = (await raw.kv.range({ key: Buffer.from(FILLER_PREFIX) })).header;
        // Nothing written since an earlier compaction at this revision: etcd says so, and there is nothing to compact.
        await raw.kv.compact({ revision, physical: true }).catch((error: unknown) => {
          if (!/compacted/.test(String(error))) throw error;
        });
        for (let i = 0; i < cluster.size; i++) {
          const member = client([cluster.endpoint(i)]);
          try {
            await member.maintenance.defragment();
          } finally {
            member.close();
          }
        }
        for (const alarm of await alarms()) await raw.maintenance.alarm({ action: 'Deactivate', memberID: alarm.memberID, alarm: alarm.alarm });
        const left = await alarms();
        if (left.length > 0) throw new Error(`alarms still raised after the disarm: ${left.map((a) => a.alarm).join(', ')}`);
      } finally {
        raw.close();
      }
    },
  };
}
