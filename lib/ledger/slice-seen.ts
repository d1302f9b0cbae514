// What changed in the per-project slice files since the last guarded run, whoever wrote them (`lockguard
// run` itself, an install hook, `lockguard key --write-slices`): the status line's count.
//
// Owns: `noteRunSeen` (the projects whose file's text differs from what the last run saw, then the record says
// this run saw them; sliceFilesCurrent's `seenByRun` asks the same on the fast path). The record is ledger/slice-files.ts's; this module adds its `seen` field.
// Invariants: reads and writes only the record; the first run with a record has no earlier view, so it
// counts nothing (the writer's own lines say what it created).

import { readSliceRecord, writeSliceRecord } from './slice-files.js';

/** The importers whose file changed since the last guarded run saw them; records that this run saw them now. */
export function noteRunSeen(root: string): string[] {
  const record = readSliceRecord(root);
  if (record === undefined) return [];
  const before = record.seen;
  const now = Object.fromEntries(record.files.map((file) => [file.importer, file.sha]));
  if (before !== undefined && before.digest === record.digest && record.digest !== null) return [];
  writeSliceRecord(root, { ...record, seen: { digest: record.digest, files: now } });
  if (before === undefined) return [];
  return Object.keys(now).filter(
    (importer) => before.files[importer] !== undefined && before.files[importer] !== now[importer],
  );
}
