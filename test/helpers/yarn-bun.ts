// yarn (berry with PnP and with node-modules, classic v1) and bun workspaces for end-to-end tests: the same
// three projects for each (a; b depending on a and on dep@7.0.0; c depending on dep@7.0.0), installed once
// into a template by the real tool, and fresh clones of it; the dep 7.0.0 and 6.0.0 tarballs they vendor,
// packed once per test file (`depTarballs`).
//
// Invariants: offline (local tarballs through file: ranges, yarn's network off, a dead registry); HOME,
// XDG_*, yarn's global folder and bun's cache in temp dirs (env.ts isolatedEnv); each clone has its own
// yarn berry cache (`.yarn/cache` inside it), so deleting a package from one clone touches no other.

import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { isolatedEnv } from './env.js';
import {
  BUN,
  cloneWorkspace,
  mustRun,
  packTarballs,
  runTool,
  YARN,
  YARN1,
  type Tool,
  type ToolResult,
} from './tools.js';
import { tempWorkspace, writeTree, type Tree } from './workspace.js';

export type Flavor = 'yarn-pnp' | 'yarn-nm' | 'yarn1' | 'bun';

export interface FlavorSpec {
  readonly flavor: Flavor;
  readonly tool: Tool;
  readonly lockfile: string;
  readonly packageManager: string;
  /** `yarn install --immutable`, `yarn install --frozen-lockfile`, `bun install --frozen-lockfile`. */
  readonly frozen: readonly string[];
  /** b's dependency on dep moves to the 6.0.0 tarball (run at the root). */
  readonly addSix: readonly string[];
  /** The command's argv as a user types it (for lockguard run). */
  argv(args: readonly string[]): string[];
}

const argvOf =
  (tool: Tool) =>
  (args: readonly string[]): string[] => [
    tool.command,
    ...tool.prefix,
    ...args,
    ...(tool.name === 'yarn1' ? ['--offline'] : []),
  ];

/** yarn berry's spec: the same for PnP and node-modules (yarnBunTree's .yarnrc.yml tells them apart). */
const berry = (flavor: 'yarn-pnp' | 'yarn-nm'): FlavorSpec => ({
  flavor,
  tool: YARN,
  lockfile: 'yarn.lock',
  packageManager: 'yarn@4.18.1',
  frozen: ['install', '--immutable'],
  addSix: ['workspace', 'b', 'add', 'dep@file:../../vendor/dep-6.0.0.tgz'],
  argv: argvOf(YARN),
});

export const FLAVORS: readonly FlavorSpec[] = [
  berry('yarn-pnp'),
  berry('yarn-nm'),
  {
    flavor: 'yarn1',
    tool: YARN1,
    lockfile: 'yarn.lock',
    packageManager: 'yarn@1.22.22',
    frozen: ['install', '--frozen-lockfile'],
    addSix: ['workspace', 'b', 'add', 'file:../../vendor/dep-6.0.0.tgz'],
    argv: argvOf(YARN1),
  },
  {
    flavor: 'bun',
    tool: BUN,
    lockfile: 'bun.lock',
    packageManager: 'bun@1.4.5',
    frozen: ['install', '--frozen-lockfile'],
    addSix: ['add', '--cwd', 'packages/b', '../../vendor/dep-6.0.0.tgz'],
    argv: argvOf(BUN),
  },
];

/** dep 7.0.0 and 6.0.0 (what every flavor's tree vendors), packed with `npm pack` under `<dir>/tarballs`. */
export function packDeps(dir: string, env: Record<string, string>): { dep7: Buffer; dep6: Buffer } {
  const [seven, six] = packTarballs(
    join(dir, 'tarballs'),
    [
      { name: 'dep', version: '7.0.0' },
      { name: 'dep', version: '6.0.0' },
    ],
    env,
  );
  return { dep7: readFileSync(seven ?? ''), dep6: readFileSync(six ?? '') };
}

export interface DepTarballs {
  /** A new temp folder (real path), for the file's templates too; the caller removes it when done. */
  readonly dir: string;
  /** The isolated env under `dir` (env.ts isolatedEnv). */
  readonly env: Record<string, string>;
  readonly dep7: Buffer;
  readonly dep6: Buffer;
}

/** What a test file's templates start from (its `before`): a temp folder named `prefix…`, its env, dep 7 and 6. */
export function depTarballs(prefix: string): DepTarballs {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const env = isolatedEnv(dir);
  return { dir, env, ...packDeps(dir, env) };
}

/** The workspace tree for a flavor (tarballs are passed in: packed once per test file). */
export function yarnBunTree(spec: FlavorSpec, dep7: Buffer, dep6: Buffer): Tree {
  const link = spec.flavor === 'yarn1' ? '1.0.0' : 'workspace:*';
  return {
    'package.json': `${JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'], packageManager: spec.packageManager }, null, 2)}\n`,
    ...(spec.flavor === 'yarn-nm' ? { '.yarnrc.yml': 'nodeLinker: node-modules\n' } : {}),
    vendor: { 'dep-7.0.0.tgz': dep7, 'dep-6.0.0.tgz': dep6 },
    packages: {
      a: { 'package.json': JSON.stringify({ name: 'a', version: '1.0.0' }) },
      b: {
        'package.json': JSON.stringify({
          name: 'b',
          version: '1.0.0',
          dependencies: { a: link, dep: 'file:../../vendor/dep-7.0.0.tgz' },
        }),
      },
      c: {
        'package.json': JSON.stringify({
          name: 'c',
          version: '1.0.0',
          dependencies: { dep: 'file:../../vendor/dep-7.0.0.tgz' },
        }),
      },
    },
  };
}

export interface YarnBunWorkspace {
  readonly spec: FlavorSpec;
  readonly root: string;
  readonly env: Record<string, string>;
  run(args: readonly string[]): ToolResult;
  must(args: readonly string[]): ToolResult;
  read(path: string): string;
}

/** The env a clone's tools get: yarn berry keeps its cache in the clone (its own .yarn/cache). */
export function cloneEnv(spec: FlavorSpec, root: string, env: Record<string, string>): Record<string, string> {
  return spec.tool.name === 'yarn' ? { ...env, YARN_CACHE_FOLDER: join(root, '.yarn', 'cache') } : env;
}

/** Write and install a template workspace in `dir` (its lockfile is what every clone starts from). */
export function installTemplate(
  spec: FlavorSpec,
  dir: string,
  env: Record<string, string>,
  dep7: Buffer,
  dep6: Buffer,
): string {
  writeTree(dir, yarnBunTree(spec, dep7, dep6));
  mustRun(spec.tool, ['install'], dir, cloneEnv(spec, dir, env));
  if (!existsSync(join(dir, spec.lockfile))) throw new Error(`${spec.flavor}: the install wrote no ${spec.lockfile}`);
  return dir;
}

/** A fresh clone of `template`: sources and the lockfile, no installed tree, no install state, no cache. */
export function freshYarnBunClone(
  t: Pick<TestContext, 'after'>,
  spec: FlavorSpec,
  template: string,
  env: Record<string, string>,
): YarnBunWorkspace {
  const root = tempWorkspace(t, {}, `lockguard-${spec.flavor}-`);
  cloneWorkspace(template, root);
  for (const path of [
    '.pnp.cjs',
    '.pnp.loader.mjs',
    '.yarn/install-state.gz',
    '.yarn/cache',
    '.yarn/unplugged',
    'packages/a/node_modules',
    'packages/b/node_modules',
    'packages/c/node_modules',
  ])
    rmSync(join(root, path), { recursive: true, force: true });
  const own = cloneEnv(spec, root, env);
  return {
    spec,
    root,
    env: own,
    run: (args) => runTool(spec.tool, args, root, own),
    must: (args) => mustRun(spec.tool, args, root, own),
    read: (path) => readFileSync(join(root, path), 'utf8'),
  };
}
