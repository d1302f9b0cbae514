import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withLockguard } from '../../../lib/integrations/pnpmfile/compose.js';
import type { PnpmConfig, PnpmfileHooks } from '../../../lib/integrations/pnpmfile/plugin.js';

const order: string[] = [];
const plugin: PnpmfileHooks = {
  updateConfig(config: PnpmConfig) {
    order.push('lockguard.updateConfig');
    return { ...config, frozenLockfile: true };
  },
  afterAllResolved(lockfile: unknown) {
    order.push('lockguard.afterAllResolved');
    return lockfile;
  },
};

test("withLockguard chains updateConfig (the user's first, lockguard's freeze last) and keeps other hooks", () => {
  order.length = 0;
  const readPackage = (pkg: unknown): unknown => pkg;
  const { hooks } = withLockguard(
    {
      readPackage,
      updateConfig(config: PnpmConfig) {
        order.push('user.updateConfig');
        return { ...config, frozenLockfile: false, mine: 1 };
      },
    },
    plugin,
  );
  assert.equal(hooks['readPackage'], readPackage);
  assert.deepEqual(hooks.updateConfig?.({}), { frozenLockfile: true, mine: 1 });
  assert.deepEqual(order, ['user.updateConfig', 'lockguard.updateConfig']);
});

test("withLockguard waits for an async user updateConfig, and runs lockguard's afterAllResolved first", async () => {
  order.length = 0;
  const { hooks } = withLockguard(
    {
      updateConfig: async (config: PnpmConfig) => ({ ...config, mine: 2 }),
      afterAllResolved(lockfile: unknown) {
        order.push('user.afterAllResolved');
        return { ...(lockfile as object), seen: true };
      },
    },
    plugin,
  );
  assert.deepEqual(await hooks.updateConfig?.({}), { mine: 2, frozenLockfile: true });
  assert.deepEqual(hooks.afterAllResolved?.({ a: 1 }, {}), { a: 1, seen: true });
  assert.deepEqual(order, ['lockguard.updateConfig', 'lockguard.afterAllResolved', 'user.afterAllResolved']);
});

test("withLockguard without user hooks is lockguard's hooks; without lockguard's afterAllResolved the user's stays as is", () => {
  const { hooks } = withLockguard(undefined, plugin);
  assert.equal(hooks.updateConfig, plugin.updateConfig);
  const afterAllResolved = (lockfile: unknown): unknown => lockfile;
  const composed = withLockguard({ afterAllResolved }, { updateConfig: (config: PnpmConfig) => config });
  assert.equal(composed.hooks.afterAllResolved, afterAllResolved);
});
