import type { Meter, MeterProvider } from '@opentelemetry/api';

export interface Recorded {
  name: string;
  value: number;
  attributes: Record<string, unknown> | undefined;
}

/** Just enough of an OpenTelemetry MeterProvider to see what the observer records. */
export function recordingMeterProvider() {
  const records: Recorded[] = [];
  const callbacks: Array<{ name: string; cb: (r: { observe(v: number, a?: Record<string, unknown>): void }) => void }> = [];
  const created: Array<{ name: string; unit: string | undefined }> = [];
  const meters: string[] = [];
  const versions: Array<string | undefined> = [];
  const instrument = (name: string, options?: { unit?: string }) => {
    created.push({ name, unit: options?.unit });
    const record = (value: number, attributes?: Record<string, unknown>) => records.push({ name, value, attributes });
    return {
      record,
      add: record,
      addCallback: (cb: never) => callbacks.push({ name, cb }),
      removeCallback: (cb: never) => {
        const i = callbacks.findIndex((c) => c.cb === cb);
        if (i >= 0) callbacks.splice(i, 1);
      },
    };
  };
  const meter = {
    createHistogram: instrument,
    createCounter: instrument,
    createUpDownCounter: instrument,
    createObservableGauge: instrument,
  } as unknown as Meter;
  const provider: MeterProvider = {
    getMeter: (name: string, version?: string) => {
      meters.push(name);
      versions.push(version);
      return meter;
    },
  };
  const collect = () => {
    const observed: Recorded[] = [];
    for (const { name, cb } of callbacks) cb({ observe: (value, attributes) => observed.push({ name, value, attributes }) });
    return observed;
  };
  return { provider, records, created, meters, versions, collect };
}
