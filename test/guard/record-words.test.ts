// The remote lines a guarded run records and prints (lib/guard/record-words.ts fallbackLines): a gate
// fallback is joined to its own runner's switch line by the runner, never by the line's words; and the
// refuse gaps (lib/guard/refuse-setup.ts) as typed values, rendered byte for byte (lib/cli/run-words.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { runEventLines } from '../../lib/cli/run-words.js';
import type { Io } from '../../lib/cli/io.js';
import { fallbackLines } from '../../lib/guard/record-words.js';
import { refuseSetup } from '../../lib/guard/refuse-setup.js';
import { tempWorkspace } from '../helpers/workspace.js';

const TURBO = {
  runner: 'turbo',
  line: '[lockguard] turbo remote cache read-only for this run (TURBO_CACHE=local:rw,remote:r): a task may install',
} as const;

test("a fallback joins its own runner's switch line; a runner without one gets its own line", () => {
  // The nx line is written as another runner's words would start: only the runner field decides.
  const nxLike = { runner: 'nx', line: '[lockguard] turbo-like words from nx: remote cache skipped' } as const;
  assert.deepEqual(fallbackLines([nxLike, TURBO], [{ runner: 'turbo', why: 'a proxy is set' }]), [
    nxLike.line,
    `${TURBO.line} (the remote gate cannot be used: a proxy is set)`,
  ]);
  assert.deepEqual(fallbackLines([], [{ runner: 'nx', why: 'Nx Cloud is configured' }]), [
    '[lockguard] nx remote cache cannot be gated (Nx Cloud is configured), and the plan shows no task that may install: remote writes stay on',
  ]);
  assert.deepEqual(fallbackLines([TURBO], []), [TURBO.line]);
});

function table(root: string, manager: WorkspaceFingerprints['manager']): WorkspaceFingerprints {
  return { root, manager, entries: [], files: new Map() } as unknown as WorkspaceFingerprints;
}

test('refuse gaps are typed per manager, and their lines read as before', (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"root"}\n' });
  const io: Io = { cwd: root, env: { NO_COLOR: '1' }, stdout: { write: () => true }, stderr: { write: () => true } };
  const line = (manager: WorkspaceFingerprints['manager']): string[] => {
    const gap = refuseSetup(table(root, manager), {}).gap;
    return gap === undefined ? [] : runEventLines(io, { type: 'refuse-gap', gap });
  };
  assert.deepEqual(line('npm'), [
    '[lockguard] --policy refuse in an npm workspace: npm cannot be refused at the source (it writes package-lock.json before any script runs); a rewrite fails the run after it. lockguard init --npm-scripts makes npm install fail at once instead of going on.',
  ]);
  assert.deepEqual(line('bun'), [
    '[lockguard] --policy refuse with bun: bun has no setting the environment can freeze; a rewrite fails the run after it (bunfig.toml install.frozenLockfile = true refuses at the source).',
  ]);
  assert.equal(refuseSetup(table(root, 'pnpm'), {}).gap, 'pnpm-no-pnpmfile');
  assert.match(line('pnpm')[0] ?? '', /^\[lockguard\] --policy refuse without a pnpmfile: /);
});
