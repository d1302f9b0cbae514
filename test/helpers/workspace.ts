// Temp workspaces for tests: a fresh mkdtemp per test, built from a file-tree object, removed after; the
// smallest pnpm workspaces' files (`pnpmTree`, `pnpmProjects`, `B_ON_A_LOCK`); waits; a folder's inventory (`fileDigests`).
//
// Invariants: never writes into the repo, never chdirs; a `null` leaf is "do not create".

import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { TestContext } from 'node:test';

export interface Tree {
  readonly [path: string]: string | Buffer | Tree | null;
}

export function writeTree(root: string, tree: Tree): void {
  for (const [name, value] of Object.entries(tree)) {
    const path = join(root, name);
    if (value === null) continue;
    if (typeof value === 'string' || Buffer.isBuffer(value)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, value);
    } else {
      mkdirSync(path, { recursive: true });
      writeTree(path, value as Tree);
    }
  }
}

/** A new temp folder (real path) holding `tree`, removed when the test ends. */
export function tempWorkspace(t: Pick<TestContext, 'after'>, tree: Tree = {}, prefix = 'lockguard-test-'): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeTree(root, tree);
  return root;
}

/** A minimal pnpm workspace: manifest, root package.json and a lockfile. */
export function pnpmTree(lockfile = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n"): Tree {
  return {
    'package.json': '{"name":"root","private":true}\n',
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    'pnpm-lock.yaml': lockfile,
  };
}

/**
 * A pnpm workspace over packages/* holding `lockfile`, with a project per entry of `names` (its folder under
 * packages/ and the name its package.json gives it): the tree the slice tests write.
 */
export function pnpmProjects(lockfile: string, names: Readonly<Record<string, string>>): Tree {
  return {
    'package.json': '{"name":"root","private":true}',
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    'pnpm-lock.yaml': lockfile,
    packages: Object.fromEntries(
      Object.entries(names).map(([folder, name]) => [folder, { 'package.json': JSON.stringify({ name }) }]),
    ),
  };
}

/** The pnpm 9 lockfile of a workspace of two projects, a and b, b depending on a (`workspace:*`); no packages. */
export const B_ON_A_LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .: {}

  packages/a: {}

  packages/b:
    dependencies:
      a:
        specifier: workspace:*
        version: link:../a
`;

/** Wait until the wall clock is past `ms` after `since` (for racy-window tests that need old ctimes). */
export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Poll `condition` every 20 ms; throw after `timeoutMs` (a wait in a test must never outlive it). */
export async function waitFor(condition: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Every file under `dir` by relative path, with its sha256 (a link as `link:<its target>`, never followed; a
 * FIFO, socket or device as its kind and inode, never opened; with `dirs`, every folder as `dir:<inode>`),
 * leaving out the paths under `skip` (relative prefixes): an inventory to prove what a command touched.
 */
export function fileDigests(
  dir: string,
  skip: readonly string[] = [],
  options: { dirs?: boolean } = {},
): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const rel = relative(dir, path);
      if (skip.some((prefix) => rel === prefix || rel.startsWith(`${prefix}/`))) continue;
      if (entry.isDirectory()) {
        if (options.dirs === true) out.set(rel, `dir:${lstatSync(path).ino}`);
        walk(path);
      } else if (entry.isSymbolicLink()) out.set(rel, `link:${readlinkSync(path)}`);
      else if (entry.isFile()) out.set(rel, createHash('sha256').update(readFileSync(path)).digest('hex'));
      else out.set(rel, `${entry.isFIFO() ? 'fifo' : entry.isSocket() ? 'socket' : 'device'}:${lstatSync(path).ino}`);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** A pnpm v9 lockfile of three importers: the root, packages/a on is-number 7.0.0, and packages/b on nothing. */
export const A_ON_IS_NUMBER_LOCK = `lockfileVersion: '9.0'

importers:

  .: {}

  packages/a:
    dependencies:
      is-number:
        specifier: 7.0.0
        version: 7.0.0

  packages/b: {}

packages:

  is-number@7.0.0:
    resolution: {integrity: sha512-seven}

snapshots:

  is-number@7.0.0: {}
`;
