// What each package manager's command line means: subcommands with their aliases, the options that take a
// separate value word, and what each command does to the fingerprint table.
//
// Owns: the data behind argv.ts, one table per package manager, read from the tools themselves (pnpm 10.34's
// `commandNames` and universal shorthands, npm 11's alias list, yarn 4 / yarn 1 and bun 1.4 `--help`).
// Invariants: data only (no I/O, no Node imports): the pnpmfile bundle carries it into pnpm's processes.
// A command missing from a table is "not an install" and, for pnpm/yarn/bun, a script name: plans are advice
// and the table re-checked by the run decides, so a gap here costs earliness, never a verdict.

export type Manager = 'pnpm' | 'npm' | 'yarn' | 'bun';

/**
 * What a command does to the lockfile and the installed tree.
 * - `rewrites`: rewrites the lockfile by design; a frozen-lockfile setting does not stop it (pnpm add/update/
 *   remove, measured: `frozenLockfile` is ignored by them).
 * - `installs`: installs from the manifests, rewriting the lockfile unless told to keep it (`--frozen-lockfile`).
 * - `tree`: lays out node_modules without rewriting the lockfile (npm ci, pnpm prune, pnpm fetch is `store`).
 * - `store`: fills the package store only (pnpm fetch): no table entry changes, but no installed tree is needed.
 * - `script`: runs a package script (run, test, start, a bare script name).
 * - `exec`: runs the command line that follows (exec, dlx, npx, x).
 * - `none`: anything else (list, why, config, publish, ...).
 */
export type Effect = 'rewrites' | 'installs' | 'tree' | 'store' | 'script' | 'exec' | 'none';

export interface ManagerTable {
  /** Every spelling → its canonical command name. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Canonical command → what it does; a canonical name absent here is `none` (or a script: `bareIsScript`). */
  readonly effects: Readonly<Record<string, Effect>>;
  /** Options that take the next word as their value when written without `=`. */
  readonly valueOptions: ReadonlySet<string>;
  /** Options that make an `installs` command keep the lockfile as it is. */
  readonly frozenOptions: ReadonlySet<string>;
  /** Options that undo a frozen option (`--no-frozen-lockfile`). */
  readonly unfrozenOptions: ReadonlySet<string>;
  /** Options that send the command to other packages than the one in the current folder. */
  readonly elsewhereOptions: ReadonlySet<string>;
  /** An unknown first word runs the script of that name (pnpm, yarn, bun; not npm). */
  readonly bareIsScript: boolean;
  /** What the manager does with no command at all (yarn: install; others: nothing). */
  readonly bare: Effect;
}

const PNPM: ManagerTable = {
  aliases: {
    i: 'install',
    'install-test': 'install-test',
    it: 'install-test',
    up: 'update',
    upgrade: 'update',
    rm: 'remove',
    uninstall: 'remove',
    un: 'remove',
    uni: 'remove',
    ln: 'link',
    dislink: 'unlink',
    rb: 'rebuild',
    'run-script': 'run',
    t: 'test',
    tst: 'test',
    ls: 'list',
    la: 'll',
    c: 'config',
    ci: 'ci',
    'clean-install': 'ci',
    ic: 'ci',
    'install-clean': 'ci',
    x: 'dlx',
  },
  effects: {
    add: 'rewrites',
    update: 'rewrites',
    remove: 'rewrites',
    dedupe: 'rewrites',
    import: 'rewrites',
    link: 'rewrites',
    unlink: 'rewrites',
    'patch-commit': 'rewrites',
    'patch-remove': 'rewrites',
    install: 'installs',
    'install-test': 'installs',
    // pnpm 10's `ci` answers "not implemented"; counted as a frozen install in case a version implements it.
    ci: 'tree',
    prune: 'tree',
    fetch: 'store',
    run: 'script',
    test: 'script',
    start: 'script',
    restart: 'script',
    exec: 'exec',
    dlx: 'exec',
    create: 'exec',
    // Commands that are no scripts and write no table entry.
    audit: 'none',
    'approve-builds': 'none',
    bin: 'none',
    cache: 'none',
    'cat-file': 'none',
    'cat-index': 'none',
    completion: 'none',
    config: 'none',
    deploy: 'none',
    doctor: 'none',
    env: 'none',
    'find-hash': 'none',
    get: 'none',
    help: 'none',
    'ignored-builds': 'none',
    init: 'none',
    licenses: 'none',
    list: 'none',
    ll: 'none',
    outdated: 'none',
    pack: 'none',
    patch: 'none',
    pipeline: 'none',
    publish: 'none',
    rebuild: 'none',
    root: 'none',
    'self-update': 'none',
    server: 'none',
    set: 'none',
    setup: 'none',
    store: 'none',
    why: 'none',
  },
  valueOptions: new Set([
    '--filter',
    '-F',
    '--filter-prod',
    '--dir',
    '-C',
    '--prefix',
    '--reporter',
    '--loglevel',
    '--workspace-concurrency',
    '--resume-from',
    '--store-dir',
    '--virtual-store-dir',
    '--modules-dir',
    '--lockfile-dir',
    '--global-dir',
    '--cache-dir',
    '--network-concurrency',
    '--child-concurrency',
    '--test-pattern',
    '--changed-files-ignore-pattern',
    '--node-linker',
    '--package-import-method',
    '--registry',
    '--shell-mode',
  ]),
  frozenOptions: new Set(['--frozen-lockfile', '--frozen-lockfile=true', '--prefer-frozen-lockfile=false']),
  unfrozenOptions: new Set(['--no-frozen-lockfile', '--frozen-lockfile=false', '--fix-lockfile']),
  elsewhereOptions: new Set(['--filter', '-F', '--filter-prod', '-r', '--recursive', '--dir', '-C', '--prefix', '-w', '--workspace-root']),
  bareIsScript: true,
  bare: 'none',
};

const NPM: ManagerTable = {
  aliases: {
    i: 'install',
    in: 'install',
    ins: 'install',
    inst: 'install',
    insta: 'install',
    instal: 'install',
    isnt: 'install',
    isnta: 'install',
    isntal: 'install',
    isntall: 'install',
    add: 'install',
    ci: 'ci',
    'clean-install': 'ci',
    ic: 'ci',
    'install-clean': 'ci',
    'isntall-clean': 'ci',
    it: 'install-test',
    cit: 'install-ci-test',
    'clean-install-test': 'install-ci-test',
    sit: 'install-ci-test',
    up: 'update',
    upgrade: 'update',
    udpate: 'update',
    unlink: 'uninstall',
    remove: 'uninstall',
    rm: 'uninstall',
    r: 'uninstall',
    un: 'uninstall',
    ddp: 'dedupe',
    ln: 'link',
    rb: 'rebuild',
    'run-script': 'run',
    rum: 'run',
    urn: 'run',
    t: 'test',
    tst: 'test',
    x: 'exec',
    c: 'config',
    ls: 'ls',
    list: 'ls',
  },
  effects: {
    install: 'installs',
    'install-test': 'installs',
    update: 'rewrites',
    uninstall: 'rewrites',
    dedupe: 'rewrites',
    link: 'rewrites',
    prune: 'tree',
    ci: 'tree',
    'install-ci-test': 'tree',
    run: 'script',
    test: 'script',
    start: 'script',
    stop: 'script',
    restart: 'script',
    exec: 'exec',
    init: 'none',
  },
  valueOptions: new Set([
    '-w',
    '--workspace',
    '--prefix',
    '-C',
    '--omit',
    '--include',
    '--install-strategy',
    '--registry',
    '--cache',
    '--userconfig',
    '--globalconfig',
    '--loglevel',
    '--tag',
    '--location',
    '--script-shell',
    '--save-prefix',
    '--before',
    '--cpu',
    '--os',
    '--libc',
    '--package',
    '-p',
    '--call',
    '-c',
  ]),
  frozenOptions: new Set(),
  unfrozenOptions: new Set(),
  elsewhereOptions: new Set(['-w', '--workspace', '-ws', '--workspaces', '--prefix', '-C']),
  bareIsScript: false,
  bare: 'none',
};

// yarn berry (2+) and yarn 1 share a table: their install words and script rules agree where it matters.
const YARN: ManagerTable = {
  aliases: { 'upgrade-interactive': 'up', upgrade: 'up', rm: 'remove', 'run-script': 'run' },
  effects: {
    install: 'installs',
    add: 'rewrites',
    up: 'rewrites',
    remove: 'rewrites',
    dedupe: 'rewrites',
    import: 'rewrites',
    'patch-commit': 'rewrites',
    run: 'script',
    test: 'script',
    start: 'script',
    exec: 'exec',
    dlx: 'exec',
    create: 'exec',
    node: 'none',
    workspace: 'none',
    workspaces: 'none',
    config: 'none',
    constraints: 'none',
    explain: 'none',
    info: 'none',
    init: 'none',
    link: 'none',
    unlink: 'none',
    npm: 'none',
    pack: 'none',
    patch: 'none',
    plugin: 'none',
    rebuild: 'none',
    set: 'none',
    stage: 'none',
    unplug: 'none',
    version: 'none',
    why: 'none',
    bin: 'none',
    cache: 'none',
    list: 'none',
    outdated: 'none',
    publish: 'none',
  },
  valueOptions: new Set(['--cwd', '--modules-folder', '--cache-folder', '--mutex', '--network-timeout', '--registry']),
  frozenOptions: new Set(['--immutable', '--frozen-lockfile', '--pure-lockfile', '--immutable-cache']),
  unfrozenOptions: new Set(['--no-immutable']),
  elsewhereOptions: new Set(['--cwd']),
  bareIsScript: true,
  bare: 'installs',
};

const BUN: ManagerTable = {
  aliases: { i: 'install', a: 'add', rm: 'remove', 'run-script': 'run', x: 'x' },
  effects: {
    install: 'installs',
    add: 'rewrites',
    remove: 'rewrites',
    update: 'rewrites',
    link: 'rewrites',
    unlink: 'rewrites',
    'patch-commit': 'rewrites',
    ci: 'tree',
    run: 'script',
    x: 'exec',
    create: 'exec',
    test: 'none',
    build: 'none',
    pm: 'none',
    init: 'none',
    upgrade: 'none',
    outdated: 'none',
    publish: 'none',
    repl: 'none',
    info: 'none',
    audit: 'none',
    patch: 'none',
    why: 'none',
  },
  valueOptions: new Set(['--cwd', '--filter', '-F', '--config', '-c', '--cache-dir', '--backend', '--registry', '--env-file', '--elide-lines', '--workspace']),
  frozenOptions: new Set(['--frozen-lockfile']),
  unfrozenOptions: new Set(),
  elsewhereOptions: new Set(['--cwd', '--filter', '-F', '--workspace']),
  bareIsScript: true,
  bare: 'none',
};

export const TABLES: Readonly<Record<Manager, ManagerTable>> = { pnpm: PNPM, npm: NPM, yarn: YARN, bun: BUN };

/** Executable names (basename, extension dropped) → the manager, and whether the word itself means `exec`. */
export const EXECUTABLES: Readonly<Record<string, { readonly manager: Manager; readonly exec?: true }>> = {
  pnpm: { manager: 'pnpm' },
  pn: { manager: 'pnpm' },
  pnpx: { manager: 'pnpm', exec: true },
  pnx: { manager: 'pnpm', exec: true },
  npm: { manager: 'npm' },
  'npm-cli': { manager: 'npm' },
  npx: { manager: 'npm', exec: true },
  'npx-cli': { manager: 'npm', exec: true },
  yarn: { manager: 'yarn' },
  yarnpkg: { manager: 'yarn' },
  bun: { manager: 'bun' },
  bunx: { manager: 'bun', exec: true },
};
