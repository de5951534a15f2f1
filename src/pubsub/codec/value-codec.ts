/**
 * The event payload codec: JSON plus tagged envelopes for what JSON loses, so data crosses pods the way it crosses
 * Mastra's own socket transport. The envelope shapes are the ones `@mastra/core` documents for its wire format
 * (`{ __m_codec__: 'Date', v }`, …; `dist/events/codec/tags.d.ts`); this implementation is our own.
 *
 * Why not plain `JSON.stringify`: an `error` stream part carries an `Error`, which JSON turns into `{}`; dates
 * would arrive as strings, `undefined` fields would vanish, Maps as `{}`.
 *
 * - Date, Error (name, message, stack, cause and own fields), Map, Set, RegExp, URL, BigInt, `undefined`: tagged.
 * - Functions and symbols are dropped (in arrays: null), NaN and ±Infinity become null, as JSON does.
 * - A cycle is cut (null) where it closes; the same object reached twice without a cycle is encoded twice.
 * - `toJSON` is honoured, except on objects that carry the tag key themselves.
 * - An object of the caller's that has the tag key is wrapped (`'Object'`), so it comes back exactly as it was
 *   instead of being mistaken for an envelope.
 * - Class instances arrive as plain data (Mastra's class registry is not public), never as instances of a
 *   prototype named by the sender.
 */
export const CODEC_TAG = '__m_codec__';

/** Longest RegExp source decoded: bounds the input a hostile peer could hand to `new RegExp`. */
const MAX_REGEXP_SOURCE = 1024;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function encodeValue(value: unknown): Json {
  return encode(value, []);
}

export function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const envelope = decodeEnvelope(record);
  if (envelope.matched) return envelope.value;
  return plainObject(Object.entries(record).map(([k, v]) => [k, decodeValue(v)]));
}

function encode(value: unknown, ancestors: object[]): Json {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return tagged('BigInt', value.toString());
    case 'undefined':
      return { [CODEC_TAG]: 'Undefined' };
    case 'function':
    case 'symbol':
      return null;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.includes(object)) return null;
  ancestors.push(object);
  try {
    return encodeObject(object, ancestors);
  } finally {
    ancestors.pop();
  }
}

function encodeObject(object: object, ancestors: object[]): Json {
  if (object instanceof Date) return tagged('Date', Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString());
  if (object instanceof Error) return tagged('Error', encodeError(object, ancestors));
  if (object instanceof Map) return tagged('Map', [...object].map(([k, v]) => [encode(k, ancestors), encode(v, ancestors)]));
  if (object instanceof Set) return tagged('Set', [...object].map((v) => encode(v, ancestors)));
  if (object instanceof RegExp) return tagged('RegExp', { source: object.source, flags: object.flags });
  if (object instanceof URL) return tagged('URL', object.href);
  if (Array.isArray(object)) return object.map((item) => (typeof item === 'function' || typeof item === 'symbol' ? null : encode(item, ancestors)));
  const hasTag = Object.hasOwn(object, CODEC_TAG);
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (!hasTag && typeof toJSON === 'function') {
    const replaced: unknown = toJSON.call(object);
    return replaced === object ? encodeEntries(object, ancestors) : encode(replaced, ancestors);
  }
  const entries = encodeEntries(object, ancestors);
  return hasTag ? tagged('Object', entries) : entries;
}

function encodeEntries(object: object, ancestors: object[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, v] of Object.entries(object)) {
    if (typeof v === 'function' || typeof v === 'symbol') continue;
    Object.defineProperty(out, key, { value: encode(v, ancestors), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function encodeError(error: Error, ancestors: object[]): Json {
  const fields = encodeEntries(error, ancestors);
  const out: { [key: string]: Json } = { ...fields, name: error.name, message: error.message };
  if (typeof error.stack === 'string') out.stack = error.stack;
  if ('cause' in error) out.cause = encode(error.cause, ancestors);
  return out;
}

function tagged(tag: string, v: Json): Json {
  return { [CODEC_TAG]: tag, v };
}

type Decoded = { matched: true; value: unknown } | { matched: false };

/** Only exact envelope shapes are decoded; any other object with the tag key stays as it is. */
function decodeEnvelope(record: Record<string, unknown>): Decoded {
  const tag = record[CODEC_TAG];
  if (typeof tag !== 'string') return { matched: false };
  const keys = Object.keys(record);
  if (tag === 'Undefined' && keys.length === 1) return { matched: true, value: undefined };
  if (keys.length !== 2 || !('v' in record)) return { matched: false };
  const v = record.v;
  switch (tag) {
    case 'Date':
      return typeof v === 'string' ? { matched: true, value: new Date(v) } : { matched: false };
    case 'BigInt':
      return typeof v === 'string' && /^-?\d+$/.test(v) ? { matched: true, value: BigInt(v) } : { matched: false };
    case 'URL':
      return typeof v === 'string' && URL.canParse(v) ? { matched: true, value: new URL(v) } : { matched: false };
    case 'RegExp':
      return decodeRegExp(v);
    case 'Map':
      return Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2)
        ? { matched: true, value: new Map((v as unknown[][]).map(([k, val]) => [decodeValue(k), decodeValue(val)])) }
        : { matched: false };
    case 'Set':
      return Array.isArray(v) ? { matched: true, value: new Set(v.map(decodeValue)) } : { matched: false };
    case 'Error':
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? { matched: true, value: decodeError(v as Record<string, unknown>) } : { matched: false };
    case 'Object':
      return v !== null && typeof v === 'object' && !Array.isArray(v)
        ? { matched: true, value: plainObject(Object.entries(v).map(([k, val]) => [k, decodeValue(val)])) }
        : { matched: false };
    default:
      return { matched: false };
  }
}

function decodeRegExp(v: unknown): Decoded {
  const { source, flags } = (v ?? {}) as { source?: unknown; flags?: unknown };
  if (typeof source !== 'string' || typeof flags !== 'string' || source.length > MAX_REGEXP_SOURCE) return { matched: false };
  try {
    return { matched: true, value: new RegExp(source, flags) };
  } catch {
    return { matched: false };
  }
}

/** A plain `Error` carrying the sender's fields: a prototype named by the sender is never instantiated. */
function decodeError(fields: Record<string, unknown>): Error {
  const error = new Error(typeof fields.message === 'string' ? fields.message : '');
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'message') continue;
    Object.defineProperty(error, key, { value: decodeValue(value), enumerable: key !== 'stack' && key !== 'cause', writable: true, configurable: true });
  }
  return error;
}

/** Own data properties only: a `__proto__` key from the wire stays a key and never becomes the prototype. */
function plainObject(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}
