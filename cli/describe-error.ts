import { isLeaseError } from '../src/errors/lease-error.js';

/**
 * One line for stderr: the stable code first (what a script or a search needs), then the message. The library's
 * messages open with the internal operation that failed (`range: …`, `acquireLease: …`), which names nothing a CLI
 * user typed: the command line already says what was asked, so that opening is left out.
 */
export function describeError(error: unknown): string {
  if (isLeaseError(error)) return `${error.code}: ${withoutOperation(error)}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function withoutOperation(error: Error): string {
  const operation = (error as { operation?: unknown }).operation;
  const opening = `${String(operation)}: `;
  return typeof operation === 'string' && error.message.startsWith(opening) ? error.message.slice(opening.length) : error.message;
}
