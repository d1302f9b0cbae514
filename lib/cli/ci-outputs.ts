// The CI output modes `verify` and `snapshot` share: `--github-output`, `--dotenv PATH`, `--json`, GitHub's
// job summary and annotations (when ci/detect.ts says the process runs in GitHub Actions), and
// `--moved-exit-code N`.
//
// Owns: reading those flags, writing a verdict's outputs, and writing them for an error too: every exit
// leaves an answer (GitHub `save=false` + `error=<code>`, dotenv LOCKGUARD_SAVE=false + LOCKGUARD_ERROR,
// a JSON error object `{version, command, exitCode, error: {code, message, hint}}` on stdout).
// Invariants: an error's outputs are best effort (a second fault while writing them is one warning line,
// the first error still decides the exit code, printed by main); the exit code reported for an error is
// the one main returns for it (2 for lockguard's errors, 3 for the pre-run check, 70 for a bug).

import { resolve } from 'node:path';
import { isLockguardError, LockguardError } from '../core/errors.js';
import { fsFault, isFsFault } from '../core/fs-fault.js';
import { redactRecord } from '../core/redact.js';
import { ciOf } from '../integrations/ci/detect.js';
import { writeWhole, dotenvText } from '../integrations/ci/files.js';
import { appendGithub, appendSummary, type GithubFile, githubFile } from '../integrations/ci/github.js';
import { outputTarget } from '../integrations/ci/output-target.js';
import { errorDotenv, errorGithubOutputs, errorSummary } from '../integrations/ci/report.js';
import { flag, parse, stringValue, type Options, type Parsed } from './args.js';
import { EXIT } from './exit-codes.js';
import { type Io, warn } from './io.js';

export const OUTPUT_OPTIONS: Options = {
  'github-output': { type: 'boolean' },
  dotenv: { type: 'string' },
  json: { type: 'boolean' },
};
export const MOVED_EXIT_OPTION: Options = { 'moved-exit-code': { type: 'string' } };
export const MOVED_EXIT_HELP = `  --moved-exit-code <n>
                       exit with n (1..125) instead of 1 when something moved, to tell a move from a
                       failure without shell (GitLab: allow_failure: exit_codes: [n])`;

export interface OutputModes {
  readonly github: boolean;
  readonly dotenv: string | undefined;
  readonly json: boolean;
}

function outputModes(parsed: Parsed): OutputModes {
  return { github: flag(parsed, 'github-output'), dotenv: stringValue(parsed, 'dotenv'), json: flag(parsed, 'json') };
}

/**
 * `parse` for a command that answers in CI outputs: when the arguments themselves are wrong (an unknown flag,
 * a flag given twice), the output modes are read from the raw words (before a `--`) and answered too, so every
 * exit answers (`--bogus` once left $GITHUB_OUTPUT and the dotenv file unwritten); then the error is rethrown.
 */
export async function parseAnswering(
  command: string,
  argv: readonly string[],
  options: Options,
  io: Io,
): Promise<{ parsed: Parsed; modes: OutputModes }> {
  try {
    const parsed = parse(command, argv, options);
    return { parsed, modes: outputModes(parsed) };
  } catch (error) {
    const end = argv.indexOf('--');
    const own = end === -1 ? argv : argv.slice(0, end);
    const at = own.indexOf('--dotenv');
    const inline = own.find((word) => word.startsWith('--dotenv='))?.slice('--dotenv='.length);
    const next = at === -1 ? undefined : own[at + 1];
    const dotenv = inline ?? (next === undefined || next.startsWith('-') ? undefined : next);
    await reportFailure(command, error, io, {
      github: own.includes('--github-output'),
      dotenv,
      json: own.includes('--json'),
    });
    throw error;
  }
}

/** Whether to write GitHub's job summary and annotations: only inside GitHub Actions. */
export function onGithub(io: Io): boolean {
  return ciOf(io.env)?.name === 'github';
}

/** `--moved-exit-code`: an integer 1..125 (0 would pass the job; above 125 are the shell's own codes). */
export function movedExitCode(parsed: Parsed, command: string): number {
  const text = stringValue(parsed, 'moved-exit-code');
  if (text === undefined) return EXIT.moved;
  const value = /^[0-9]{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (value >= 1 && value <= 125) return value;
  throw new LockguardError(
    'ERR_LOCKGUARD_USAGE',
    `--moved-exit-code takes a whole number from 1 to 125 (lockguard ${command}).`,
    {
      hint: 'For example --moved-exit-code 3, and in GitLab CI allow_failure: exit_codes: [3].',
    },
  );
}

export function writeDotenv(modes: OutputModes, io: Io, pairs: Readonly<Record<string, string>>): void {
  if (modes.dotenv !== undefined) writeWhole(resolvePath(io, modes.dotenv), dotenvText(pairs), '--dotenv');
}

/**
 * Every output file asked for checked before any work (integrations/ci/output-target.ts): a device, FIFO,
 * folder or link where a file belongs is refused (exit 2) before a run is recorded or a verdict written.
 */
export function checkOutputTargets(modes: OutputModes, io: Io): void {
  if (modes.dotenv !== undefined) outputTarget(resolvePath(io, modes.dotenv), '--dotenv');
  const names: GithubFile[] = [];
  if (modes.github) names.push('GITHUB_OUTPUT', 'GITHUB_ENV');
  if (onGithub(io)) names.push('GITHUB_STEP_SUMMARY');
  for (const name of names) {
    const path = githubFile(io.env, name);
    if (path !== undefined) outputTarget(path, `$${name}`);
  }
}

function resolvePath(io: Io, path: string): string {
  return resolve(io.cwd, path);
}

/** The error as main will report it: its code and exit code. */
function asReported(caught: unknown, io: Io): { error: LockguardError | undefined; code: string; exitCode: number } {
  const error = isLockguardError(caught) ? caught : isFsFault(caught) ? fsFault(caught, io.cwd, 'use') : undefined;
  if (error === undefined) return { error, code: 'ERR_LOCKGUARD_INTERNAL', exitCode: EXIT.internal };
  return { error, code: error.code, exitCode: error.code === 'ERR_LOCKGUARD_PRE_CHECK' ? EXIT.preCheck : EXIT.usage };
}

/** Every output mode asked for (and GitHub's summary), for an error; the caller rethrows it. */
export async function reportFailure(command: string, caught: unknown, io: Io, modes: OutputModes): Promise<void> {
  const { error, code, exitCode } = asReported(caught, io);
  const message = error?.message ?? 'internal error (a bug in lockguard)';
  const attempt = (what: string, write: () => void): void => {
    try {
      write();
    } catch (fault) {
      warn(io, `${what} was not written (${fault instanceof Error ? fault.message : String(fault)})`);
    }
  };
  if (modes.github && githubFile(io.env, 'GITHUB_OUTPUT') !== undefined)
    attempt('$GITHUB_OUTPUT', () => appendGithub(io.env, 'GITHUB_OUTPUT', errorGithubOutputs(code)));
  attempt('the --dotenv file', () => writeDotenv(modes, io, errorDotenv(code)));
  if (onGithub(io)) attempt('the job summary', () => appendSummary(io.env, errorSummary(command, code, message)));
  if (modes.json) {
    const version = await (await import('./version.js')).version();
    const body = {
      version,
      command,
      exitCode,
      error: { code, message, ...(error?.hint === undefined ? {} : { hint: error.hint }) },
    };
    io.stdout.write(`${JSON.stringify(redactRecord(body), null, 2)}\n`);
  }
}
