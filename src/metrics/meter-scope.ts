import type { Meter, MeterProvider } from '@opentelemetry/api';

/** Instrumentation scope name: `metrics.getMeter(METER_NAME, METER_VERSION)`. */
export const METER_NAME = 'etcd-lease-provider';

/**
 * Instrumentation scope version: the package's version, so a backend can tell which release emitted a series
 * (metric names and attributes may change between 0.x releases). Kept equal to package.json's `version` by
 * meter-scope.test.ts.
 */
export const METER_VERSION = '0.1.0';

/** The one meter of this package, shared by the lease provider and `EtcdPubSub`. */
export function leaseMeter(provider: MeterProvider): Meter {
  return provider.getMeter(METER_NAME, METER_VERSION);
}
