import { describe, expect, it } from 'vitest';
import { healthyFacts } from './facts.fixtures.js';
import { formatFindings, wrap } from './format-findings.js';
import { runChecks } from './run-checks.js';

describe('doctor report', () => {
  it('fits 80 columns, long words included, and says what is left to fix', () => {
    const facts = healthyFacts({ compaction: { revision: 20_000, oldestReadable: 1 } });
    facts.endpoints = [`https://${'very-long-host-name-'.repeat(6)}.example:2379`];
    const text = formatFindings(runChecks(facts), `etcd-lease doctor: ${facts.endpoints.join(', ')}`);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(text).toMatch(/^WARN compaction/m);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^2 to fix: 0 FAIL, 2 WARN/); // compaction, and the members the one endpoint leaves out;
  });

  it('says nothing is to fix when nothing is', () => {
    expect(formatFindings(runChecks(healthyFacts()), 'x').split('\n').at(-1)).toMatch(/^Nothing to fix/);
  });

  it('wraps words, indents continuation lines, and never loses a character', () => {
    const text = 'alpha beta gamma delta epsilon';
    const lines = wrap(text, 12, '  ', '> ');
    expect(lines).toEqual(['> alpha beta', '  gamma', '  delta', '  epsilon']);
    const long = wrap('x'.repeat(25), 10, '', '');
    expect(long.join('')).toBe('x'.repeat(25));
    expect(long.every((l) => l.length <= 10)).toBe(true);
  });
});
