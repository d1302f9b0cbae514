// Every workspace file lockguard opens goes through the bounded reader (lib/core/bounded-read.ts), through the
// real CLI: a config file, ignore file, manifest or lockfile that is a link to /dev/zero, a FIFO, or a 1 GiB
// file (sparse: it costs no disk) is exit 2 naming the path (and the limit), never a read without end, a hang
// or exit 70. Each process runs under cliProcess's timeout: a hang fails the test, never the suite.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { assertSetupError } from '../helpers/errors.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

type Hostile = 'dev-zero' | 'fifo' | 'one-gib';
const HOSTILE: readonly Hostile[] = ['dev-zero', 'fifo', 'one-gib'];

/** Put the hostile thing at `path` (whatever was there is removed first). */
function plant(path: string, kind: Hostile): void {
  rmSync(path, { force: true });
  if (kind === 'dev-zero') symlinkSync('/dev/zero', path);
  else if (kind === 'fifo') assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
  else {
    writeFileSync(path, '');
    truncateSync(path, 1024 ** 3);
  }
}

/** Every path under `root` with its size and mtime (a FIFO or device as its type): what a refusal must leave. */
function inventory(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      const stat = lstatSync(path);
      return `${path.slice(root.length)} ${stat.isFile() ? `${stat.size} ${stat.mtimeMs}` : stat.mode}`;
    })
    .sort();
}

/** Exit 2 naming the path; a 1 GiB file's line names the limit too. */
function assertRefused(result: ReturnType<typeof cliProcess>, path: string, kind: Hostile, limit: string): void {
  assert.equal(result.signal, null, `finished (no hang): ${kind} at ${path}`);
  assertSetupError(result, path);
  if (kind === 'one-gib') assert.match(result.stderr, new RegExp(`at most ${limit}`), result.stderr);
}

const TURBO = '{ "tasks": { "build": { "outputs": ["dist/**"] } } }\n';

test('lockguard run: the adoption check reads turbo.json, turbo.jsonc, nx.json and .nxignore bounded (a link to /dev/zero, a FIFO, 1 GiB)', (t) => {
  const cases: readonly (readonly [file: string, others: Record<string, string>])[] = [
    ['turbo.json', {}],
    ['turbo.jsonc', {}],
    ['nx.json', {}],
    ['.nxignore', { 'nx.json': '{}\n' }],
  ];
  for (const [file, others] of cases) {
    for (const kind of HOSTILE) {
      const root = tempWorkspace(t, { ...pnpmTree(), ...others });
      const path = join(root, file);
      plant(path, kind);
      assertRefused(cliProcess(['run', '--no-pre-check', '--', 'true'], root), path, kind, '16 MiB');
    }
  }
});

test('lockguard init: .gitignore, package.json, turbo.json and nx.json are read bounded', (t) => {
  const cases: readonly (readonly [file: string, argv: readonly string[], others: Record<string, string>])[] = [
    ['.gitignore', ['init', '--no-sound-keys', '--no-pnpmfile'], {}],
    ['package.json', ['init', '--no-sound-keys', '--no-pnpmfile', '--npm-scripts'], {}],
    ['turbo.json', ['init', '--sound-keys', '--no-pnpmfile'], {}],
    ['nx.json', ['init', '--sound-keys', '--no-pnpmfile'], {}],
  ];
  for (const [file, argv, others] of cases) {
    for (const kind of HOSTILE) {
      const root = tempWorkspace(t, { ...pnpmTree(), ...others });
      const path = join(root, file);
      plant(path, kind);
      assertRefused(cliProcess(argv, root), path, kind, '16 MiB');
    }
  }
});

test('the root package.json: doctor, init, run and snapshot refuse a link to /dev/zero, a FIFO and 1 GiB, init before any edit', (t) => {
  // doctor once read it unbounded (nx's check: 17 GB then abort on /dev/zero, a hang on a FIFO); init took a
  // FIFO for no package.json and edited the rest.
  const commands = [
    ['doctor'],
    ['init', '--no-sound-keys'],
    ['run', '--no-pre-check', '--', 'true'],
    ['snapshot'],
  ] as const;
  for (const argv of commands) {
    for (const kind of HOSTILE) {
      const root = tempWorkspace(t, pnpmTree());
      const path = join(root, 'package.json');
      plant(path, kind);
      const before = inventory(root);
      const result = cliProcess(argv, root);
      if (argv[0] === 'doctor') {
        assert.equal(result.signal, null, `doctor finished: ${kind}`);
        assert.equal(result.code, 1, `doctor fails a check: ${kind}\n${result.stdout}${result.stderr}`);
        const line = result.stdout.split('\n').find((text) => text.startsWith('FAIL  settings'));
        assert.ok(line?.includes(path), `doctor's settings check names ${path}:\n${result.stdout}`);
      } else assertRefused(result, path, kind, '16 MiB');
      if (argv[0] === 'init') assert.deepEqual(inventory(root), before, `init changed nothing: ${kind}`);
    }
  }
});

test('the team settings are never quietly the defaults: a package.json that is not JSON, or a link to one, is read or refused by name', (t) => {
  // A trailing comma once turned a team's "refuse" into "withhold" without a word, and doctor said ok.
  const broken = tempWorkspace(t, {
    ...pnpmTree(),
    'package.json': '{"name":"root","lockguard":{"policy":"refuse"},}\n',
  });
  for (const argv of [
    ['run', '--no-pre-check', '--', 'true'],
    ['init', '--no-sound-keys'],
  ]) {
    const result = cliProcess(argv, broken);
    assertSetupError(result, join(broken, 'package.json'));
    assert.match(result.stderr, /is not valid JSON, so the team settings/);
  }
  const doctor = cliProcess(['doctor'], broken);
  assert.match(doctor.stdout, /FAIL {2}settings .*is not valid JSON/);
  // A link inside the workspace is read (its bad value refused); one outside is refused by name.
  const linked = tempWorkspace(t, {
    ...pnpmTree(),
    'config/root.json': '{"name":"root","lockguard":{"policy":"bogus"}}\n',
  });
  rmSync(join(linked, 'package.json'));
  symlinkSync('config/root.json', join(linked, 'package.json'));
  const bad = cliProcess(['run', '--no-pre-check', '--', 'true'], linked);
  assertSetupError(bad, join(linked, 'package.json'));
  assert.match(bad.stderr, /sets "lockguard\.policy" to a value it does not take/);
  const outside = tempWorkspace(t, { 'root.json': '{"name":"root","lockguard":{"policy":"refuse"}}\n' });
  rmSync(join(linked, 'package.json'));
  symlinkSync(join(outside, 'root.json'), join(linked, 'package.json'));
  const far = cliProcess(['run', '--no-pre-check', '--', 'true'], linked);
  assertSetupError(far, join(linked, 'package.json'));
  assert.match(far.stderr, /outside the workspace/);
});

test('the lockfile: key, snapshot and run refuse a link to /dev/zero, a FIFO and a 1 GiB pnpm-lock.yaml with exit 2 (never "Cannot create a string longer")', (t) => {
  for (const argv of [['key'], ['key', '--projects'], ['snapshot'], ['run', '--no-pre-check', '--', 'true']]) {
    for (const kind of HOSTILE) {
      const root = tempWorkspace(t, pnpmTree());
      const path = join(root, 'pnpm-lock.yaml');
      plant(path, kind);
      const result = cliProcess(argv, root);
      assertRefused(result, path, kind, '256 MiB');
      assert.doesNotMatch(result.stderr, /Cannot create a string/);
    }
  }
});

test('a table entry over the limit is named as what it is (a workspace manifest was once "too large to be a lockfile")', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const path = join(root, 'pnpm-workspace.yaml');
  plant(path, 'one-gib');
  const result = cliProcess(['snapshot'], root);
  assertRefused(result, path, 'one-gib', '256 MiB');
  assert.match(result.stderr, /too large to be a file of the fingerprint table/);
  assert.doesNotMatch(result.stderr, /to be a lockfile/);
});

test('a config file linked to a regular file inside the workspace is read; one linked outside is refused by name', (t) => {
  // Inside: init follows turbo.json's link (no "no turbo.json here") and writes through it, keeping the link.
  const root = tempWorkspace(t, { ...pnpmTree(), 'config/turbo.json': TURBO });
  symlinkSync('config/turbo.json', join(root, 'turbo.json'));
  const init = cliProcess(['init', '--sound-keys', '--no-pnpmfile'], root);
  assert.equal(init.code, 0, init.stderr);
  assert.doesNotMatch(init.stdout, /no turbo\.json or nx here/);
  assert.equal(lstatSync(join(root, 'turbo.json')).isSymbolicLink(), true, 'the link stays a link');
  assert.equal(readlinkSync(join(root, 'turbo.json')), 'config/turbo.json');
  assert.match(readFileSync(join(root, 'config/turbo.json'), 'utf8'), /\.lockguard-slice/);

  // Outside: refused, naming the link.
  const other = tempWorkspace(t, { 'turbo.json': TURBO });
  const linked = tempWorkspace(t, pnpmTree());
  symlinkSync(join(other, 'turbo.json'), join(linked, 'turbo.json'));
  const result = cliProcess(['run', '--no-pre-check', '--', 'true'], linked);
  assertSetupError(result, join(linked, 'turbo.json'));
  assert.match(result.stderr, /outside the workspace/);
});
