import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EtcdLeaseProviderOptions } from './config/options.js';
import { EtcdCore } from './core/etcd-core.js';
import { ProviderClosedError } from './errors/closed.js';
import { createLeaseProvider, EtcdLeaseProvider } from './provider.js';

// No etcd: the client connects lazily, and a closed provider answers before any request.
const options = { hosts: '127.0.0.1:1' };

describe('createLeaseProvider: internals for one provider only', () => {
  it('the public constructor takes options alone (npm run typecheck checks this)', () => {
    expectTypeOf<ConstructorParameters<typeof EtcdLeaseProvider>['length']>().toEqualTypeOf<1>();
    expectTypeOf<ConstructorParameters<typeof EtcdLeaseProvider>[0]>().toExtend<EtcdLeaseProviderOptions>();
  });

  it('the provider it builds gets the internals; the next one built with `new` gets none', async () => {
    const core = new EtcdCore(options);
    const inner = createLeaseProvider(options, { core, closedAs: 'EtcdPubSub' });
    const plain = new EtcdLeaseProvider(options);
    await Promise.all([inner.close(), plain.close()]);
    core.close(new ProviderClosedError('test'));
    await expect(inner.getLeaseOwner('k')).rejects.toThrow('getLeaseOwner: the EtcdPubSub is closed');
    await expect(plain.getLeaseOwner('k')).rejects.toThrow('getLeaseOwner: the EtcdLeaseProvider is closed');
  });

  it('internals given to a construction that fails reach no later provider', async () => {
    expect(() => createLeaseProvider({ hosts: [] }, { closedAs: 'EtcdPubSub' })).toThrow('options.hosts');
    const plain = new EtcdLeaseProvider(options);
    await plain.close();
    await expect(plain.getLeaseOwner('k')).rejects.toThrow('getLeaseOwner: the EtcdLeaseProvider is closed');
  });
});
