// What `lockguard init` changed, kept so `lockguard uninstall` can take exactly that back.
//
// Owns: `.lockguard/init.json`: per workspace-relative file init wrote, its text before the first init that
// touched it (null: init created it) and the sha256 of the text init left. `lockguard uninstall` restores a
// file only while it still holds what init left; a file changed since is the user's, and uninstall names it.
// Invariants: the earliest `before` of a file is kept across inits; the record is advice (a torn or foreign
// one is no record: uninstall then takes back what it can recognise without it); small files only (the
// lockfile is not recorded: its one line is taken back by pnpm's rule, integrations/pnpmfile/checksum.ts).

import { nodeCrypto } from '../core/lazy-builtins.js';
import { readFileSync } from 'node:fs';
import { writeAtomic } from '../ledger/atomic.js';
import { ledgerFolder } from '../ledger/ledger-fs.js';
import { ledgerPath } from '../ledger/ledger-layout.js';

/** The record's name under `.lockguard/`. */
const INIT_RECORD = 'init.json';

interface InitFile {
  /** The file's text before init first touched it; null when init created it. */
  readonly before: string | null;
  /** sha256 (hex) of the text init left. */
  readonly after: string;
}

export type InitRecord = Readonly<Record<string, InitFile>>;

export function textDigest(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

function isInitFile(value: unknown): value is InitFile {
  if (value === null || typeof value !== 'object') return false;
  const file = value as Partial<InitFile>;
  return (file.before === null || typeof file.before === 'string') && typeof file.after === 'string';
}

/** The record at `root`; empty when there is none or it cannot be read as one. */
export function readInitRecord(root: string): InitRecord {
  try {
    const value = JSON.parse(readFileSync(ledgerPath(root, INIT_RECORD), 'utf8')) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
    const files = (value as { files?: unknown }).files;
    if (files === null || typeof files !== 'object') return {};
    return Object.fromEntries(Object.entries(files).filter(([, file]) => isInitFile(file))) as InitRecord;
  } catch {
    return {};
  }
}

/** Note that init turned `file` from `before` (undefined: absent) into `after`. */
export function noteInitEdit(root: string, file: string, before: string | undefined, after: string): void {
  const record = { ...readInitRecord(root) };
  const earlier = record[file];
  record[file] = { before: earlier === undefined ? (before ?? null) : earlier.before, after: textDigest(after) };
  ledgerFolder(root, [], true);
  writeAtomic(ledgerPath(root, INIT_RECORD), `${JSON.stringify({ version: 1, files: record }, null, 2)}\n`);
}
