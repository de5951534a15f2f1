import { isLeaseError } from '../errors/lease-error.js';

/**
 * The `error.type` attribute of a failed operation (OpenTelemetry's convention): the error's stable `code` for this
 * package's errors (`ELEASE_UNAVAILABLE`, …), else the error class's name, else `_OTHER`. A small fixed set: never
 * a message, which would make one time series per message.
 */
export function errorType(error: unknown): string {
  if (isLeaseError(error)) return error.code;
  if (error instanceof Error && /^[A-Za-z_$][\w$]{0,63}$/.test(error.name)) return error.name;
  return '_OTHER';
}
