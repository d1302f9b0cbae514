// `lockguard doctor`: is this workspace set up for lockguard, and is its ledger healthy?
//
// Owns: a list of independent checks, each ok / warn / fail with the fix, read-only; each runner's checks
// are its adapter's (integrations/runners/<runner>/doctor.ts), rendered here.
// Invariants: never writes (not even the ledger); one failing check never hides the others.

import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkInstall } from '../../core/install-check.js';
import { isLockguardError } from '../../core/errors.js';
import { readWorkspaceFingerprints, type WorkspaceFingerprints } from '../../core/fingerprints.js';
import type { Workspace } from '../../core/workspace.js';
import { integrationOf } from '../../integrations/package-managers/registry.js';
import { RUNNERS, type DoctorCheck } from '../../integrations/runners/index.js';
import { soundKeysProof } from '../../integrations/sound-keys/index.js';
import { listRunIds, loadRun, runDir } from '../../ledger/ledger.js';
import { hasSliceRecord, sliceFilesIgnored } from '../../ledger/slice-files.js';
import { listMarkers } from '../../ledger/live.js';
import { foreignClaims, foreignLine } from '../../ledger/trust.js';
import { ledgerTracked } from '../../integrations/git.js';
import { flag, parse } from '../args.js';
import { readSettings, type Retention, retentionOf, settingsInEffect } from '../settings.js';
import { EXIT } from '../exit-codes.js';
import { LEDGER, ledgerPath } from '../../ledger/ledger-layout.js';
import { DEFAULT_KEEP } from '../../ledger/prune.js';
import { DEFAULT_RETENTION, retentionSlack } from '../../ledger/retention.js';
import { paint, type Io } from '../io.js';
import type { Command } from '../command.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';
import { hookChecks } from '../doctor-hooks.js';
import { rushHere, rushWords, rushWorkspacesGap } from '../../integrations/runners/rush.js';

export type CheckLevel = DoctorCheck['level'];
export type CheckResult = DoctorCheck;

const help = `Usage: lockguard doctor [options]

Checks that lockguard can do its job here, read-only: Node.js version, the fingerprint table, whether the
installed tree holds what the lockfile says, the pnpmfile shim (pnpm) or the hook scripts (npm), the pnpm
that runs (the one on PATH, or the packageManager pin it switches to unless managePackageManagerVersions or
pmOnFail says not to) and its hooks, what --policy refuse can stop for yarn and bun, turbo's packageManager pin and which turbo
binary lockguard run starts (node_modules/.bin first on PATH, as in a package script), whether lockguard can
withhold entries from the installed nx (nx 20 to 24; read from node_modules/nx/package.json), and the ledger
(broken records, live runs, records not made on this machine, ledger files git tracks, and past 500
runs a hint to lockguard prune), and where turbo or nx is configured, that every cached task's key folds its
project's .lockguard-slice (from turbo run <tasks> --dry=json and nx 24's task plans; the fix: lockguard
init --sound-keys), and where the files are committed (init --sound-keys=committed) that each is current,
tracked by git and not ignored; where the workspace uses slice files, whether its installs rewrite them
(slice-hooks: pnpm 10's pnpmfile, the root postinstall for npm and pnpm 11+, the committed yarn plugin). Exit 0 when nothing fails (warnings allowed), 1 when a check fails.

Options:
${DIR_HELP}
  --json               print the checks as JSON: [{check, level, detail, fix?}]
  -h, --help           this text
`;

function nodeCheck(): CheckResult {
  const [major = 0] = process.versions.node.split('.').map(Number);
  return major >= 20
    ? { check: 'node', level: 'ok', detail: `Node.js ${process.versions.node}` }
    : {
        check: 'node',
        level: 'fail',
        detail: `Node.js ${process.versions.node} is older than lockguard supports`,
        fix: 'Use Node.js 20 or newer.',
      };
}

function tableChecks(workspace: Workspace): CheckResult[] {
  try {
    const table = readWorkspaceFingerprints(workspace.root, { manager: workspace.manager });
    const present = table.entries.filter((entry) => entry.digest !== null).map((entry) => entry.path);
    const results: CheckResult[] = [
      {
        check: 'table',
        level: 'ok',
        detail: `${workspace.manager} workspace at ${workspace.root}: ${present.join(', ') || 'no files yet'}`,
      },
    ];
    results.push(...aboveRootChecks(table));
    const install = checkInstall(table);
    results.push(
      install.ok
        ? {
            check: 'install',
            level: 'ok',
            detail:
              install.checked === 'nothing'
                ? `no pre-run check for ${workspace.manager}`
                : 'the installed tree holds what the lockfile says',
          }
        : {
            check: 'install',
            level: 'warn',
            detail: install.detail,
            fix: `lockguard run will refuse to start: install first (${install.fix ?? integrationOf(workspace.manager).frozenInstall}), or pass --no-pre-check.`,
          },
    );
    return results;
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return [
      {
        check: 'table',
        level: 'fail',
        detail: error.message,
        ...(error.hint === undefined ? {} : { fix: error.hint }),
      },
    ];
  }
}

/**
 * A `node_modules` above the workspace root (the table's `ancestor-marker` entries, five per such folder):
 * every project resolves from it what its own node_modules lacks. Said as a warning with what is checked:
 * a run watches its markers (a change mid-run withholds), no key folds it (keys must agree between
 * machines), and a folder with no marker (bun's, or one made by hand) is not watched at all.
 */
function aboveRootChecks(table: WorkspaceFingerprints): CheckResult[] {
  const byFolder = new Map<string, string[]>();
  for (const entry of table.entries) {
    if (entry.kind !== 'ancestor-marker') continue;
    const folder = entry.path.slice(0, entry.path.indexOf('node_modules/') + 'node_modules'.length);
    const present = byFolder.get(folder) ?? [];
    if (entry.digest !== null) present.push(entry.path);
    byFolder.set(folder, present);
  }
  // Gitignored slice files fold the markers (ledger/slice-files.ts, the above line); committed ones cannot.
  const folded = sliceFilesIgnored(table.root) && hasSliceRecord(table.root);
  const keys = folded
    ? "and each project's .lockguard-slice folds it, so the runners' keys that fold those files move with it (and differ from other machines' while it is there)"
    : 'but no key folds it (committed or absent slice files), so a cache can replay outputs built against what it held before';
  return [...byFolder].map(([folder, present]) => ({
    check: 'above root',
    level: 'warn',
    detail:
      present.length === 0
        ? `${resolve(table.root, folder)} is a node_modules above the workspace root, where every project resolves what its own node_modules lacks; it holds no install marker (npm, pnpm or yarn writes one; bun and hand-made folders do not), so lockguard cannot see it change, and no key folds it`
        : `${resolve(table.root, folder)} is a node_modules above the workspace root, where every project resolves what its own node_modules lacks: a guarded run watches ${present.join(', ')} and withholds what was saved after it changes, ${keys}`,
    fix: `Remove ${resolve(table.root, folder)}, or move the workspace out from under it, so every package a project resolves comes from the workspace's own install.`,
  }));
}

/** Every runner adapter's own checks (turbo's pin and binary, nx's version), in the registry's order. */
function runnerChecks(workspace: Workspace, env: Io['env']): CheckResult[] {
  const rush = rushHere(workspace.root);
  // Rush is no guarded runner: what its cache does with a lockfile change is said, as the run's line says it.
  const rushCheck: CheckResult[] = rush === undefined ? [] : [{ check: 'rush', level: 'ok', detail: rushWords(rush) }];
  const gap = rush === undefined ? undefined : rushWorkspacesGap(rush);
  if (gap !== undefined) rushCheck.push({ check: 'rush', level: 'warn', ...gap });
  return [...RUNNERS.flatMap((adapter) => adapter.doctor(workspace.root, env, workspace.manager)), ...rushCheck];
}

/** More runs than this and doctor suggests `lockguard prune`. */
const PRUNE_HINT_AT = 10 * DEFAULT_KEEP;

/** The ledger: readable, not symlinked, its runs loadable, and the warnings (prune, tracked, foreign, dead). */
function ledgerChecks(root: string, env: Io['env']): CheckResult[] {
  const dir = ledgerPath(root);
  const stats = lstatSync(dir, { throwIfNoEntry: false });
  if (stats === undefined) return [{ check: 'ledger', level: 'ok', detail: 'no runs yet' }];
  if (!stats.isDirectory())
    return [
      {
        check: 'ledger',
        level: 'fail',
        detail: `${dir} is ${stats.isSymbolicLink() ? 'a symbolic link (never followed)' : 'not a folder'}`,
        fix: 'Move or remove it: lockguard keeps its run records there.',
      },
    ];
  const runs = readRuns(root);
  if ('check' in runs) return [runs];
  const { ids, broken } = runs;
  const markers = listMarkers(root);
  const live = markers.filter((marker) => marker.alive);
  const dead = markers.filter((marker) => !marker.alive && !marker.foreign).length;
  const foreign = foreignClaims(root);
  const results: CheckResult[] = [
    {
      check: 'ledger',
      level: broken.length === 0 ? 'ok' : 'warn',
      detail: `${ids.length} runs, ${live.length} live${broken.length === 0 ? '' : `, ${broken.length} unreadable (${broken.slice(0, 3).join(', ')})`}`,
      ...(broken.length === 0 ? {} : { fix: `Delete the unreadable run folders under ${join(dir, LEDGER.runs)}.` }),
    },
  ];
  results.push(...ledgerWarnings(root, env, ids.length, foreign, dead));
  return results;
}

/** The ledger's run ids and those that cannot be loaded; the check that fails when the runs cannot be listed. */
function readRuns(root: string): { ids: string[]; broken: string[] } | CheckResult {
  let ids: string[];
  try {
    ids = listRunIds(root);
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return {
      check: 'ledger',
      level: 'fail',
      detail: error.message,
      ...(error.hint === undefined ? {} : { fix: error.hint }),
    };
  }
  const broken: string[] = [];
  for (const id of ids) {
    try {
      loadRun(runDir(root, id), root);
    } catch (error) {
      if (!isLockguardError(error)) throw error;
      broken.push(id);
    }
  }
  return { ids, broken };
}

/** The ledger's warnings: too many runs, a tracked .lockguard/, foreign claims, dead runs not finished yet. */
function ledgerWarnings(
  root: string,
  env: Io['env'],
  runs: number,
  foreign: ReturnType<typeof foreignClaims>,
  dead: number,
): CheckResult[] {
  const dir = ledgerPath(root);
  const results: CheckResult[] = [];
  const keep = retentionIn(root, env);
  if (runs > (keep === 'all' ? PRUNE_HINT_AT : keep + retentionSlack(keep)))
    results.push({
      check: 'ledger',
      level: 'warn',
      detail:
        keep === 'all'
          ? `${runs} runs in ${join(dir, LEDGER.runs)}: keepRuns is "all", so lockguard never removes one by itself`
          : `${runs} runs in ${join(dir, LEDGER.runs)}, over keepRuns ${keep} plus ${retentionSlack(keep)}: no run has pruned since (a run skips the prune while another lockguard command holds the ledger, and says why when a prune fails)`,
      fix: `lockguard prune removes all but the newest ${keep === 'all' ? DEFAULT_KEEP : keep} and the runs still needed (--dry-run shows what would go).`,
    });
  const tracked = ledgerTracked(root, env, false);
  if (tracked > 0)
    results.push({
      check: 'ledger',
      level: 'warn',
      detail: `the repository tracks ${tracked} file(s) under .lockguard/ (a committed ledger is someone else's records)`,
      fix: 'git rm -r --cached .lockguard, then lockguard init (it adds .lockguard/ to .gitignore).',
    });
  if (foreign.length > 0)
    results.push({
      check: 'ledger',
      level: 'fail',
      detail: foreignLine(foreign) ?? '',
      fix: `Remove ${dir} (or, if you copied it from another machine on purpose, the foreign files under ${join(dir, LEDGER.live)}).`,
    });
  if (dead > 0)
    results.push({
      check: 'ledger',
      level: 'warn',
      detail: `${dead} run(s) died before their final check and are not finished yet`,
      fix: 'Run any workspace command (lockguard status): it finishes them, withholding their unchecked saves restorably.',
    });
  return results;
}

/** The team's settings (package.json's "lockguard" field) as a run would take them without flags. */
function settingsCheck(root: string, env: Io['env']): CheckResult {
  try {
    return { check: 'settings', level: 'ok', detail: settingsInEffect(readSettings(root), env) };
  } catch (error) {
    if (!isLockguardError(error)) throw error;
    return {
      check: 'settings',
      level: 'fail',
      detail: error.message,
      ...(error.hint === undefined ? {} : { fix: error.hint }),
    };
  }
}

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('doctor', argv, { ...DIR_OPTION, json: { type: 'boolean' } });
    const workspace = await workspaceOf(parsed, io);
    const results = [
      nodeCheck(),
      settingsCheck(workspace.root, io.env),
      ...tableChecks(workspace),
      ...hookChecks(workspace, io.env),
      ...runnerChecks(workspace, io.env),
      ...ledgerChecks(workspace.root, io.env),
    ];
    // Sound keys: each runner's own plan shows every cached task folding its project's slice file.
    for (const { level, detail, fix } of await soundKeysProof(workspace.root, io.env))
      results.push({ check: 'sound-keys', level, detail, ...(fix === undefined ? {} : { fix }) });
    if (flag(parsed, 'json')) {
      io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    } else {
      for (const result of results) {
        const mark = {
          ok: paint(io, io.stdout, 'green', 'ok  '),
          warn: paint(io, io.stdout, 'yellow', 'warn'),
          fail: paint(io, io.stdout, 'red', 'FAIL'),
        }[result.level];
        io.stdout.write(`${mark}  ${result.check.padEnd(9)} ${result.detail}\n`);
        if (result.fix !== undefined && result.level !== 'ok')
          io.stdout.write(`      ${' '.repeat(9)} fix: ${result.fix}\n`);
      }
    }
    return results.some((result) => result.level === 'fail') ? EXIT.moved : EXIT.ok;
  },
};

/** The workspace's retention; the default when the setting is broken (the settings check reports that). */
function retentionIn(root: string, env: Io['env']): Retention {
  try {
    return retentionOf(readSettings(root), env).value;
  } catch {
    return DEFAULT_RETENTION;
  }
}
