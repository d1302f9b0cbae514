// `lockguard uninstall`: the way out: take back everything `lockguard init` did and what lockguard's hooks
// wrote, leaving the repository as it was before.
//
// Owns: the order of the take-back: first every file init noted in .lockguard/init.json that still holds
// what init left (restored byte for byte, or removed where init created it); then what is recognisable
// without the record (a fresh clone has none): the pnpmfile shim and its pnpmfileChecksum line, lockguard's
// hook in the root scripts, lockguard's lines in .gitignore, the yarn plugin's registration and file, the
// `.lockguard-slice` files lockguard wrote (slice-files.json); last the ledger itself, unless its quarantine
// still holds withheld cache entries.
// Invariants: a file the user changed since init is never overwritten: only lockguard's own lines are taken
// out of it where that is exact (scripts, .gitignore lines, the checksum line), else it is named with what to
// take out by hand; a slice file is removed only while it holds a slice file's text; nothing outside the
// workspace root is touched.

import { PNPM_LOCKFILE } from '../../core/package-managers/pnpm/index.js';
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from '../../core/errors.js';
import { removeHookScripts } from '../../integrations/npm/scripts.js';
import { lockfileChecksum, pnpmfileChecksumOf, withLockfileChecksum } from '../../integrations/pnpmfile/checksum.js';
import { PNPMFILE_SHIM } from '../../integrations/pnpmfile/shim.js';
import { withoutLockguardPlugin, YARN_PLUGIN_PATH } from '../../integrations/yarn-plugin/registration.js';
import { writeAtomic } from '../../ledger/atomic.js';
import { LEDGER, LEDGER_DIR, ledgerPath } from '../../ledger/ledger-layout.js';
import { readSliceRecord, SLICE_FILE, SLICE_FILE_VERSION } from '../../ledger/slice-files.js';
import { flag, parse } from '../args.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { readInitRecord, textDigest } from '../init-record.js';
import type { Io } from '../io.js';
import { DIR_HELP, DIR_OPTION, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard uninstall [options]

The way out: takes back everything lockguard init did, and what lockguard wrote since, so the repository is
as it was before (then remove lockguard from devDependencies with your package manager):
  - .pnpmfile.cjs (lockguard's shim) and its pnpmfileChecksum line in pnpm-lock.yaml (nothing else there
    moves: pnpm resolves as it did before init);
  - lockguard's hook in the root package.json scripts (--npm-scripts);
  - sound keys: turbo.json inputs, .nxignore, nx.json and project.json entries, the .gitignore lines, and
    every .lockguard-slice file lockguard wrote;
  - lockguard's yarn plugin (.yarn/plugins/lockguard.cjs and its entry in .yarnrc.yml);
  - .lockguard/ in .gitignore and the ledger folder .lockguard/ itself (kept while its quarantine holds
    withheld cache entries: lockguard quarantine restore or drop them first).
A file init wrote is restored byte for byte while it holds what init left (.lockguard/init.json notes it);
one changed since keeps your changes: only lockguard's own lines are taken out where that is exact, and
anything left is named with what to remove by hand. Commit the result.

Options:
${DIR_HELP}
  --json               print {version, command, exitCode, root, done (each thing taken back), left (each
                       thing left in place, and why)}
  -h, --help           this text
`;

/** A file's text; undefined when absent or not a regular file. */
function readText(path: string): string | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined || !stats.isFile()) return undefined;
  return readFileSync(path, 'utf8');
}

interface Report {
  readonly done: string[];
  readonly left: string[];
}

/** Restore every noted file that still holds what init left; the ones handled. */
function restoreNoted(root: string, report: Report): Set<string> {
  const handled = new Set<string>();
  for (const [file, noted] of Object.entries(readInitRecord(root))) {
    const path = join(root, file);
    const now = readText(path);
    if (now === undefined || textDigest(now) !== noted.after) continue;
    if (noted.before === null) rmSync(path, { force: true });
    else writeAtomic(path, noted.before);
    handled.add(file);
    report.done.push(noted.before === null ? `removed ${file}` : `restored ${file}`);
  }
  return handled;
}

/** The pnpmfile shim and its checksum line (only while no pnpmfile is left that pnpm would checksum). */
function takeBackPnpm(root: string, handled: ReadonlySet<string>, report: Report): void {
  const shimPath = join(root, '.pnpmfile.cjs');
  const shim = readText(shimPath);
  if (shim === PNPMFILE_SHIM && !handled.has('.pnpmfile.cjs')) {
    rmSync(shimPath, { force: true });
    report.done.push('removed .pnpmfile.cjs');
  } else if (shim !== undefined && shim !== PNPMFILE_SHIM && shim.includes('lockguard/pnpmfile')) {
    report.left.push(
      ".pnpmfile.cjs: it composes lockguard's plugin with your hooks; take require('lockguard/pnpmfile') out of it, then run pnpm install and commit pnpm-lock.yaml",
    );
    return;
  }
  const lockPath = join(root, PNPM_LOCKFILE);
  const lock = readText(lockPath);
  if (lock === undefined || readText(shimPath) !== undefined) return;
  if (lockfileChecksum(lock) !== pnpmfileChecksumOf(PNPMFILE_SHIM)) return;
  const next = withLockfileChecksum(lock, undefined);
  if (next === undefined || next === lock) return;
  writeAtomic(lockPath, next);
  report.done.push("pnpm-lock.yaml: took out the shim's pnpmfileChecksum line (nothing else changed)");
}

/** lockguard's hook out of the root scripts, where the noted restore did not already do it. */
function takeBackScripts(root: string, handled: ReadonlySet<string>, report: Report): void {
  if (handled.has('package.json')) return;
  const path = join(root, 'package.json');
  const text = readText(path);
  if (text === undefined) return;
  let edit: ReturnType<typeof removeHookScripts>;
  try {
    edit = removeHookScripts(text, path);
  } catch {
    report.left.push("package.json: not valid JSON here; take lockguard's hook out of its scripts by hand");
    return;
  }
  if (edit.text === undefined) return;
  writeAtomic(path, edit.text);
  report.done.push(`package.json: took lockguard's hook out of ${edit.changed.join(' and ')}`);
}

/** Lines init adds to .gitignore (with the comment above each). */
const GITIGNORE_LINES = new Set([`${LEDGER_DIR}/`, SLICE_FILE]);

function takeBackGitignore(root: string, handled: ReadonlySet<string>, report: Report): void {
  if (handled.has('.gitignore')) return;
  const path = join(root, '.gitignore');
  const text = readText(path);
  if (text === undefined) return;
  const lines = text.split('\n');
  const kept = lines.filter((line, index) => {
    if (GITIGNORE_LINES.has(line)) return false;
    const next = lines[index + 1];
    return !(line.startsWith("# lockguard's") && next !== undefined && GITIGNORE_LINES.has(next));
  });
  if (kept.length === lines.length) return;
  const rest = kept.join('\n');
  // Nothing but lockguard's lines: init created it (a fresh clone has no record to say so).
  if (rest.trim() === '') rmSync(path, { force: true });
  else writeAtomic(path, rest);
  report.done.push(
    rest.trim() === ''
      ? "removed .gitignore (it held only lockguard's lines)"
      : ".gitignore: took out lockguard's lines",
  );
}

function takeBackYarnPlugin(root: string, report: Report): void {
  const rcPath = join(root, '.yarnrc.yml');
  const rc = readText(rcPath);
  const next = rc === undefined ? undefined : withoutLockguardPlugin(rc);
  if (next !== undefined) {
    writeAtomic(rcPath, next);
    report.done.push(".yarnrc.yml: took out lockguard's plugin");
  }
  if (readText(join(root, YARN_PLUGIN_PATH)) !== undefined) {
    rmSync(join(root, YARN_PLUGIN_PATH), { force: true });
    report.done.push(`removed ${YARN_PLUGIN_PATH}`);
  }
}

/** Every slice file lockguard wrote (slice-files.json), while it still holds a slice file's text. */
function takeBackSliceFiles(root: string, report: Report): void {
  const record = readSliceRecord(root);
  let removed = 0;
  for (const file of record?.files ?? []) {
    const path = join(root, file.importer, SLICE_FILE);
    if (!(readText(path) ?? '').startsWith(`${SLICE_FILE_VERSION}\n`)) continue;
    rmSync(path, { force: true });
    removed += 1;
  }
  if (removed > 0) report.done.push(`removed ${removed} ${SLICE_FILE} file${removed === 1 ? '' : 's'}`);
}

/** Config files that still name the slice file after the take-back (changed since init, or a fresh clone). */
function stillNamingSlices(root: string, report: Report): void {
  for (const file of ['turbo.json', 'nx.json', '.nxignore']) {
    if ((readText(join(root, file)) ?? '').includes(SLICE_FILE))
      report.left.push(
        `${file}: still names ${SLICE_FILE} (changed since init, or init ran on another clone); take those entries out by hand`,
      );
  }
}

/**
 * The ledger folder, unless its quarantine still holds withheld entries or something is left for a second
 * uninstall (its init.json says what init wrote); a kept ledger ignores itself, .gitignore's line gone.
 */
function takeBackLedger(root: string, keep: boolean, report: Report): void {
  const ledger = join(root, LEDGER_DIR);
  if (lstatSync(ledger, { throwIfNoEntry: false }) === undefined) return;
  if (keep) {
    writeAtomic(join(ledger, '.gitignore'), '*\n');
    return;
  }
  let held: string[] = [];
  try {
    held = readdirSync(ledgerPath(root, LEDGER.quarantine)).filter((name) => !name.startsWith('.'));
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  if (held.length > 0) {
    report.left.push(
      `${LEDGER_DIR}/: its quarantine holds entries withheld by ${held.length} run(s); lockguard quarantine restore (or drop) them, then run lockguard uninstall again`,
    );
    writeAtomic(join(ledger, '.gitignore'), '*\n');
    return;
  }
  rmSync(ledger, { recursive: true, force: true });
  report.done.push(`removed ${LEDGER_DIR}/`);
}

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('uninstall', argv, { ...DIR_OPTION, json: { type: 'boolean' } });
    const { root } = await workspaceOf(parsed, io);
    const report: Report = { done: [], left: [] };
    takeBackSliceFiles(root, report);
    const handled = restoreNoted(root, report);
    takeBackPnpm(root, handled, report);
    takeBackScripts(root, handled, report);
    takeBackYarnPlugin(root, report);
    stillNamingSlices(root, report);
    takeBackGitignore(root, handled, report);
    takeBackLedger(root, report.left.length > 0, report);
    if (flag(parsed, 'json')) {
      const version = await (await import('../version.js')).version();
      io.stdout.write(
        `${JSON.stringify({ version, command: 'uninstall', exitCode: EXIT.ok, root, done: report.done, left: report.left }, null, 2)}\n`,
      );
      return EXIT.ok;
    }
    for (const line of report.done) io.stdout.write(`${line}\n`);
    for (const line of report.left) io.stdout.write(`left in place: ${line}\n`);
    if (report.done.length === 0 && report.left.length === 0)
      io.stdout.write('nothing of lockguard here to take back.\n');
    else if (report.left.length === 0)
      io.stdout.write('lockguard is taken out of this repository; remove it from devDependencies too.\n');
    return EXIT.ok;
  },
};
