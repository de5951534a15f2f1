import { describe, expect, it } from 'vitest';

import { parseMemberSample } from './member-metrics.js';

describe('parseMemberSample', () => {
  it('reads the unlabelled gauges and leaves missing ones undefined', () => {
    const page = [
      '# HELP etcd_mvcc_db_total_size_in_use_in_bytes Total size of the underlying database logically in use in bytes.',
      '# TYPE etcd_mvcc_db_total_size_in_use_in_bytes gauge',
      'etcd_mvcc_db_total_size_in_use_in_bytes 1.2345e+06',
      'etcd_mvcc_db_total_size_in_bytes 2.097152e+06',
      'etcd_debugging_mvcc_keys_total 42',
      'etcd_mvcc_db_total_size_in_use_in_bytes_extra{x="y"} 9',
      '',
    ].join('\n');
    expect(parseMemberSample(page)).toEqual({ dbInUseBytes: 1_234_500, dbFileBytes: 2_097_152, keys: 42, compactRevision: undefined });
  });
});
