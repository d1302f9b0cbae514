// bun.lock's syntax and shape, checked as bun 1.4 checks them before any slice is read from the file.
//
// Owns: `checkBunLock` (one pass over the whole text: JSONC as bun reads bun.lock, and the shape bun insists
// on) and the cleaned JSON text for the full parse when the file holds comments or trailing commas. The pass
// is one `Checker` object, a method per section: the tokens, a value checked against its role (the roles and
// what bun wants of a package's elements are roles.ts), and the frames of the open containers.
// What bun 1.4.5 accepts, measured (`bun install --frozen-lockfile`): JSON with `//` and `/* */` comments and
// a trailing comma before `}` or `]`, a BOM, CRLF. What it refuses: a stray word or a missing or doubled comma
// ("Unexpected garbage" and friends), a raw control character (tab included) or an unknown escape in a
// string, `NaN` or `+1`, a lockfileVersion or configVersion that is not a number, a package that is not a
// non-empty array starting with a string, a `null` in a package, a dependency map that is not an object of
// strings, a `workspaces` without the root `""`. Read by bun but never written, so refused here as a form
// lockguard does not read: single-quoted strings, hexadecimal numbers, text after the top-level object.
// Duplicate keys (bun warns "Duplicate key" and keeps the first: an empty `"packages": {}` before the real
// one leaves it with no packages) are refused at every level: here, but for the members of the two big blocks,
// which are counted here and refused by their readers (lock.ts, graph.ts: a key met twice).
// Invariants: iterative (no nesting depth overflows the stack: a container is a frame, not a call); a refusal
// is a fixed reason with a line and a column, never text from the file; nothing allocated per value but a frame.

import { brokenLockfile, positionAt, unsupportedLockfile } from '../../lockfile-errors.js';
import type { LockguardError } from '../../errors.js';
import { type Frame, hasKey, identKind, Role, roleOf, SEMVER, validIntegrity } from './roles.js';

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
/** A JSON number, read where it starts (sticky). */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORDS = ['true', 'false', 'null'] as const;
/**
 * The deepest nesting read. bun writes five levels; bun 1.4.5 itself refuses a document nested about 47,000
 * deep ("JSON document is too deeply nested", measured: the exact depth varies with its stack), so a limit far
 * below that refuses nothing bun writes and nothing bun would refuse is read.
 */
const MAX_DEPTH = 1000;

/** Check bun.lock's text (BOM already dropped) as bun reads it; throws ERR_LOCKGUARD_BROKEN_LOCKFILE / _UNSUPPORTED_LOCKFILE. */
export function checkBunLock(text: string, path: string): BunLockCheck {
  return new Checker(text, path).check();
}

/**
 * One pass over the text: the position `i` and what the pass has seen, on this one object's fields. Its
 * sections are methods: the tokens (`skip`, `string`), a value checked against its role (`value`, `stringAt`,
 * `scalar`), and the open containers as frames on `stack` (`open`, `member`, `close`).
 */
class Checker {
  private readonly text: string;
  private readonly path: string;
  private readonly n: number;
  /** A string can hold a raw control character only if the file holds one: without, strings end at the quote. */
  private readonly controls: boolean;
  /** Spans to cut for JSON.parse (pairs of offsets): comments and trailing commas. */
  private readonly cuts: number[] = [];
  private readonly stack: Frame[] = [];
  private i = 0;
  /** After a comma: where it was (a trailing comma is cut), else -1. */
  private comma = -1;
  private commented = false;
  private workspacesAt = -1;
  private packagesAt = -1;
  private packageCount = 0;
  private workspaceCount = 0;

  constructor(text: string, path: string) {
    this.text = text;
    this.path = path;
    this.n = text.length;
    this.controls = CONTROL.test(text) || text.includes('\t');
  }

  private fail(reason: string, at: number): LockguardError {
    return brokenLockfile(this.path, reason, positionAt(this.text, at));
  }

  private unsupported(reason: string, at: number): LockguardError {
    return unsupportedLockfile(this.path, reason, positionAt(this.text, at));
  }

  /** The whole text: a value, then its containers' members and elements until the top-level one closes. */
  check(): BunLockCheck {
    const text = this.text;
    const n = this.n;
    this.skip();
    if (this.i >= n) throw this.fail('it holds no JSON value', 0);
    this.value(Role.Root, undefined, '');
    for (;;) {
      this.skip();
      const top = this.stack.at(-1);
      if (top === undefined) break;
      const i = this.i;
      if (i >= n) throw this.fail('it ends in the middle of a value', n);
      const c = text.charCodeAt(i);
      if (c === (top.object ? 125 : 93)) {
        this.close(top);
        continue;
      }
      if (
        this.comma === -1 &&
        (top.count > 0 || (top.object && (top.keys instanceof Set ? top.keys.size > 0 : top.keys.length > 0)))
      ) {
        // After a member or an element: a comma, then another (or the close, a trailing comma).
        if (c !== 44)
          throw this.fail(
            top.object ? 'expected "," or "}" after a member' : 'expected "," or "]" after an element',
            i,
          );
        this.comma = i;
        this.i = i + 1;
        continue;
      }
      if (c === 44) throw this.fail('a comma where a value belongs', i);
      this.comma = -1;
      if (top.object) this.member(top, c);
      else {
        top.count++;
        this.value(roleOf(top, ''), top, '');
      }
    }
    if (this.i < n) throw this.unsupported('text after the top-level object', this.i);
    const cuts = this.cuts;
    return {
      comments: this.commented,
      workspacesAt: this.workspacesAt,
      packagesAt: this.packagesAt,
      packageCount: this.packageCount,
      workspaceCount: this.workspaceCount,
      json: () => cut(text, cuts),
    };
  }

  /** Whitespace and comments from `i`. */
  private skip(): void {
    const text = this.text;
    for (;;) {
      const i = this.i;
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.i = i + 1;
      else if (c === 47 && text.charCodeAt(i + 1) === 47) {
        const end = text.indexOf('\n', i);
        this.commented = true;
        this.cuts.push(i, end === -1 ? this.n : end);
        this.i = end === -1 ? this.n : end;
      } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
        const end = text.indexOf('*/', i + 2);
        if (end === -1) throw this.fail('a comment is not closed', i);
        this.commented = true;
        this.cuts.push(i, end + 2);
        this.i = end + 2;
      } else return;
    }
  }

  /** The string at `i` (on its quote), checked: the index after it. */
  private string(): number {
    const text = this.text;
    const start = this.i;
    let end = text.indexOf('"', start + 1);
    for (;;) {
      if (end === -1) throw this.fail('a string is not closed', start);
      // An escaped quote: count the backslashes before it.
      let back = end - 1;
      while (text.charCodeAt(back) === 92) back--;
      if ((end - back) % 2 === 1) break;
      end = text.indexOf('"', end + 1);
    }
    const body = text.slice(start + 1, end);
    if (body.includes('\n') || body.includes('\r') || (this.controls && (CONTROL.test(body) || body.includes('\t'))))
      throw this.fail('a string holds a raw control character', start);
    if (body.includes('\\')) {
      try {
        JSON.parse(`"${body}"`);
      } catch {
        throw this.fail('a string holds an invalid escape', start);
      }
    }
    return end + 1;
  }

  /** The string value of `text[start, end)` (a checked string literal). */
  private stringValue(start: number, end: number): string {
    const raw = this.text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  private addKey(frame: Frame, key: string, at: number): void {
    const keys = frame.keys;
    if (Array.isArray(keys)) {
      if (keys.includes(key)) throw this.fail('a key appears twice in one object (bun reads the first, and warns)', at);
      keys.push(key);
      if (keys.length > 8) frame.keys = new Set(keys);
    } else {
      if (keys.has(key)) throw this.fail('a key appears twice in one object (bun reads the first, and warns)', at);
      keys.add(key);
    }
  }

  /** An object member at `i` (on the quote of its name): the name, the colon, the value. */
  private member(top: Frame, c: number): void {
    const text = this.text;
    if (c === 39) throw this.unsupported('a single-quoted string', this.i);
    if (c !== 34) throw this.fail('expected a member name in double quotes', this.i);
    const start = this.i;
    this.i = this.string();
    const key = this.stringValue(start, this.i);
    // The two big blocks count their members (their readers refuse a key met twice: lock.ts, graph.ts).
    if (top.role === Role.Packages || top.role === Role.Workspaces) {
      top.count++;
      if (key === '') top.last = 0;
    } else this.addKey(top, key, start);
    if (top.role === Role.Root && key === 'workspaces') this.workspacesAt = start;
    if (top.role === Role.Root && key === 'packages') this.packagesAt = start;
    this.skip();
    if (text.charCodeAt(this.i) !== 58) throw this.fail('expected ":" after a member name', this.i);
    this.i++;
    this.skip();
    if (this.i >= this.n) throw this.fail('it ends in the middle of a value', this.n);
    this.value(roleOf(top, key), top, key);
  }

  /** A container closes at `i`: what bun insists on for its role, then it is popped. */
  private close(top: Frame): void {
    const i = this.i;
    if (this.comma !== -1) this.cuts.push(this.comma, this.comma + 1);
    this.comma = -1;
    if (top.role === Role.Workspaces && top.last !== 0) throw this.fail('its workspaces have no root ("")', i);
    if (top.role === Role.Packages) this.packageCount = top.count;
    if (top.role === Role.Workspaces) this.workspaceCount = top.count;
    if (top.role === Role.Tuple && top.count === 0) throw this.fail('a package is an empty array', i);
    if (top.role === Role.Tuple && top.registry && !top.thirdIsObject)
      throw this.fail('a registry package without its dependencies object', i);
    if (
      top.role === Role.Tuple &&
      top.hashed &&
      top.count > 2 &&
      top.last !== -1 &&
      !validIntegrity(this.stringValue(top.last, top.lastEnd))
    )
      throw this.fail('a package whose integrity bun cannot read', top.last);
    if (top.named && !hasKey(top, 'name')) throw this.fail('a workspace without its name', i);
    if (top.role === Role.Root && !hasKey(top, 'workspaces')) throw this.fail('it has no workspaces', i);
    if (top.role === Role.Root && !hasKey(top, 'lockfileVersion')) throw this.fail('it has no "lockfileVersion"', i);
    this.stack.pop();
    this.i = i + 1;
  }

  /** A container opens at `i`: its frame is pushed. */
  private open(object: boolean, role: Role): Frame {
    if (this.stack.length === MAX_DEPTH)
      throw this.fail(`arrays or objects nested deeper than ${MAX_DEPTH} levels`, this.i);
    const frame: Frame = {
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
    };
    this.stack.push(frame);
    this.i++;
    return frame;
  }

  /** A value starts at `i`: check its type against what bun insists on where it sits, then read it (a container is pushed). */
  private value(role: Role, parent: Frame | undefined, key: string): void {
    const start = this.i;
    const c = this.text.charCodeAt(start);
    const kind = c === 123 ? 'object' : c === 91 ? 'array' : c === 34 ? 'string' : 'other';
    if (
      (role === Role.Root ||
        role === Role.Workspaces ||
        role === Role.Workspace ||
        role === Role.Packages ||
        role === Role.DepMap) &&
      kind !== 'object'
    )
      throw this.fail(role === Role.DepMap ? 'a dependency map is not an object' : 'a block is not an object', start);
    if (role === Role.Tuple && kind !== 'array') throw this.fail('a package is not an array', start);
    if (parent !== undefined) {
      if (parent.role === Role.DepMap && kind !== 'string')
        throw this.fail('a dependency range is not a string', start);
      if (
        parent.role === Role.Root &&
        (key === 'lockfileVersion' || key === 'configVersion') &&
        !(c === 45 || (c >= 48 && c <= 57))
      )
        throw this.fail(`its ${key} is not a number`, start);
      if (parent.role === Role.Tuple) {
        if (parent.count === 1 && kind !== 'string')
          throw this.fail('a package does not start with its name and version', start);
        if (this.text.startsWith('null', start)) throw this.fail('a package holds null', start);
        if (parent.count === 3) parent.thirdIsObject = kind === 'object';
        if (kind !== 'string') parent.last = -1;
      }
    }
    if (kind === 'object') {
      const frame = this.open(true, role);
      if (role === Role.Workspace && parent?.role === Role.Workspaces && key !== '') frame.named = true;
    } else if (kind === 'array') this.open(false, role);
    else if (kind === 'string') this.stringAt(parent, key);
    else this.scalar(c);
  }

  /** A string value at `i`: read, then what bun checks of a package's name and a workspace's version. */
  private stringAt(parent: Frame | undefined, key: string): void {
    const start = this.i;
    const end = this.string();
    this.i = end;
    if (parent?.role === Role.Tuple) {
      parent.last = start;
      parent.lastEnd = end;
      if (parent.count === 1) {
        const ident = identKind(this.stringValue(start, end));
        if (ident === undefined) throw this.fail('a package whose name and resolution bun cannot read', start);
        parent.registry = ident === 'registry';
        parent.hashed = ident !== 'other';
      }
    } else if (parent?.role === Role.Workspace && key === 'version' && !SEMVER.test(this.stringValue(start, end))) {
      throw this.fail('a workspace version that is not a version', start);
    }
  }

  /** A number, true, false or null at `i` (anything else is refused). */
  private scalar(c: number): void {
    const text = this.text;
    const start = this.i;
    if (c === 39) throw this.unsupported('a single-quoted string', start);
    if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = start;
      const found = NUMBER.exec(text);
      if (found === null) throw this.fail('a number is malformed', start);
      this.i = start + found[0].length;
      if (found[0] === '0' && (text.charCodeAt(this.i) === 120 || text.charCodeAt(this.i) === 88))
        throw this.unsupported('a hexadecimal number', start);
      return;
    }
    for (const word of WORDS) {
      if (text.startsWith(word, start)) {
        this.i = start + word.length;
        return;
      }
    }
    throw this.fail('expected a value (an object, array, string, number, true, false or null)', start);
  }
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
