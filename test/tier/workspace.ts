// One arm's workspace for the real-registry tier: the committed fixture copied into a temp folder and made a
// git repository, HOME with every package manager's store and cache pointed at the run's shared folder
// (shared.ts), the pinned package manager on PATH, lockguard's tarball beside the workspace, and a#build's
// script (which installs is-number 6.0.0 into b once, when armed).
//
// Owns: the temp folder's layout (`<base>/ws` the workspace, `home/`, `bin/`, `lockguard.tgz`,
// `a-build.cjs`, `armed`), the env every command gets, and the helpers the steps use (`sh`, `must`,
// `lockguard`, `out`, `git`).
// Invariants: writes only under its temp folder (removed when the test ends) and, through the tools, the
// shared stores; stores and caches are set in HOME's files, not in env, so turbo's strict env mode cannot
// hide them from the install a task runs (a second store would be a second, different install).

import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { isolatedEnv, NPM_BIN } from '../helpers/env.js';
import { BUN, PNPM10, PNPM12, REPO_ROOT, type Tool, YARN, YARN1 } from '../helpers/tools.js';
import { tempWorkspace } from '../helpers/workspace.js';
import type { Arm } from './arms.js';
import type { Shared } from './shared.js';

/** One command (an install, a turbo run) may take this long before it fails the arm. */
const STEP_TIMEOUT_MS = 240_000;

export interface TierWorkspace {
  readonly base: string;
  readonly root: string;
  readonly env: Record<string, string>;
  sh(argv: readonly string[], extraEnv?: Record<string, string>): SpawnSyncReturns<string>;
  /** sh, throwing with the output unless it exits 0. */
  must(argv: readonly string[], extraEnv?: Record<string, string>): SpawnSyncReturns<string>;
  /** The workspace's own lockguard (installed from the tarball). */
  lockguard(args: readonly string[], extraEnv?: Record<string, string>): SpawnSyncReturns<string>;
  /** A workspace bin (turbo): through `yarn` under PnP. */
  bin(argv: readonly string[], extraEnv?: Record<string, string>): SpawnSyncReturns<string>;
  git(...args: string[]): string;
  /** Make a#build's next real run install is-number 6.0.0 into b (or run `argv`, from the workspace root). */
  arm(argv?: readonly string[]): void;
  /** is-number's version as b's build saw it, or undefined when b has no output. */
  out(): string | undefined;
}

function homeFiles(shared: Shared): Record<string, string> {
  // A machine whose registry traffic passes a proxy with its own CA names it in NODE_EXTRA_CA_CERTS, which
  // turbo's strict env mode keeps from the install a task runs: yarn and bun read it from their files too.
  const ca = process.env['NODE_EXTRA_CA_CERTS'];
  return {
    '.config/pnpm/rc': `store-dir=${shared.pnpmStore}\ncache-dir=${shared.pnpmCache}\nprefer-offline=true\nupdate-notifier=false\n`,
    '.npmrc': `cache=${shared.npmCache}\nprefer-offline=true\naudit=false\nfund=false\nupdate-notifier=false\n`,
    '.yarnrc.yml': `enableGlobalCache: true\nglobalFolder: ${shared.yarnGlobal}\nenableTelemetry: false\n${ca === undefined ? '' : `httpsCaFilePath: ${ca}\n`}`,
    '.yarnrc': `cache-folder "${shared.yarn1Cache}"\n${ca === undefined ? '' : `cafile "${ca}"\n`}`,
    '.bunfig.toml': `[install]\n${ca === undefined ? '' : `cafile = "${ca}"\n`}\n[install.cache]\ndir = "${shared.bunCache}"\n`,
  };
}

/** The pinned tool on PATH under the name a team types (npm is on every PATH: env.ts NPM_BIN). */
const SHIMS: Readonly<Record<Arm['manager'], readonly [string, Tool] | undefined>> = {
  pnpm10: ['pnpm', PNPM10],
  pnpm12: ['pnpm', PNPM12],
  npm: undefined,
  yarn4: ['yarn', YARN],
  yarn1: ['yarn', YARN1],
  bun: ['bun', BUN],
};

function shims(bin: string, arm: Arm): void {
  mkdirSync(bin, { recursive: true });
  const shim = SHIMS[arm.manager];
  if (shim === undefined) return;
  const [name, tool] = shim;
  writeFileSync(
    join(bin, name),
    `#!/bin/sh\nexec ${[tool.command, ...tool.prefix].map((w) => `"${w}"`).join(' ')} "$@"\n`,
  );
  chmodSync(join(bin, name), 0o755);
}

function aBuild(arm: Arm): string {
  return `// a#build's install, once, when armed (the poisoning scenario): ${arm.addSix.join(' ')}
const fs = require('fs'), path = require('path'), cp = require('child_process');
const armed = path.join(__dirname, 'armed');
if (fs.existsSync(armed)) {
  const given = fs.readFileSync(armed, 'utf8');
  fs.unlinkSync(armed);
  const root = path.resolve(__dirname, 'ws');
  const [file, ...args] = given === '' ? ${JSON.stringify(arm.addSix)} : JSON.parse(given);
  cp.execFileSync(file, args, { stdio: 'inherit', cwd: root });
}
`;
}

/** The arm's fixture installed nowhere yet: copied, overlaid, committed as the first commit. */
export function tierWorkspace(t: Pick<TestContext, 'after'>, arm: Arm, shared: Shared): TierWorkspace {
  const base = tempWorkspace(t, {}, `lockguard-tier-${arm.id}-`);
  const root = join(base, 'ws');
  cpSync(join(REPO_ROOT, 'test', 'fixtures', 'registry', arm.fixture), root, { recursive: true });
  for (const [path, text] of Object.entries(arm.overlay)) writeFileSync(join(root, path), text);
  const home = join(base, 'home');
  const env = isolatedEnv(base, {
    home,
    settings: 'home',
    path: [join(root, 'node_modules', '.bin'), join(base, 'bin'), NPM_BIN],
    extra: {
      // nx as CI runs it: no daemon left behind, no terminal UI, plugins in-process (turbo arms ignore them).
      NX_DAEMON: 'false',
      NX_TUI: 'false',
      NX_ISOLATE_PLUGINS: 'false',
      GIT_AUTHOR_NAME: 'tier',
      GIT_AUTHOR_EMAIL: 'tier@example.invalid',
      GIT_COMMITTER_NAME: 'tier',
      GIT_COMMITTER_EMAIL: 'tier@example.invalid',
    },
  });
  for (const [path, text] of Object.entries(homeFiles(shared))) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  shims(join(base, 'bin'), arm);
  copyFileSync(shared.tarball, join(base, 'lockguard.tgz'));
  writeFileSync(join(base, 'a-build.cjs'), aBuild(arm));
  const sh = (argv: readonly string[], extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> => {
    const [command, ...args] = argv;
    return spawnSync(command ?? 'true', args, {
      cwd: root,
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
      timeout: STEP_TIMEOUT_MS,
    });
  };
  const must = (argv: readonly string[], extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> => {
    const result = sh(argv, extraEnv);
    if (result.status !== 0)
      throw new Error(
        `${argv.join(' ')} failed (${result.status ?? result.error?.message}):\n${result.stdout}\n${result.stderr}`,
      );
    return result;
  };
  const git = (...args: string[]): string => must(['git', ...args]).stdout;
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'the fixture');
  return {
    base,
    root,
    env,
    sh,
    must,
    lockguard: (args, extraEnv) => sh([...arm.exec, 'lockguard', ...args], extraEnv),
    bin: (argv, extraEnv) => sh([...arm.exec, ...argv], extraEnv),
    git,
    arm: (argv) => writeFileSync(join(base, 'armed'), argv === undefined ? '' : JSON.stringify(argv)),
    out() {
      try {
        const text = readFileSync(join(root, 'packages', 'b', 'dist', 'out.json'), 'utf8');
        return (JSON.parse(text) as { isNumber?: string }).isNumber;
      } catch {
        return undefined;
      }
    },
  };
}
