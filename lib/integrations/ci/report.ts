// What verify and snapshot hand each CI output mode: GitHub step outputs, a dotenv report, the GitHub job
// summary and annotations, for a verdict and for an error.
//
// Owns: the names and values of those outputs (GitHub: save, moved, error; dotenv: LOCKGUARD_SAVE,
// LOCKGUARD_KEY, LOCKGUARD_MOVED, LOCKGUARD_ERROR) and the summary's markdown.
// Invariants: pure (values in, text out); an error always reports save=false with its code, so a later
// step never reads an empty answer as "nothing to say"; every path or line that reaches the summary is
// redacted (core/redact.ts) and made printable, and sits in a code span or fence it cannot close.

import { MESSAGE_MAX, printableUpTo } from '../../core/printable.js';
import { redactText } from '../../core/redact.js';
import { movedVerb } from '../../core/watch.js';
import type { MovedFile } from '../../ledger/verdict.js';
import { errorAnnotation } from './github.js';

export interface VerdictReport {
  readonly save: boolean;
  readonly key: string;
  readonly moved: readonly Pick<MovedFile, 'path' | 'kind'>[];
  /** The status line verify printed (why the save is refused), when it is. */
  readonly line?: string;
  /** The slice-diff lines of the moved lockfiles. */
  readonly slices: readonly string[];
  /** The cache entries the judged run withheld, one label each (`turbo 3f2a… (build)`). */
  readonly withheld: readonly string[];
  /** The gate's name (snapshot --name), when the job has several. */
  readonly name?: string;
}

const clean = (text: string): string => printableUpTo(redactText(text), MESSAGE_MAX);

export function verdictGithubOutputs(report: Pick<VerdictReport, 'save' | 'moved'>): Record<string, string> {
  return { save: String(report.save), moved: report.moved.map((file) => clean(file.path)).join(',') };
}

export function verdictDotenv(report: Pick<VerdictReport, 'save' | 'moved' | 'key'>): Record<string, string> {
  return {
    LOCKGUARD_SAVE: String(report.save),
    LOCKGUARD_KEY: report.key,
    LOCKGUARD_MOVED: report.moved.map((file) => clean(file.path)).join(','),
  };
}

export function errorGithubOutputs(code: string): Record<string, string> {
  return { save: 'false', error: code };
}

export function errorDotenv(code: string): Record<string, string> {
  return { LOCKGUARD_SAVE: 'false', LOCKGUARD_ERROR: code };
}

/** A code span for `text` that no backtick inside it can close. */
function code(text: string): string {
  const runs = clean(text).match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((run) => run.length)) + 1);
  return `${fence} ${clean(text).replaceAll('|', '\\|')} ${fence}`;
}

/** A fenced block for `lines` that no line inside it can close. */
function block(lines: readonly string[]): string {
  const body = lines.map(clean);
  const longest = Math.max(2, ...body.flatMap((line) => (line.match(/`+/g) ?? []).map((run) => run.length)));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${body.join('\n')}\n${fence}\n`;
}

/** The job summary of a verdict (`### lockguard verify: …`, the moved files, the slice diff, what was withheld). */
export function verdictSummary(report: VerdictReport): string {
  const gate = report.name === undefined ? 'lockguard verify' : `lockguard verify --name ${clean(report.name)}`;
  if (report.save) return `### ${gate}: nothing moved, the cache may be saved\n\nKey ${code(report.key)}.\n\n`;
  const rows = report.moved.map((file) => `| ${code(file.path)} | ${movedVerb([file], 'passive')} |`).join('\n');
  const parts = [
    `### ${gate}: the cache save is refused\n`,
    `${clean(report.line ?? '')}\n`,
    `| file | change |\n| --- | --- |\n${rows}\n`,
  ];
  if (report.slices.length > 0) parts.push(`The slices that changed:\n\n${block(report.slices)}`);
  parts.push(
    report.withheld.length === 0
      ? 'Withheld: the cache save of this job (save=false); no runner cache entry of this run was withheld.\n'
      : `Withheld: the cache save of this job (save=false), and these runner cache entries (\`lockguard quarantine list\`):\n\n${report.withheld.map((label) => `- ${code(label)}`).join('\n')}\n`,
  );
  return `${parts.join('\n')}\n`;
}

/** The summary of an error: the code and the message, nothing saved. */
export function errorSummary(command: string, errorCode: string, message: string): string {
  return `### lockguard ${command}: error ${code(errorCode)}\n\n${clean(message)}\n\nNothing may be saved (save=false).\n\n`;
}

/** One `::error file=…::` line per moved file; `where` maps a workspace path to the checkout's (github.ts checkoutPath). */
export function movedAnnotations(
  moved: readonly Pick<MovedFile, 'path' | 'kind'>[],
  since: string,
  where: (path: string) => string = (path) => path,
): string[] {
  return moved.map((file) =>
    errorAnnotation(
      where(file.path),
      'lockguard: the cache save is refused',
      `${file.path} was ${movedVerb([file], 'passive')} ${since}: the cache is not saved under a key that folded the old bytes`,
    ),
  );
}
