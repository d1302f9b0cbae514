// The library's public surface (lib/index.ts): exactly the values the README's "Library" section documents;
// and the README's command table names every command.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as lockguard from '../lib/index.js';
import { COMMAND_NAMES } from '../lib/cli/command-names.js';
import { repoRoot } from './helpers/fixtures.js';

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
    'guardedRun',
    'joinOuterRun',
    'planFor',
    'projectSlices',
    'projectSlicesAsync',
    'readWorkspaceFingerprints',
    'recoverDeadRuns',
    'sliceDigest',
    'slicesFromLockfile',
    'slicesFromLockfileAsync',
  ]);
});

test("every export is named in the README's Library section, and every command in its command table", () => {
  const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
  const section = (heading: string): string => {
    const start = readme.indexOf(`\n## ${heading}\n`);
    assert.ok(start !== -1, `README.md has a "## ${heading}" section`);
    const end = readme.indexOf('\n## ', start + 1);
    return readme.slice(start, end === -1 ? undefined : end);
  };
  const tableRows = section('Library')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  for (const name of Object.keys(lockguard))
    assert.ok(
      tableRows.some((row) => row.includes(`\`${name}\``) || row.includes(`\`${name}(`)),
      `${name} is named in the Library table`,
    );
  const commandRows = section('Commands')
    .split('\n')
    .filter((line) => line.startsWith('| `lockguard '));
  for (const name of COMMAND_NAMES)
    assert.ok(
      commandRows.some((row) => row.includes(`\`lockguard ${name}`) || row.includes(`\`${name}\``)),
      `lockguard ${name} has a row in the command table`,
    );
});
