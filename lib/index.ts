// lockguard's library surface: an explicit list of re-exports, nothing else.

export { LockguardError, type LockguardErrorCode, type TextPosition } from './core/errors.js';
export type { FileDigest, TableKey } from './core/digest.js';
export { findWorkspace, detectManager, type Workspace, type PackageManager } from './core/workspace.js';
export type { Scope, EntryKind, EntrySpec } from './core/entries.js';
export type { FileSystem, StatIdentity } from './core/file-probe.js';
export { readWorkspaceFingerprints, tableKey, type FingerprintEntry, type WorkspaceFingerprints, type ReadOptions } from './core/fingerprints.js';
export { FingerprintWatch, RACY_WINDOW_MS, statusLine, type Logger, type Move, type MoveKind, type WatchOptions } from './core/watch.js';
export { createSaveGate, type SaveGate, type SaveDecision } from './core/save-gate.js';
export { projectSlices, projectSlicesAsync, sliceDigest, slicesFromLockfile, slicesFromLockfileAsync, findSlice, diffSlices, describeSliceDiff, type ProjectSlice, type LockfileSlices, type SliceDigest, type SliceFormat, type SliceDiff, type SliceChange, type PackageChange } from './core/slices/index.js';
export { classifyKeys, type PlanTask, type TaskGraph, type KeyClass, type KeyClassification, type Destabilizer, type Ordering } from './core/key-stability.js';
export { planFor, type Plan, type PlanRow, type PlanOptions, type RunnerKind } from './integrations/plan/index.js';
