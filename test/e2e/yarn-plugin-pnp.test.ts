// Under yarn 4.18.1 PnP (no node_modules) the `yarn plugin import` line `lockguard init` prints works
// (issue 28: it said ./node_modules/lockguard/dist/yarn-plugin.cjs, ENOENT). lockguard is installed as a team
// installs it, from its packed tarball (`npm pack` of this build) as a root devDependency; lockguard's
// `preferUnplugged` puts it in .yarn/unplugged, init prints that path, and yarn imports the plugin from it;
// `lockguard/yarn-plugin` resolves through the package's exports. lockguard's own dependencies come from the
// npm registry (their versions follow lockguard's package.json; the tarball's checksum changes with every
// build, so no lockfile is committed for this one).

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';
import { makeRig } from '../helpers/install-check-rig.js';
import { mustRun, NPM, YARN } from '../helpers/tools.js';

const rig = makeRig('lockguard-yarn-plugin-pnp-', { YARN_ENABLE_NETWORK: 'true' });
after(() => rmSync(rig.tmp, { recursive: true, force: true }));

test('yarn PnP: init prints the unplugged plugin path, and yarn plugin import of it succeeds', () => {
  mustRun(NPM, ['pack', '--ignore-scripts', '--pack-destination', rig.tmp, repoRoot()], rig.tmp, rig.env);
  const root = join(rig.tmp, 'w');
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, 'package.json'),
    `${JSON.stringify({ name: 'w', private: true, packageManager: 'yarn@4.18.1', devDependencies: { lockguard: 'file:../lockguard-0.1.0.tgz' } }, null, 2)}\n`,
  );
  writeFileSync(join(root, 'turbo.json'), '{ "tasks": { "build": {} } }\n');
  writeFileSync(join(root, 'yarn.lock'), '');
  mustRun(YARN, ['install'], root, rig.env);
  assert.equal(existsSync(join(root, 'node_modules')), false, 'PnP: no node_modules');
  const init = mustRun(YARN, ['lockguard', 'init'], root, rig.env).stdout;
  const line = /yarn plugin import (\S+)/.exec(init);
  assert.ok(line, `init prints the import line:\n${init}`);
  const path = line[1] ?? '';
  assert.match(path, /^\.\/\.yarn\/unplugged\/lockguard-[^/]+\/node_modules\/lockguard\/dist\/yarn-plugin\.cjs$/);
  mustRun(YARN, ['plugin', 'import', path], root, rig.env);
  assert.ok(existsSync(join(root, '.yarn', 'plugins', 'lockguard.cjs')), 'the plugin is imported');
  const resolved = mustRun(
    YARN,
    ['node', '-p', 'require.resolve("lockguard/yarn-plugin")'],
    root,
    rig.env,
  ).stdout.trim();
  assert.equal(resolved, join(root, path));
});
