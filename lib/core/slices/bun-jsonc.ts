// bun.lock's syntax and shape, checked as bun 1.4 checks them before any slice is read from the file.
//
// Owns: `checkBunLock` (one pass over the whole text: JSONC as bun reads bun.lock, and the shape bun insists
// on) and the cleaned JSON text for the full parse when the file holds comments or trailing commas.
// What bun 1.4.5 accepts, measured (`bun install --frozen-lockfile`): JSON with `//` and `/* */` comments and
// a trailing comma before `}` or `]`, a BOM, CRLF. What it refuses: a stray word or a missing or doubled comma
// ("Unexpected garbage" and friends), a raw control character (tab included) or an unknown escape in a
// string, `NaN` or `+1`, a lockfileVersion or configVersion that is not a number, a package that is not a
// non-empty array starting with a string, a `null` in a package, a dependency map that is not an object of
// strings, a `workspaces` without the root `""`. Read by bun but never written, so refused here as a form
// lockguard does not read: single-quoted strings, hexadecimal numbers, text after the top-level object.
// Duplicate keys (bun warns "Duplicate key" and keeps the first: an empty `"packages": {}` before the real
// one leaves it with no packages) are refused at every level: here, but for the members of the two big blocks,
// which are counted here and refused by their readers (bun-lock.ts, bun-graph.ts: a key met twice).
// Invariants: iterative (no nesting depth overflows the stack); a refusal is a fixed reason with a line and
// a column, never text from the file.

import { brokenLockfile, positionAt, unsupportedLockfile } from '../lockfile-errors.js';
import type { LockguardError } from '../errors.js';

/** Where a value sits in bun.lock's layout: what bun checks its type against. */
const Role = { Other: 0, Root: 1, Workspaces: 2, Workspace: 3, DepMap: 4, Packages: 5, Tuple: 6, Info: 7 } as const;
/** Where a value sits (Info: an object inside a package, its dependency maps checked as a workspace's). */
type Role = (typeof Role)[keyof typeof Role];

const DEP_MAPS = new Set(['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);

interface Frame {
  readonly object: boolean;
  readonly role: Role;
  /** Keys seen so far (objects): an array while small, a Set past 8. */
  keys: string[] | Set<string>;
  /** Elements seen so far (arrays). */
  count: number;
  /** A package's last element, when it is a string: where it starts and ends (bun checks an integrity there). */
  last: number;
  lastEnd: number;
  /** A package resolved from a registry (its name at a version): bun wants its third element an object. */
  registry: boolean;
  thirdIsObject: boolean;
  /** A package whose last string is its integrity (a registry version or a tarball). */
  hashed: boolean;
  /** A workspace other than the root: bun wants its name. */
  named: boolean;
}

/** A version as bun's semver parser reads one. */
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
/** An integrity bun reads: the algorithm and the base64 of a digest of its size. */

/** Digest sizes by algorithm, and the base64 length of each. */
const DIGEST: Record<string, number> = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 };
const BASE64 = /^[A-Za-z0-9+/]*$/;

/**
 * Whether bun reads `value` (a package's integrity) as one, as measured with bun 1.4.5: a known algorithm,
 * then the base64 of at most the digest's size, read from the first (size in base64) characters with their
 * `=` padding dropped (a character outside base64 there, one character too many or too few is "malformed").
 */
function validIntegrity(value: string): boolean {
  const dash = value.indexOf('-');
  const size = DIGEST[value.slice(0, dash)];
  if (dash === -1 || size === undefined) return false;
  const data = value.slice(dash + 1, dash + 1 + 4 * Math.ceil(size / 3)).replace(/=+$/, '');
  return BASE64.test(data) && data.length % 4 !== 1 && Math.floor((data.length * 3) / 4) <= size;
}

/** Resolutions bun reads besides a registry version: a protocol, or a tarball's path. */
const OTHER_RESOLUTION = /^(?:workspace:|link:|file:|git\+|git:|github:|https?:|root:)|\.(?:tgz|tar\.gz|tar)$/;

/**
 * How bun reads a package's first element (`name@resolution`): 'registry' (a version), 'other' (a protocol
 * or a tarball path), or undefined when bun refuses it ("Unexpected resolution", "Invalid semver version").
 */
function identKind(ident: string): 'registry' | 'tarball' | 'other' | undefined {
  const at = ident.indexOf('@', 1);
  if (at <= 0 || at === ident.length - 1) return undefined;
  const resolution = ident.slice(at + 1);
  if (SEMVER.test(resolution)) return 'registry';
  if (!OTHER_RESOLUTION.test(resolution)) return undefined;
  return /^[a-z+]+:/.test(resolution) ? 'other' : 'tarball';
}

export interface BunLockCheck {
  /** True when the file holds comments (a layout bun does not write: the full parse reads it). */
  readonly comments: boolean;
  /** Where the top-level `"workspaces"` and `"packages"` keys start (-1: absent). */
  readonly workspacesAt: number;
  readonly packagesAt: number;
  /** Members of the top-level `"packages"` and `"workspaces"` blocks, as written (a key twice counts twice). */
  readonly packageCount: number;
  readonly workspaceCount: number;
  /** The text with comments and trailing commas cut, for JSON.parse (built on demand). */
  json(): string;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\x00-\x08\x0B-\x0C\x0E-\x1F]/;

/** Check bun.lock's text (BOM already dropped) as bun reads it; throws ERR_LOCKGUARD_BROKEN_LOCKFILE / _UNSUPPORTED_LOCKFILE. */
export function checkBunLock(text: string, path: string): BunLockCheck {
  const n = text.length;
  // A string can hold a raw control character only if the file holds one: without, strings end at the quote.
  const controls = CONTROL.test(text) || text.includes('\t');
  const fail = (reason: string, at: number): LockguardError => brokenLockfile(path, reason, positionAt(text, at));
  const unsupported = (reason: string, at: number): LockguardError =>
    unsupportedLockfile(path, reason, positionAt(text, at));
  const cuts: number[] = [];
  const stack: Frame[] = [];
  let i = 0;
  // After a comma: where it was (a trailing comma is cut), else -1.
  let comma = -1;
  let commented = false;
  let workspacesAt = -1;
  let packagesAt = -1;
  let packageCount = 0;
  let workspaceCount = 0;

  /** Whitespace and comments from `i`. */
  const skip = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else if (c === 47 && text.charCodeAt(i + 1) === 47) {
        const end = text.indexOf('\n', i);
        commented = true;
        cuts.push(i, end === -1 ? n : end);
        i = end === -1 ? n : end;
      } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
        const end = text.indexOf('*/', i + 2);
        if (end === -1) throw fail('a comment is not closed', i);
        commented = true;
        cuts.push(i, end + 2);
        i = end + 2;
      } else return;
    }
  };

  /** The string at `i` (on its quote), checked: the index after it. */
  const string = (): number => {
    const start = i;
    let end = text.indexOf('"', i + 1);
    for (;;) {
      if (end === -1) throw fail('a string is not closed', start);
      // An escaped quote: count the backslashes before it.
      let back = end - 1;
      while (text.charCodeAt(back) === 92) back--;
      if ((end - back) % 2 === 1) break;
      end = text.indexOf('"', end + 1);
    }
    const body = text.slice(start + 1, end);
    if (body.includes('\n') || body.includes('\r') || (controls && (CONTROL.test(body) || body.includes('\t'))))
      throw fail('a string holds a raw control character', start);
    if (body.includes('\\')) {
      try {
        JSON.parse(`"${body}"`);
      } catch {
        throw fail('a string holds an invalid escape', start);
      }
    }
    return end + 1;
  };

  const keyOf = (start: number, end: number): string => {
    const raw = text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  };

  const addKey = (frame: Frame, key: string, at: number): void => {
    const keys = frame.keys;
    if (Array.isArray(keys)) {
      if (keys.includes(key)) throw fail('a key appears twice in one object (bun reads the first, and warns)', at);
      keys.push(key);
      if (keys.length > 8) frame.keys = new Set(keys);
    } else {
      if (keys.has(key)) throw fail('a key appears twice in one object (bun reads the first, and warns)', at);
      keys.add(key);
    }
  };

  const hasKey = (frame: Frame, key: string): boolean =>
    frame.keys instanceof Set ? frame.keys.has(key) : frame.keys.includes(key);

  /** The role of a value under `frame` at `key` (objects; '' in arrays). */
  const roleOf = (frame: Frame | undefined, key: string): Role => {
    if (frame === undefined) return Role.Root;
    switch (frame.role) {
      case Role.Root:
        return key === 'workspaces' ? Role.Workspaces : key === 'packages' ? Role.Packages : Role.Other;
      case Role.Workspaces:
        return Role.Workspace;
      case Role.Packages:
        return Role.Tuple;
      case Role.Workspace:
      case Role.Info:
        return DEP_MAPS.has(key) ? Role.DepMap : Role.Other;
      case Role.Tuple:
        return Role.Info;
      default:
        return Role.Other;
    }
  };

  const open = (object: boolean, role: Role): void => {
    stack.push({
      object,
      role,
      keys: [],
      count: 0,
      last: -1,
      lastEnd: -1,
      registry: false,
      thirdIsObject: false,
      hashed: false,
      named: false,
    });
    i++;
  };

  /** The string value of `text[start, end)` (a checked string literal). */
  const stringValue = (start: number, end: number): string => {
    const raw = text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  };

  /** A value starts at `i`: check its type against its role, then read it (a container is pushed). */
  const value = (role: Role, parent: Frame | undefined, key: string): void => {
    const start = i;
    const c = text.charCodeAt(i);
    const kind = c === 123 ? 'object' : c === 91 ? 'array' : c === 34 ? 'string' : 'other';
    // What bun insists on, by where the value sits.
    if (
      (role === Role.Root ||
        role === Role.Workspaces ||
        role === Role.Workspace ||
        role === Role.Packages ||
        role === Role.DepMap) &&
      kind !== 'object'
    )
      throw fail(role === Role.DepMap ? 'a dependency map is not an object' : 'a block is not an object', start);
    if (role === Role.Tuple && kind !== 'array') throw fail('a package is not an array', start);
    if (parent?.role === Role.DepMap && kind !== 'string') throw fail('a dependency range is not a string', start);
    if (
      parent?.role === Role.Root &&
      (key === 'lockfileVersion' || key === 'configVersion') &&
      !(c === 45 || (c >= 48 && c <= 57))
    )
      throw fail(`its ${key} is not a number`, start);
    if (parent?.role === Role.Tuple) {
      if (parent.count === 1 && kind !== 'string')
        throw fail('a package does not start with its name and version', start);
      if (text.startsWith('null', i)) throw fail('a package holds null', start);
    }
    if (parent?.role === Role.Tuple) {
      if (parent.count === 3) parent.thirdIsObject = kind === 'object';
      if (kind !== 'string') parent.last = -1;
    }
    if (kind === 'object') {
      open(true, role);
      if (role === Role.Workspace && parent?.role === Role.Workspaces && key !== '')
        (stack.at(-1) as Frame).named = true;
      return;
    }
    if (kind === 'array') {
      open(false, role);
      return;
    }
    if (kind === 'string') {
      i = string();
      if (parent?.role === Role.Tuple) {
        parent.last = start;
        parent.lastEnd = i;
        if (parent.count === 1) {
          const ident = identKind(stringValue(start, i));
          if (ident === undefined) throw fail('a package whose name and resolution bun cannot read', start);
          parent.registry = ident === 'registry';
          parent.hashed = ident !== 'other';
        }
      } else if (parent?.role === Role.Workspace && key === 'version' && !SEMVER.test(stringValue(start, i))) {
        throw fail('a workspace version that is not a version', start);
      }
      return;
    }
    if (c === 39) throw unsupported('a single-quoted string', start);
    if (c === 45 || (c >= 48 && c <= 57)) {
      const match = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
      match.lastIndex = i;
      const found = match.exec(text);
      if (found === null) throw fail('a number is malformed', start);
      i += found[0].length;
      if (found[0] === '0' && (text.charCodeAt(i) === 120 || text.charCodeAt(i) === 88))
        throw unsupported('a hexadecimal number', start);
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    throw fail('expected a value (an object, array, string, number, true, false or null)', start);
  };

  skip();
  if (i >= n) throw fail('it holds no JSON value', 0);
  value(Role.Root, undefined, '');
  for (;;) {
    skip();
    const top = stack.at(-1);
    if (top === undefined) break;
    if (i >= n) throw fail('it ends in the middle of a value', n);
    const c = text.charCodeAt(i);
    const close = top.object ? 125 : 93;
    if (c === close) {
      if (comma !== -1) cuts.push(comma, comma + 1);
      comma = -1;
      if (top.role === Role.Workspaces && top.last !== 0) throw fail('its workspaces have no root ("")', i);
      if (top.role === Role.Packages) packageCount = top.count;
      if (top.role === Role.Workspaces) workspaceCount = top.count;
      if (top.role === Role.Tuple && top.count === 0) throw fail('a package is an empty array', i);
      if (top.role === Role.Tuple && top.registry && !top.thirdIsObject)
        throw fail('a registry package without its dependencies object', i);
      if (
        top.role === Role.Tuple &&
        top.hashed &&
        top.count > 2 &&
        top.last !== -1 &&
        !validIntegrity(stringValue(top.last, top.lastEnd))
      )
        throw fail('a package whose integrity bun cannot read', top.last);
      if (top.named && !hasKey(top, 'name')) throw fail('a workspace without its name', i);
      if (top.role === Role.Root && !hasKey(top, 'workspaces')) throw fail('it has no workspaces', i);
      if (
        top.role === Role.Root &&
        !(top.keys instanceof Set ? top.keys.has('lockfileVersion') : top.keys.includes('lockfileVersion'))
      )
        throw fail('it has no "lockfileVersion"', i);
      stack.pop();
      i++;
      continue;
    }
    if (top.count > 0 || (top.object && (top.keys instanceof Set ? top.keys.size > 0 : top.keys.length > 0))) {
      // After a member or an element: a comma, then another (or the close, a trailing comma).
      if (comma === -1) {
        if (c !== 44)
          throw fail(top.object ? 'expected "," or "}" after a member' : 'expected "," or "]" after an element', i);
        comma = i;
        i++;
        continue;
      }
    }
    if (c === 44) throw fail('a comma where a value belongs', i);
    comma = -1;
    if (top.object) {
      if (c === 39) throw unsupported('a single-quoted string', i);
      if (c !== 34) throw fail('expected a member name in double quotes', i);
      const start = i;
      i = string();
      const key = keyOf(start, i);
      // The two big blocks count their members (their readers refuse a key met twice: bun-lock.ts, bun-graph.ts).
      if (top.role === Role.Packages || top.role === Role.Workspaces) {
        top.count++;
        if (key === '') top.last = 0;
      } else addKey(top, key, start);
      if (top.role === Role.Root && key === 'workspaces') workspacesAt = start;
      if (top.role === Role.Root && key === 'packages') packagesAt = start;
      skip();
      if (text.charCodeAt(i) !== 58) throw fail('expected ":" after a member name', i);
      i++;
      skip();
      if (i >= n) throw fail('it ends in the middle of a value', n);
      value(roleOf(top, key), top, key);
    } else {
      top.count++;
      value(roleOf(top, ''), top, '');
    }
  }
  if (i < n) throw unsupported('text after the top-level object', i);
  return { comments: commented, workspacesAt, packagesAt, packageCount, workspaceCount, json: () => cut(text, cuts) };
}

/** `text` without the spans in `cuts` (pairs of offsets). */
function cut(text: string, cuts: readonly number[]): string {
  if (cuts.length === 0) return text;
  // A trailing comma is cut when its close is reached, after the comments that follow it: in text order.
  const spans: [number, number][] = [];
  for (let k = 0; k < cuts.length; k += 2) spans.push([cuts[k] as number, cuts[k + 1] as number]);
  spans.sort((a, b) => a[0] - b[0]);
  let json = '';
  let from = 0;
  for (const [cutFrom, cutTo] of spans) {
    json += text.slice(from, cutFrom);
    from = cutTo;
  }
  return json + text.slice(from);
}
