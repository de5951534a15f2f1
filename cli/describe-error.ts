import { isLeaseError } from '../src/errors/lease-error.js';

/** One line for stderr: the stable code first (what a script or a search needs), then the message. */
export function describeError(error: unknown): string {
  if (isLeaseError(error)) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
