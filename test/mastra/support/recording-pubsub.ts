import { PubSub } from '@mastra/core/events';
import type { Event, EventCallback, PubSubDeliveryMode, SubscribeOptions } from '@mastra/core/events';

/** One call the wrapper forwarded: the member's name and the arguments exactly as received. */
export interface RecordedCall {
  member: string;
  args: unknown[];
}

/**
 * A `PubSub` that overrides every member of the 1.71 base class, records each call with its
 * arguments, and answers with distinctive values, so a test can tell a forwarded call from
 * the base class's default.
 */
export class RecordingPubSub extends PubSub {
  readonly calls: RecordedCall[] = [];
  readonly history: Event[] = [
    { type: 'recorded', id: 'e-1', data: { n: 1 }, runId: 'run-1', createdAt: new Date(0), index: 0 },
  ];
  modes: ReadonlyArray<PubSubDeliveryMode> = ['push', 'pull'];
  nativeBatching = true;
  offsets = true;
  closeError: Error | undefined;

  private record(member: string, args: unknown[]): void {
    this.calls.push({ member, args });
  }

  publish(topic: string, event: Omit<Event, 'id' | 'createdAt'>, options?: { localOnly?: boolean }): Promise<void> {
    this.record('publish', [topic, event, options]);
    return Promise.resolve();
  }

  subscribe(topic: string, cb: EventCallback, options?: SubscribeOptions): Promise<void> {
    this.record('subscribe', [topic, cb, options]);
    return Promise.resolve();
  }

  unsubscribe(topic: string, cb: EventCallback): Promise<void> {
    this.record('unsubscribe', [topic, cb]);
    return Promise.resolve();
  }

  flush(): Promise<void> {
    this.record('flush', []);
    return Promise.resolve();
  }

  override clearTopic(topic: string): Promise<void> {
    this.record('clearTopic', [topic]);
    return Promise.resolve();
  }

  override getHistory(topic: string, offset?: number): Promise<Event[]> {
    this.record('getHistory', [topic, offset]);
    return Promise.resolve(this.history);
  }

  override subscribeWithReplay(topic: string, cb: EventCallback): Promise<void> {
    this.record('subscribeWithReplay', [topic, cb]);
    return Promise.resolve();
  }

  override subscribeFromOffset(topic: string, offset: number, cb: EventCallback): Promise<void> {
    this.record('subscribeFromOffset', [topic, offset, cb]);
    return Promise.resolve();
  }

  protected override onUnsupportedOffset(offset: number): void {
    this.record('onUnsupportedOffset', [offset]);
  }

  override get supportedModes(): ReadonlyArray<PubSubDeliveryMode> {
    this.record('supportedModes', []);
    return this.modes;
  }

  override get supportsNativeBatching(): boolean {
    this.record('supportsNativeBatching', []);
    return this.nativeBatching;
  }

  override get supportsOffsets(): boolean {
    this.record('supportsOffsets', []);
    return this.offsets;
  }

  close(): Promise<void> {
    this.record('close', []);
    return this.closeError ? Promise.reject(this.closeError) : Promise.resolve();
  }
}
