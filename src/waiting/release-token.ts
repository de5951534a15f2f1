import type { ICompare } from 'etcd3';
import { remove, valueIs, type TxnRequest } from '../operations/etcd-txn.js';

// Numeric values of etcd's Compare enums (rpc.proto), as in operations/etcd-txn.ts.
const EQUAL = 0;
const MOD = 2;

/**
 * Delete the key only if it still holds `owner` *and* is still the exact write that made `owner` the
 * holder (mod revision == fencing token).
 *
 * Used to undo an acquire that won after its waiter had given up. Comparing the owner alone would also
 * delete a lease the same owner string acquired afresh in the meantime (a caller retrying after a timeout);
 * the revision compare limits the undo to the one write the abandoned waiter made.
 */
export function releaseTokenTxn(key: Buffer, owner: string, fencingToken: string): TxnRequest {
  const unchanged: ICompare = { key, target: MOD, result: EQUAL, mod_revision: fencingToken };
  return { compare: [valueIs(key, owner), unchanged], success: [remove(key)], failure: [] };
}
