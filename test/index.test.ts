// The library's public surface (lib/index.ts): exactly the values the README's "Library" section documents.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as lockguard from '../lib/index.js';

test('the library exports exactly the documented values', () => {
  assert.deepEqual(Object.keys(lockguard).sort(), [
    'FingerprintWatch',
    'LockguardError',
    'RACY_WINDOW_MS',
    'classifyKeys',
    'createSaveGate',
    'describeSliceDiff',
    'diffSlices',
    'findSlice',
    'findWorkspace',
    'planFor',
    'projectSlices',
    'projectSlicesAsync',
    'readWorkspaceFingerprints',
    'sliceDigest',
    'slicesFromLockfile',
    'slicesFromLockfileAsync',
  ]);
});
