// `init --help` names every file `init` edits, and `lockguard --help` says init edits more than hooks:
// checked on what init really wrote in a workspace that gets every kind of edit (pnpm with turbo, a
// package-level turbo.json, nx with a project.json; npm's prepare script; committed slice files; wireit's
// files, moon's task files, lage's config).

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
  // wireit (a cached script's files in the root package.json), moon (a project's moon.yml and an inherited
  // task file), lage (a literal inputs array; committed mode, the one lage's keys can fold).
  const wireit = tempWorkspace(t, {
    ...pnpmTree(),
    'package.json': JSON.stringify({
      name: 'root',
      scripts: { build: 'wireit' },
      wireit: { build: { command: 'tsc', files: ['src/**'], output: ['dist/**'] } },
    }),
  });
  const moon = tempWorkspace(t, {
    ...pnpmTree(),
    '.moon': {
      'workspace.yml': "projects:\n  - 'packages/*'\n",
      'tasks.yml': 'tasks:\n  lint:\n    command: eslint\n    inputs: [src/**]\n',
    },
    packages: {
      b: {
        'package.json': '{"name":"b"}\n',
        'moon.yml': 'tasks:\n  build:\n    command: tsc\n    inputs:\n      - src/**\n',
      },
    },
  });
  const lage = tempWorkspace(t, {
    ...pnpmTree(),
    'lage.config.js': "module.exports = { pipeline: { build: { inputs: ['src/**'] } } };\n",
  });
  const byRunner = {
    wireit: await editedBy(['init', '--no-pnpmfile', '--no-npm-scripts'], wireit),
    moon: await editedBy(['init', '--no-pnpmfile', '--no-npm-scripts'], moon),
    lage: await editedBy(['init', '--no-pnpmfile', '--no-npm-scripts', '--sound-keys=committed'], lage),
  };
  for (const [runner, file] of [
    ['wireit', 'package.json'],
    ['moon', 'moon.yml'],
    ['moon', 'tasks.yml'],
    ['lage', 'lage.config.js'],
  ] as const)
    assert.ok(byRunner[runner].has(file), `init edited ${runner}'s ${file}: ${[...byRunner[runner]].join(', ')}`);
  const edited = new Set([
    ...(await editedBy(['init', '--pnpmfile', '--npm-scripts'], turboAndNx)),
    ...(await editedBy(['init', '--no-pnpmfile', '--sound-keys=committed'], committed)),
    ...Object.values(byRunner).flatMap((names) => [...names]),
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
    'moon.yml',
    'tasks.yml',
    'lage.config.js',
  ])
    assert.ok(edited.has(name), `init edited ${name}: ${[...edited].join(', ')}`);
  const help = await cli(['init', '--help'], turboAndNx);
  for (const name of edited) assert.ok(help.stdout.includes(name), `init --help names ${name}`);
  for (const runner of ['turbo', 'nx', 'wireit', 'moon', 'lage'])
    assert.match(help.stdout, new RegExp(`^  ${runner} +\\S`, 'm'), `init --help has a line for ${runner}'s edits`);
  const top = await cli(['--help'], turboAndNx);
  const line = top.stdout.split('\n').find((text) => text.trimStart().startsWith('init ')) ?? '';
  for (const word of ['hooks', '.gitignore', 'turbo', 'nx', 'wireit', 'moon', 'lage'])
    assert.ok(line.includes(word), `"${line}" names ${word}`);
});
