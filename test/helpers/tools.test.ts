// The test rig's tools load where a tool is missing: importing tools.ts (or yarn-bun.ts, which builds its
// flavors from it) resolves no binary; bun is looked for when a test first spawns it, and a missing bun is
// that test's error, naming where it looked.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUN } from './tools.js';
import { tempWorkspace } from './workspace.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

test('the helpers load in a checkout with no bun; BUN.command then names where it looked', (t) => {
  // A checkout with no node_modules: the helpers as built (yarn-bun.ts and what it imports), at the same depth
  // below it (dist/test/helpers).
  const root = tempWorkspace(t, {}, 'lockguard-no-bun-');
  const helpers = join(root, 'dist', 'test', 'helpers');
  mkdirSync(helpers, { recursive: true });
  for (const file of ['tools.js', 'yarn-bun.js', 'workspace.js', 'env.js'])
    copyFileSync(join(HERE, file), join(helpers, file));
  const script = `
    const { FLAVORS } = await import(${JSON.stringify(join(helpers, 'yarn-bun.js'))});
    const yarn = FLAVORS.find((f) => f.flavor === 'yarn-pnp');
    console.log(JSON.stringify({ flavors: FLAVORS.map((f) => f.flavor), yarn: yarn.argv(['install'])[0] }));
    const bun = FLAVORS.find((f) => f.flavor === 'bun');
    try { bun.argv(['install']); console.log('resolved'); } catch (error) { console.log(error.message); }`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const [first, second] = child.stdout.trim().split('\n');
  assert.deepEqual(JSON.parse(first as string), {
    flavors: ['yarn-pnp', 'yarn-nm', 'yarn1', 'bun'],
    yarn: process.execPath,
  });
  assert.match(
    second as string,
    /^no bun binary in node_modules \(looked at .*node_modules\/bun\/bin\/bun\.exe.*\): run npm ci$/,
  );
});

test('in this checkout BUN.command is the pinned bun binary, found once', () => {
  const first = BUN.command;
  assert.ok(statSync(first).size > 1_000_000, first);
  assert.equal(BUN.command, first);
});
