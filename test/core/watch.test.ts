// FingerprintWatch, to the letter of the seed card: one test per invariant.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FileSystem } from '../../lib/core/file-probe.js';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { createSaveGate } from '../../lib/core/save-gate.js';
import { FingerprintWatch, RACY_WINDOW_MS } from '../../lib/core/watch.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

type Counts = Record<'stat' | 'lstat' | 'open' | 'read', number>;

/** A real file system that counts the calls the core makes (and can lie about stat results). */
function countingFs(tweakStat?: (stats: fs.Stats) => fs.Stats): { fs: FileSystem; counts: Counts } {
  const counts: Counts = { stat: 0, lstat: 0, open: 0, read: 0 };
  return {
    counts,
    fs: {
      statSync: (path) => (counts.stat++, tweakStat ? tweakStat(fs.statSync(path)) : fs.statSync(path)),
      lstatSync: (path) => (counts.lstat++, fs.lstatSync(path)),
      readlinkSync: (path) => fs.readlinkSync(path),
      openSync: (path, flags) => (counts.open++, fs.openSync(path, flags)),
      fstatSync: (fd) => fs.fstatSync(fd),
      readSync: (fd, buffer, offset, length, position) => (
        counts.read++, fs.readSync(fd, buffer, offset, length, position)
      ),
      closeSync: (fd) => fs.closeSync(fd),
    },
  };
}

/** A new watch over `table` after one writer: each moved path with its kind (moved() and moves() agreeing). */
function checkedOnce(root: string, table: ReturnType<typeof readWorkspaceFingerprints>): [string, string][] {
  const watch = new FingerprintWatch(root, table, table.at);
  watch.wrote();
  const moved = watch.moved() ?? [];
  const moves = watch.moves();
  assert.deepEqual(
    moved,
    moves.map((move) => move.path),
  );
  return moves.map((move) => [move.path, move.kind]);
}

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";

test('zero cost without a writer: moved() makes no file-system call before wrote()', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const { fs: counting, counts } = countingFs();
  const watch = new FingerprintWatch(root, table, table.at, { fs: counting });
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), 'changed but nobody said so\n');
  for (let i = 0; i < 1000; i++) assert.equal(watch.moved(), undefined);
  assert.deepEqual(counts, { stat: 0, lstat: 0, open: 0, read: 0 });
});

test('zero cost without a writer, seen by strace: no syscall touches the workspace', (t) => {
  const strace = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  assert.equal(strace.status, 0, 'strace is required for this test (.ci/run installs it)');
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const index = fileURLToPath(new URL('../../lib/index.js', import.meta.url));
  const script = `
    const { readWorkspaceFingerprints, FingerprintWatch } = await import(${JSON.stringify(index)});
    const { accessSync } = await import('node:fs');
    const root = ${JSON.stringify(root)};
    const table = readWorkspaceFingerprints(root);
    const watch = new FingerprintWatch(root, table, table.at);
    try { accessSync('/lockguard-marker-start') } catch {}
    for (let i = 0; i < 1000; i++) if (watch.moved() !== undefined) process.exit(9);
    try { accessSync('/lockguard-marker-end') } catch {}
    watch.wrote(); watch.moved();
    try { accessSync('/lockguard-marker-after') } catch {}
  `;
  const out = join(root, '..', `${root.split('/').pop()}.strace`);
  t.after(() => fs.rmSync(out, { force: true }));
  const run = spawnSync(
    'strace',
    ['-f', '-e', 'trace=%file,%desc', '-o', out, process.execPath, '--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const trace = fs.readFileSync(out, 'utf8').split('\n');
  const start = trace.findIndex((line) => line.includes('/lockguard-marker-start'));
  const end = trace.findIndex((line) => line.includes('/lockguard-marker-end'));
  const after = trace.findIndex((line) => line.includes('/lockguard-marker-after'));
  assert.ok(start !== -1 && end > start && after > end, 'markers found in order');
  assert.deepEqual(
    trace.slice(start + 1, end).filter((line) => line.includes(root)),
    [],
  );
  // The same trace proves the check after wrote() does touch the files (the test can fail).
  assert.ok(trace.slice(end + 1, after).some((line) => line.includes(join(root, 'pnpm-lock.yaml'))));
});

test('after wrote(): one stat per entry, no reads, for files older than the racy window', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const { fs: counting, counts } = countingFs();
  // Reading "later" than the files' ctimes by more than the window: their stat proves them unchanged.
  const watch = new FingerprintWatch(root, table, Date.now() + RACY_WINDOW_MS + 1000, { fs: counting });
  watch.wrote();
  assert.equal(watch.moved(), undefined);
  assert.equal(counts.stat, table.entries.length);
  assert.equal(counts.lstat, 0, 'an absent entry costs its one stat, nothing more');
  assert.equal(counts.open, 0);
});

test('a size change is a move without reading', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  fs.appendFileSync(join(root, 'pnpm-lock.yaml'), '\n');
  const { fs: counting, counts } = countingFs();
  const watch = new FingerprintWatch(root, table, table.at, { fs: counting });
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
  assert.equal(counts.open, 1, 'only the racy pnpm-workspace.yaml is opened, not the resized lockfile');
});

test('a same-size rewrite inside the same timestamp second is caught (racy window)', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const lock = table.entries.find((entry) => entry.path === 'pnpm-lock.yaml');
  assert.ok(lock?.identity);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replace('9.0', '9.1'));
  // A coarse-timestamp file system: the stat looks exactly as it did at the read.
  const { fs: coarse } = countingFs((stats) => {
    if (stats.ino === lock.identity?.ino)
      Object.assign(stats, { ctimeMs: lock.identity.ctimeMs, mtimeMs: lock.identity.mtimeMs });
    return stats;
  });
  const watch = new FingerprintWatch(root, table, table.at, { fs: coarse });
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
});

test('identical bytes rewritten are not a move (even through a new inode)', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK);
  fs.writeFileSync(join(root, 'stage'), LOCK);
  fs.renameSync(join(root, 'stage'), join(root, 'pnpm-workspace.yaml.tmp'));
  fs.writeFileSync(join(root, 'pnpm-workspace.yaml.tmp'), fs.readFileSync(join(root, 'pnpm-workspace.yaml')));
  fs.renameSync(join(root, 'pnpm-workspace.yaml.tmp'), join(root, 'pnpm-workspace.yaml'));
  const watch = new FingerprintWatch(root, table, table.at);
  watch.wrote();
  assert.equal(watch.moved(), undefined);
});

test('a file that appeared or went has moved', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  fs.writeFileSync(join(root, '.pnpmfile.cjs'), 'module.exports = {}\n');
  fs.rmSync(join(root, 'pnpm-workspace.yaml'));
  assert.deepEqual(checkedOnce(root, table), [
    ['pnpm-workspace.yaml', 'went'],
    ['.pnpmfile.cjs', 'appeared'],
  ]);
});

test('a symlinked lockfile rewritten through its link is judged by the target', (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(LOCK), 'pnpm-lock.yaml': null, 'real-lock.yaml': LOCK });
  fs.symlinkSync('real-lock.yaml', join(root, 'pnpm-lock.yaml'));
  const table = readWorkspaceFingerprints(root);
  // Treat the files as old: only a changed identity (the target's ctime) can send the watch to read.
  const watch = new FingerprintWatch(root, table, Date.now() + RACY_WINDOW_MS + 1000);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK.replace('9.0', '9.1'));
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
});

test('once moved, stays moved even when the bytes come back', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const watch = new FingerprintWatch(root, table, table.at);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), `${LOCK}# edited\n`);
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK);
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
});

test('re-learns only after the next wrote()', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const watch = new FingerprintWatch(root, table, table.at);
  watch.wrote();
  assert.equal(watch.moved(), undefined);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), `${LOCK}# edited\n`);
  assert.equal(watch.moved(), undefined, 'no writer reported since the last check');
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
});

test('moves accumulate across checks', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const watch = new FingerprintWatch(root, table, table.at);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), `${LOCK}# edited\n`);
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml']);
  fs.writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
  watch.wrote();
  assert.deepEqual(watch.moved(), ['pnpm-lock.yaml', 'pnpm-workspace.yaml']);
});

test('a FIFO or a socket at an entry path is a loud error, never a hang; a directory is a type change, a move', async (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const swap = (make: () => void): unknown => {
    fs.rmSync(join(root, 'pnpm-lock.yaml'), { recursive: true, force: true });
    make();
    const watch = new FingerprintWatch(root, table, table.at);
    watch.wrote();
    try {
      watch.moved();
      return undefined;
    } catch (error) {
      return error;
    }
  };
  assert.equal(
    (swap(() => spawnSync('mkfifo', [join(root, 'pnpm-lock.yaml')])) as { code?: string })?.code,
    'ERR_LOCKGUARD_NOT_A_FILE',
  );
  // DESIGN.md: a type change is a move (it threw as a FIFO does, though nothing about a folder blocks).
  fs.rmSync(join(root, 'pnpm-lock.yaml'), { recursive: true, force: true });
  fs.mkdirSync(join(root, 'pnpm-lock.yaml'));
  fs.mkdirSync(join(root, '.pnpmfile.cjs'));
  assert.deepEqual(checkedOnce(root, table), [
    ['pnpm-lock.yaml', 'rewritten'],
    ['.pnpmfile.cjs', 'appeared'],
  ]);
  fs.rmSync(join(root, '.pnpmfile.cjs'), { recursive: true });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(root, 'sock'), resolve));
  t.after(() => server.close());
  const error = swap(() => fs.renameSync(join(root, 'sock'), join(root, 'pnpm-lock.yaml'))) as {
    code?: string;
    path?: string;
  };
  assert.equal(error?.code, 'ERR_LOCKGUARD_NOT_A_FILE');
  assert.equal(error?.path, join(root, 'pnpm-lock.yaml'));
});

test('a loud error stays loud on every call until a check completes, and the other entries are still checked', (t) => {
  // It cleared its pending flag before checking: the call after a throw answered "unchanged", and the entries
  // after the failing one were never looked at (a rewritten pnpm-workspace.yaml went unreported).
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const watch = new FingerprintWatch(root, table, table.at);
  fs.writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
  fs.rmSync(join(root, 'pnpm-lock.yaml'));
  assert.equal(spawnSync('mkfifo', [join(root, 'pnpm-lock.yaml')]).status, 0);
  watch.wrote();
  assert.throws(() => watch.moved(), { code: 'ERR_LOCKGUARD_NOT_A_FILE' });
  assert.throws(() => watch.moved(), { code: 'ERR_LOCKGUARD_NOT_A_FILE' }, 'still loud, never undefined');
  assert.deepEqual(
    watch.moves().map((move) => move.path),
    ['pnpm-workspace.yaml'],
    'the entry after the failing one was checked',
  );
  fs.rmSync(join(root, 'pnpm-lock.yaml'));
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), LOCK);
  assert.deepEqual(watch.moved(), ['pnpm-workspace.yaml'], 'answered once a check completes');
});

test('EACCES is loud, never "unchanged"', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const denied: FileSystem = {
    ...fs,
    statSync: () => {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    },
  };
  const watch = new FingerprintWatch(root, table, table.at, { fs: denied });
  watch.wrote();
  assert.throws(() => watch.moved(), { code: 'ERR_LOCKGUARD_ACCESS' });
  assert.throws(() => watch.moved(), { code: 'ERR_LOCKGUARD_ACCESS' }, 'and again: never "unchanged"');
});

test('say() writes the one status line naming the moved files, and nothing when nothing moved', (t) => {
  const root = tempWorkspace(t, pnpmTree(LOCK));
  const table = readWorkspaceFingerprints(root);
  const watch = new FingerprintWatch(root, table, table.at);
  const lines: string[] = [];
  watch.say({ warn: (line: string) => lines.push(line) });
  assert.deepEqual(lines, [] as string[]);
  fs.writeFileSync(join(root, 'pnpm-lock.yaml'), `${LOCK}# edited\n`);
  watch.wrote();
  watch.moved();
  watch.say({ warn: (line) => lines.push(line) });
  watch.say({ warn: (line) => lines.push(line) });
  assert.equal(lines.length, 1, 'the one status line, however often it is asked for');
  assert.match(lines[0] ?? '', /^\[lockguard\] a task rewrote pnpm-lock\.yaml during the run, which every key folds: /);
});

test('the library refuses a root it cannot read as a folder, and keeps a relative one absolute', (t) => {
  // A missing root once gave a valid-looking empty npm table (the same key for every typo) and a save gate that
  // allowed saves; a relative root was resolved again against a later working folder (a false move).
  const root = tempWorkspace(t, pnpmTree(LOCK));
  for (const bad of [join(root, 'typo'), join(root, 'pnpm-lock.yaml'), '', 42 as unknown as string]) {
    assert.throws(() => readWorkspaceFingerprints(bad), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE' }, String(bad));
    assert.throws(() => createSaveGate(bad), { code: 'ERR_LOCKGUARD_NOT_A_WORKSPACE' }, String(bad));
  }
  assert.throws(() => readWorkspaceFingerprints(root, { scope: 'bogus' as 'full' }), {
    code: 'ERR_LOCKGUARD_BAD_SETTING',
  });
  assert.throws(() => readWorkspaceFingerprints(root, { manager: 'deno' as 'npm' }), {
    code: 'ERR_LOCKGUARD_BAD_SETTING',
  });
  assert.equal(readWorkspaceFingerprints(root, null).manager, 'pnpm');
  assert.throws(() => new FingerprintWatch(undefined as unknown as string, readWorkspaceFingerprints(root), 0), {
    code: 'ERR_LOCKGUARD_USAGE',
  });
  const before = process.cwd();
  t.after(() => process.chdir(before));
  process.chdir(join(root, '..'));
  const gate = createSaveGate(basename(root));
  assert.equal(gate.table.root, root);
  process.chdir(tmpdir());
  gate.wrote();
  assert.deepEqual(gate.beforeSave(), { allow: true }, 'the same files, wherever the process went since');
});
