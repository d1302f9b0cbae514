// The README a newcomer reads: every word of its glossary ("## Words") is defined before it is used (or its
// first use links to the definition), its sentences are short, and the pages a user reads cite no tracker
// issues they cannot open.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';
import { linksOf } from '../helpers/markdown-links.js';
import { firstUse, sentenceStats } from '../helpers/prose.js';

const README = readFileSync(join(repoRoot(), 'README.md'), 'utf8');

/** Forms of a glossary word the `s`/`ed` endings do not give. */
const IRREGULAR: Readonly<Record<string, readonly string[]>> = { withhold: ['withheld'] };

/** The glossary's words, in order: the bold word opening each item of the "## Words" section. */
function glossaryOf(page: string): { words: string[]; start: number } {
  const start = page.indexOf('\n## Words\n');
  assert.ok(start !== -1, 'README.md has a "## Words" section');
  const end = page.indexOf('\n## ', start + 1);
  const words = [...page.slice(start, end).matchAll(/^- \*\*([^*]+)\*\*:/gm)].map((match) => match[1] ?? '');
  return { words, start };
}

/** The glossary words a page uses before it defines them and without linking the definition. */
function usedBeforeDefined(page: string): string[] {
  const { words, start } = glossaryOf(page);
  return words.filter((word) => {
    const forms = [word, ...(IRREGULAR[word] ?? [])];
    const use = firstUse(page, forms, '#words');
    if (use === undefined || use.at > start || use.linked) return false;
    // A link to the word's own section (`[Sound keys](#sound-keys)`) defines it too.
    return firstUse(page, forms, `#${word.replaceAll(' ', '-')}`)?.linked !== true;
  });
}

test("the README's glossary holds the words it depends on, each defined before its first use or linked there", () => {
  const { words } = glossaryOf(README);
  for (const word of ['cache key', 'fold', 'table', 'move', 'withhold', 'quarantine', 'ledger', 'slice', 'reach'])
    assert.ok(words.includes(word), `the glossary defines "${word}"`);
  assert.deepEqual(usedBeforeDefined(README), []);
});

test('a glossary word used before the glossary without a link is found; a linked one is not', () => {
  const page = [
    '# x',
    'Runners fold the lockfile. Each output has a [cache key](#words).',
    '## Words',
    '- **cache key**: the hash.',
    '- **fold**: into the hash.',
    '- **withhold**: take out.',
    '## Later',
    'Entries are withheld.',
  ].join('\n');
  assert.deepEqual(usedBeforeDefined(page), ['fold']);
  assert.deepEqual(usedBeforeDefined(page.replace('Entries are withheld.', '')), ['fold']);
  assert.deepEqual(usedBeforeDefined(page.replace('Runners fold', 'Runners [fold](#words)')), []);
  assert.deepEqual(usedBeforeDefined(`Saves were withheld.\n${page}`), ['fold', 'withhold']);
});

test("the README's sentences are short: median at most 15 words, almost none over 40, few parentheses", () => {
  const stats = sentenceStats(README);
  assert.ok(stats.count >= 50, `the README's prose was read (${stats.count} sentences)`);
  assert.ok(stats.median <= 15, `median sentence ${stats.median} words`);
  assert.ok(stats.over40 <= 0.05, `${Math.round(stats.over40 * 100)}% of sentences over 40 words`);
  assert.ok(stats.parensPer100 <= 2, `${stats.parensPer100.toFixed(1)} parentheses per 100 words`);
});

test('sentence statistics: code, tables and headings are no prose; a long sentence counts as one', () => {
  const long = `This sentence ${'goes on '.repeat(25)}and ends.`;
  const stats = sentenceStats(
    [
      '# A heading that is long enough to matter here',
      'One two three. Four (five) six.',
      '',
      long,
      '```',
      'a. b. c. d.',
      '```',
      '| x | y |',
    ].join('\n'),
  );
  assert.deepEqual(
    { ...stats, parensPer100: Math.round(stats.parensPer100) },
    {
      count: 3,
      median: 3,
      over40: 1 / 3,
      parensPer100: 2,
    },
  );
});

test('the pages a user reads cite no tracker issue ("issue 29"): they say what the issue found instead', () => {
  const pages = [
    'README.md',
    ...linksOf(README)
      .filter((link) => /^[^#:]+\.md(#|$)/.test(link))
      .map((link) => link.split('#')[0] ?? ''),
  ];
  assert.ok(pages.length >= 10, 'the README links its detail pages');
  for (const page of new Set(pages)) {
    const text = readFileSync(join(repoRoot(), page), 'utf8');
    assert.doesNotMatch(text, /\bissues? #?\d+/i, `${page} cites a tracker issue`);
  }
});
