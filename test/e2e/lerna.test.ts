// Lerna (9.0.7, the newest that runs on Node 20; Lerna 10 needs Node 22.22) runs nx underneath: `lerna run`
// is nx's task runner, and in a pnpm workspace nx is Lerna's own dependency (22.7.12 here), not resolvable from
// the root. The poisoning scenario (test/helpers/runner-scenario.ts): without lockguard the next run replays
// b's stale output; `lockguard run -- lerna run build` resolves nx from Lerna's folder (its version, so nx 22's
// task DB is marked first, and where its cache is), withholds the stale entry, and the next run rebuilds.
// Lerna on npm: lerna-npm.test.ts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';
import { installOncePerFile, scenario } from '../helpers/runner-scenario.js';

// One install per scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();

test('Lerna on pnpm, without lockguard (the control): a lockfile rewritten mid-run is replayed stale after going back', (t) => {
  const s = scenario(t, 'nx', { lerna: true });
  s.runner();
  assert.equal(s.out(), '6.0.0');
  s.goBack();
  assert.equal(s.installed(), '7.0.0');
  s.runner();
  assert.equal(s.out(), '6.0.0', 'nx under Lerna replays the entry saved under the old key');
});

test("Lerna on pnpm, guarded: nx is resolved from Lerna's folder, the stale entry withheld, and the next run rebuilds", (t) => {
  const s = scenario(t, 'nx', { lerna: true });
  const run = s.sh([process.execPath, BIN, 'run', '--', ...s.runnerArgv()]);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(s.out(), '6.0.0');
  assert.match(run.stderr, /cache saves? made after it (was|were) withheld/);
  assert.doesNotMatch(run.stderr, /no save from after it/);
  const status = JSON.parse(s.sh([process.execPath, BIN, 'status', '--json']).stdout) as {
    report: { caches: { runner: string; cacheDir: string; source: string }[] };
  };
  assert.deepEqual(
    status.report.caches.map((cache) => [cache.runner, cache.cacheDir]),
    [['nx', join(s.root, '.nx', 'cache')]],
  );
  assert.match(status.report.caches[0]?.source ?? '', /^nx 22\.\d+\.\d+ \(Lerna's\)'s own cache-directory resolution$/);
  const lernasNx = JSON.parse(
    readFileSync(join(s.root, 'node_modules', 'lerna', 'node_modules', 'nx', 'package.json'), 'utf8'),
  ) as { version: string };
  const doctor = s.sh([process.execPath, BIN, 'doctor']);
  assert.match(doctor.stdout, new RegExp(`ok\\s+nx\\s+nx ${lernasNx.version.replaceAll('.', '\\.')} \\(Lerna's own`));
  s.goBack();
  s.runner();
  assert.equal(s.installed(), '7.0.0');
  assert.equal(s.out(), '7.0.0', 'b rebuilt against what is installed');
});

test('plan -- lerna run build: the graph of the nx Lerna runs (lerna run has no --graph); --scope maps to --projects; another flag is refused with the nx command to plan', (t) => {
  // `lerna run build --graph=stdout` failed on every Lerna workspace ("Unknown argument: graph"), and the error
  // told the user to run the command lockguard had made up.
  const s = scenario(t, 'nx', { lerna: true });
  const plan = s.sh([process.execPath, BIN, 'plan', '--', ...s.runnerArgv()]);
  assert.notEqual(plan.status, 2, `${plan.stdout}\n${plan.stderr}`);
  assert.match(plan.stdout, /^lockguard plan: nx, 2 tasks/m);
  // a has no dependency: scoped to it, its task alone (b's would bring a's through ^build, as nx runs it).
  const scoped = s.sh([process.execPath, BIN, 'plan', '--json', '--', 'lerna', 'run', 'build', '--scope', 'a']);
  assert.equal(scoped.status, 0, scoped.stderr);
  assert.deepEqual(
    (JSON.parse(scoped.stdout) as { tasks: { id: string }[] }).tasks.map((task) => task.id),
    ['a:build'],
  );
  const since = s.sh([process.execPath, BIN, 'plan', '--', 'lerna', 'run', 'build', '--since', 'main']);
  assert.equal(since.status, 2);
  assert.match(since.stderr, /does not read lerna run's --since/);
  assert.match(since.stderr, /lockguard plan -- nx run-many -t build/);
});
