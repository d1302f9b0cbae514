// Odd but valid lockfile bytes, in process through `main` and the library: what pnpm and npm accept (a UTF-8
// BOM, CRLF line breaks) is accepted: every command works, same slices, pre-run check passes; and the slice
// promise holds on bytes they read their own way (npm's `__proto__` field and duplicate keys, pnpm's 4-space
// indentation). What they refuse: main-bad-lockfiles.test.ts; the lockfiles both start from:
// test/helpers/planted-lockfiles.ts.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checkInstall } from '../../lib/core/install-check.js';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { slicesFromLockfile } from '../../lib/core/slices/index.js';
import { cli } from '../helpers/cli.js';
import { NPM_LOCK, npmTree, PNPM_LOCK } from '../helpers/planted-lockfiles.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

describe('what pnpm and npm accept is accepted', () => {
  const variants: [string, (text: string) => Buffer][] = [
    ['a UTF-8 BOM', (text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    ['CRLF line breaks', (text) => Buffer.from(text.replaceAll('\n', '\r\n'))],
    ['a BOM and CRLF', (text) => Buffer.from(`\uFEFF${text.replaceAll('\n', '\r\n')}`)],
  ];
  // Each manager's lockfile, its tree, and the marker its install writes in its own layout (pnpm 10 and 12:
  // test/e2e/hooks-pnpm.test.ts installs them; npm also installs the packages' folders the check looks for).
  const managers = [
    {
      manager: 'pnpm',
      lockfile: 'pnpm-lock.yaml',
      text: PNPM_LOCK,
      tree: () => pnpmTree(PNPM_LOCK),
      install(root: string): void {
        for (const folder of ['node_modules/.pnpm/is-number@7.0.0', 'node_modules/.pnpm/left-pad@1.3.0'])
          mkdirSync(join(root, folder), { recursive: true });
        writeFileSync(join(root, 'node_modules/.pnpm/lock.yaml'), PNPM_LOCK);
      },
    },
    {
      manager: 'npm',
      lockfile: 'package-lock.json',
      text: NPM_LOCK,
      tree: () => npmTree(NPM_LOCK),
      install(root: string): void {
        const marker = JSON.parse(NPM_LOCK) as { packages: Record<string, unknown> };
        delete marker.packages[''];
        for (const folder of ['node_modules/b', 'node_modules/is-number'])
          mkdirSync(join(root, folder), { recursive: true });
        writeFileSync(join(root, 'node_modules/.package-lock.json'), JSON.stringify(marker, null, 2));
      },
    },
  ] as const;
  for (const [what, variant] of variants) {
    for (const { manager, lockfile, text, tree, install } of managers) {
      test(`${manager}, ${what}: every command works; the slices equal the plain file's; the pre-run check passes against ${manager}'s marker`, async (t) => {
        const root = tempWorkspace(t, tree());
        const bytes = variant(text);
        const plain = slicesFromLockfile(Buffer.from(text), { lockfile, root });
        assert.deepEqual(slicesFromLockfile(bytes, { lockfile, root }).slices, plain.slices);
        writeFileSync(join(root, lockfile), bytes);
        for (const argv of [['key'], ['key', '--projects'], ['snapshot']])
          assert.equal((await cli(argv, root)).code, 0, argv.join(' '));
        install(root);
        assert.deepEqual(checkInstall(readWorkspaceFingerprints(root)), { ok: true, checked: manager });
        assert.equal((await cli(['run', '--', 'true'], root)).code, 0);
      });
    }
  }
});

describe('the slice promise holds on odd but valid bytes', () => {
  test('npm: a "__proto__" field is part of the entry (it changes the digest)', (t) => {
    const root = tempWorkspace(t, npmTree(NPM_LOCK));
    const digest = (text: string): string | undefined =>
      slicesFromLockfile(Buffer.from(text), { lockfile: 'package-lock.json', root }).slices.find(
        (s) => s.importer === 'packages/b',
      )?.digest;
    const plain = digest(NPM_LOCK);
    const one = digest(NPM_LOCK.replace('"version": "7.0.0",', '"version": "7.0.0",\n      "__proto__": {"a": 1},'));
    const two = digest(NPM_LOCK.replace('"version": "7.0.0",', '"version": "7.0.0",\n      "__proto__": {"a": 2},'));
    assert.notEqual(one, plain);
    assert.notEqual(one, two);
  });

  test('npm: duplicate keys read as npm reads them (the last one wins)', (t) => {
    const root = tempWorkspace(t, npmTree(NPM_LOCK));
    const digest = (text: string): string | undefined =>
      slicesFromLockfile(Buffer.from(text), { lockfile: 'package-lock.json', root }).slices.find(
        (s) => s.importer === 'packages/b',
      )?.digest;
    assert.equal(
      digest(NPM_LOCK.replace('"version": "7.0.0",', '"version": "6.0.0",\n      "version": "7.0.0",')),
      digest(NPM_LOCK),
    );
  });

  test("pnpm: 4-space indentation (pnpm reads it) gives the same graph as pnpm's own layout", (t) => {
    const root = tempWorkspace(t, pnpmTree(PNPM_LOCK));
    const wide = PNPM_LOCK.replace(/^( +)/gm, (spaces) => spaces + spaces);
    const a = slicesFromLockfile(Buffer.from(PNPM_LOCK), { lockfile: 'pnpm-lock.yaml', root });
    const b = slicesFromLockfile(Buffer.from(wide), { lockfile: 'pnpm-lock.yaml', root });
    assert.deepEqual(
      b.slices.map((s) => s.importer),
      a.slices.map((s) => s.importer),
    );
    assert.deepEqual(b.graph.edges, a.graph.edges);
  });
});
