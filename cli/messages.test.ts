import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../test/cli/support/cli-process.js';
import { demoCommand } from './commands/demo.js';

// The CLI's messages where no etcd is needed: a setting that cannot be an endpoint, an unreachable cluster, the
// demo's help. (Those that need a lease, like release --owner against metadata, are in test/cli/commands.test.ts.)
describe('etcd-lease messages', () => {
  it("ETCD_ENDPOINTS='not a host' is a usage error at once: exit 2, naming the variable, nothing retried", async () => {
    const result = await runCli(['list', '--timeout', '60000'], cleanEnv({ ETCD_ENDPOINTS: 'not a host' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ETCD_ENDPOINTS: "not a host" is not host:port');
    expect(result.stderr).not.toContain('ELEASE_UNAVAILABLE');
  });

  it('an unreachable --endpoints: the hint names those endpoints, and no internal operation name shows', async () => {
    const result = await runCli(['get', 'k', '--endpoints', '127.0.0.1:1', '--timeout', '500']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^etcd-lease: ELEASE_UNAVAILABLE: etcd unavailable after/m);
    expect(result.stderr).toContain('Is etcd running at 127.0.0.1:1 (from --endpoints)?');
    expect(result.stderr).not.toContain('default 127.0.0.1:2379');
    expect(result.stderr).not.toMatch(/\b(range|get|txn|acquireLease|getLeaseRecord):/);
  });

  it('demo --help lists each flag once, and no endpoints default the demo does not use', () => {
    const help = demoCommand('cli.js').help;
    const flags = [...help.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(flags.length).toBeGreaterThan(8);
    expect(new Set(flags).size).toBe(flags.length);
    expect(help).not.toContain('default 127.0.0.1:2379');
    expect(help).toMatch(/--prefix P +parent of the run's own unique prefix/);
    expect(help).toMatch(/--endpoints LIST +an existing cluster to run against .*default: start a local one/);
    expect(help).not.toContain('`etcd-lease list`');
  });
});
