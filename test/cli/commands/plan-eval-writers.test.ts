// `lockguard plan` finds writers inside `node -e '<code>'` (an install in the code's string literals), says
// the writers are unknown where the code starts processes it cannot read, and never says "writers: none" of
// such a script (issue 28). `sh -c`/`bash -c` strings are walked as before.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

/** A pnpm -r workspace: a's build is `script`, b depends on a. */
function workspace(t: Parameters<typeof tempWorkspace>[0], script: string): string {
  return tempWorkspace(t, {
    ...pnpmTree(),
    'package.json': JSON.stringify({
      name: 'root',
      packageManager: 'pnpm@10.34.8',
      scripts: { build: 'pnpm -r run build' },
    }),
    packages: {
      a: { 'package.json': JSON.stringify({ name: 'a', scripts: { build: script } }) },
      b: {
        'package.json': JSON.stringify({ name: 'b', dependencies: { a: 'workspace:*' }, scripts: { build: 'tsc' } }),
      },
    },
  });
}

async function plan(root: string): Promise<{ code: number; text: string }> {
  const result = await cli(['plan', '--', 'pnpm', 'run', 'build'], root);
  return { code: result.code, text: result.stdout };
}

const CASES: ReadonlyArray<readonly [string, string, RegExp]> = [
  [
    'execSync with the whole command line',
    `node -e "require('child_process').execSync('pnpm --filter b add is-number@7.0.0', { stdio: 'inherit' })"`,
    /a#build +runs node -e: pnpm add/,
  ],
  [
    'execFileSync with the words as an array',
    `node -e "require('child_process').execFileSync('pnpm', ['--filter', 'b', 'add', 'is-number@7.0.0'])"`,
    /a#build +runs node -e: pnpm add/,
  ],
  ['bash -c', `bash -c 'cd .. && pnpm --filter b add is-number@7.0.0'`, /a#build +runs .*pnpm add/],
  [
    'code that starts a process it cannot read',
    `node -e "const cp = require('child_process'); const tool = process.env.TOOL; cp.execSync(tool)"`,
    /a#build +runs node -e code that starts other processes: which of them install cannot be read \(writers unknown\)/,
  ],
];

for (const [what, script, line] of CASES) {
  test(`a build script with an install inside ${what}: a writer, b's key unstable, never "writers: none"`, async (t) => {
    const result = await plan(workspace(t, script));
    assert.equal(result.code, 1, result.text);
    assert.doesNotMatch(result.text, /writers: none/);
    assert.match(result.text, line);
    assert.match(result.text, /unstable:\n {2}b#build/);
  });
}

test('node -e code that only writes a file is no writer', async (t) => {
  const result = await plan(
    workspace(t, `node -e "require('fs').writeFileSync('dist.txt', 'pnpm add is not run here')"`),
  );
  assert.equal(result.code, 0, result.text);
  assert.match(result.text, /writers: none/);
});
