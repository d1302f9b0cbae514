// test/bench/README.md's generated part (report.ts): what `npm run bench` writes there, checked on fixed rows,
// and the committed page holds what the bench would read back.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';
import type { BenchRow } from './harness.js';
import { blocksOf, GENERATED_MARKER, type ModuleResult, renderBlock, updatePage } from './report.js';

const ROWS: readonly BenchRow[] = [
  { group: 'prune', subject: 'pruneLedger', subjectMs: 512.4, baseline: 'rmSync', baselineMs: 380, goal: 1.5 },
  {
    group: 'run',
    subject: 'lockguard run -- true',
    subjectMs: 590e6,
    baseline: 'node -e 0',
    baselineMs: 500e6,
    unit: 'instructions',
    goal: 1.3,
    note: 'callgrind',
  },
];
const MACHINE = 'AMD EPYC 7B13, 2 cores, Node v20.20.2 (linux x64)';
const result = (module: string): ModuleResult => ({
  module,
  rows: ROWS,
  at: '2026-12-01T22:10:31.123Z',
  machine: MACHINE,
  samples: 15,
});
const HAND = '# Performance\n\nHand-written text, kept as it is.\n\n';
const ORDER = ['fingerprint', 'run', 'prune'];

test('a block names its module, when and where it was measured, and holds the table', () => {
  assert.equal(
    renderBlock(result('prune')),
    [
      '<!-- bench:prune -->',
      '### prune',
      '',
      `Measured 2026-12-01 22:10 UTC on ${MACHINE}; 15 samples per row, medians.`,
      '',
      '| group | subject | median | baseline | median | ratio | goal | verdict |',
      '|---|---|---:|---|---:|---:|---:|---|',
      '| prune | pruneLedger | 512 ms | rmSync | 380 ms | 1.35× | ≤ 1.5× | ok |',
      '| run | lockguard run -- true [1] | 590 M instr | node -e 0 | 500 M instr | 1.18× | ≤ 1.3× | ok |',
      '',
      '[1] callgrind',
      '<!-- /bench:prune -->',
    ].join('\n'),
  );
  assert.match(renderBlock({ ...result('run'), rows: undefined }), /failed in that run/);
});

test('a full run replaces every block; a subset run only its own, in the bench order; the hand-written part stays', () => {
  const page = `${HAND}${GENERATED_MARKER}\n\n<!-- bench:last-hand-recorded -->\nold table\n<!-- /bench:last-hand-recorded -->\n`;
  {
    // A subset run (prune) keeps the hand-recorded block, after the modules the bench lists.
    const once = updatePage(page, [result('prune')], false, ORDER);
    assert.ok(once.startsWith(`${HAND}${GENERATED_MARKER}\n`));
    assert.deepEqual([...blocksOf(once).keys()], ['prune', 'last-hand-recorded']);
    // Another subset (run) adds its block before prune's and leaves prune's as it was.
    const twice = updatePage(once, [{ ...result('run'), at: '2026-12-02T08:00:00.000Z' }], false, ORDER);
    assert.deepEqual([...blocksOf(twice).keys()], ['run', 'prune', 'last-hand-recorded']);
    assert.equal(blocksOf(twice).get('prune'), blocksOf(once).get('prune'));
    assert.match(blocksOf(twice).get('run') ?? '', /Measured 2026-12-02 08:00 UTC/);
    // Writing the same results again changes nothing.
    assert.equal(updatePage(twice, [{ ...result('run'), at: '2026-12-02T08:00:00.000Z' }], false, ORDER), twice);
  }
  {
    // A full run keeps only what it wrote.
    const full = updatePage(page, [result('fingerprint'), result('prune')], true, ORDER);
    assert.ok(full.startsWith(`${HAND}${GENERATED_MARKER}\n`));
    assert.deepEqual([...blocksOf(full).keys()], ['fingerprint', 'prune']);
    assert.doesNotMatch(full, /old table/);
  }
});

test('a page without the marker is refused, naming the line to put back', () => {
  assert.throws(
    () => updatePage(HAND, [result('prune')], true, ORDER),
    /Expected test\/bench\/README\.md to hold the line/,
  );
});

test('the committed test/bench/README.md has its marker and only blocks the bench writes, each dated', () => {
  const page = readFileSync(join(repoRoot(), 'test', 'bench', 'README.md'), 'utf8');
  assert.ok(page.includes(`\n${GENERATED_MARKER}\n`));
  const blocks = blocksOf(page);
  assert.ok(blocks.size > 0);
  for (const [name, block] of blocks) {
    if (name === 'last-hand-recorded') continue;
    assert.match(block, /^Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC on .+, \d+ cores, Node v\d+/m, name);
  }
  // Rewriting the committed page with nothing new leaves it as it is (its blocks read back whole).
  assert.equal(updatePage(page, [], false, [...blocks.keys()]), page);
});
