// Argument parsing for every command: strict `node:util` parseArgs, with usage errors that teach.
//
// Owns: turning argv into typed options or an ERR_LOCKGUARD_USAGE naming the bad word and the fix, and the
// validation of settings that can also come from the environment (one place, wireit's message shape).

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { LockguardError } from '../core/errors.js';
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
  try {
    const result = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      strict: true,
      allowPositionals,
    });
    return { values: result.values as Parsed['values'], positionals: result.positionals };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const meant = meantFlag(detail ?? '', options);
    throw new LockguardError(
      'ERR_LOCKGUARD_USAGE',
      `${(detail ?? 'bad arguments').replace(/\.$/, '')} (lockguard ${command}).`,
      {
        hint: `${meant === undefined ? '' : `Did you mean ${meant}? `}lockguard ${command} --help lists what it takes.`,
        cause: error,
      },
    );
  }
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
  throw new LockguardError('ERR_LOCKGUARD_BAD_SETTING', `Expected ${name} to be ${list}, got "${value}".`, {
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
