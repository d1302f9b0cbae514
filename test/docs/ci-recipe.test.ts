// The GitHub Actions recipe (examples/github-actions/workflow.yml, copied in part into the README) as a
// team copies it: pnpm/action-setup takes pnpm from the `packageManager` pin (a `version:` next to a pin is
// the "Multiple versions of pnpm specified" error it stops on), and no step output is spliced into a
// `run:` script with `${{ }}` (a path is input a pull request controls: it goes through `env:`).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';

const WORKFLOW = readFileSync(join(repoRoot(), 'examples', 'github-actions', 'workflow.yml'), 'utf8');
const README = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
const RECIPE_README = readFileSync(join(repoRoot(), 'examples', 'github-actions', 'README.md'), 'utf8');

/** The steps of a workflow's text: each `- ` item at the steps' indent, as its lines. */
function steps(text: string): string[][] {
  const out: string[][] = [];
  for (const line of text.split('\n')) {
    if (/^ {6}- /.test(line)) out.push([line]);
    else if (out.length > 0 && /^ {8}/.test(line)) out.at(-1)?.push(line);
  }
  return out;
}

/** The lines of a step's `run:` script (one line, or the block under `run: |`). */
function runLines(step: readonly string[]): string[] {
  const at = step.findIndex((line) => /^ {6}(- | {2})run:/.test(line));
  if (at === -1) return [];
  const head = step[at] as string;
  if (!/run: [|>]/.test(head)) return [head];
  const body: string[] = [];
  for (const line of step.slice(at + 1)) {
    if (!/^ {10}/.test(line)) break;
    body.push(line);
  }
  return body;
}

test('pnpm/action-setup is given no version: the packageManager pin decides', () => {
  const setup = steps(WORKFLOW).filter((step) => step.some((line) => line.includes('pnpm/action-setup')));
  assert.equal(setup.length, 1);
  assert.equal(
    setup[0]?.some((line) => /^\s+version:/.test(line)),
    false,
  );
  assert.match(WORKFLOW, /reads the `packageManager` pin/);
});

test('no run: script splices a ${{ }} expression; the gates are the action pair', () => {
  const all = steps(WORKFLOW);
  assert.ok(all.length > 5, 'the steps were read');
  for (const step of all) {
    for (const line of runLines(step))
      assert.doesNotMatch(line, /\$\{\{/, `a run: script holds an expression: ${line.trim()}`);
  }
  // Inputs reach the action through `with:`, where a ${{ }} is data, not shell code.
  assert.ok(all.some((step) => step.includes('        uses: lockguard/lockguard/lib/ci/save@<sha>')));
  // The recipe README's shape of it names the same pair, one per cache.
  assert.match(RECIPE_README, /lockguard\/lockguard\/lib\/ci\/save@<sha> {6}# verify --name turbo/);
  // The recipe README's shape of it says the same; the README installs lockguard at a pnpm workspace root with -w.
  assert.match(README, /pnpm add -D -w lockguard/);
  assert.doesNotMatch(README, /pnpm add -D lockguard\b/);
});
