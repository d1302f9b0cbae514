// Slices of pnpm 8 lockfiles (lockfileVersion 6.0), read through @pnpm/lockfile-file: every importer gets
// a slice, a change moves exactly the slices that reach it (reach computed independently by reach.ts over
// lockfile-file's parse), broken and unknown-version files are clear errors, and the v9 path never loads
// lockfile-file. Fixtures: pnpm8-registry (hand-written in pnpm 8's registry layout: `/name@version` keys,
// peer suffixes, an npm: alias, link:, dev and optional) and pnpm8-file-tarballs (written by pnpm 8.15.9
// from local tarballs: `file:` keys, a peer suffix, an override).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import {
  diffSlices,
  slicesFromLockfile,
  slicesFromLockfileAsync,
  type LockfileSlices,
} from '../../../../lib/core/slices/index.js';
import { repoRoot } from '../../../helpers/fixtures.js';
import { parseWithPnpm, pnpmReach } from '../../../helpers/slices-reach.js';

const ROOT = '/nonexistent/lockguard-v6';
const fixture = (name: string): string =>
  readFileSync(join(repoRoot(), 'test', 'core', 'slices', 'fixtures', name, 'pnpm-lock.yaml'), 'utf8');
const slices = (text: string): Promise<LockfileSlices> =>
  slicesFromLockfileAsync(Buffer.from(text), { lockfile: 'pnpm-lock.yaml', root: ROOT, names: false });
const digests = (result: LockfileSlices): Map<string, string> =>
  new Map(result.slices.map((slice) => [slice.importer, slice.digest]));

function changed(before: LockfileSlices, after: LockfileSlices): string[] {
  const old = digests(before);
  return after.slices
    .filter((slice) => old.get(slice.importer) !== slice.digest)
    .map((slice) => slice.importer)
    .sort();
}

async function reachersOf(text: string, node: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-v6-reach-'));
  try {
    const reach = pnpmReach(await parseWithPnpm(dir, text));
    return [...reach]
      .filter(([, nodes]) => nodes.has(node))
      .map(([id]) => id)
      .sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const name of ['pnpm8-registry', 'pnpm8-file-tarballs']) {
  test(`${name}: a slice per importer, distinct where closures differ; the sync reader points to the async one`, async () => {
    const text = fixture(name);
    const result = await slices(text);
    const dir = mkdtempSync(join(tmpdir(), 'lockguard-v6-ids-'));
    const parsed = await parseWithPnpm(dir, text).finally(() => rmSync(dir, { recursive: true, force: true }));
    assert.deepEqual(
      result.slices.map((slice) => slice.importer),
      Object.keys(parsed.importers).sort(),
    );
    assert.equal(new Set(result.slices.map((slice) => slice.digest)).size, result.slices.length);
    assert.throws(() => slicesFromLockfile(Buffer.from(text), { lockfile: 'pnpm-lock.yaml', root: ROOT }), {
      code: 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE',
    });
    // Same bytes, same digests; a comment (same parse) keeps them too.
    assert.deepEqual(digests(await slices(text)), digests(result));
    assert.deepEqual(digests(await slices(`${text}\n# a note\n`)), digests(result));
  });

  test(`${name}: changing one package's entry moves exactly the slices that reach it`, async () => {
    const text = fixture(name);
    const before = await slices(text);
    const dir = mkdtempSync(join(tmpdir(), 'lockguard-v6-keys-'));
    const parsed = await parseWithPnpm(dir, text).finally(() => rmSync(dir, { recursive: true, force: true }));
    const keys = Object.keys(parsed.packages ?? {});
    assert.ok(keys.length >= 4);
    // Each package in turn: a different integrity in its entry (the line after its key).
    const blocks = text.split('\n\n');
    let partial = 0;
    for (const key of keys) {
      const at = blocks.findIndex(
        (block) => /^ {2}\S/.test(block) && block.includes('integrity: sha512-') && parsedKeyOf(block) === key,
      );
      assert.notEqual(at, -1, key);
      const mutated = blocks
        .map((block, i) => (i === at ? block.replace('integrity: sha512-', 'integrity: sha512-X') : block))
        .join('\n\n');
      const expected = await reachersOf(mutated, `pkg:${key}`);
      assert.ok(expected.length > 0, key);
      if (expected.length < before.slices.length) partial++;
      assert.deepEqual(changed(before, await slices(mutated)), expected, key);
    }
    assert.ok(partial > 0, 'some package is reached by some importers only');
  });
}

/** The lockfile-file depPath of a v6 `packages` block: `/name@1.0.0(...)` -> `name@1.0.0(...)`; `file:x` -> `name@file:x`. */
function parsedKeyOf(block: string): string {
  const header = (block.split('\n')[0] ?? '')
    .trim()
    .replace(/:$/, '')
    .replace(/^'(.*)'$/, '$1');
  if (header.startsWith('/')) return header.slice(1);
  const name = /\n {4}name: (\S+)/.exec(block)?.[1] ?? '';
  return `${name}@${header}`;
}

test('pnpm8-registry: a version bump of a transitive package (ms 2.1.2 -> 2.1.3) is a diff of exactly its reachers', async () => {
  const text = fixture('pnpm8-registry');
  const bumped = text.replaceAll('/ms@2.1.2:', '/ms@2.1.3:').replaceAll('ms: 2.1.2', 'ms: 2.1.3');
  assert.notEqual(bumped, text);
  const [before, after] = [await slices(text), await slices(bumped)];
  const expected = await reachersOf(bumped, 'pkg:ms@2.1.3');
  assert.deepEqual(expected, ['packages/app', 'packages/lib']);
  assert.deepEqual(changed(before, after), expected);
  const diff = diffSlices(before, after);
  assert.deepEqual(
    diff.changed.map((change) => change.importer),
    expected,
  );
  for (const change of diff.changed)
    assert.deepEqual(change.packages, [{ name: 'ms', kind: 'changed', from: ['2.1.2'], to: ['2.1.3'] }]);
  // The other two install packages, whose code resolves the hoisted pool: their reach moved (core/slices/reach.ts).
  assert.deepEqual(diff.hoisted, ['.', 'packages/tool']);
  assert.equal(diff.unchanged, 0);
});

test('a single-project v6 lockfile (top-level dependencies, no importers) has the slice "."', async () => {
  const text =
    "lockfileVersion: '6.0'\n\ndependencies:\n  ms:\n    specifier: ^2.1.2\n    version: 2.1.2\n\npackages:\n\n  /ms@2.1.2:\n    resolution: {integrity: sha512-a}\n    dev: false\n";
  const result = await slices(text);
  assert.deepEqual(
    result.slices.map((slice) => slice.importer),
    ['.'],
  );
  assert.notEqual(digests(await slices(text.replace('sha512-a', 'sha512-b'))).get('.'), digests(result).get('.'));
});

test('a broken v6 lockfile is ERR_LOCKGUARD_BROKEN_LOCKFILE naming the path, never echoing its contents', async () => {
  const secret = 'npm_SECRETtokenVALUE123';
  for (const text of [
    `lockfileVersion: '6.0'\n\nimporters:\n  .:\n    dependencies: [${secret}\n  bad: {\n`,
    `lockfileVersion: '6.0'\n\npackages:\n\n  /ms@2.1.2:\n    resolution: {integrity: ${secret}}\n  - ${secret}\n`,
  ]) {
    await assert.rejects(slices(text), (error: Error & { code?: string; path?: string }) => {
      assert.equal(error.code, 'ERR_LOCKGUARD_BROKEN_LOCKFILE');
      assert.equal(error.path, join(ROOT, 'pnpm-lock.yaml'));
      assert.ok(error.message.includes(join(ROOT, 'pnpm-lock.yaml')));
      assert.ok(!`${error.message}${String((error as { hint?: string }).hint)}`.includes(secret));
      return true;
    });
  }
});

test('lockfileVersions other than 6.x and 9.x are ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE naming the version', async () => {
  for (const version of ['4.0', '5.4', '10.0']) {
    const text = `lockfileVersion: '${version}'\n\nimporters:\n\n  .: {}\n`;
    for (const attempt of [
      () => slices(text),
      async () => slicesFromLockfile(Buffer.from(text), { lockfile: 'pnpm-lock.yaml', root: ROOT }),
    ]) {
      await assert.rejects(attempt(), (error: Error & { code?: string; path?: string }) => {
        assert.equal(error.code, 'ERR_LOCKGUARD_UNSUPPORTED_LOCKFILE');
        assert.equal(error.path, join(ROOT, 'pnpm-lock.yaml'));
        assert.ok(error.message.includes(version), version);
        return true;
      });
    }
  }
});

test('the v9 path never loads @pnpm/lockfile-file; the v6 path does', () => {
  const slicesModule = pathToFileURL(join(repoRoot(), 'dist', 'lib', 'core', 'slices', 'slices.js')).href;
  const probe = (version: string): string => {
    const script = `
      import { createRequire } from 'node:module';
      const { slicesFromLockfileAsync } = await import(${JSON.stringify(slicesModule)});
      const text = "lockfileVersion: '${version}'\\n\\nimporters:\\n\\n  .: {}\\n";
      await slicesFromLockfileAsync(Buffer.from(text), { lockfile: 'pnpm-lock.yaml', root: '/nonexistent', names: false });
      const cache = createRequire(import.meta.url).cache;
      process.stdout.write(String(Object.keys(cache).some((path) => path.includes('lockfile-file'))));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
      cwd: repoRoot(),
    });
    assert.equal(child.status, 0, child.stderr);
    return child.stdout;
  };
  assert.equal(probe('9.0'), 'false');
  assert.equal(probe('6.0'), 'true');
});
