// What the wireit, moon and lage poisoning scenarios share (wireit-, moon-, lage-scenario.ts): a pnpm 10
// workspace where `a`'s build, while `<base>/armed` exists (once), rewrites what `b` resolves of is-number
// (variant M: `pnpm --filter b add is-number@6.0.0`, b's manifest and the lockfile; variant L:
// `pnpm --filter b update is-number@6.0.0 --no-save`, the lockfile only), and `b`'s build writes the is-number
// it resolves to `packages/b/dist/out.json`.
// Owns: a's build script, b's one-line build command, the manifest text, S0 kept under `<base>/saved/` and put
// back (a frozen install after), what b built and what is installed for it, and the keys a runner's entries
// were withheld under.
// Invariants: reads and writes only under the scenario's own folders; every install is checked.

import type { SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { check } from './tool-shims.js';

export type IsNumberVariant = 'M' | 'L';

/** `<base>/a-build.cjs`: rewrites what b resolves once per `armed` file, then writes a's dist. */
export const aBuild = (
  variant: IsNumberVariant,
): string => `const fs = require('fs'), path = require('path'), cp = require('child_process');
const armed = path.join(__dirname, 'armed');
if (fs.existsSync(armed)) {
  fs.unlinkSync(armed);
  cp.execFileSync('pnpm', ${JSON.stringify(
    variant === 'M'
      ? ['--filter', 'b', 'add', 'is-number@6.0.0']
      : ['--filter', 'b', 'update', 'is-number@6.0.0', '--no-save'],
  )}, { stdio: 'inherit' });
}
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/a.txt', 'a');
`;

/** b's build as one shell command (wireit's and lage's scripts): the is-number it resolves, to dist/out.json. */
export const B_BUILD_COMMAND = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.json',JSON.stringify({isNumber:require('is-number')}))"`;

export const manifest = (value: Record<string, unknown>): string => `${JSON.stringify(value, null, 2)}\n`;

/** Keep S0's lockfile and b's manifest under `<base>/saved/`. */
export function saveS0(base: string, root: string): void {
  const saved = join(base, 'saved');
  mkdirSync(saved);
  copyFileSync(join(root, 'pnpm-lock.yaml'), join(saved, 'pnpm-lock.yaml'));
  copyFileSync(join(root, 'packages', 'b', 'package.json'), join(saved, 'b-package.json'));
}

/** S0's lockfile and b's manifest back, then a frozen install (7.0.0 installed); `dist` kept unless asked. */
export function restoreS0(
  base: string,
  root: string,
  sh: (argv: readonly string[]) => SpawnSyncReturns<string>,
  options: { removeOutputs?: boolean } = {},
): void {
  const saved = join(base, 'saved');
  copyFileSync(join(saved, 'pnpm-lock.yaml'), join(root, 'pnpm-lock.yaml'));
  copyFileSync(join(saved, 'b-package.json'), join(root, 'packages', 'b', 'package.json'));
  check(sh(['pnpm', 'install', '--frozen-lockfile']), 'pnpm install --frozen-lockfile');
  if (options.removeOutputs === true)
    for (const name of ['a', 'b']) rmSync(join(root, 'packages', name, 'dist'), { recursive: true, force: true });
}

/** is-number's version as b's build wrote it, or undefined. */
export function builtIsNumber(root: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8')) as { isNumber?: string })
      .isNumber;
  } catch {
    return undefined;
  }
}

/** is-number's version installed for b. */
export function installedIsNumber(root: string): string {
  const file = join(root, 'packages', 'b', 'node_modules', 'is-number', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** The keys of `runner`'s entries quarantined by any run (under `.lockguard/quarantine/<run>/entries/<runner>/`). */
export function quarantinedKeysOf(root: string, runner: string): string[] {
  const dir = join(root, '.lockguard', 'quarantine');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((run) => {
      const entries = join(dir, run, 'entries', runner);
      return existsSync(entries) ? readdirSync(entries) : [];
    })
    .sort();
}
