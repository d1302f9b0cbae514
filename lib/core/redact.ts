// The one owner of redaction: what lockguard prints or records never carries a credential.
//
// Owns: which words of a command line and which parts of a text are secrets, and the marker that
// replaces them (`***`, the rest kept readable). Three functions, each used everywhere its kind of value is
// written or printed: `redactArgv` (a command line), `redactText` (any string: lockfile values, lines;
// `redactLabel` for a package name that may be a URL cut at its userinfo's `@`),
// `redactRecord` (a JSON value about to be recorded or printed: `command` arrays as argv, every string as text).
// The rules (README "What lockguard records"):
// - A secret name is one whose words (split on anything but letters and digits, and at camelCase humps)
//   include token(s), secret(s), password(s), passwd, auth, authorization, oauth, credential(s), apikey,
//   privatekey (also spelled api-key, private_key, ...), sig, signature or jwt. A word rule, not a
//   substring rule: `--author`, `--filter=token-utils` (the name is `filter`), `--tokenizer` stay.
// - argv: a word `name=value` with a secret name keeps the name (`--token=***`, `TURBO_TOKEN=***`,
//   `--//registry.example/:_authToken=***`); an option `--name` with a secret name replaces the next word
//   unless that starts with `-`. Every other word is redacted as text (`--api=https://***@host`).
// - text: URL userinfo (`https://user:pass@host` → `https://***@host`; a bare `git@` is kept) and the
//   values of query parameters with a secret name or named `key` (`?_authToken=***`, `&sig=***`,
//   `X-Amz-Signature=***`).
// - a lockfile's bytes (`redactLockfile`, the copies kept in `.lockguard/blobs/`): the same spans, each
//   replaced by the marker and a tag (16 hex digits of the secret's sha256), so two different secrets stay
//   different (no two keys merge, a rotated credential is still a change) and an unchanged one stays equal;
//   a span is cut only where it is inert in every lockfile format (printable ASCII, none of quotes,
//   backslash, `,` `[]{}`, `#`, `*`, `/`, space): the copy then reads, with each format's reader, as the
//   same structure. Where one is not, no copy can be made (undefined).
// Invariants: pure, no dependencies (sha256 aside), never throws; idempotent (redacting twice changes nothing more);
// a string with none of `@ ? & ;` and no secret-named pair is returned as is (the cheap path).
// What the child receives is never redacted: only copies that are recorded or printed.

import { isUtf8 } from 'node:buffer';
import { sha256Of } from './digest.js';

export const SECRET_MARKER = '***';

const SECRET_WORDS = new Set([
  'token',
  'tokens',
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'auth',
  'authorization',
  'oauth',
  'credential',
  'credentials',
  'apikey',
  'privatekey',
  'sig',
  'signature',
  'jwt',
]);
/** Query parameter names that are secrets though not secret names for options (`key=`: Google's API keys). */
const QUERY_ONLY = new Set(['key']);

/** The words of a name: `npm_config__authToken` → npm, config, auth, token; plus each adjacent pair joined (`api-key` → apikey). */
function nameWords(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  const pairs = words.slice(1).map((word, i) => `${words[i]}${word}`);
  return [...words, ...pairs];
}

/** Whether an option, variable or parameter name says it holds a secret (the word rule above). */
export function isSecretName(name: string): boolean {
  return nameWords(name).some((word) => SECRET_WORDS.has(word));
}

const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LETTER = /[a-z]/i;
const USERINFO_END = /[/\s?#]/;
const QUERY = /\?[^\s#]*/g;
// A value ends where a URL's query does, and before what closes it in a line (`)`, `,`, quotes, brackets).
// A name holds no `?`: each name is then scanned from one separator only, so a long run of `?` (or `?x`) is
// linear (with `?` allowed in names it was quadratic: 40,000 `?` held `redactText` for 7.5 s).
const PARAM = /([?&;])([^=&;#\s?]*)=([^&;#\s)"'\]}>,]*)/g;
const CHEAP = /[@?&;]/;

/** A text with URL userinfo and secret query values replaced by the marker. */
export function redactText(text: string): string {
  return redactSpans(text, () => SECRET_MARKER);
}

/** `text` with each secret span (URL userinfo, a secret query value) replaced by what `replace` makes of it. */
function redactSpans(text: string, replace: (secret: string) => string): string {
  if (!CHEAP.test(text)) return text;
  return replaceUserinfo(text, replace).replace(QUERY, (query) =>
    query.replace(PARAM, (whole, sep: string, name: string, value: string) => {
      if (value === '' || value === SECRET_MARKER) return whole;
      return isSecretName(name) || QUERY_ONLY.has(name.toLowerCase()) ? `${sep}${name}=${replace(value)}` : whole;
    }),
  );
}

/**
 * Each URL's userinfo (`scheme://userinfo@`) replaced, as the regular expression
 * /([a-z][a-z0-9+.-]*:\/\/)([^/\s?#]*)@/gi would find them, in one pass: from each `://` back to the first letter
 * of its scheme, forward to the last `@` before a `/`, blank, `?` or `#`. (That expression took time quadratic in a
 * long run of letters: a 2 MB version string held `verify` for minutes.) `git@` and the marker are kept.
 */
function replaceUserinfo(text: string, replace: (secret: string) => string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 1)) {
    if (at < from) continue;
    let start = at;
    while (start > from && SCHEME_CHAR.test(text[start - 1] ?? '')) start--;
    while (start < at && !LETTER.test(text[start] ?? '')) start++;
    if (start === at) continue;
    let end = at + 3;
    while (end < text.length && !USERINFO_END.test(text[end] ?? '')) end++;
    const atSign = text.lastIndexOf('@', end - 1);
    if (atSign < at + 3) continue;
    const userinfo = text.slice(at + 3, atSign);
    const kept = userinfo === 'git' || userinfo === SECRET_MARKER;
    out += `${text.slice(from, start)}${text.slice(start, at + 3)}${kept ? userinfo : replace(userinfo)}@`;
    from = atSign + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * What a secret cut from a lockfile may consist of: printable ASCII that is structure in no lockfile format
 * (pnpm's YAML, npm's JSON, yarn berry's and yarn v1's syntax, bun's JSONC): no quote, backslash, `,`,
 * bracket, brace, `#`, `*`, `/` or space. Its neighbours are a URL's `//` and `@`, or a query's `=` and
 * what ends the value, so cutting it and writing the marker there changes no token of the file.
 */
const INERT = /^[A-Za-z0-9._~%!$&()+;=:@-]+$/;

/**
 * A lockfile's bytes with every secret span replaced by the marker and the secret's tag (see the rules
 * above): the same bytes (the same object) when it holds none; undefined when one cannot be cut without
 * touching the file's structure. Invalid UTF-8 is kept byte for byte (read as latin1): a file its reader
 * refuses is still refused.
 */
export function redactLockfile(bytes: Buffer): Buffer | undefined {
  if (!mayHoldSecrets(bytes)) return bytes;
  const encoding = isUtf8(bytes) ? 'utf8' : 'latin1';
  const text = bytes.toString(encoding);
  const redacted = redactLockfileText(text);
  if (redacted === text) return bytes;
  return redacted === undefined ? undefined : Buffer.from(redacted, encoding);
}

/** `redactLockfile` of a text (a lockfile's, or a value read beside it that names its entries: yarn v1's manifest ranges). */
export function redactLockfileText(text: string): string | undefined {
  let inert = true;
  const redacted = redactSpans(text, (secret) => {
    if (!INERT.test(secret)) inert = false;
    return `${SECRET_MARKER}${sha256Of(secret).slice(0, 16)}`;
  });
  return inert ? redacted : undefined;
}

const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const GIT = Buffer.from('git');
const MARKER = Buffer.from(SECRET_MARKER);
/** Whether bytes[from, to) is a userinfo `redactSpans` keeps as it is. */
const kept = (bytes: Buffer, from: number, to: number): boolean =>
  to - from === 3 && (bytes.compare(GIT, 0, 3, from, to) === 0 || bytes.compare(MARKER, 0, 3, from, to) === 0);

/**
 * Whether the bytes may hold a span `redactSpans` cuts (never false where it would cut one: its stops are a
 * subset of the regexes'): a `://` followed by an `@` (not the one of a bare `git@`) before any `/ ? #` or
 * white space, or a `?` followed by an `=` before any `#` or white space. Linear: no span is scanned twice.
 */
function mayHoldSecrets(bytes: Buffer): boolean {
  for (let at = bytes.indexOf('://'); at !== -1; ) {
    let j = at + 3;
    for (; j < bytes.length; j++) {
      const c = bytes[j] as number;
      // `git@` (a git dependency) and `***@` are kept: only an `@` after anything else may be cut.
      if (c === 0x40 && !kept(bytes, at + 3, j)) return true;
      if (c === 0x2f || c === 0x3f || c === 0x23 || isSpace(c)) break;
    }
    // The next `://` starts at j - 1 or later (one before would have a `/` inside the span just scanned).
    at = bytes.indexOf('://', at + 1);
  }
  for (let at = bytes.indexOf(0x3f); at !== -1; ) {
    let j = at + 1;
    for (; j < bytes.length; j++) {
      const c = bytes[j] as number;
      if (c === 0x3d) return true;
      if (c === 0x23 || isSpace(c)) break;
    }
    at = bytes.indexOf(0x3f, Math.max(j, at + 1));
  }
  return false;
}

/**
 * A name from a lockfile label, which a reader may have cut at the `@` that ended a URL's userinfo (the
 * key `https://user:pass@host/t.tgz` read as name `https://user:pass`, version `host/t.tgz`): redacted
 * as the URL it was cut from.
 */
export function redactLabel(name: string): string {
  return name.includes('://') ? redactText(`${name}@`).slice(0, -1) : redactText(name);
}

/** `--name=value`, `-n=value`, `NAME=value`, `npm_config_//host/:_authToken=value`: a name, then `=`. */
const PAIR = /^([^=\s]+)=/;

/** A command line as it may be recorded or printed: secret values replaced (see the rules above). */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let hideNext = false;
  for (const word of argv) {
    if (hideNext && !word.startsWith('-')) {
      out.push(SECRET_MARKER);
      hideNext = false;
      continue;
    }
    hideNext = false;
    const pair = PAIR.exec(word);
    if (pair !== null) {
      const name = pair[1] as string;
      out.push(isSecretName(name) ? `${name}=${SECRET_MARKER}` : redactText(word));
      continue;
    }
    if (word.startsWith('-') && isSecretName(word)) hideNext = true;
    out.push(redactText(word));
  }
  return out;
}

/**
 * A copy of a JSON value fit to record or print: every `command` (an array of strings, or one line of
 * them joined by spaces) through `redactArgv`, every other string through `redactText`. Objects and arrays are copied only where
 * something changed.
 */
export function redactRecord<T>(value: T): T {
  return walk(value, undefined) as T;
}

function walk(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return key === 'command' ? redactArgv(value.split(' ')).join(' ') : redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (key === 'command' && value.every((word) => typeof word === 'string')) {
      const redacted = redactArgv(value as string[]);
      return redacted.every((word, i) => word === value[i]) ? value : redacted;
    }
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = walk(item, undefined);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [name, item] of Object.entries(value)) {
    const next = walk(item, name);
    if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[name] = next;
  }
  return copy ?? value;
}
