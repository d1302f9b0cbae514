// Benchmarks of the fingerprint table (issue 2), each against its physical limit:
// (a) readWorkspaceFingerprints vs the raw read + sha256 of the same files (goal 1.2×), on every real
//     lockfile in the fixtures folder and on generated big ones;
// (b) moved() after wrote() with nothing changed vs one bare statSync per entry (goal 1.5×);
// (c) `lockguard verify` wall time vs `node -e 0` (goal 1.3×).
// Invariants: reads fixtures, never edits them (copies into ctx.tmp); reports, never asserts.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { FingerprintWatch, RACY_WINDOW_MS } from '../../lib/core/watch.js';
import { BIN } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { writeSyntheticWorkspace } from './generate.js';
import { perOp, processSideBySide, type BenchContext, type BenchRow } from './harness.js';

const LOCKFILE_NAMES = ['pnpm-lock.yaml', 'package-lock.json', 'yarn.lock'];
const COMPANIONS = ['pnpm-workspace.yaml', 'package.json'];

/** Every lockfile under the fixtures folder (a few levels deep), by fixture name. */
function fixtureLockfiles(dir: string): { name: string; path: string }[] {
  const found: { name: string; path: string }[] = [];
  const walk = (folder: string, depth: number): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isFile() && LOCKFILE_NAMES.includes(entry.name))
        found.push({ name: relative(dir, folder).split('/')[0] ?? entry.name, path });
      else if (entry.isDirectory() && depth < 8 && entry.name !== 'node_modules') walk(path, depth + 1);
    }
  };
  walk(dir, 0);
  return found.sort((x, y) => (x.name < y.name ? -1 : 1));
}

/** A workspace in `into` holding a copy of the lockfile and its companions (manifest, root package.json). */
function copyWorkspace(lockfile: string, into: string): void {
  mkdirSync(into, { recursive: true });
  const from = join(lockfile, '..');
  for (const name of [...COMPANIONS, lockfile.split('/').at(-1) ?? '']) {
    if (existsSync(join(from, name))) copyFileSync(join(from, name), join(into, name));
  }
}

function rawReadAndHash(paths: readonly string[]): void {
  for (const path of paths) createHash('sha256').update(readFileSync(path)).digest('hex');
}

async function tableRow(ctx: BenchContext, subject: string, root: string): Promise<BenchRow> {
  const table = readWorkspaceFingerprints(root);
  const present = table.entries.filter((entry) => entry.digest !== null).map((entry) => join(root, entry.path));
  const bytes = present.reduce((sum, path) => sum + statSync(path).size, 0);
  const [subjectMs, baselineMs] = await perOp(
    () => readWorkspaceFingerprints(root),
    () => rawReadAndHash(present),
    ctx.runs,
  );
  return {
    group: 'table read',
    subject: `readWorkspaceFingerprints: ${subject} (${(bytes / 1e6).toFixed(2)} MB, ${table.entries.length} entries)`,
    subjectMs,
    baseline: 'readFileSync + sha256 of the same files',
    baselineMs,
    goal: 1.2,
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];

  // (a) the table read, on the real lockfiles when they are here, and on generated big ones.
  if (ctx.fixturesDir === undefined) {
    rows.push({
      group: 'table read',
      subject: 'real lockfiles',
      subjectMs: Number.NaN,
      baseline: '-',
      baselineMs: Number.NaN,
      note: 'skipped: ../shared/fixtures/lockfiles is not there (set LOCKGUARD_BENCH_FIXTURES)',
    });
  } else {
    for (const { name, path } of fixtureLockfiles(ctx.fixturesDir)) {
      const root = join(ctx.tmp, 'fixtures', name);
      copyWorkspace(path, root);
      rows.push(await tableRow(ctx, name, root));
    }
  }
  const bigPnpm = join(ctx.tmp, 'generated-pnpm');
  writeSyntheticWorkspace(bigPnpm, {
    manager: 'pnpm',
    importers: 1000,
    packages: 20_000,
    installed: true,
    projects: false,
  });
  rows.push(await tableRow(ctx, 'generated pnpm, 1,000 importers / 20,000 packages, installed', bigPnpm));
  const bigNpm = join(ctx.tmp, 'generated-npm');
  writeSyntheticWorkspace(bigNpm, {
    manager: 'npm',
    importers: 1000,
    packages: 20_000,
    installed: true,
    projects: false,
  });
  rows.push(await tableRow(ctx, 'generated npm, 1,000 workspaces / 20,000 packages, installed', bigNpm));

  // (b) moved() after wrote() with nothing changed: stats only. The files were just written, so the read
  // moment is set past the racy window (as if they were old): the watch may not read them.
  for (const [label, root] of [
    ['pnpm, full scope', bigPnpm],
    ['npm, full scope', bigNpm],
  ] as const) {
    const table = readWorkspaceFingerprints(root);
    const watch = new FingerprintWatch(root, table, Date.now() + 2 * RACY_WINDOW_MS + 1000);
    const paths = table.entries.map((entry) => join(root, entry.path));
    const [subjectMs, baselineMs] = await perOp(
      () => {
        watch.wrote();
        if (watch.moved() !== undefined) throw new Error('nothing changed, yet the watch says moved');
      },
      () => {
        for (const path of paths) statSync(path, { throwIfNoEntry: false });
      },
      ctx.runs,
    );
    const absentPaths = table.entries.filter((entry) => entry.digest === null).map((entry) => join(root, entry.path));
    const absent = absentPaths.length;
    // What the watch does by design: an absent entry also gets an lstat (to tell a dangling link).
    const [, withLstat] = await perOp(
      () => undefined,
      () => {
        for (const path of paths) statSync(path, { throwIfNoEntry: false });
        for (const path of absentPaths) lstatSync(path, { throwIfNoEntry: false });
      },
      ctx.runs,
    );
    rows.push({
      group: 'watch',
      subject: `wrote(); moved(), nothing changed: ${label} (${table.entries.length} entries, ${absent} absent)`,
      subjectMs,
      baseline: 'one statSync per entry',
      baselineMs,
      goal: 1.5,
      note: `${label}: one statSync per entry plus one lstatSync per absent entry (what probe() does) takes ${(withLstat * 1000).toFixed(0)} µs, ${(subjectMs / withLstat).toFixed(2)}× of it is the watch`,
    });
  }

  // (c) `lockguard verify` as CI runs it: a whole process, on real-sized workspaces of both managers.
  const env = scrubbedEnv();
  for (const manager of ['pnpm', 'npm'] as const) {
    const verifyRoot = join(ctx.tmp, `verify-${manager}`);
    const lockfile = writeSyntheticWorkspace(verifyRoot, { manager, importers: 200, packages: 2000, projects: false });
    const snapshot = spawnSync(process.execPath, [BIN, 'snapshot'], { cwd: verifyRoot, env, encoding: 'utf8' });
    if (snapshot.status !== 0) throw new Error(`snapshot failed: ${snapshot.stderr}`);
    const [subjectMs, baselineMs] = await processSideBySide(
      { command: process.execPath, args: [BIN, 'verify'], options: { cwd: verifyRoot, env } },
      { command: process.execPath, args: ['-e', '0'], options: { cwd: verifyRoot, env } },
      ctx.runs,
    );
    rows.push({
      group: 'cli',
      subject: `lockguard verify (${manager}, ${(statSync(lockfile).size / 1e6).toFixed(2)} MB lockfile)`,
      subjectMs,
      baseline: 'node -e 0',
      baselineMs,
      goal: 1.3,
      ...(manager === 'pnpm'
        ? {
            note: 'pnpm workspaces also run @pnpm/find-workspace-dir (loaded on demand); npm, yarn and bun workspaces skip it',
          }
        : {}),
    });
  }
  return rows;
}
