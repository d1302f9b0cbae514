// The per-project slice files written by the install hooks (issue 20: "written after every install"), with
// the real yarn 4.18.1 (PnP and nodeLinker: node-modules), offline, HOME/XDG/caches isolated:
// - lockguard's yarn plugin committed the way its README tells users (`yarn plugin import
//   <lockguard>/dist/yarn-plugin.cjs`, from a copy of the package as npm ships it): a `yarn install` after a
//   lockfile-changing edit, and a `yarn add`, leave every project's `.lockguard-slice` equal to what
//   `lockguard key --write-slices` writes for that lockfile, in a workspace that uses the files (turbo.json
//   names them); an unadopted workspace gets none; a project where the file is a folder is one warning and
//   the install still succeeds; the committed copy never refuses outside a run, and a refusing run still
//   refuses (its YARN_PLUGINS copy wins).

import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { lockguardPackage } from '../helpers/hooks.js';
import {
  depTarballs,
  FLAVORS,
  freshYarnBunClone,
  installTemplate,
  type YarnBunWorkspace,
} from '../helpers/yarn-bun.js';

const PROJECTS = ['.', 'packages/a', 'packages/b', 'packages/c'] as const;
const SLICE = '.lockguard-slice';

let shared = '';
let env: Record<string, string> = {};
let dep7: Buffer = Buffer.alloc(0);
let dep6: Buffer = Buffer.alloc(0);
let plugin = '';

before(() => {
  ({ dir: shared, env, dep7, dep6 } = depTarballs('lockguard-slice-hooks-'));
  plugin = join(lockguardPackage(shared), 'dist', 'yarn-plugin.cjs');
});

after(() => rmSync(shared, { recursive: true, force: true }));

/** Each project's slice file text (undefined where there is none). */
function sliceFiles(ws: YarnBunWorkspace): Map<string, string | undefined> {
  return new Map(
    PROJECTS.map((project) => {
      const path = join(ws.root, project, SLICE);
      return [project, lstatSync(path, { throwIfNoEntry: false })?.isFile() ? readFileSync(path, 'utf8') : undefined];
    }),
  );
}

/** What `lockguard key --write-slices` writes for the lockfile now, from scratch (every file and the record removed first). */
function cliSliceFiles(ws: YarnBunWorkspace): Map<string, string | undefined> {
  for (const project of PROJECTS) rmSync(join(ws.root, project, SLICE), { force: true });
  rmSync(join(ws.root, '.lockguard', 'slice-files.json'), { force: true });
  const result = cliProcess(['key', '--write-slices'], ws.root, ws.env);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  return sliceFiles(ws);
}

/** b's dependency moved to the 6.0.0 tarball by hand: the next `yarn install` rewrites yarn.lock. */
function bumpB(ws: YarnBunWorkspace): void {
  const path = join(ws.root, 'packages', 'b', 'package.json');
  writeFileSync(path, readFileSync(path, 'utf8').replace('dep-7.0.0', 'dep-6.0.0'));
}

/** A fresh clone with lockguard's plugin committed as its README says; `adopted`: turbo.json names the files. */
function clone(t: TestContext, spec: (typeof FLAVORS)[number], template: string, adopted: boolean): YarnBunWorkspace {
  const ws = freshYarnBunClone(t, spec, template, env);
  if (adopted) {
    writeFileSync(
      join(ws.root, 'turbo.json'),
      `${JSON.stringify({ tasks: { build: { inputs: ['$TURBO_DEFAULT$', SLICE] } } }, null, 2)}\n`,
    );
  }
  const imported = ws.must(['plugin', 'import', plugin]);
  assert.match(readFileSync(join(ws.root, '.yarnrc.yml'), 'utf8'), /\.yarn\/plugins\/lockguard\.cjs/, imported.stdout);
  return ws;
}

const warnings = (stderr: string): number =>
  stderr.split('\n').filter((line) => line.includes('[lockguard] warning')).length;

for (const spec of FLAVORS.filter((flavor) => flavor.tool.name === 'yarn')) {
  describe(`yarn plugin, ${spec.flavor}`, { timeout: 300_000 }, () => {
    let template = '';
    before(() => {
      template = installTemplate(spec, join(shared, `template-${spec.flavor}`), env, dep7, dep6);
    });

    test('an adopted workspace: every install and add writes the files lockguard key --write-slices writes', (t) => {
      const ws = clone(t, spec, template, true);
      const first = ws.must(['install']);
      assert.equal(warnings(first.stderr), 0, first.stderr);
      const s0 = sliceFiles(ws);
      for (const project of PROJECTS) assert.ok(s0.get(project), `${project}'s file written by the first install`);
      // A lockfile-changing edit, then a plain `yarn install`: the files follow the new lockfile.
      const lockfile = ws.read('yarn.lock');
      bumpB(ws);
      const bumped = ws.must(['install']);
      assert.notEqual(ws.read('yarn.lock'), lockfile, 'the install rewrote yarn.lock');
      assert.equal(warnings(bumped.stderr), 0, bumped.stderr);
      const s1 = sliceFiles(ws);
      assert.notEqual(s1.get('packages/b'), s0.get('packages/b'), "b's slice moved");
      if (spec.flavor === 'yarn-nm')
        // node-modules puts the pool in the root node_modules, where a's own code resolves it (core/slices/layout.ts).
        assert.notEqual(s1.get('packages/a'), s0.get('packages/a'), "a's reach moved (the pool is at the root)");
      else
        assert.equal(
          s1.get('packages/a'),
          s0.get('packages/a'),
          "a's did not (PnP: a installs no package, no reach line)",
        );
      // c installs dep, so its file folds the hoisted pool (design A, core/slices/reach.ts), which b's bump moved.
      assert.notEqual(s1.get('packages/c'), s0.get('packages/c'), "c's reach moved");
      assert.deepEqual(s1, cliSliceFiles(ws), 'what the CLI computes for this lockfile');
      // `yarn add` outside a run: never refused by the committed copy, and its install writes them too.
      const add = ws.run(['workspace', 'c', 'add', 'dep@file:../../vendor/dep-6.0.0.tgz']);
      assert.equal(add.code, 0, `${add.stdout}\n${add.stderr}`);
      assert.doesNotMatch(add.stdout + add.stderr, /ERR_LOCKGUARD_REFUSED/);
      const s2 = sliceFiles(ws);
      assert.notEqual(s2.get('packages/c'), s1.get('packages/c'), "c's slice moved");
      assert.deepEqual(s2, cliSliceFiles(ws));
    });

    test('an unadopted workspace gets no slice files; a refusing run still refuses add with the plugin committed', (t) => {
      const ws = clone(t, spec, template, false);
      ws.must(['install']);
      bumpB(ws);
      ws.must(['install']);
      for (const [project, text] of sliceFiles(ws)) assert.equal(text, undefined, `${project}: no file`);
      assert.equal(existsSync(join(ws.root, '.lockguard')), false, 'no ledger written');
      const lockfile = ws.read('yarn.lock');
      const refused = cliProcess(
        [
          'run',
          '--policy',
          'refuse',
          '--',
          ...spec.argv(['workspace', 'c', 'add', 'dep@file:../../vendor/dep-6.0.0.tgz']),
        ],
        ws.root,
        ws.env,
        90_000,
      );
      assert.notEqual(refused.code, 0, `${refused.stdout}\n${refused.stderr}`);
      assert.match(`${refused.stdout}\n${refused.stderr}`, /ERR_LOCKGUARD_REFUSED/);
      assert.equal(ws.read('yarn.lock'), lockfile, 'nothing written');
    });

    test('a project where the file is a folder: one warning, the install succeeds, every other file is written', (t) => {
      const ws = clone(t, spec, template, true);
      mkdirSync(join(ws.root, 'packages', 'c', SLICE));
      bumpB(ws);
      const result = ws.run(['install']);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
      assert.equal(warnings(result.stderr), 1, result.stderr);
      assert.match(result.stderr, /packages\/c\/\.lockguard-slice" to be lockguard's slice file .* it is a folder/);
      const files = sliceFiles(ws);
      for (const project of ['.', 'packages/a', 'packages/b'])
        assert.match(files.get(project) ?? '', /^lockguard-slice\/2\n/, `${project} written`);
    });
  });
}
