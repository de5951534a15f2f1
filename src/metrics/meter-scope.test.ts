import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METER_VERSION } from './meter-scope.js';

describe('meter scope', () => {
  it("the meter's version is the package's", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(METER_VERSION).toBe(pkg.version);
  });
});
