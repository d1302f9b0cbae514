// What the pnpmfile plugin costs outside a guarded run: `pnpm install` (no-op) and `pnpm run <noop>` with
// the shim + plugin, against the same workspace with no pnpmfile (what a user pays for adopting it), and
// against a trivial pnpmfile (`updateConfig: c => c`, lockguard's own share). pnpm 10 and pnpm 12.
//
// Invariants: both workspaces are installed identically (lockguard linked in both), outside any run;
// each pair runs alternately; nothing asserts on time.

import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PNPMFILE_SHIM } from '../../lib/integrations/pnpmfile/shim.js';
import { lockguardPackage, pnpmCommand, PNPM_VERSIONS, writeTarball, type PnpmVersion } from '../helpers/hooks.js';
import { isolatedEnv } from '../helpers/env.js';
import { writeTree } from '../helpers/workspace.js';
import { sideBySide, type BenchRow, type BenchContext } from './harness.js';

/** none: lockguard installed, no pnpmfile (what `lockguard init` sets up on pnpm 11+); bare: no lockguard at all. */
type Variant = 'plugin' | 'none' | 'trivial' | 'bare';

const PNPMFILES: Record<Variant, string | null> = {
  plugin: PNPMFILE_SHIM,
  none: null,
  trivial: 'module.exports = { hooks: { updateConfig: (config) => config } }\n',
  bare: null,
};

function workspace(
  base: string,
  version: PnpmVersion,
  variant: Variant,
  lockguard: string,
  depX: string,
): () => (args: readonly string[]) => void {
  const root = join(base, `pnpm${version}-${variant}`);
  mkdirSync(root, { recursive: true });
  writeTree(root, {
    'package.json': `${JSON.stringify({ name: 'root', private: true, scripts: { noop: 'true' }, ...(variant === 'bare' ? {} : { devDependencies: { lockguard: `link:${lockguard}` } }) }, null, 2)}\n`,
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    '.pnpmfile.cjs': PNPMFILES[variant],
    packages: {
      a: {
        'package.json': `${JSON.stringify({ name: 'a', version: '1.0.0', dependencies: { 'dep-x': `file:${depX}` } })}\n`,
      },
      b: { 'package.json': '{"name":"b","version":"1.0.0"}\n' },
    },
  });
  const env = isolatedEnv(join(base, `home-${version}`), { offline: false });
  const [file, prefix] = pnpmCommand(version);
  const run = (args: readonly string[]): void => {
    const result = spawnSync(file, [...prefix, ...args], { cwd: root, env, stdio: 'ignore', timeout: 120_000 });
    if (result.status !== 0)
      throw new Error(`pnpm ${version} ${args.join(' ')} failed in ${root} (${String(result.status)})`);
  };
  return () => {
    run(['install']);
    run(['install']);
    return run;
  };
}

/** `node` loading a pnpmfile and calling its updateConfig once: what each pnpm 12 helper process pays. */
function loader(base: string, variant: 'plugin' | 'trivial', lockguard: string): () => void {
  const root = join(base, `load-${variant}`);
  writeTree(root, { 'pnpm-workspace.yaml': 'packages: []\n', '.pnpmfile.cjs': PNPMFILES[variant] });
  mkdirSync(join(root, 'node_modules'));
  symlinkSync(lockguard, join(root, 'node_modules', 'lockguard'));
  const script = "require('./.pnpmfile.cjs').hooks.updateConfig({ lockfileDir: process.cwd() })";
  return () => {
    const result = spawnSync(process.execPath, ['-e', script], { cwd: root, stdio: 'ignore', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`loading the ${variant} pnpmfile failed in ${root}`);
  };
}

export async function bench(ctx: BenchContext): Promise<BenchRow[]> {
  const lockguard = lockguardPackage(ctx.tmp);
  const depX = writeTarball(join(ctx.tmp, 'dep-x-1.0.0.tgz'), 'dep-x', '1.0.0');
  const rows: BenchRow[] = [];
  {
    const [plugin, trivial] = await sideBySide(
      loader(ctx.tmp, 'plugin', lockguard),
      loader(ctx.tmp, 'trivial', lockguard),
      ctx.runs,
    );
    rows.push({
      group: 'pnpmfile plugin, outside a run',
      subject: 'node: load the shim + plugin, call updateConfig',
      subjectMs: plugin,
      baseline: 'node: load a trivial pnpmfile, call updateConfig',
      baselineMs: trivial,
      note: 'what each pnpm 12 hook helper process pays for lockguard',
    });
  }
  for (const version of PNPM_VERSIONS) {
    const runners = {
      plugin: workspace(ctx.tmp, version, 'plugin', lockguard, depX)(),
      none: workspace(ctx.tmp, version, 'none', lockguard, depX)(),
      trivial: workspace(ctx.tmp, version, 'trivial', lockguard, depX)(),
      bare: workspace(ctx.tmp, version, 'bare', lockguard, depX)(),
    };
    for (const [label, args] of [
      ['pnpm install (no-op)', ['install']],
      ['pnpm run noop', ['run', 'noop']],
    ] as const) {
      const [plugin, none] = await sideBySide(
        () => runners.plugin(args),
        () => runners.none(args),
        ctx.runs,
      );
      rows.push({
        group: `pnpmfile plugin, outside a run (pnpm ${version})`,
        subject: `${label}, lockguard shim + plugin`,
        subjectMs: plugin,
        baseline: `${label}, no pnpmfile`,
        baselineMs: none,
        goal: 1.05,
      });
      const [plugin2, trivial] = await sideBySide(
        () => runners.plugin(args),
        () => runners.trivial(args),
        ctx.runs,
      );
      rows.push({
        group: `pnpmfile plugin, outside a run (pnpm ${version})`,
        subject: `${label}, lockguard shim + plugin`,
        subjectMs: plugin2,
        baseline: `${label}, trivial pnpmfile (updateConfig: c => c)`,
        baselineMs: trivial,
        note: "lockguard's own share, beyond what any pnpmfile costs",
      });
      if (version === 12) {
        // The setup `lockguard init` gives pnpm 11+: lockguard installed, no pnpmfile.
        const [initSetup, bare] = await sideBySide(
          () => runners.none(args),
          () => runners.bare(args),
          ctx.runs,
        );
        rows.push({
          group: 'pnpm 12, default setup, outside a run',
          subject: `${label}, lockguard installed as lockguard init sets it up (no pnpmfile)`,
          subjectMs: initSetup,
          baseline: `${label}, no lockguard`,
          baselineMs: bare,
          goal: 1.15,
        });
      }
    }
  }
  return rows;
}
