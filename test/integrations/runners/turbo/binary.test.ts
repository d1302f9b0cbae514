// A plan's turbo dry run skips turbo's Node launcher for the native binary the launcher itself would start
// (lib/integrations/runners/turbo/binary.ts), with the real turbo 2.11.11 installed in this repository; and
// both ways of spawning give the same plan and the same failures.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { runDry } from '../../../../lib/integrations/plan/spawn-runner.js';
import { directTurboStart, turboNative } from '../../../../lib/integrations/runners/turbo/binary.js';
import { repoRoot } from '../../../helpers/fixtures.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const REPO = repoRoot();
const nativeOf = (...args: Parameters<typeof turboNative>): string | undefined => turboNative(...args)?.binary;
const LAUNCHER = join(REPO, 'node_modules', 'turbo', 'bin', 'turbo');
const NATIVE = createRequire(LAUNCHER).resolve(
  `@turbo/${process.platform}-${process.arch === 'x64' ? '64' : process.arch}/bin/turbo`,
);

function turboWorkspace(t: Parameters<typeof tempWorkspace>[0]): string {
  const root = tempWorkspace(t, {
    'package.json': '{"name":"root","private":true,"packageManager":"pnpm@10.34.8","workspaces":["packages/*"]}\n',
    'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
    'turbo.json': '{"tasks":{"build":{"dependsOn":["^build"],"outputs":["dist/**"]}}}\n',
    packages: {
      a: { 'package.json': '{"name":"a","scripts":{"build":"node -e 1"}}\n' },
      b: { 'package.json': '{"name":"b","dependencies":{"a":"*"},"scripts":{"build":"node -e 1"}}\n' },
    },
  });
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(LAUNCHER, join(root, 'node_modules', '.bin', 'turbo'));
  return root;
}

test("turbo's launcher found on PATH leads to the native binary it would start; anything else is run as given", (t) => {
  const root = turboWorkspace(t);
  const env = { PATH: [join(root, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter) };
  assert.equal(nativeOf('turbo', root, env), NATIVE);
  assert.equal(nativeOf(join(REPO, 'node_modules', '.bin', 'turbo'), root, {}), NATIVE, 'a path to the launcher');
  // TURBO_BINARY_PATH, as the launcher honours it: when it exists; a missing one is left to the launcher's error.
  assert.equal(nativeOf('turbo', root, { ...env, TURBO_BINARY_PATH: NATIVE }), NATIVE);
  assert.equal(nativeOf('turbo', root, { ...env, TURBO_BINARY_PATH: join(root, 'missing') }), undefined);
  // Not turbo's launcher: a script named turbo, or the native binary itself on PATH.
  const other = tempWorkspace(t, { bin: { turbo: '#!/bin/sh\necho hi\n' } });
  chmodSync(join(other, 'bin', 'turbo'), 0o755);
  assert.equal(nativeOf('turbo', root, { PATH: join(other, 'bin') }), undefined);
  assert.equal(nativeOf(NATIVE, root, {}), undefined);
  assert.equal(nativeOf('turbo', root, { PATH: join(root, 'nowhere') }), undefined);
});

test('the dry run through the native binary prints what the launcher prints; a failing one is ERR_LOCKGUARD_PLAN', async (t) => {
  const root = turboWorkspace(t);
  const env = { PATH: process.env['PATH'] ?? '', HOME: root, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
  const viaNative = JSON.parse(await runDry(['turbo', 'run', 'build', '--dry=json'], { root, env })) as {
    tasks: { taskId: string; hash: string }[];
  };
  // The launcher itself (named by its real path, which is no launcher found on PATH by name): the same tasks and hashes.
  const launcherCopy = join(root, 'launch.sh');
  writeFileSync(launcherCopy, `#!/bin/sh\nexec "${process.execPath}" "${realpathSync(LAUNCHER)}" "$@"\n`);
  chmodSync(launcherCopy, 0o755);
  const viaLauncher = JSON.parse(await runDry([launcherCopy, 'run', 'build', '--dry=json'], { root, env })) as {
    tasks: { taskId: string; hash: string }[];
  };
  const tasks = (dry: typeof viaNative): string[] => dry.tasks.map((task) => `${task.taskId} ${task.hash}`).sort();
  assert.deepEqual(tasks(viaNative), tasks(viaLauncher));
  assert.deepEqual(viaNative.tasks.map((task) => task.taskId).sort(), ['a#build', 'b#build']);
  // turbo's dry run creates an empty .turbo/cache; runDry takes it back (doctor and plan are read-only).
  assert.equal(existsSync(join(root, '.turbo')), false, 'the empty .turbo/cache the dry run made is gone');
  // A folder the dry run finds, or one it fills, stays.
  mkdirSync(join(root, 'kept', 'empty'), { recursive: true });
  const fills = join(root, 'fills.sh');
  writeFileSync(fills, '#!/bin/sh\nmkdir -p .made/empty .filled/a && echo x > .filled/a/file && echo "{}"\n');
  chmodSync(fills, 0o755);
  assert.equal(await runDry([fills], { root, env }), '{}\n');
  assert.deepEqual(
    ['kept/empty', '.made', '.filled/a/file'].map((path) => existsSync(join(root, path))),
    [true, false, true],
  );
  await assert.rejects(runDry(['turbo', 'run', 'nosuchtask', '--dry=json'], { root, env }), {
    code: 'ERR_LOCKGUARD_PLAN',
  });
  await assert.rejects(
    runDry(['turbo', 'run', 'build', '--dry=json'], {
      root,
      env: { ...env, TURBO_BINARY_PATH: join(root, 'missing') },
    }),
    { code: 'ERR_LOCKGUARD_PLAN' },
  );
});

test("a guarded run's start in the launcher's place: the binary, the launcher's marker, SIGTERM and SIGHUP forwarded; turbo 2 only", (t) => {
  const root = turboWorkspace(t);
  const env = { PATH: [join(root, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter), KEEP: 'x' };
  assert.deepEqual(directTurboStart(['turbo', 'run', 'build', '--filter=a'], root, env), {
    argv: [NATIVE, 'run', 'build', '--filter=a'],
    env: { ...env, __TURBO_NPM_WRAPPER: '1' },
    forward: ['SIGTERM', 'SIGHUP'],
  });
  // Anything not named turbo is not looked up; a turbo that is no launcher, or no command, is run as given.
  assert.equal(directTurboStart(['true'], root, env), undefined);
  assert.equal(directTurboStart([], root, env), undefined);
  assert.equal(directTurboStart([NATIVE, 'run', 'build'], root, env), undefined);
  // Another major version's launcher was not read: run as given.
  const three = tempWorkspace(t, {
    node_modules: {
      turbo: {
        'package.json': '{"name":"turbo","version":"3.0.0","bin":{"turbo":"./bin/turbo"}}\n',
        bin: { turbo: '#!/bin/sh\nexit 0\n' },
      },
    },
  });
  chmodSync(join(three, 'node_modules', 'turbo', 'bin', 'turbo'), 0o755);
  mkdirSync(join(three, 'node_modules', '.bin'));
  symlinkSync('../turbo/bin/turbo', join(three, 'node_modules', '.bin', 'turbo'));
  assert.equal(
    directTurboStart(['turbo', 'run', 'build'], three, {
      PATH: join(three, 'node_modules', '.bin'),
      TURBO_BINARY_PATH: NATIVE,
    }),
    undefined,
  );
});

test("a turbo launcher before 2.8.18 (2.0.14, 2.5.8) runs as given: it finds only turbo-<platform>-<arch> and starts it without the newer launcher's env marker and signal forwarding", () => {
  for (const pkg of ['turbo20', 'turbo25']) {
    const launcher = join(REPO, 'node_modules', pkg, 'bin', 'turbo');
    // 2.11's @turbo/<platform> package resolves from there too (hoisted): it must not be started in place of the older turbo.
    assert.ok(
      createRequire(launcher).resolve(
        `@turbo/${process.platform}-${process.arch === 'x64' ? '64' : process.arch}/bin/turbo`,
      ),
    );
    assert.equal(nativeOf(launcher, REPO, {}), undefined, pkg);
    assert.equal(directTurboStart([launcher, 'run', 'build'], REPO, {}), undefined, pkg);
  }
  assert.equal(nativeOf(LAUNCHER, REPO, {}), NATIVE, '2.11.11 still starts its binary directly');
});
