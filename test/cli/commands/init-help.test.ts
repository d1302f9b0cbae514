// `init --help` names every file `init` edits, and `lockguard --help` says init edits more than hooks:
// checked on what init really wrote in a workspace that gets every kind of edit (pnpm with turbo, a
// package-level turbo.json, nx with a project.json; npm's prepare script; committed slice files).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../../lib/cli/exit-codes.js';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

/** The files init wrote, by name: those its record lists, plus the lockfile and slice files (not recorded). */
async function editedBy(argv: readonly string[], root: string): Promise<Set<string>> {
  const lockBefore = readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8');
  const result = await cli(argv, root);
  assert.equal(result.code, EXIT.ok, result.stderr);
  const record = JSON.parse(readFileSync(join(root, '.lockguard', 'init.json'), 'utf8')) as { files: object };
  const names = new Set(Object.keys(record.files).map((file) => basename(file)));
  if (readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8') !== lockBefore) names.add('pnpm-lock.yaml');
  if (/\.lockguard-slice\b/.test(result.stdout)) names.add('.lockguard-slice');
  return names;
}

test('init --help names every file init edits; lockguard --help says init sets up more than hooks', async (t) => {
  const turboAndNx = tempWorkspace(t, {
    ...pnpmTree(),
    'turbo.json': '{ "tasks": { "build": {} } }',
    'nx.json': '{ "namedInputs": { "default": ["{projectRoot}/src/**"] } }',
    packages: {
      b: {
        'package.json': '{"name":"b"}\n',
        'turbo.json': '{ "extends": ["//"], "tasks": { "build": { "inputs": ["src/**"] } } }',
        'project.json': '{ "targets": { "build": { "cache": true, "inputs": ["{workspaceRoot}/tsconfig.json"] } } }',
      },
    },
  });
  const committed = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': '{ "tasks": { "build": {} } }' });
  const edited = new Set([
    ...(await editedBy(['init', '--pnpmfile', '--npm-scripts'], turboAndNx)),
    ...(await editedBy(['init', '--no-pnpmfile', '--sound-keys=committed'], committed)),
  ]);
  // Every kind of edit happened (a setup that made fewer would prove less).
  for (const name of [
    '.pnpmfile.cjs',
    'pnpm-lock.yaml',
    'package.json',
    '.gitignore',
    'turbo.json',
    'nx.json',
    '.nxignore',
    'project.json',
    '.lockguard-slice',
  ])
    assert.ok(edited.has(name), `init edited ${name}: ${[...edited].join(', ')}`);
  const help = await cli(['init', '--help'], turboAndNx);
  for (const name of edited) assert.ok(help.stdout.includes(name), `init --help names ${name}`);
  const top = await cli(['--help'], turboAndNx);
  const line = top.stdout.split('\n').find((text) => text.trimStart().startsWith('init ')) ?? '';
  for (const word of ['hooks', '.gitignore', 'turbo', 'nx']) assert.ok(line.includes(word), `"${line}" names ${word}`);
});
