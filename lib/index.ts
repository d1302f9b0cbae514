// lockguard's library surface: an explicit list of re-exports, nothing else. Every name here is documented
// in the README's "Library" section, and test/index.test.ts pins the list of values.

// Errors: one class, a stable `code`, a `hint` and the `path`.
export { LockguardError, type LockguardErrorCode, type TextPosition } from './core/errors.js';
// Where the table is read from.
export { findWorkspace, type Workspace, type PackageManager } from './core/workspace.js';
// The fingerprint table and its parts.
export type { FileDigest, TableKey } from './core/digest.js';
export type { Scope, EntryKind } from './core/entries.js';
// `FileSystem` is the `fs` option of ReadOptions and WatchOptions: the injected file system the
// syscall-budget tests count with (a runner author can count the same way).
export type { FileSystem, StatIdentity } from './core/file-probe.js';
export {
  readWorkspaceFingerprints,
  type FingerprintEntry,
  type WorkspaceFingerprints,
  type ReadOptions,
} from './core/fingerprints.js';
// The watch and the save gate built on it.
export {
  FingerprintWatch,
  RACY_WINDOW_MS,
  type Logger,
  type Move,
  type MoveKind,
  type WatchOptions,
} from './core/watch.js';
export { createSaveGate, type SaveGate, type SaveDecision } from './core/save-gate.js';
// Per-project keys.
export {
  projectSlices,
  projectSlicesAsync,
  sliceDigest,
  slicesFromLockfile,
  slicesFromLockfileAsync,
  findSlice,
  diffSlices,
  describeSliceDiff,
  type ProjectSlice,
  type LockfileSlices,
  type SliceDigest,
  type SliceFormat,
  type SliceDiff,
  type SliceChange,
  type PackageChange,
} from './core/slices/index.js';
// Key stability, and the graph of a runner's own dry run.
export {
  classifyKeys,
  type PlanTask,
  type TaskGraph,
  type KeyClass,
  type KeyClassification,
  type Destabilizer,
  type Ordering,
} from './core/key-stability.js';
export { planFor, type Plan, type PlanRow, type PlanOptions, type RunnerKind } from './integrations/plan/index.js';
// A guarded run as a library: finish dead runs first, then run the command guarded; events and outcomes are typed values.
export { guardedRun, joinOuterRun, type GuardedRunInput } from './guard/run.js';
export { recoverDeadRuns, type RecoveryMode } from './guard/recover.js';
export type { RunFinished, RunVerdict } from './guard/finish.js';
export type { GuardContext, GuardEvent, RecordPart, RefuseGap, RemoteFallback, RemoteSwitch } from './guard/events.js';
export type { CachePass, FaultCause, PassOutcome, PassStop } from './guard/withhold-pass.js';
export type { RunnerOutcome, GuardedCache } from './guard/runner-guard.js';
