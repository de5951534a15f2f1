import { randomInt } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Identities of what one process writes. The publisher id is 12 random base32 characters (60 bits) per EtcdPubSub
 * instance; an event's id is `<publisher>-<sequence>` with the sequence as 16 fixed-width hex digits, so within one
 * publisher the key order is the publish order (events of one batch share a revision, and readers sort ties by key).
 * The publisher id also names the process's group memberships.
 */
export class EventIds {
  readonly publisher: string;
  private sequence = 0n;

  constructor(publisher: string = randomPublisherId()) {
    if (!/^[a-z2-7]{12}$/.test(publisher)) throw new RangeError(`publisher id must be 12 base32 characters, got '${publisher}'`);
    this.publisher = publisher;
  }

  next(): string {
    this.sequence += 1n;
    return `${this.publisher}-${this.sequence.toString(16).padStart(16, '0')}`;
  }
}

export function randomPublisherId(): string {
  let id = '';
  for (let i = 0; i < 12; i++) id += BASE32[randomInt(32)];
  return id;
}
