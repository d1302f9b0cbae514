// Golden values: the digests users' cache keys are made of, pinned.
//
// A CI cache or a runner key built from `lockguard key` or a slice digest changes for every user when these
// change. So a refactor must leave every value below as it is; a change to what a digest folds is a change
// of its definition, and then its version string ("lockguard-slice/1", the table key's canonical form)
// is bumped in the same change, the README says so, and these values are re-pinned there, never here alone.
//
// Pinned: each fixture lockfile's slices (one sha256 over the sorted "importer digest" lines, plus the
// root's own digest), and the table key of a small workspace written byte for byte by this test.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sha256Hex } from '../../lib/core/digest.js';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { slicesFromLockfile } from '../../lib/core/slices/index.js';
import { fixturesDir } from '../helpers/fixtures.js';

const GOLDEN: Record<string, { readonly count: number; readonly all: string; readonly root: string | undefined }> = {
  'vue-core/pnpm-lock.yaml': {
    count: 18,
    all: '26874a6abbb19c627a41f8e655cf2a7e24ab913df86da10017fcc92670068656',
    root: '2698e3810c6d5cc3f54221d2784d8ef44b32578ef1973d20b70f9de077be4f61',
  },
  'vite/pnpm-lock.yaml': {
    count: 279,
    all: 'cbc4ba92e81090655ff92bd3a957faf0d5f92ccf36f0acd275360f1131e22828',
    root: 'ba425e4cd86a67ec9845496c54a938705bc431e7ec904ca613f44a4e907b68bd',
  },
  // The trimmed astro lockfile keeps no root importer.
  'astro/pnpm-lock.yaml': {
    count: 231,
    all: '50ec40519c96856d48f9c07335764b9e4075a1d30e745d009ba65179c4ab9114',
    root: undefined,
  },
  'lit/package-lock.json': {
    count: 63,
    all: 'a8dce472584ebd1be29c6b0c3949cd86ccfee278a5d862b63d06a516633b2a65',
    root: 'c1e0b7ad185e6e74af72f843f459dea28f3001534004c3a09c965da56a607f3a',
  },
  'yarn-berry-jest/yarn.lock': {
    count: 71,
    all: '9d21df1b9217720336091bda001ad2270951c97d6315584e73d5988b22a2e3b1',
    root: '421a40c4b8027ef152985a64a609fa3ee72ada4937e399644499d80527c278c6',
  },
  'yarn-v1-webpack/yarn.lock': {
    count: 1,
    all: '408a73da4439e5a522ccd08f90f10541fb4a1dbe9f80d5083280460fac210479',
    root: '18581f7e2b6b2934e011d0aa948a00a8e21b30b5d1f4058ffa495198a8ef2adf',
  },
};

function summary(folder: string, file: string, names: boolean) {
  const root = join(fixturesDir(), folder);
  const { slices } = slicesFromLockfile(readFileSync(join(root, file)), { lockfile: file, root, names });
  const lines = slices.map((slice) => `${slice.importer} ${slice.digest}`).sort();
  return {
    count: slices.length,
    all: sha256Hex(lines.join('\n')),
    root: slices.find((slice) => slice.importer === '.')?.digest,
  };
}

const CASES = [
  ['vue-core', 'pnpm-lock.yaml', true],
  ['vite', 'pnpm-lock.yaml', true],
  ['astro', 'pnpm-lock.yaml', true],
  ['lit', 'package-lock.json', true],
  ['yarn-berry-jest', 'yarn.lock', false],
  ['yarn-v1-webpack', 'yarn.lock', true],
] as const;

for (const [folder, file, names] of CASES) {
  test(`golden: the slice digests of ${folder}/${file} are what users' keys were built from`, () => {
    assert.deepEqual(summary(folder, file, names), GOLDEN[`${folder}/${file}`]);
  });
}

test('golden: the table key of a fixed pnpm workspace (inputs and full scope)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-golden-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), '{"name":"golden","private":true}\n');
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\n");
  writeFileSync(join(dir, 'pnpm-lock.yaml'), readFileSync(join(fixturesDir(), 'vue-core', 'pnpm-lock.yaml')));
  const inputs = readWorkspaceFingerprints(dir, { scope: 'inputs' }).key;
  const full = readWorkspaceFingerprints(dir, { scope: 'full' }).key;
  assert.deepEqual(
    { inputs, full },
    {
      inputs: '5830c1b212365b8fe1cc8d6c11de617e107637e237a0309e6a0afdaec4edb6dd',
      full: '418af225652f05dab0cf4c2a4d1c2b23c9495b485e3ab584becfd41534b6133d',
    },
  );
});

// The reach (core/slices/reach.ts, slice file version lockguard-slice/2): the hoisted pool's digest and how
// many projects fold it (those that install a package; every project where the linker puts the pool in the root
// node_modules: npm, core/slices/layout.ts). Pinned when the slice files' `reach` line came in; lit's count
// moved from 61 to all 63 projects with layout.ts (its 2 projects that install no package resolve npm's root).
const GOLDEN_REACH: Record<string, readonly [pool: string, reaching: number]> = {
  'vue-core/pnpm-lock.yaml': ['546c622b8255e709acdfa815e57c845ccd4c24d5b47741103fa50202ea89ac19', 14],
  'vite/pnpm-lock.yaml': ['19c1b23e136d9b7262a5d90bffd5fb1ebce0161f3d05e338909fbf0a42bdbc91', 76],
  'astro/pnpm-lock.yaml': ['9d5dc5a69d594cd8b435720ba609efdfa02960806c25f8a859501db13dbff2bb', 221],
  'lit/package-lock.json': ['3c560c7799f20ad16a8be9ced8455c0511646c9f82ac5d3828a3e89eb865a63f', 63],
  'yarn-berry-jest/yarn.lock': ['3966b3e0ce1bd429621f705c9ef005b42b0aeb7c4d582a7005d6b01531cdb15d', 70],
  'yarn-v1-webpack/yarn.lock': ['bdd8a9c8cca99b36a2e4b1cba9fe4b1e754b80dc79636fd955c48e775706bbb7', 1],
};

for (const [folder, file, names] of CASES) {
  test(`golden: the hoisted pool's digest of ${folder}/${file}, and how many projects fold it`, () => {
    const root = join(fixturesDir(), folder);
    const sliced = slicesFromLockfile(readFileSync(join(root, file)), { lockfile: file, root, names });
    assert.deepEqual(
      [sliced.pool, sliced.slices.filter((slice) => slice.reach !== undefined).length],
      GOLDEN_REACH[`${folder}/${file}`],
    );
  });
}
