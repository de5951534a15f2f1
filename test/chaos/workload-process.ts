// One chaos worker process: a provider (the real one or a broken double, by name) driven by a few Mastra-like
// holders (holder.ts). It prints every call as a RecordedOp on the machine-wide clock and obeys the parent's
// commands on stdin (workload-protocol.ts). Run by workload.ts; never on its own.
import { createInterface } from 'node:readline';
import { machineClock, Recorder } from '../../safety-checker/recorder.js';
import { runHolder } from './holder.js';
import { createRng, deriveSeed } from './rng.js';
import { SuspendableClock } from './suspendable-clock.js';
import { VARIANTS } from './variants.js';
import { WORKER_CONFIG_ENV, type WorkerCommand, type WorkerConfig, type WorkerMessage } from './workload-protocol.js';

const config = JSON.parse(process.env[WORKER_CONFIG_ENV] ?? '') as WorkerConfig;
const send = (message: WorkerMessage) => process.stdout.write(`${JSON.stringify(message)}\n`);

const clock = new SuspendableClock();
const provider = VARIANTS[config.variant]({ hosts: [...config.endpoints], prefix: config.prefix }, clock);
const inflight = new Set<Promise<unknown>>();
const track = <T>(call: Promise<T>): Promise<T> => {
  inflight.add(call);
  void call.finally(() => inflight.delete(call));
  return call;
};
let stopped = false;

const holders = Array.from({ length: config.holders }, (_, i) => {
  const name = `${config.name}.h${i}`;
  return runHolder({
    name,
    keys: config.keys,
    ttlMs: config.ttlMs,
    rng: createRng(deriveSeed(config.seed, i)),
    recorder: new Recorder(name, provider, (op) => send({ op })),
    track,
    stopped: () => stopped,
  });
});
send({ ready: true });

const commands = createInterface({ input: process.stdin });
// A parent that dies closes our stdin: stop rather than run on unwatched.
commands.on('close', () => void stop());
commands.on('line', (line) => {
  const command = JSON.parse(line) as WorkerCommand;
  if (command.cmd === 'suspend') {
    const from = machineClock();
    clock.suspendProcess(command.ms);
    send({ suspended: { from, to: machineClock() } });
  } else if (command.cmd === 'step-clock') {
    clock.jumpWall(command.ms);
    send({ stepped: true });
  } else if (command.cmd === 'flood') {
    void flood(command.ms).then((flooded) => send({ flooded }));
  } else {
    void stop();
  }
});

/** Callers in the flood, each sending its next call as soon as the last one settled. */
const FLOOD_CALLERS = 256;

/**
 * More fresh work than the cluster commits — a read of a key nobody holds, or now and then an acquire of one — beside
 * the holders' renewals on the same provider: what a busy worker's provider meets. Not recorded: the keys are the
 * flood's own and their callers judge nothing by the answers.
 */
async function flood(ms: number): Promise<{ calls: number; errors: number }> {
  const end = performance.now() + ms;
  let calls = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: FLOOD_CALLERS }, async (_, i) => {
      for (let n = 0; performance.now() < end && !stopped; n++) {
        const key = `flood/${config.name}/${i}/${n}`;
        calls += 1;
        const call: Promise<unknown> = n % 4 === 3 ? provider.acquireLease(key, 'flood', config.ttlMs) : provider.getLease!(key);
        await track(call).catch(() => {
          errors += 1;
          // A shed call fails at once: a caller that resent at once would only spin.
          return new Promise((r) => setTimeout(r, 5));
        });
      }
    }),
  );
  return { calls, errors };
}

async function stop(): Promise<void> {
  if (stopped) return;
  stopped = true;
  await Promise.all(holders);
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
  await provider.close();
  send({ stopped: true });
  process.exit(0);
}
