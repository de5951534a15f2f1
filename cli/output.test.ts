import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output } from './output.js';

describe('Output', () => {
  it('waits for the stream to drain when its buffer is full, so memory holds one chunk', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    const output = new Output(stream);
    let written = false;
    const writing = output.write('x'.repeat(64)).then(() => (written = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toBe(false);
    stream.read();
    await writing;
    expect(written).toBe(true);
  });

  it('a reader that went away (EPIPE) closes it: pending and later writes resolve and print nothing', async () => {
    const chunks: string[] = [];
    const stream = new Writable({ highWaterMark: 4, write: (chunk: Buffer) => void chunks.push(String(chunk)) }); // never done: its buffer stays full
    const output = new Output(stream);
    const pending = output.write('first chunk');
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await pending;
    expect(output.closed).toBe(true);
    await output.write('after');
    expect(chunks).toEqual(['first chunk']);
  });
});
