// The rush.json reader (core/package-managers/pnpm/rush.ts) and a Rush repository as a workspace: comments
// and trailing commas read as Rush reads them, missing fields, npm and yarn modes refused with the fix (exit 2),
// a broken rush.json refused naming the path and never echoing its bytes; the table and the slices of Rush's
// lockfile, its importers named by project folder.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readRushConfig } from '../../../../lib/core/package-managers/pnpm/rush.js';
import { findWorkspace } from '../../../../lib/core/workspace.js';
import { readWorkspaceFingerprints } from '../../../../lib/core/fingerprints.js';
import { projectSlices } from '../../../../lib/core/slices/slices.js';
import { cliProcess } from '../../../helpers/cli.js';
import { assertSetupError, codeOf } from '../../../helpers/errors.js';
import { tempWorkspace, type Tree } from '../../../helpers/workspace.js';

const LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: false
  excludeLinksFromLockfile: false

importers:

  .: {}

  ../../packages/a: {}

  ../../packages/b:
    dependencies:
      is-number:
        specifier: 7.0.0
        version: 7.0.0

packages:

  is-number@7.0.0:
    resolution: {integrity: sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==}
    engines: {node: '>=0.12.0'}

snapshots:

  is-number@7.0.0: {}
`;

const RUSH_JSON = `/**
 * Rush's own file: JSON with comments.
 */
{
  "rushVersion": "5.179.0",
  "pnpmVersion": "10.34.8", // a comment after a value
  /* a block comment */ "projects": [
    { "packageName": "a", "projectFolder": "packages/a" },
    { "packageName": "b", "projectFolder": "packages/b/", }, // a trailing comma, as Rush accepts
  ],
  "url": "https://example.invalid/not//a/comment"
}
`;

function rushRepo(rushJson: string, extra: Tree = {}): Tree {
  return {
    'rush.json': rushJson,
    common: { config: { rush: { 'pnpm-lock.yaml': LOCK } } },
    packages: { a: { 'package.json': '{"name":"a"}' }, b: { 'package.json': '{"name":"b"}' } },
    ...extra,
  };
}

test('rush.json with comments and trailing commas: pnpm mode, its projects, folders normalized', (t) => {
  const root = tempWorkspace(t, rushRepo(RUSH_JSON));
  assert.deepEqual(readRushConfig(root), {
    mode: 'pnpm',
    pnpmVersion: '10.34.8',
    projects: [
      { packageName: 'a', projectFolder: 'packages/a' },
      { packageName: 'b', projectFolder: 'packages/b' },
    ],
  });
});

test('no rush.json: undefined; no "projects": none', (t) => {
  assert.equal(readRushConfig(tempWorkspace(t, {})), undefined);
  const root = tempWorkspace(t, { 'rush.json': '{ "pnpmVersion": "10.34.8" }' });
  assert.deepEqual(readRushConfig(root)?.projects, []);
});

test('missing or wrong fields are ERR_LOCKGUARD_BAD_CONFIG', async (t) => {
  for (const text of [
    '{ "rushVersion": "5.179.0", "projects": [] }',
    '{ "pnpmVersion": "10.34.8", "npmVersion": "11.0.0" }',
    '{ "pnpmVersion": 10 }',
    '{ "pnpmVersion": "10.34.8", "projects": {} }',
    '{ "pnpmVersion": "10.34.8", "projects": [{ "packageName": "a" }] }',
    '[]',
  ]) {
    const root = tempWorkspace(t, { 'rush.json': text });
    assert.equal(await codeOf(() => readRushConfig(root)), 'ERR_LOCKGUARD_BAD_CONFIG', text);
  }
});

for (const [key, manager] of [
  ['npmVersion', 'npm'],
  ['yarnVersion', 'yarn'],
] as const) {
  test(`Rush's ${manager} mode is refused: exit 2 naming rush.json, with the fix`, (t) => {
    const root = tempWorkspace(t, { 'rush.json': `{ "${key}": "1.0.0", "projects": [] }` });
    const result = cliProcess(['snapshot'], root);
    assertSetupError(result, `${root}/rush.json`);
    assert.match(result.stderr, new RegExp(`not Rush's ${manager} mode`));
    assert.match(result.stderr, /Switch the repository to pnpm mode/);
  });
}

test('a broken rush.json: exit 2 naming the path, never its bytes', (t) => {
  const secret = 'npm_Zq9SECRETtokenDoNotLeak0123456789';
  const root = tempWorkspace(t, { 'rush.json': `{ "pnpmVersion": "10.34.8", "token": "${secret}" oops }` });
  const result = cliProcess(['key'], root);
  assertSetupError(result, `${root}/rush.json`);
  assert.ok(!result.stderr.includes(secret) && !result.stdout.includes(secret), 'no byte of rush.json is printed');
  assert.ok(!result.stderr.includes('oops'));
});

test("a Rush repository is found from a project folder; its table holds Rush's lockfile, not a root one", async (t) => {
  const root = tempWorkspace(t, rushRepo(RUSH_JSON));
  const workspace = await findWorkspace(`${root}/packages/b`);
  assert.deepEqual(workspace, { root, manager: 'pnpm' });
  const table = readWorkspaceFingerprints(root, { scope: 'inputs' });
  const present = table.entries.filter((entry) => entry.digest !== null).map((entry) => entry.path);
  assert.deepEqual(present, ['common/config/rush/pnpm-lock.yaml']);
  assert.ok(table.entries.every((entry) => entry.path !== 'pnpm-lock.yaml'));
});

test("Rush's importers (relative to common/temp) are named by project folder, with the projects' names", (t) => {
  const root = tempWorkspace(t, rushRepo(RUSH_JSON));
  const { lockfile, slices } = projectSlices(root);
  assert.equal(lockfile, 'common/config/rush/pnpm-lock.yaml');
  assert.deepEqual(
    slices.map((slice) => [slice.importer, slice.name]),
    [
      ['common/temp', undefined],
      ['packages/a', 'a'],
      ['packages/b', 'b'],
    ],
  );
});
