// One process of the event chaos run: its own EtcdPubSub (own etcd client, watch stream and group session), seen
// through each variant of event-variants.ts. It subscribes every variant's observers and group members, publishes
// on two lanes when told to, and prints every record (EventRecorder) as it happens, so a killed process has
// reported everything up to its death. Run by event-fleet.ts; never on its own.
import { createInterface } from 'node:readline';
import { EventRecorder, type RecordableCallback, type RecordablePubSub } from '../../../safety-checker/events/event-recorder.js';
import { machineClock } from '../../../safety-checker/recorder.js';
import { EtcdPubSub } from '../../../src/mastra/etcd-pubsub.js';
import { EVENT_VARIANTS } from '../../pubsub/broken/event-variants.js';
import { createRng, deriveSeed, type Rng } from '../rng.js';
import { EVENT_PUBSUB_OPTIONS, EVENT_SHAPE } from './event-workload-shape.js';
import { EVENT_WORKER_CONFIG_ENV, type EventWorkerCommand, type EventWorkerConfig, type EventWorkerMessage } from './event-protocol.js';

/**
 * The process's wall clock as NTP or an operator steps it: `Date.now()` and `new Date()` move by the steps so far,
 * while timers and `performance.now()` (the recorder's machine clock) run on. Installed before the pubsub exists.
 */
let wallStepMs = 0;
const SystemDate = Date;
class SteppedDate extends SystemDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(SystemDate.now() + wallStepMs);
    else super(...(args as [string | number | Date]));
  }

  static override now(): number {
    return SystemDate.now() + wallStepMs;
  }
}
globalThis.Date = SteppedDate as DateConstructor;

const config = JSON.parse(process.env[EVENT_WORKER_CONFIG_ENV] ?? '') as EventWorkerConfig;
const send = (message: EventWorkerMessage) => process.stdout.write(`${JSON.stringify(message)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (rng: Rng, range: { readonly min: number; readonly max: number }) => rng.int(range.min, range.max);

const { maxDeliveryAttempts, groupMemberTtlMs, redeliveryDelayMs, retentionMs, deadlineMs } = EVENT_PUBSUB_OPTIONS;
const real = new EtcdPubSub({
  hosts: [...config.endpoints],
  prefix: config.prefix,
  eventPrefix: config.eventPrefix,
  groupMemberTtlMs,
  redeliveryDelayMs,
  maxDeliveryAttempts,
  retentionMs,
  deadlineMs,
  logger: { warn: (message) => send({ warning: message }) },
}) as unknown as RecordablePubSub & { close(): Promise<void> };

// Publishes go through one recorder: every variant's history shares them.
const publisher = new EventRecorder(real, { process: config.name, sink: (record) => send({ record }) });

/** A handler as Mastra's workers are: settles after a short pause, nacks some deliveries. */
function handler(rng: Rng, nackRate: number): RecordableCallback {
  return async (_event, ack, nack) => {
    await sleep(between(rng, EVENT_SHAPE.handleMs));
    await (rng.next() < nackRate ? nack?.() : ack?.())?.catch(() => {});
  };
}

async function subscribeAll(): Promise<void> {
  const rng = createRng(deriveSeed(config.seed, 1));
  await Promise.all(
    config.variants.map(async (variant) => {
      const pubsub = new EventRecorder(EVENT_VARIANTS[variant].wrap()(real), { process: config.name, sink: (record) => send({ record, variant }) });
      // Each variant has groups of its own: a group's event goes to one callback, so variants sharing one would split
      // the work between them, and each history would miss what the others were handed.
      const own = (group: string) => (variant === 'real' ? group : `${group}.${variant}`);
      const subscriptions: Array<readonly [string, number, { group?: string; startFrom?: 'earliest' | 'latest' }]> = [
        ...EVENT_SHAPE.threadTopics.map((topic) => [topic, EVENT_SHAPE.fanOutNackRate, {}] as const),
        ...EVENT_SHAPE.workQueues.map(({ topic, group }) => [topic, EVENT_SHAPE.groupNackRate, { group: own(group) }] as const),
        ...(config.schedule ? [[EVENT_SHAPE.schedule.topic, EVENT_SHAPE.groupNackRate, { group: own(EVENT_SHAPE.schedule.group) }] as const] : []),
        ...(config.schedule ? EVENT_SHAPE.workQueues.map(({ topic }) => [topic, 0, { startFrom: 'latest' as const }] as const) : []),
      ];
      for (const [topic, nackRate, options] of subscriptions) {
        // A process started into an outage (quorum lost, NOSPACE) retries its subscribe, as a restarting pod does,
        // each time with a fresh callback: a failed subscribe is recorded as one that was never live.
        while (!(await pubsub.subscribe(topic, handler(rng, nackRate), options).then(() => true, () => false))) await sleep(500);
      }
    }),
  );
}

let publishing = false;
let sequence = 0;
let lanes: Promise<void>[] = [];

/** Publishes one event with a fresh key; an error is recorded (owed to no one: it may or may not have committed). */
async function publishOne(topic: string): Promise<void> {
  const eventKey = `${config.name}:${++sequence}`;
  await publisher.publish(topic, { type: 'chaos', runId: `run-${config.name}`, data: { eventKey } }).catch(() => {});
}

async function lane(index: number, topics: readonly string[]): Promise<void> {
  const rng = createRng(deriveSeed(config.seed, 10 + index));
  while (publishing) {
    await publishOne(rng.pick(topics));
    await sleep(between(rng, EVENT_SHAPE.publishGapMs));
  }
}

/** Each caller sends its next publish as soon as the last one settled; resolves with how many were sent. */
async function flood(ms: number): Promise<number> {
  const rng = createRng(deriveSeed(config.seed, 20));
  const until = performance.now() + ms;
  let sent = 0;
  await Promise.all(
    Array.from({ length: EVENT_SHAPE.floodCallers }, async () => {
      while (performance.now() < until) {
        sent++;
        await publishOne(rng.pick(EVENT_SHAPE.threadTopics));
      }
    }),
  );
  return sent;
}

const workTopics = [...EVENT_SHAPE.workQueues.map((q) => q.topic), EVENT_SHAPE.schedule.topic];

async function handle(command: EventWorkerCommand): Promise<void> {
  if (command.cmd === 'exit') {
    publishing = false;
    await Promise.allSettled(lanes);
    await real.close().catch(() => {});
    process.exit(0);
  }
  if (command.cmd === 'step-clock') {
    wallStepMs += command.ms;
    send({ stepped: wallStepMs });
    return;
  }
  if (command.cmd === 'flood') {
    send({ flooded: await flood(command.ms) });
    return;
  }
  if (command.on && !publishing) {
    publishing = true;
    lanes = [lane(0, EVENT_SHAPE.threadTopics), lane(1, workTopics)];
  } else if (!command.on && publishing) {
    publishing = false;
    await Promise.allSettled(lanes);
  }
  send({ publishing });
}

const commands = createInterface({ input: process.stdin });
// A parent that dies closes our stdin: exit rather than run on unwatched.
commands.on('close', () => process.exit(0));
commands.on('line', (line) => {
  handle(JSON.parse(line) as EventWorkerCommand).catch((error: unknown) => send({ fatal: String((error as Error)?.stack ?? error) }));
});
subscribeAll().then(
  () => send({ ready: true, clockOffsetMs: machineClock() - SystemDate.now() }),
  (error: unknown) => send({ fatal: String((error as Error)?.stack ?? error) }),
);
