// The arms of the real-registry tier: one package manager and linker each, over the workspace committed under
// test/fixtures/registry/<fixture>/ (its lockfile generated once with the real tool from the npm registry,
// every version pinned exactly), with turbo as the runner (nx on one arm: pnpm10-nx; Lerna on one: pnpm10-lerna).
//
// Owns: per arm, the fixture folder, the files laid over it (the linker's setting), the tool on
// PATH, the runner's command, and the commands a team types: install, frozen install, the hooks the README names, remove
// lockguard, and the install a#build runs in the poisoning scenario (is-number 6.0.0 into b).
// Invariants: data only; every argv starts with a tool on the arm's PATH (the pinned devDependencies, shimmed
// by workspace.ts) or a bin of the workspace (through `exec` where the linker leaves no node_modules/.bin).

export type ArmId =
  | 'pnpm10-isolated'
  | 'pnpm10-hoisted'
  | 'pnpm10-nx'
  | 'pnpm10-lerna'
  | 'pnpm12-isolated'
  | 'pnpm12-hoisted'
  | 'npm'
  | 'yarn4-node-modules'
  | 'yarn4-pnp'
  | 'yarn1'
  | 'bun-isolated'
  | 'bun-hoisted';

/** The pinned package manager an arm puts on PATH (as `pnpm`, `yarn` or `bun`; npm is always there). */
export type Manager = 'pnpm10' | 'pnpm12' | 'npm' | 'yarn4' | 'yarn1' | 'bun';

export interface Arm {
  readonly id: ArmId;
  /** The folder under test/fixtures/registry/. */
  readonly fixture: string;
  /** Files written over the fixture's (whole): the linker's setting. */
  readonly overlay: Readonly<Record<string, string>>;
  readonly manager: Manager;
  readonly lockfile: string;
  /** Before a workspace bin (lockguard, turbo): `yarn` under PnP, nothing where node_modules/.bin is on PATH. */
  readonly exec: readonly string[];
  /** The runner's build over the whole graph, as a team types it (a workspace bin). */
  readonly run: readonly string[];
  /** lockguard's arguments that set up this package manager's hooks. */
  readonly init: readonly string[];
  /** Commands the README names after `init` (yarn berry's plugin import). */
  readonly hooks: readonly (readonly string[])[];
  /** The install after lockguard is added to package.json, and the one `init` asks for. */
  readonly install: readonly string[];
  readonly frozen: readonly string[];
  /** Remove lockguard (the README's way out, after the hooks). */
  readonly remove: readonly string[];
  /** a#build's install when armed, run at the workspace root: is-number 6.0.0 into b. */
  readonly addSix: readonly string[];
  /** Files the README's way out deletes before `remove` (the hooks `init` wrote). */
  readonly hookFiles: readonly string[];
  /**
   * The registry phantom dependency this arm proves (issue 29; phantom.ts): a's debug 3.2.7 requires
   * supports-color without declaring it, and resolves the one another project installs (b's, or under yarn
   * PnP's fallback the root's). `bump` installs supports-color 6.1.0 there (at the root); `manifest` is the
   * package.json it edits.
   */
  readonly phantom?: { readonly bump: readonly string[]; readonly manifest: string };
}

type Family = Omit<Arm, 'id' | 'overlay' | 'run'>;

const TURBO = ['turbo', 'run', 'build'];
/** nx 24.0.6, as CI runs it: no daemon, no terminal UI (workspace.ts sets NX_DAEMON and NX_TUI). */
const NX = ['nx', 'run-many', '-t', 'build', '--output-style=static'];
/** Lerna 9.0.7 (the newest on Node 20), whose `lerna run` is its own nx 22's task runner (not the root's: pnpm). */
const LERNA = ['lerna', 'run', 'build'];

const pnpm = (manager: 'pnpm10' | 'pnpm12'): Family => ({
  fixture: manager,
  manager,
  lockfile: 'pnpm-lock.yaml',
  exec: [],
  init: ['init'],
  hooks: [],
  install: ['pnpm', 'install'],
  frozen: ['pnpm', 'install', '--frozen-lockfile'],
  remove: ['pnpm', 'remove', '-w', 'lockguard'],
  addSix: ['pnpm', '--filter', 'b', 'add', 'is-number@6.0.0'],
  hookFiles: ['.pnpmfile.cjs'],
});

const PNPM12_HOISTED = 'packages:\n  - packages/*\nallowBuilds:\n  esbuild: true\nnodeLinker: hoisted\n';

/** yarn berry's plugin import as the README gives it for node-modules; tier.ts takes the path init prints. */
export const YARN_PLUGIN = ['yarn', 'plugin', 'import', './node_modules/lockguard/dist/yarn-plugin.cjs'];

const yarn4: Family = {
  fixture: 'yarn4',
  manager: 'yarn4',
  lockfile: 'yarn.lock',
  exec: [],
  init: ['init'],
  hooks: [YARN_PLUGIN],
  install: ['yarn', 'install'],
  frozen: ['yarn', 'install', '--immutable'],
  remove: ['yarn', 'remove', 'lockguard'],
  addSix: ['yarn', 'workspace', 'b', 'add', 'is-number@6.0.0'],
  hookFiles: [],
};

/** yarn: supports-color is the root's dependency (the pool PnP's fallback serves; node-modules hoists it). */
const YARN_PHANTOM = { bump: ['yarn', 'add', 'supports-color@6.1.0'], manifest: 'package.json' };

const bun: Family = {
  fixture: 'bun',
  manager: 'bun',
  lockfile: 'bun.lock',
  exec: [],
  init: ['init'],
  hooks: [],
  install: ['bun', 'install'],
  frozen: ['bun', 'install', '--frozen-lockfile'],
  remove: ['bun', 'remove', 'lockguard'],
  addSix: ['bun', 'add', '--cwd', 'packages/b', 'is-number@6.0.0'],
  hookFiles: [],
};

export const ARMS: Readonly<Record<ArmId, Arm>> = {
  'pnpm10-isolated': {
    ...pnpm('pnpm10'),
    id: 'pnpm10-isolated',
    overlay: {},
    run: TURBO,
    phantom: { bump: ['pnpm', '--filter', 'b', 'add', 'supports-color@6.1.0'], manifest: 'packages/b/package.json' },
  },
  'pnpm10-hoisted': {
    ...pnpm('pnpm10'),
    id: 'pnpm10-hoisted',
    overlay: { '.npmrc': 'node-linker=hoisted\n' },
    run: TURBO,
  },
  'pnpm10-nx': { ...pnpm('pnpm10'), id: 'pnpm10-nx', fixture: 'pnpm10-nx', overlay: {}, run: NX },
  'pnpm10-lerna': { ...pnpm('pnpm10'), id: 'pnpm10-lerna', fixture: 'pnpm10-lerna', overlay: {}, run: LERNA },
  'pnpm12-isolated': { ...pnpm('pnpm12'), id: 'pnpm12-isolated', overlay: {}, run: TURBO },
  'pnpm12-hoisted': {
    ...pnpm('pnpm12'),
    id: 'pnpm12-hoisted',
    overlay: { 'pnpm-workspace.yaml': PNPM12_HOISTED },
    run: TURBO,
  },
  npm: {
    id: 'npm',
    run: TURBO,
    fixture: 'npm',
    overlay: {},
    manager: 'npm',
    lockfile: 'package-lock.json',
    exec: [],
    init: ['init', '--npm-scripts'],
    hooks: [],
    install: ['npm', 'install'],
    frozen: ['npm', 'ci'],
    remove: ['npm', 'uninstall', 'lockguard'],
    addSix: ['npm', 'install', '-w', 'b', 'is-number@6.0.0'],
    hookFiles: [],
  },
  'yarn4-node-modules': { ...yarn4, id: 'yarn4-node-modules', overlay: {}, run: TURBO, phantom: YARN_PHANTOM },
  'yarn4-pnp': {
    ...yarn4,
    phantom: YARN_PHANTOM,
    id: 'yarn4-pnp',
    overlay: { '.yarnrc.yml': 'nodeLinker: pnp\n' },
    exec: ['yarn'],
    run: TURBO,
  },
  yarn1: {
    id: 'yarn1',
    run: TURBO,
    fixture: 'yarn1',
    overlay: {},
    manager: 'yarn1',
    lockfile: 'yarn.lock',
    exec: [],
    init: ['init'],
    hooks: [],
    install: ['yarn', 'install'],
    frozen: ['yarn', 'install', '--frozen-lockfile'],
    remove: ['yarn', 'remove', '-W', 'lockguard'],
    addSix: ['yarn', 'workspace', 'b', 'add', 'is-number@6.0.0'],
    hookFiles: [],
  },
  'bun-isolated': {
    ...bun,
    id: 'bun-isolated',
    overlay: { 'bunfig.toml': '[install]\nlinker = "isolated"\n' },
    run: TURBO,
  },
  'bun-hoisted': {
    ...bun,
    id: 'bun-hoisted',
    overlay: { 'bunfig.toml': '[install]\nlinker = "hoisted"\n' },
    run: TURBO,
  },
};
