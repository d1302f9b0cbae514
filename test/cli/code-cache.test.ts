// The CLI's code cache (lib/cli/code-cache.ts) on real runs of the built bin: written once by the Node that
// runs lockguard, under XDG_CACHE_HOME, then read and kept (a rejected or unreadable one would be rewritten, so
// a file left untouched by the second run was read and accepted); never a change in what a command prints or
// its exit code; replaced when garbage; the bundle's older builds removed, and a write tidies the folders (a
// removed bundle's cache, another Node's folder aged out); nothing under CI or when switched
// off; nothing read or written in a folder that is not the user's own (a file, a link outside, another uid's,
// group-writable); on another Node (pinned in .ci/nodes, not the one running the test), a cache of its own.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pinnedNodeBin, pinnedNodes } from '../helpers/ci-nodes.js';
import { BIN } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { B_ON_A_LOCK, pnpmProjects, tempWorkspace } from '../helpers/workspace.js';

const BUILD = /^key-[0-9a-f]{32}\.v8$/;
// `key --projects` reads the slices, through pnpm's chunk (lib/core/chunks.ts), which gets a cache of its own.
const CHUNK_BUILD = /^pm-pnpm-[0-9a-f]{32}\.v8$/;

/** The key bundle's cache file in `dir`, and the pnpm chunk's. */
function cacheNames(dir: string): { key: string; chunk: string; all: string[] } {
  const all = readdirSync(dir).sort();
  return {
    key: all.find((name) => BUILD.test(name)) ?? '',
    chunk: all.find((name) => CHUNK_BUILD.test(name)) ?? '',
    all,
  };
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function setup(t: Parameters<typeof tempWorkspace>[0]): { root: string; xdg: string } {
  const root = tempWorkspace(t, pnpmProjects(B_ON_A_LOCK, { a: 'a', b: 'b' }));
  const xdg = tempWorkspace(t, {}, 'lockguard-xdg-');
  return { root, xdg };
}

/** `lockguard key --projects` (the key bundle) with the cache on and XDG_CACHE_HOME at `xdg`. */
function key(root: string, xdg: string, extra: Record<string, string> = {}, node = process.execPath): Run {
  const env = { ...scrubbedEnv(), LOCKGUARD_CODE_CACHE: '', XDG_CACHE_HOME: xdg, ...extra };
  const result = spawnSync(node, [BIN, 'key', '--projects'], { cwd: root, env, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function versionDir(xdg: string, version = process.version): string {
  return join(xdg, 'lockguard', 'code-cache', `${version}-${process.arch}`);
}

/** Every file under `dir`, relative (absent: none). */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

test('first run writes the cache, the second reads and keeps it; output and exit code as without one', (t) => {
  const { root, xdg } = setup(t);
  const plain = key(root, xdg, { LOCKGUARD_CODE_CACHE: 'off' });
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(files(xdg), [], 'off: nothing written');

  const first = key(root, xdg);
  assert.deepEqual(first, plain);
  const dir = versionDir(xdg);
  const names = cacheNames(dir);
  assert.deepEqual(names.all, [names.chunk, names.key].sort(), 'the bundle and the chunk it loaded, nothing else');
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const written = names.all.map((name) => {
    const stat = statSync(join(dir, name));
    assert.equal(stat.mode & 0o777, 0o600, name);
    return stat;
  });

  const second = key(root, xdg);
  assert.deepEqual(second, plain);
  for (const [index, name] of names.all.entries()) {
    const kept = statSync(join(dir, name));
    assert.equal(kept.ino, written[index]?.ino, `${name}: the second run read it and V8 accepted it (else rewritten)`);
    assert.equal(kept.mtimeMs, written[index]?.mtimeMs, name);
  }
});

test('a garbage cache is replaced, an older build of the bundle removed, output unchanged', (t) => {
  const { root, xdg } = setup(t);
  const plain = key(root, xdg, { LOCKGUARD_CODE_CACHE: 'off' });
  assert.equal(key(root, xdg).code, 0);
  const dir = versionDir(xdg);
  const { key: name, chunk } = cacheNames(dir);
  writeFileSync(join(dir, name), 'not a V8 code cache');
  const older = `key-${'0'.repeat(32)}.v8`;
  const otherBundle = `verify-${'0'.repeat(32)}.v8`;
  writeFileSync(join(dir, older), 'an older build');
  writeFileSync(join(dir, otherBundle), 'another bundle');
  const garbage = statSync(join(dir, name));

  assert.deepEqual(key(root, xdg), plain);
  assert.notEqual(statSync(join(dir, name)).ino, garbage.ino, 'rewritten');
  assert.ok(statSync(join(dir, name)).size > 1000, 'a real cache now');
  assert.deepEqual(
    readdirSync(dir).sort(),
    [name, chunk, otherBundle].sort(),
    "the older build gone, another bundle's kept",
  );
});

test("a write tidies: a removed bundle's cache goes, another Node's folder aged out goes, nothing else", (t) => {
  const { root, xdg } = setup(t);
  const dir = versionDir(xdg);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const removedBundle = `runner-turbo-${'0'.repeat(32)}.v8`;
  const knownBundle = `verify-${'0'.repeat(32)}.v8`;
  const notOurs = 'notes.txt';
  for (const name of [removedBundle, knownBundle, notOurs]) writeFileSync(join(dir, name), 'x');
  const old = (Date.now() - 31 * 24 * 3600 * 1000) / 1000;
  const recent = (Date.now() - 29 * 24 * 3600 * 1000) / 1000;
  /** Another Node's folder holding `names`, every file last read and written at `when` (seconds). */
  const other = (version: string, when: number, names = [`run-${'1'.repeat(32)}.v8`]): string => {
    const folder = versionDir(xdg, version);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    for (const name of names) {
      writeFileSync(join(folder, name), 'x');
      utimesSync(join(folder, name), when, when);
    }
    return folder;
  };
  const aged = other('v18.0.0', old);
  const used = other('v19.0.0', recent);
  const agedWithOther = other('v17.0.0', old, [`run-${'1'.repeat(32)}.v8`, 'kept.txt']);
  const outside = tempWorkspace(t, {}, 'lockguard-outside-');
  const outsideFile = join(outside, `run-${'1'.repeat(32)}.v8`);
  writeFileSync(outsideFile, 'x');
  utimesSync(outsideFile, old, old);
  symlinkSync(outside, versionDir(xdg, 'v16.0.0'));

  assert.equal(key(root, xdg).code, 0);
  const { key: name, chunk } = cacheNames(dir);
  assert.deepEqual(readdirSync(dir).sort(), [name, chunk, knownBundle, notOurs].sort(), 'the removed bundle gone');
  assert.equal(existsSync(aged), false, "a Node's folder unused for 31 days removed");
  assert.deepEqual(files(used), [`run-${'1'.repeat(32)}.v8`], 'one used 29 days ago kept');
  assert.deepEqual(
    files(agedWithOther),
    ['kept.txt', `run-${'1'.repeat(32)}.v8`],
    'a folder with a file not ours kept',
  );
  assert.ok(existsSync(outsideFile), 'a link is not followed');

  // A run that reads its cache writes nothing and tidies nothing.
  const stray = `runner-nx-${'0'.repeat(32)}.v8`;
  writeFileSync(join(dir, stray), 'x');
  assert.equal(key(root, xdg).code, 0);
  assert.ok(existsSync(join(dir, stray)), 'no tidying without a write');
});

test('no cache under CI or when switched off', (t) => {
  const { root, xdg } = setup(t);
  for (const extra of [{ CI: 'true' }, { CI: '1' }, { LOCKGUARD_CODE_CACHE: 'off' }, { LOCKGUARD_CODE_CACHE: '0' }]) {
    assert.equal(key(root, xdg, extra).code, 0);
    assert.deepEqual(files(xdg), [], JSON.stringify(extra));
  }
  assert.equal(key(root, xdg, { CI: 'false' }).code, 0);
  assert.equal(files(xdg).length, 2, 'CI=false is no CI (the key bundle and the pnpm chunk it loads)');
});

test("a folder that is not the user's own is neither read nor written: a file, a link outside, another uid's, group-writable", (t) => {
  const { root, xdg } = setup(t);
  const plain = key(root, xdg, { LOCKGUARD_CODE_CACHE: 'off' });

  const notAFolder = join(xdg, 'file');
  writeFileSync(notAFolder, 'x');
  assert.deepEqual(key(root, xdg, { XDG_CACHE_HOME: notAFolder }), plain);
  assert.equal(readFileSync(notAFolder, 'utf8'), 'x');

  // The version folder a link to a folder outside (another's cache): nothing written through it.
  const linked = join(xdg, 'linked');
  const outside = tempWorkspace(t, {}, 'lockguard-outside-');
  mkdirSync(join(linked, 'lockguard', 'code-cache'), { recursive: true });
  symlinkSync(outside, versionDir(linked));
  assert.deepEqual(key(root, xdg, { XDG_CACHE_HOME: linked }), plain);
  assert.deepEqual(files(outside), []);

  for (const [label, prepare] of [
    ['another uid', (dir: string) => chownSync(dir, 4242, 4242)],
    ['group-writable', (dir: string) => chmodSync(dir, 0o770)],
  ] as const) {
    const base = join(xdg, label.replace(/\W/g, '-'));
    assert.equal(key(root, xdg, { XDG_CACHE_HOME: base }).code, 0);
    const dir = versionDir(base);
    const [name = ''] = readdirSync(dir);
    writeFileSync(join(dir, name), 'planted');
    prepare(dir);
    assert.deepEqual(key(root, xdg, { XDG_CACHE_HOME: base }), plain, label);
    assert.equal(readFileSync(join(dir, name), 'utf8'), 'planted', `${label}: not read as a cache, not rewritten`);
  }
});

test('on another Node (pinned in .ci/nodes): a cache of its own, written once and kept', (t) => {
  const { root, xdg } = setup(t);
  const plain = key(root, xdg, { LOCKGUARD_CODE_CACHE: 'off' });
  // The oldest pinned Node that is not this one (the unit suite also runs on each pinned Node).
  const major = [...pinnedNodes().keys()]
    .sort((a, b) => a - b)
    .find((pinned) => pinned !== Number(process.versions.node.split('.')[0]));
  assert.ok(major !== undefined);
  const node = pinnedNodeBin(major);
  assert.ok(existsSync(node), `${node} (run: node .ci/nodes/ensure.mjs)`);
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.notEqual(version, process.version);

  assert.deepEqual(key(root, xdg, {}, node), plain);
  const dir = versionDir(xdg, version);
  const { key: name } = cacheNames(dir);
  assert.match(name, BUILD);
  const written = statSync(join(dir, name));
  assert.deepEqual(key(root, xdg, {}, node), plain);
  assert.equal(statSync(join(dir, name)).ino, written.ino, 'read and accepted by the Node that wrote it');
  assert.deepEqual(files(versionDir(xdg)), [], "this Node's folder untouched");
});
