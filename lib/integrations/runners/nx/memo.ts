// Remembering what the workspace's own nx said its cache dir is, so a guarded run pays for asking nx (one
// `node` process, ~350 ms) once, not on every run.
//
// Owns: `<root>/.lockguard/cache/nx-cache-dir.json`: the answer, keyed by everything nx 24's answer depends
// on (read from its `cache-directory.js` and `workspace-id.js`): the home dir, the NX_* settings that move
// it, nx's own version, nx.json's bytes (nxCloudId, cacheDirectory), and the git identity (the `.git` entry
// and its config, where the remote is; a shallow marker). Any change to those is a new key: nx is asked again.
// Invariants: a memo is advice only (a key mismatch, a broken or unreadable file is a miss, never an error);
// written atomically; never holds a token (nx.json and git config are hashed, not copied).

import type { Env } from '../../../core/env.js';
import { nodeCrypto } from '../../../core/lazy-builtins.js';
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../../../ledger/atomic.js';
import { LEDGER, LEDGER_DIR, ledgerPath, NX_MEMO_FILE } from '../../../ledger/ledger-layout.js';
import { readConfigText } from '../../../core/bounded-read.js';
import { readBounded } from '../../../core/bounded-read.js';

const MEMO = join(LEDGER_DIR, LEDGER.cache, NX_MEMO_FILE);
const SETTINGS = [
  'HOME',
  'NX_CACHE_DIRECTORY',
  'NX_WORKSPACE_DATA_DIRECTORY',
  'NX_PROJECT_GRAPH_CACHE_DIRECTORY',
  'NX_ALLOW_INSECURE_DIRECTORIES',
];

function statKey(path: string): string {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats === undefined ? '-' : `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  } catch (error) {
    // `.git` is a file in a worktree or a submodule (ENOTDIR under it): part of the key, never a failed run.
    return `!${(error as { code?: string }).code ?? 'error'}`;
  }
}

function bytes(path: string): string {
  try {
    const read = readBounded(path, { kind: 'config' });
    return read === undefined ? '-' : nodeCrypto().createHash('sha256').update(read).digest('hex');
  } catch {
    return '-';
  }
}

/** The git entry (`.git` folder or worktree file) at or above `root`, or undefined. */
function gitEntry(root: string): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    if (lstatSync(join(dir, '.git'), { throwIfNoEntry: false }) !== undefined) return join(dir, '.git');
    if (dirname(dir) === dir) return undefined;
  }
}

/** Everything nx's answer depends on, as one digest. */
export function nxMemoKey(
  root: string,
  env: Env,
  nxManifest = join(root, 'node_modules', 'nx', 'package.json'),
): string {
  const git = gitEntry(root);
  const parts = [
    root,
    ...SETTINGS.map((name) => `${name}=${env[name] ?? ''}`),
    nxManifest,
    bytes(nxManifest),
    bytes(join(root, 'nx.json')),
    git ?? '-',
    git === undefined ? '-' : statKey(git),
    git === undefined ? '-' : bytes(join(git, 'config')),
    git === undefined ? '-' : statKey(join(git, 'shallow')),
  ];
  return nodeCrypto().createHash('sha256').update(parts.join('\0')).digest('hex');
}

export function readNxMemo(root: string, key: string): string | undefined {
  try {
    const value = JSON.parse(readConfigText(join(root, MEMO)) ?? '') as { key?: unknown; cache?: unknown };
    return value.key === key && typeof value.cache === 'string' ? value.cache : undefined;
  } catch {
    return undefined;
  }
}

export function writeNxMemo(root: string, key: string, cache: string): void {
  try {
    const ledger = ledgerPath(root);
    if (lstatSync(ledger, { throwIfNoEntry: false })?.isDirectory() !== true) return;
    mkdirSync(join(ledger, LEDGER.cache), { recursive: true });
    writeAtomic(join(root, MEMO), `${JSON.stringify({ key, cache })}\n`);
  } catch {
    // A memo that cannot be written only means nx is asked again next time.
  }
}
