// git: keeping lockguard's ledger out of the repository.
//
// Owns: the `.gitignore` line `lockguard init` adds (`.lockguard/`, idempotent: any line that already ignores
// the folder counts), `ledgerTracked`: whether the repository tracks anything under `.lockguard/` (a
// committed ledger is someone else's records: ledger/trust.ts treats them as foreign; this says so early), and
// `changedFromHead`: which inputs differ from the commit (a CI that keys its cache on the commit folds HEAD's),
// and `trackedAndIgnored` (sound keys' committed slice files: doctor's check that git tracks them).
// Cost: the answer is remembered in `.lockguard/cache/git-index.json` under the git index's stat identity, so
// a command pays a few lstats (finding `.git`, the index's stat) and one small read while the index is
// unchanged; only after the index changed (a checkout, a commit, an add) is `git ls-files` run, once.
// Invariants: never writes anything of git's; no git, no repository, or a git that fails is "not tracked"
// (nothing to warn about that lockguard can know); the memo is advice only (a broken one is a miss).

import { childProcess } from '../core/child-process.js';
import { lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Env } from '../core/env.js';
import { writeAtomic } from '../ledger/atomic.js';
import { GIT_MEMO_FILE, LEDGER, LEDGER_DIR, ledgerPath } from '../ledger/ledger-layout.js';
import { readConfigText } from '../core/bounded-read.js';

/** Lines of a .gitignore that ignore the ledger folder at the root it sits in. */
const IGNORES_LEDGER = new Set([LEDGER_DIR, `${LEDGER_DIR}/`, `/${LEDGER_DIR}`, `/${LEDGER_DIR}/`]);

/** The `.gitignore` text with `.lockguard/` added, or undefined when it already ignores it. */
export function withLedgerIgnored(text: string | undefined): string | undefined {
  const lines = (text ?? '').split(/\r?\n/).map((line) => line.trim());
  if (lines.some((line) => IGNORES_LEDGER.has(line))) return undefined;
  const base = text ?? '';
  // The file's own line ending: a CRLF .gitignore stays CRLF.
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  return `${base}${base === '' || base.endsWith('\n') ? '' : eol}# lockguard's ledger (records of this machine's runs): never committed${eol}${LEDGER_DIR}/${eol}`;
}

/** The repository's git dir and work tree for `root`: the nearest `.git` at or above it (a folder, or a worktree's file). */
function gitDirOf(root: string): { gitDir: string; top: string } | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const stats = lstatSync(dotGit, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) return { gitDir: dotGit, top: dir };
    if (stats?.isFile() === true) {
      try {
        const target = /^gitdir:\s*(.+)$/m.exec(readConfigText(dotGit) ?? '')?.[1]?.trim();
        return target === undefined
          ? undefined
          : { gitDir: isAbsolute(target) ? target : resolve(dir, target), top: dir };
      } catch {
        return undefined;
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

interface Memo {
  readonly index: string;
  readonly tracked: number;
}

const MEMO = join(LEDGER_DIR, LEDGER.cache, GIT_MEMO_FILE);

function readMemo(root: string): Memo | undefined {
  try {
    const value = JSON.parse(readFileSync(join(root, MEMO), 'utf8')) as Partial<Memo>;
    return typeof value.index === 'string' && typeof value.tracked === 'number' ? (value as Memo) : undefined;
  } catch {
    return undefined;
  }
}

function writeMemo(root: string, memo: Memo): void {
  try {
    const ledger = ledgerPath(root);
    if (lstatSync(ledger, { throwIfNoEntry: false })?.isDirectory() !== true) return;
    mkdirSync(join(ledger, LEDGER.cache), { recursive: true });
    writeAtomic(join(root, MEMO), `${JSON.stringify(memo)}\n`);
  } catch {
    // Unwritten: git is asked again next time.
  }
}

/**
 * How many files under `<root>/.lockguard/` the repository tracks (0 when none, no repository, or no git).
 * `env` is the environment git runs with; `remember` false leaves the ledger unwritten (doctor is read-only).
 */
export function ledgerTracked(root: string, env: Env, remember = true): number {
  const repo = gitDirOf(root);
  if (repo === undefined) return 0;
  let identity: string;
  try {
    const stats = lstatSync(join(repo.gitDir, 'index'), { throwIfNoEntry: false });
    if (stats === undefined) return 0;
    identity = `${root}\0${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch {
    return 0;
  }
  const memo = readMemo(root);
  if (memo?.index === identity) return memo.tracked;
  const clean = gitEnv(env);
  const prefix = relative(repo.top, join(root, LEDGER_DIR)).split('\\').join('/');
  const result = childProcess().spawnSync('git', ['ls-files', '-z', '--', `${prefix}/`], {
    cwd: repo.top,
    env: clean,
    encoding: 'utf8',
    timeout: 10_000,
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0 || typeof result.stdout !== 'string') return 0;
  const tracked = result.stdout.split('\0').filter((path) => path !== '').length;
  if (remember) writeMemo(root, { index: identity, tracked });
  return tracked;
}

/** The environment git runs with: the caller's, without GIT_* (a hook's GIT_DIR must not redirect it). */
function gitEnv(env: Env): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !name.startsWith('GIT_')) clean[name] = value;
  return clean;
}

/**
 * Which of `paths` (workspace-relative) differ in the working tree from HEAD: modified, staged, deleted or
 * untracked, as `git status` says; [] without a repository, without git, or when git fails. One spawn.
 */
export function changedFromHead(root: string, paths: readonly string[], env: Env): string[] {
  const repo = gitDirOf(root);
  if (repo === undefined || paths.length === 0) return [];
  const result = childProcess().spawnSync(
    'git',
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...paths],
    { cwd: root, env: gitEnv(env), encoding: 'utf8', timeout: 10_000, maxBuffer: 16 << 20 },
  );
  if (result.status !== 0 || typeof result.stdout !== 'string') return [];
  return result.stdout
    .split('\0')
    .filter((record) => record.length > 3)
    .map((record) =>
      relative(root, join(repo.top, record.slice(3)))
        .split('\\')
        .join('/'),
    );
}

/**
 * Of `paths` (workspace-relative), those git tracks and those its ignore rules match (tracked or not:
 * `check-ignore --no-index`); undefined without a repository, without git, or when git fails. Two spawns.
 */
export function trackedAndIgnored(
  root: string,
  paths: readonly string[],
  env: Env,
): { tracked: Set<string>; ignored: Set<string> } | undefined {
  if (gitDirOf(root) === undefined) return undefined;
  const options = { cwd: root, env: gitEnv(env), encoding: 'utf8', timeout: 10_000, maxBuffer: 16 << 20 } as const;
  const listed = childProcess().spawnSync('git', ['ls-files', '-z', '--', ...paths], options);
  if (listed.status !== 0 || typeof listed.stdout !== 'string') return undefined;
  // check-ignore exits 1 when nothing is ignored.
  const ignored = childProcess().spawnSync('git', ['check-ignore', '--no-index', '-z', '--stdin'], {
    ...options,
    input: paths.map((path) => `${path}\0`).join(''),
  });
  if ((ignored.status !== 0 && ignored.status !== 1) || typeof ignored.stdout !== 'string') return undefined;
  const split = (text: string) => new Set(text.split('\0').filter((path) => path !== ''));
  return { tracked: split(listed.stdout), ignored: split(ignored.stdout) };
}

/** The one warning line when the repository tracks ledger files, else undefined. */
export function trackedLedgerLine(root: string, env: Env): string | undefined {
  const tracked = ledgerTracked(root, env);
  if (tracked === 0) return undefined;
  return `the repository tracks ${tracked === 1 ? 'a file' : `${tracked} files`} under .lockguard/ (a committed ledger is someone else's records: lockguard repairs and recovers nothing from what was not made on this machine); remove them from git (git rm -r --cached .lockguard) and run lockguard init, which ignores the folder.`;
}
