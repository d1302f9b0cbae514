// `lockguard hook`: for an npm root `prepare` script (or an earlier init's preinstall/postinstall). Reports to live guarded runs; exits 0
// at once outside a run; under `refuse`, fails `npm install` when it has rewritten the lockfile.

import { resolve } from 'node:path';
import { npmLifecycleHook, writesSliceFilesNow } from '../../integrations/npm/hook.js';
import { writeSliceFilesAfterInstall } from '../../integrations/slice-files/after-install.js';
import { parse, stringValue } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { paint, type Io } from '../io.js';
import type { Command } from '../command.js';

const help = `Usage: lockguard hook [options]

For the root package.json of an npm workspace. lockguard init --npm-scripts adds the same thing in a form
that is a no-op where lockguard is not installed (npm ci --omit=dev, a checkout before its first install):
  "prepare": "node -e "try{require.resolve('lockguard/npm-hook')}catch(e){process.exit(0)}require('lockguard/npm-hook')""

Inside a guarded run (lockguard run), tells the run that an npm command ran its install scripts
(npm_command and npm_lifecycle_event say which), so it re-checks the lockfile at once. Outside a run it
does nothing and exits 0. After "npm install" and "npm ci", after any pnpm install (prepare; pnpm 12's
pnpmfile cannot see an install end, its root prepare runs after one), and after bun's and yarn 1's installs
(their root prepare), where the workspace uses per-project slice files (.lockguard-slice: lockguard init
--sound-keys), writes them; a problem writing one is a warning, never a failed install.

Under --policy refuse: npm runs the root's install scripts only after it wrote package-lock.json and
node_modules, so nothing can stop it before; when "npm install" has rewritten the lockfile, this exits 1 so
the npm command fails right away (and whatever was chained after it does not run). "npm install <pkg>",
"npm update", "npm uninstall" and "npm dedupe" run no root scripts at all: the run's own checks catch them.

Options:
  -C, --dir <path>     the workspace root (default: the current folder, where npm runs root scripts)
  -h, --help           this text
`;

export const command: Command = {
  help,
  async run(argv, io: Io) {
    const parsed = parse('hook', argv, { dir: { type: 'string', short: 'C' } });
    const root = resolve(io.cwd, stringValue(parsed, 'dir') ?? '.');
    const outcome = npmLifecycleHook(root, io.env, process.pid);
    // After npm install / npm ci, or a pnpm install (postinstall: the lockfile and node_modules are written):
    // the per-project slice files, where the workspace uses them. A problem is a warning: the install never fails for it.
    if (writesSliceFilesNow(io.env)) {
      const warning = writeSliceFilesAfterInstall(root);
      if (warning !== undefined) io.stderr.write(`${paint(io, io.stderr, 'yellow', warning)}\n`);
    }
    if (outcome.refusedFor.length === 0) return EXIT.ok;
    const files = outcome.refusedFor.join(', ');
    io.stderr.write(
      `${paint(io, io.stderr, 'red', 'lockguard:')} "npm ${io.env['npm_command'] ?? 'install'}" rewrote ${files} during a guarded run under the refuse policy.\n` +
        '  npm writes the lockfile before it runs root scripts, so it could not be stopped earlier; the run will fail.\n' +
        '  Run the install before or after the guarded run, or guard it with --policy withhold.\n',
    );
    return EXIT.moved;
  },
};
