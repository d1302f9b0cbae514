// Sound keys' committed mode (`init --sound-keys=committed`), without a runner: the JSONC removals, what
// committed mode takes back from turbo.json / .nxignore / .gitignore (exactly what ignored mode added),
// switching modes both ways, idempotence, and the mode a clone is read to be in.
// The runners' view (hashes, dry runs) and doctor are test/e2e/sound-keys.test.ts.

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { soundKeysEdits, soundKeysMode, writeEdits } from '../../../lib/integrations/sound-keys/index.js';
import {
  applyEdits,
  parseJsonc,
  prop,
  removeItem,
  removeProperty,
} from '../../../lib/integrations/sound-keys/jsonc.js';
import { nxEdits } from '../../../lib/integrations/runners/nx/sound-keys.js';
import { turboEdits } from '../../../lib/integrations/runners/turbo/sound-keys.js';
import { tempWorkspace } from '../../helpers/workspace.js';

test('jsonc: removeItem / removeProperty take out the first, a middle, the last or the only child with its separator; comments elsewhere stay', () => {
  const items = (text: string, index: number) => {
    const tree = parseJsonc(text);
    const array = prop(tree, 'a');
    assert.ok(array?.kind === 'array');
    return applyEdits(text, [removeItem(array, index)]);
  };
  assert.equal(items('{ "a": ["x", "y", "z"] }', 0), '{ "a": ["y", "z"] }');
  assert.equal(items('{ "a": ["x", "y", "z"] }', 1), '{ "a": ["x", "z"] }');
  assert.equal(items('{ "a": ["x", "y", "z"] }', 2), '{ "a": ["x", "y"] }');
  assert.equal(items('{ "a": ["x"] }', 0), '{ "a": [] }');
  assert.equal(
    items('{\n  // keep\n  "a": [\n    "x",\n    "y"\n  ]\n}', 1),
    '{\n  // keep\n  "a": [\n    "x"\n  ]\n}',
  );
  const props = (text: string, index: number) => {
    const tree = parseJsonc(text);
    assert.ok(tree.kind === 'object');
    return applyEdits(text, [removeProperty(tree, index)]);
  };
  assert.equal(props('{ "a": 1, "b": [2], "c": {} }', 1), '{ "a": 1, "c": {} }');
  assert.equal(props('{ "a": 1, "b": [2] }', 0), '{ "b": [2] }');
  assert.equal(props('{ "a": 1, "b": [2] }', 1), '{ "a": 1 }');
  assert.equal(props('{ "b": [2] }', 0), '{}');
});

const TURBO =
  '{\n  // the pipeline\n  "tasks": {\n    "build": { "dependsOn": ["^build"] },\n    "lint": { "inputs": ["$TURBO_DEFAULT$", "!**/*.md"] },\n    "check": { "inputs": ["src/**"] },\n    "dev": { "cache": false, "persistent": true },\n    "web#e2e": {}\n  }\n}\n';
const WEB_TURBO =
  '{ "extends": ["//"], "tasks": { "build": { "inputs": ["$TURBO_DEFAULT$"] }, "only-here": {}, "check": { "inputs": ["app/**"] } } }';

function turboWorkspace(t: Parameters<typeof tempWorkspace>[0]): string {
  return tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}',
    'turbo.json': TURBO,
    '.gitignore': 'node_modules\n# mine\ndist\n',
    packages: { web: { 'package.json': '{"name":"web"}', 'turbo.json': WEB_TURBO } },
  });
}

const read = (root: string, file: string) => readFileSync(join(root, file), 'utf8');

test('turbo: committed mode takes back exactly what ignored mode added where the inputs are the default (the pair init wrote: the whole key; an appended entry: that element), keeps it where they leave $TURBO_DEFAULT$ out; idempotent; switching back restores ignored mode', (t) => {
  const root = turboWorkspace(t);
  writeEdits(root, soundKeysEdits(root, 'ignored'));
  const ignoredRoot = read(root, 'turbo.json');
  const ignoredWeb = read(root, 'packages/web/turbo.json');
  const ignoredGitignore = read(root, '.gitignore');
  assert.match(
    ignoredRoot,
    /"build": \{ "dependsOn": \["\^build"\], "inputs": \["\$TURBO_DEFAULT\$", "\.lockguard-slice"\] \}/,
  );
  assert.match(ignoredGitignore, /^\.lockguard-slice$/m);
  const committed = soundKeysEdits(root, 'committed');
  assert.deepEqual(
    committed.map((edit) => edit.file),
    ['turbo.json', 'packages/web/turbo.json', '.gitignore'],
  );
  writeEdits(root, committed);
  // What ignored mode added where turbo's default inputs are in play is gone again, byte for byte; check
  // (inputs without $TURBO_DEFAULT$) keeps the file: a committed file there is not hashed otherwise.
  assert.equal(
    read(root, 'turbo.json'),
    TURBO.replace('"inputs": ["src/**"]', '"inputs": ["src/**", ".lockguard-slice"]'),
  );
  // The package's build had ["$TURBO_DEFAULT$"] of its own (the root defines build): only the element goes,
  // its own inputs stay (removing the key would inherit the root's); only-here's pair goes whole.
  assert.equal(
    read(root, 'packages/web/turbo.json'),
    WEB_TURBO.replace('"inputs": ["app/**"]', '"inputs": ["app/**", ".lockguard-slice"]'),
  );
  assert.equal(
    read(root, '.gitignore'),
    'node_modules\n# mine\ndist\n',
    "lockguard's line and its comment go; the user's stay",
  );
  assert.deepEqual(soundKeysEdits(root, 'committed'), [], 'idempotent');
  assert.deepEqual(turboEdits(root, 'committed'), []);
  // And back: ignored mode adds it all again.
  writeEdits(root, soundKeysEdits(root, 'ignored'));
  assert.equal(read(root, 'turbo.json'), ignoredRoot);
  assert.equal(read(root, 'packages/web/turbo.json'), ignoredWeb);
  assert.equal(read(root, '.gitignore'), ignoredGitignore);
  assert.deepEqual(soundKeysEdits(root, 'ignored'), []);
});

test('turbo: committed mode on a workspace never set up adds the file only to tasks whose inputs leave $TURBO_DEFAULT$ out', (t) => {
  const root = turboWorkspace(t);
  const edits = turboEdits(root, 'committed');
  assert.deepEqual(
    edits.map((edit) => [edit.file, edit.added]),
    [
      ['turbo.json', ['tasks.check.inputs + ".lockguard-slice"']],
      ['packages/web/turbo.json', ['tasks.check.inputs + ".lockguard-slice"']],
    ],
  );
});

test("nx: committed mode takes .nxignore's line (and its comment) back, still adds the file to targets whose inputs leave the project root out; switching back re-adds the line", (t) => {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}',
    'nx.json': '{ "targetDefaults": { "lint": { "cache": true, "inputs": ["{projectRoot}/src/**"] } } }',
    '.nxignore': 'dist\n',
  });
  writeEdits(root, nxEdits(root, 'ignored'));
  assert.match(read(root, '.nxignore'), /^!\*\*\/\.lockguard-slice$/m);
  const nxJson = read(root, 'nx.json');
  assert.match(nxJson, /"\{projectRoot\}\/\.lockguard-slice"/);
  const committed = nxEdits(root, 'committed');
  assert.deepEqual(
    committed.map((edit) => [edit.file, edit.text]),
    [['.nxignore', 'dist\n']],
    'the target keeps its entry: its inputs leave the project root out in either mode',
  );
  writeEdits(root, committed);
  assert.deepEqual(nxEdits(root, 'committed'), []);
  rmSync(join(root, 'nx.json'));
  writeFileSync(
    join(root, 'nx.json'),
    '{ "targetDefaults": { "lint": { "cache": true, "inputs": ["{projectRoot}/src/**"] } } }',
  );
  assert.deepEqual(
    nxEdits(root, 'committed').map((edit) => edit.file),
    ['nx.json'],
    'a fresh committed setup adds the target entry too',
  );
  writeEdits(root, nxEdits(root, 'ignored'));
  assert.match(read(root, '.nxignore'), /^!\*\*\/\.lockguard-slice$/m);
});

test('soundKeysMode: ignored where .gitignore ignores the files, committed where it does not and the root project has its file, else none', (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"root"}', '.gitignore': 'node_modules\n' });
  assert.equal(soundKeysMode(root), undefined);
  writeFileSync(join(root, '.lockguard-slice'), 'lockguard-slice/1\n');
  assert.equal(soundKeysMode(root), 'committed');
  writeFileSync(join(root, '.gitignore'), 'node_modules\n**/.lockguard-slice\n');
  assert.equal(soundKeysMode(root), 'ignored');
});
