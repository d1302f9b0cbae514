// Named runs: several CI gates in one job, each judging its own snapshot (issue 28, "several caches in one
// job"). `snapshot --name store` hands its run on as LOCKGUARD_RUN_STORE (and LOCKGUARD_KEY_STORE),
// `verify --name store` judges exactly that run.
//
// Owns: what a run name may be, the variables a name maps to, whether the job already holds one of them
// (in the environment, or already written to the step's $GITHUB_ENV file), and the named runs a job holds.
// Invariants: pure reads (the $GITHUB_ENV file is read, never written, here); a name maps to one variable
// pair and two names never map to the same pair (names are matched case-insensitively: `Store` and
// `store` are one name, spelled LOCKGUARD_RUN_STORE).

import type { Env } from '../../core/env.js';
import { readFileSync } from 'node:fs';
import { LockguardError } from '../../core/errors.js';
import { printable } from '../../core/printable.js';

/** A run name: a letter, then letters, digits and `_` (it becomes part of an environment variable's name). */
const RUN_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
const NAMED_RUN_VARIABLE = /^LOCKGUARD_RUN_([A-Z][A-Z0-9_]{0,39})$/;

/** The name as recorded and spelled in variables (upper case), or a usage error naming the rule. */
export function runNameOf(given: string | undefined, command: string): string | undefined {
  if (given === undefined) return undefined;
  if (RUN_NAME.test(given)) return given.toUpperCase();
  throw new LockguardError(
    'ERR_LOCKGUARD_USAGE',
    `--name "${printable(given)}" is not a run name: a letter, then up to 39 letters, digits or _ (lockguard ${command}).`,
    { hint: 'Name each cache of the job once, for example --name store and --name turbo.' },
  );
}

/** LOCKGUARD_RUN, or LOCKGUARD_RUN_<NAME> for a named run. */
export function runVariable(name: string | undefined): string {
  return name === undefined ? 'LOCKGUARD_RUN' : `LOCKGUARD_RUN_${name}`;
}

/** LOCKGUARD_KEY_<NAME> (an unnamed snapshot hands its key on through step outputs only). */
export function keyVariable(name: string): string {
  return `LOCKGUARD_KEY_${name}`;
}

/**
 * Where the job already holds `variable`: its environment (an earlier step wrote it to $GITHUB_ENV, or the
 * workflow set it), or the $GITHUB_ENV file of this step (an earlier command of the same `run:` script).
 */
export function heldBy(env: Env, variable: string): 'env' | 'github-env' | undefined {
  const value = env[variable];
  if (value !== undefined && value !== '') return 'env';
  const file = env['GITHUB_ENV'];
  if (file === undefined || file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // An unreadable $GITHUB_ENV is reported by the write that follows, naming the file.
    return undefined;
  }
  // `NAME=value` or the heredoc form `NAME<<DELIMITER` (what @actions/core writes).
  return text.split('\n').some((line) => line.startsWith(`${variable}=`) || line.startsWith(`${variable}<<`))
    ? 'github-env'
    : undefined;
}

/** The named runs the job's environment holds: name → run (id or folder), sorted by name. */
export function namedRunsIn(env: Env): [string, string][] {
  const out: [string, string][] = [];
  for (const [variable, value] of Object.entries(env)) {
    const name = NAMED_RUN_VARIABLE.exec(variable)?.[1];
    if (name !== undefined && value !== undefined && value !== '') out.push([name, value]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
