// doctor's sound-keys proof on nx 22 (issue 28, the Lerna arm): `nx show target inputs` exists since nx 22, so
// nx's own plan and its hashed files prove the fold there as on nx 24, asked of the nx the commands start:
// Lerna's own (Lerna 9.0.7's nx 22.7.12, not resolvable from the root, started with NODE_PATH naming its folder)
// The proof still fails where nx skips the gitignored slice file.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nxProof } from '../../../../lib/integrations/runners/nx/sound-keys.js';
import { whichNx } from '../../../../lib/integrations/runners/nx/which.js';
import { isolatedEnv } from '../../../helpers/env.js';
import { repoRoot } from '../../../helpers/fixtures.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

function workspace(t: Parameters<typeof tempWorkspace>[0]): string {
  const base = tempWorkspace(t, {}, 'lockguard-nx-proof-');
  const root = join(base, 'ws');
  const build = { scripts: { build: 'node -e 0' } };
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
    'nx.json': JSON.stringify({ targetDefaults: { build: { outputs: ['{projectRoot}/dist'], cache: true } } }),
    '.gitignore': 'node_modules\n.nx\n.lockguard-slice\n',
    '.nxignore': '!**/.lockguard-slice\n',
    'packages/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', ...build }),
    'packages/a/.lockguard-slice': 'lockguard-slice/3 a\n',
    'packages/b/package.json': JSON.stringify({ name: 'b', version: '1.0.0', ...build }),
    'packages/b/.lockguard-slice': 'lockguard-slice/3 b\n',
    'lerna.json': '{"version":"0.0.0"}',
  };
  for (const [path, text] of Object.entries(files)) {
    fs.mkdirSync(join(root, path, '..'), { recursive: true });
    fs.writeFileSync(join(root, path), text);
  }
  // Lerna only (as pnpm leaves it): its nx is its own dependency, not resolvable from the root.
  fs.mkdirSync(join(root, 'node_modules'));
  fs.symlinkSync(join(repoRoot(), 'node_modules', 'lerna'), join(root, 'node_modules', 'lerna'));
  return root;
}

function envOf(root: string): Record<string, string> {
  return isolatedEnv(join(root, '..'), { extra: { NX_DAEMON: 'false', NX_TUI: 'false', NX_ISOLATE_PLUGINS: 'false' } });
}

test("Lerna's own nx 22: doctor's proof asks it and finds the fold; without the .nxignore line, nx skips the file", async (t) => {
  const root = workspace(t);
  const nx = whichNx(root);
  assert.equal(nx?.via, 'lerna');
  assert.match(nx?.version ?? '', /^22\./);
  const env = envOf(root);
  assert.deepEqual(await nxProof(root, env), {
    runner: 'nx',
    level: 'ok',
    detail: "all 2 cached nx tasks fold their project's .lockguard-slice (nx's own plan says so)",
  });
  fs.rmSync(join(root, '.nxignore'));
  const skipped = await nxProof(root, env);
  assert.equal(skipped?.level, 'fail', JSON.stringify(skipped));
  assert.match(skipped?.detail ?? '', /nx does not hash packages\/a\/\.lockguard-slice for a:build/);
});
