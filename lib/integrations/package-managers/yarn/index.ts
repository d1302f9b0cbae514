// yarn's integration half (berry and v1): its command line, the packages its version is read from, its
// frozen install and its refusal switches.
//
// Owns: the `PackageManagerIntegration` of yarn (adapter.ts), listed in registry.ts. Measured:
// - yarn berry (4.18.1): `YARN_ENABLE_IMMUTABLE_INSTALLS=true` stops `yarn install` (and bare `yarn`) when
//   the lockfile would change (YN0028, rc 1, nothing written), but `add`, `remove`, `up` ignore it (rc 0,
//   yarn.lock rewritten). `YARN_PLUGINS=<lockguard's plugin>` (appended to the user's own, `;`-separated;
//   the .yarnrc.yml plugins still load) refuses every other install-running command in the plugin's
//   `validateProject` hook, before anything is written.
// - yarn v1 (1.22.22): nothing holds: no setting stops `add`, and `--frozen-lockfile` (a flag or .yarnrc
//   only, no env) lets a workspace install change node_modules without failing.
// Invariants: values only; never removes a plugin the user listed.

import { yarnFlavor } from '../../../core/package-managers/yarn/flavor.js';
import type { PackageManagerIntegration } from '../adapter.js';
import { YARN_COMMAND_LINE } from './command-line.js';
import { YARN_HOOKS, yarnClassic } from './hooks.js';
import { yarnPluginPath } from './plugin-path.js';

export const yarn: PackageManagerIntegration = {
  name: 'yarn',
  commandLine: YARN_COMMAND_LINE,
  hooks: YARN_HOOKS,
  init: {
    hook: 'yarn-plugin',
    prepareRuns:
      'yarn install runs the hook from now on (yarn workspace <name> add does not: lockguard run catches it)',
    // The sentence for the yarn this workspace's lockfile is of (berry's said "yarn v1 has no plugins" too).
    note: (npmScripts, root) =>
      yarnClassic(root)
        ? `This is a yarn v1 workspace: no hook file to write.\n  yarn v1 has no plugins: ${npmScripts ? 'the root prepare hook reports its installs to a guarded run, and ' : ''}installs inside a run are caught by the table (file events and the final check).\n`
        : `This is a yarn workspace: no hook file to write.\n  A refusing run (lockguard run --policy refuse) hands yarn lockguard's plugin and YARN_ENABLE_IMMUTABLE_INSTALLS through the environment, so no file goes into the repository and a fresh clone needs nothing.\n`,
  },
  frozenInstall: 'yarn install --frozen-lockfile',
  refuseEnv(env, options) {
    const out: Record<string, string> = { YARN_ENABLE_IMMUTABLE_INSTALLS: 'true' };
    const plugin = 'yarnPlugin' in options ? options.yarnPlugin : yarnPluginPath();
    if (plugin !== undefined) {
      const own = env['YARN_PLUGINS'];
      const listed = own === undefined || own === '' ? [] : own.split(';');
      out['YARN_PLUGINS'] = listed.includes(plugin) ? (own as string) : [...listed, plugin].join(';');
    }
    return out;
  },
  refuseGap(table, env) {
    // yarn 1's lockfile starts with its comment header; berry's has `__metadata:`.
    const lock = table.files.get('yarn.lock');
    const classic = lock !== undefined && yarnFlavor(lock) === 'classic';
    return env['YARN_PLUGINS'] === undefined || classic ? 'yarn-classic' : 'yarn-strict-env';
  },
};
