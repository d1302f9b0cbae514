// GitHub Actions: step outputs, job environment and job summary through the files the runner names, and
// the workflow-command text of an annotation.
//
// Owns: appending `name=value` lines to `$GITHUB_OUTPUT` / `$GITHUB_ENV`, markdown to
// `$GITHUB_STEP_SUMMARY`, and `::error file=…::` lines (escaped as @actions/core escapes them: `%`, CR and
// LF in the message; also `:` and `,` in a property).
// Invariants: values are single-line (multi-line values would need delimiters: refused here, never
// silently written); a missing variable is a clear error naming it and the fix; an annotation's text is
// redacted (core/redact.ts) and escaped, so a file name cannot end the command or start another.

import type { Env } from '../../core/env.js';
import { isAbsolute, join, relative } from 'node:path';
import { isLockguardError, LockguardError } from '../../core/errors.js';
import { appendToOutput } from './output-target.js';
import { redactText } from '../../core/redact.js';

export type GithubFile = 'GITHUB_OUTPUT' | 'GITHUB_ENV' | 'GITHUB_STEP_SUMMARY';

export function githubFile(env: Env, name: GithubFile): string | undefined {
  const path = env[name];
  return path === undefined || path === '' ? undefined : path;
}

/** The file `$name` names; a usage error when it is not set. Check before doing any work the flag reports on. */
export function requireGithubFile(env: Env, name: GithubFile): string {
  const path = githubFile(env, name);
  if (path === undefined) {
    throw new LockguardError('ERR_LOCKGUARD_USAGE', `--github-output needs $${name}, which is not set.`, {
      hint: 'Use --github-output inside a GitHub Actions step, or drop the flag.',
    });
  }
  return path;
}

function append(path: string, name: GithubFile, text: string): void {
  try {
    appendToOutput(path, text, `$${name}`);
  } catch (error) {
    if (isLockguardError(error) && error.code === 'ERR_LOCKGUARD_NOT_A_FILE') throw error;
    throw new LockguardError('ERR_LOCKGUARD_IO', `Cannot append to $${name} at "${path}".`, {
      path,
      cause: error,
      hint: `Check that $${name} names a writable file.`,
    });
  }
}

export function appendGithub(
  env: Env,
  name: Exclude<GithubFile, 'GITHUB_STEP_SUMMARY'>,
  pairs: Readonly<Record<string, string>>,
): void {
  const path = requireGithubFile(env, name);
  let text = '';
  for (const [key, value] of Object.entries(pairs)) {
    if (/[\r\n]/.test(value))
      throw new LockguardError('ERR_LOCKGUARD_USAGE', `The GitHub output ${key} would span lines.`, {
        hint: 'Rename the file whose name holds a line break.',
      });
    text += `${key}=${value}\n`;
  }
  append(path, name, text);
}

/** Append markdown to the job summary when `$GITHUB_STEP_SUMMARY` is set (a no-op otherwise). */
export function appendSummary(env: Env, markdown: string): void {
  const path = githubFile(env, 'GITHUB_STEP_SUMMARY');
  if (path !== undefined) append(path, 'GITHUB_STEP_SUMMARY', markdown);
}

const escapeData = (text: string): string =>
  text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (text: string): string => escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');

/** `::error file=<path>,title=<title>::<message>` for one file (workspace-relative path, as the checkout has it). */
export function errorAnnotation(file: string, title: string, message: string): string {
  return `::error file=${escapeProperty(redactText(file))},title=${escapeProperty(redactText(title))}::${escapeData(redactText(message))}`;
}

/** A workspace file's path as annotations name it: relative to `$GITHUB_WORKSPACE` (the checkout), when the workspace is inside it. */
export function checkoutPath(env: Env, root: string, path: string): string {
  const checkout = env['GITHUB_WORKSPACE'];
  if (checkout === undefined || checkout === '') return path;
  const inside = relative(checkout, join(root, path));
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside.split('\\').join('/');
}
