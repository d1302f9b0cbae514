// Digests and the canonical JSON every fingerprint value is hashed through.
//
// Owns: the branded digest types (a file digest and a table key cannot be mixed up), sha256 over bytes,
// and canonical JSON (sorted object keys, no whitespace), so equal values always hash equal.
// Invariant: nothing here reads the file system or the clock.

import { nodeCrypto } from './lazy-builtins.js';

/** sha256 of one entry's (possibly normalized) bytes, lowercase hex. */
export type FileDigest = string & { readonly __brand: 'FileDigest' };
/** sha256 of a table's canonical form: what a cache key should fold. */
export type TableKey = string & { readonly __brand: 'TableKey' };

export function sha256Hex(data: Uint8Array | string): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

// One-shot sha256 (`crypto.hash`, Node >= 20.12): no Hash object per call. The bundles pnpm and yarn load run
// on whatever Node they run on, so an older one falls back to createHash. node:crypto is loaded on first use
// (lazy-builtins.ts).
/** sha256 of a string, hex or base64; for hot loops that hash many small strings (slice digests). */
export function sha256Of(data: string, encoding: 'hex' | 'base64' = 'hex'): string {
  const { hash, createHash } = nodeCrypto();
  return typeof hash === 'function'
    ? hash('sha256', data, encoding)
    : createHash('sha256').update(data).digest(encoding);
}

export function fileDigest(bytes: Uint8Array): FileDigest {
  return sha256Hex(bytes) as FileDigest;
}

/**
 * JSON with object keys sorted at every depth; arrays keep their order. The order is the one
 * `JSON.stringify` gives an object built with sorted keys (array-index keys first, by number, then the rest
 * by code unit), so digests stay what they were. Written without recursion: any nesting depth a parse can
 * produce is serialized (a 200,000-deep array in a lockfile). Own keys only, `__proto__` included.
 */
export function canonicalJson(value: unknown): string {
  try {
    // The fast path: a sorted copy and the native serializer. Too deep for the stack (a 200,000-deep array in a
    // lockfile), the same text comes from the loop below.
    return JSON.stringify(sortKeys(value)) ?? 'null';
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return serialize(value, true);
  }
}

/** JSON.stringify(value) (keys in their own order), at any depth: the native serializer, else the loop below. */
export function plainJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return serialize(value, false);
  }
}

/** A copy with object keys sorted at every depth (own keys, `__proto__` kept as a key, undefined fields dropped). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined) continue;
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: sortKeys(field), enumerable: true, writable: true, configurable: true });
    else out[key] = sortKeys(field);
  }
  return out;
}

function serialize(value: unknown, sorted: boolean): string {
  type Frame =
    | { readonly array: readonly unknown[]; index: number }
    | {
        readonly object: Readonly<Record<string, unknown>>;
        readonly keys: readonly string[];
        index: number;
        wrote: boolean;
      };
  const stack: Frame[] = [];
  let out = '';
  let pending: unknown = value;
  let hasPending = true;
  for (;;) {
    if (hasPending) {
      hasPending = false;
      if (pending === null || typeof pending !== 'object') out += leaf(pending) ?? 'null';
      else if (Array.isArray(pending)) {
        out += '[';
        stack.push({ array: pending, index: 0 });
      } else {
        out += '{';
        stack.push({
          object: pending as Record<string, unknown>,
          keys: sorted ? sortedKeys(pending) : Object.keys(pending),
          index: 0,
          wrote: false,
        });
      }
    }
    const top = stack.at(-1);
    if (top === undefined) return out;
    if ('array' in top) {
      if (top.index === top.array.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (top.index > 0) out += ',';
      const item = top.array[top.index++];
      if (item !== null && typeof item === 'object') [pending, hasPending] = [item, true];
      else out += leaf(item) ?? 'null';
      continue;
    }
    if (top.index === top.keys.length) {
      out += '}';
      stack.pop();
      continue;
    }
    const key = top.keys[top.index++] as string;
    const field = top.object[key];
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
    out += `${top.wrote ? ',' : ''}${JSON.stringify(key)}:`;
    top.wrote = true;
    if (field !== null && typeof field === 'object') [pending, hasPending] = [field, true];
    else out += leaf(field) as string;
  }
}

/** A primitive as JSON.stringify writes it; undefined for what it leaves out (undefined, functions, symbols). */
function leaf(value: unknown): string | undefined {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  return undefined;
}

const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

function sortedKeys(object: object): string[] {
  const keys = Object.keys(object).sort();
  // JSON.stringify lists array-index keys ("0" to "4294967294") first, in numeric order, whatever the insertion order.
  if (!keys.some((key) => INDEX_KEY.test(key))) return keys;
  const index = keys
    .filter((key) => INDEX_KEY.test(key) && Number(key) < 4294967295)
    .sort((a, b) => Number(a) - Number(b));
  const named = keys.filter((key) => !(INDEX_KEY.test(key) && Number(key) < 4294967295));
  return [...index, ...named];
}

/**
 * Whether `bytes` begins with `prefix`. Not `bytes.indexOf(prefix) === 0`: a miss there scans the whole
 * buffer (about 100 µs on a 0.5 MB lockfile).
 */
export function startsWith(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}
