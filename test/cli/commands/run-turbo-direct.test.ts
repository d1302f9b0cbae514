// `lockguard run -- turbo ...` starts turbo's native binary in its Node launcher's place
// (integrations/runners/turbo/binary.ts), as a real process with the real turbo 2 launcher installed in this
// repository: the binary's parent is lockguard itself, and what the binary sees (argv, the launcher's
// `__TURBO_NPM_WRAPPER` marker, NODE_PATH, the signals that reach it, how its end becomes the exit code) is
// what it sees through the launcher: with `.bin/turbo` a symlink (npm, bun, yarn) and the shell shim the real
// pnpm 10 and 12 write (which sets NODE_PATH). The "native binary" is a script named by TURBO_BINARY_PATH, as
// the launcher allows; the pnpm workspaces install a copy of the real launcher as a local `file:` package.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../../helpers/cli.js';
import { isolatedEnv, scrubbedEnv } from '../../helpers/env.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { mustRun, PNPM10, PNPM12, type Tool } from '../../helpers/tools.js';
import { pnpmTree, tempWorkspace, waitFor } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
const LAUNCHER_PACKAGE = realpathSync(join(repoRoot(), 'node_modules', 'turbo'));

// Preloaded into turbo's launcher (NODE_OPTIONS): says when it has added its SIGTERM listener. Inert in any
// other Node process (lockguard itself gets the same NODE_OPTIONS).
const LISTENING_PRELOAD = `const on = process.on;
process.on = function (event, listener) {
  const result = on.call(this, event, listener);
  if (event === 'SIGTERM' && /turbo[\\/]bin[\\/]turbo$/.test(process.argv[1] ?? '')) {
    require('node:fs').writeFileSync(require('node:path').join(process.env.OUT, 'listening'), '');
  }
  return result;
};
`;

// Records its parent, the marker and its argv; counts the signals that reach it; ends with 4, or 9 on SIGTERM.
const FAKE_BINARY = `#!/bin/sh
echo $$ > "$OUT/pid"
echo "$PPID $__TURBO_NPM_WRAPPER \\"$NODE_PATH\\" $*" > "$OUT/start"
trap 'echo INT >> "$OUT/signals"' INT
trap 'echo TERM >> "$OUT/signals"; exit 9' TERM
: > "$OUT/ready"
while [ ! -f "$OUT/stop" ]; do sleep 0.05; done
exit 4
`;

function turboWorkspace(t: Parameters<typeof tempWorkspace>[0]): {
  root: string;
  env: Record<string, string>;
  viaLauncher: string[];
} {
  const root = tempWorkspace(t, {
    ...pnpmTree(LOCK),
    node_modules: { '.pnpm': { 'lock.yaml': LOCK } },
    'turbo.json': '{"tasks":{"build":{}}}\n',
    'fake-turbo': FAKE_BINARY,
    'listening.cjs': LISTENING_PRELOAD,
  });
  chmodSync(join(root, 'fake-turbo'), 0o755);
  symlinkSync(LAUNCHER_PACKAGE, join(root, 'node_modules', 'turbo'));
  mkdirSync(join(root, 'node_modules', '.bin'));
  symlinkSync('../turbo/bin/turbo', join(root, 'node_modules', '.bin', 'turbo'));
  // The launcher as a user could start it by another name: no guarded run takes that for turbo's launcher.
  writeFileSync(
    join(root, 'launch-turbo.sh'),
    `#!/bin/sh\nexec "${process.execPath}" "${join(LAUNCHER_PACKAGE, 'bin', 'turbo')}" "$@"\n`,
  );
  chmodSync(join(root, 'launch-turbo.sh'), 0o755);
  const env = scrubbedEnv({
    PATH: [join(root, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter),
    TURBO_BINARY_PATH: join(root, 'fake-turbo'),
    OUT: root,
    NODE_OPTIONS: `--require ${join(root, 'listening.cjs')}`,
  });
  return { root, env, viaLauncher: ['./launch-turbo.sh'] };
}

/** turbo as pnpm installs it: `.bin/turbo` is pnpm's shell shim (NODE_PATH, then node on the launcher). */
function pnpmTurboWorkspace(
  t: Parameters<typeof tempWorkspace>[0],
  tool: Tool,
): { root: string; env: Record<string, string>; viaLauncher: string[] } {
  const launcher = readFileSync(join(LAUNCHER_PACKAGE, 'bin', 'turbo'), 'utf8');
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true,"devDependencies":{"turbo":"file:vendor/turbo"}}\n',
    'pnpm-workspace.yaml': 'packages: []\n',
    'turbo.json': '{"tasks":{"build":{}}}\n',
    'fake-turbo': FAKE_BINARY,
    'listening.cjs': LISTENING_PRELOAD,
    vendor: {
      turbo: {
        'package.json': '{"name":"turbo","version":"2.11.11","bin":{"turbo":"./bin/turbo"}}\n',
        bin: { turbo: launcher },
      },
    },
  });
  chmodSync(join(root, 'fake-turbo'), 0o755);
  chmodSync(join(root, 'vendor', 'turbo', 'bin', 'turbo'), 0o755);
  const installEnv = isolatedEnv(join(root, '.tmp'));
  mustRun(tool, ['install'], root, installEnv);
  const env = {
    ...installEnv,
    PATH: [join(root, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter),
    TURBO_BINARY_PATH: join(root, 'fake-turbo'),
    OUT: root,
    NODE_OPTIONS: `--require ${join(root, 'listening.cjs')}`,
  };
  // The shim started by sh (a command no guarded run takes for turbo's launcher): shim, launcher, binary.
  return { root, env, viaLauncher: ['sh', join(root, 'node_modules', '.bin', 'turbo')] };
}

interface Seen {
  readonly parentIsLockguard: boolean;
  readonly marker: string;
  readonly nodePath: string;
  readonly args: string;
  readonly signals: string;
  readonly code: number | null;
}

/** Start `lockguard run -- <command> run build`, send SIGINT then SIGTERM to lockguard alone, and report what the binary saw. */
async function guardedRun(
  root: string,
  env: Record<string, string>,
  command: readonly string[],
  launched = false,
): Promise<Seen> {
  const child = spawn(process.execPath, [BIN, 'run', '--runner', 'none', '--', ...command, 'run', 'build'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitFor(() => existsSync(join(root, 'ready')), 15_000, 'the binary to start');
    // Through the launcher, wait until it listens for SIGTERM: it sets its listeners just after it spawned the
    // binary, and a signal landing before that kills it with Node's default action on a loaded machine (turbo's
    // own race, not what this test compares). lockguard listens before it spawns the binary: nothing to wait for.
    if (launched) {
      await waitFor(() => existsSync(join(root, 'listening')), 15_000, "turbo's launcher to listen for SIGTERM");
    }
    // Signals sent in this order are forwarded in this order: a forwarded SIGINT would be counted before the SIGTERM.
    child.kill('SIGINT');
    child.kill('SIGTERM');
    const code = await exited;
    // The binary writes what reached it from its trap: give a loaded machine a moment, and say why if never.
    await waitFor(
      () => existsSync(join(root, 'signals')),
      5_000,
      `the binary's signals file (lockguard -- ${command.join(' ')} exited ${code}; its stderr: ${stderr})`,
    );
    const [, ppid = '', marker = '', nodePath = '', args = ''] =
      /^(\d+) (\S*) "([^"]*)" (.*)$/.exec(readFileSync(join(root, 'start'), 'utf8').trim()) ?? [];
    return {
      parentIsLockguard: Number(ppid) === child.pid,
      marker,
      nodePath,
      args,
      signals: readFileSync(join(root, 'signals'), 'utf8'),
      code,
    };
  } finally {
    child.kill('SIGKILL');
    // A failed run must not leave the binary looping (it holds lockguard's stderr pipe: the file would hang).
    writeFileSync(join(root, 'stop'), '');
    const pid = existsSync(join(root, 'pid')) ? Number(readFileSync(join(root, 'pid'), 'utf8')) : 0;
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

const LAYOUTS = [
  { name: 'a symlink', make: (t: Parameters<typeof tempWorkspace>[0]) => turboWorkspace(t) },
  { name: "pnpm 10's shim", make: (t: Parameters<typeof tempWorkspace>[0]) => pnpmTurboWorkspace(t, PNPM10) },
  { name: "pnpm 12's shim", make: (t: Parameters<typeof tempWorkspace>[0]) => pnpmTurboWorkspace(t, PNPM12) },
];

for (const layout of LAYOUTS) {
  test(`.bin/turbo as ${layout.name}: the native binary runs as lockguard's own child and sees what it sees through the launcher`, {
    timeout: 120_000,
  }, async (t) => {
    const direct = layout.make(t);
    const seenDirect = await guardedRun(direct.root, direct.env, ['turbo']);
    const launched = layout.make(t);
    const seenLaunched = await guardedRun(launched.root, launched.env, launched.viaLauncher, true);
    assert.equal(seenDirect.parentIsLockguard, true, 'no launcher in between');
    assert.equal(seenLaunched.parentIsLockguard, false, 'the launcher is its parent');
    const { parentIsLockguard: _a, ...direct_ } = seenDirect;
    const { parentIsLockguard: _b, ...launched_ } = seenLaunched;
    assert.deepEqual(
      { ...direct_, nodePath: undefined },
      { marker: '1', nodePath: undefined, args: 'run build', signals: 'TERM\n', code: 9 },
    );
    // The same NODE_PATH (a shim's folders, in this workspace's own paths) as through the shim.
    assert.deepEqual(
      { ...launched_, nodePath: launched_.nodePath.replaceAll(launched.root, '<root>') },
      { ...direct_, nodePath: direct_.nodePath.replaceAll(direct.root, '<root>') },
    );
    if (layout.name !== 'a symlink') assert.match(direct_.nodePath, /node_modules\/\.pnpm/);
  });
}

test('a binary that ends by itself: its code comes back, as through the launcher', { timeout: 30_000 }, async (t) => {
  const { root, env } = turboWorkspace(t);
  writeFileSync(join(root, 'stop'), '');
  const child = spawn(process.execPath, [BIN, 'run', '--runner', 'none', '--', 'turbo', 'run', 'build'], {
    cwd: root,
    env,
    stdio: 'ignore',
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (value) => resolve(value)));
  assert.equal(code, 4);
  assert.match(readFileSync(join(root, 'start'), 'utf8'), / 1 "" run build\n$/);
});

test('started as node_modules/.bin/lockguard with turbo only in node_modules/.bin (not on PATH): turbo is found, as npx and package scripts find it', {
  timeout: 30_000,
}, async (t) => {
  const { root, env } = turboWorkspace(t);
  symlinkSync(BIN, join(root, 'node_modules', '.bin', 'lockguard'));
  writeFileSync(join(root, 'stop'), '');
  // No folder on PATH holds a turbo (npm test puts this repository's node_modules/.bin on it: left out).
  const bare = {
    ...env,
    PATH: (scrubbedEnv()['PATH'] ?? '')
      .split(delimiter)
      .filter((dir) => dir !== '' && !existsSync(join(dir, 'turbo')))
      .join(delimiter),
  };
  assert.equal(
    bare.PATH.split(delimiter).some((dir) => existsSync(join(dir, 'turbo'))),
    false,
    'no turbo on PATH',
  );
  const child = spawn(
    join(root, 'node_modules', '.bin', 'lockguard'),
    ['run', '--runner', 'none', '--', 'turbo', 'run', 'build'],
    { cwd: root, env: bare, stdio: 'ignore' },
  );
  const code = await new Promise<number | null>((resolve) => child.on('exit', (value) => resolve(value)));
  assert.equal(code, 4, 'the binary ran (not 127, command not found)');
  const [, ppid] = /^(\d+) /.exec(readFileSync(join(root, 'start'), 'utf8')) ?? [];
  assert.equal(Number(ppid), child.pid, "turbo's native binary, started in the launcher's place");
});

test("the wrapped command's PATH: node_modules/.bin from the current folder up to the workspace root, nearest first, then PATH", {
  timeout: 30_000,
}, async (t) => {
  const which = (label: string): string => `#!/bin/sh\necho ${label} > "$OUT/which"\necho "$PATH" > "$OUT/path"\n`;
  const root = tempWorkspace(t, {
    ...pnpmTree(LOCK),
    node_modules: {
      '.pnpm': { 'lock.yaml': LOCK },
      '.bin': { 'which-bin': which('root'), 'root-only': which('root-only') },
    },
    packages: { b: { 'package.json': '{"name":"b"}\n', node_modules: { '.bin': { 'which-bin': which('b') } } } },
  });
  for (const file of [
    'node_modules/.bin/which-bin',
    'node_modules/.bin/root-only',
    'packages/b/node_modules/.bin/which-bin',
  ])
    chmodSync(join(root, file), 0o755);
  const run = (cwd: string, command: string): { code: number | null; which: string; path: string } => {
    const result = spawnSync(process.execPath, [BIN, 'run', '--runner', 'none', '--no-pre-check', '--', command], {
      cwd,
      env: scrubbedEnv({ OUT: root }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    return {
      code: result.status,
      which: readFileSync(join(root, 'which'), 'utf8').trim(),
      path: readFileSync(join(root, 'path'), 'utf8').trim(),
    };
  };
  const inB = run(join(root, 'packages', 'b'), 'which-bin');
  assert.deepEqual([inB.code, inB.which], [0, 'b']);
  assert.deepEqual(inB.path.split(delimiter).slice(0, 4), [
    join(root, 'packages', 'b', 'node_modules', '.bin'),
    join(root, 'packages', 'node_modules', '.bin'),
    join(root, 'node_modules', '.bin'),
    ...(scrubbedEnv()['PATH'] ?? '').split(delimiter).slice(0, 1),
  ]);
  assert.deepEqual(
    [run(join(root, 'packages', 'b'), 'root-only').which, run(root, 'which-bin').which],
    ['root-only', 'root'],
  );
});

/** The commands (argv, space-joined) every process of the traced tree executed, in order. */
function tracedExecs(argv: readonly string[], cwd: string, env: Record<string, string>, out: string): string[] {
  const traced = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve', '-s', '200', '-o', out, ...argv], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  // The fake binary ends with 4 (its stop file is there): the command's code, through pnpm and lockguard.
  assert.equal(traced.status, 4, traced.stderr);
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((line) => line.includes('execve(') && !line.includes('= -1'))
    .map((line) => (/execve\("[^"]*", \[(.*?)\]/.exec(line)?.[1] ?? '').replaceAll('"', ''));
}

test('lockguard run -- pnpm build starts nothing but pnpm build itself (no pnpm --version, no dry run): the same processes as pnpm build alone', {
  timeout: 120_000,
}, (t) => {
  assert.equal(spawnSync('strace', ['-V']).status, 0, 'strace is required for this test (.ci/run installs it)');
  const { root, env } = turboWorkspace(t);
  writeFileSync(
    join(root, 'package.json'),
    '{"name":"root","private":true,"packageManager":"pnpm@10.34.8","scripts":{"build":"turbo run build"}}\n',
  );
  writeFileSync(join(root, 'stop'), '');
  const pnpm = [process.execPath, PNPM10.prefix[0] as string];
  const traces = ['alone', 'guarded'].map((name) => join(root, '..', `${root.split('/').pop()}.${name}.strace`));
  t.after(() => {
    for (const trace of traces) rmSync(trace, { force: true });
  });
  const alone = tracedExecs([...pnpm, 'build'], root, env, traces[0] as string);
  const guarded = tracedExecs(
    [process.execPath, BIN, 'run', '--no-pre-check', '--', ...pnpm, 'build'],
    root,
    env,
    traces[1] as string,
  );
  assert.ok(
    alone.some((line) => line.startsWith('sh, -c, turbo run build')),
    alone.join('\n'),
  );
  assert.deepEqual(guarded.slice(1), alone, 'after lockguard itself, exactly the processes of pnpm build alone');
});
