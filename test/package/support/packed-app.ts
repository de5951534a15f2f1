import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Child processes run asynchronously here: see `runScript`. */
export const execFileAsync = promisify(execFile);

/** The repository root. */
export const root = resolve(import.meta.dirname, '../../..');

/** `npm pack` the package (which builds it) into `dir`; resolves with the tarball's path. */
export async function pack(dir: string): Promise<string> {
  const { stdout } = await execFileAsync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
  return join(dir, stdout.trim().split('\n').pop()!);
}

/** Unpacks `tarball` as `node_modules/etcd-lease-provider` of the app at `app`, as `npm install` would lay it out. */
export function install(tarball: string, app: string): void {
  const target = join(app, 'node_modules', 'etcd-lease-provider');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
}

/**
 * A throwaway app outside the repository (so nothing resolves from the repository's node_modules), with the packed
 * package and, as symlinks into the repository's node_modules, only the packages named — what a user who installed
 * the package without its optional peer `@mastra/core` has.
 */
export function appWithout(tarball: string, packages: readonly string[]): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'packed-no-peer-'));
  install(tarball, dir);
  for (const name of packages) {
    const link = join(dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes `source` to `file` in `app` and runs it with this Node; resolves with its stdout parsed as JSON. Killed after
 * `timeoutMs` (a script that never exits must fail the test, not hang it); a failure shows the script's stderr.
 * Asynchronous on purpose: the test process also drains the etcd members' log pipes, and a synchronous child would
 * stop that, filling the pipes until etcd blocks.
 */
export async function runScript(app: string, file: string, source: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<unknown> {
  writeFileSync(join(app, file), source);
  const options = { cwd: app, encoding: 'utf8' as const, env: { ...process.env, ...env }, timeout: timeoutMs, killSignal: 'SIGKILL' as const };
  try {
    const { stdout } = await execFileAsync(process.execPath, [file], options);
    return JSON.parse(stdout);
  } catch (error) {
    const failed = error as { killed?: boolean; code?: number; stderr?: string; stdout?: string };
    throw new Error(`${file} ${failed.killed ? `was killed after ${timeoutMs} ms` : `exited with ${failed.code}`}:\n${failed.stderr}\n${failed.stdout}`);
  }
}

/** Runs the repository's tsc on the project at `dir`; resolves with what it printed (empty: no error). */
export function typeCheck(dir: string): Promise<string> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return execFileAsync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}
