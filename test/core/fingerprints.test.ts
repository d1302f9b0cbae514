// The fingerprint table: entries per package manager and scope, digests, the key, and refusals.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

test('pnpm full scope: lockfile, manifest, pnpmfiles, markers; absent ones recorded absent', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  assert.equal(table.manager, 'pnpm');
  assert.deepEqual(
    table.entries.map((entry) => [entry.path, entry.digest === null ? 'absent' : 'file']),
    [
      ['pnpm-lock.yaml', 'file'],
      ['pnpm-workspace.yaml', 'file'],
      ['.pnpmfile.cjs', 'absent'],
      ['.pnpmfile.mjs', 'absent'],
      ['node_modules/.pnpm/lock.yaml', 'absent'],
      ['node_modules/.modules.yaml', 'absent'],
    ],
  );
  assert.ok(table.files.get('pnpm-lock.yaml')?.equals(Buffer.from(LOCK)));
});

test('inputs scope leaves the install markers out, and so does its key', (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(LOCK), node_modules: { '.pnpm': { 'lock.yaml': LOCK } } });
  const inputs = readWorkspaceFingerprints(root, { scope: 'inputs' });
  const full = readWorkspaceFingerprints(root);
  assert.ok(inputs.entries.every((entry) => entry.kind !== 'install-marker'));
  fs.writeFileSync(join(root, 'node_modules/.pnpm/lock.yaml'), 'other\n');
  assert.equal(readWorkspaceFingerprints(root, { scope: 'inputs' }).key, inputs.key);
  assert.notEqual(readWorkspaceFingerprints(root).key, full.key);
});

test('the key depends only on paths and bytes: two folders with the same files agree', (t) => {
  const a = tempWorkspace(t, pnpmTree(LOCK));
  const b = tempWorkspace(t, pnpmTree(LOCK));
  assert.equal(readWorkspaceFingerprints(a).key, readWorkspaceFingerprints(b).key);
  fs.writeFileSync(join(b, 'pnpm-lock.yaml'), LOCK.replace('9.0', '9.1'));
  assert.notEqual(readWorkspaceFingerprints(a).key, readWorkspaceFingerprints(b).key);
  // Absence counts: creating an empty pnpmfile changes the key.
  const before = readWorkspaceFingerprints(a).key;
  fs.writeFileSync(join(a, '.pnpmfile.cjs'), '');
  assert.notEqual(readWorkspaceFingerprints(a).key, before);
});

test('.modules.yaml is normalized: prunedAt does not count, anything else does', (t) => {
  const modules = (prunedAt: string, layout = 5): string =>
    JSON.stringify({ layoutVersion: layout, prunedAt, storeDir: '/s' }, null, 2);
  const root = tempWorkspace(t, {
    ...pnpmTree(LOCK),
    node_modules: { '.modules.yaml': modules('Mon, 30 Nov 2026 01:00:00 GMT') },
  });
  const digestOf = (): string | null =>
    readWorkspaceFingerprints(root).entries.find((entry) => entry.path === 'node_modules/.modules.yaml')?.digest ??
    null;
  const first = digestOf();
  fs.writeFileSync(join(root, 'node_modules/.modules.yaml'), modules('Tue, 01 Dec 2026 09:00:00 GMT'));
  assert.equal(digestOf(), first);
  fs.writeFileSync(join(root, 'node_modules/.modules.yaml'), modules('Tue, 01 Dec 2026 09:00:00 GMT', 6));
  assert.notEqual(digestOf(), first);
});

test('patch files named by the lockfile, the workspace manifest or package.json are entries; paths outside the root are not', (t) => {
  // pnpm writes patchedDependencies in the header, before importers.
  const lock = `lockfileVersion: '9.0'\n\npatchedDependencies:\n  is-number@7.0.0:\n    hash: abc\n    path: patches/is-number@7.0.0.patch\n  evil@1.0.0:\n    path: ../outside.patch\n\nimporters:\n\n  .: {}\n`;
  const root = tempWorkspace(t, {
    ...pnpmTree(lock),
    'pnpm-workspace.yaml':
      'packages:\n  - "packages/*"\npatchedDependencies:\n  left-pad@1.3.0: patches/left-pad.patch\n',
    'package.json': '{"name":"root","pnpm":{"patchedDependencies":{"a@1.0.0":"patches/a.patch"}}}',
    patches: { 'is-number@7.0.0.patch': 'diff\n' },
  });
  const table = readWorkspaceFingerprints(root, { scope: 'inputs' });
  const patches = table.entries
    .filter((entry) => entry.kind === 'patch')
    .map((entry) => [entry.path, entry.digest === null ? 'absent' : 'file']);
  assert.deepEqual(patches, [
    ['patches/a.patch', 'absent'],
    ['patches/is-number@7.0.0.patch', 'file'],
    ['patches/left-pad.patch', 'absent'],
  ]);
});

test("pnpm 12's two-document lockfile is just bytes to the table", (t) => {
  const twoDocs = `---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    packageManagerDependencies: {}\n\n---\n${LOCK}`;
  const root = tempWorkspace(t, pnpmTree(twoDocs));
  const table = readWorkspaceFingerprints(root);
  assert.ok(table.entries[0]?.digest);
});

test('npm, yarn and bun workspaces get their own entries', (t) => {
  const npm = tempWorkspace(t, {
    'package.json': '{"workspaces":["packages/*"]}',
    'package-lock.json': '{"lockfileVersion": 3, "packages": {}}\n',
  });
  assert.deepEqual(
    readWorkspaceFingerprints(npm).entries.map((entry) => entry.path),
    ['package-lock.json', 'npm-shrinkwrap.json', 'node_modules/.package-lock.json'],
  );
  const yarn = tempWorkspace(t, { 'package.json': '{}', 'yarn.lock': '# yarn lockfile v1\n' });
  assert.equal(readWorkspaceFingerprints(yarn).manager, 'yarn');
  assert.deepEqual(
    readWorkspaceFingerprints(yarn).entries.map((entry) => [entry.path, entry.kind]),
    [
      ['yarn.lock', 'lockfile'],
      ['.yarnrc.yml', 'config'],
      ['.yarnrc', 'config'],
      ['.pnp.cjs', 'install-marker'],
      ['.pnp.loader.mjs', 'install-marker'],
      ['.pnp.data.json', 'install-marker'],
      ['node_modules/.yarn-state.yml', 'install-marker'],
      ['node_modules/.yarn-integrity', 'install-marker'],
    ],
  );
  assert.deepEqual(
    readWorkspaceFingerprints(yarn, { scope: 'inputs' }).entries.map((entry) => entry.path),
    ['yarn.lock', '.yarnrc.yml', '.yarnrc'],
  );
  const bun = tempWorkspace(t, { 'package.json': '{}', 'bun.lock': '{\n  "lockfileVersion": 1,\n}\n' });
  assert.deepEqual(
    readWorkspaceFingerprints(bun).entries.map((entry) => entry.path),
    ['bun.lock', 'bun.lockb', 'bunfig.toml'],
  );
});

test("yarn berry patch files named by yarn.lock are entries (~/ is the root, other paths the workspace's); bun's from bun.lock and package.json", (t) => {
  const yarn = tempWorkspace(t, {
    'package.json': '{}',
    'yarn.lock': `__metadata:\n  version: 8\n\n"x@patch:x@npm%3A1.0.0#~/.yarn/patches/x.patch::version=1.0.0&hash=1":\n  resolution: "x@patch:x@npm%3A1.0.0#~/.yarn/patches/x.patch::version=1.0.0&hash=1"\n\n"y@patch:y@npm%3A1.0.0#./p/y.patch::locator=b%40workspace%3Apackages%2Fb":\n  resolution: "y@patch:y@npm%3A1.0.0#./p/y.patch::version=1.0.0&hash=2&locator=b%40workspace%3Apackages%2Fb"\n\n"z@patch:z@npm%3A1.0.0#optional!builtin<compat/z>":\n  version: 1.0.0\n`,
    '.yarn': { patches: { 'x.patch': 'diff\n' } },
  });
  const patches = readWorkspaceFingerprints(yarn, { scope: 'inputs' })
    .entries.filter((entry) => entry.kind === 'patch')
    .map((entry) => [entry.path, entry.digest === null ? 'absent' : 'file']);
  assert.deepEqual(patches, [
    ['.yarn/patches/x.patch', 'file'],
    ['packages/b/p/y.patch', 'absent'],
  ]);
  const bun = tempWorkspace(t, {
    'package.json': '{"patchedDependencies":{"a@1.0.0":"patches/a.patch"}}',
    'bun.lock':
      '{\n  "lockfileVersion": 1,\n  "workspaces": {\n  },\n  "patchedDependencies": {\n    "b@1.0.0": "patches/b.patch",\n  },\n  "packages": {\n    "c": ["c@1.0.0", "", {}, "sha512-x"],\n  }\n}\n',
    patches: { 'b.patch': 'diff\n' },
  });
  const bunPatches = readWorkspaceFingerprints(bun, { scope: 'inputs' })
    .entries.filter((entry) => entry.kind === 'patch')
    .map((entry) => [entry.path, entry.digest === null ? 'absent' : 'file']);
  assert.deepEqual(bunPatches, [
    ['patches/a.patch', 'absent'],
    ['patches/b.patch', 'file'],
  ]);
});

test('a broken lockfile is refused with the path and the line, never its contents', (t) => {
  const secret = 'npm_SECRETTOKEN1234567890';
  for (const [name, text, files] of [
    ['conflict', `${LOCK}<<<<<<< HEAD\n  token: ${secret}\n=======\n>>>>>>> theirs\n`, pnpmTree('')],
    ['empty', '', pnpmTree('')],
    ['no version', `importers: {}\n# ${secret}\n`, pnpmTree('')],
  ] as const) {
    const root = tempWorkspace(t, { ...files, 'pnpm-lock.yaml': text });
    assert.throws(
      () => readWorkspaceFingerprints(root),
      (error: Error & { code?: string; path?: string; hint?: string }) => {
        assert.equal(error.code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE', name);
        assert.equal(error.path, join(root, 'pnpm-lock.yaml'));
        assert.ok(!`${error.message}${error.hint}`.includes(secret), 'contents never leak into errors');
        return true;
      },
    );
  }
  const npm = tempWorkspace(t, { 'package.json': '{}', 'package-lock.json': '[1, 2]\n' });
  assert.throws(() => readWorkspaceFingerprints(npm), { code: 'ERR_LOCKGUARD_BROKEN_LOCKFILE' });
});

test('a FIFO, a directory or a dangling link at the lockfile path: clear errors, no hang', { timeout: 15_000 }, (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(''), 'pnpm-lock.yaml': null });
  assert.equal(spawnSync('mkfifo', [join(root, 'pnpm-lock.yaml')]).status, 0);
  assert.throws(() => readWorkspaceFingerprints(root), {
    code: 'ERR_LOCKGUARD_NOT_A_FILE',
    path: join(root, 'pnpm-lock.yaml'),
  });
  fs.rmSync(join(root, 'pnpm-lock.yaml'));
  fs.mkdirSync(join(root, 'pnpm-lock.yaml'));
  assert.throws(() => readWorkspaceFingerprints(root), { code: 'ERR_LOCKGUARD_NOT_A_FILE' });
  fs.rmSync(join(root, 'pnpm-lock.yaml'), { recursive: true });
  fs.symlinkSync('gone.yaml', join(root, 'pnpm-lock.yaml'));
  assert.throws(() => readWorkspaceFingerprints(root), {
    code: 'ERR_LOCKGUARD_DANGLING_LINK',
    path: join(root, 'pnpm-lock.yaml'),
  });
});
