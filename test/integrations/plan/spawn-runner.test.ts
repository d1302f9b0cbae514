// The runner dry runs lockguard starts for itself (plan, doctor's sound-keys proof) are bounded: a runner
// that hangs is killed with every process it started after LOCKGUARD_DRY_RUN_TIMEOUT, the line says it
// timed out and what to do, and no process of it is left; a failed dry run is summarised by its real cause,
// not by turbo's telemetry notice. The hanging runner is a real process (a shell script on PATH that starts
// a sleeping child and sleeps): it stands in for a hang, not for a runner's logic.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { causeLine } from '../../../lib/integrations/plan/spawn-runner.js';
import { cliProcess } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const TURBO = '{ "tasks": { "build": { "outputs": ["dist/**"] } } }\n';

/** A workspace whose node_modules/.bin/turbo (first on the dry run's PATH) is `script`. */
function withFakeTurbo(t: Parameters<typeof tempWorkspace>[0], script: string): string {
  const root = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': TURBO });
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  const bin = join(root, 'node_modules', '.bin', 'turbo');
  writeFileSync(bin, script);
  chmodSync(bin, 0o755);
  return root;
}

/** Alive: its /proc entry is there and it is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(stat, 'utf8'));
  } catch {
    return false;
  }
}

const HANGS = `#!/bin/sh
sleep 1000 &
echo $! > "$PIDS_DIR/grandchild"
echo $$ > "$PIDS_DIR/child"
sleep 1000
`;

for (const argv of [['plan', '--', 'turbo', 'run', 'build'], ['doctor']] as const) {
  test(`lockguard ${argv[0]}: a runner dry run that hangs is killed with its whole process group after the timeout, and says so`, (t) => {
    const root = withFakeTurbo(t, HANGS);
    const pids = join(root, 'pids');
    mkdirSync(pids);
    const result = cliProcess([...argv], root, scrubbedEnv({ LOCKGUARD_DRY_RUN_TIMEOUT: '1', PIDS_DIR: pids }), 30_000);
    assert.equal(result.signal, null, 'lockguard finished on its own');
    assert.match(`${result.stdout}${result.stderr}`, /timed out after 1 s/);
    assert.match(`${result.stdout}${result.stderr}`, /LOCKGUARD_DRY_RUN_TIMEOUT/);
    if (argv[0] === 'plan') assert.equal(result.code, 2, result.stderr);
    for (const name of ['child', 'grandchild']) {
      const pid = Number(readFileSync(join(pids, name), 'utf8'));
      assert.ok(pid > 0);
      assert.equal(alive(pid), false, `the runner's ${name} (${pid}) is gone`);
    }
  });
}

test('a failed dry run is summarised by its real cause, not by the telemetry notice turbo prints first', (t) => {
  const root = withFakeTurbo(
    t,
    `#!/bin/sh
echo "Attention:" >&2
echo "Turborepo now collects completely anonymous telemetry regarding usage." >&2
echo "This information is used to shape the Turborepo roadmap and prioritize features." >&2
echo "https://turborepo.com/docs/telemetry" >&2
echo "  x Could not resolve workspaces." >&2
echo "  -> Missing packageManager field in package.json" >&2
exit 1
`,
  );
  const result = cliProcess(['plan', '--', 'turbo', 'run', 'build'], root);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /exited with 1: x Could not resolve workspaces/);
  assert.doesNotMatch(result.stderr, /telemetry/);
});

test('causeLine: the first line that looks like an error, else the first that is no notice', () => {
  assert.equal(causeLine('WARNING something\nplain line\nError: boom\n'), 'Error: boom');
  assert.equal(causeLine('Attention:\nTurborepo now collects x\nonly this\n'), 'only this');
  assert.equal(causeLine('\n\n'), '');
});

test('LOCKGUARD_DRY_RUN_TIMEOUT that is not a number of seconds is a setting error naming it', (t) => {
  const root = withFakeTurbo(t, '#!/bin/sh\nexit 0\n');
  const result = cliProcess(
    ['plan', '--', 'turbo', 'run', 'build'],
    root,
    scrubbedEnv({ LOCKGUARD_DRY_RUN_TIMEOUT: 'soon' }),
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /Expected LOCKGUARD_DRY_RUN_TIMEOUT to be a number of seconds/);
});
