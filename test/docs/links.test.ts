// The READMEs a user and a contributor read: every relative link resolves (file and anchor), the top-level
// README stays short with a contents list, and it keeps the repository's two commands `.ci/run` runs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';
import { anchorsOf, brokenLinks, linksOf, markdownPages, slugOf } from '../helpers/markdown-links.js';
import { tempWorkspace } from '../helpers/workspace.js';

test('every relative link in the READMEs points at an existing file and anchor', () => {
  const root = repoRoot();
  const pages = markdownPages(root);
  // The README and the folder pages it links to are all found (a walk that found none would pass vacuously).
  for (const page of [
    'README.md',
    'lib/README.md',
    'lib/cli/README.md',
    'lib/ledger/README.md',
    'test/bench/README.md',
  ])
    assert.ok(pages.includes(page), page);
  assert.ok(linksOf(readFileSync(join(root, 'README.md'), 'utf8')).length >= 20, 'the README links its detail pages');
  assert.deepEqual(brokenLinks(root, pages), []);
});

test('a missing file, a missing anchor and a link out of the repository are reported; code is no link', (t) => {
  const root = tempWorkspace(t, {
    'README.md': [
      '# Top',
      "## `lockguard run`'s options",
      '[ok](lib/README.md#the-ledger) [ok](#lockguard-runs-options) [ok](lib/) [ok](https://example.com/x)',
      '[gone](lib/missing.md) [no anchor](lib/README.md#nowhere) [out](../elsewhere.md)',
      'inline `[not a link](nowhere.md)`',
      '```',
      '[not a link either](nowhere.md)',
      '```',
    ].join('\n'),
    'lib/README.md': '# Lib\n\n## The ledger\n\n<a id="explicit"></a>[ok](../README.md#top) [ok](#explicit)\n',
  });
  assert.deepEqual(brokenLinks(root, markdownPages(root)), [
    'README.md: lib/missing.md (no such file)',
    'README.md: lib/README.md#nowhere (no heading or <a id> "nowhere" there)',
    'README.md: ../elsewhere.md (leaves the repository)',
  ]);
});

test("headings get GitHub's slugs, repeated ones numbered", () => {
  assert.equal(slugOf('CI recipe (GitHub Actions)'), 'ci-recipe-github-actions');
  assert.equal(slugOf('`lockguard status` and `lockguard doctor`'), 'lockguard-status-and-lockguard-doctor');
  assert.equal(
    slugOf('Crash safety: kill, signals, full disks, a hostile ledger'),
    'crash-safety-kill-signals-full-disks-a-hostile-ledger',
  );
  assert.deepEqual([...anchorsOf('# A\n## Notes\n## Notes\n')], ['a', 'notes', 'notes-1']);
});

test('the README stays short, with a contents list, and keeps the commands .ci/run runs', () => {
  const root = repoRoot();
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 300, `README.md has ${readme.split('\n').length} lines (at most 300)`);
  assert.match(readme, /^## Contents$/m);
  // The quick start's two commands, exactly as .ci/run runs them.
  assert.match(readme, /^```sh\nnpm ci && npm run demo\nnpm test\n```$/m);
  const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
  assert.match(ci, /^npm test$/m);
  assert.match(ci, /^npm run demo /m);
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  assert.ok(scripts['demo'] !== undefined && scripts['test'] !== undefined);
});
