import { describe, expect, it } from 'vitest';
import { streamPartsWriteBehind } from './etcd-pubsub-publish-modes.js';

describe('streamPartsWriteBehind', () => {
  it('sends only stream parts of thread topics write-behind', () => {
    const part = { type: 'stream-part', runId: 'r', data: {} };
    expect(streamPartsWriteBehind('agent.thread-stream.u%00t', part)).toBe('write-behind');
    expect(streamPartsWriteBehind('agent.thread-stream.u%00t', { ...part, type: 'run-completed' })).toBe('durable');
    expect(streamPartsWriteBehind('agent.thread-owner-discovery', part)).toBe('durable');
    expect(streamPartsWriteBehind('workflows', part)).toBe('durable');
  });
});
