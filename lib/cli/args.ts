// Argument parsing for every command: strict `node:util` parseArgs, with usage errors that teach.
//
// Owns: turning argv into typed options or an ERR_LOCKGUARD_USAGE naming the bad word and the fix, and the
// validation of settings that can also come from the environment (one place, wireit's message shape).

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { LockguardError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { closest } from './suggest.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  readonly values: Record<string, string | boolean | string[] | undefined>;
  readonly positionals: string[];
}

/** A test seam: sees every options table `parse` is handed (test/cli/help-options.test.ts: each is in its help). */
let observer: ((command: string, options: Options) => void) | undefined;

/** Set (or clear, with undefined) the observer of `parse`'s options tables. */
export function observeParse(next: ((command: string, options: Options) => void) | undefined): void {
  observer = next;
}

export function parse(command: string, argv: readonly string[], options: Options, allowPositionals = false): Parsed {
  observer?.(command, options);
  let result: {
    values: Parsed['values'];
    positionals: string[];
    tokens: readonly { kind: string; name?: string }[];
  };
  try {
    result = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      strict: true,
      allowPositionals,
      tokens: true,
    }) as typeof result;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const meant = meantFlag(detail ?? '', options);
    // parseArgs takes `--keep -1` for a missing value; its own fix is on a line of the message not shown.
    const dash = /^Option '(--[^']+)' argument is ambiguous/.exec(detail ?? '')?.[1];
    const fix = dash === undefined ? '' : `A value that starts with a dash is written ${dash}=<value>. `;
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      `${(detail ?? 'bad arguments').replace(/\.$/, '')} (lockguard ${command}).`,
      {
        hint: `${meant === undefined ? '' : `Did you mean ${meant}? `}${fix}lockguard ${command} --help lists what it takes.`,
        cause: error,
      },
    );
  }
  // A value-taking option given twice (`--policy refuse --policy flag`) is refused: which one was meant is not
  // known, and the last one quietly winning has turned a refusing run into a flagging one.
  const seen = new Set<string>();
  for (const token of result.tokens) {
    const name = token.name;
    if (token.kind !== 'option' || name === undefined) continue;
    if (options[name]?.type !== 'string' || options[name]?.multiple === true) continue;
    if (seen.has(name))
      throw new LockguardError('ERR_LOCKGUARD_USAGE', `--${name} is given more than once (lockguard ${command}).`, {
        hint: `Pass --${name} once, with the value you mean.`,
      });
    seen.add(name);
  }
  return { values: result.values, positionals: result.positionals };
}

/** The flag the user probably meant when parseArgs names an unknown one (`--polcy` → `--policy`). */
function meantFlag(detail: string, options: Options): string | undefined {
  const typed = /^Unknown option '(--[^'=]+)/.exec(detail)?.[1];
  if (typed === undefined) return undefined;
  return closest(typed, ['--help', ...Object.keys(options).map((name) => `--${name}`)]);
}

/** Validate an enumerated setting from a flag or the environment: `Expected X to be "a" or "b", got "c"`. */
export function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const list =
    allowed.length === 1
      ? `"${allowed[0]}"`
      : `${allowed
          .slice(0, -1)
          .map((a) => `"${a}"`)
          .join(', ')} or "${allowed.at(-1)}"`;
  // A flag's value is what the user typed on this command line; an environment variable's is never printed
  // (README: errors print no environment values: one may hold a token set by mistake).
  const got = name.startsWith('-') ? `got "${printable(value).slice(0, 40)}"` : 'got a value it does not take';
  throw new LockguardError('ERR_LOCKGUARD_BAD_SETTING', `Expected ${name} to be ${list}, ${got}.`, {
    hint: `Set ${name} to one of ${list}.`,
  });
}

export function stringValue(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}
