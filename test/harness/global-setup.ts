import { execFileSync } from 'node:child_process';
import { writeSync } from 'node:fs';
import { ensureEtcdImage } from '../../launcher/etcd-image.js';
import { chooseLauncher, type EtcdLauncher } from '../../launcher/launcher-choice.js';
import { NoEtcdError } from '../../launcher/no-etcd-error.js';

/**
 * Vitest global setup of the cluster project: chooses once, before any test file, how etcd members run,
 * and hands the choice to every test file and every process they start (the demo, CLI and Mastra
 * workers) through ETCD_DRIVER / ETCD_BIN / ETCD_IMAGE. With no way to run etcd it prints one message
 * and ends the run with exit code 1, instead of every test file failing on its own.
 */
export default async function setup(): Promise<void> {
  let launcher: EtcdLauncher;
  try {
    launcher = await chooseLauncher();
  } catch (error) {
    if (!(error instanceof NoEtcdError)) throw error;
    stopRun(`${error.message}\n\nThe unit tests need no etcd: npm run test:unit`);
  }
  if (launcher.driver === 'process') {
    process.env.ETCD_DRIVER = 'process';
    process.env.ETCD_BIN = launcher.bin;
    announce(`etcd members: processes of ${launcher.bin} (${etcdVersion(launcher.bin)})`);
  } else {
    process.env.ETCD_DRIVER = 'container';
    process.env.ETCD_IMAGE = launcher.image;
    announce(`etcd members: containers of ${launcher.image}`);
    // Pulled once here (when missing), not by the first test file inside its hook timeout.
    await ensureEtcdImage(launcher.image).catch((error: Error) => stopRun(error.message));
  }
}

/**
 * Ends the run with `message` and exit code 1. Not a thrown error: vitest would wrap the message in a
 * stack trace and "no test files found".
 */
function stopRun(message: string): never {
  // Synchronous: process.stderr may be asynchronous on a pipe, and exit would cut it short.
  writeSync(2, `\n${message}\n\n`);
  process.exit(1);
}

/** One line at the top of the run's output: which etcd and Node a log is from. */
function announce(line: string): void {
  writeSync(1, `${line}; Node ${process.version}\n`);
}

function etcdVersion(bin: string): string {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  } catch (error) {
    return `--version failed: ${(error as Error).message}`;
  }
}
