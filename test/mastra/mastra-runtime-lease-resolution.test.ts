/**
 * Which lease provider does the real `@mastra/core` runtime use for a pubsub built by
 * `PubSubWithLeases`? 1.71 keeps its resolver private (`#getLeaseProvider` in the agent
 * thread runtime), so these tests watch what it does: an agent turn started by
 * `agent.sendMessage` must take, renew and release its thread lease on our provider.
 * No etcd needed: the provider here is Mastra's in-memory one, recorded.
 */
import { Agent } from '@mastra/core/agent';
import { InMemoryServerCache } from '@mastra/core/cache';
import { EventEmitterPubSub, withCaching } from '@mastra/core/events';
import type { PubSub } from '@mastra/core/events';
import { Mastra } from '@mastra/core/mastra';
import { afterEach, describe, expect, it } from 'vitest';

import { PubSubWithLeases } from '../../src/mastra/pubsub-with-leases.js';
import { RecordingLeaseProvider } from './support/recording-lease-provider.js';
import { createScriptedModel } from './support/scripted-model.js';
import { waitFor } from '../support/wait.js';

const RESOURCE = 'resource-1';
const THREAD = 'thread-1';
// Mastra's thread key: resource and thread joined by a NUL byte.
const THREAD_KEY = `${RESOURCE}\u0000${THREAD}`;

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

function mastraWith(pubsub: PubSub) {
  const agent = new Agent({
    id: 'echo',
    name: 'echo',
    instructions: 'Reply briefly.',
    model: createScriptedModel(),
  });
  const mastra = new Mastra({ agents: { echo: agent }, pubsub, logger: false });
  closers.push(() => mastra.shutdown());
  return { mastra, agent: mastra.getAgent('echo') };
}

async function runOneTurn(agent: Agent) {
  const sent = agent.sendMessage('hello', { resourceId: RESOURCE, threadId: THREAD });
  const accepted = await sent.accepted;
  if (accepted.action !== 'wake') throw new Error(`expected this process to wake the thread, got ${accepted.action}`);
  await accepted.output.consumeStream();
  return accepted.runId;
}

describe('Mastra 1.71 resolves the lease provider of a PubSubWithLeases', () => {
  it('through mastra.pubsub: the agent run holds its thread lease on our provider', async () => {
    const events = new EventEmitterPubSub();
    const leases = new RecordingLeaseProvider();
    const { mastra, agent } = mastraWith(new PubSubWithLeases(events, leases));

    // What Mastra's resolver calls first: `getLeaseProvider` on the pubsub it holds (a Proxy).
    const resolved = (mastra.pubsub as unknown as PubSubWithLeases).getLeaseProvider();
    expect(resolved).toBe(leases);

    const runId = await runOneTurn(agent);
    expect(leases.callsOf('acquireLease')).toContainEqual([THREAD_KEY, runId, 15_000]);
    await waitFor('lease release', () => leases.callsOf('releaseLease').some(([key, owner]) => key === THREAD_KEY && owner === runId), { timeoutMs: 10_000 });
    expect(await leases.getLeaseOwner(THREAD_KEY)).toBeUndefined();
    // The event side is an in-memory lease provider too: it must never have been asked.
    expect(await events.getLeaseOwner(THREAD_KEY)).toBeUndefined();
  });

  it('through a CachingPubSub around it', async () => {
    const leases = new RecordingLeaseProvider();
    const wrapped = new PubSubWithLeases(new EventEmitterPubSub(), leases);
    const { agent } = mastraWith(withCaching(wrapped, new InMemoryServerCache()));

    const runId = await runOneTurn(agent);
    expect(leases.callsOf('acquireLease')).toContainEqual([THREAD_KEY, runId, 15_000]);
    await waitFor('lease release', () => leases.callsOf('releaseLease').length > 0, { timeoutMs: 10_000 });
  });

  it('with a CachingPubSub inside it', async () => {
    const leases = new RecordingLeaseProvider();
    const cached = withCaching(new EventEmitterPubSub(), new InMemoryServerCache());
    const { agent } = mastraWith(new PubSubWithLeases(cached, leases));

    const runId = await runOneTurn(agent);
    expect(leases.callsOf('acquireLease')).toContainEqual([THREAD_KEY, runId, 15_000]);
  });

  it("with onAcquireError: 'deny', an unreachable provider starts no run", async () => {
    const events = new EventEmitterPubSub();
    const failing = new RecordingLeaseProvider();
    failing.acquireLease = () => Promise.reject(new Error('etcd unavailable'));
    let turns = 0;
    const agent = new Agent({
      id: 'echo',
      name: 'echo',
      instructions: 'Reply briefly.',
      model: createScriptedModel({ onTurnStart: () => void turns++ }),
    });
    const mastra = new Mastra({
      agents: { echo: agent },
      pubsub: new PubSubWithLeases(events, failing, { onAcquireError: 'deny' }),
      logger: false,
    });
    closers.push(() => mastra.shutdown());

    const accepted = await mastra.getAgent('echo').sendMessage('hello', { resourceId: RESOURCE, threadId: THREAD }).accepted;
    // 1.71 answers `deliver` (to a run that does not exist): the message is not run.
    expect(accepted.action).toBe('deliver');
    expect(turns).toBe(0);
  });

  it("with the default 'throw', Mastra's idle wake runs the agent anyway (fail-open)", async () => {
    const failing = new RecordingLeaseProvider();
    failing.acquireLease = () => Promise.reject(new Error('etcd unavailable'));
    const { agent } = mastraWith(new PubSubWithLeases(new EventEmitterPubSub(), failing));

    const accepted = await agent.sendMessage('hello', { resourceId: RESOURCE, threadId: THREAD }).accepted;
    expect(accepted.action).toBe('wake');
  });
});
