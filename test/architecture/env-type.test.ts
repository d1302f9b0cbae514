// One name for the environment a function reads: `Env` from lib/core/env.ts (issue 22: it was declared 10
// times, then spelled inline in ~20 files). This test fails when lib/ spells it inline again anywhere but
// core/env.ts, or declares a type of its own named Env.
// Reads the TypeScript sources (the repo's lib/), never the build output. Comments count too: a comment that
// spells the type out is rare and cheap to reword.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('../../../lib/', import.meta.url));
const HOME = 'core/env.ts';

/** `Readonly<Record<string, string | undefined>>` however it is spaced or wrapped, either union order. */
export const INLINE_ENV =
  /Readonly\s*<\s*Record\s*<\s*string\s*,\s*(?:string\s*\|\s*undefined|undefined\s*\|\s*string)\s*>\s*>/g;
const OWN_ENV = /\b(?:type|interface)\s+Env\b/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

test('lib/ names the environment type Env from core/env.ts, never inline, never its own', () => {
  const found = new Map<string, number>();
  const own: string[] = [];
  let seen = 0;
  for (const path of sources(LIB)) {
    const name = relative(LIB, path).split('\\').join('/');
    const text = readFileSync(path, 'utf8');
    seen++;
    if (name === HOME) continue;
    const count = text.match(INLINE_ENV)?.length ?? 0;
    if (count > 0) found.set(name, count);
    if (OWN_ENV.test(text)) own.push(`${name}: declares its own Env: import the one from lib/${HOME}`);
  }
  assert.ok(seen > 100, `the walk saw the sources (${seen})`);
  const inline = [...found].map(
    ([name, count]) => `${name}: spells the env type inline ${count} time(s): use Env from lib/${HOME}`,
  );
  assert.deepEqual([...inline, ...own], []);
});

test('the inline pattern finds the spellings a formatter or a hand could write, and not Env itself', () => {
  const text = [
    'a: Readonly<Record<string, string | undefined>>,',
    'b: Readonly<Record<string, undefined | string>>,',
    'c: Readonly<',
    '  Record<string, string | undefined>',
    '>,',
    'd: Env,',
    'e: Record<string, string | undefined>,',
    'f: Readonly<Record<string, string>>,',
  ].join('\n');
  assert.equal(text.match(INLINE_ENV)?.length, 3);
  assert.equal(readFileSync(join(LIB, HOME), 'utf8').match(INLINE_ENV)?.length, 1, 'core/env.ts holds the one');
});
