// GitHub Actions: step outputs and job environment, through the files the runner names.
//
// Owns: appending `name=value` lines to `$GITHUB_OUTPUT` / `$GITHUB_ENV`.
// Invariants: values are single-line (multi-line values would need delimiters: refused here, never
// silently written); a missing variable is a clear error naming it and the fix.

import { appendFileSync } from 'node:fs';
import { LockguardError } from '../core/errors.js';

export type GithubFile = 'GITHUB_OUTPUT' | 'GITHUB_ENV';

export function githubFile(env: Readonly<Record<string, string | undefined>>, name: GithubFile): string | undefined {
  const path = env[name];
  return path === undefined || path === '' ? undefined : path;
}

/** The file `$name` names; a usage error when it is not set. Check before doing any work the flag reports on. */
export function requireGithubFile(env: Readonly<Record<string, string | undefined>>, name: GithubFile): string {
  const path = githubFile(env, name);
  if (path === undefined) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `--github-output needs $${name}, which is not set.`, {
      hint: 'Use --github-output inside a GitHub Actions step, or drop the flag.',
    });
  }
  return path;
}

export function appendGithub(env: Readonly<Record<string, string | undefined>>, name: GithubFile, pairs: Readonly<Record<string, string>>): void {
  const path = requireGithubFile(env, name);
  let text = '';
  for (const [key, value] of Object.entries(pairs)) {
    if (/[\r\n]/.test(value)) throw new Error(`GitHub output ${key} must be one line`);
    text += `${key}=${value}\n`;
  }
  try {
    appendFileSync(path, text);
  } catch (error) {
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot append to $${name} at "${path}".`, {
      path,
      cause: error,
      hint: `Check that $${name} names a writable file.`,
    });
  }
}
