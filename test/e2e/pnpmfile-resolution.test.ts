// lockguard's pnpmfile never changes how pnpm 10 resolves (issue 28), on a registry workspace whose committed
// lockfile carries a peer suffix a full resolution would drop (test/fixtures/pnpm-peers/README.md):
// installed and extended with `pnpm --filter x add` with and without lockguard's hooks, the lockfiles are
// byte for byte the same but for the pnpmfileChecksum line; a frozen install passes right after init;
// doctor fails on a checksum that does not match (with the fix) and passes once init recorded it; and
// uninstall takes the line back out, leaving the lockfile as pnpm writes it without lockguard.
// Measured cause: a pnpmfileChecksum that differs from the lockfile's forces pnpm 10 into a full resolution
// (lib/integrations/pnpmfile/checksum.ts); init records it itself, so nothing re-resolves.

import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PNPMFILE_SHIM } from '../../lib/integrations/pnpmfile/shim.js';
import { cli } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { repoRoot } from '../helpers/fixtures.js';
import { lockguardPackage, pnpm } from '../helpers/hooks.js';

const FIXTURE = join(repoRoot(), 'test', 'fixtures', 'pnpm-peers');
const CHECKSUM_LINE = /^pnpmfileChecksum: .*\n\n/m;

interface Finding {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
  readonly fix?: string;
}

/** doctor's pnpmfile-checksum finding. */
async function checksumFinding(root: string, env: Record<string, string>): Promise<Finding | undefined> {
  const result = await cli(['doctor', '--json'], root, env);
  return (JSON.parse(result.stdout) as Finding[]).find((finding) => finding.check === 'pnpmfile-checksum');
}

function withoutChecksum(lock: string): string {
  return lock.replace(CHECKSUM_LINE, '');
}

test('pnpm 10: the lockfile installed and extended with and without lockguard differs only by pnpmfileChecksum; uninstall takes that back', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'lockguard-pnpmfile-resolution-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  // lockguard as installed, found by the shim's require.resolve through NODE_PATH (pnpm prunes node_modules).
  const modules = join(tmp, 'modules');
  mkdirSync(modules);
  symlinkSync(lockguardPackage(tmp), join(modules, 'lockguard'));
  const env = isolatedEnv(tmp, { offline: false, extra: { NODE_PATH: modules } });
  const guarded = join(tmp, 'guarded');
  const plain = join(tmp, 'plain');
  cpSync(FIXTURE, guarded, { recursive: true });
  cpSync(FIXTURE, plain, { recursive: true });
  rmSync(join(guarded, 'README.md'));
  rmSync(join(plain, 'README.md'));
  const committed = readFileSync(join(FIXTURE, 'pnpm-lock.yaml'), 'utf8');
  const run = (root: string, args: readonly string[]): void => {
    const result = pnpm(10, args, root, env);
    assert.equal(result.code, 0, `pnpm ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  };
  const lockOf = (root: string): string => readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8');

  // The shim as an earlier init left it (no checksum recorded): doctor fails, naming the fix.
  writeFileSync(join(guarded, '.pnpmfile.cjs'), PNPMFILE_SHIM);
  const before = await checksumFinding(guarded, env);
  assert.equal(before?.level, 'fail');
  assert.match(before?.detail ?? '', /records no pnpmfileChecksum.*ERR_PNPM_LOCKFILE_CONFIG_MISMATCH/);
  assert.match(before?.fix ?? '', /^lockguard init/);

  const init = await cli(['init', '--no-sound-keys'], guarded, env);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stdout, /pnpmfileChecksum recorded/);
  assert.equal(withoutChecksum(lockOf(guarded)), committed, 'init changed nothing but the checksum line');

  // A frozen install passes at once (no ERR_PNPM_LOCKFILE_CONFIG_MISMATCH), then a plain one changes nothing.
  run(guarded, ['install', '--frozen-lockfile']);
  run(guarded, ['install']);
  run(plain, ['install']);
  assert.equal(lockOf(plain), committed, 'without lockguard pnpm keeps the lockfile');
  assert.equal(withoutChecksum(lockOf(guarded)), lockOf(plain), 'with lockguard: the same lockfile');
  assert.equal((await checksumFinding(guarded, env))?.level, 'ok');

  // The same add changes the same lines.
  run(guarded, ['--filter', 'x', 'add', '-D', 'is-number@7.0.0']);
  run(plain, ['--filter', 'x', 'add', '-D', 'is-number@7.0.0']);
  assert.notEqual(lockOf(plain), committed);
  assert.equal(withoutChecksum(lockOf(guarded)), lockOf(plain), 'the add moved the same lines');

  // The way out: the checksum line goes with the shim; the lockfile is the one pnpm writes without lockguard.
  const out = await cli(['uninstall'], guarded, env);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(lockOf(guarded), lockOf(plain));
  run(guarded, ['install', '--frozen-lockfile']);
  assert.equal(lockOf(guarded), lockOf(plain));
});
