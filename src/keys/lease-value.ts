/**
 * The bytes stored under a lease key.
 *
 * - Without metadata: the owner's UTF-8 bytes, exactly as every earlier version stored them, so records written
 *   before metadata existed keep working and read back as `{ owner }`.
 * - With run metadata (a string): `0xFF 0x01`, the owner's length as 4 bytes big-endian, the owner's
 *   UTF-8 bytes, then the metadata's UTF-8 bytes.
 *
 * Why this is unambiguous: 0xFF never occurs in UTF-8, and owners are well-formed strings (lone surrogates are
 * refused), so no owner's bytes start with it — an owner that merely looks like JSON or like an envelope is still
 * just an owner. Why one value and not a second key: the ownership compare stays one `VALUE ==` compare inside the
 * writing transaction, "the same owner with other (or no) metadata" fails that same compare, and owner and
 * metadata can never expire apart.
 */
const ENVELOPE = 0xff;
const VERSION = 0x01;
const HEADER_BYTES = 6;

export interface LeaseHolder {
  owner: string;
  /** Present only when the lease was taken with metadata (`''` is a value; `undefined` is none). */
  metadata?: string;
}

export function encodeLeaseValue(owner: string, metadata?: string): Buffer {
  const ownerBytes = Buffer.from(owner, 'utf8');
  if (metadata === undefined) return ownerBytes;
  const metadataBytes = Buffer.from(metadata, 'utf8');
  const out = Buffer.allocUnsafe(HEADER_BYTES + ownerBytes.length + metadataBytes.length);
  out[0] = ENVELOPE;
  out[1] = VERSION;
  out.writeUInt32BE(ownerBytes.length, 2);
  ownerBytes.copy(out, HEADER_BYTES);
  metadataBytes.copy(out, HEADER_BYTES + ownerBytes.length);
  return out;
}

/**
 * Inverse of `encodeLeaseValue`. Bytes that start with 0xFF but are no envelope this version knows (written by
 * some other program) are shown as the owner they literally are, never guessed at.
 */
export function decodeLeaseValue(bytes: Buffer): LeaseHolder {
  if (bytes.length >= HEADER_BYTES && bytes[0] === ENVELOPE && bytes[1] === VERSION) {
    const ownerLength = bytes.readUInt32BE(2);
    if (HEADER_BYTES + ownerLength <= bytes.length) {
      return {
        owner: bytes.toString('utf8', HEADER_BYTES, HEADER_BYTES + ownerLength),
        metadata: bytes.toString('utf8', HEADER_BYTES + ownerLength),
      };
    }
  }
  return { owner: bytes.toString('utf8') };
}
