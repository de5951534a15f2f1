/**
 * Chaos test of a Mastra app: three processes of the app (worker.ts) on EtcdPubSub, messages flowing to agent threads
 * from all of them, while the etcd leader is killed and another member is paused. It asserts what the app's users care
 * about — no message lost, no thread run twice — and what the leases promised: no two owners ever believed they held
 * one lease at once, fencing tokens only went up.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkLeaseHistory, useEtcdCluster, type RecordedOp } from 'etcd-lease-provider/testing';

const etcd = useEtcdCluster({ beforeAll, afterAll }, { members: 3 });

interface Report {
  worker: string;
  at: number;
  type: 'ready' | 'turn-start' | 'turn-end' | 'accepted' | 'refused' | 'lease-call';
  texts?: string[];
  text?: string;
  threadId?: string;
  op?: RecordedOp;
}

const workers: ChildProcess[] = [];
const reports: Report[] = [];
afterAll(() => workers.forEach((w) => w.kill('SIGKILL')));

async function startWorker(name: string, prefix: string): Promise<ChildProcess> {
  const child = fork(fileURLToPath(new URL('./worker.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, WORKER: name, PREFIX: prefix, ETCD_ENDPOINTS: etcd.cluster.endpoints().join(',') },
  });
  workers.push(child);
  child.on('message', (report: Report) => reports.push(report));
  await until(`${name} ready`, () => reports.some((r) => r.worker === name && r.type === 'ready'));
  return child;
}

/** Polls a condition; fails the test with its name when it does not come in time. */
async function until(what: string, condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('no thread runs twice and no message is lost while the etcd leader is killed and a member is paused', async () => {
  const { cluster } = etcd;
  const prefix = `chaos/${process.pid}/`;
  const app = await Promise.all(['app-1', 'app-2', 'app-3'].map((name) => startWorker(name, prefix)));
  // Each message wakes a thread of its own; three processes send them, a third at a time.
  const messages = Array.from({ length: 24 }, (_, i) => ({ text: `message-${i}`, threadId: `thread-${i}` }));
  const ran = (text: string) => reports.some((r) => r.type === 'turn-end' && r.texts?.includes(text));
  const send = (i: number) => app[i % app.length]!.send(messages[i]!);
  // A message the app refused (etcd out of reach past its deadline) is sent again, as a caller would: the caller
  // knew, so it is not lost. Resent while waiting for the messages to run.
  const resent = new Set<Report>();
  const allRan = (some: typeof messages) => () => {
    for (const refused of reports.filter((r) => r.type === 'refused' && !resent.has(r))) {
      resent.add(refused);
      app[resent.size % app.length]!.send({ text: refused.text, threadId: refused.threadId });
    }
    return some.every((m) => ran(m.text));
  };

  // A third of the messages, then the leader dies; the next third while the two others elect a new one.
  const leader = await cluster.leader();
  for (let i = 0; i < 8; i++) send(i);
  await cluster.kill(leader);
  for (let i = 8; i < 16; i++) send(i);
  await until('the first 16 messages to run', allRan(messages.slice(0, 16)));
  // The killed member back, then a follower frozen (SIGSTOP: its connections stay open and answer nothing).
  await cluster.restart(leader);
  const follower = ((await cluster.leader()) + 1) % cluster.size;
  await cluster.pause(follower);
  for (let i = 16; i < 24; i++) send(i);
  await until('every message to run', allRan(messages));
  await cluster.resume(follower);

  // No message lost, none run twice: each thread ran exactly one turn, in whichever process.
  for (const { threadId, text } of messages) {
    const turns = reports.filter((r) => r.type === 'turn-start' && r.texts?.includes(text));
    expect(turns.map((t) => t.worker), `${threadId} ran ${turns.length} times`).toHaveLength(1);
  }
  // What the leases promised: every lease call of every process, checked as one history.
  const verdict = checkLeaseHistory(reports.filter((r) => r.type === 'lease-call').map((r) => r.op!));
  console.info(verdict.report);
  expect(verdict.overlaps).toEqual([]);
  expect(verdict.fencing).toEqual([]);

  await Promise.all(app.map(async (child) => {
    child.send('exit');
    await once(child, 'exit');
  }));
}, 180_000);
