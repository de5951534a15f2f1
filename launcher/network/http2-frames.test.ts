import { describe, expect, it } from 'vitest';
import { Http2FrameSplitter, RST_STREAM } from './http2-frames.js';
import { frame, PREFACE } from './http2.fixtures.js';

describe('Http2FrameSplitter', () => {
  it('labels the preface and each frame, handing back every byte in order', () => {
    const stream = Buffer.concat([PREFACE, frame(0x1, 1, Buffer.from('headers')), frame(RST_STREAM, 1, Buffer.alloc(4))]);
    const pieces = new Http2FrameSplitter().push(stream);
    expect(Buffer.concat(pieces.map((p) => p.bytes))).toEqual(stream);
    expect(pieces.filter((p) => p.startsFrame).map((p) => p.frameType)).toEqual([0x1, RST_STREAM]);
    expect(pieces[0]?.frameType).toBeUndefined();
  });

  it('keeps a frame split at any byte together: its pieces carry its type, and a header waits for its nine bytes', () => {
    const stream = Buffer.concat([PREFACE, frame(0x0, 3, Buffer.from('some data')), frame(RST_STREAM, 3, Buffer.alloc(4)), frame(0x8, 0, Buffer.alloc(4))]);
    for (let cut = 1; cut < stream.length; cut++) {
      const splitter = new Http2FrameSplitter();
      const pieces = [...splitter.push(stream.subarray(0, cut)), ...splitter.push(stream.subarray(cut))];
      expect(Buffer.concat(pieces.map((p) => p.bytes))).toEqual(stream);
      expect(pieces.filter((p) => p.startsFrame).map((p) => p.frameType)).toEqual([0x0, RST_STREAM, 0x8]);
      const rst = pieces.filter((p) => p.frameType === RST_STREAM);
      expect(Buffer.concat(rst.map((p) => p.bytes)).length).toBe(9 + 4);
    }
  });

  it('an empty frame is just its header', () => {
    const pieces = new Http2FrameSplitter().push(Buffer.concat([PREFACE, frame(0x4, 0, Buffer.alloc(0)), frame(0x6, 0, Buffer.alloc(8))]));
    expect(pieces.filter((p) => p.startsFrame).map((p) => p.frameType)).toEqual([0x4, 0x6]);
  });
});
