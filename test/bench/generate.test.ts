// The synthetic workspaces the benches measure, pinned byte for byte (sha256) at the sizes the benches use:
// a bench number compares with an older one only while the generator writes the same bytes. The values were
// taken from the generators before they were made one (issue 22). A change that moves one on purpose says so
// in its commit (the bench's earlier numbers then measure other input) and updates the value here.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { fileDigests, tempWorkspace } from '../helpers/workspace.js';
import { npmLockfileText, pnpmLockfileText, writeSyntheticWorkspace } from './generate.js';
import { generateLockfile } from './slices-generate.js';
import { generateBunLockfile, generateYarnBerryLockfile } from './slices-generate-yarn-bun.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

test('the fingerprint and run benches read the same generated lockfiles (pnpm and npm, 1,000/20,000 and 200/2,000)', () => {
  const big = { importers: 1000, packages: 20_000 };
  const verify = { importers: 200, packages: 2000 };
  assert.equal(sha256(pnpmLockfileText(big)), 'e5601133038d796b906bfcc7c1dff2b3880c76a6bc10b523e7aa6b1858861084');
  assert.equal(sha256(npmLockfileText(big)), '7ce4703d8f79d168a7ec9e226c3d8992f3be7936165221ff56c74d2ded3c7413');
  assert.equal(sha256(pnpmLockfileText(verify)), 'daebb6e5fd098d0920dbf45d48eae2212d4b271a8ea711beefcf471540021f56');
  assert.equal(sha256(npmLockfileText(verify)), '67660c54c2e49981bb4f25dad9ddb89c2031aaa5dc9f70d8a8b2e46327afb59a');
  // No packages: every importer is `{}` (no workspace link either).
  assert.equal(
    sha256(pnpmLockfileText({ importers: 3, packages: 0 })),
    '78e27bf0526bfc152e3783307e12bcca83219a0262907d10e4882fe8ada66357',
  );
});

test('the slice benches read the same generated pnpm, yarn berry and bun lockfiles (1,000/20,000)', () => {
  assert.equal(
    sha256(generateLockfile({ importers: 1000, packages: 20_000 })),
    '5ba51aa9b585d9d76bb0ebb2b46d0f53f931142e2dd27f7900b0d5ad8549533e',
  );
  assert.equal(sha256(generateYarnBerryLockfile()), '9e091e15af9b8a2846640a2943ba21f404b23718a5bfa8483d978daaa8e607b4');
  assert.equal(sha256(generateBunLockfile()), 'a06fd85ae6cc238151dd25a59bae56280f756a1c51660dfcaef0971bdf3d6f11');
  // Another seed and size: the options reach the shape.
  const small = { packages: 700, seed: 3 };
  assert.equal(
    sha256(generateLockfile({ importers: 50, ...small })),
    '6919a4f1fb295b5ed60a5c9b4082db2dde528cdf7effca34b344c39d592e920a',
  );
  assert.equal(
    sha256(generateYarnBerryLockfile({ workspaces: 50, ...small })),
    '6d05f8adb32641dc0b97dcb5c9b499ede4a4d8b8d42509922743dc7e82993525',
  );
  assert.equal(
    sha256(generateBunLockfile({ workspaces: 50, ...small })),
    '129f7cb6151fae215e8f46811ae9649fe6b9ee69e36b90c4ae6236cf178d33dc',
  );
});

test('writeSyntheticWorkspace writes the same files: manifests, projects, lockfile and install markers', (t) => {
  const pinned = {
    pnpm: { files: 17, inventory: '591fd01ce0698d2b1c786161fcf3b44a158a355fa0950aa7a118579a3c896a60' },
    npm: { files: 15, inventory: '7987757b82bb71db6c8b85f8cdfd2c2adf6c73f052f5307d4ef7f912ca210bec' },
  } as const;
  for (const manager of ['pnpm', 'npm'] as const) {
    const root = tempWorkspace(t);
    const options = { manager, importers: 12, packages: 90, depsPerImporter: 3, depsPerPackage: 2, seed: 7 };
    writeSyntheticWorkspace(root, { ...options, installed: true });
    const files = [...fileDigests(root)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    assert.equal(files.length, pinned[manager].files, manager);
    assert.equal(
      sha256(files.map(([path, digest]) => `${path} ${digest}\n`).join('')),
      pinned[manager].inventory,
      manager,
    );
  }
});
