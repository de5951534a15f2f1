import { parseArgs } from 'node:util';
import { parsing, positionals } from '../args.js';
import { print, type Command } from '../command.js';
import { CONNECTION_HELP, connectionOptions, resolveConnection } from '../connection.js';
import { gatherFacts } from '../doctor/gather-facts.js';
import { needsFixing } from '../doctor/finding.js';
import { formatFindings } from '../doctor/format-findings.js';
import { runChecks } from '../doctor/run-checks.js';
import { deriveEventPrefix } from '../../src/pubsub/resolve-options.js';
import { UsageError, EXIT_FAILED, EXIT_OK } from '../usage-error.js';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check the etcd cluster and this package’s use of it; say what to fix and how',
  help: `Usage: etcd-lease doctor [--json] [--event-prefix P] [connection flags]

Checks the cluster the leases and events live on, and says for each finding what is
wrong, why it matters to leases or events, and the command or flag that fixes it:
members that do not answer or are missing from the endpoints, etcd versions (known
lease defects, the versions this package is tested on), the leader, elections and
raft lag, alarms, the space quota and db size, free pages a defrag would give back,
compaction, authentication and the role's reach (least privilege), TLS and certificate
expiry, and the lease and event keys under the prefixes. It only reads: its write
checks are transactions whose compare cannot hold.

Exit code: 0 nothing to fix (ok and notes only); 1 a WARN or FAIL finding, or etcd
could not be reached at all; 2 usage error.

  --json             print { endpoints, prefix, eventPrefix, findings: [{ check, level,
                     summary, why?, fix? }], needsFixing, facts }
  --event-prefix P   EtcdPubSub's key prefix [default: beside the lease prefix, as
                     EtcdPubSub derives it: mastra/lease/ -> mastra/events/]

${CONNECTION_HELP}`,

  async run(argv) {
    const { values, positionals: given } = parsing('doctor', () =>
      parseArgs({
        args: argv,
        options: { ...connectionOptions, json: { type: 'boolean' }, 'event-prefix': { type: 'string' } },
        allowPositionals: true,
        strict: true,
      }),
    );
    positionals('doctor', given, []);
    const settings = resolveConnection(values);
    let eventPrefix = values['event-prefix'];
    if (eventPrefix === '') throw new UsageError('--event-prefix: must not be empty', 'doctor');
    if (eventPrefix === undefined) {
      try {
        eventPrefix = deriveEventPrefix(settings.prefix);
      } catch {
        throw new UsageError(`--event-prefix: required, since none can be derived beside the lease prefix ${JSON.stringify(settings.prefix)}`, 'doctor');
      }
    }
    const facts = await gatherFacts(settings, eventPrefix);
    const findings = runChecks(facts);
    const fix = needsFixing(findings);
    if (values.json) {
      print(JSON.stringify({ endpoints: settings.hosts, prefix: settings.prefix, eventPrefix, findings, needsFixing: fix, facts }, null, 2));
    } else {
      const heading = `etcd-lease doctor: ${settings.hosts.join(', ')}; leases under ${JSON.stringify(settings.prefix)}, events under ${JSON.stringify(eventPrefix)}`;
      print(formatFindings(findings, heading));
    }
    return fix ? EXIT_FAILED : EXIT_OK;
  },
};
