// The executable as it ships: dist/lockguard.cjs picks one bundle per command (dist/cli/<command>.cjs) and
// loads it with the V8 code cache the build trained (lib/cli/bundle-load.ts). A cache is used only for the
// exact bytes it was made from and only by the V8 that made it; anything else compiles from source.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cachedDataFor, cacheHeader, cachePathOf, compileBundle } from '../../lib/cli/bundle-load.js';
import { COMMAND_NAMES } from '../../lib/cli/command-names.js';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { BIN, cli } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const CLI = fileURLToPath(new URL('../../cli/', import.meta.url));

/** A bundle file and its cache, made the way the build makes them. */
function bundleWithCache(dir: string, source: string): string {
  const file = join(dir, 'tiny.cjs');
  writeFileSync(file, source);
  const compiled = compileBundle(file, { cache: false });
  compiled.run(async () => undefined);
  const bytes = readFileSync(file);
  const data = compiled.script.createCachedData();
  writeFileSync(
    cachePathOf(file),
    Buffer.concat([Buffer.from(cacheHeader(bytes.length, data.length), 'latin1'), bytes, data]),
  );
  return file;
}

const LOADER = fileURLToPath(new URL('../../lib/cli/bundle-load.js', import.meta.url));

/**
 * What a fresh process gets from `file` (a process compiles each source once, as the executable does: a
 * second compile in the same process would come from V8's in-memory cache and never look at the file's).
 */
function compiledValueOf(file: string): { value: unknown; cacheUsed: boolean } {
  const script = `const { compileBundle } = await import(${JSON.stringify(LOADER)});
const compiled = compileBundle(${JSON.stringify(file)});
const value = compiled.run(async () => undefined).value;
process.stdout.write(JSON.stringify({ value: value ?? null, cacheUsed: compiled.cacheUsed }));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as { value: unknown; cacheUsed: boolean };
}

test('every command has its bundle, and this Node takes every cache the build made', () => {
  const files = readdirSync(CLI);
  for (const name of ['main', ...COMMAND_NAMES]) {
    assert.ok(files.includes(`${name}.cjs`), `dist/cli/${name}.cjs`);
    assert.ok(files.includes(`${name}.cjs.v8cache`), `dist/cli/${name}.cjs.v8cache`);
    assert.equal(
      compiledValueOf(join(CLI, `${name}.cjs`)).cacheUsed,
      true,
      `${name}: the cache was made by this V8 from these bytes`,
    );
  }
});

test('never stale: a bundle that changed (same length) compiles from source and runs its new code', (t) => {
  const dir = tempWorkspace(t, {});
  const file = bundleWithCache(dir, 'module.exports.value = "one";\n');
  assert.deepEqual(compiledValueOf(file), { value: 'one', cacheUsed: true });
  writeFileSync(file, 'module.exports.value = "two";\n');
  assert.deepEqual(compiledValueOf(file), { value: 'two', cacheUsed: false });
});

test('a cache of another V8, a torn or garbage cache file, or one V8 rejects: compiled from source, the same result', (t) => {
  const dir = tempWorkspace(t, {});
  const file = bundleWithCache(dir, 'module.exports.value = 40 + 2;\n');
  const source = readFileSync(file);
  const cache = readFileSync(cachePathOf(file));
  assert.ok(cachedDataFor(cache, source) !== undefined);
  const header = cache.subarray(0, cache.indexOf(10) + 1).toString('latin1');
  const foreign = Buffer.concat([
    Buffer.from(header.replace(process.versions.v8, '1.2.3.4'), 'latin1'),
    cache.subarray(header.length),
  ]);
  assert.equal(cachedDataFor(foreign, source), undefined, 'made by another V8');
  assert.equal(cachedDataFor(cache.subarray(0, cache.length - 1), source), undefined, 'torn');
  assert.equal(cachedDataFor(Buffer.from('not a cache'), source), undefined, 'garbage');
  // V8's own checks: data that passes ours but that V8 refuses (here its version hash) is no cache either.
  const data = Buffer.from(cache.subarray(header.length + source.length));
  data.fill(0xab, 4, 8);
  writeFileSync(cachePathOf(file), Buffer.concat([Buffer.from(header, 'latin1'), source, data]));
  assert.deepEqual(compiledValueOf(file), { value: 42, cacheUsed: false });
  writeFileSync(cachePathOf(file), 'garbage');
  assert.deepEqual(compiledValueOf(file), { value: 42, cacheUsed: false });
});

test('the executable routes -C <dir>, --dir=<dir>, help, the version and an unknown command to the right bundle', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const elsewhere = tempWorkspace(t, {});
  const run = (argv: readonly string[]) =>
    spawnSync(process.execPath, [BIN, ...argv], {
      cwd: elsewhere,
      env: scrubbedEnv(),
      encoding: 'utf8',
      timeout: 20_000,
    });
  const key = (await cli(['key'], root)).stdout;
  for (const argv of [
    ['-C', root, 'key'],
    ['--dir', root, 'key'],
    [`--dir=${root}`, 'key'],
  ]) {
    const result = run(argv);
    assert.equal(result.status, EXIT.ok, result.stderr);
    assert.equal(result.stdout, key, argv.join(' '));
  }
  assert.match(run(['--version']).stdout, /^\d+\.\d+\.\d+\n$/);
  assert.match(run(['--help']).stdout, /^lockguard: /);
  assert.equal(run(['key', '--help']).status, EXIT.ok);
  const unknown = run(['nosuch']);
  assert.equal(unknown.status, EXIT.usage);
  assert.match(unknown.stderr, /unknown command "nosuch"/);
  assert.equal(run([]).status, EXIT.usage);
});

test('output larger than a pipe holds arrives whole before the process ends', async (t) => {
  const importers = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`packages/p${i}`, {}]));
  const lockfile = `lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n${Object.keys(importers)
    .map((path) => `\n  ${path}: {}\n`)
    .join('')}`;
  const root = tempWorkspace(t, { ...pnpmTree(lockfile) });
  const expected = await cli(['key', '--projects', '--json'], root);
  assert.equal(expected.code, EXIT.ok, expected.stderr);
  assert.ok(expected.stdout.length > 256 * 1024, `${expected.stdout.length} bytes`);
  const shipped = spawnSync(process.execPath, [BIN, 'key', '--projects', '--json'], {
    cwd: root,
    env: scrubbedEnv(),
    encoding: 'utf8',
    timeout: 20_000,
    maxBuffer: 64 << 20,
  });
  assert.equal(shipped.status, EXIT.ok, shipped.stderr);
  assert.equal(shipped.stdout, expected.stdout);
});
