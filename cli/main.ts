#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { isLeaseError } from '../src/errors/lease-error.js';
import { printError, print, type Command } from './command.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { getCommand } from './commands/get.js';
import { listCommand } from './commands/list.js';
import { releaseCommand } from './commands/release.js';
import { statsCommand } from './commands/stats.js';
import { watchCommand } from './commands/watch.js';
import { WORKER_COMMAND } from './demo/worker-protocol.js';
import { describeError } from './describe-error.js';
import { endpointsGiven, errorHint } from './error-hint.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, isUsageError } from './usage-error.js';

/** This file, as run: the demo forks it again (hidden `__demo-worker` command) for its worker processes. */
const CLI_ENTRY = fileURLToPath(import.meta.url);

const commands: readonly Command[] = [listCommand, statsCommand, getCommand, releaseCommand, watchCommand, doctorCommand, demoCommand(CLI_ENTRY)];

const HELP = `Usage: etcd-lease <command> [options]

Look at and fix the leases EtcdLeaseProvider keeps in etcd (Mastra thread leases).

Commands:
${commands.map((c) => `  ${c.name.padEnd(9)}${c.summary}`).join('\n')}

Run \`etcd-lease <command> --help\` for a command's options.
Exit codes: 0 ok; 1 the operation failed (etcd unreachable, access refused, the lease is not yours,
a message over a size limit);
2 usage error (unknown command or flag, missing argument, unusable TLS material).`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === WORKER_COMMAND) {
    const { runWorker } = await import('./demo/worker.js');
    return runWorker();
  }
  if (name === undefined) {
    printError(HELP);
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h') {
    print(HELP);
    return EXIT_OK;
  }
  if (name === 'help') {
    const target = rest[0] === undefined ? undefined : commands.find((c) => c.name === rest[0]);
    print(target?.help ?? HELP);
    return rest[0] === undefined || target !== undefined ? EXIT_OK : EXIT_USAGE;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    printError(`etcd-lease: unknown command ${JSON.stringify(name)}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  // Before parsing, so `--help` works even next to a command line that would not parse.
  const beforeTerminator = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (beforeTerminator.includes('--help') || beforeTerminator.includes('-h')) {
    print(command.help);
    return EXIT_OK;
  }
  return command.run(rest);
}

// The provider's retry backoff timers are unref'd (they must not keep an application alive), and
// so is a gRPC channel still dialling: without this, a command waiting on an unreachable cluster
// would just end, with exit code 0 and nothing printed.
const keepAlive = setInterval(() => {}, 1 << 30);

const argv = process.argv.slice(2);
main(argv).then(finish, (error: unknown) => {
  // The provider rejects bad input (an unreadable PEM in --cert, a key over etcd's size limit) with
  // ELEASE_INVALID_ARGUMENT before sending anything: from the command line, that is a usage error.
  // A request the server refused (ELEASE_REJECTED; ELEASE_TOO_LARGE over its --max-request-bytes) was
  // well formed and sent: the operation failed, exit 1, like every other error below.
  if (isLeaseError(error) && error.code === 'ELEASE_INVALID_ARGUMENT') {
    printError(`etcd-lease: ${describeError(error)}`);
    finish(EXIT_USAGE);
  } else if (isUsageError(error)) {
    const where = error.command === undefined ? 'etcd-lease' : `etcd-lease ${error.command}`;
    printError(`${where}: ${error.message}\nRun \`${where} --help\` for usage.`);
    finish(EXIT_USAGE);
  } else {
    const hint = errorHint(error, argv[0], endpointsGiven(argv, process.env));
    printError(`etcd-lease: ${describeError(error)}${hint === '' ? '' : `\n${hint}`}`);
    finish(EXIT_FAILED);
  }
});

function finish(code: number): void {
  clearInterval(keepAlive);
  process.exitCode = code;
  // Normally the process ends by itself once the etcd clients are closed; a gRPC handle that
  // lingers must not turn a finished command into a hung one.
  setTimeout(() => process.exit(code), 2000).unref();
}
