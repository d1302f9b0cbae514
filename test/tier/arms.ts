// The arms of the real-registry tier: one package manager and linker each, over the workspace committed under
// test/fixtures/registry/<fixture>/ (its lockfile generated once with the real tool from the npm registry,
// every version pinned exactly), with turbo as the runner.
//
// Owns: per arm, the fixture folder, the files laid over it (the linker's setting), the tools on PATH, and
// the commands a team types: add lockguard from its tarball, install, frozen install, remove lockguard, and
// the install a#build runs in the poisoning scenario (is-number 6.0.0 into b).
// Invariants: data only; every argv starts with a tool on the arm's PATH (the pinned devDependencies, shimmed
// by tier.ts) or a bin of the workspace.

/** An arm's id: `<package manager>-<linker>`. */
export type ArmId = 'pnpm10-isolated';

export interface Arm {
  readonly id: ArmId;
  /** The folder under test/fixtures/registry/. */
  readonly fixture: string;
  /** Files written over the fixture (the linker's setting), relative to the workspace root. */
  readonly overlay: Readonly<Record<string, string>>;
  /** The package manager's shim on PATH. */
  readonly manager: 'pnpm10';
  readonly lockfile: string;
  /** Add lockguard as a root devDependency from its tarball (`{tarball}`: its path relative to the root). */
  readonly add: readonly string[];
  /** lockguard's arguments that set up this package manager's hooks. */
  readonly init: readonly string[];
  /** The install `init` asks for. */
  readonly install: readonly string[];
  readonly frozen: readonly string[];
  /** Remove lockguard (the README's way out, after the hooks). */
  readonly remove: readonly string[];
  /** a#build's install when armed (run in packages/a): is-number 6.0.0 into b. */
  readonly addSix: readonly string[];
  /** Files the README's way out deletes before `remove` (the hooks `init` wrote). */
  readonly hookFiles: readonly string[];
}

const PNPM10: Omit<Arm, 'id' | 'overlay'> = {
  fixture: 'pnpm10',
  manager: 'pnpm10',
  lockfile: 'pnpm-lock.yaml',
  add: ['pnpm', 'add', '-D', '-w', 'lockguard@file:{tarball}'],
  init: ['init'],
  install: ['pnpm', 'install'],
  frozen: ['pnpm', 'install', '--frozen-lockfile'],
  remove: ['pnpm', 'remove', '-w', 'lockguard'],
  addSix: ['pnpm', '--filter', 'b', 'add', 'is-number@6.0.0'],
  hookFiles: ['.pnpmfile.cjs'],
};

export const ARMS: Readonly<Record<ArmId, Arm>> = {
  'pnpm10-isolated': { ...PNPM10, id: 'pnpm10-isolated', overlay: {} },
};
