// Quarantine listing: what every run's quarantine folder holds, as its journal says.
//
// Owns: `listQuarantine` (newest run first; a folder whose journal cannot be read is listed with its
// problem, its files untouched) and `entryOf` (a journal unit as a listed entry).
// Invariants: reads only; never follows a link to a run's folder (safeFolder); a name starting with a dot
// (a set-aside drop) is never listed.

import { join } from 'node:path';
import { isoTime } from '../../core/iso-time.js';
import { ledgerFolder, listFolder, safeFolder } from '../ledger-fs.js';
import { LEDGER } from '../ledger-layout.js';
import { RUN_ID, type QuarantinedEntry, type QuarantineManifest } from './pass.js';
import { readJournal, unitRecord, type JournalUnit } from './journal.js';

/** A journal unit as a listed entry. */
export function entryOf(unit: JournalUnit): QuarantinedEntry {
  return {
    ...unitRecord(unit.intent),
    withheldAt: isoTime(unit.withheldAt ?? unit.intent.t),
    ...(unit.restoredAt === undefined ? {} : { restoredAt: isoTime(unit.restoredAt) }),
  };
}

export interface QuarantineListing {
  readonly run: string;
  readonly dir: string;
  /** What the journal says is (or was) withheld: units in flight are not listed, see `inFlight`. */
  readonly manifest?: QuarantineManifest;
  /** Units with an intent and no outcome (a pass in progress, or torn: the next command repairs them). */
  readonly inFlight?: number;
  /** Set when the record could not be read: the message, the files stay. */
  readonly problem?: string;
}

/** Every quarantine folder of the workspace, newest run id first. A broken record is listed with its problem. */
export function listQuarantine(root: string): QuarantineListing[] {
  const base = ledgerFolder(root, [LEDGER.quarantine], false);
  if (base === undefined) return [];
  const out: QuarantineListing[] = [];
  for (const run of listFolder(base)
    .filter((name) => RUN_ID.test(name) && !name.startsWith('.'))
    .sort()
    .reverse()) {
    const dir = join(base, run);
    try {
      if (safeFolder(base, [run], false) === undefined) continue;
      const reading = readJournal(dir);
      const listed = reading.units.filter(
        (unit) => unit.state === 'withheld' || unit.state === 'restored' || unit.state === 'restoring',
      );
      const inFlight = reading.units.filter((unit) => unit.state === 'moving').length;
      out.push({
        run,
        dir,
        manifest: { version: 1, run, root, entries: listed.map(entryOf) },
        ...(inFlight > 0 ? { inFlight } : {}),
        ...(reading.skipped > 0 ? { problem: `${reading.skipped} line(s) of its journal could not be read` } : {}),
      });
    } catch (error) {
      out.push({ run, dir, problem: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}
