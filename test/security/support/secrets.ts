import { inspect } from 'node:util';

/**
 * Every rendering of a value through which a secret could leak: message, stack, util.inspect with
 * everything shown (hidden properties, causes, any depth) and JSON.
 */
export function renderings(value: unknown): string[] {
  const out = [inspect(value, { depth: Infinity, showHidden: true, getters: true })];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch (error) {
    out.push(`JSON.stringify threw: ${(error as Error).message}`);
  }
  if (value instanceof Error) {
    out.push(value.message, value.stack ?? '');
    for (let cause: unknown = value.cause; cause !== undefined; cause = (cause as Error).cause) {
      if (!(cause instanceof Error)) break;
      out.push(cause.message, cause.stack ?? '');
    }
  }
  return out;
}

/** The distinctive parts of a PEM private key: its base64 body lines, each long and random. */
function pemBodyLines(pem: string | Buffer): string[] {
  return String(pem)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= 16 && !l.startsWith('-----'));
}

/**
 * Text by which a leaked private key would be recognised in any rendering: its base64 lines, and the
 * start of its body as `util.inspect` shows a Buffer (hex bytes) and as JSON shows one (decimal bytes).
 */
export function keyFingerprints(pem: string | Buffer): string[] {
  const lines = pemBodyLines(pem);
  const start = Buffer.from(lines[0]!.slice(0, 16));
  return [...lines, [...start].map((b) => b.toString(16).padStart(2, '0')).join(' '), [...start].join(',')];
}

/** Asserts none of the secrets occurs in any rendering of any value; returns the offending text otherwise. */
export function findLeaks(values: unknown[], secrets: string[]): string[] {
  const leaks: string[] = [];
  for (const value of values) {
    for (const text of renderings(value)) {
      for (const secret of secrets) if (text.includes(secret)) leaks.push(`${secret.slice(0, 8)}… in ${text.slice(0, 200)}`);
    }
  }
  return leaks;
}

export async function timed<T>(call: () => Promise<T>): Promise<{ error: unknown; ms: number }> {
  const startedAt = performance.now();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - startedAt };
}
