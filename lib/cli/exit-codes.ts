// lockguard's exit codes: few, stable, documented here and in the README.
//
// Invariant: `lockguard run` returns the child's own code when the child failed; lockguard's own codes
// apply to its own verdicts and errors.

export const EXIT = {
  /** Nothing moved (verify), or the command succeeded. */
  ok: 0,
  /** verify: something moved, the save must not happen. run: the table moved under withhold/refuse. */
  moved: 1,
  /** Usage or setup error: bad flag, no workspace, no snapshot, unreadable or special file. */
  usage: 2,
  /** run: the pre-run check refused to start (installed tree differs from the lockfile). */
  preCheck: 3,
  /** A bug in lockguard. */
  internal: 70,
} as const;

/** The exit code for a signal: 128+n (ledger/child.ts, where the child's own signal is told the same way). */
export { signalExitCode as signalCode } from '../ledger/child.js';

export function exitCodesHelp(): string {
  return `lockguard exit codes:
  0   nothing moved / the command succeeded
  1   a verdict: verify: the table moved since the snapshot, do not save
      run: the wrapped command succeeded but the table moved (withhold/refuse), where CI is set or under refuse
      plan: some task keys are unstable; doctor: a check failed; key --check-slices: a slice file is missing
      or stale; quarantine restore: an entry could not be restored; hook: npm rewrote the lockfile during a
      refusing run
  2   usage or setup error (unknown flag, no workspace, no snapshot, broken lockfile or ledger, FIFO/dir/link
      where a file should be, a symlink under .lockguard, permission denied, a full or read-only disk under
      the ledger: run also when that cut its withholding pass short)
  3   run: the pre-run check refused to start (the installed tree does not hold what the lockfile says)
  70  internal error in lockguard (a bug)
  any other: lockguard run passes the wrapped command's own exit code through (128+n for signal n; also
      128+n when a signal arrived during its withholding pass)
`;
}
