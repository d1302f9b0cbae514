// The published manifest: nothing of lockguard's runs when a consumer installs it (no install-time lifecycle
// script: npm 11 names such packages in its install-scripts warning), `npm pack` builds what `bin` and
// `exports` point at (prepack), and a registry page can resolve the README's links (repository).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/fixtures.js';

interface Manifest {
  scripts: Record<string, string>;
  repository?: { type?: string; url?: string };
  homepage?: string;
  bugs?: { url?: string };
}

const manifest = (): Manifest => JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as Manifest;

test('no script runs when a consumer installs the package', () => {
  const { scripts } = manifest();
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare']) {
    assert.equal(scripts[hook], undefined, `package.json has no "${hook}" script`);
  }
});

test('npm pack builds dist first, and npm test installs the other Nodes and the system tools it needs', () => {
  const { scripts } = manifest();
  assert.equal(scripts.prepack, 'npm run build');
  assert.equal(scripts.pretest, 'node .ci/nodes/ensure.mjs && node .ci/tools.mjs');
});

test('the manifest names the repository a registry page resolves links against', () => {
  const { repository, homepage, bugs } = manifest();
  assert.match(repository?.url ?? '', /^git\+https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/);
  const slug = /github\.com\/([\w-]+\/[\w-]+)\.git$/.exec(repository?.url ?? '')?.[1];
  assert.equal(homepage, `https://github.com/${slug}#readme`);
  assert.equal(bugs?.url, `https://github.com/${slug}/issues`);
});
