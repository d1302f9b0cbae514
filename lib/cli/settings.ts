// A team's settings, decided once: the `"lockguard"` field of the workspace root's package.json (as prettier,
// c8 and lint-staged read theirs), overridden by the environment, then by flags.
//
// Owns: the field's shape (`policy`, `failOnMove`, `remote`, `preCheck`, `scope`, `keepRuns`), reading it, and
// the order in which a setting is decided: flag, then environment ($LOCKGUARD_POLICY, $LOCKGUARD_REMOTE,
// $LOCKGUARD_KEEP_RUNS), then the
// field, then lockguard's default; each value says where it came from (doctor shows it).
// Invariants: a field that is not an object, an unknown key or a bad value is exit 2 naming the file, the key
// and the values allowed, never ignored; the manifest is read as every workspace file is (a regular file, a
// size limit, no device or FIFO); no field is the defaults, with no error.

import { join } from 'node:path';
import { readConfigText } from '../core/bounded-read.js';
import type { Env } from '../core/env.js';
import { LockguardError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { oneOf } from './args.js';
import { DEFAULT_RETENTION } from '../ledger/retention.js';
import { closest } from './suggest.js';

const SETTING_KEYS = ['policy', 'failOnMove', 'remote', 'preCheck', 'scope', 'keepRuns'] as const;
type SettingKey = (typeof SETTING_KEYS)[number];

/** The allowed values of each setting with a fixed set of them (true/false for the booleans). */
const ALLOWED: Readonly<Record<Exclude<SettingKey, 'keepRuns'>, readonly (string | boolean)[]>> = {
  policy: ['flag', 'withhold', 'refuse'],
  failOnMove: ['auto', 'always', 'never'],
  remote: ['auto', 'off', 'on'],
  preCheck: [true, false],
  scope: ['inputs', 'full'],
};

export type TeamSettings = Partial<Record<SettingKey, string | boolean | number>>;

/** How many of the newest runs the ledger keeps by itself (ledger/retention.ts), or 'all': never pruned by itself. */
export type Retention = number | 'all';

/** A retention as written in package.json (a whole number of runs, at least 1, or "all"). */
function isRetention(value: unknown): value is Retention {
  return value === 'all' || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1);
}

export interface SettingsFile {
  /** The package.json read, or undefined when the root has none. */
  readonly path: string | undefined;
  readonly settings: TeamSettings;
}

/** The `"lockguard"` field of `<root>/package.json`; no file or no field gives no settings. */
export function readSettings(root: string): SettingsFile {
  const path = join(root, 'package.json');
  // As every workspace file is read (core/bounded-read.ts): a regular file or a link to one inside the workspace,
  // under the config limit; a FIFO, device, folder or a link leaving the workspace is exit 2 naming it.
  const text = readConfigText(path, root);
  if (text === undefined) return { path: undefined, settings: {} };
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    // Never the defaults in its place: a trailing comma would quietly turn a team's "refuse" into "withhold".
    throw badConfig(
      path,
      'is not valid JSON, so the team settings in its "lockguard" field cannot be read',
      `Fix the JSON in ${path} (your package manager refuses it too).`,
    );
  }
  const field = (manifest as { lockguard?: unknown } | null)?.lockguard;
  if (field === undefined) return { path, settings: {} };
  return { path, settings: validated(path, field) };
}

function validated(path: string, field: unknown): TeamSettings {
  if (field === null || typeof field !== 'object' || Array.isArray(field))
    throw badConfig(path, 'has a "lockguard" field that is not an object', 'Write it as {"policy": "refuse", ...}.');
  const settings: TeamSettings = {};
  for (const [key, value] of Object.entries(field)) {
    if (!(SETTING_KEYS as readonly string[]).includes(key)) {
      const meant = closest(key, SETTING_KEYS);
      // A key is named when it looks like one (a mistyped setting); anything else is not echoed.
      const shown = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/.test(key) ? ` "lockguard.${key}"` : '';
      throw badConfig(
        path,
        `has an unknown key${shown} in its "lockguard" field`,
        `${meant === undefined ? '' : `Did you mean "${meant}"? `}The keys are ${SETTING_KEYS.join(', ')}.`,
      );
    }
    if (key === 'keepRuns') {
      if (!isRetention(value))
        throw badConfig(
          path,
          'sets "lockguard.keepRuns" to a value it does not take',
          'Set it to a whole number of runs (1 or more), or "all" to never prune by itself.',
        );
      settings.keepRuns = value;
      continue;
    }
    const allowed = ALLOWED[key as Exclude<SettingKey, 'keepRuns'>];
    if (!allowed.includes(value as string | boolean))
      throw badConfig(
        path,
        `sets "lockguard.${key}" to a value it does not take`,
        `Set it to one of ${allowed.map((word) => JSON.stringify(word)).join(', ')}.`,
      );
    settings[key as SettingKey] = value as string | boolean;
  }
  return settings;
}

function badConfig(path: string, what: string, hint?: string): LockguardError {
  return new LockguardError('ERR_LOCKGUARD_BAD_CONFIG', `${printable(path)} ${what}.`, {
    path,
    hint: hint ?? `Fix ${path}, or remove its "lockguard" field.`,
  });
}

type SettingSource = 'flag' | 'environment' | 'package.json' | 'default';

export interface Decided<T> {
  readonly value: T;
  readonly from: SettingSource;
}

/** A setting decided in order: the flag, the environment variable, the field, the default. */
export function decide<T>(
  flagValue: T | undefined,
  envValue: T | undefined,
  fieldValue: unknown,
  fallback: T,
): Decided<T> {
  if (flagValue !== undefined) return { value: flagValue, from: 'flag' };
  if (envValue !== undefined) return { value: envValue, from: 'environment' };
  if (fieldValue !== undefined) return { value: fieldValue as T, from: 'package.json' };
  return { value: fallback, from: 'default' };
}

/** Each setting as `lockguard run`/`snapshot` would decide it here without flags: its value and where it came from. */
export function settingsInEffect(file: SettingsFile, env: Env): string {
  // Checked as run checks them (args.ts oneOf): doctor never says "ok" for a value run refuses.
  const fromEnv = (name: string, key: 'policy' | 'remote'): string | undefined => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    return oneOf(
      name,
      value,
      ALLOWED[key].filter((word): word is string => typeof word === 'string'),
    );
  };
  const decided: [SettingKey, Decided<unknown>][] = [
    ['policy', decide(undefined, fromEnv('LOCKGUARD_POLICY', 'policy'), file.settings.policy, 'withhold')],
    ['failOnMove', decide(undefined, undefined, file.settings.failOnMove, 'auto')],
    ['remote', decide(undefined, fromEnv('LOCKGUARD_REMOTE', 'remote'), file.settings.remote, 'auto')],
    ['preCheck', decide(undefined, undefined, file.settings.preCheck, true)],
    ['scope', decide(undefined, undefined, file.settings.scope, 'inputs')],
    ['keepRuns', retentionOf(file, env)],
  ];
  return decided.map(([key, { value, from }]) => `${key} ${String(value)} (${from})`).join(', ');
}

/** The ledger's retention: $LOCKGUARD_KEEP_RUNS, then the field's `keepRuns`, then lockguard's default. */
export function retentionOf(file: SettingsFile, env: Env, fallback: Retention = DEFAULT_RETENTION): Decided<Retention> {
  const given = env['LOCKGUARD_KEEP_RUNS'];
  let fromEnv: Retention | undefined;
  if (given !== undefined && given !== '') {
    fromEnv = given === 'all' ? 'all' : /^\d+$/.test(given) ? Number(given) : Number.NaN;
    if (!isRetention(fromEnv))
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        'LOCKGUARD_KEEP_RUNS is not a whole number of runs (1 or more) or "all".',
        { hint: 'Set LOCKGUARD_KEEP_RUNS=100 (the default), or "all" to never prune by itself; or unset it.' },
      );
  }
  return decide<Retention>(undefined, fromEnv, file.settings.keepRuns, fallback);
}
