// Sound keys' planned edits, without a runner: JSONC edits that keep comments and formatting, which turbo
// tasks and nx targets get `.lockguard-slice` (and which are left alone), globs as nx reads them, refusals.
// The runners' own view of the result (hashes, dry runs, task plans) is test/e2e/sound-keys.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldsPath, globMatches } from '../../../lib/integrations/sound-keys/globs.js';
import { soundKeysEdits, writeEdits } from '../../../lib/integrations/sound-keys/index.js';
import {
  addProperty,
  appendItem,
  applyEdits,
  JsoncError,
  parseJsonc,
  prop,
} from '../../../lib/integrations/sound-keys/jsonc.js';
import { nxEdits } from '../../../lib/integrations/runners/nx/sound-keys.js';
import { turboEdits } from '../../../lib/integrations/runners/turbo/sound-keys.js';
import { codeOf } from '../../helpers/errors.js';
import { tempWorkspace } from '../../helpers/workspace.js';

test('jsonc: comments, trailing commas and strings with comment-like text parse; edits insert in the style around them', () => {
  const text =
    '{\n  // tasks\n  "tasks": {\n    "build": { "inputs": ["src/**", /* c */ "a//b"], },\n    "lint": {\n      "cache": true\n    }\n  },\n}\n';
  const tree = parseJsonc(text);
  const tasks = prop(tree, 'tasks');
  const build = prop(tasks, 'build');
  const inputs = prop(build, 'inputs');
  assert.equal(inputs?.kind, 'array');
  assert.equal(
    inputs?.kind === 'array' ? inputs.items.map((item) => (item.kind === 'string' ? item.value : '')).join() : '',
    'src/**,a//b',
  );
  const lint = prop(tasks, 'lint');
  assert.ok(inputs?.kind === 'array' && lint?.kind === 'object');
  const out = applyEdits(text, [appendItem(text, inputs, '"x"'), addProperty(text, lint, 'inputs', '["y"]')]);
  assert.equal(
    out,
    '{\n  // tasks\n  "tasks": {\n    "build": { "inputs": ["src/**", /* c */ "a//b", "x"], },\n    "lint": {\n      "cache": true,\n      "inputs": ["y"]\n    }\n  },\n}\n',
  );
  // Empty containers.
  const empty = '{ "a": [], "b": {} }';
  const t2 = parseJsonc(empty);
  const a = prop(t2, 'a');
  const b = prop(t2, 'b');
  assert.ok(a?.kind === 'array' && b?.kind === 'object');
  assert.equal(
    applyEdits(empty, [appendItem(empty, a, '"x"'), addProperty(empty, b, 'k', '1')]),
    '{ "a": ["x"], "b": { "k": 1 } }',
  );
});

test('jsonc: broken text is a JsoncError with line and column, never its bytes', () => {
  for (const [text, line] of [
    ['{\n  "tasks": { "build": SECRET-VALUE }\n}', 2],
    ['{ "a": 1 ', 1],
    ['{ "a": 1 } trailing', 1],
    ['/* open', 1],
  ] as const) {
    assert.throws(
      () => parseJsonc(text),
      (error: unknown) => error instanceof JsoncError && error.line === line && !error.message.includes('SECRET'),
    );
  }
});

test('globs as nx reads them: dot files under **, excludes, braces, bare folders', () => {
  assert.equal(globMatches('**/*', '.lockguard-slice'), true);
  assert.equal(globMatches('packages/b/**/*', 'packages/b/.lockguard-slice'), true);
  assert.equal(globMatches('packages/b/src/**', 'packages/b/.lockguard-slice'), false);
  assert.equal(globMatches('packages/b', 'packages/b/.lockguard-slice'), true);
  assert.equal(globMatches('{src,.lockguard-slice}', '.lockguard-slice'), true);
  assert.equal(globMatches('*.ts', '.lockguard-slice'), false);
  assert.equal(foldsPath(['packages/b/**/*', '!packages/b/**/*.spec.ts'], 'packages/b/.lockguard-slice'), true);
  assert.equal(foldsPath(['packages/b/**/*', '!packages/b/.*'], 'packages/b/.lockguard-slice'), false);
  assert.equal(foldsPath([], 'x'), false);
});

test('turbo: a task without inputs gets $TURBO_DEFAULT$ plus the file, one with inputs gets it appended; cache: false and inherited package tasks are left alone; comments stay', (t) => {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}',
    'turbo.json':
      '{\n  // the pipeline\n  "tasks": {\n    "build": { "dependsOn": ["^build"] },\n    "lint": { "inputs": ["src/**"] },\n    "dev": { "cache": false, "persistent": true },\n    "web#e2e": {}\n  }\n}\n',
    packages: {
      web: {
        'package.json': '{"name":"web"}',
        'turbo.json':
          '{ "extends": ["//"], "tasks": { "build": { "inputs": ["app/**"] }, "lint": {}, "only-here": {} } }',
      },
      lib: { 'package.json': '{"name":"lib"}', 'turbo.json': '{ "tasks": { "build": { "inputs": ["x"] } } }' },
      stray: { 'turbo.json': '{ "extends": ["//"], "tasks": { "build": { "inputs": ["x"] } } }' },
    },
  });
  const edits = turboEdits(root);
  assert.deepEqual(
    edits.map((edit) => edit.file),
    ['turbo.json', 'packages/web/turbo.json'],
    'lib has no extends (turbo does not read it as an override), stray is not a package',
  );
  const [rootEdit, web] = edits;
  assert.equal(
    rootEdit?.text,
    '{\n  // the pipeline\n  "tasks": {\n    "build": { "dependsOn": ["^build"], "inputs": ["$TURBO_DEFAULT$", ".lockguard-slice"] },\n    "lint": { "inputs": ["src/**", ".lockguard-slice"] },\n    "dev": { "cache": false, "persistent": true },\n    "web#e2e": { "inputs": ["$TURBO_DEFAULT$", ".lockguard-slice"] }\n  }\n}\n',
  );
  assert.equal(rootEdit?.added.length, 3);
  assert.equal(
    web?.text,
    '{ "extends": ["//"], "tasks": { "build": { "inputs": ["app/**", ".lockguard-slice"] }, "lint": {}, "only-here": { "inputs": ["$TURBO_DEFAULT$", ".lockguard-slice"] } } }',
  );
});

test('nx: .nxignore un-ignores the file; targets whose inputs leave the project root out get it; namedInputs.default too when it leaves it out; covered ones are left alone', (t) => {
  const nxJson = `{
  // named inputs
  "namedInputs": {
    "production": ["default", "!{projectRoot}/**/*.spec.ts"],
    "srcOnly": ["{projectRoot}/src/**/*"]
  },
  "targetDefaults": {
    "build": { "cache": true, "inputs": ["production", "^production"] },
    "lint": { "cache": true, "inputs": ["srcOnly"] },
    "test": { "cache": true, "inputs": [{ "fileset": "{projectRoot}/src/**" }, { "env": "CI" }, { "runtime": "node -v" }] },
    "serve": { "cache": false, "inputs": ["srcOnly"] },
    "e2e": { "cache": true }
  }
}
`;
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true}',
    'nx.json': nxJson,
    '.nxignore': 'dist',
    apps: {
      web: {
        'project.json':
          '{\n  "name": "web",\n  "targets": {\n    "check": {\n      "cache": true,\n      "inputs": [\n        "{workspaceRoot}/tsconfig.json"\n      ]\n    },\n    "build": {}\n  }\n}\n',
      },
    },
  });
  const edits = nxEdits(root);
  assert.deepEqual(
    edits.map((edit) => edit.file),
    ['.nxignore', 'nx.json', 'apps/web/project.json'],
  );
  assert.equal(
    edits[0]?.text,
    "dist\n# lockguard's per-project slice files: gitignored, yet nx must hash them (lockguard init --sound-keys)\n!**/.lockguard-slice\n",
  );
  const after = edits[1]?.text ?? '';
  assert.match(after, /"lint": \{ "cache": true, "inputs": \["srcOnly", "\{projectRoot\}\/\.lockguard-slice"\] \}/);
  assert.match(
    after,
    /"test": \{ "cache": true, "inputs": \[\{ "fileset": "\{projectRoot\}\/src\/\*\*" \}, \{ "env": "CI" \}, \{ "runtime": "node -v" \}, "\{projectRoot\}\/\.lockguard-slice"\] \}/,
    'env and runtime inputs do not serve',
  );
  assert.match(
    after,
    /"build": \{ "cache": true, "inputs": \["production", "\^production"\] \}/,
    'production = default minus specs: already covered',
  );
  assert.match(after, /"serve": \{ "cache": false, "inputs": \["srcOnly"\] \}/, 'cache: false left alone');
  assert.match(after, /\/\/ named inputs/, 'comments stay');
  assert.equal(
    edits[2]?.text,
    '{\n  "name": "web",\n  "targets": {\n    "check": {\n      "cache": true,\n      "inputs": [\n        "{workspaceRoot}/tsconfig.json",\n        "{projectRoot}/.lockguard-slice"\n      ]\n    },\n    "build": {}\n  }\n}\n',
  );
  {
    // A default that leaves the project root out gets the file (every target without inputs uses it).
    const narrow = tempWorkspace(t, {
      'package.json': '{"name":"root"}',
      'nx.json': '{ "namedInputs": { "default": ["{projectRoot}/src/**"] } }',
      '.nxignore': '!**/.lockguard-slice\n',
    });
    assert.deepEqual(
      nxEdits(narrow).map((edit) => edit.text),
      ['{ "namedInputs": { "default": ["{projectRoot}/src/**", "{projectRoot}/.lockguard-slice"] } }'],
    );
  }
});

test('a second plan after writing is empty; a turbo.json or project.json that is not JSONC refuses with its path, before anything is planned', async (t) => {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'turbo.json': '{ "tasks": { "build": {} } }',
    'nx.json': '{}',
    '.gitignore': 'node_modules\n',
  });
  const first = soundKeysEdits(root);
  assert.deepEqual(
    first.map((edit) => edit.file),
    ['turbo.json', '.nxignore', '.gitignore'],
  );
  writeEdits(root, first);
  assert.deepEqual(soundKeysEdits(root), [], 'idempotent: nothing left to add');
  const broken = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'turbo.json': '{ "tasks": { "build": { TOKEN=abc } } }',
  });
  assert.equal(await codeOf(() => soundKeysEdits(broken)), 'ERR_LOCKGUARD_BAD_CONFIG');
  try {
    soundKeysEdits(broken);
  } catch (error) {
    assert.equal((error as { path?: string }).path, `${broken}/turbo.json`);
    assert.doesNotMatch(String((error as Error).message), /TOKEN/);
  }
  const badProject = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'nx.json': '{}',
    libs: { x: { 'project.json': '{ "targets": ' } },
  });
  assert.equal(await codeOf(() => soundKeysEdits(badProject)), 'ERR_LOCKGUARD_BAD_CONFIG');
});
