// Bad input through the real built bin: each case exits 2 with a message naming the path (and the fix),
// never a stack trace, never a hang (every process is spawned with a timeout); the stable error code is
// asserted through the library call the command makes.

import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { findWorkspace, LOCKFILES } from '../../lib/core/workspace.js';
import { loadRun } from '../../lib/ledger/ledger.js';
import { findRun } from '../../lib/ledger/find-run.js';
import { cli, cliProcess, type CliResult } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { assertSetupError, codeOf } from '../helpers/errors.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';
import { repoRoot } from '../helpers/fixtures.js';

const TIMEOUT_MS = 10_000;
const DIST = fileURLToPath(new URL('../../', import.meta.url));

function run(argv: readonly string[], cwd: string, env: Record<string, string> = scrubbedEnv()): CliResult {
  const result = cliProcess(argv, cwd, env, TIMEOUT_MS);
  assert.equal(result.signal, null, `lockguard ${argv.join(' ')} did not return within ${TIMEOUT_MS} ms`);
  return result;
}

const inputs = { scope: 'inputs' } as const;

describe('a broken lockfile', () => {
  const cases = [
    [
      'merge-conflict markers',
      'pnpm-lock.yaml',
      "lockfileVersion: '9.0'\n<<<<<<< HEAD\n  a: 1\n=======\n  a: 2\n>>>>>>> theirs\n",
    ],
    ['an empty file', 'pnpm-lock.yaml', ''],
    ['a package-lock.json that is not a JSON object', 'package-lock.json', '[1, 2, 3]\n'],
  ] as const;
  for (const [what, name, text] of cases) {
    test(`${what}: exit 2 naming it, ERR_LOCKGUARD_BROKEN_LOCKFILE`, async (t) => {
      const tree = name === 'pnpm-lock.yaml' ? pnpmTree(text) : { 'package.json': '{"name":"r"}', [name]: text };
      const root = tempWorkspace(t, tree);
      for (const command of ['snapshot', 'key']) assertSetupError(run([command], root), join(root, name));
      assert.equal(existsSync(join(root, '.lockguard')), false, 'nothing recorded for a broken lockfile');
      assert.equal(await codeOf(() => readWorkspaceFingerprints(root, inputs)), 'ERR_LOCKGUARD_BROKEN_LOCKFILE');
    });
  }

  test('a planted secret in a conflicted lockfile never reaches the output', async (t) => {
    const secret = 'npm_Zq9SECRETtokenDoNotLeak0123456789';
    const lockfile = `lockfileVersion: '9.0'\n<<<<<<< HEAD\n//registry.npmjs.org/:_authToken=${secret}\n=======\n>>>>>>> main\n`;
    const root = tempWorkspace(t, pnpmTree(lockfile));
    for (const command of [['snapshot'], ['key'], ['snapshot', '--json']]) {
      const result = run(command, root);
      assertSetupError(result, join(root, 'pnpm-lock.yaml'));
      assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), 'the token is not echoed');
    }
    const error = await codeOf(() => readWorkspaceFingerprints(root, inputs));
    assert.equal(error, 'ERR_LOCKGUARD_BROKEN_LOCKFILE');
  });
});

describe('something else where the lockfile should be', () => {
  test('a FIFO: exit 2 at once (never opened for a blocking read), ERR_LOCKGUARD_NOT_A_FILE', async (t) => {
    const root = tempWorkspace(t, { ...pnpmTree(), 'pnpm-lock.yaml': null });
    const fifo = join(root, 'pnpm-lock.yaml');
    const made = spawnSync('mkfifo', [fifo], { timeout: TIMEOUT_MS });
    assert.equal(made.status, 0);
    for (const command of ['snapshot', 'key']) assertSetupError(run([command], root), fifo);
    assert.equal(await codeOf(() => readWorkspaceFingerprints(root, inputs)), 'ERR_LOCKGUARD_NOT_A_FILE');
  });

  test('a FIFO swapped in after the snapshot: verify exits 2, not "save=true"', (t) => {
    const root = tempWorkspace(t, pnpmTree());
    assert.equal(run(['snapshot'], root).code, 0);
    const fifo = join(root, 'pnpm-lock.yaml');
    spawnSync('rm', [fifo]);
    assert.equal(spawnSync('mkfifo', [fifo], { timeout: TIMEOUT_MS }).status, 0);
    assertSetupError(run(['verify'], root), fifo);
  });

  test('a dangling symlink: exit 2 naming it, ERR_LOCKGUARD_DANGLING_LINK', async (t) => {
    const root = tempWorkspace(t, { ...pnpmTree(), 'pnpm-lock.yaml': null });
    symlinkSync('gone.yaml', join(root, 'pnpm-lock.yaml'));
    assertSetupError(run(['snapshot'], root), join(root, 'pnpm-lock.yaml'));
    assert.equal(await codeOf(() => readWorkspaceFingerprints(root, inputs)), 'ERR_LOCKGUARD_DANGLING_LINK');
  });

  test('a directory: exit 2 naming it, ERR_LOCKGUARD_NOT_A_FILE', async (t) => {
    const root = tempWorkspace(t, { ...pnpmTree(), 'pnpm-lock.yaml': {} });
    assertSetupError(run(['snapshot'], root), join(root, 'pnpm-lock.yaml'));
    assert.equal(await codeOf(() => readWorkspaceFingerprints(root, inputs)), 'ERR_LOCKGUARD_NOT_A_FILE');
  });

  test('no permission to read it: exit 2 naming it, ERR_LOCKGUARD_ACCESS', (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const lockfile = join(root, 'pnpm-lock.yaml');
    chmodSync(root, 0o755);
    chmodSync(lockfile, 0o000);
    // Root ignores file modes: run as an unprivileged user then. That user may not reach this checkout (a
    // clone in a 0700 folder), so what ships is copied next to the workspace, in a folder it can traverse.
    const shipped = tempWorkspace(t, {}, 'lockguard-shipped-');
    chmodSync(shipped, 0o755);
    copyFileSync(join(DIST, 'lockguard.cjs'), join(shipped, 'lockguard.cjs'));
    cpSync(join(DIST, 'cli'), join(shipped, 'cli'), { recursive: true });
    cpSync(join(DIST, 'lib', 'core'), join(shipped, 'lib', 'core'), { recursive: true });
    writeFileSync(join(shipped, 'package.json'), '{"type":"module"}\n');
    const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const spawn = (args: readonly string[]): SpawnSyncReturns<string> => {
      const [command = process.execPath, ...rest] = [...asUser, process.execPath, ...args];
      return spawnSync(command, rest, { cwd: root, env: scrubbedEnv(), encoding: 'utf8', timeout: TIMEOUT_MS });
    };
    const bin = spawn([join(shipped, 'lockguard.cjs'), 'snapshot']);
    assert.equal(bin.signal, null, 'returned in time');
    assertSetupError({ code: bin.status ?? -1, stdout: bin.stdout, stderr: bin.stderr }, lockfile);
    const script = `import { readWorkspaceFingerprints } from ${JSON.stringify(join(shipped, 'lib', 'core', 'fingerprints.js'))};
try { readWorkspaceFingerprints(process.cwd(), { scope: 'inputs' }); console.log('no error'); } catch (e) { console.log(e.code); }`;
    const library = spawn(['--input-type=module', '-e', script]);
    assert.equal(library.stdout.trim(), 'ERR_LOCKGUARD_ACCESS', library.stderr);
  });
});

describe('a broken ledger', () => {
  for (const [what, text] of [
    ['not JSON', '{"version": 1, "id": '],
    ['the wrong shape', '{"version": 1, "id": 42, "entries": "none"}\n'],
    ['an unknown version', '{"version": 9}\n'],
  ] as const) {
    test(`run.json ${what}: verify and status exit 2 naming it, ERR_LOCKGUARD_BROKEN_LEDGER`, async (t) => {
      const root = tempWorkspace(t, pnpmTree());
      const snapshot = run(['snapshot', '--json'], root);
      assert.equal(snapshot.code, 0, snapshot.stderr);
      const { dir } = JSON.parse(snapshot.stdout) as { dir: string };
      const record = join(dir, 'run.json');
      writeFileSync(record, text);
      for (const command of ['verify', 'status']) assertSetupError(run([command], root), record);
      assert.equal(await codeOf(() => loadRun(dir)), 'ERR_LOCKGUARD_BROKEN_LEDGER');
    });
  }

  test('.lockguard is a file: snapshot and verify exit 2 naming it', async (t) => {
    const root = tempWorkspace(t, { ...pnpmTree(), '.lockguard': 'not a folder\n' });
    const ledger = join(root, '.lockguard');
    for (const command of ['snapshot', 'verify', 'status']) assertSetupError(run([command], root), ledger);
    assert.equal(await codeOf(() => findRun(root, undefined, undefined, 'snapshot')), 'ERR_LOCKGUARD_BROKEN_LEDGER');
  });
});

describe('usage and setup errors', () => {
  test('no workspace at all (an empty folder with no workspace above it): exit 2, ERR_LOCKGUARD_NOT_A_WORKSPACE', async (t) => {
    const root = tempWorkspace(t);
    // Precondition: no folder above the temp dir looks like a workspace, or this test would prove nothing.
    for (let dir = root; dirname(dir) !== dir; dir = dirname(dir)) {
      const names = readdirSync(dir);
      const found = names.filter(
        (name) =>
          name === 'package.json' ||
          name === 'pnpm-workspace.yaml' ||
          LOCKFILES.some(([lockfile]) => lockfile === name),
      );
      assert.deepEqual(found, [], `${dir} must not look like a workspace`);
    }
    for (const command of ['snapshot', 'verify', 'key', 'status']) assertSetupError(run([command], root), root);
    assert.equal(await codeOf(() => findWorkspace(root)), 'ERR_LOCKGUARD_NOT_A_WORKSPACE');
  });

  test('an unknown flag: exit 2 naming the flag, ERR_LOCKGUARD_USAGE', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    for (const command of ['snapshot', 'verify', 'key', 'status']) {
      const result = run([command, '--bogus'], root);
      assertSetupError(result, '--bogus');
    }
    const { parse } = await import('../../lib/cli/args.js');
    assert.equal(await codeOf(() => parse('verify', ['--bogus'], {})), 'ERR_LOCKGUARD_USAGE');
  });

  test('a value-taking flag given twice, -C at a file or empty, a dash value: exit 2 saying which and the fix', (t) => {
    // The last value once won quietly (--policy refuse --policy flag ran as flag); -C at a file was diagnosed as
    // a misnamed pnpm-workspace.yaml; -C '' was the current folder.
    const root = tempWorkspace(t, pnpmTree());
    for (const [flag, argv] of [
      ['--policy', ['run', '--no-pre-check', '--policy', 'refuse', '--policy', 'flag', '--', 'true']],
      ['--scope', ['snapshot', '--scope', 'full', '--scope', 'inputs']],
      ['--keep', ['prune', '--keep', '1', '--keep', '2']],
    ] as const)
      assertSetupError(run(argv, root), `${flag} is given more than once`);
    assert.equal(existsSync(join(root, '.lockguard', 'runs')), false, 'nothing ran');
    const file = join(root, 'package.json');
    for (const argv of [
      ['-C', file, 'status'],
      [`--dir=${file}`, 'key'],
    ]) {
      const result = run(argv, root);
      assertSetupError(result, file);
      assert.match(result.stderr, /which is not a folder/);
    }
    assert.match(run(['-C', '', 'status'], root).stderr, /^lockguard: -C needs a folder\./);
    assertSetupError(run(['key', '--project', ''], root), '--project needs a project');
    const dash = run(['prune', '--keep', '-1'], root);
    assertSetupError(dash, '--keep');
    assert.match(dash.stderr, /A value that starts with a dash is written --keep=<value>/);
  });

  test("an environment variable's bad value and a settings key that is no name are never printed; a flag's value is", (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const secret = 'npm_SECRETtoken0123456789';
    for (const [name, argv] of [
      ['LOCKGUARD_POLICY', ['run', '--no-pre-check', '--', 'true']],
      ['LOCKGUARD_REMOTE', ['run', '--no-pre-check', '--', 'true']],
      ['LOCKGUARD_RUN', ['status']],
      ['LOCKGUARD_RUN_STORE', ['verify', '--name', 'STORE']],
    ] as const) {
      const result = run(argv, root, scrubbedEnv({ [name]: secret }));
      assertSetupError(result, name);
      assert.ok(!result.stderr.includes(secret) && !result.stdout.includes(secret), `${name}: ${result.stderr}`);
    }
    // doctor fails the setting run refuses (it once said "ok settings policy bogus (environment)").
    const doctor = run(['doctor'], root, scrubbedEnv({ LOCKGUARD_POLICY: secret }));
    assert.match(doctor.stdout, /FAIL {2}settings {2}Expected LOCKGUARD_POLICY to be/);
    assert.ok(!doctor.stdout.includes(secret));
    assert.match(run(['run', '--policy', 'sometimes', '--', 'true'], root).stderr, /got "sometimes"/);
    const keyed = tempWorkspace(t, { ...pnpmTree(), 'package.json': `{"name":"r","lockguard":{"${secret} x":1}}\n` });
    const unknown = run(['run', '--no-pre-check', '--', 'true'], keyed);
    assertSetupError(unknown, join(keyed, 'package.json'));
    assert.match(unknown.stderr, /has an unknown key in its "lockguard" field/);
    assert.ok(!unknown.stderr.includes(secret));
    const typo = tempWorkspace(t, { ...pnpmTree(), 'package.json': '{"name":"r","lockguard":{"polcy":"refuse"}}\n' });
    assert.match(
      run(['run', '--no-pre-check', '--', 'true'], typo).stderr,
      /unknown key "lockguard\.polcy".*\n.*Did you mean "policy"/,
    );
    // A lockfileVersion that is no version number is not echoed either.
    const locked = tempWorkspace(t, pnpmTree(`lockfileVersion: '${secret}'\nimporters:\n  .: {}\n`));
    const slices = run(['key', '--projects'], locked);
    assertSetupError(slices, join(locked, 'pnpm-lock.yaml'));
    assert.ok(!slices.stderr.includes(secret), slices.stderr);
    assert.match(slices.stderr, /lockfileVersion \(not a version number\)/);
  });

  test('--scope bogus: exit 2 naming the value, ERR_LOCKGUARD_BAD_SETTING', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    for (const command of ['snapshot', 'key']) assertSetupError(run([command, '--scope', 'bogus'], root), '"bogus"');
    assert.equal(existsSync(join(root, '.lockguard')), false);
    const { scopeOf } = await import('../../lib/cli/workspace-option.js');
    assert.equal(
      await codeOf(() => scopeOf({ values: { scope: 'bogus' }, positionals: [] }, 'inputs')),
      'ERR_LOCKGUARD_BAD_SETTING',
    );
  });

  test('verify with no snapshot: exit 2 naming the ledger folder, ERR_LOCKGUARD_NO_SNAPSHOT', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    assertSetupError(run(['verify'], root), join(root, '.lockguard'));
    assert.equal(await codeOf(() => findRun(root, undefined, undefined, 'snapshot')), 'ERR_LOCKGUARD_NO_SNAPSHOT');
  });

  test('--github-output without $GITHUB_OUTPUT: exit 2, and nothing is recorded', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const snapshot = run(['snapshot', '--github-output'], root);
    assertSetupError(snapshot, '$GITHUB_OUTPUT');
    assert.equal(existsSync(join(root, '.lockguard')), false, 'a refused snapshot records no run');
    {
      // verify refuses before it records a verdict in the run's events.
      const taken = await cli(['snapshot', '--json'], root);
      const { dir } = JSON.parse(taken.stdout) as { dir: string };
      assertSetupError(run(['verify', '--github-output'], root), '$GITHUB_OUTPUT');
      const events = await cli(['status', '--json'], root);
      assert.equal((JSON.parse(events.stdout) as { verifies: number }).verifies, 0, `no verdict recorded in ${dir}`);
    }
  });
});

describe('what verify and status print', () => {
  test('verify --json: {version, exitCode, run, scope, key, save, moved: [{path, kind, was, now}], slices}', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const taken = JSON.parse((await cli(['snapshot', '--json'], root)).stdout) as {
      run: string;
      key: string;
      entries: { path: string; digest: string | null }[];
    };
    {
      // Nothing moved: save true, exit 0.
      const result = await cli(['verify', '--json'], root);
      assert.equal(result.code, 0);
      assert.deepEqual(JSON.parse(result.stdout), {
        version: (JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { version: string }).version,
        exitCode: 0,
        run: taken.run,
        scope: 'inputs',
        key: taken.key,
        save: true,
        moved: [],
        slices: [],
      });
    }
    {
      // The lockfile rewritten and a pnpmfile appeared: save false, exit 1, each move with its digests.
      writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {x: 1}\n");
      writeFileSync(join(root, '.pnpmfile.cjs'), 'module.exports = {};\n');
      const result = await cli(['verify', '--json'], root);
      assert.equal(result.code, 1);
      const verdict = JSON.parse(result.stdout) as {
        save: boolean;
        moved: { path: string; kind: string; was: string | null; now: string | null }[];
      };
      assert.equal(verdict.save, false);
      const was = taken.entries.find((entry) => entry.path === 'pnpm-lock.yaml')?.digest;
      assert.deepEqual(
        verdict.moved.map(({ path, kind }) => [path, kind]),
        [
          ['pnpm-lock.yaml', 'rewritten'],
          ['.pnpmfile.cjs', 'appeared'],
        ],
      );
      const [lockfile, pnpmfile] = verdict.moved;
      assert.equal(lockfile?.was, was);
      assert.match(lockfile?.now ?? '', /^[0-9a-f]{64}$/);
      assert.notEqual(lockfile?.now, was);
      assert.equal(pnpmfile?.was, null);
      assert.match(pnpmfile?.now ?? '', /^[0-9a-f]{64}$/);
    }
  });

  test('status after a move lists the moved file; before verify it says not verified yet', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    assert.equal((await cli(['snapshot'], root)).code, 0);
    {
      const status = await cli(['status'], root);
      assert.equal(status.code, 0);
      assert.match(status.stdout, /not verified yet/);
      assert.doesNotMatch(status.stdout, /pnpm-lock\.yaml/);
    }
    writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n# edited\n");
    assert.equal((await cli(['verify'], root)).code, 1);
    {
      const status = await cli(['status'], root);
      assert.equal(status.code, 0);
      assert.match(status.stdout, /^state {4}moved:$/m);
      assert.match(status.stdout, /^ +pnpm-lock\.yaml \(rewritten: [0-9a-f]{12} -> [0-9a-f]{12}\)$/m);
      const data = JSON.parse((await cli(['status', '--json'], root)).stdout) as {
        state: string;
        moved: { path: string }[];
        verifies: number;
      };
      assert.equal(data.state, 'moved');
      assert.deepEqual(
        data.moved.map((file) => file.path),
        ['pnpm-lock.yaml'],
      );
      assert.equal(data.verifies, 1);
    }
  });
});
