import { parseArgs } from 'node:util';
import { integerFlag, parsing, positionals } from '../args.js';
import { printError, type Command } from '../command.js';
import { NoEtcdError } from '../../launcher/no-etcd-error.js';
import { environmentSource } from '../../src/config/load-env.js';
import { connectionHelp, connectionOptions, resolveConnection } from '../connection.js';
import { runDemo } from '../demo/run-demo.js';
import { EXIT_FAILED, UsageError } from '../usage-error.js';

const DEFAULT_BASE_PREFIX = 'etcd-lease-demo/';

export function demoCommand(cliEntry: string): Command {
  return {
    name: 'demo',
    summary: 'watch leases survive a failing cluster (what `npm start` runs)',
    help: `Usage: etcd-lease demo [--duration S] [--workers N] [--keys N] [--ttl MS] [--report PATH] [connection flags]

Without ETCD_ENDPOINTS (or --endpoints): starts a local 3-member etcd cluster (the \`etcd\`
binary on PATH or ETCD_BIN, else containers of ETCD_IMAGE — default the official etcd image,
v3.5 — when a Docker engine runs) on free 127.0.0.1 ports, runs worker processes that contend for
thread keys the way Mastra does (acquire, renew every ttl/3, hand over with transferLease,
release), kills the leader and restarts it, pauses a member (SIGSTOP), and shows it live.
With ETCD_ENDPOINTS: runs against that cluster under a unique prefix, kills nothing, and
deletes its keys at the end — a check a platform team can run against their etcd.

It prints the run's prefix and the command that lists its keys meanwhile.
Keys show as demo-user\\0thread-1: \\0 is the NUL Mastra puts between resourceId and threadId.
On a terminal the live view takes the screen (as top does) and leaves its last frame behind.

Ends by itself, then prints the path of an HTML report and, last, exactly:
  summary: <n> ops, <f> faults injected, <o> overlaps, longest stall <x> s
(singular after 1: "1 fault injected"; f: the leader killed and the leader paused, not their
repairs; o: overlapping belief windows of different owners, see docs/design.md#belief-windows
in the etcd-lease-provider package).
Exit 0 when the history is safe, 1 on any overlap or fencing violation. Ctrl-C stops early.

  --duration S       how long the workers run, in seconds          [default 45]
  --workers N        worker processes                              [default 4]
  --keys N           thread keys they contend for                  [default 6]
  --ttl MS           lease TTL; renewed every ttl/3                [default 6000]
  --report PATH      where to write the HTML report                [default report.html]
  --prefix P         parent of the run's own unique prefix         [ETCD_PREFIX, default ${DEFAULT_BASE_PREFIX}]

${connectionHelp({
  endpoints: '  --endpoints LIST   an existing cluster to run against    [ETCD_ENDPOINTS, default: start a local one]',
  prefix: null,
})}`,

    async run(argv) {
      const { values, positionals: given } = parsing('demo', () =>
        parseArgs({
          args: argv,
          options: {
            ...connectionOptions,
            duration: { type: 'string' },
            workers: { type: 'string' },
            keys: { type: 'string' },
            ttl: { type: 'string' },
            report: { type: 'string' },
          },
          allowPositionals: true,
          strict: true,
        }),
      );
      positionals('demo', given, []);
      const connection = resolveConnection(values);
      const ttlMs = integerFlag('demo', 'ttl', values.ttl, 6000, 1000, 600_000);
      const durationS = integerFlag('demo', 'duration', values.duration, 45, 3, 3600);
      if (values.report === '') throw new UsageError('--report: must not be empty', 'demo');
      const demo = runDemo({
        cliEntry,
        external: connection.explicitEndpoints ? connection : undefined,
        // The operator's prefix (their etcd role may allow no other) holds the run's own.
        basePrefix: values.prefix ?? environmentSource(process.env).read('prefix') ?? DEFAULT_BASE_PREFIX,
        durationMs: durationS * 1000,
        workers: integerFlag('demo', 'workers', values.workers, 4, 1, 16),
        keys: integerFlag('demo', 'keys', values.keys, 6, 1, 64),
        ttlMs,
        reportPath: values.report ?? 'report.html',
      });
      // The message names the ways to get etcd and is meant to be read as it is: no class name, no stack.
      return demo.catch((error: unknown) => {
        if (!(error instanceof NoEtcdError)) throw error;
        printError(error.message);
        return EXIT_FAILED;
      });
    },
  };
}
