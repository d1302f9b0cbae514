// Sound keys end to end with the real turbo 2.11.11 and nx 24.0.6: `lockguard init` makes each runner's own
// key fold the project's `.lockguard-slice` (turbo: the dry run's task hashes; nx: the hashes in its run.json
// after real runs), a second init changes nothing, `--no-sound-keys` leaves the runners' files alone, a
// broken turbo.json refuses; `doctor` names the tasks that leave the file out, with the fix, and passes after
// init. The slice files are written here by hand (their content is the slice writer's; any small text serves).

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { assertSetupError } from '../helpers/errors.js';
import { repoRoot } from '../helpers/fixtures.js';
import { commitS0, shellIn } from '../helpers/tool-shims.js';
import { fileDigests, tempWorkspace, type Tree, writeTree } from '../helpers/workspace.js';
import { sliceKeysFor } from '../../lib/integrations/sound-keys/plan.js';

const REPO = repoRoot();
const BIN = join(REPO, 'node_modules', '.bin');
const STEP_TIMEOUT_MS = 120_000;

const LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .: {}

  packages/a: {}

  packages/b:
    dependencies:
      a:
        specifier: workspace:*
        version: link:../a
`;

const BUILD = `node -e "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.txt','x')"`;

interface Ws {
  readonly root: string;
  readonly env: Record<string, string>;
  sh(argv: readonly string[]): { code: number; stdout: string; stderr: string };
  slice(project: string, text: string): void;
}

/** A git repository holding a pnpm workspace (a, and b depending on a) with `tree` on top; slice files written, and gitignored. */
function workspace(t: Parameters<typeof tempWorkspace>[0], tree: Tree): Ws {
  const base = tempWorkspace(t, {}, 'lockguard-sound-keys-');
  const root = join(base, 'ws');
  writeTree(root, {
    'package.json': JSON.stringify({ name: 'root', private: true, packageManager: 'pnpm@10.34.8' }),
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    '.gitignore': 'node_modules\n.turbo\n.nx\ndist\n.lockguard-slice\n',
    packages: {
      a: {
        'package.json': JSON.stringify({ name: 'a', version: '1.0.0', scripts: { build: BUILD, lint: BUILD } }),
        '.lockguard-slice': 'slice a 1\n',
      },
      b: {
        'package.json': JSON.stringify({
          name: 'b',
          version: '1.0.0',
          dependencies: { a: 'workspace:*' },
          scripts: { build: BUILD, lint: BUILD },
        }),
        '.lockguard-slice': 'slice b 1\n',
      },
    },
  });
  writeTree(root, tree);
  mkdirSync(join(base, 'home'));
  const env = isolatedEnv(base, {
    home: join(base, 'home'),
    settings: 'home',
    path: [BIN],
    extra: { NX_TUI: 'false', NX_ISOLATE_PLUGINS: 'false', GIT_CONFIG_NOSYSTEM: '1' },
  });
  const run = shellIn(root, env, STEP_TIMEOUT_MS);
  const sh = (argv: readonly string[]): { code: number; stdout: string; stderr: string } => {
    const result = run(argv);
    return {
      code: result.status ?? -1,
      stdout: result.stdout ?? '',
      stderr: `${result.stderr ?? ''}${result.error === undefined ? '' : `\n(${result.error.message})`}`,
    };
  };
  commitS0(run);
  return {
    root,
    env,
    sh,
    slice: (project, text) => writeFileSync(join(root, 'packages', project, '.lockguard-slice'), text),
  };
}

/** turbo's task hashes from its own dry run. */
function turboHashes(ws: Ws): Record<string, string> {
  const result = ws.sh(['turbo', 'run', 'build', 'lint', '--dry=json']);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
    tasks: { taskId: string; hash: string }[];
  };
  return Object.fromEntries(parsed.tasks.map((task) => [task.taskId, task.hash]));
}

/** A real nx run of every target; each task's hash and cache status as its run.json says. */
function nxRun(ws: Ws): Record<string, { hash: string; cacheStatus: string }> {
  const result = ws.sh(['nx', 'run-many', '-t', 'build,lint,check', '--output-style=static']);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  const run = JSON.parse(readFileSync(join(ws.root, '.nx', 'cache', 'run.json'), 'utf8')) as {
    tasks: { taskId: string; hash: string; cacheStatus: string }[];
  };
  return Object.fromEntries(run.tasks.map((task) => [task.taskId, { hash: task.hash, cacheStatus: task.cacheStatus }]));
}

interface Check {
  readonly check: string;
  readonly level: string;
  readonly detail: string;
  readonly fix?: string;
}

async function soundChecks(ws: Ws): Promise<Check[]> {
  const result = await cli(['doctor', '--json'], ws.root, ws.env);
  return (JSON.parse(result.stdout) as Check[]).filter((check) => check.check === 'sound-keys');
}

const TURBO_TREE: Tree = {
  'pnpm-lock.yaml': LOCK,
  'turbo.json':
    '{\n  // build everything\n  "tasks": {\n    "build": { "dependsOn": ["^build"], "outputs": ["dist/**"] },\n    "lint": { "inputs": ["src/**"] },\n    "dev": { "cache": false }\n  }\n}\n',
  packages: {
    b: { 'turbo.json': '{ "extends": ["//"], "tasks": { "build": { "inputs": ["src/**", "package.json"] } } }' },
  },
};

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
    const result = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
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
    const again = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
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
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
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
    assert.doesNotMatch((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).stdout, /sound keys/);
    assert.match(
      (await cli(['init', '--sound-keys', '--no-pnpmfile'], ws.root, ws.env)).stdout,
      /sound keys: no turbo\.json or nx here, nothing to set up/,
    );
  }
  {
    const ws = workspace(t, {
      'pnpm-lock.yaml': LOCK,
      'turbo.json': '{ "tasks": { "build": { "env": [SECRET_TOKEN_VALUE] } } }',
    });
    const files = fileDigests(ws.root, ['.git']);
    const result = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
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
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
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

const NX_TREE: Tree = {
  'nx.json': JSON.stringify(
    {
      namedInputs: { srcOnly: ['{projectRoot}/src/**/*'] },
      targetDefaults: { build: { dependsOn: ['^build'], cache: true }, lint: { cache: true, inputs: ['srcOnly'] } },
    },
    null,
    2,
  ),
  packages: {
    c: {
      'project.json': JSON.stringify(
        {
          name: 'c',
          targets: {
            check: {
              executor: 'nx:run-commands',
              options: { command: 'node -e 1' },
              cache: true,
              inputs: ['{projectRoot}/src/**'],
            },
          },
        },
        null,
        2,
      ),
      '.lockguard-slice': 'slice c 1\n',
    },
  },
};

/** nx's workspace: no lockfile (nx reads a pnpm lockfile only with an installed tree), the repo's nx linked in. */
function nxWorkspace(t: Parameters<typeof tempWorkspace>[0]): Ws {
  const ws = workspace(t, NX_TREE);
  mkdirSync(join(ws.root, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'nx'), join(ws.root, 'node_modules', 'nx'));
  return ws;
}

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
    const result = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
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
    const result = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
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
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
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
const LOCK_B_ALONE = LOCK.replace(/ {2}packages\/b:\n(?: {4}.*\n)+/, '  packages/b: {}\n');

/** Commit everything in the working tree. */
function commitAll(ws: Ws, message: string): void {
  for (const argv of [
    ['git', 'add', '-A'],
    ['git', '-c', 'user.name=t', '-c', 'user.email=t@lockguard.invalid', 'commit', '-qm', message],
  ]) {
    const result = ws.sh(argv);
    assert.equal(result.code, 0, `${argv.join(' ')}: ${result.stderr}`);
  }
}

/** The one sound-keys check of `runner` (doctor --json names it by its detail). */
function checkOf(checks: readonly Check[], pattern: RegExp): Check | undefined {
  return checks.find((check) => pattern.test(check.detail));
}

test("turbo committed: init takes back the inputs entry (keeps it where inputs leave $TURBO_DEFAULT$ out), un-ignores and writes the files; the same task hashes as ignored mode; a committed slice change moves that project's hashes only; doctor passes", async (t) => {
  const ws = workspace(t, TURBO_TREE);
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
  const ignored = turboHashes(ws);
  const result = await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /turbo\.json: tasks\.build\.inputs removed/);
  assert.match(result.stdout, /\.gitignore: \.lockguard-slice removed/);
  assert.match(result.stdout, /git add -A -- '\*\.lockguard-slice'/);
  const turboJson = readFileSync(join(ws.root, 'turbo.json'), 'utf8');
  assert.match(
    turboJson,
    /"build": \{ "dependsOn": \["\^build"\], "outputs": \["dist\/\*\*"\] \}/,
    'build: no inputs key',
  );
  assert.match(
    turboJson,
    /"lint": \{ "inputs": \["src\/\*\*", "\.lockguard-slice"\] \}/,
    'lint leaves the default out: kept',
  );
  assert.doesNotMatch(readFileSync(join(ws.root, '.gitignore'), 'utf8'), /lockguard-slice/);
  commitAll(ws, 'committed slice files');
  const committed = turboHashes(ws);
  assert.deepEqual(committed, ignored, 'switching modes keeps every task hash (the cache stays)');
  {
    const checks = await soundChecks(ws);
    assert.equal(checkOf(checks, /turbo tasks/)?.level, 'ok', JSON.stringify(checks));
    assert.equal(checkOf(checks, /committed and current/)?.level, 'ok', JSON.stringify(checks));
  }
  {
    // b's slice changes in the lockfile, written and committed: b's tasks re-key, a's do not.
    writeFileSync(join(ws.root, 'pnpm-lock.yaml'), LOCK_B_ALONE);
    assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
    commitAll(ws, 'b bumped');
    const after = turboHashes(ws);
    assert.notEqual(after['b#build'], committed['b#build']);
    assert.notEqual(after['b#lint'], committed['b#lint']);
    assert.equal(after['a#build'], committed['a#build']);
    assert.equal(after['a#lint'], committed['a#lint']);
    // The control: nothing committed since, nothing moves.
    assert.deepEqual(turboHashes(ws), after);
  }
  {
    const files = fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']);
    const again = await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env);
    assert.match(again.stdout, /sound keys \(committed\): already set up/);
    assert.deepEqual(fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']), files, 'idempotent');
    // A plain init (no mode named) keeps the mode the workspace is in.
    const plain = await cli(['init', '--no-pnpmfile'], ws.root, ws.env);
    assert.match(plain.stdout, /sound keys \(committed\): already set up/);
    assert.deepEqual(fileDigests(ws.root, ['.git', 'node_modules', '.turbo', '.lockguard']), files, 'not switched');
  }
});

test('turbo committed: doctor fails naming each file that is stale, untracked or ignored, and the task that leaves it out, with the fix; warns while a change is not committed', async (t) => {
  const ws = workspace(t, TURBO_TREE);
  assert.equal((await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  {
    const checks = await soundChecks(ws);
    const git = checkOf(checks, /git does not track/);
    assert.equal(git?.level, 'fail', JSON.stringify(checks));
    assert.match(
      git?.detail ?? '',
      /3 of 3 .*: \.lockguard-slice, packages\/a\/\.lockguard-slice, packages\/b\/\.lockguard-slice/,
    );
    assert.match(git?.fix ?? '', /git add -A -- '\*\.lockguard-slice'/);
  }
  commitAll(ws, 'committed slice files');
  assert.equal((await cli(['doctor'], ws.root, ws.env)).code, 0);
  {
    // Written by hand, not committed: current for the lockfile? No: stale.
    const path = join(ws.root, 'packages', 'a', '.lockguard-slice');
    const text = readFileSync(path, 'utf8');
    ws.slice('a', 'slice a 9\n');
    const checks = await soundChecks(ws);
    const stale = checkOf(checks, /missing or stale/);
    assert.equal(stale?.level, 'fail');
    assert.match(stale?.detail ?? '', /1 of 3 .*: packages\/a\/\.lockguard-slice$/);
    assert.equal(stale?.fix, "lockguard key --write-slices && git add -A -- '*.lockguard-slice'");
    assert.equal((await cli(['doctor'], ws.root, ws.env)).code, 1);
    writeFileSync(path, text);
  }
  {
    // A lockfile change written by the writer but not committed yet: a warning.
    writeFileSync(join(ws.root, 'pnpm-lock.yaml'), LOCK_B_ALONE);
    assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
    const checks = await soundChecks(ws);
    const changed = checkOf(checks, /changed since the last commit/);
    assert.equal(changed?.level, 'warn', JSON.stringify(checks));
    assert.match(changed?.detail ?? '', /packages\/b\/\.lockguard-slice/);
    commitAll(ws, 'b lost a');
  }
  {
    // A rule that ignores one of them (a new project's file would never be committed).
    writeFileSync(
      join(ws.root, '.gitignore'),
      `${readFileSync(join(ws.root, '.gitignore'), 'utf8')}packages/a/.lockguard-slice\n`,
    );
    const ignored = checkOf(await soundChecks(ws), /ignores 1/);
    assert.equal(ignored?.level, 'fail');
    assert.match(ignored?.detail ?? '', /packages\/a\/\.lockguard-slice/);
    ws.sh(['git', 'checkout', '--', '.gitignore']);
  }
  {
    // Untracked.
    assert.equal(ws.sh(['git', 'rm', '-q', '--cached', 'packages/b/.lockguard-slice']).code, 0);
    const untracked = checkOf(await soundChecks(ws), /git does not track/);
    assert.equal(untracked?.level, 'fail');
    assert.match(untracked?.detail ?? '', /1 of 3 .*: packages\/b\/\.lockguard-slice$/);
    assert.equal(ws.sh(['git', 'add', 'packages/b/.lockguard-slice']).code, 0);
  }
  {
    // A package turbo.json whose inputs leave the default and the file out.
    writeFileSync(
      join(ws.root, 'packages', 'b', 'turbo.json'),
      '{ "extends": ["//"], "tasks": { "build": { "inputs": ["src/**"] } } }',
    );
    const turbo = checkOf(await soundChecks(ws), /cached turbo tasks do not fold/);
    assert.equal(turbo?.level, 'fail');
    assert.match(turbo?.detail ?? '', /: b#build$/);
    assert.equal(turbo?.fix, 'lockguard init --sound-keys=committed');
  }
});

test("nx committed: no .nxignore line (lockguard's taken back), targets whose inputs leave the project root out keep the file; a committed slice change moves that project's nx hashes only", async (t) => {
  const ws = nxWorkspace(t);
  assert.equal((await cli(['init', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  const result = await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\.nxignore: !\*\*\/\.lockguard-slice removed/);
  assert.doesNotMatch(readFileSync(join(ws.root, '.nxignore'), 'utf8'), /lockguard-slice/);
  assert.match(readFileSync(join(ws.root, 'nx.json'), 'utf8'), /"srcOnly",\s*"\{projectRoot\}\/\.lockguard-slice"/);
  commitAll(ws, 'committed slice files');
  const before = nxRun(ws);
  {
    const checks = await soundChecks(ws);
    assert.equal(checkOf(checks, /nx tasks/)?.level, 'ok', JSON.stringify(checks));
  }
  ws.slice('b', 'slice b 2\n');
  commitAll(ws, 'b bumped');
  const after = nxRun(ws);
  for (const id of ['b:build', 'b:lint'])
    assert.notEqual(after[id]?.hash, before[id]?.hash, `${id}: its slice changed`);
  for (const id of ['a:build', 'a:lint', 'c:check'])
    assert.equal(after[id]?.hash, before[id]?.hash, `${id}: its slice did not`);
  {
    // The control: without the entry init keeps in lint's inputs (srcOnly leaves the project root out),
    // nx's lint key misses a committed slice change; build's default inputs still take it in.
    const nxJson = join(ws.root, 'nx.json');
    writeFileSync(nxJson, readFileSync(nxJson, 'utf8').replace(/,\s*"\{projectRoot\}\/\.lockguard-slice"/, ''));
    commitAll(ws, 'lint without the slice file');
    const without = nxRun(ws);
    ws.slice('b', 'slice b 3\n');
    commitAll(ws, 'b bumped again');
    const missed = nxRun(ws);
    assert.equal(missed['b:lint']?.hash, without['b:lint']?.hash, 'b:lint misses it');
    assert.notEqual(missed['b:build']?.hash, without['b:build']?.hash, 'b:build folds it');
  }
});

/** The turbo workspace whose every task uses turbo's default inputs: nothing in turbo.json names the file. */
const DEFAULT_INPUTS_TREE: Tree = {
  'pnpm-lock.yaml': LOCK,
  'turbo.json': '{ "tasks": { "build": { "dependsOn": ["^build"], "outputs": ["dist/**"] } } }',
};

test("a fresh clone of a committed-mode workspace (no .lockguard/, nothing in turbo.json names the file) is adopted: lockguard run after a lockfile change rewrites the changed project's file only", async (t) => {
  const ws = workspace(t, DEFAULT_INPUTS_TREE);
  assert.equal((await cli(['init', '--sound-keys=committed', '--no-pnpmfile'], ws.root, ws.env)).code, 0);
  assert.doesNotMatch(readFileSync(join(ws.root, 'turbo.json'), 'utf8'), /lockguard-slice/);
  commitAll(ws, 'committed slice files');
  const clone = join(ws.root, '..', 'clone');
  assert.equal(ws.sh(['git', 'clone', '-q', ws.root, clone]).code, 0);
  assert.equal(spawnSync('test', ['-e', join(clone, '.lockguard')]).status, 1, 'no ledger in the clone');
  const git = (argv: string[]) => spawnSync('git', argv, { cwd: clone, env: ws.env, encoding: 'utf8' });
  const a = readFileSync(join(clone, 'packages', 'a', '.lockguard-slice'), 'utf8');
  writeFileSync(join(clone, 'pnpm-lock.yaml'), LOCK_B_ALONE);
  assert.equal((await cli(['key', '--check-slices'], clone, ws.env)).code, 1, 'stale before the run');
  const run = await cli(['run', '--no-pre-check', '--', 'true'], clone, ws.env);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(git(['status', '--porcelain', '--', '*.lockguard-slice']).stdout.trim().split('\n'), [
    'M packages/b/.lockguard-slice',
  ]);
  assert.equal(readFileSync(join(clone, 'packages', 'a', '.lockguard-slice'), 'utf8'), a);
  assert.equal((await cli(['key', '--check-slices'], clone, ws.env)).code, 0, 'current after the run');
});

test('key --check-slices: exit 0 when current, 1 naming each missing or stale file with the fix, writing nothing; 2 on bad input', async (t) => {
  const ws = workspace(t, { 'pnpm-lock.yaml': LOCK });
  rmSync(join(ws.root, 'packages', 'a', '.lockguard-slice'));
  {
    const result = await cli(['key', '--check-slices'], ws.root, ws.env);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^missing: \.lockguard-slice$/m);
    assert.match(result.stdout, /^missing: packages\/a\/\.lockguard-slice$/m);
    assert.match(result.stdout, /^stale: packages\/b\/\.lockguard-slice/m, "the hand-written text is not the writer's");
    assert.match(
      result.stdout,
      /3 slice files are not current; fix: lockguard key --write-slices && git add -A -- '\*\.lockguard-slice'/,
    );
    assert.equal(
      readFileSync(join(ws.root, 'packages', 'b', '.lockguard-slice'), 'utf8'),
      'slice b 1\n',
      'nothing written',
    );
  }
  assert.equal((await cli(['key', '--write-slices'], ws.root, ws.env)).code, 0);
  {
    const result = await cli(['key', '--check-slices'], ws.root, ws.env);
    assert.equal(result.code, 0, result.stdout);
    assert.match(result.stdout, /slice files: current/);
  }
  for (const argv of [
    ['key', '--check-slices', '--json'],
    ['key', '--check-slices', '--write-slices'],
  ]) {
    const result = await cli(argv, ws.root, ws.env);
    assert.equal(result.code, 2, argv.join(' '));
    assert.match(result.stderr, /Expected --(check|write)-slices alone/);
  }
  rmSync(join(ws.root, 'pnpm-lock.yaml'));
  assertSetupError(await cli(['key', '--check-slices'], ws.root, ws.env), ws.root);
  {
    const result = await cli(['init', '--sound-keys=sometimes', '--no-pnpmfile'], ws.root, ws.env);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /Expected --sound-keys, --sound-keys=ignored or --sound-keys=committed \(lockguard init\)/,
    );
    assert.doesNotMatch(result.stderr, /sometimes/);
  }
});
