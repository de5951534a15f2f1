import { describe, expectTypeOf, it } from 'vitest';
import { EtcdLeaseProvider, type AcquireResult, type EtcdLeaseProviderOptions } from '../../src/index.js';

/**
 * `acquireLease`'s result narrows on `acquired`: the fencing token is a `string` on a win and absent otherwise, and a
 * provider built with `contractResults: true` is typed as resolving no token at all. Compiled by tsc, never run; each
 * `@ts-expect-error` line must stay an error.
 */
declare const won: AcquireResult;
const hosts = ['127.0.0.1:2379'];

describe('AcquireResult', () => {
  it('inside `if (result.acquired)` the token and the owner are strings', () => {
    if (won.acquired) {
      expectTypeOf(won.fencingToken).toEqualTypeOf<string>();
      expectTypeOf(won.owner).toEqualTypeOf<string>();
      const token: string = won.fencingToken;
      void token;
    } else {
      expectTypeOf(won.fencingToken).toEqualTypeOf<undefined>();
      expectTypeOf(won.owner).toEqualTypeOf<string | undefined>();
      // @ts-expect-error a lost acquire carries no token to pass on as a string
      const token: string = won.fencingToken;
      void token;
    }
  });

  it('before narrowing the token may be missing', () => {
    expectTypeOf(won.fencingToken).toEqualTypeOf<string | undefined>();
    // @ts-expect-error not narrowed: the token may be missing
    const token: string = won.fencingToken;
    void token;
  });

  it('is what a default provider resolves', async () => {
    const provider = new EtcdLeaseProvider({ hosts });
    const result = await provider.acquireLease('k', 'run-1', 30_000);
    expectTypeOf(result).toEqualTypeOf<AcquireResult>();
    if (result.acquired) expectTypeOf(result.fencingToken).toEqualTypeOf<string>();
    const explicit = new EtcdLeaseProvider({ hosts, contractResults: false });
    expectTypeOf(await explicit.acquireLease('k', 'run-1', 30_000)).toEqualTypeOf<AcquireResult>();
  });

  it('contractResults: true resolves { acquired, owner }: no token even on a win', async () => {
    const provider = new EtcdLeaseProvider({ hosts, contractResults: true });
    const result = await provider.acquireLease('k', 'run-1', 30_000, 'metadata');
    if (result.acquired) {
      expectTypeOf(result.owner).toEqualTypeOf<string>();
      expectTypeOf(result.fencingToken).toEqualTypeOf<undefined>();
      // @ts-expect-error a contract-shaped win has no token
      const token: string = result.fencingToken;
      void token;
    }
  });

  it('options only known as EtcdLeaseProviderOptions: a win may or may not carry the token', async () => {
    const options: EtcdLeaseProviderOptions = { hosts };
    const provider = new EtcdLeaseProvider(options);
    const result = await provider.acquireLease('k', 'run-1', 30_000);
    if (result.acquired) expectTypeOf(result.fencingToken).toEqualTypeOf<string | undefined>();
  });
});
