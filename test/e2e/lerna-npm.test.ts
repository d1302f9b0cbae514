// Lerna (9.0.7) on npm (11.19.1, `npmClient: "npm"`): the poisoning scenario (as test/helpers/runner-scenario.ts
// builds it for pnpm) in an npm workspace, where npm hoists Lerna's nx (22.7.12) to the root (`node_modules/nx`,
// linked here to Lerna's own, as npm's hoisting places it; npm links `file:` folders offline). a#build's
// install is `npm install -w b`, going back is `npm ci`. Without lockguard the next run replays b's stale
// output; `lockguard run -- lerna run build` withholds b:build and the next run rebuilds. Lerna on pnpm:
// lerna.test.ts.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { check, packTarball, shellIn } from '../helpers/tool-shims.js';
import { REPO_ROOT } from '../helpers/tools.js';
import { tempWorkspace, writeTree } from '../helpers/workspace.js';

const LERNA = join(REPO_ROOT, 'node_modules', 'lerna');
const B_BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.json',JSON.stringify({tinyDep:require('tiny-dep')}))"`;
const A_BUILD = `const fs = require('fs'), path = require('path'), cp = require('child_process');
const armed = path.join(__dirname, 'armed');
if (fs.existsSync(armed)) {
  fs.unlinkSync(armed);
  cp.execFileSync('npm', ['install', '-w', 'b', 'tiny-dep@file:vendor/tiny-dep-6.0.0.tgz'], { stdio: 'inherit', cwd: path.join(__dirname, 'ws') });
}
`;

/** The poisoning scenario as an npm workspace run by Lerna: installed at S0 (tiny-dep 7.0.0), a#build armed. */
function npmLerna(t: TestContext) {
  const base = tempWorkspace(t, {}, 'lockguard-lerna-npm-');
  const root = join(base, 'ws');
  for (const version of ['6.0.0', '7.0.0'])
    packTarball(
      join(root, 'vendor', `tiny-dep-${version}.tgz`),
      join(base, `src-${version}`),
      { name: 'tiny-dep', version },
      `module.exports = '${version}';\n`,
    );
  const manifest = (name: string, extra: Record<string, unknown>): string =>
    `${JSON.stringify({ name, version: '1.0.0', private: true, ...extra }, null, 2)}\n`;
  writeTree(root, {
    'package.json': `${JSON.stringify(
      {
        name: 'root',
        private: true,
        workspaces: ['packages/*'],
        devDependencies: { lerna: `file:${LERNA}`, nx: `file:${join(LERNA, 'node_modules', 'nx')}` },
      },
      null,
      2,
    )}\n`,
    'lerna.json': JSON.stringify({ version: '0.0.0', npmClient: 'npm', packages: ['packages/*'] }),
    'nx.json': JSON.stringify({
      targetDefaults: { build: { dependsOn: ['^build'], outputs: ['{projectRoot}/dist'], cache: true } },
    }),
    '.gitignore': 'node_modules\n.nx\ndist\n',
    packages: {
      a: { 'package.json': manifest('a', { scripts: { build: 'node ../../../a-build.cjs' } }) },
      b: {
        'package.json': manifest('b', {
          dependencies: { a: '1.0.0', 'tiny-dep': 'file:../../vendor/tiny-dep-7.0.0.tgz' },
          scripts: { build: B_BUILD },
        }),
      },
    },
  });
  writeFileSync(join(base, 'a-build.cjs'), A_BUILD);
  const env = isolatedEnv(base, { extra: { NX_TUI: 'false', NX_ISOLATE_PLUGINS: 'false', NX_DAEMON: 'false' } });
  const sh = shellIn(root, env, 180_000);
  check(sh(['npm', 'install']), 'npm install');
  mkdirSync(join(base, 'saved'));
  copyFileSync(join(root, 'package-lock.json'), join(base, 'saved', 'package-lock.json'));
  copyFileSync(join(root, 'packages', 'b', 'package.json'), join(base, 'saved', 'b.json'));
  writeFileSync(join(base, 'armed'), '');
  const lerna = [join(root, 'node_modules', '.bin', 'lerna'), 'run', 'build', '--stream'];
  return {
    root,
    sh,
    lerna,
    out: (): string | undefined => {
      try {
        return (
          JSON.parse(readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8')) as { tinyDep: string }
        ).tinyDep;
      } catch {
        return undefined;
      }
    },
    /** Back to S0's package-lock.json and b's manifest, then npm ci (tiny-dep 7.0.0 installed); outputs removed. */
    goBack(): void {
      copyFileSync(join(base, 'saved', 'package-lock.json'), join(root, 'package-lock.json'));
      copyFileSync(join(base, 'saved', 'b.json'), join(root, 'packages', 'b', 'package.json'));
      check(sh(['npm', 'ci']), 'npm ci');
      for (const name of ['a', 'b']) rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
    },
  };
}

test('Lerna on npm: without lockguard the stale entry is replayed; guarded, it is withheld and the next run rebuilds', (t) => {
  const control = npmLerna(t);
  check(control.sh(control.lerna), 'lerna run build (the control)');
  assert.equal(control.out(), '6.0.0', 'b built against the install a#build did');
  control.goBack();
  check(control.sh(control.lerna), 'lerna run build after going back (the control)');
  assert.equal(control.out(), '6.0.0', 'without lockguard nx under Lerna replays the entry saved under the old key');

  const s = npmLerna(t);
  const run = s.sh([process.execPath, BIN, 'run', '--', ...s.lerna]);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(s.out(), '6.0.0');
  assert.match(run.stderr, /package-lock\.json/);
  assert.match(run.stderr, /cache saves? made after it (was|were) withheld/);
  const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as {
    report: { caches: { runner: string; cacheDir: string }[]; withheld: { task: string | null }[] };
  };
  assert.deepEqual(
    status.report.caches.map((cache) => [cache.runner, cache.cacheDir]),
    [['nx', join(s.root, '.nx', 'cache')]],
  );
  assert.ok(
    status.report.withheld.some((entry) => entry.task === 'b:build'),
    JSON.stringify(status.report.withheld),
  );
  s.goBack();
  const next = s.sh([process.execPath, BIN, 'run', '--', ...s.lerna]);
  assert.equal(next.status, 0, `${next.stdout}\n${next.stderr}`);
  assert.equal(s.out(), '7.0.0', 'b rebuilt against what is installed');
});
