// wireit 0.14.13 under `npm run`, a lockfile-only bump committed before the run that reaches only b (`pnpm
// --filter b update is-number@6.0.0 --no-save`: 6.0.0 installed): without sound keys wireit rebuilds nothing
// and b's output keeps 7.0.0; after `lockguard init --sound-keys` (each cached script's `files` name its
// package's .lockguard-slice), in both modes, exactly b is rebuilt, with what is installed. doctor names a
// script whose files leave the file out before init, and is green for wireit after it.

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { check } from '../helpers/tool-shims.js';
import { wireitScenario, type WireitScenario, installWireitOncePerFile } from '../helpers/wireit-scenario.js';

// One install per variant for the file, a private copy per test (wireit-scenario.ts).
installWireitOncePerFile();

const BUMP = ['pnpm', '--filter', 'b', 'update', 'is-number@6.0.0', '--no-save'];

interface Finding {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
}

/** The scenario at S0 with nothing armed (a's build installs nothing). */
async function unarmed(t: Parameters<typeof wireitScenario>[0]): Promise<WireitScenario> {
  const s = await wireitScenario(t, 'L');
  rmSync(join(s.base, 'armed'));
  return s;
}

/** doctor's findings about wireit (its checks and the sound-keys proof), as `<check> <level>`. */
function wireitFindings(s: WireitScenario): { lines: string[]; findings: Finding[] } {
  const doctor = s.lockguard(['doctor', '--json']);
  const findings = (JSON.parse(doctor.stdout) as Finding[]).filter(
    (finding) => finding.check.startsWith('wireit') || finding.detail.includes('wireit'),
  );
  return { lines: findings.map((finding) => `${finding.check} ${finding.level}`), findings };
}

function ran(result: { stdout: string; stderr: string }): string {
  return /Ran (\d+) scripts?/.exec(result.stdout + result.stderr)?.[1] ?? '?';
}

test('wireit, control: a bump committed before the run rebuilds nothing, b keeps 7.0.0; doctor names b:build', async (t) => {
  const s = await unarmed(t);
  s.build();
  assert.equal(s.out(), '7.0.0');
  const { findings } = wireitFindings(s);
  const proof = findings.find((finding) => finding.detail.includes('cached wireit scripts'));
  assert.match(proof?.detail ?? '', /2 of 2 cached wireit scripts do not fold .*packages\/b:build/);
  check(s.sh(BUMP), BUMP.join(' '));
  assert.equal(s.installed(), '6.0.0');
  const next = s.build();
  assert.equal(ran(next), '0');
  assert.equal(s.out(), '7.0.0', 'stale: 7.0.0 while 6.0.0 is installed');
});

test('wireit, init --sound-keys (ignored): doctor green; lockguard run rebuilds exactly b after the bump', async (t) => {
  const s = await unarmed(t);
  const init = s.lockguard(['init', '--sound-keys', '--no-pnpmfile']);
  assert.equal(init.status, 0, init.stderr);
  assert.match(init.stdout, /packages\/b\/package\.json: wireit\.build\.files: \+ "\.lockguard-slice"/);
  const first = s.lockguard(['run', '--', 'npm', 'run', 'build']);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(s.out(), '7.0.0');
  const { lines } = wireitFindings(s);
  assert.deepEqual(
    lines.filter((line) => !line.endsWith(' ok')),
    [],
    'doctor: nothing about wireit but ok',
  );
  assert.ok(lines.includes('sound-keys ok'), lines.join(', '));
  check(s.sh(BUMP), BUMP.join(' '));
  const next = s.lockguard(['run', '--', 'npm', 'run', 'build']);
  assert.equal(next.status, 0, next.stderr);
  assert.equal(ran(next), '1', 'exactly b');
  assert.equal(s.out(), '6.0.0', 'b rebuilt with what is installed');
});

test('wireit, init --sound-keys=committed: the committed files change with the bump; plain npm run rebuilds exactly b', async (t) => {
  const s = await unarmed(t);
  const init = s.lockguard(['init', '--sound-keys=committed', '--no-pnpmfile']);
  assert.equal(init.status, 0, init.stderr);
  s.build();
  assert.equal(s.out(), '7.0.0');
  check(s.sh(BUMP), BUMP.join(' '));
  // What the committed workflow does with every lockfile change (a pre-commit hook, Renovate's step).
  const write = s.lockguard(['key', '--write-slices']);
  assert.equal(write.status, 0, write.stderr);
  const next = s.build();
  assert.equal(ran(next), '1', 'exactly b');
  assert.equal(s.out(), '6.0.0');
});
