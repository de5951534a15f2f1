import { describe, expect, it } from 'vitest';
import { memberBreaker } from './policy.js';
import { MemberBreakers } from './member-breakers.js';

const fail = () => {
  throw new Error('member down');
};

async function open(policy: { execute: (fn: () => never) => Promise<unknown> }): Promise<void> {
  for (let i = 0; i < 2; i++) await policy.execute(fail).catch(() => undefined);
}

describe('member breakers', () => {
  it('an open breaker refuses calls while another member is closed', async () => {
    const set = new MemberBreakers();
    const a = set.add(memberBreaker(() => true));
    set.add(memberBreaker(() => true));
    await open(a);
    await expect(a.execute(() => 'answered')).rejects.toThrow(/circuit breaker is open/i);
  });

  it('with every breaker open, calls go through to the member instead of failing outright', async () => {
    const set = new MemberBreakers();
    const a = set.add(memberBreaker(() => true));
    const b = set.add(memberBreaker(() => true));
    await open(a);
    await open(b);
    await expect(a.execute(() => 'answered')).resolves.toBe('answered');
    await expect(b.execute(() => Promise.resolve('answered too'))).resolves.toBe('answered too');
  });

  it('a single endpoint is never shut out by its own breaker', async () => {
    const set = new MemberBreakers();
    const only = set.add(memberBreaker(() => true));
    await open(only);
    await expect(only.execute(() => 'answered')).resolves.toBe('answered');
  });
});
