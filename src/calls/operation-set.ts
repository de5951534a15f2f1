import { acquireTxn, decodeAcquire, type AcquireOutcome } from '../operations/acquire.js';
import type { TxnOutcome, TxnRequest } from '../operations/etcd-txn.js';
import type { HeldVersion, RefreshOutcome } from '../operations/refresh-own.js';
import { decodeRelease, releaseTxn, type ReleaseOutcome } from '../operations/release.js';
import { decodeRenew, renewTxn } from '../operations/renew.js';
import { decodeTransfer, transferTxn, type TransferOutcome } from '../operations/transfer.js';

/**
 * The transaction shapes the provider's calls are built from, each a pure builder with its decoder
 * (src/operations). Gathered in one object so the chaos suite's negative controls can run deliberately broken
 * shapes through the very same calls, committer and cluster, and show that the checker catches them.
 */
export interface OperationSet {
  acquire: {
    txn(key: Buffer, value: Buffer, lease: string): TxnRequest;
    decode(outcome: TxnOutcome, value: Buffer): AcquireOutcome;
  };
  /**
   * Every refresh of a key its value holds — a renew, and the second step of an acquire or transfer that found the
   * key already held by the value it writes: `version` is the one to refresh, `lease` the call's, `keep` whether the
   * key stays on its own later lease (refresh-own.ts).
   */
  renew: {
    txn(key: Buffer, value: Buffer, version: HeldVersion, lease: string, keep: boolean): TxnRequest;
    decode(outcome: TxnOutcome, value: Buffer): RefreshOutcome;
  };
  transfer: {
    txn(key: Buffer, from: Buffer, fromRevision: string, to: Buffer, lease: string): TxnRequest;
    decode(outcome: TxnOutcome, from: Buffer, to: Buffer): TransferOutcome;
  };
  release: {
    txn(key: Buffer, value: Buffer, revision: string): TxnRequest;
    decode(outcome: TxnOutcome, value: Buffer): ReleaseOutcome;
  };
}

export const OPERATIONS: OperationSet = Object.freeze({
  acquire: { txn: acquireTxn, decode: decodeAcquire },
  renew: { txn: renewTxn, decode: decodeRenew },
  transfer: { txn: transferTxn, decode: decodeTransfer },
  release: { txn: releaseTxn, decode: decodeRelease },
});
