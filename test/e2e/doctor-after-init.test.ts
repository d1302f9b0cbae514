// `lockguard init` → install → `lockguard doctor` prints no warning on a correctly set up workspace, on every
// package manager lockguard supports (issue 28): pnpm 10 and 12, npm (with and without --npm-scripts), yarn
// 4 node-modules and PnP, yarn 1, bun. Registry-free: one `file:` tarball dependency (the real-registry tier is
// test/tier/). pnpm is found on PATH as a version manager's shim would put it there (a script, not pnpm's
// own files), which doctor asks for its version.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { writeTarball } from '../helpers/hooks.js';
import { BUN, mustRun, NPM, PNPM10, PNPM12, REPO_ROOT, type Tool, YARN, YARN1 } from '../helpers/tools.js';
import { tempWorkspace } from '../helpers/workspace.js';

interface Finding {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
}

interface Arm {
  readonly name: string;
  readonly tool: Tool;
  readonly init: readonly string[];
  readonly files: Readonly<Record<string, string>>;
}

const WORKSPACES = '"workspaces":["packages/*"]';
const ARMS: readonly Arm[] = [
  { name: 'pnpm 10', tool: PNPM10, init: [], files: { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n' } },
  { name: 'pnpm 12', tool: PNPM12, init: [], files: { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n' } },
  { name: 'npm', tool: NPM, init: [], files: {} },
  { name: 'npm --npm-scripts', tool: NPM, init: ['--npm-scripts'], files: {} },
  { name: 'yarn 4 node-modules', tool: YARN, init: [], files: { '.yarnrc.yml': 'nodeLinker: node-modules\n' } },
  { name: 'yarn 4 PnP', tool: YARN, init: [], files: { '.yarnrc.yml': 'nodeLinker: pnp\n' } },
  { name: 'yarn 1', tool: YARN1, init: [], files: {} },
  { name: 'bun', tool: BUN, init: [], files: {} },
];

/** A `pnpm` on PATH that is a launcher script (asdf/mise style), running `tool`. */
function pnpmShim(dir: string, tool: Tool): string {
  mkdirSync(dir, { recursive: true });
  const words = [tool.command, ...tool.prefix].map((word) => `'${word}'`).join(' ');
  writeFileSync(join(dir, 'pnpm'), `#!/bin/sh\nexec ${words} "$@"\n`);
  chmodSync(join(dir, 'pnpm'), 0o755);
  return dir;
}

for (const arm of ARMS) {
  test(`${arm.name}: init, install, doctor: no warning`, async (t) => {
    const base = tempWorkspace(t, {}, 'lockguard-doctor-init-');
    const tarball = writeTarball(join(base, 'dep-x-1.0.0.tgz'), 'dep-x', '1.0.0');
    const pnpm = arm.tool === PNPM10 || arm.tool === PNPM12;
    const env = isolatedEnv(join(base, 'tmp'), pnpm ? { path: [pnpmShim(join(base, 'bin'), arm.tool)] } : {});
    const root = join(base, 'ws');
    mkdirSync(join(root, 'packages', 'a'), { recursive: true });
    writeFileSync(join(root, 'package.json'), `{"name":"root","private":true${pnpm ? '' : `,${WORKSPACES}`}}\n`);
    writeFileSync(
      join(root, 'packages', 'a', 'package.json'),
      `{"name":"a","version":"1.0.0","dependencies":{"dep-x":"file:${tarball}"}}\n`,
    );
    for (const [file, text] of Object.entries(arm.files)) writeFileSync(join(root, file), text);
    mustRun(arm.tool, ['install'], root, env);
    const init = await cli(['init', ...arm.init], root, env);
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /next:|no hook file to write|no pnpmfile|runs here/);
    mustRun(arm.tool, ['install'], root, env);
    // lockguard installed as the README says (a root devDependency; test/package installs the tarball itself):
    // this checkout linked in, after the installs (they would prune a package the manifest does not name). The
    // hooks init wrote load it from there; without it doctor rightly warns that they do nothing.
    if (existsSync(join(root, 'node_modules'))) symlinkSync(REPO_ROOT, join(root, 'node_modules', 'lockguard'));
    const doctor = await cli(['doctor', '--json'], root, env);
    const findings = JSON.parse(doctor.stdout) as Finding[];
    const loud = findings.filter((finding) => finding.level !== 'ok');
    assert.deepEqual(loud, [], `${arm.name}: ${JSON.stringify(loud, null, 2)}`);
    assert.equal(doctor.code, 0);
  });
}
