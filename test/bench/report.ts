// test/bench/README.md's generated part: `npm run bench` writes each bench module's rows there, with the
// machine and the date they were measured on, so no one edits results by hand.
//
// Owns: the marker that splits the page (hand-written text above it, generated blocks below), one block per
// module (`<!-- bench:<module> -->` … `<!-- /bench:<module> -->`), and the merge: a full run replaces every
// block (the last hand-recorded table included), a subset run (`LOCKGUARD_BENCH_ONLY`) only its modules'.
// Invariants: the text above the marker is kept byte for byte; blocks come out in the order the bench lists
// its modules, unknown ones after them; pure functions (run.ts reads and writes the file).

import { formatTable, type BenchRow } from './harness.js';

/** The line the generated part starts after. Everything above it is hand-written. */
export const GENERATED_MARKER = '<!-- generated below by `npm run bench` (test/bench/run.ts): do not edit by hand -->';

/** What one module's run produced. `rows` is undefined when the module failed. */
export interface ModuleResult {
  readonly module: string;
  readonly rows: readonly BenchRow[] | undefined;
  /** ISO 8601 time the module finished, UTC. */
  readonly at: string;
  /** `machineLine()` of the machine it ran on. */
  readonly machine: string;
  readonly samples: number;
}

/** One module's block: its heading, when and where it was measured, and its table. */
export function renderBlock(result: ModuleResult): string {
  const when = `Measured ${result.at.slice(0, 16).replace('T', ' ')} UTC on ${result.machine}; ${result.samples} samples per row, medians.`;
  const body =
    result.rows === undefined
      ? 'This module failed in that run (its error is in the bench output): no rows.'
      : result.rows.length === 0
        ? 'No rows (the module measured nothing on that machine).'
        : formatTable(result.rows);
  return `<!-- bench:${result.module} -->\n### ${result.module}\n\n${when}\n\n${body}\n<!-- /bench:${result.module} -->`;
}

/** The generated blocks of a page, by module name, in page order. */
export function blocksOf(page: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const generated = page.slice(markerEnd(page));
  for (const match of generated.matchAll(/<!-- bench:([\w-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->/g))
    blocks.set(match[1] ?? '', match[0]);
  return blocks;
}

function markerEnd(page: string): number {
  const at = page.indexOf(`${GENERATED_MARKER}\n`);
  if (at === -1)
    throw new Error(
      `Expected test/bench/README.md to hold the line "${GENERATED_MARKER}", which starts its generated part; put it back below the hand-written text`,
    );
  return at + GENERATED_MARKER.length + 1;
}

/**
 * The page with `results` written in: the hand-written part as it was, then the blocks. A full run (`full`)
 * keeps no block it did not write; a subset run keeps the others. `order` is the bench's module list.
 */
export function updatePage(
  page: string,
  results: readonly ModuleResult[],
  full: boolean,
  order: readonly string[],
): string {
  const head = page.slice(0, markerEnd(page));
  const blocks = full ? new Map<string, string>() : blocksOf(page);
  for (const result of results) blocks.set(result.module, renderBlock(result));
  const rank = (name: string): number => {
    const index = order.indexOf(name);
    return index === -1 ? order.length : index;
  };
  const names = [...blocks.keys()].sort((a, b) => rank(a) - rank(b));
  return `${head}\n${names.map((name) => blocks.get(name)).join('\n\n')}\n`;
}
