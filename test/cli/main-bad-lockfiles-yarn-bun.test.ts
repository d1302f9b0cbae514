// yarn berry, yarn v1 and bun lockfiles their own tool refuses, through `main` (in process), as
// main-bad-lockfiles.test.ts does for pnpm and npm: `key --projects` exits 2 naming the path, the reason with
// its line, and the fix for that package manager; the planted secret on the broken line is never printed;
// `key` (the whole-table key, bytes only) still works.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { fixturesDir } from '../helpers/fixtures.js';
import { SECRET } from '../helpers/planted-lockfiles.js';
import { tempWorkspace } from '../helpers/workspace.js';

const CASES = [
  {
    name: 'yarn berry, a dependency line indented 3 spaces',
    lockfile: 'yarn.lock',
    fix: 'let yarn rewrite it (yarn install)',
    text: readFileSync(join(fixturesDir(), 'yarn-berry-workspace', 'yarn.lock'), 'utf8').replace(
      '    a: "workspace:*"',
      `   a: "workspace:${SECRET}"`,
    ),
  },
  {
    name: 'yarn v1, a tab for indentation',
    lockfile: 'yarn.lock',
    fix: 'let yarn rewrite it (yarn install)',
    text: readFileSync(join(fixturesDir(), 'yarn-v1-workspace', 'yarn.lock'), 'utf8').replace(
      '  uid "',
      `\tuid "${SECRET}`,
    ),
  },
  {
    name: 'bun.lock, a word inside a package',
    lockfile: 'bun.lock',
    fix: 'let bun rewrite it (bun install)',
    text: readFileSync(join(fixturesDir(), 'bun-workspace', 'bun.lock'), 'utf8').replace(
      '"sha512-w06h52Xa9ma',
      `${SECRET}, "sha512-w06h52Xa9ma`,
    ),
  },
] as const;

for (const entry of CASES) {
  test(`${entry.name}: key --projects exits 2 with the path, the line and the fix, never the bytes`, async (t) => {
    const root = tempWorkspace(t, {
      'package.json': '{"name":"root","private":true,"workspaces":["packages/*"]}\n',
      [entry.lockfile]: entry.text,
    });
    const refused = await cli(['key', '--projects'], root);
    assert.equal(refused.code, 2, refused.stderr);
    assert.ok(refused.stderr.includes(join(root, entry.lockfile)), refused.stderr);
    assert.match(refused.stderr, /is broken: .*\(line \d+, column \d+\)/);
    assert.ok(refused.stderr.includes(entry.fix), refused.stderr);
    assert.doesNotMatch(refused.stderr, /^\s+at /m, 'no stack trace');
    for (const result of [refused, await cli(['key', '--projects', '--json'], root)]) {
      for (let i = 0; i + 6 <= SECRET.length; i++)
        assert.ok(!`${result.stdout}${result.stderr}`.includes(SECRET.slice(i, i + 6)), 'no lockfile bytes printed');
    }
    // The whole-table key folds bytes, not slices: it still answers.
    const key = await cli(['key'], root);
    assert.equal(key.code, 0, key.stderr);
  });
}
