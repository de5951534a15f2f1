/** What the queue orders by: the earlier `urgentAt` first, ties in arrival order (`seq`). */
export interface Ranked {
  readonly urgentAt: number;
  readonly seq: number;
  /** Kept by the queue: whether the item is in it now. */
  inQueue: boolean;
}

/**
 * The group committer's waiting operations, most urgent first, with the least urgent at hand too: the committer sends
 * from one end and, past its bound, sheds from the other. Two binary heaps over the same items, with lazy deletion —
 * an item taken out (sent, shed, withdrawn when its call ended) only has its flag cleared and is skipped when it
 * surfaces in the other heap — so every operation is O(log n) and none walks the queue. The heaps are rebuilt once
 * their stale entries outnumber the live ones, which keeps memory proportional to what is queued.
 */
export class UrgencyQueue<T extends Ranked> {
  private readonly soonest: T[] = [];
  private readonly latest: T[] = [];
  private live = 0;

  get size(): number {
    return this.live;
  }

  /** Queues `item`; a no-op if it is queued already. */
  push(item: T): void {
    if (item.inQueue) return;
    item.inQueue = true;
    this.live++;
    siftUp(this.soonest, this.soonest.push(item) - 1, before);
    siftUp(this.latest, this.latest.push(item) - 1, after);
  }

  /** The most urgent item, left in the queue. */
  peekSoonest(): T | undefined {
    return top(this.soonest, before);
  }

  /** The least urgent item, left in the queue. */
  peekLatest(): T | undefined {
    return top(this.latest, after);
  }

  /** Takes `item` out; a no-op if it is not queued. */
  remove(item: T): void {
    if (!item.inQueue) return;
    item.inQueue = false;
    this.live--;
    if (this.soonest.length + this.latest.length > 4 * this.live + 1024) this.rebuild();
  }

  /** Every queued item, emptying the queue (close). */
  drain(): T[] {
    const items = this.soonest.filter((item) => item.inQueue);
    for (const item of items) item.inQueue = false;
    this.soonest.length = 0;
    this.latest.length = 0;
    this.live = 0;
    return items;
  }

  private rebuild(): void {
    // An item pushed again after being taken out can sit in a heap twice; keep one of each.
    const items = [...new Set(this.soonest.filter((item) => item.inQueue))];
    this.soonest.length = 0;
    this.latest.length = 0;
    for (const item of items) {
      siftUp(this.soonest, this.soonest.push(item) - 1, before);
      siftUp(this.latest, this.latest.push(item) - 1, after);
    }
  }
}

type Order<T> = (a: T, b: T) => boolean;

/** Whether `a` is sent before `b`: the earlier `urgentAt`, ties in arrival order. */
export const before: Order<Ranked> = (a, b) => a.urgentAt < b.urgentAt || (a.urgentAt === b.urgentAt && a.seq < b.seq);
const after: Order<Ranked> = (a, b) => before(b, a);

/** The heap's first live item, after dropping the stale ones above it. */
function top<T extends Ranked>(heap: T[], first: Order<T>): T | undefined {
  while (heap.length > 0 && !heap[0]!.inQueue) pop(heap, first);
  return heap[0];
}

function pop<T>(heap: T[], first: Order<T>): void {
  const last = heap.pop()!;
  if (heap.length === 0) return;
  heap[0] = last;
  siftDown(heap, 0, first);
}

function siftUp<T>(heap: T[], i: number, first: Order<T>): void {
  const item = heap[i]!;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!first(item, heap[parent]!)) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = item;
}

function siftDown<T>(heap: T[], i: number, first: Order<T>): void {
  const item = heap[i]!;
  const n = heap.length;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && first(heap[child + 1]!, heap[child]!)) child++;
    if (!first(heap[child]!, item)) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = item;
}
