// Per-project lockfile slices: the public surface of this folder, as an explicit list.

export {
  slicesFromLockfile,
  slicesFromLockfileAsync,
  projectSlices,
  projectSlicesAsync,
  sliceDigest,
  findSlice,
  formatOf,
  SLICE_LOCKFILES,
  type ProjectSlice,
  type LockfileSlices,
  type SliceDigest,
  type SliceFormat,
  type FromLockfileOptions,
} from './slices.js';
export {
  diffSlices,
  describeSliceDiff,
  describeChange,
  type SliceDiff,
  type SliceChange,
  type PackageChange,
} from './diff.js';
