// Which nx versions lockguard can withhold entries from, and the task-DB step nx 20 to 23 need.
//
// Owns: `nxVersionAt(root)` (the nx that `require('nx')` finds from the workspace root), `nxSupport`
// (how a withheld entry becomes a miss on that version) and `markNotReplayable` (the task-DB step).
// Measured with the real nx (test/e2e/runner-versions.test.ts: 20.8.4, 21.6.11, 22.6.3, 23.0.0, 24.0.6; 23.0.2 and 23.3.2 by hand):
// - nx 20 to 23 answer a local hit from the `cache_outputs` row of their task DB (SQLite under
//   `.nx/workspace-data/` or `~/.nx/<id>/databases/`) alone: with the entry's folder and terminal output
//   gone they print `[local cache]` and restore nothing. A row whose `code` is not 0 is a miss (nx replays
//   only successful results unless NX_CACHE_FAILURES=true): the task runs and nx overwrites the row.
// - nx 24 misses once the folder is gone (no DB step needed); so does 23.3.2 (its DB is `-v4.db`, 23.0.x's
//   `-v3.db`). Which 23.x release changed it was not measured: every 23 gets the DB step, which is harmless
//   where the folder alone would do (a row with code 1 is a miss there too).
// So on 20 to 23 the rows of the entries about to be withheld get code 1 first, written by the workspace's
// own nx (`NxCache.applyRemoteCacheResults`, the write nx itself makes after a remote hit: nx's own SQLite
// engine, locking and schema; Node 20 has no node:sqlite and lockguard takes no SQLite dependency), with
// the entry's own terminal output written back unchanged; then the folders move as on every version.
// Invariants: one `node` process per withholding pass that needs it (never on a run without a move); a
// failure to mark is reported and the entries stay (a hit with nothing restored is worse than a replay);
// nothing else of nx's is written; versions outside the measured range are said, never assumed guarded.

import type { Env } from '../../../core/env.js';
import { childProcess } from '../../../core/child-process.js';
import { whichNx } from './which.js';

/** The nx versions whose withholding the suite proves (README "Supported runner versions"). */
export const NX_GUARDED_MAJORS = { first: 20, last: 24 } as const;
const TASK_DB_LAST_MAJOR = 23;

export interface NxSupport {
  /** `folder`: moving the entry is a miss; `task-db`: its DB row is marked first; `unguarded`: neither is known to work. */
  readonly kind: 'folder' | 'task-db' | 'unguarded';
  /** The workspace's nx version, when one is installed. */
  readonly version: string | undefined;
  /** One clause for the status line and doctor, when there is something to say. */
  readonly why?: string;
}

/** The version of the nx the workspace's commands start (its own, else Lerna's: which.ts), or undefined. */
export function nxVersionAt(root: string): string | undefined {
  return whichNx(root)?.version;
}

const RANGE = `nx ${NX_GUARDED_MAJORS.first} to ${NX_GUARDED_MAJORS.last}`;

/** How withholding works on this nx (from its major version and NX_CACHE_FAILURES). */
export function nxSupport(version: string | undefined, env: Env): NxSupport {
  if (version === undefined) return { kind: 'folder', version, why: 'no nx is installed in this workspace' };
  const major = Number(version.split('.')[0]);
  if (major < NX_GUARDED_MAJORS.first)
    return { kind: 'unguarded', version, why: `nx ${version} is older than lockguard can guard (${RANGE})` };
  if (major > NX_GUARDED_MAJORS.last)
    return {
      kind: 'folder',
      version,
      why: `nx ${version} is newer than the versions lockguard has measured (${RANGE}); its entries are withheld as on nx ${NX_GUARDED_MAJORS.last}`,
    };
  if (major > TASK_DB_LAST_MAJOR) return { kind: 'folder', version };
  if (env['NX_CACHE_FAILURES'] === 'true')
    return {
      kind: 'unguarded',
      version,
      why: `nx ${version} with NX_CACHE_FAILURES=true replays every row of its task DB, so no entry can be withheld from it`,
    };
  return { kind: 'task-db', version };
}

// Run in the workspace by the nx its commands start: argv[1] = where that nx resolves from, argv[2] = cache dir, argv[3..] = keys.
const MARK = `
const { createRequire } = require('node:module');
const fs = require('node:fs'), path = require('node:path');
const req = createRequire(path.join(process.argv[1], 'package.json'));
const native = req('nx/src/native');
const { getDbConnection } = req('nx/src/utils/db-connection');
const [cacheDir, ...keys] = process.argv.slice(2);
const cache = new native.NxCache(process.cwd(), cacheDir, getDbConnection());
let marked = 0;
for (const key of keys) {
  const terminal = path.join(cacheDir, 'terminalOutputs', key);
  const existed = fs.existsSync(terminal);
  const output = existed ? fs.readFileSync(terminal, 'utf8') : '';
  cache.applyRemoteCacheResults(key, { code: 1, terminalOutput: output, outputsPath: path.join(cacheDir, key) }, undefined);
  if (!existed) fs.rmSync(terminal, { force: true });
  marked++;
}
process.stdout.write(JSON.stringify({ marked }));
`;

/** How long the workspace's nx may take to open its task DB and mark the rows. */
const MARK_TIMEOUT_MS = 30_000;

/**
 * Mark `keys` as not replayable in nx's task DB (code 1), through the workspace's own nx. Returns undefined
 * when every key was marked, else why not (nothing may be assumed marked then).
 */
export function markNotReplayable(
  root: string,
  cacheDir: string,
  keys: readonly string[],
  env: Env,
): string | undefined {
  if (keys.length === 0) return undefined;
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) clean[name] = value;
  const result = childProcess().spawnSync(
    process.execPath,
    ['-e', MARK, whichNx(root)?.from ?? root, cacheDir, ...keys],
    {
      cwd: root,
      env: { ...clean, NX_DAEMON: 'false' },
      encoding: 'utf8',
      timeout: MARK_TIMEOUT_MS,
    },
  );
  if (result.error !== undefined)
    return `the workspace's nx could not be started to update its task DB (${(result.error as { code?: string }).code ?? result.error.message})`;
  if (result.status !== 0) {
    const last = (result.stderr ?? '')
      .trim()
      .split('\n')
      .filter((line) => /Error/.test(line))[0];
    return `the workspace's nx could not update its task DB (exit ${result.status ?? result.signal}${last === undefined ? '' : `: ${last.trim().slice(0, 200)}`})`;
  }
  try {
    const marked = (JSON.parse(result.stdout) as { marked?: unknown }).marked;
    return marked === keys.length
      ? undefined
      : `the workspace's nx marked ${String(marked)} of ${keys.length} rows in its task DB`;
  } catch {
    return "the workspace's nx gave no answer about its task DB";
  }
}
