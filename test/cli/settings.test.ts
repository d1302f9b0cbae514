// A team's settings in the root package.json's "lockguard" field: used by run and snapshot, overridden by the
// environment, then by flags; a bad field is exit 2 naming the file, the key and the values it takes.

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../lib/cli/exit-codes.js';
import { cli } from '../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

function withField(root: string, field: unknown): void {
  writeFileSync(join(root, 'package.json'), `${JSON.stringify({ name: 'root', private: true, lockguard: field })}\n`);
}

async function policyOfRun(root: string, argv: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const run = await cli(['run', ...argv, '--', process.execPath, '-e', '0'], root, env);
  assert.equal(run.code, EXIT.ok, run.stderr);
  const status = await cli(['status', '--json'], root, env);
  assert.equal(status.code, EXIT.ok, status.stderr);
  return (JSON.parse(status.stdout) as { policy: string }).policy;
}

test('run: the flag, then $LOCKGUARD_POLICY, then package.json, then the default', async (t) => {
  // Nothing is installed here: "preCheck": false lets the run start (the next test proves that part).
  const root = tempWorkspace(t, pnpmTree());
  withField(root, { preCheck: false });
  assert.equal(await policyOfRun(root, []), 'withhold', 'no policy in the field: the default');
  withField(root, { preCheck: false, policy: 'flag' });
  assert.equal(await policyOfRun(root, []), 'flag', 'the field');
  assert.equal(await policyOfRun(root, [], { LOCKGUARD_POLICY: 'refuse' }), 'refuse', 'the environment over the field');
  assert.equal(
    await policyOfRun(root, ['--policy', 'withhold'], { LOCKGUARD_POLICY: 'refuse' }),
    'withhold',
    'the flag over both',
  );
});

test('"preCheck": false skips the pre-run check as --no-pre-check does; true leaves the flag deciding', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const run = (argv: readonly string[] = []) => cli(['run', ...argv, '--', process.execPath, '-e', '0'], root);
  assert.equal((await run()).code, EXIT.preCheck, 'no field: the check runs (and refuses: nothing is installed)');
  withField(root, { preCheck: false });
  assert.equal((await run()).code, EXIT.ok);
  withField(root, { preCheck: true });
  assert.equal((await run()).code, EXIT.preCheck);
  assert.equal((await run(['--no-pre-check'])).code, EXIT.ok);
});

test('snapshot takes its scope from the field unless --scope says otherwise', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  withField(root, { scope: 'full' });
  const fromField = await cli(['snapshot', '--json'], root);
  assert.equal(fromField.code, EXIT.ok, fromField.stderr);
  assert.equal((JSON.parse(fromField.stdout) as { scope: string }).scope, 'full');
  const fromFlag = await cli(['snapshot', '--json', '--scope', 'inputs'], root);
  assert.equal((JSON.parse(fromFlag.stdout) as { scope: string }).scope, 'inputs');
});

test('a bad field is exit 2 naming package.json, the key and what it takes; nothing runs', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const marker = join(root, 'ran');
  const cases: [unknown, RegExp, RegExp][] = [
    ['refuse', /has a "lockguard" field that is not an object/, /Write it as/],
    [{ polcy: 'refuse' }, /unknown key "lockguard\.polcy"/, /Did you mean "policy"\?/],
    [{ policy: 'block' }, /sets "lockguard\.policy" to a value it does not take/, /"flag", "withhold", "refuse"/],
    [{ preCheck: 'no' }, /"lockguard\.preCheck"/, /true, false/],
  ];
  for (const [field, message, hint] of cases) {
    withField(root, field);
    const run = await cli(
      ['run', '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`],
      root,
    );
    assert.equal(run.code, EXIT.usage, JSON.stringify(field));
    assert.match(run.stderr, new RegExp(`${join(root, 'package.json').replaceAll('/', '\\/')} `));
    assert.match(run.stderr, message);
    assert.match(run.stderr, hint);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.equal(existsSync(marker), false, 'the command never ran');
});

test('doctor shows each setting and where it came from; a bad field fails its check with the fix', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  withField(root, { policy: 'refuse', preCheck: false });
  const doctor = await cli(['doctor', '--json'], root, { LOCKGUARD_REMOTE: 'off' });
  const settings = (JSON.parse(doctor.stdout) as { check: string; level: string; detail: string; fix?: string }[]).find(
    (check) => check.check === 'settings',
  );
  assert.equal(settings?.level, 'ok');
  assert.equal(
    settings?.detail,
    'policy refuse (package.json), failOnMove auto (default), remote off (environment), preCheck false (package.json), scope inputs (default), keepRuns 100 (default)',
  );
  withField(root, { polcy: 'refuse' });
  const bad = await cli(['doctor', '--json'], root);
  assert.equal(bad.code, EXIT.moved, 'a failing check fails doctor');
  const failed = (JSON.parse(bad.stdout) as { check: string; level: string; detail: string; fix?: string }[]).find(
    (check) => check.check === 'settings',
  );
  assert.equal(failed?.level, 'fail');
  assert.match(failed?.detail ?? '', /unknown key "lockguard\.polcy"/);
  assert.match(failed?.fix ?? '', /Did you mean "policy"/);
});
