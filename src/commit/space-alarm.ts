import type { IRequestOp } from 'etcd3';
import type { TxnRequest } from '../operations/etcd-txn.js';

/**
 * What the provider knows of etcd's NOSPACE alarm, and which writes it may send meanwhile.
 *
 * etcd raises the alarm when a write would take its database past `--quota-backend-bytes`, and from then on refuses
 * every Put, LeaseGrant and Txn whose *top-level* branches put something — it prices a Txn by those puts alone
 * (`costTxn`), so a batch of nested sub-transactions costs nothing and is written anyway. `quotaCounted` closes that
 * gap for the batches this provider sends; this class closes the other one: once any answer said NOSPACE, writes are
 * not sent at all but fail at once with EtcdNoSpaceError, while reads and deletes, which etcd still serves, go on.
 *
 * How the provider learns that the alarm is cleared: by a probe, a real write sent alone (`admit` answers 'probe'
 * for at most one write at a time, at most every `probeGapMs`). Reading the alarm list instead was weighed and
 * rejected: etcd answers an Alarm GET through Raft (a proposal per poll, from every provider, for as long as the
 * alarm lasts) and Status only lists the alarms of the one member asked; a poll also costs something when nobody
 * writes, and recovery waits for its next tick. A probe is only sent when someone wants to write, costs etcd no more
 * than that write would have (refused before Raft while the database is still over quota), and its success is the
 * recovery itself: an idle provider's first write after the disarm simply succeeds, a busy one resumes within one
 * gap.
 */
export class SpaceAlarm {
  private raisedAt: number | undefined;
  private lastProbeAt = Number.NEGATIVE_INFINITY;
  private probing = false;

  constructor(
    /** Least time between two probes, in ms (POLICY.spaceAlarm.probeGapMs). */
    private readonly probeGapMs: number,
    private readonly onChange: (raised: boolean) => void = () => {},
  ) {}

  get raised(): boolean {
    return this.raisedAt !== undefined;
  }

  /** Whether a write made at `now` must fail at once, without being sent: the alarm is raised and no probe is due. */
  refusing(now: number): boolean {
    return this.raisedAt !== undefined && (this.probing || now < this.lastProbeAt + this.probeGapMs);
  }

  /**
   * For a write about to be sent at `now`: 'send' while no alarm is known, 'probe' for the one write that may test
   * whether it was cleared (send it alone, then report with `probeEnded`), else 'refuse'.
   */
  admit(now: number): 'send' | 'probe' | 'refuse' {
    if (this.raisedAt === undefined) return 'send';
    if (this.refusing(now)) return 'refuse';
    this.probing = true;
    this.lastProbeAt = now;
    return 'probe';
  }

  /** etcd answered a write with NOSPACE at `now`: the alarm is raised (again). An answer counts as a probe. */
  raise(now: number): void {
    this.lastProbeAt = now;
    if (this.raisedAt !== undefined) return;
    this.raisedAt = now;
    this.onChange(true);
  }

  /**
   * The probe came back at `now`: `applied` when etcd carried it out (whatever its compares decided: etcd refuses
   * a write by its shape under the alarm, before looking at the data), which means the alarm is gone.
   */
  probeEnded(now: number, applied: boolean): void {
    this.probing = false;
    this.lastProbeAt = now;
    if (!applied || this.raisedAt === undefined) return;
    this.raisedAt = undefined;
    this.onChange(false);
  }
}

/** Whether `request` puts anything, at any depth: the writes etcd refuses under the NOSPACE alarm. Deletes are not. */
export function writesKeys(request: TxnRequest): boolean {
  return opsPut(request.success) || opsPut(request.failure);
}

/** Whether etcd's quota check sees `request`'s puts: it counts those in the top-level branches only. */
export function countedByQuota(request: TxnRequest): boolean {
  return topLevelPut(request.success) || topLevelPut(request.failure) || !writesKeys(request);
}

/**
 * A batch of nested sub-transactions that etcd's quota check cannot overlook: with no compares, etcd always takes the
 * success branch, so a put in the failure branch is never carried out — but etcd prices a Txn by the larger of its
 * two branches' top-level puts, so this one makes the batch a write in the quota's eyes: refused under the alarm like
 * a lone put, and refused when it would pass the quota. `key` must be one the caller may write (etcd checks the
 * permission of both branches) and needs no value; the provider uses its prefix itself, which is never a lease key
 * (keys are non-empty), though even a lease key would do no harm: the put never runs, and etcd checks overlapping
 * writes per branch. Costs one op of etcd's --max-txn-ops only when the success branch has fewer than one.
 */
export function quotaCounted(batch: TxnRequest, key: Buffer): TxnRequest {
  return { ...batch, failure: [...(batch.failure ?? []), { request_put: { key } }] };
}

function topLevelPut(ops: readonly IRequestOp[] | undefined): boolean {
  if (!ops) return false;
  for (let i = 0; i < ops.length; i++) if (ops[i]!.request_put) return true;
  return false;
}

function opsPut(ops: readonly IRequestOp[] | undefined): boolean {
  if (!ops) return false;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.request_put) return true;
    if (op.request_txn && writesKeys(op.request_txn)) return true;
  }
  return false;
}
