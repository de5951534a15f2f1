import { describe, expect, it } from 'vitest';
import { engineWarnings, satisfiesNode } from './engines.js';

// The judge of npm's engine warnings in packed.test.ts, checked on its own: on Node 20 it must expect the warning,
// on Node 22.13 and later none.
describe('satisfiesNode', () => {
  it('reads >=X.Y.Z ranges the way npm does for plain versions', () => {
    expect(satisfiesNode('v20.20.2', '>=22.13')).toBe(false);
    expect(satisfiesNode('v22.12.9', '>=22.13')).toBe(false);
    expect(satisfiesNode('v22.13.0', '>=22.13')).toBe(true);
    expect(satisfiesNode('v22.23.0', '>=22.13.0')).toBe(true);
    expect(satisfiesNode('v24.1.0', '>=22')).toBe(true);
    expect(satisfiesNode('v20.20.2', '>=20')).toBe(true);
  });

  it('refuses a range form it cannot read, so a changed engines field cannot pass unread', () => {
    expect(() => satisfiesNode('v22.13.0', '^22.13 || >=24')).toThrow(/unsupported engines range/);
  });
});

describe('engineWarnings', () => {
  it("reads each EBADENGINE block of npm's stderr: the package and the Node it requires", () => {
    const stderr = [
      'npm warn EBADENGINE Unsupported engine {',
      "npm warn EBADENGINE   package: 'etcd-lease-provider@0.1.0',",
      "npm warn EBADENGINE   required: { node: '>=22.13' },",
      "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
      'npm warn EBADENGINE }',
      'npm warn EBADENGINE Unsupported engine {',
      "npm warn EBADENGINE   package: '@mastra/core@1.71.0',",
      "npm warn EBADENGINE   required: { node: '>=22.13.0' },",
      "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
      'npm warn EBADENGINE }',
      'added 3 packages in 2s',
    ].join('\n');
    expect(engineWarnings(stderr)).toEqual([
      { pkg: 'etcd-lease-provider@0.1.0', requiredNode: '>=22.13' },
      { pkg: '@mastra/core@1.71.0', requiredNode: '>=22.13.0' },
    ]);
    expect(engineWarnings('added 3 packages in 2s')).toEqual([]);
  });
});
