import { ConnectionPool } from 'etcd3/lib/connection-pool.js';
import { afterAll, beforeAll } from 'vitest';

/**
 * For this test file, every etcd3 client tries its hosts in a fixed order, starting with the LAST one given,
 * and moves to the next only when that member fails (etcd3's test switch, process-wide). A scenario can then
 * say which member an attempt goes to: `hosts: [other, faulted]` sends every first attempt into the fault.
 */
export function useDeterministicHostOrder(): void {
  let before = false;
  beforeAll(() => {
    before = ConnectionPool.deterministicOrder;
    ConnectionPool.deterministicOrder = true;
  });
  afterAll(() => {
    ConnectionPool.deterministicOrder = before;
  });
}
