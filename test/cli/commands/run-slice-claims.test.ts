// `lockguard run` says "turbo will rebuild" (or nx) only where the runner's parsed configuration names the
// slice file as a task input: a turbo.json or nx.json that mentions `.lockguard-slice` only in a comment (or
// outside any inputs) is no claim, and no slice files are adopted there (issue 28: no claim from a substring).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../../helpers/cli.js';
import { pnpmProjects, tempWorkspace } from '../../helpers/workspace.js';

const LOCK = `lockfileVersion: '9.0'

importers:

  .: {}

  packages/a: {}

  packages/b: {}
`;

function runOnce(files: Record<string, string>, t: Parameters<typeof tempWorkspace>[0]) {
  const root = tempWorkspace(t, { ...pnpmProjects(LOCK, { a: 'a', b: 'b' }), ...files });
  const result = cliProcess(['run', '--no-pre-check', '--', 'true'], root);
  assert.equal(result.code, 0, result.stderr);
  return { root, stderr: result.stderr };
}

const COMMENTED_TURBO = `{
  // lockguard: add ".lockguard-slice" to the inputs below one day
  /* "inputs": [".lockguard-slice"] */
  "tasks": { "build": { "outputs": ["dist/**"] } }
}
`;

test('a turbo.json naming .lockguard-slice only in comments: no "turbo will rebuild", no slice files', (t) => {
  const { root, stderr } = runOnce({ 'turbo.json': COMMENTED_TURBO }, t);
  assert.doesNotMatch(stderr, /will rebuild/);
  assert.equal(stderr, '');
  assert.equal(existsSync(join(root, 'packages', 'a', '.lockguard-slice')), false);
});

test('a turbo.json naming it outside any task inputs (an outputs glob): no claim either', (t) => {
  const { stderr } = runOnce({ 'turbo.json': '{"tasks":{"build":{"outputs":[".lockguard-slice"]}}}' }, t);
  assert.doesNotMatch(stderr, /will rebuild/);
});

test('an nx.json naming it only in a comment, and a .nxignore whose line is a comment: no "nx will rebuild"', (t) => {
  const { stderr } = runOnce(
    {
      'nx.json':
        '{\n  // "namedInputs": { "default": ["{projectRoot}/.lockguard-slice"] }\n  "targetDefaults": {}\n}\n',
      '.nxignore': '# !**/.lockguard-slice\n',
    },
    t,
  );
  assert.doesNotMatch(stderr, /will rebuild/);
});

test('a JSONC turbo.json whose task inputs name it (with comments around): turbo will rebuild their tasks once', (t) => {
  const { stderr } = runOnce(
    {
      'turbo.json': `{
  // comments are allowed here
  "tasks": { "build": { "inputs": ["$TURBO_DEFAULT$", ".lockguard-slice"], }, },
}
`,
    },
    t,
  );
  assert.match(
    stderr,
    /3 projects' lockfile slice files \(\.lockguard-slice\) written for the first time: turbo will rebuild their tasks once/,
  );
});

test('an nx.json whose named inputs name it: nx will rebuild their tasks once', (t) => {
  const { stderr } = runOnce(
    { 'nx.json': '{"namedInputs":{"default":["{projectRoot}/**/*","{projectRoot}/.lockguard-slice"]}}' },
    t,
  );
  assert.match(stderr, /written for the first time: nx will rebuild their tasks once/);
});
