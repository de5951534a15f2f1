/** Hand-made HTTP/2 bytes for the proxy's unit tests (RFC 9113 §3.4, §4.1). */

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** One frame: 24-bit length, type, flags (0), 31-bit stream id, payload. */
export function frame(type: number, streamId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = 0;
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}
