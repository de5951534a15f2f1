/** The part of a watch event the joiner reads. */
interface RevisionedEvent {
  kv: { mod_revision: string };
}

/**
 * Puts etcd's fragmented watch responses back together, a whole revision at a time.
 *
 * A watch created with `fragment: true` (etcd ≥ 3.4) has every response larger than the member's
 * `--max-request-bytes` split into fragments: each but the last says `fragment: true`, each holds at least one event,
 * and the cut may fall between two events of one revision (one transaction's events). A watch resumes from the
 * revision after the last one it delivered, so delivering part of a revision and then losing the stream would skip
 * the rest of it. Events come in revision order, so everything in a fragment below its last revision is complete and
 * goes out at once; the events of its last revision wait for the next fragment. What is held per watch is one
 * revision (at most one transaction, under `--max-request-bytes`), never the whole response.
 *
 * Pure state, per watch id; the stream clears it when the watch or the stream ends.
 */
export class FragmentJoiner<E extends RevisionedEvent> {
  private readonly held = new Map<number, E[]>();

  /**
   * The events of one response for watch `id` that complete whole revisions, in order (after any held from its
   * previous fragments). `fragment`: the response says more fragments follow.
   */
  join(id: number, events: readonly E[], fragment: boolean): E[] {
    const before = this.held.get(id);
    const all = before === undefined ? [...events] : [...before, ...events];
    if (!fragment || all.length === 0) {
      this.held.delete(id);
      return all;
    }
    const last = all[all.length - 1]!.kv.mod_revision;
    let cut = all.length;
    while (cut > 0 && all[cut - 1]!.kv.mod_revision === last) cut--;
    this.held.set(id, all.slice(cut));
    return all.slice(0, cut);
  }

  /** Forgets what is held for watch `id` (it was cancelled). */
  drop(id: number): void {
    this.held.delete(id);
  }

  /** Forgets everything held (the stream is gone: its watches resume from their last whole revision). */
  clear(): void {
    this.held.clear();
  }

  /** Events held for watch `id`, waiting for the rest of their revision. */
  holding(id: number): number {
    return this.held.get(id)?.length ?? 0;
  }
}
