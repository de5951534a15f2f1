import type { LeaseLogger } from '../../config/options.js';
import type { EtcdCore } from '../../core/etcd-core.js';
import { EtcdCompactedError } from '../../errors/compacted.js';

/** Revisions etcd may keep over one check interval before the missing compaction is worth a warning. */
const UNCOMPACTED_REVISIONS = 10_000;

/**
 * Warns when etcd does not compact its history. Events are short-lived keys, but etcd keeps every revision until it
 * is compacted, so without `--auto-compaction-*` the db grows until the space quota raises the NOSPACE alarm — which
 * stops lease writes too. EtcdPubSub never compacts by itself: compaction is cluster-wide, cancels other tenants'
 * watches, and the Kubernetes API server compacts its own etcd.
 *
 * Every interval: read the current revision, and if more than 10 000 revisions have passed since the previous
 * check, ask one member (serializable) for the previous check's revision. Still readable means nothing compacted it.
 */
export class CompactionCheck {
  private previous: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private missing = false;

  constructor(
    private readonly core: EtcdCore,
    private readonly probeKey: Buffer,
    private readonly logger: LeaseLogger,
    /** Revisions over one interval that make a still-readable old revision worth the warning. */
    private readonly threshold: number = UNCOMPACTED_REVISIONS,
  ) {}

  /** 1 while the last check found etcd not compacting. */
  get compactionMissing(): boolean {
    return this.missing;
  }

  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.run().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One check (exposed for tests). */
  async run(): Promise<void> {
    const { client, runner } = this.core;
    const now = await runner.read('compactionCheck', this.core.budget(), ({ deadline }) =>
      client.kv.range({ key: this.probeKey, count_only: true, serializable: true }, { deadline }),
    );
    const current = BigInt(now.header.revision);
    const previous = this.previous;
    this.previous = current;
    if (previous === undefined || current - previous <= BigInt(this.threshold)) return;
    try {
      await runner.read('compactionCheck', this.core.budget(), ({ deadline }) =>
        client.kv.range({ key: this.probeKey, count_only: true, serializable: true, revision: previous.toString() }, { deadline }),
      );
    } catch (error) {
      if (error instanceof EtcdCompactedError) {
        this.missing = false;
        return;
      }
      throw error;
    }
    this.missing = true;
    this.logger.warn?.(
      'etcd keeps its whole history (no compaction): its db grows until the space quota stops every write, leases included. ' +
        'Run etcd with --auto-compaction-mode=periodic --auto-compaction-retention=5m',
      { revisionsSinceLastCheck: (current - previous).toString() },
    );
  }
}
