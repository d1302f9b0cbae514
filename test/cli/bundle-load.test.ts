// The executable as it ships: dist/lockguard.cjs picks one bundle per command (dist/cli/<command>.cjs) and
// compiles it from source through node:vm (lib/cli/bundle-load.ts). No V8 code cache ships: one made by the
// build's Node is rejected by every other Node (issue 34).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compileBundle, wrapBundle } from '../../lib/cli/bundle-load.js';
import { COMMAND_NAMES } from '../../lib/cli/command-names.js';
import { CHUNKS } from '../../lib/core/chunks.js';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { BIN, cli } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const CLI = fileURLToPath(new URL('../../cli/', import.meta.url));

test('every command has its bundle, written wrapped, and no code cache sits next to any', () => {
  const files = readdirSync(CLI);
  assert.deepEqual(
    files.filter((file) => !file.endsWith('.cjs')),
    [],
    'dist/cli holds bundles only',
  );
  for (const name of ['main', ...COMMAND_NAMES, ...CHUNKS])
    assert.ok(files.includes(`${name}.cjs`), `dist/cli/${name}.cjs`);
});

// core/package-managers/chunk-load.ts: each package manager's install check and readers are a chunk of their
// own. A bundle that carried them again (an import that goes round chunk-load.ts) would pass every other test.
test("no command's bundle carries a package manager's install check or slice reader; each chunk carries its own", () => {
  const defines = (name: string, fn: string) =>
    new RegExp(`function ${fn}\\(`).test(readFileSync(join(CLI, `${name}.cjs`), 'latin1'));
  const heavy = {
    pnpm: ['checkPnpm', 'pnpmLockfileSliceGraph'],
    yarn: ['checkYarn', 'yarnSliceGraph'],
    bun: ['checkBun', 'bunSliceGraph', 'readBunLock'],
    npm: ['checkNpm', 'npmSliceGraph'],
  } as const;
  for (const [manager, fns] of Object.entries(heavy)) {
    for (const fn of fns) {
      assert.ok(defines(`pm-${manager}`, fn), `pm-${manager}.cjs defines ${fn}`);
      for (const bundle of ['main', ...COMMAND_NAMES, 'recover-runs'])
        assert.ok(!defines(bundle, fn), `${bundle}.cjs carries ${fn}`);
    }
  }
});

test("a bundle's lockguard-chunk: requires are what the launcher's loader returns; without one they fail by name", async (t) => {
  const dir = tempWorkspace(t, {});
  const file = join(dir, 'host.cjs');
  writeFileSync(file, wrapBundle("module.exports.load = () => require('lockguard-chunk:pm-npm');\n"));
  const asked: string[] = [];
  const chunk = { checkNpm() {} };
  const loaded = compileBundle(file).run(
    async () => undefined,
    undefined,
    (name) => {
      asked.push(name);
      return chunk;
    },
  );
  assert.equal((loaded.load as () => unknown)(), chunk);
  assert.deepEqual(asked, ['pm-npm']);
  const alone = compileBundle(file).run(async () => undefined);
  assert.throws(
    () => (alone.load as () => unknown)(),
    /asks for lockguard-chunk:pm-npm, and nothing loads chunks for it/,
  );
});

test("a chunk's lockguard-shared: requires are its host's modules, the same objects; a name not shared is an error", async (t) => {
  const dir = tempWorkspace(t, {});
  const file = join(dir, 'chunk.cjs');
  writeFileSync(
    file,
    wrapBundle(
      "module.exports.errors = require('lockguard-shared:core/errors.js');\nmodule.exports.path = require('node:path').sep;\nmodule.exports.missing = () => require('lockguard-shared:nope.js');\n",
    ),
  );
  const errors = { LockguardError: class {} };
  const exports = compileBundle(file).run(async () => undefined, { 'core/errors.js': errors });
  assert.equal(exports.errors, errors);
  assert.equal(exports.path, '/');
  assert.throws(
    () => (exports.missing as () => unknown)(),
    /asks for lockguard-shared:nope\.js, which the bundle loading it does not share/,
  );
});

test('a bundle runs with the five CommonJS names and the importer, wrapped by the build or not', async (t) => {
  const dir = tempWorkspace(t, {});
  const code = 'module.exports.value = [typeof require, __filename, typeof __lockguardImport];\n';
  for (const [name, text] of [
    ['plain.cjs', code],
    ['wrapped.cjs', wrapBundle(code)],
  ] as const) {
    const file = join(dir, name);
    writeFileSync(file, text);
    const exports = compileBundle(file).run(async () => undefined);
    assert.deepEqual(exports.value, ['function', file, 'function'], name);
  }
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
    // --quiet and --verbose before the command pick its bundle too (--quiet once routed to main's "unknown
    // command", which --quiet then hid: exit 2 and nothing printed).
    ['--quiet', '-C', root, 'key'],
    ['-C', root, '--quiet', 'key'],
    ['--verbose', '-C', root, 'key'],
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
  const quietTypo = run(['--quiet', 'stauts']);
  assert.equal(quietTypo.status, EXIT.usage);
  assert.match(
    quietTypo.stderr,
    /unknown command "stauts"\.\n {2}Did you mean "lockguard status"\?/,
    'an error --quiet keeps',
  );
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
