// Composing the lockguard plugin with a repository's own pnpmfile hooks.
//
// Owns: `withLockguard(userHooks)`: the user's hooks pass through; `updateConfig` and `afterAllResolved` are
// chained with lockguard's.
// Invariants: lockguard's updateConfig runs after the user's (so its freeze wins); lockguard's
// afterAllResolved runs first (a refusal needs no user work); sync hooks stay sync.

import { hooks as pluginHooks } from './hooks.js';
import type { PnpmConfig, PnpmfileHooks } from './plugin.js';

type Hook = (...args: never[]) => unknown;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function then<T>(value: T | PromiseLike<T>, next: (value: T) => unknown): unknown {
  return isThenable(value) ? Promise.resolve(value).then(next) : next(value as T);
}

/** A complete pnpmfile module: `module.exports = withLockguard({ readPackage(pkg) { ... } })`. */
export function withLockguard(
  userHooks: PnpmfileHooks = {},
  plugin: PnpmfileHooks = pluginHooks,
): { hooks: PnpmfileHooks } {
  const hooks: Record<string, unknown> = { ...userHooks };
  const ourConfig = plugin.updateConfig;
  const theirConfig = userHooks.updateConfig;
  if (ourConfig !== undefined) {
    hooks['updateConfig'] =
      theirConfig === undefined
        ? ourConfig
        : (config: PnpmConfig): unknown => then(theirConfig(config), (next) => ourConfig(next as PnpmConfig));
  }
  const ourResolved = plugin.afterAllResolved;
  const theirResolved = userHooks.afterAllResolved as Hook | undefined;
  if (ourResolved !== undefined) {
    hooks['afterAllResolved'] =
      theirResolved === undefined
        ? ourResolved
        : (lockfile: unknown, context: unknown): unknown =>
            then(ourResolved(lockfile, context), () =>
              (theirResolved as (l: unknown, c: unknown) => unknown)(lockfile, context),
            );
  }
  return { hooks: hooks as PnpmfileHooks };
}
