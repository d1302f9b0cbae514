// Installs the pinned other Node.js versions and pnpm 11 (.ci/nodes/package.json) when they are missing: `npm test` runs it
// first (pretest), and .ci/run before its loop over them. Development only: the published package has no
// lifecycle script of its own (a consumer's install runs nothing of lockguard's).
// Invariants: writes only under .ci/nodes/node_modules; does nothing when every pinned Node is there.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pinned = Object.keys(JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).devDependencies);
const missing = pinned.filter((name) => !existsSync(join(here, 'node_modules', name, 'package.json')));
if (missing.length > 0) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const done = spawnSync(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (done.status !== 0) {
    console.error(`ci-nodes: "npm ci --prefix .ci/nodes" failed (exit ${done.status ?? done.signal}); ${missing.join(', ')} missing`);
    process.exit(1);
  }
}
