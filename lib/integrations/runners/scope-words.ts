// The status line's words on which saves a pass withheld and which it kept (`scopeClause`), for the CLI.
//
// Owns: `scopeClause` and the shapes it reads (`ScopeJudged`, `ScopedPass`). A leaf: it imports no runner
// adapter, so a command that only renders a pass's words (verify, status: through cli/guard-words.ts) does not
// initialise every adapter at start-up (affected.ts, which judges the scope, needs the registry).
// Invariants: pure; task names are escaped (printable) and the reasons bounded.

import { MESSAGE_MAX, printable, printableUpTo } from '../../core/printable.js';

/** The scope a pass was judged on, as its result carries it (`unmapped`: withheld only for want of a project). */
export type ScopeJudged =
  | { readonly kind: 'all'; readonly reason: string }
  | { readonly kind: 'projects'; readonly unmapped: readonly { readonly reason: string; readonly count: number }[] };

/** What `scopeClause` reads of one cache's pass. */
export interface ScopedPass {
  readonly runner: string;
  readonly withheld: readonly { readonly task?: string }[];
  readonly spared: readonly { readonly task: string }[];
  readonly scope: ScopeJudged;
}

/** How many task names a clause lists before "...". */
const NAMED = 3;

function names(tasks: readonly string[]): string {
  // Task names come from package names and the runner's summary: control characters are escaped.
  const sorted = tasks.map(printable).sort();
  return `${sorted.slice(0, NAMED).join(', ')}${sorted.length > NAMED ? ', ...' : ''}`;
}

/**
 * The status line's words on the scope, after "N cache saves made after it were withheld":
 * ` (b#build, d#build, whose projects' slices moved); 2 kept (a#build, c#build: their projects' slices and reach did
 * not move)`, or `, every save after it, because <reason>`; '' when nothing was withheld or kept.
 */
export function scopeClause(passes: readonly ScopedPass[]): string {
  const precise = passes.filter((pass) => pass.scope.kind === 'projects');
  const unmapped = precise.flatMap((pass) => (pass.scope.kind === 'projects' ? pass.scope.unmapped : []));
  const unmappedCount = unmapped.reduce((sum, item) => sum + item.count, 0);
  const withheldCount = precise.reduce((sum, pass) => sum + pass.withheld.length, 0);
  const movedCount = Math.max(0, withheldCount - unmappedCount);
  const spared = precise.flatMap((pass) => pass.spared.map((entry) => entry.task));
  const conservative = passes.filter((pass) => pass.scope.kind === 'all' && pass.withheld.length > 0);
  const parts: string[] = [];
  const inner: string[] = [];
  if (movedCount > 0) {
    // Without unmapped ones, the named tasks are exactly those whose slices moved.
    const tasks =
      unmappedCount === 0
        ? precise.flatMap((pass) => pass.withheld.flatMap((entry) => (entry.task === undefined ? [] : [entry.task])))
        : [];
    const whose = movedCount === 1 ? "whose project's slice moved" : "whose projects' slices moved";
    inner.push(tasks.length > 0 ? `${names(tasks)}, ${whose}` : `${movedCount} ${whose}`);
  }
  if (unmappedCount > 0)
    inner.push(
      `${unmappedCount} not mapped to a project: ${printableUpTo([...new Set(unmapped.map((item) => item.reason))].join('; '), MESSAGE_MAX)}`,
    );
  if (inner.length > 0) parts.push(` (${inner.join('; ')})`);
  if (spared.length > 0)
    parts.push(
      `; ${spared.length} kept (${names(spared)}: ${spared.length === 1 ? "its project's slice and reach did" : "their projects' slices and reach did"} not move)`,
    );
  const reasons = [...new Set(conservative.map((pass) => (pass.scope.kind === 'all' ? pass.scope.reason : '')))];
  if (reasons.length > 0) {
    const label = precise.length > 0 ? ` ${[...new Set(conservative.map((pass) => pass.runner))].join(' and ')}` : '';
    parts.push(
      `${precise.length > 0 ? ';' : ','} every${label} save after it, because ${printableUpTo(reasons.join('; '), MESSAGE_MAX)}`,
    );
  }
  return parts.join('');
}
