/**
 * The Mastra-shaped event workload the event chaos run drives (event-worker.ts), one shape for the real EtcdPubSub
 * and its broken variants:
 *
 * - agent thread streams (`thread.a`, `thread.b`): every process publishes to them and observes both (fan-out, as
 *   `subscribeToThread` observers do);
 * - shared work queues (`workflows`, `background-tasks`): every process publishes to them and is one member of the
 *   queue's consumer group (Mastra's workflow orchestration and background-task workers);
 * - a schedule queue (`schedules`) with a single-member group in one process (its order is promised);
 * - an observer of the work queues in that process too, from `'latest'`;
 * - after a worker is killed, its replacement joins late: replays the thread topics, rejoins the groups.
 *
 * Handlers settle after a short pause, and nack some deliveries (a failed step), as Mastra's workers do.
 */
export const EVENT_SHAPE = {
  threadTopics: ['thread.a', 'thread.b'],
  workQueues: [
    { topic: 'workflows', group: 'orchestrators' },
    { topic: 'background-tasks', group: 'task-workers' },
  ],
  schedule: { topic: 'schedules', group: 'scheduler' },
  /** Processes at the start: p0 hosts the schedule group, every one publishes and consumes. */
  processes: 3,
  /** The pause between two publishes of one lane (each process runs a thread lane and a work lane), in ms. */
  publishGapMs: { min: 120, max: 320 },
  /** Concurrent publishers of a flood (a composed run's `flood` fault on a worker). */
  floodCallers: 8,
  /** A handler settles this long after its delivery, in ms. */
  handleMs: { min: 0, max: 25 },
  /** Share of grouped deliveries nacked (redelivered as the next attempt), and of fan-out ones. */
  groupNackRate: 0.1,
  fanOutNackRate: 0.03,
} as const;

/** EtcdPubSub's options in every worker, and what the checker is told of them. */
export const EVENT_PUBSUB_OPTIONS = {
  /** A dead or suspended member's claimed events move after this: short, so a 5 s suspend shows it. */
  groupMemberTtlMs: 3000,
  redeliveryDelayMs: 50,
  maxDeliveryAttempts: 5,
  retentionMs: 60_000,
  deadlineMs: 5000,
} as const;
