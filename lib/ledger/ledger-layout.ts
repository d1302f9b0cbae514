// The ledger's layout: every name under `<workspace root>/.lockguard/`, spelled here and nowhere else.
//
//   .lockguard/
//     .gitignore             `*`, written when the folder is created (ledger.ts)
//     runs/<run id>/         one folder per run: run.json, events.ndjson, report.json, guard.json
//     live/<run id>          a live run's marker (pid and kernel start time: live.ts)
//     live/.lock-<name>      a ledger lock (ledger-lock.ts)
//     blobs/<sha256>         lockfile bytes by digest (blobs.ts)
//     quarantine/<run id>/   the entries a run withheld, and journal.ndjson (quarantine*.ts)
//     slice-files.json       the per-project slice files lockguard wrote, and the lockfile digest they are for (slice-files.ts)
//     cache/                 memos that only save time (nx's resolved cache dir: integrations/runners/nx/memo.ts;
//                            whether git tracks ledger files: integrations/git.ts)
//     runs/.pruned-<id>, blobs/.pruned-<sha256>   set aside by `lockguard prune` before deletion (prune.ts)
//     quarantine/.dropped-<id>                      set aside by `quarantine drop` before deletion (quarantine/drop.ts)
//
// Owns: the names only. Reaching them safely (never through a link) is ledger-fs.ts's; live.ts reaches
// `live/` on its own (it is bundled into the pnpmfile and imports no other ledger module but this one).
// Invariant: imports only node:path.

import { join } from 'node:path';

/** The ledger folder's name, at the workspace root. */
export const LEDGER_DIR = '.lockguard';

/** The ledger's folders, each directly under `.lockguard/`. */
export const LEDGER = {
  runs: 'runs',
  live: 'live',
  blobs: 'blobs',
  quarantine: 'quarantine',
  cache: 'cache',
} as const;

/** The files of one run folder (`runs/<run id>/`). */
export const RUN_FILES = {
  record: 'run.json',
  events: 'events.ndjson',
  report: 'report.json',
  guard: 'guard.json',
} as const;

/** The prefix of a run folder or blob `lockguard prune` set aside (in `runs/` or `blobs/`) before deleting it. */
export const PRUNED_PREFIX = '.pruned-';

/** The prefix of a run's quarantine `lockguard quarantine drop` set aside (in `quarantine/`) before deleting it. */
export const DROPPED_PREFIX = '.dropped-';

/** A run's quarantine journal, in `quarantine/<run id>/`. */
export const JOURNAL_FILE = 'journal.ndjson';

/** The per-project slice files lockguard wrote (slice-files.ts), directly in `.lockguard/`: not a memo, it
 * is what lets lockguard remove a file it wrote, and only such a file. */
export const SLICE_FILES_RECORD = 'slice-files.json';

/** nx's resolved cache dir, in `cache/`. */
export const NX_MEMO_FILE = 'nx-cache-dir.json';

/** Whether git tracks ledger files, under the git index's identity, in `cache/` (integrations/git.ts). */
export const GIT_MEMO_FILE = 'git-index.json';

/** `<root>/.lockguard/<parts...>` as a plain path (no checks: ledger-fs.ts checks what it reaches). */
export function ledgerPath(root: string, ...parts: readonly string[]): string {
  return join(root, LEDGER_DIR, ...parts);
}
