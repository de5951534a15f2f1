import { describe, expect, it } from 'vitest';
import { KeyLanes } from './key-lanes.js';
import { Superseded } from './superseded.js';

const never = new AbortController().signal;

describe('key lanes', () => {
  it('runs calls on one key one after another, in the order they were made', async () => {
    const lanes = new KeyLanes();
    const order: string[] = [];
    const call = async (name: string, work: Promise<void>) => {
      const leave = await lanes.enter('k', never);
      order.push(`${name} start`);
      await work;
      order.push(`${name} end`);
      leave();
    };
    let finishFirst!: () => void;
    const first = call('first', new Promise((r) => (finishFirst = r)));
    const second = call('second', Promise.resolve());
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['first start']);
    finishFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first start', 'first end', 'second start', 'second end']);
    expect(lanes.size).toBe(0);
  });

  it('does not make calls on other keys wait', async () => {
    const lanes = new KeyLanes();
    await lanes.enter('a', never);
    const leaveB = await lanes.enter('b', never);
    leaveB();
    expect(lanes.size).toBe(1);
  });

  it('a waiter that gives up leaves at once, and the calls behind it still run in order', async () => {
    const lanes = new KeyLanes();
    const leaveFirst = await lanes.enter('k', never);
    const abort = new AbortController();
    const giving = lanes.enter('k', abort.signal);
    const third = lanes.enter('k', never);
    abort.abort(new Error('deadline'));
    await expect(giving).rejects.toThrow('deadline');
    let thirdIn = false;
    void third.then(() => (thirdIn = true));
    await new Promise((r) => setImmediate(r));
    expect(thirdIn).toBe(false);
    leaveFirst();
    (await third)();
    expect(lanes.size).toBe(0);
  });

  it('tryEnter takes a free lane at once and refuses a busy one; leaving twice lets only one call in', async () => {
    const lanes = new KeyLanes();
    const leave = lanes.tryEnter('k')!;
    expect(lanes.tryEnter('k')).toBeUndefined();
    const second = lanes.enter('k', never);
    const third = lanes.enter('k', never);
    leave();
    leave();
    const leaveSecond = await second;
    let thirdIn = false;
    void third.then(() => (thirdIn = true));
    await new Promise((r) => setImmediate(r));
    expect(thirdIn).toBe(false);
    leaveSecond();
    (await third)();
    expect(lanes.size).toBe(0);
  });

  it("a waiting call is superseded by a later one with the same tag, and is handed that one's outcome; other tags and untagged calls keep their places", async () => {
    const lanes = new KeyLanes();
    const leaveFirst = lanes.tryEnter('k')!;
    const order: string[] = [];
    const outcomes = new Map<string, Promise<unknown>>();
    const call = (name: string, tag?: string) => {
      const outcome = Promise.resolve(`${name}'s outcome`);
      outcomes.set(name, outcome);
      return lanes.enter('k', never, tag === undefined ? undefined : { tag, outcome }).then(
        (leave) => {
          order.push(name);
          leave();
        },
        (error: unknown) => order.push(`${name} ${error instanceof Superseded && error.by === outcomes.get('renew A 2') ? 'superseded by renew A 2' : 'failed'}`),
      );
    };
    const calls = [call('renew A 1', 'A'), call('release'), call('renew B', 'B'), call('renew A 2', 'A')];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['renew A 1 superseded by renew A 2']);
    leaveFirst();
    await Promise.all(calls);
    expect(order).toEqual(['renew A 1 superseded by renew A 2', 'release', 'renew B', 'renew A 2']);
    expect(lanes.size).toBe(0);
  });
});

