// The one owner of what a package manager's command line means.
//
// Owns: `parseCommand(argv)` (which manager, which command, its options and the words after it) and
// `classifyCommand(argv)` (does it install, rewrite the lockfile even when frozen, run a script, run another
// command, target other packages). Every caller asks here: the pre-run check's skip, the plan's writers,
// the pnpmfile's refusal, the npm hook, runner resolution and the remote decision.
// Invariants: pure and synchronous, Node-free (the pnpmfile bundle carries it into pnpm's processes); never
// reads a file (a script's body is the caller's to look up, script-walk.ts does); an argv it cannot read is
// `undefined`, never a guess.

import { COMMAND_LINES, commandLineOf, EXECUTABLES } from './command-lines.js';
import type { Effect, Manager, ManagerTable } from './tables.js';

export interface ParsedCommand {
  readonly manager: Manager;
  /** The canonical command (`i` → `install`); undefined for a bare invocation (`yarn`, `pnpm -r`). */
  readonly command: string | undefined;
  /** The command word as typed (`i`, `build`). */
  readonly typed: string | undefined;
  /** Options before the command word. */
  readonly options: readonly string[];
  /** Every word after the command word, as typed. */
  readonly rest: readonly string[];
}

export interface CommandClass {
  readonly manager: Manager;
  readonly command: string | undefined;
  readonly effect: Effect;
  /** May rewrite the lockfile: a rewriting command, or an install not told to keep the lockfile. */
  readonly writesLockfile: boolean;
  /** Rewrites the lockfile whatever a frozen-lockfile setting says (`pnpm add`, `pnpm install <pkg>`, ...). */
  readonly rewritesWhenFrozen: boolean;
  /** An install told to keep the lockfile (`--frozen-lockfile`, `--immutable`, `npm ci`). */
  readonly frozen: boolean;
  /** May write the installed tree or the lockfile (any install, frozen ones included). */
  readonly installs: boolean;
  /** Installs (or fills the store) before anything runs: it needs no installed tree to start. */
  readonly preparesTree: boolean;
  /** The package script it runs (`pnpm run build`, `pnpm build`, `npm test`, `yarn build`, `bun run x`). */
  readonly script: string | undefined;
  /** When `script` names no script, what runs instead (`pnpm turbo` runs the turbo binary). */
  readonly fallback: readonly string[] | undefined;
  /** The command it runs (`pnpm exec turbo …`, `npx nx …`, `yarn workspace b build` → `yarn build`). */
  readonly runs: readonly string[] | undefined;
  /** A shell line it runs (`npx -c '…'`, `pnpm exec --shell-mode …`). */
  readonly runsLine: string | undefined;
  /** Targets other packages than the current folder's (`-r`, `--filter`, `-w`, `workspaces foreach`). */
  readonly elsewhere: boolean;
  /** pnpm run/exec/<script>: pnpm 11+ installs first when verifyDepsBeforeRun is `install`. */
  readonly verifiesDepsFirst: boolean;
  /** The words pnpm appends to the script it runs (every word after the script name: `pnpm build --filter x`). */
  readonly forwarded: readonly string[] | undefined;
}

/**
 * `node …/pnpm.cjs`, `/usr/bin/pnpm.exe`, `.yarn/releases/yarn-4.18.1.cjs` → `pnpm`, `pnpm`, `yarn`; a package
 * spec as npx, pnpm dlx and bunx take it, `pnpm@10.34.8`, `turbo@latest` → `pnpm`, `turbo`.
 */
export function executableName(word: string): string {
  const spec = /^((?:@[^/@\s]+\/)?[^/@\s]+)@[^/\\\s]+$/.exec(word);
  if (spec?.[1] !== undefined) return executableName(spec[1]);
  const last = word.slice(Math.max(word.lastIndexOf('/'), word.lastIndexOf('\\')) + 1);
  const bare = last.replace(/\.(c?js|mjs|exe|cmd|ps1)$/i, '');
  const release = COMMAND_LINES.find((table) => table.releaseFile?.test(bare));
  return release?.name ?? bare;
}

/** Drop a `node <script>` or `corepack` launcher in front of the tool. */
function stripLauncher(argv: readonly string[]): readonly string[] {
  const head = argv[0];
  if (head === undefined) return argv;
  const name = executableName(head);
  if ((name === 'node' || name === 'nodejs') && argv[1] !== undefined && !argv[1].startsWith('-')) return argv.slice(1);
  if (name === 'corepack' && argv[1] !== undefined) return argv.slice(1);
  return argv;
}

/** What `manager`'s command line means (its integration adapter's table). */
function tableOf(manager: Manager): ManagerTable {
  return commandLineOf(manager);
}

/** Manager, command and words of `argv` (argv[0] is the executable), or undefined when it is no package manager. */
export function parseCommand(argv: readonly string[]): ParsedCommand | undefined {
  const words = stripLauncher(argv);
  const head = words[0];
  if (head === undefined) return undefined;
  const known = EXECUTABLES[executableName(head)];
  if (known === undefined) return undefined;
  const { manager } = known;
  const table = tableOf(manager);
  const args = words.slice(1);
  if (known.exec === true) {
    // npx / pnpx / bunx: the words are exec's own.
    return {
      manager,
      command: table.execCommand,
      typed: executableName(head),
      options: [],
      rest: args,
    };
  }
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') return { manager, command: undefined, typed: undefined, options, rest: args.slice(i + 1) };
    if (word.startsWith('-')) {
      options.push(word);
      if (table.valueOptions.has(word) && i + 1 < args.length) options.push(args[++i] as string);
      continue;
    }
    if (table.recursiveWords.has(word)) {
      options.push('-r');
      continue;
    }
    return { manager, command: table.aliases[word] ?? word, typed: word, options, rest: args.slice(i + 1) };
  }
  return { manager, command: undefined, typed: undefined, options, rest: [] };
}

/** The index of the first positional word of `words` (option values skipped), or `words.length`; `--` counts as one. */
function firstPositional(words: readonly string[], valueOptions: ReadonlySet<string>): number {
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--' || !word.startsWith('-')) return i;
    if (valueOptions.has(word)) i++;
  }
  return words.length;
}

/** The positional words of `words` (option values skipped), stopping at `--`. */
function positionals(words: readonly string[], valueOptions: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (valueOptions.has(word)) i++;
      continue;
    }
    out.push(word);
  }
  return out;
}

/** The words from the first positional on (the command an `exec` runs), skipping exec's own options. */
function commandAfterOptions(words: readonly string[], valueOptions: ReadonlySet<string>): string[] | undefined {
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '--') return words.length > i + 1 ? words.slice(i + 1) : undefined;
    if (word.startsWith('-')) {
      if (valueOptions.has(word)) i++;
      continue;
    }
    return words.slice(i);
  }
  return undefined;
}

function has(words: readonly string[], set: ReadonlySet<string>): boolean {
  return words.some((word) => set.has(word) || set.has(word.split('=')[0] as string));
}

/** Options of exec-like commands that take a value (`pnpm dlx --package x`, `npx -p x`, `pnpm exec --filter x`). */
const EXEC_VALUE_OPTIONS = new Set([
  '--package',
  '-p',
  '--filter',
  '-F',
  '--resume-from',
  '--call',
  '-c',
  '--workspace',
  '-w',
  '--dir',
  '-C',
  '--reporter',
]);
const SHELL_MODE = new Set(['-c', '--shell-mode', '--call']);
/** yarn's `workspaces foreach` options that take a value. */
const FOREACH_VALUE_OPTIONS = new Set(['--include', '--exclude', '--from', '-j', '--jobs', '--since']);
const GLOBAL = new Set(['-g', '--global', '--location=global']);
/** `--help` / `--version` make any command print and exit. */
const INFO_ONLY = new Set(['--help', '-h', '--version', '-v']);

const NOTHING = {
  writesLockfile: false,
  rewritesWhenFrozen: false,
  frozen: false,
  installs: false,
  preparesTree: false,
  script: undefined,
  fallback: undefined,
  runs: undefined,
  runsLine: undefined,
  elsewhere: false,
  verifiesDepsFirst: false,
  forwarded: undefined,
} as const;

/**
 * The words the manager itself reads as its options. pnpm hands every word after the script or command name
 * to that script or command untouched (pnpm 10 and 12, measured: `pnpm build --filter x` and `pnpm run build
 * -r` run the root script with `--filter x` / `-r` appended, never a recursive run); `pnpm --filter x build`
 * and `pnpm run --filter x build` are filtered. Other managers: every word (npm reads `-w` after the script).
 */
export function managerWords(parsed: ParsedCommand): readonly string[] {
  const { manager, command, options, rest } = parsed;
  const table = tableOf(manager);
  if (!table.forwardsAfterName || command === undefined) return [...options, ...rest];
  const effect = table.effects[command] ?? 'script';
  if (effect === 'script')
    return command === 'run' ? [...options, ...rest.slice(0, firstPositional(rest, table.valueOptions))] : options;
  if (effect === 'exec') return [...options, ...rest.slice(0, firstPositional(rest, EXEC_VALUE_OPTIONS))];
  return [...options, ...rest];
}

/** What pnpm appends to the script `parsed` runs: the words after the script name. */
function forwardedWords(parsed: ParsedCommand): readonly string[] | undefined {
  const table = tableOf(parsed.manager);
  if (!table.forwardsAfterName) return undefined;
  if (parsed.command !== 'run') return parsed.rest;
  const at = firstPositional(parsed.rest, table.valueOptions);
  return parsed.rest.slice(at + 1);
}

/** What `argv` does, or undefined when argv[0] is no package manager. */
export function classifyCommand(argv: readonly string[]): CommandClass | undefined {
  const parsed = parseCommand(argv);
  return parsed === undefined ? undefined : classifyParsed(parsed);
}

export function classifyParsed(parsed: ParsedCommand): CommandClass {
  const { manager, command, options, rest } = parsed;
  const table = tableOf(manager);
  const all = [...options, ...rest];
  const elsewhere = has(managerWords(parsed), table.elsewhereOptions);
  const base = { manager, command, elsewhere };
  if (has(options, INFO_ONLY)) return { ...NOTHING, ...base, effect: 'none' };
  if (command === undefined) return installClass(parsed, table.bare, all);

  const inWorkspace = table.workspaceCommands ? workspacesClass(parsed, base, all) : undefined;
  if (inWorkspace !== undefined) return inWorkspace;
  const rewritingWord = table.rewritingSubcommands[command];
  if (rewritingWord !== undefined && positionals(rest, table.valueOptions)[0] === rewritingWord)
    return installClass(parsed, 'rewrites', all);

  const known = table.effects[command];
  const effect: Effect = known ?? (table.bareIsScript ? 'script' : 'none');
  switch (effect) {
    case 'rewrites':
    case 'installs':
    case 'tree':
    case 'store':
      return installClass(parsed, effect, all);
    case 'script':
      return scriptClass(parsed, command, known, base);
    case 'exec':
      return execClass(parsed, base);
    case 'none':
      return { ...NOTHING, ...base, effect };
  }
}

/** What classifyParsed spreads into every class: the manager, the command, whether it acts elsewhere. */
interface ClassBase {
  readonly manager: ParsedCommand['manager'];
  readonly command: string | undefined;
  readonly elsewhere: boolean;
}

/** yarn's `workspace <name> <command…>`, `workspaces focus` and `workspaces foreach|run …`; undefined for any other command. */
function workspacesClass(parsed: ParsedCommand, base: ClassBase, all: readonly string[]): CommandClass | undefined {
  const { manager, command, rest } = parsed;
  // yarn: `workspace <name> <command…>` and `workspaces foreach|run … <command…>` run a yarn command elsewhere.
  if (command === 'workspace') {
    const [, ...inner] = rest;
    return {
      ...NOTHING,
      ...base,
      effect: 'exec',
      elsewhere: true,
      runs: inner.length > 0 ? [manager, ...inner] : undefined,
    };
  }
  if (command === 'workspaces') {
    const [sub, ...inner] = rest;
    if (sub === 'focus') return { ...installClass(parsed, 'tree', all), elsewhere: true };
    if (sub === 'foreach' || sub === 'run') {
      const cmd = sub === 'run' ? inner : commandAfterOptions(inner, FOREACH_VALUE_OPTIONS);
      return {
        ...NOTHING,
        ...base,
        effect: 'exec',
        elsewhere: true,
        runs: cmd === undefined || cmd.length === 0 ? undefined : [manager, ...cmd],
      };
    }
    return { ...NOTHING, ...base, effect: 'none' };
  }
  return undefined;
}

/** A script (`run <name>`, or a bare word that may be one): its name, the binary it falls back to, the words forwarded. */
function scriptClass(parsed: ParsedCommand, command: string, known: Effect | undefined, base: ClassBase): CommandClass {
  const { manager, rest } = parsed;
  const table = tableOf(manager);
  const effect = 'script';
  const named = known === undefined ? command : command === 'run' ? positionals(rest, table.valueOptions)[0] : command;
  if (named === undefined) return { ...NOTHING, ...base, effect: 'none' };
  // A bare word that is no script runs the binary of that name (pnpm turbo, yarn nx, bun x.ts).
  const fallback = known === undefined ? [parsed.typed ?? command, ...rest] : undefined;
  return {
    ...NOTHING,
    ...base,
    effect,
    script: named,
    fallback,
    verifiesDepsFirst: table.verifiesDepsFirst.scripts,
    forwarded: forwardedWords(parsed),
  };
}

/** exec/dlx and friends: the command they run (or, in shell mode, its line). */
function execClass(parsed: ParsedCommand, base: ClassBase): CommandClass {
  const { manager, command, rest } = parsed;
  const table = tableOf(manager);
  const effect = 'exec';
  const verifiesDepsFirst = command !== undefined && table.verifiesDepsFirst.commands.has(command);
  if (has(rest, SHELL_MODE)) {
    const line = commandAfterOptions(
      rest.filter((word) => !SHELL_MODE.has(word)),
      EXEC_VALUE_OPTIONS,
    );
    const call = rest.findIndex((word) => table.lineOptions.has(word));
    const text = call !== -1 ? rest[call + 1] : line?.join(' ');
    return {
      ...NOTHING,
      ...base,
      effect,
      runsLine: text,
      verifiesDepsFirst,
    };
  }
  return {
    ...NOTHING,
    ...base,
    effect,
    runs: commandAfterOptions(rest, EXEC_VALUE_OPTIONS),
    verifiesDepsFirst,
  };
}

function installClass(parsed: ParsedCommand, effect: Effect, all: readonly string[]): CommandClass {
  const { manager, command, rest } = parsed;
  const table = tableOf(manager);
  const elsewhere = has(managerWords(parsed), table.elsewhereOptions);
  const base = { ...NOTHING, manager, command, elsewhere };
  if (effect !== 'rewrites' && effect !== 'installs' && effect !== 'tree' && effect !== 'store')
    return { ...base, effect };
  // A global install writes outside the workspace; `--help` prints and exits.
  if (has(all, GLOBAL) || has(all, INFO_ONLY) || all.some((word) => table.dryRunOptions.has(word)))
    return { ...base, effect: 'none' };
  // `pnpm install <pkg>` (and `bun install <pkg>`) is an add: it rewrites the lockfile under frozenLockfile (measured).
  const adds = effect === 'installs' && table.installWithNamesAdds && positionals(rest, table.valueOptions).length > 0;
  const rewrites = effect === 'rewrites' || adds;
  const frozen =
    !rewrites &&
    (effect === 'tree' || (effect === 'installs' && has(all, table.frozenOptions) && !has(all, table.unfrozenOptions)));
  const writesLockfile =
    rewrites || (effect === 'installs' && !frozen) || all.some((word) => table.lockfileOnlyOptions.has(word));
  return {
    ...base,
    effect: adds ? 'rewrites' : effect,
    writesLockfile,
    rewritesWhenFrozen: rewrites,
    frozen,
    installs: effect !== 'store',
    preparesTree: true,
  };
}
