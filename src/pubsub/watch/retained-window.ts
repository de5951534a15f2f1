import type { KeyValue } from '../../operations/etcd-txn.js';

/**
 * The retained events of one topic as this process's watch has seen them — every event still in etcd, in topic
 * order — so that a later `'earliest'` subscriber of the topic in this process gets its replay from memory instead
 * of reading the topic again. Pure state, fed by the topic's one watch (puts and deletes: expiry, `clearTopic`).
 *
 * It is *complete* only once a read of the whole topic has filled it and every change since has been applied; until
 * then, and whenever it would grow past `capBytes`, it holds nothing and a joiner reads etcd (topic-feed.ts). The cap
 * keeps a busy topic's window from living in memory: such a topic is re-read per joiner, as before.
 */
export class RetainedWindow {
  /** Insertion order is topic order: filled sorted, then extended by the watch in revision order. */
  private readonly entries = new Map<string, KeyValue>();
  private bytes = 0;
  private filled = false;

  constructor(private readonly capBytes: number) {}

  /** True while it holds every retained event up to the last change applied. */
  get complete(): boolean {
    return this.filled;
  }

  /** The retained events in topic order (a copy: the caller may deliver while changes keep coming). */
  events(): KeyValue[] {
    return [...this.entries.values()];
  }

  /**
   * Starts over from a read of the whole topic (sorted in topic order), followed by the changes the watch brought
   * since the read's revision. Returns false, holding nothing, when that is over the cap.
   */
  fill(kvs: readonly KeyValue[], since: ReadonlyArray<{ type: 'put' | 'delete'; kv: KeyValue }>): boolean {
    this.clear();
    this.filled = true;
    // Everything a read finds is retained, an event written again (moved to another lease) included.
    for (const kv of kvs) this.put(kv, 'read');
    for (const change of since) this.apply(change.type, change.kv);
    return this.filled;
  }

  /** A change the watch brought. Ignored while not complete. */
  apply(type: 'put' | 'delete', kv: KeyValue): void {
    if (!this.filled) return;
    if (type === 'delete') return void this.remove(kv.key);
    this.put(kv, 'watch');
  }

  /** Forget everything (the watch was lost: what it missed is unknown). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.filled = false;
  }

  private put(kv: KeyValue, from: 'read' | 'watch'): void {
    const id = kv.key.toString('latin1');
    const held = this.entries.get(id);
    // A watch behind the read that filled the window brings events the read had: already in place.
    if (held?.mod_revision === kv.mod_revision) return;
    if (held?.create_revision === kv.create_revision) {
      // The same event written again (moved to another lease): it keeps its place in topic order, its creation.
      this.bytes += kv.value.length - held.value.length;
      this.entries.set(id, kv);
    } else if (from === 'watch' && held === undefined && kv.create_revision !== kv.mod_revision) {
      // A later write of an event the window does not hold (left out of the read that filled it): not a new event.
      return;
    } else {
      this.remove(kv.key);
      this.entries.set(id, kv);
      this.bytes += kv.key.length + kv.value.length;
    }
    if (this.bytes > this.capBytes) this.clear();
  }

  private remove(key: Buffer): void {
    const id = key.toString('latin1');
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.bytes -= old.key.length + old.value.length;
  }
}
