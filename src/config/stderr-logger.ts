import { inspect } from 'node:util';
import { isLeaseError } from '../errors/lease-error.js';
import type { LeaseLogger } from './options.js';

/**
 * The logger a provider (or `EtcdPubSub`) uses when none is given: warnings go to stderr, one line each, and debug
 * messages nowhere. A warning says something an operator must act on (etcd does not compact, a consumer-group session
 * was lost, an event was dropped after its last attempt); silent by default, it would reach no one.
 */
export const STDERR_LOGGER: LeaseLogger = {
  warn(message, fields) {
    process.stderr.write(`${warningLine(message, fields)}\n`);
  },
};

/**
 * `etcd-lease-provider warn: <message> (name=value, …)` on one line. Strings are JSON-quoted, so a topic or key with a
 * newline or a NUL cannot break the line; an error shows as its code (when it has one) and message, without its stack.
 */
export function warningLine(message: string, fields?: Record<string, unknown>): string {
  const shown = Object.entries(fields ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${fieldText(value)}`);
  return `etcd-lease-provider warn: ${message}${shown.length > 0 ? ` (${shown.join(', ')})` : ''}`;
}

function fieldText(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(isLeaseError(value) ? `${value.code}: ${value.message}` : `${value.name}: ${value.message}`);
  if (typeof value === 'string') return JSON.stringify(value);
  return inspect(value, { breakLength: Infinity, depth: 2, colors: false });
}
