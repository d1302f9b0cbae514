// What `lockguard hook` does inside an npm root lifecycle script (preinstall/postinstall).
//
// Owns: reporting "an npm command ran its root install scripts here" to the live runs of the workspace and,
// under `refuse`, judging whether npm already rewrote a lockfile the run recorded.
// Measured (npm 11): `npm install` and `npm ci` run the root's preinstall/install/postinstall/prepare, and
// `npm rebuild` its preinstall/install/postinstall; `npm install <pkg>`, `uninstall`, `update`, `dedupe`,
// `prune`, `exec` run none. The root preinstall runs AFTER npm reified node_modules and wrote
// package-lock.json, so npm cannot be stopped at the source: under `refuse` a rewrite makes the npm command
// fail right after it, and the run's own check stays the verdict.
// Also owns `writesSliceFilesNow`: whether this root script runs right after an install wrote the lockfile and
// the installed tree, so the per-project slice files are written now. Measured: npm 11 runs the root
// postinstall and prepare after `npm install` and `npm ci` (npm_command says which; npm 11.19.1 records a
// root postinstall as `hasInstallScript` in package-lock.json, a prepare not: init writes prepare); pnpm 12.4.2 (whose pnpmfile hooks
// run in helper processes that never see the install end) runs the root preinstall, install, postinstall
// and prepare only after an install, add or frozen install that wrote pnpm-lock.yaml and node_modules, never
// after a failed one, a no-op install (nothing changed: the files are as the last install left them) or
// `--ignore-scripts`; it sets no npm_command, only npm_lifecycle_event and npm_config_user_agent ("pnpm/…").
// bun 1.4.5 runs the root prepare after every `bun install` (plain, no-op, `--frozen-lockfile`) and `bun add`,
// once the lockfile and node_modules are written ("bun/…"); yarn 1.22.22 after every `yarn install` (plain,
// no-op, `--frozen-lockfile`) but not after `yarn workspace <w> add` ("yarn/1.…"); neither sets npm_command.
// Invariants: outside a run it costs one failed readdir; never throws for a ledger problem; returns a value,
// never prints or exits.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileDigest } from '../../core/digest.js';
import type { Env } from '../../core/env.js';
import { errnoCode, isLockguardError } from '../../core/errors.js';
import { loadRun } from '../../ledger/ledger.js';
import { liveRunsFor, reportToRun, type LiveRun } from '../../ledger/live.js';
import { readBounded } from '../../core/bounded-read.js';

export interface HookOutcome {
  /** The live runs reported to. */
  readonly runs: readonly LiveRun[];
  /** Lockfiles (root-relative) a refusing run recorded and npm has rewritten by now. */
  readonly refusedFor: readonly string[];
}

/** Lockfiles of `run` whose bytes differ now from what the run read (unreadable run: none). */
function rewrittenLockfiles(root: string, run: LiveRun): string[] {
  let entries: ReturnType<typeof loadRun>['record']['entries'];
  try {
    entries = loadRun(run.dir).record.entries;
  } catch {
    return [];
  }
  const moved: string[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'lockfile') continue;
    let now: string | null;
    try {
      const path = join(root, entry.path);
      // Never open what is not a regular file (a FIFO would block): it is not what the run read, so it moved.
      const bytes = statSync(path).isFile() ? readBounded(path, { kind: 'lockfile', root }) : 'not-a-file';
      now = bytes === 'not-a-file' ? bytes : bytes === undefined ? null : fileDigest(bytes);
    } catch (error) {
      // Refused by the bounded reader (too large, a link outside): not what the run read, so it moved.
      if (isLockguardError(error)) now = 'not-a-file';
      else if (errnoCode(error) !== 'ENOENT') continue;
      else now = null;
    }
    if (now !== entry.digest) moved.push(entry.path);
  }
  return moved;
}

/** Report to the live runs of `root`; under refuse, name the lockfiles npm rewrote (so the CLI fails). */
export function npmLifecycleHook(root: string, env: Env, pid: number): HookOutcome {
  const runs = liveRunsFor(root, env);
  if (runs.length === 0) return { runs, refusedFor: [] };
  const command = env['npm_command'];
  const hook = env['npm_lifecycle_event'] ?? 'unknown';
  const refusing = runs.filter((run) => run.policy === 'refuse');
  // `npm ci` never writes the lockfile (it fails when out of sync); only `npm install` can have rewritten it.
  const refusedFor =
    command === 'install' ? [...new Set(refusing.flatMap((run) => rewrittenLockfiles(root, run)))] : [];
  for (const run of runs) {
    reportToRun(run, {
      type: 'hook',
      source: 'npm-lifecycle',
      hook,
      ...(command === undefined ? {} : { command }),
      pid,
      ...(refusedFor.length > 0 ? { refused: true } : {}),
    });
  }
  return { runs, refusedFor };
}

/** Whether the root script running now follows a successful install (npm install / ci, any pnpm, bun or yarn 1 install): write the slice files. */
export function writesSliceFilesNow(env: Env): boolean {
  // prepare: what init --npm-scripts writes (npm records no hasInstallScript for it); postinstall: earlier inits.
  const event = env['npm_lifecycle_event'];
  if (event !== 'prepare' && event !== 'postinstall') return false;
  const command = env['npm_command'];
  if (command === 'install' || command === 'ci') return true;
  const agent = env['npm_config_user_agent'] ?? '';
  return agent.startsWith('pnpm/') || agent.startsWith('bun/') || agent.startsWith('yarn/1.');
}
