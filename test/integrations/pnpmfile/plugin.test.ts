import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createHooks, type PluginContext } from '../../../lib/integrations/pnpmfile/plugin.js';
import { liveRun } from '../../helpers/hooks.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

/** `pnpmMajor` null: hooks in a helper process (pnpm 12), where no in-process pnpm version is known. */
function context(
  cwd: string,
  argv: readonly string[] | undefined,
  pnpmMajor: number | null = 10,
  env: Record<string, string> = {},
): PluginContext {
  return { cwd, env, argv: () => argv, pid: 4242, pnpmMajor: () => pnpmMajor ?? undefined };
}

test('outside a run: only updateConfig, which returns the very config object, unchanged, and writes nothing', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  let argvRead = false;
  const hooks = createHooks({ ...context(root, ['add', 'x']), argv: () => ((argvRead = true), ['add', 'x']) });
  assert.deepEqual(Object.keys(hooks), ['updateConfig']);
  const config = { lockfileDir: root, frozenLockfile: false };
  assert.equal(hooks.updateConfig?.(config), config);
  assert.deepEqual(config, { lockfileDir: root, frozenLockfile: false });
  assert.equal(existsSync(join(root, '.lockguard')), false);
  // pnpm's command line is not even looked at (pnpm 12 would pay a /proc read for it).
  assert.equal(argvRead, false);
});

test('a flag run hears about every command and its config comes back untouched', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  mkdirSync(join(root, 'packages', 'b'), { recursive: true });
  const run = liveRun(t, root, 'flag');
  // Loaded in a package folder: the root is found by walking up.
  const hooks = createHooks(context(join(root, 'packages', 'b'), ['--filter', 'b', 'add', 'x']));
  assert.deepEqual(Object.keys(hooks), ['updateConfig']);
  const config = { lockfileDir: root };
  assert.equal(hooks.updateConfig?.(config), config);
  assert.deepEqual(config, { lockfileDir: root });
  assert.deepEqual(
    run.hookEvents().map(({ t: _t, ...event }) => event),
    [{ type: 'hook', source: 'pnpmfile', hook: 'updateConfig', command: 'add', pid: 4242 }],
  );
});

test('the root comes from the config pnpm passes when the cwd is outside the workspace', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const elsewhere = tempWorkspace(t, {});
  const run = liveRun(t, root, 'withhold');
  const hooks = createHooks(context(elsewhere, ['install']));
  for (const key of ['lockfileDir', 'workspaceDir', 'dir']) hooks.updateConfig?.({ [key]: root });
  assert.equal(run.hookEvents().length, 3);
});

test('refuse: install and run are frozen, add is refused before it starts, afterAllResolved is a net in pnpm <= 10 only', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const run = liveRun(t, root, 'refuse');
  {
    // install: frozen, verifyDepsBeforeRun=error, reported as refused (armed).
    const hooks = createHooks(context(root, ['install']));
    const config: Record<string, unknown> = {
      lockfileDir: root,
      frozenLockfile: false,
      verifyDepsBeforeRun: 'install',
    };
    const out = hooks.updateConfig?.(config) as Record<string, unknown>;
    assert.equal(out['frozenLockfile'], true);
    assert.equal(out['verifyDepsBeforeRun'], 'error');
  }
  {
    // add: refused with ERR_LOCKGUARD_REFUSED, naming the root.
    const hooks = createHooks(context(root, ['--filter', 'b', 'add', 'x']));
    assert.throws(() => hooks.updateConfig?.({ lockfileDir: root }), { code: 'ERR_LOCKGUARD_REFUSED', path: root });
  }
  {
    // afterAllResolved: registered for an in-process pnpm 10, and wherever the command is unknown; not for a
    // named command in pnpm 12's helpers or pnpm 11 (updateConfig covers those).
    assert.equal(typeof createHooks(context(root, ['install'], 10)).afterAllResolved, 'function');
    assert.equal(typeof createHooks(context(root, undefined, null)).afterAllResolved, 'function');
    assert.equal(createHooks(context(root, ['install'], null)).afterAllResolved, undefined);
    assert.equal(createHooks(context(root, ['install'], 11)).afterAllResolved, undefined);
    const hooks = createHooks(context(root, undefined, 9));
    assert.throws(() => hooks.afterAllResolved?.({}, {}), { code: 'ERR_LOCKGUARD_REFUSED' });
  }
  const events = run.hookEvents().map((event) => [event['hook'], event['command'] ?? null, event['refused']]);
  assert.deepEqual(events, [
    ['updateConfig', 'install', true],
    ['updateConfig', 'add', true],
    ['afterAllResolved', null, true],
  ]);
});

test('a withhold run alongside a refusing one: both hear, the refusal applies', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const refusing = liveRun(t, root, 'refuse');
  const other = liveRun(t, root, 'withhold');
  const hooks = createHooks(context(root, ['update']));
  assert.throws(() => hooks.updateConfig?.({ lockfileDir: root }), { code: 'ERR_LOCKGUARD_REFUSED' });
  assert.equal(refusing.hookEvents().length, 1);
  assert.equal(other.hookEvents()[0]?.['refused'], true);
});

test('garbage under .lockguard/live is no run: a torn marker, a dead pid, or live/ being a file', (t) => {
  {
    // A torn marker and one whose process is gone: ignored, config untouched, nothing thrown.
    const root = tempWorkspace(t, {
      ...pnpmTree(),
      '.lockguard': {
        live: {
          torn: '{"dir": "/x", "id"',
          dead: JSON.stringify({ dir: '/nowhere', id: 'dead', pid: 2 ** 22 + 1, pidStart: 1, policy: 'refuse' }),
        },
      },
    });
    const hooks = createHooks(context(root, ['add', 'x']));
    assert.deepEqual(Object.keys(hooks), ['updateConfig']);
    const config = { lockfileDir: root };
    assert.equal(hooks.updateConfig?.(config), config);
  }
  {
    // live/ is a file.
    const root = tempWorkspace(t, { ...pnpmTree(), '.lockguard': { live: 'not a folder' } });
    const config = { lockfileDir: root };
    assert.equal(createHooks(context(root, ['add', 'x'])).updateConfig?.(config), config);
  }
});
