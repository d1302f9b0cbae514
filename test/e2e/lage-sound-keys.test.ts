// lage 2.17.0, a lockfile-only bump committed before the run that reaches only b (`pnpm --filter b update
// is-number@6.0.0 --no-save`: 6.0.0 installed): without sound keys lage rebuilds nothing (its pnpm v9 parse
// misses the change: lage#1030) and b's output keeps 7.0.0. After `lockguard init --sound-keys=committed` (the
// files committed; lage's default inputs `**/*` take them in) and the committed workflow's `key
// --write-slices`, exactly b is rebuilt, with what is installed. Ignored mode is refused (lage hashes only what
// git lists: a gitignored file never reaches its keys). doctor, from `lage info`, names a target whose literal
// `inputs` leave the file out; init appends it there and doctor is green. One install, copied per test.

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LAGE_CONFIG, type LageScenario, lageInstall, lageScenario, ranAndSkipped } from '../helpers/lage-scenario.js';
import { check } from '../helpers/tool-shims.js';

const BUMP = ['pnpm', '--filter', 'b', 'update', 'is-number@6.0.0', '--no-save'];

// Started at load, so its cleanup is the file's (`after` at the top level), not the first test's.
const installing = lageInstall({ after: (fn) => after(fn as () => void) });

/** A copy at S0 with nothing armed (a's build installs nothing). */
async function unarmed(name: string): Promise<LageScenario> {
  const s = lageScenario(await installing, 'L', name);
  rmSync(join(s.root, '..', 'armed'));
  return s;
}

interface Finding {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
}

/** doctor's findings about lage (its checks and the sound-keys proof). */
function lageFindings(s: LageScenario): Finding[] {
  const doctor = s.lockguard(['doctor', '--json']);
  return (JSON.parse(doctor.stdout) as Finding[]).filter(
    (finding) => finding.check.startsWith('lage') || finding.detail.includes('lage'),
  );
}

const commit = (s: LageScenario, message: string): void => {
  check(s.sh(['git', 'add', '-A']), 'git add');
  check(
    s.sh(['git', '-c', 'user.name=t', '-c', 'user.email=t@lockguard.invalid', 'commit', '-qm', message]),
    'git commit',
  );
};

test('lage, control: a bump committed before the run rebuilds nothing, b keeps 7.0.0', async () => {
  const s = await unarmed('control');
  s.build();
  assert.equal(s.out(), '7.0.0');
  check(s.sh(BUMP), BUMP.join(' '));
  commit(s, 'bump');
  assert.equal(s.installed(), '6.0.0');
  assert.deepEqual(ranAndSkipped(s.build()), { ran: 0, skipped: 2 });
  assert.equal(s.out(), '7.0.0', 'stale: 7.0.0 while 6.0.0 is installed');
});

test('lage, init --sound-keys=committed: doctor green; after the bump and key --write-slices lage rebuilds exactly b', async () => {
  const s = await unarmed('committed');
  const init = s.lockguard(['init', '--sound-keys=committed', '--no-pnpmfile']);
  assert.equal(init.status, 0, init.stderr);
  commit(s, 'sound keys');
  s.build();
  assert.equal(s.out(), '7.0.0');
  const findings = lageFindings(s);
  assert.deepEqual(
    findings.filter((finding) => finding.level !== 'ok').map((finding) => `${finding.check}: ${finding.detail}`),
    [],
    'doctor: nothing about lage but ok',
  );
  assert.ok(
    findings.some((finding) => /every cached lage task folds|lage targets/.test(finding.detail)),
    JSON.stringify(findings),
  );
  check(s.sh(BUMP), BUMP.join(' '));
  // What the committed workflow does with every lockfile change (a pre-commit hook, Renovate's step).
  const write = s.lockguard(['key', '--write-slices']);
  assert.equal(write.status, 0, write.stderr);
  commit(s, 'bump');
  assert.deepEqual(ranAndSkipped(s.build()), { ran: 1, skipped: 1 }, 'exactly b');
  assert.equal(s.out(), '6.0.0', 'b rebuilt with what is installed');
});

test('lage: ignored mode (the default of init) leaves lage out and says why, nothing written; doctor names a target whose inputs leave the file out, init appends it', async () => {
  const s = await unarmed('inputs');
  for (const argv of [
    ['init', '--sound-keys', '--no-pnpmfile'],
    ['init', '--no-pnpmfile'],
  ]) {
    const ignored = s.lockguard(argv);
    assert.equal(ignored.status, 0, ignored.stderr);
    assert.match(
      ignored.stdout,
      /sound keys: not for lage: lage hashes only the files git lists.*--sound-keys=committed/,
    );
    assert.doesNotMatch(ignored.stdout, /keys now fold/);
    assert.equal(readFileSync(join(s.root, 'lage.config.js'), 'utf8'), LAGE_CONFIG, 'nothing written');
    assert.doesNotMatch(readFileSync(join(s.root, '.gitignore'), 'utf8'), /lockguard-slice/);
  }
  const narrowed = LAGE_CONFIG.replace(
    "build: ['^build'],",
    "build: { dependsOn: ['^build'], inputs: ['src/**', 'package.json'] },",
  );
  writeFileSync(join(s.root, 'lage.config.js'), narrowed);
  const init = s.lockguard(['init', '--sound-keys=committed', '--no-pnpmfile']);
  assert.equal(init.status, 0, init.stderr);
  assert.match(init.stdout, /lage\.config\.js: inputs \(line 4\): \+ '\.lockguard-slice'/);
  assert.equal(
    readFileSync(join(s.root, 'lage.config.js'), 'utf8'),
    narrowed.replace("'package.json']", "'package.json', '.lockguard-slice']"),
  );
  assert.deepEqual(
    lageFindings(s).filter((finding) => finding.level !== 'ok'),
    [],
    'doctor green once the inputs name the file',
  );
  // Only b's target narrowed (a package-specific entry): a folds, b does not, and doctor fails naming b#build.
  writeFileSync(
    join(s.root, 'lage.config.js'),
    LAGE_CONFIG.replace(
      "build: ['^build'],",
      "build: ['^build'],\n    'b#build': { dependsOn: ['^build'], inputs: ['src/**'] },",
    ),
  );
  const proof = lageFindings(s).find((finding) => finding.detail.includes('lage targets'));
  assert.equal(proof?.level, 'fail', JSON.stringify(proof));
  assert.match(proof?.detail ?? '', /1 of 2 lage targets do not fold their project's \.lockguard-slice.*: b#build$/);
});
