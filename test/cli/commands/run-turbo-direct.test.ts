// `lockguard run -- turbo ...` starts turbo's native binary in its Node launcher's place
// (integrations/runners/turbo-binary.ts), as a real process with the real turbo 2 launcher installed in this
// repository: the binary's parent is lockguard itself, and what the binary sees (argv, the launcher's
// `__TURBO_NPM_WRAPPER` marker, the signals that reach it, how its end becomes the exit code) is what it sees
// through the launcher. The "native binary" is a script named by TURBO_BINARY_PATH, as the launcher allows.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { BIN } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { repoRoot } from '../../helpers/fixtures.js';
import { pnpmTree, tempWorkspace, waitFor } from '../../helpers/workspace.js';

const LOCK = "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n";
const LAUNCHER_PACKAGE = realpathSync(join(repoRoot(), 'node_modules', 'turbo'));

// Records its parent, the marker and its argv; counts the signals that reach it; ends with 4, or 9 on SIGTERM.
const FAKE_BINARY = `#!/bin/sh
echo "$PPID $__TURBO_NPM_WRAPPER $*" > "$OUT/start"
trap 'echo INT >> "$OUT/signals"' INT
trap 'echo TERM >> "$OUT/signals"; exit 9' TERM
: > "$OUT/ready"
while [ ! -f "$OUT/stop" ]; do sleep 0.05; done
exit 4
`;

function turboWorkspace(t: Parameters<typeof tempWorkspace>[0]): { root: string; env: Record<string, string> } {
  const root = tempWorkspace(t, { ...pnpmTree(LOCK), node_modules: { '.pnpm': { 'lock.yaml': LOCK } }, 'turbo.json': '{"tasks":{"build":{}}}\n', 'fake-turbo': FAKE_BINARY });
  chmodSync(join(root, 'fake-turbo'), 0o755);
  symlinkSync(LAUNCHER_PACKAGE, join(root, 'node_modules', 'turbo'));
  mkdirSync(join(root, 'node_modules', '.bin'));
  symlinkSync('../turbo/bin/turbo', join(root, 'node_modules', '.bin', 'turbo'));
  // The launcher as a user could start it by another name: no guarded run takes that for turbo's launcher.
  writeFileSync(join(root, 'launch-turbo.sh'), `#!/bin/sh\nexec "${process.execPath}" "${join(LAUNCHER_PACKAGE, 'bin', 'turbo')}" "$@"\n`);
  chmodSync(join(root, 'launch-turbo.sh'), 0o755);
  const env = scrubbedEnv({ PATH: [join(root, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter), TURBO_BINARY_PATH: join(root, 'fake-turbo'), OUT: root });
  return { root, env };
}

interface Seen {
  readonly parentIsLockguard: boolean;
  readonly marker: string;
  readonly args: string;
  readonly signals: string;
  readonly code: number | null;
}

/** Start `lockguard run -- <command> run build`, send SIGINT then SIGTERM to lockguard alone, and report what the binary saw. */
async function guardedRun(root: string, env: Record<string, string>, command: string): Promise<Seen> {
  const child = spawn(process.execPath, [BIN, 'run', '--runner', 'none', '--', command, 'run', 'build'], { cwd: root, env, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await waitFor(() => existsSync(join(root, 'ready')), 15_000, 'the binary to start');
    // Signals sent in this order are forwarded in this order: a forwarded SIGINT would be counted before the SIGTERM.
    child.kill('SIGINT');
    child.kill('SIGTERM');
    const code = await exited;
    const [ppid = '', marker = '', ...args] = readFileSync(join(root, 'start'), 'utf8').trim().split(' ');
    return { parentIsLockguard: Number(ppid) === child.pid, marker, args: args.join(' '), signals: readFileSync(join(root, 'signals'), 'utf8'), code };
  } finally {
    child.kill('SIGKILL');
  }
}

test("the native binary runs as lockguard's own child and sees what it sees through turbo's launcher", { timeout: 60_000 }, async (t) => {
  const direct = turboWorkspace(t);
  const seenDirect = await guardedRun(direct.root, direct.env, 'turbo');
  const launched = turboWorkspace(t);
  const seenLaunched = await guardedRun(launched.root, launched.env, './launch-turbo.sh');
  assert.equal(seenDirect.parentIsLockguard, true, 'no launcher in between');
  assert.equal(seenLaunched.parentIsLockguard, false, 'the launcher is its parent');
  const { parentIsLockguard: _a, ...direct_ } = seenDirect;
  const { parentIsLockguard: _b, ...launched_ } = seenLaunched;
  assert.deepEqual(direct_, { marker: '1', args: 'run build', signals: 'TERM\n', code: 9 });
  assert.deepEqual(launched_, direct_);
});

test('a binary that ends by itself: its code comes back, as through the launcher', { timeout: 30_000 }, async (t) => {
  const { root, env } = turboWorkspace(t);
  writeFileSync(join(root, 'stop'), '');
  const child = spawn(process.execPath, [BIN, 'run', '--runner', 'none', '--', 'turbo', 'run', 'build'], { cwd: root, env, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (value) => resolve(value)));
  assert.equal(code, 4);
  assert.match(readFileSync(join(root, 'start'), 'utf8'), / 1 run build\n$/);
});
