// moon 2.5.5 (system toolchain), a lockfile-only bump committed before the run that reaches only b (`pnpm --filter
// b update is-number@6.0.0 --no-save`: 6.0.0 installed): without sound keys moon rebuilds nothing and b's output
// keeps 7.0.0; after `lockguard init --sound-keys` (each cached task's `inputs` in its moon.yml name
// '.lockguard-slice'), in both modes, exactly b is rebuilt, with what is installed. doctor, from `moon query
// projects`, names a task whose inputs leave the file out before init, and is green for moon after it.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { moonFile, type MoonScenario, moonScenario } from '../helpers/moon-scenario.js';
import { check } from '../helpers/tool-shims.js';

moonFile();

const BUMP = ['pnpm', '--filter', 'b', 'update', 'is-number@6.0.0', '--no-save'];
const GUARDED = ['run', '--', 'moon', 'run', ':build'];

interface Finding {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
}

/** The scenario at S0 with nothing armed (a's build installs nothing). */
async function unarmed(t: Parameters<typeof moonScenario>[0]): Promise<MoonScenario> {
  const s = await moonScenario(t, 'L');
  rmSync(join(s.base, 'armed'));
  return s;
}

/** doctor's findings about moon (its checks and the sound-keys proof), as `<check> <level>`. */
function moonFindings(s: MoonScenario): { lines: string[]; findings: Finding[] } {
  const doctor = s.lockguard(['doctor', '--json']);
  const findings = (JSON.parse(doctor.stdout) as Finding[]).filter(
    (finding) => finding.check.startsWith('moon') || finding.detail.includes('moon'),
  );
  return { lines: findings.map((finding) => `${finding.check} ${finding.level}`), findings };
}

/** How many tasks moon ran (not cached) in a run. */
function ran(result: { stdout: string; stderr: string }): number {
  const match = /Tasks: (\d+) completed(?: \((\d+) cached\))?/.exec(result.stdout + result.stderr);
  return match === null ? -1 : Number(match[1]) - Number(match[2] ?? 0);
}

test('moon, control: a bump committed before the run rebuilds nothing, b keeps 7.0.0; doctor names b:build', async (t) => {
  const s = await unarmed(t);
  s.build();
  assert.equal(s.out(), '7.0.0');
  const { findings } = moonFindings(s);
  const proof = findings.find((finding) => finding.detail.includes('cached moon tasks'));
  assert.match(proof?.detail ?? '', /2 of 2 cached moon tasks do not fold .*b:build/);
  check(s.sh(BUMP), BUMP.join(' '));
  assert.equal(s.installed(), '6.0.0');
  const next = s.build();
  assert.equal(ran(next), 0);
  assert.equal(s.out(), '7.0.0', 'stale: 7.0.0 while 6.0.0 is installed');
});

test('moon, init --sound-keys (ignored): every other byte kept; doctor green; lockguard run rebuilds exactly b after the bump', async (t) => {
  const s = await unarmed(t);
  const before = readFileSync(join(s.root, 'packages', 'b', 'moon.yml'), 'utf8');
  const init = s.lockguard(['init', '--sound-keys', '--no-pnpmfile']);
  assert.equal(init.status, 0, init.stderr);
  assert.match(init.stdout, /packages\/b\/moon\.yml: tasks\.build\.inputs: \+ "\.lockguard-slice"/);
  const after = readFileSync(join(s.root, 'packages', 'b', 'moon.yml'), 'utf8');
  assert.equal(after, before.replace("inputs: ['src/**/*']", "inputs: ['src/**/*', '.lockguard-slice']"));
  const first = s.lockguard(GUARDED);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(s.out(), '7.0.0');
  const { lines } = moonFindings(s);
  assert.deepEqual(
    lines.filter((line) => !line.endsWith(' ok')),
    [],
    'doctor: nothing about moon but ok',
  );
  assert.ok(lines.includes('sound-keys ok'), lines.join(', '));
  check(s.sh(BUMP), BUMP.join(' '));
  const next = s.lockguard(GUARDED);
  assert.equal(next.status, 0, next.stderr);
  assert.equal(ran(next), 1, 'exactly b');
  assert.equal(s.out(), '6.0.0', 'b rebuilt with what is installed');
});

test('moon, init --sound-keys=committed: the committed files change with the bump; plain moon run rebuilds exactly b', async (t) => {
  const s = await unarmed(t);
  const init = s.lockguard(['init', '--sound-keys=committed', '--no-pnpmfile']);
  assert.equal(init.status, 0, init.stderr);
  const write = s.lockguard(['key', '--write-slices']);
  assert.equal(write.status, 0, write.stderr);
  s.build();
  assert.equal(s.out(), '7.0.0');
  check(s.sh(BUMP), BUMP.join(' '));
  // What the committed workflow does with every lockfile change (a pre-commit hook, Renovate's step).
  const again = s.lockguard(['key', '--write-slices']);
  assert.equal(again.status, 0, again.stderr);
  const next = s.build();
  assert.equal(ran(next), 1, 'exactly b');
  assert.equal(s.out(), '6.0.0');
});
