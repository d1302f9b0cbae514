// Sound keys end to end with the real turbo 2.11.11 and nx 24.0.6: `lockguard init` makes each runner's own
// key fold the project's `.lockguard-slice` (turbo: the dry run's task hashes; nx: the hashes in its run.json
// after real runs), a second init changes nothing, `--no-sound-keys` leaves the runners' files alone, a
// broken turbo.json refuses; `doctor` names the tasks that leave the file out, with the fix, and passes after
// init. The slice files are written here by hand (their content is the slice writer's; any small text serves),
// so init runs with --no-npm-scripts: with its default root prepare hook it also writes the real files at once.

import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { assertSetupError } from '../helpers/errors.js';
import { fileDigests } from '../helpers/workspace.js';
import { sliceKeysFor } from '../../lib/integrations/sound-keys/plan.js';
import {
  LOCK,
  workspace,
  turboHashes,
  nxRun,
  soundChecks,
  TURBO_TREE,
  nxWorkspace,
} from '../helpers/sound-keys-scenario.js';

test("turbo: init folds each project's slice file into its tasks' hashes (root and package turbo.json, with and without inputs); only a slice change moves them; a second init changes nothing", async (t) => {
  const ws = workspace(t, TURBO_TREE);
  const before = turboHashes(ws);
  {
    // The control: without sound keys turbo's hash leaves the (gitignored) slice file out.
    ws.slice('b', 'slice b 2\n');
    assert.deepEqual(turboHashes(ws), before, 'turbo misses the slice change');
    ws.slice('b', 'slice b 1\n');
  }
  {
    const result = await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /turbo\.json: tasks\.build\.inputs = \["\$TURBO_DEFAULT\$", "\.lockguard-slice"\]/);
    assert.match(result.stdout, /turbo\.json: tasks\.lint\.inputs \+ "\.lockguard-slice"/);
    assert.match(result.stdout, /packages\/b\/turbo\.json: tasks\.build\.inputs \+ "\.lockguard-slice"/);
    assert.doesNotMatch(result.stdout, /tasks\.dev/, 'cache: false is left alone');
    assert.match(readFileSync(join(ws.root, 'turbo.json'), 'utf8'), /\/\/ build everything/, 'the comment stays');
  }
  const adopted = turboHashes(ws);
  for (const id of Object.keys(before))
    assert.notEqual(adopted[id], before[id], `${id}: every key changes once, on adoption`);
  assert.deepEqual(turboHashes(ws), adopted, 'nothing changed: the same hashes');
  {
    // b's slice changes: b's tasks re-key, a's do not.
    ws.slice('b', 'slice b 2\n');
    const after = turboHashes(ws);
    assert.notEqual(after['b#build'], adopted['b#build']);
    assert.notEqual(after['b#lint'], adopted['b#lint']);
    assert.equal(after['a#build'], adopted['a#build']);
    assert.equal(after['a#lint'], adopted['a#lint']);
  }
  {
    // a's slice changes: a's tasks, and b#build through ^build.
    ws.slice('a', 'slice a 2\n');
    const after = turboHashes(ws);
    assert.notEqual(after['a#build'], adopted['a#build']);
    assert.notEqual(after['a#lint'], adopted['a#lint']);
  }
  {
    const files = fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']);
    const again = await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /sound keys: already set up/);
    assert.deepEqual(
      fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']),
      files,
      'a second init changes nothing',
    );
  }
});

test('turbo: doctor names the tasks that leave their slice file out, with the fix; passes after init; names the one a package turbo.json cuts out', async (t) => {
  const ws = workspace(t, TURBO_TREE);
  {
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'warn', 'not set up yet');
    assert.match(check?.detail ?? '', /4 of 4 cached turbo tasks do not fold .*: a#build, a#lint, b#build, b#lint/);
    assert.equal(check?.fix, 'lockguard init --sound-keys');
  }
  assert.equal((await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env)).code, 0);
  {
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'ok', check?.detail);
    const result = await cli(['doctor'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stdout);
  }
  {
    // A mutation: b's package turbo.json replaces the inputs without the file.
    writeFileSync(
      join(ws.root, 'packages', 'b', 'turbo.json'),
      '{ "extends": ["//"], "tasks": { "build": { "inputs": ["src/**"] } } }',
    );
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'fail');
    assert.match(check?.detail ?? '', /1 of \d+ cached turbo tasks do not fold .*: b#build$/);
    const result = await cli(['doctor'], ws.root, ws.env);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /fix: lockguard init --sound-keys/);
  }
});

test('--no-sound-keys leaves turbo.json, nx.json and .nxignore alone; init where neither runner is configured says nothing of them; a broken turbo.json refuses (exit 2, its path) and writes nothing', async (t) => {
  {
    const ws = workspace(t, { ...TURBO_TREE, 'nx.json': '{}' });
    const files = fileDigests(ws.root, ['.git']);
    const result = await cli(['init', '--no-sound-keys', '--no-pnpmfile'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /sound keys/);
    const after = fileDigests(ws.root, ['.git']);
    for (const file of ['turbo.json', 'packages/b/turbo.json', 'nx.json'])
      assert.equal(after.get(file), files.get(file), file);
    assert.equal(after.has('.nxignore'), false);
  }
  {
    const ws = workspace(t, { 'pnpm-lock.yaml': LOCK });
    assert.doesNotMatch(
      (await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env)).stdout,
      /sound keys/,
    );
    assert.match(
      (await cli(['init', '--sound-keys', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env)).stdout,
      /sound keys: no turbo, nx, wireit, moon or lage configured here, nothing to set up/,
    );
  }
  {
    const ws = workspace(t, {
      'pnpm-lock.yaml': LOCK,
      'turbo.json': '{ "tasks": { "build": { "env": [SECRET_TOKEN_VALUE] } } }',
    });
    const files = fileDigests(ws.root, ['.git']);
    const result = await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env);
    assertSetupError(result, join(ws.root, 'turbo.json'));
    assert.match(result.stderr, /line 1, column/);
    assert.doesNotMatch(result.stderr, /SECRET_TOKEN_VALUE/);
    assert.deepEqual(fileDigests(ws.root, ['.git']), files, 'nothing written, not even .gitignore');
  }
});

interface PlanSoundKeys {
  readonly soundKeys: { folded: string[]; leftOut: string[]; wouldChange?: string[] };
}

test("plan: which cached tasks' keys fold their slice file, which leave it out (with the fix), and given the writer's bytes, whose keys would change", async (t) => {
  const ws = workspace(t, TURBO_TREE);
  {
    const result = await cli(['plan', '--json', '--', 'turbo', 'run', 'build', 'lint'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual((JSON.parse(result.stdout) as PlanSoundKeys).soundKeys, {
      folded: [],
      leftOut: ['a#build', 'a#lint', 'b#build', 'b#lint'],
      wouldChange: [],
    });
    const text = await cli(['plan', '--', 'turbo', 'run', 'build'], ws.root, ws.env);
    assert.match(
      text.stdout,
      /sound keys: 2 of 2 cached tasks leave their project's \.lockguard-slice out: a#build, b#build \(fix: lockguard init --sound-keys\)/,
    );
  }
  assert.equal((await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env)).code, 0);
  {
    const result = await cli(['plan', '--json', '--', 'turbo', 'run', 'build', 'lint'], ws.root, ws.env);
    assert.deepEqual((JSON.parse(result.stdout) as PlanSoundKeys).soundKeys, {
      folded: ['a#build', 'a#lint', 'b#build', 'b#lint'],
      leftOut: [],
      // No slice file written yet: every folding task's key changes at the next run that writes them.
      wouldChange: ['a#build', 'a#lint', 'b#build', 'b#lint'],
    });
    const text = (await cli(['plan', '--', 'turbo', 'run', 'build'], ws.root, ws.env)).stdout;
    assert.match(text, /sound keys: all 2 cached tasks fold their project's \.lockguard-slice/);
    assert.match(
      text,
      /keys would change \(their project's slice differs from its \.lockguard-slice\): a#build, b#build/,
    );
    // Once the writer wrote them (lockguard key --write-slices), nothing would change.
    assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
    const written = await cli(['plan', '--json', '--', 'turbo', 'run', 'build', 'lint'], ws.root, ws.env);
    assert.deepEqual((JSON.parse(written.stdout) as PlanSoundKeys).soundKeys.wouldChange, []);
  }
  {
    // What the writer would write for b differs from b's file; a's is the same: b's tasks would re-key.
    ws.slice('a', 'slice a 1\n');
    ws.slice('b', 'slice b 1\n');
    const expected = new Map([
      ['packages/a/.lockguard-slice', 'slice a 1\n'],
      ['packages/b/.lockguard-slice', 'slice b 2\n'],
    ]);
    assert.deepEqual((await sliceKeysFor(['turbo', 'run', 'build', 'lint'], ws.root, ws.env, expected))?.wouldChange, [
      'b#build',
      'b#lint',
    ]);
    ws.slice('b', 'slice b 2\n');
    assert.deepEqual(
      (await sliceKeysFor(['turbo', 'run', 'build', 'lint'], ws.root, ws.env, expected))?.wouldChange,
      [],
      'written: nothing would change',
    );
  }
});

test("nx: init un-ignores the slice files and adds them where inputs leave the project root out (targetDefaults, project.json); then a slice change moves that project's hashes only", async (t) => {
  const ws = nxWorkspace(t);
  const before = nxRun(ws);
  {
    // The control: nx skips the gitignored slice files.
    ws.slice('b', 'slice b 2\n');
    ws.slice('c', 'slice c 2\n');
    const after = nxRun(ws);
    for (const id of ['b:build', 'b:lint', 'c:check'])
      assert.equal(after[id]?.hash, before[id]?.hash, `${id}: nx misses the slice change`);
  }
  {
    const result = await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\.nxignore: !\*\*\/\.lockguard-slice/);
    assert.match(result.stdout, /nx\.json: targetDefaults\.lint\.inputs \+ "\{projectRoot\}\/\.lockguard-slice"/);
    assert.match(
      result.stdout,
      /packages\/c\/project\.json: targets\.check\.inputs \+ "\{projectRoot\}\/\.lockguard-slice"/,
    );
    assert.doesNotMatch(
      result.stdout,
      /targetDefaults\.build/,
      "build uses nx's default ({projectRoot}/**/*): already covered",
    );
  }
  {
    const result = await cli(['plan', '--json', '--', 'nx', 'run-many', '-t', 'build,lint,check'], ws.root, ws.env);
    assert.deepEqual((JSON.parse(result.stdout) as PlanSoundKeys).soundKeys?.leftOut, [], result.stderr);
  }
  const adopted = nxRun(ws);
  const again = nxRun(ws);
  for (const id of Object.keys(adopted)) {
    assert.equal(again[id]?.hash, adopted[id]?.hash, `${id}: nothing changed, the same hash`);
    assert.match(again[id]?.cacheStatus ?? '', /^local-cache/, `${id}: a hit`);
  }
  {
    ws.slice('b', 'slice b 3\n');
    ws.slice('c', 'slice c 3\n');
    const after = nxRun(ws);
    for (const id of ['b:build', 'b:lint', 'c:check'])
      assert.notEqual(after[id]?.hash, adopted[id]?.hash, `${id}: its slice changed`);
    for (const id of ['a:build', 'a:lint'])
      assert.equal(after[id]?.hash, adopted[id]?.hash, `${id}: a's slice did not`);
  }
  {
    const files = fileDigests(ws.root, ['.git', 'node_modules', '.nx', '.lockguard']);
    const result = await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env);
    assert.match(result.stdout, /sound keys: already set up/);
    assert.deepEqual(
      fileDigests(ws.root, ['.git', 'node_modules', '.nx', '.lockguard']),
      files,
      'a second init changes nothing',
    );
  }
});

test('nx: doctor names the tasks whose plans leave the slice file out, with the fix; passes after init; a mutation (no .nxignore, a narrowed target) is named', async (t) => {
  const ws = nxWorkspace(t);
  {
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'fail', 'build folds by glob, lint and check do not: a hole');
    assert.match(check?.detail ?? '', /cached nx tasks do not fold .*a:lint, b:lint, c:check/);
    assert.equal(check?.fix, 'lockguard init --sound-keys');
  }
  assert.equal((await cli(['init', '--no-pnpmfile', '--no-npm-scripts'], ws.root, ws.env)).code, 0);
  {
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'ok', check?.detail);
  }
  {
    // Without the .nxignore line the plans still name the file, but nx does not hash it.
    const nxignore = readFileSync(join(ws.root, '.nxignore'));
    rmSync(join(ws.root, '.nxignore'));
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'fail');
    assert.match(check?.detail ?? '', /nx does not hash packages\/\w\/\.lockguard-slice/);
    writeFileSync(join(ws.root, '.nxignore'), nxignore);
  }
  {
    // A target whose inputs leave the project root out.
    writeFileSync(
      join(ws.root, 'packages', 'c', 'project.json'),
      JSON.stringify({
        name: 'c',
        targets: {
          check: {
            executor: 'nx:run-commands',
            options: { command: 'node -e 1' },
            cache: true,
            inputs: ['{projectRoot}/src/**'],
          },
        },
      }),
    );
    const [check] = await soundChecks(ws);
    assert.equal(check?.level, 'fail');
    assert.match(check?.detail ?? '', /1 of \d+ cached nx tasks do not fold .*: c:check$/);
  }
});

// ---- Committed mode (`init --sound-keys=committed`): the files are committed, turbo's and nx's default
// inputs hash them; no turbo `inputs` entry where the task's inputs are the default. ----

/** LOCK with b's dependency on a gone: b's slice changes, a's and the root's do not. */
