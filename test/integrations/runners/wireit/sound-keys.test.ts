// Sound keys for wireit: init's edits to each wireit package's package.json (`files` gains .lockguard-slice,
// every other byte kept, a second plan empty, both modes alike), doctor's finding naming a cached script whose
// `files` leave the file out, and the install hooks' question (does wireit fold the files here).

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runnersFoldingSlices } from '../../../../lib/integrations/slice-files/folded-by.js';
import { soundKeysEdits, soundKeysProof, writeEdits } from '../../../../lib/integrations/sound-keys/index.js';
import { wireitEdits, wireitProof } from '../../../../lib/integrations/runners/wireit/sound-keys.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const A = `{
  "name": "a",
  // wireit accepts JSON only; lockguard's reader keeps whatever it finds
  "scripts": { "build": "wireit", "lint": "wireit" },
  "wireit": {
    "build": {
      "command": "tsc",
      "files": ["src/**",   "tsconfig.json"],
      "output": ["lib/**"]
    },
    "lint": { "command": "eslint .", "files": ["src/**"] },
    "all": { "dependencies": ["build"] }
  }
}
`.replace("  // wireit accepts JSON only; lockguard's reader keeps whatever it finds\n", '');
const B = JSON.stringify(
  { name: 'b', wireit: { build: { command: 'tsc', files: ['**/*', '!lib/**'], output: ['lib/**'] } } },
  null,
  2,
);

function workspace(t: Parameters<typeof tempWorkspace>[0]): string {
  const root = tempWorkspace(t, {
    'package.json': JSON.stringify({ name: 'root', private: true }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    packages: { a: { 'package.json': A }, b: { 'package.json': B }, c: { 'package.json': '{"name":"c"}' } },
  });
  mkdirSync(join(root, 'node_modules', 'wireit'), { recursive: true });
  return root;
}

test("init's edits: each cached script's files gain the slice file, every other byte kept; once only; both modes", (t) => {
  const root = workspace(t);
  const edits = wireitEdits(root);
  assert.deepEqual(
    edits.map((edit) => [edit.file, edit.added]),
    [['packages/a/package.json', ['wireit.build.files: + ".lockguard-slice"']]],
    'lint has no output (never cached), all has no command, b already takes the file in through **/*',
  );
  assert.equal(
    edits[0]?.text,
    A.replace('"files": ["src/**",   "tsconfig.json"]', '"files": ["src/**",   "tsconfig.json", ".lockguard-slice"]'),
  );
  const all = soundKeysEdits(root, 'committed');
  assert.ok(
    all.some((edit) => edit.file === 'packages/a/package.json'),
    'committed mode needs the entry too',
  );
  writeEdits(root, soundKeysEdits(root, 'ignored'));
  assert.deepEqual(wireitEdits(root), [], 'a second init plans nothing');
});

test('doctor: names a cached script whose files leave the slice file out; ok once every one folds it', async (t) => {
  const root = workspace(t);
  const before = wireitProof(root, undefined);
  assert.equal(before?.runner, 'wireit');
  assert.equal(before?.level, 'fail', 'b folds it, a does not: a hole');
  assert.match(
    before?.detail ?? '',
    /1 of 2 cached wireit scripts do not fold their project's \.lockguard-slice.*packages\/a:build/,
  );
  assert.equal(before?.fix, 'lockguard init --sound-keys');
  writeEdits(root, wireitEdits(root));
  for (const dir of ['a', 'b']) writeFileSync(join(root, 'packages', dir, '.lockguard-slice'), 'x\n');
  const after = (await soundKeysProof(root, {})).find((check) => check.runner === 'wireit');
  assert.equal(after?.level, 'ok');
  assert.match(after?.detail ?? '', /all 2 cached wireit scripts fold .*each script's own files say so/);
});

test('the install hooks ask: wireit folds the files once a cached script names them, where wireit is installed', (t) => {
  const root = workspace(t);
  assert.deepEqual(runnersFoldingSlices(root), [], "b's **/* is no naming: nothing adopted before init");
  writeEdits(root, wireitEdits(root));
  assert.deepEqual(runnersFoldingSlices(root), ['wireit']);
  assert.deepEqual(runnersFoldingSlices(root, ['turbo']), [], 'only the runners asked about');
});
