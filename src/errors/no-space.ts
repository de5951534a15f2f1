import { LeaseError } from './lease-error.js';

/**
 * etcd's NOSPACE alarm is raised: its database reached `--quota-backend-bytes`, and etcd refuses every write until an
 * operator frees space and disarms the alarm. Nothing of the call was written.
 *
 * From the moment etcd reports the alarm, the provider sends no write — batched or alone — and fails writing calls at
 * once with this error; reads and releases (deletes, which etcd still allows) keep working. It finds out by itself when
 * the alarm is cleared (commit/space-alarm.ts), so writes resume without a restart. Not retried: the alarm stays until
 * someone acts.
 */
export class EtcdNoSpaceError extends LeaseError {
  readonly code = 'ELEASE_NO_SPACE' as const;
  readonly retryable = false;

  constructor(
    readonly operation: string,
    cause?: unknown,
  ) {
    super(
      `${operation}: etcd's NOSPACE alarm is raised (its database reached --quota-backend-bytes), so etcd accepts no writes; ` +
        'nothing was written, reads and releases still work. An operator must compact the history (etcdctl compact <revision>), ' +
        'defragment every member (etcdctl defrag --cluster) and disarm the alarm (etcdctl alarm disarm); writes resume once it is cleared',
      { cause },
    );
  }
}
