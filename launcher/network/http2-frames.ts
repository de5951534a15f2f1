/**
 * Splits a client's HTTP/2 byte stream (plaintext, as gRPC sends it to etcd without TLS) at frame
 * boundaries, so the fault proxy can tell one kind of frame from another without buffering the stream:
 * every byte is handed back at once, labelled with the frame it belongs to. Only a frame header that
 * arrives in pieces is kept until its nine bytes are there.
 *
 * The proxy needs exactly one fact from it: "this is the client cancelling a request" (RST_STREAM).
 */

/** RFC 9113 §6.4: the sender abandons one stream — a gRPC client whose deadline passed. */
export const RST_STREAM = 0x3;

/** "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", which a client sends before its first frame. */
const PREFACE_LENGTH = 24;
const HEADER_LENGTH = 9;

export interface FramePiece {
  readonly bytes: Buffer;
  /** Type of the frame these bytes belong to; undefined for the connection preface. */
  readonly frameType: number | undefined;
  /** The piece begins a frame (it is the frame's header): decide about the whole frame here. */
  readonly startsFrame: boolean;
}

export class Http2FrameSplitter {
  private prefaceLeft = PREFACE_LENGTH;
  private partialHeader: Buffer = Buffer.alloc(0);
  private bodyLeft = 0;
  private frameType: number | undefined;

  /** The pieces of `chunk`, in order; their bytes add up to `chunk` except for a header still incomplete. */
  push(chunk: Buffer): FramePiece[] {
    const pieces: FramePiece[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      const left = chunk.length - offset;
      if (this.prefaceLeft > 0) {
        const n = Math.min(this.prefaceLeft, left);
        pieces.push({ bytes: chunk.subarray(offset, offset + n), frameType: undefined, startsFrame: false });
        this.prefaceLeft -= n;
        offset += n;
      } else if (this.bodyLeft === 0) {
        const n = Math.min(HEADER_LENGTH - this.partialHeader.length, left);
        this.partialHeader = Buffer.concat([this.partialHeader, chunk.subarray(offset, offset + n)]);
        offset += n;
        if (this.partialHeader.length < HEADER_LENGTH) break;
        const header = this.partialHeader;
        this.partialHeader = Buffer.alloc(0);
        this.frameType = header[3];
        this.bodyLeft = header.readUIntBE(0, 3);
        pieces.push({ bytes: header, frameType: this.frameType, startsFrame: true });
      } else {
        const n = Math.min(this.bodyLeft, left);
        pieces.push({ bytes: chunk.subarray(offset, offset + n), frameType: this.frameType, startsFrame: false });
        this.bodyLeft -= n;
        offset += n;
      }
    }
    return pieces;
  }
}
