// The library does what the CLI does (issue 31): `guardedRun` writes each project's `.lockguard-slice` before
// the command, as `lockguard run` does, and says so in a `slice-files` event; `sliceFiles: false` leaves the
// files alone. One workspace run through each path: the same files, byte for byte.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findWorkspace, guardedRun, type GuardEvent } from '../../lib/index.js';
import { cliProcess } from '../helpers/cli.js';
import { A_ON_IS_NUMBER_LOCK, pnpmProjects, tempWorkspace } from '../helpers/workspace.js';

const TREE = {
  ...pnpmProjects(A_ON_IS_NUMBER_LOCK, { a: 'a', b: 'b' }),
  'turbo.json': '{"tasks":{"build":{"inputs":["$TURBO_DEFAULT$",".lockguard-slice"]}}}\n',
};

/** Every `.lockguard-slice` under the workspace, importer → text. */
function sliceFiles(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const at = (importer: string) => join(root, importer, '.lockguard-slice');
  for (const importer of ['.', ...readdirSync(join(root, 'packages')).map((name) => `packages/${name}`)])
    if (existsSync(at(importer))) out[importer] = readFileSync(at(importer), 'utf8');
  return out;
}

async function libraryRun(root: string, sliceFilesOption?: boolean): Promise<GuardEvent[]> {
  const events: GuardEvent[] = [];
  const workspace = await findWorkspace(root);
  const finished = await guardedRun(
    {
      workspace,
      command: ['true'],
      policy: 'withhold',
      runner: undefined,
      remote: 'off',
      preCheck: false,
      exitCode: () => 0,
      ...(sliceFilesOption === undefined ? {} : { sliceFiles: sliceFilesOption }),
    },
    { cwd: root, env: { ...process.env, CI: '' }, emit: (event) => events.push(event) },
  );
  assert.equal(finished.code, 0);
  return events;
}

test('guardedRun as a library writes the same slice files as `lockguard run`, and says so in an event', async (t) => {
  const viaCli = tempWorkspace(t, TREE);
  const run = cliProcess(['run', '--no-pre-check', '--', 'true'], viaCli);
  assert.equal(run.code, 0, run.stderr);
  const viaLibrary = tempWorkspace(t, TREE);
  const events = await libraryRun(viaLibrary);
  const cliFiles = sliceFiles(viaCli);
  assert.deepEqual(Object.keys(cliFiles).sort(), ['.', 'packages/a', 'packages/b']);
  assert.deepEqual(sliceFiles(viaLibrary), cliFiles);
  const said = events.find((event) => event.type === 'slice-files');
  assert.ok(said?.type === 'slice-files' && !said.warning);
  assert.match(
    said.lines.join('\n'),
    /3 projects' lockfile slice files \(\.lockguard-slice\) written for the first time/,
  );
  assert.match(run.stderr, /3 projects' lockfile slice files \(\.lockguard-slice\) written for the first time/);
});

test('sliceFiles: false leaves the files alone and says nothing of them', async (t) => {
  const root = tempWorkspace(t, TREE);
  const events = await libraryRun(root, false);
  assert.deepEqual(sliceFiles(root), {});
  assert.equal(events.filter((event) => event.type === 'slice-files').length, 0);
});
