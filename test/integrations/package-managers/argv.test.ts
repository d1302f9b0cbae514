// One table of command lines, and every caller that reads a package manager's argv asked about each row:
// the pre-run check's skip, the plan's writers, the pnpmfile's refusal (through the real plugin under a
// refusing live run) and runner resolution. They agree because they all ask package-managers/argv.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyCommand, parseCommand } from '../../../lib/integrations/package-managers/argv.js';
import { preparesTreeFirst, walkCommand } from '../../../lib/integrations/package-managers/script-walk.js';
import { commandWrites } from '../../../lib/integrations/plan/command-writes.js';
import { createHooks } from '../../../lib/integrations/pnpmfile/plugin.js';
import { runnersInCommand, stepsOf } from '../../../lib/integrations/runners/detect.js';
import { liveRun } from '../../helpers/hooks.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

interface Row {
  /** Installs before anything runs: the pre-run check is skipped. */
  readonly skip: boolean;
  /** The plan counts it as a writer (it may rewrite the lockfile; pnpm run under verifyDepsBeforeRun=install aside). */
  readonly writes: boolean;
  /** pnpm only: the pnpmfile refuses it under a refusing run, whatever frozenLockfile says. */
  readonly refuses?: boolean;
  /** The runner it starts (through scripts: the workspace below has a few). */
  readonly runner?: string;
}

const no: Row = { skip: false, writes: false };

const TABLE: ReadonlyArray<readonly [string, Row]> = [
  // pnpm
  ['pnpm install', { skip: true, writes: true, refuses: false }],
  ['pnpm i', { skip: true, writes: true, refuses: false }],
  ['pnpm install --frozen-lockfile', { skip: true, writes: false, refuses: false }],
  ['pnpm install --no-frozen-lockfile', { skip: true, writes: true, refuses: false }],
  ['pnpm install left-pad', { skip: true, writes: true, refuses: true }],
  ['pnpm add x', { skip: true, writes: true, refuses: true }],
  ['pnpm -w add x', { skip: true, writes: true, refuses: true }],
  ['pnpm --workspace-root add x', { skip: true, writes: true, refuses: true }],
  ['pnpm --filter b add x', { skip: true, writes: true, refuses: true }],
  ['pnpm -F b up', { skip: true, writes: true, refuses: true }],
  ['pnpm recursive update', { skip: true, writes: true, refuses: true }],
  ['pnpm uni x', { skip: true, writes: true, refuses: true }],
  ['pnpm dedupe', { skip: true, writes: true, refuses: true }],
  ['pnpm link ../x', { skip: true, writes: true, refuses: true }],
  ['pnpm patch-commit /tmp/p', { skip: true, writes: true, refuses: true }],
  ['pnpm patch-remove x', { skip: true, writes: true, refuses: true }],
  ['pnpm prune', { skip: true, writes: false, refuses: false }],
  ['pnpm fetch', { skip: true, writes: false, refuses: false }],
  ['pnpm add -g x', { ...no, refuses: false }],
  ['pnpm --version', { ...no, refuses: false }],
  ['pnpm run build', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm build', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm run add', { ...no, refuses: false }],
  ['pnpm --filter add run build', { ...no, refuses: false }],
  // Words after the script name are the script's (pnpm 10 and 12 run the root script: test/integrations/plan/index.test.ts).
  ['pnpm build --filter b', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm build -r', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm run build --filter=b', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm run -r build', { ...no, refuses: false }],
  ['pnpm exec turbo run build --filter b', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm exec true', { ...no, refuses: false }],
  ['pnpm exec turbo run build', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm dlx turbo run build', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm turbo run build', { ...no, refuses: false, runner: 'turbo' }],
  ['pnpm -C sub exec nx run-many -t build', { ...no, refuses: false, runner: 'nx' }],
  ['pnpm pipeline', { ...no, refuses: false, runner: 'pnpm-pipeline' }],
  ['pnpm ci-build', { skip: true, writes: true, refuses: false, runner: 'nx' }],
  ['node node_modules/pnpm/bin/pnpm.cjs add x', { skip: true, writes: true, refuses: true }],
  // npm
  ['npm install', { skip: true, writes: true }],
  ['npm i x', { skip: true, writes: true }],
  ['npm ci', { skip: true, writes: false }],
  ['npm clean-install', { skip: true, writes: false }],
  ['npm update', { skip: true, writes: true }],
  ['npm uninstall x', { skip: true, writes: true }],
  ['npm dedupe', { skip: true, writes: true }],
  ['npm prune', { skip: true, writes: false }],
  ['npm -w b install x', { skip: true, writes: true }],
  ['npm install --dry-run', no],
  ['npm run build', { ...no, runner: 'turbo' }],
  ['npm test', no],
  ['npx turbo run build', { ...no, runner: 'turbo' }],
  ['npx -y nx run-many -t build', { ...no, runner: 'nx' }],
  // yarn
  ['yarn', { skip: true, writes: true }],
  ['yarn install', { skip: true, writes: true }],
  ['yarn install --immutable', { skip: true, writes: false }],
  ['yarn --frozen-lockfile', { skip: true, writes: false }],
  ['yarn add x', { skip: true, writes: true }],
  ['yarn up x', { skip: true, writes: true }],
  ['yarn --version', no],
  ['yarn build', { ...no, runner: 'turbo' }],
  ['yarn turbo run build', { ...no, runner: 'turbo' }],
  ['yarn workspace b add x', { skip: true, writes: true }],
  ['yarn workspaces foreach -A -p run build', no],
  ['yarn workspaces foreach --all --exclude root run nx build', no],
  // bun
  ['bun install', { skip: true, writes: true }],
  ['bun install --frozen-lockfile', { skip: true, writes: false }],
  ['bun add x', { skip: true, writes: true }],
  ['bun run build', { ...no, runner: 'turbo' }],
  ['bun --filter b build', no],
  ['bunx turbo run build', { ...no, runner: 'turbo' }],
  // not a package manager
  ['turbo run build', { ...no, runner: 'turbo' }],
  ["sh -c 'pnpm install && turbo run build'", { skip: true, writes: true, runner: 'turbo' }],
  ['make install', no],
];

const SCRIPTS = {
  build: 'turbo run build',
  'ci-build': 'pnpm install && pnpm run nx-all',
  'nx-all': 'nx run-many -t build',
};

test('every caller reads a command line the same way (table)', async (t) => {
  const root = tempWorkspace(t, {
    ...pnpmTree(),
    'package.json': JSON.stringify({ name: 'root', private: true, scripts: SCRIPTS }),
  });
  const run = liveRun(t, root, 'refuse');
  for (const [line, row] of TABLE) {
    const argv = line.startsWith('sh -c') ? ['sh', '-c', line.slice(7, -1)] : line.split(' ');
    const steps = stepsOf(argv, root);
    assert.equal(preparesTreeFirst(steps), row.skip, `pre-run check skip: ${line}`);
    assert.equal(
      commandWrites(line, { scripts: SCRIPTS, pnpmRunInstalls: false }).writes,
      row.writes,
      `plan writer: ${line}`,
    );
    assert.equal(runnersInCommand(argv, root)[0], row.runner, `runner: ${line}`);
    if (row.refuses !== undefined) {
      const pnpmArgs = argv[0] === 'node' ? argv.slice(2) : argv.slice(1);
      const hooks = createHooks({ cwd: root, env: {}, argv: () => pnpmArgs, pid: 4242, pnpmMajor: () => 12 });
      const refused = (() => {
        try {
          hooks.updateConfig?.({ lockfileDir: root });
          return false;
        } catch (error) {
          assert.equal((error as { code?: string }).code, 'ERR_LOCKGUARD_REFUSED');
          return true;
        }
      })();
      assert.equal(refused, row.refuses, `pnpmfile refusal: ${line}`);
    }
  }
  assert.ok(run.hookEvents().length > 0);
});

test('pnpm run / exec / <script> are writers when verifyDepsBeforeRun is install; pnpm dlx and npm run are not', () => {
  for (const line of ['pnpm run build', 'pnpm build', 'pnpm exec tsc', 'pnpm test', 'pnpm -r run build'])
    assert.equal(commandWrites(line, { scripts: {}, pnpmRunInstalls: true }).writes, true, line);
  for (const line of ['pnpm dlx tsc', 'npm run build', 'npx tsc'])
    assert.equal(commandWrites(line, { scripts: {}, pnpmRunInstalls: true }).writes, false, line);
});

test('pnpm: the words after the script or command name are forwarded to it, never read as pnpm options', () => {
  const build = classifyCommand(['pnpm', 'build', '--filter', '@acme/api...']);
  assert.deepEqual([build?.script, build?.elsewhere, build?.forwarded], ['build', false, ['--filter', '@acme/api...']]);
  const run = classifyCommand(['pnpm', 'run', '--filter', 'b', 'build', '-r']);
  assert.deepEqual([run?.script, run?.elsewhere, run?.forwarded], ['build', true, ['-r']]);
  assert.equal(classifyCommand(['pnpm', '--filter', 'b', 'build'])?.elsewhere, true);
  assert.equal(classifyCommand(['pnpm', 'exec', 'turbo', '-C', 'x'])?.elsewhere, false);
  assert.equal(classifyCommand(['pnpm', 'install', '--filter', 'b'])?.elsewhere, true, "an install's words are pnpm's");
  assert.equal(
    classifyCommand(['npm', 'run', 'build', '-w', 'b'])?.elsewhere,
    true,
    'npm reads -w after the script name',
  );
  // The walker appends them to the script's body, as pnpm runs it.
  const steps = walkCommand(['pnpm', 'build', '--filter', "it's b"], {
    cwd: '/w',
    scriptsOf: () => ({ build: 'turbo run build' }),
  });
  assert.deepEqual(steps.at(-1)?.argv, ['turbo', 'run', 'build', '--filter', "it's b"]);
});

test('parseCommand: aliases resolve, option values are not commands, launchers are seen through', () => {
  assert.deepEqual(parseCommand(['pnpm', '--filter', 'b', 'i']), {
    manager: 'pnpm',
    command: 'install',
    typed: 'i',
    options: ['--filter', 'b'],
    rest: [],
  });
  assert.equal(parseCommand(['pnpm', '-w', 'add', 'x'])?.command, 'add', '-w is --workspace-root, a flag');
  assert.equal(parseCommand(['npm', '-w', 'add', 'ci'])?.command, 'ci', "npm's -w takes a value");
  assert.equal(parseCommand(['/usr/local/bin/pnpm.cjs', 'up'])?.command, 'update');
  assert.equal(parseCommand(['node', '.yarn/releases/yarn-4.18.1.cjs', 'add', 'x'])?.manager, 'yarn');
  assert.equal(parseCommand(['corepack', 'pnpm', 'rm', 'x'])?.command, 'remove');
  assert.equal(parseCommand(['turbo', 'run', 'build']), undefined);
  assert.equal(classifyCommand(['npx', '-p', 'x', 'nx', 'build'])?.runs?.[0], 'nx');
  assert.equal(classifyCommand(['npm', 'exec', '-c', 'turbo run build'])?.runsLine, 'turbo run build');
});

test("scripts are followed to a bounded depth, each once, and another package's scripts are not read", (t) => {
  const root = tempWorkspace(t, {
    'package.json': JSON.stringify({ scripts: { a: 'pnpm run b', b: 'pnpm run a && nx build', loop: 'npm run loop' } }),
  });
  const steps = walkCommand(['pnpm', 'run', 'a'], {
    cwd: root,
    scriptsOf: () => ({ a: 'pnpm run b', b: 'pnpm run a && nx build' }),
  });
  assert.ok(steps.some((step) => step.argv[0] === 'nx'));
  assert.ok(steps.length < 10, 'a cycle is walked once');
  assert.deepEqual(runnersInCommand(['pnpm', '--filter', 'other', 'run', 'a'], root), []);
  assert.equal(stepsOf(['npm', 'run', 'loop'], root).length, 2);
});
