// moon 2.5.5 with its system toolchain in a pnpm workspace (issue 32): a's build rewrites what b resolves (L:
// `pnpm --filter b update is-number@6.0.0 --no-save`, the lockfile only; M: `pnpm --filter b add
// is-number@6.0.0`, with b's manifest, which b's `src/**/*` inputs leave out), and b's key folds no lockfile.
// Without lockguard the next run after going back replays 6.0.0 while 7.0.0 is installed: from the archive
// (outputs removed), or as "cached" (outputs kept, lastRun.json naming the stale hash). Under `lockguard run --
// moon run :build` both saves are withheld (archive and hash manifest quarantined, their lastRun.json removed)
// and the next run rebuilds b with what is installed, restoring nothing stale; `quarantine restore` puts them
// back and moon restores from them again.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { latestRunDir } from '../helpers/crash.js';
import {
  archiveKeys,
  lastRunHash,
  moonFile,
  moonScenario,
  type MoonVariant,
  quarantinedKeys,
} from '../helpers/moon-scenario.js';

moonFile();

const GUARDED = ['run', '--', 'moon', 'run', ':build'];

const CASES: ReadonlyArray<readonly [MoonVariant, boolean]> = [
  ['L', false],
  ['M', true],
];

/** moon's "Tasks: 2 completed (2 cached)" line: how many ran, how many of them were cached. */
function tasks(result: { stdout: string; stderr: string }): string {
  return /Tasks: (\d+ completed(?: \(\d+ cached\))?)/.exec(result.stdout + result.stderr)?.[1] ?? '?';
}

for (const [variant, removeOutputs] of CASES) {
  const how = removeOutputs ? 'from its archive (outputs removed)' : 'as cached (outputs kept)';
  test(`moon ${variant}, control without lockguard: after going back the stale 6.0.0 is replayed ${how}`, async (t) => {
    const s = await moonScenario(t, variant);
    s.build();
    assert.equal(s.out(), '6.0.0', 'a rewrote what b resolves before b built');
    assert.equal(archiveKeys(s).length, 2, 'a and b saved');
    s.goBack({ removeOutputs });
    assert.equal(s.installed(), '7.0.0');
    const back = s.build();
    assert.equal(tasks(back), '2 completed (2 cached)', 'moon ran nothing');
    assert.equal(s.out(), '6.0.0', 'stale: 6.0.0 while 7.0.0 is installed');
  });

  test(`moon ${variant}, guarded: both saves withheld, and the next run rebuilds b with what is installed (${removeOutputs ? 'outputs removed' : 'outputs kept'})`, async (t) => {
    const s = await moonScenario(t, variant);
    const run = s.lockguard(GUARDED);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(s.out(), '6.0.0');
    assert.match(run.stderr, /pnpm-lock\.yaml changed at .* saves from now on will be withheld/);
    assert.match(run.stderr, /2 cache saves .*withheld/);
    assert.doesNotMatch(run.stderr, /not guarded/);
    assert.deepEqual(archiveKeys(s), [], 'both archives left the cache');
    const withheld = quarantinedKeys(s);
    assert.equal(withheld.length, 2, 'both are in quarantine, restorable');
    for (const key of withheld)
      assert.equal(
        existsSync(join(s.root, '.moon', 'cache', 'hashes', `${key}.json`)),
        false,
        'its hash manifest went with it',
      );
    for (const name of ['a', 'b'])
      assert.equal(lastRunHash(s, name), undefined, `${name}'s lastRun.json naming the withheld save is gone`);
    s.goBack({ removeOutputs });
    assert.equal(s.installed(), '7.0.0');
    const back = s.build();
    assert.equal(tasks(back), '2 completed', 'a and b ran: misses, nothing restored');
    assert.equal(s.out(), '7.0.0', 'b rebuilt with what is installed');
  });
}

test('moon, guarded then `quarantine restore`: the withheld entries go back into .moon/cache, and moon restores from them again', async (t) => {
  const s = await moonScenario(t, 'L');
  const run = s.lockguard(GUARDED);
  assert.equal(run.status, 0, run.stderr);
  const withheld = quarantinedKeys(s);
  assert.equal(withheld.length, 2);
  const runId = (latestRunDir(s.root) ?? '').split('/').at(-1) ?? '';
  const list = s.lockguard(['quarantine', 'list']);
  assert.match(list.stdout, /a:build/, `the entries are named by their hash manifests' targets: ${list.stdout}`);
  assert.match(list.stdout, /b:build/);
  const restore = s.lockguard(['quarantine', 'restore', '--run', runId]);
  assert.equal(restore.status, 0, restore.stderr);
  assert.deepEqual(archiveKeys(s), withheld, 'every withheld archive is back');
  // 6.0.0 is what is installed now (a's install ran): with the outputs gone, moon restores them from the archives.
  for (const name of ['a', 'b']) rmSync(join(s.root, 'packages', name, 'dist'), { recursive: true, force: true });
  const again = s.build();
  assert.equal(tasks(again), '2 completed (2 cached)');
  assert.equal(s.out(), '6.0.0');
});

test("lockguard plan -- moon run :build: moon's own task graph (moon query projects); a task whose command installs is a writer and the tasks after it unstable", async (t) => {
  const s = await moonScenario(t, 'L');
  const quiet = s.lockguard(['plan', '--json', '--', 'moon', 'run', ':build']);
  assert.equal(quiet.status, 0, quiet.stderr);
  const none = JSON.parse(quiet.stdout) as { runner: string; tasks: { id: string }[]; writers: string[] };
  assert.deepEqual(
    [none.runner, none.tasks.map((task) => task.id), none.writers],
    ['moon', ['a:build', 'b:build'], []],
  );
  // a's build command now runs an install lockguard can read (the scenario's own hides it in a .cjs file).
  const file = join(s.root, 'packages', 'a', 'moon.yml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(/command: '[^']*'/, "command: 'pnpm --filter b add is-number@6.0.0'"),
  );
  const plan = s.lockguard(['plan', '--json', '--', 'moon', 'run', 'b:build']);
  assert.equal(plan.status, 1, plan.stderr);
  const data = JSON.parse(plan.stdout) as { runner: string; writers: string[]; unstable: string[] };
  assert.deepEqual(
    [data.runner, data.writers, data.unstable],
    ['moon', ['a:build'], ['b:build']],
    'b:build brings a:build',
  );
  assert.deepEqual(archiveKeys(s), [], 'nothing ran: no archive');
  const query = s.lockguard(['plan', '--', 'moon', 'run', '#tag:build']);
  assert.equal(query.status, 2);
  assert.match(query.stderr, /reads moon targets as project:task or :task, not "#tag:build"/);
});
