// npm's integration half: its command line, the package its version is read from, its frozen install and
// its refusal switches (none: nothing refuses before npm writes, its root scripts run after it; the npm hook
// committed as a root script is what reports).
//
// Owns: the `PackageManagerIntegration` of npm (adapter.ts), listed in registry.ts.
// Invariants: values only; reads the root package.json alone (is lockguard's hook one of its scripts).

import { join } from 'node:path';
import { readConfigText } from '../../../core/bounded-read.js';
import type { PackageManagerIntegration } from '../adapter.js';
import { NPM_COMMAND_LINE } from './command-line.js';
import { NPM_HOOKS } from './hooks.js';

function npmHookInstalled(root: string): boolean {
  try {
    const manifest = JSON.parse(readConfigText(join(root, 'package.json')) ?? '') as {
      scripts?: Record<string, unknown>;
    } | null;
    const scripts = manifest?.scripts ?? {};
    return ['prepare', 'preinstall', 'postinstall'].some(
      (name) => typeof scripts[name] === 'string' && /lockguard/.test(scripts[name] as string),
    );
  } catch {
    return false;
  }
}

export const npm: PackageManagerIntegration = {
  name: 'npm',
  commandLine: NPM_COMMAND_LINE,
  hooks: NPM_HOOKS,
  init: {
    prepareRuns: 'npm install and npm ci run the hook from now on',
    note: (npmScripts) =>
      npmScripts
        ? undefined
        : `This is an npm workspace: no pnpmfile to write.\n  lockguard init --npm-scripts adds lockguard's hook to the root prepare script.\n`,
  },
  frozenInstall: 'npm ci',
  refuseEnv: () => ({}),
  refuseGap: (table) => (npmHookInstalled(table.root) ? undefined : 'npm-no-hook'),
};
