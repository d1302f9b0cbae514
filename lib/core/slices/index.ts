// Per-project lockfile slices: the public surface of this folder, as an explicit list.

export {
  slicesFromLockfile,
  slicesFromLockfileAsync,
  projectSlices,
  projectSlicesAsync,
  sliceDigest,
  findSlice,
  type ProjectSlice,
  type LockfileSlices,
  type SliceDigest,
  type SliceFormat,
} from './slices.js';
export {
  diffSlices,
  describeSliceDiff,
  type SliceDiff,
  type SliceChange,
  type PackageChange,
} from './diff.js';
