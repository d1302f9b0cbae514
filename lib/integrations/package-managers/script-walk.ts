// Following a command through the package scripts it runs, to every simple command it may start.
//
// Owns: `walkCommand(argv, …)`: the command itself, then, for a script runner (`pnpm build`, `npm run x`,
// `yarn x`, `bun run x`), every simple command of the script's body (npm's pre/post scripts too), through
// `exec`/`dlx`/`npx`, `sh -c '…'` and `yarn workspace …`, to a fixed depth, each script once; pnpm's
// forwarded words (`pnpm build --filter x`) appended to the script's body, as pnpm runs it.
// Invariants: reads nothing itself (the caller hands in how to read a folder's scripts); bounded (depth and
// step count) so a hostile package.json cannot make it loop; a script it cannot see (another package's, under
// `--filter`) is not followed: the steps list what is known, never a guess.

import { resolve } from 'node:path';
import { classifyCommand, managerWords, parseCommand, type CommandClass } from './argv.js';
import { commandLineOf } from './command-lines.js';
import { quoteWord, shellLine, simpleCommands, unwrapCommand } from './shell-line.js';

/** How deep scripts calling scripts are followed. */
const MAX_SCRIPT_DEPTH = 8;
/** At most this many steps are listed for one command (a guard against a script fan-out bomb). */
const MAX_STEPS = 512;

export interface Step {
  /** One simple command, launchers and `VAR=` prefixes removed. */
  readonly argv: readonly string[];
  /** The folder it runs in, when known (scripts are looked up there). */
  readonly dir: string | undefined;
  /** How it was reached, outermost first: `script "build"`, `pnpm exec`. Empty for the command itself. */
  readonly via: readonly string[];
  /** What it does, when it is a package-manager command. */
  readonly class: CommandClass | undefined;
}

export interface WalkOptions {
  /** The folder the command runs in. */
  readonly cwd: string;
  /** The scripts of the package in `dir` ({} when there is none or it cannot be read). */
  readonly scriptsOf: (dir: string) => Readonly<Record<string, string>>;
}

/** The folder a package-manager command runs its scripts in, or undefined when it targets other packages. */
function scriptDir(argv: readonly string[], cmd: CommandClass, dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const parsed = parseCommand(argv);
  const words = parsed === undefined ? [] : managerWords(parsed);
  const named = (names: readonly string[]): string | undefined => {
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      for (const name of names) {
        if (word === name) return words[i + 1];
        if (word.startsWith(`${name}=`)) return word.slice(name.length + 1);
      }
    }
    return undefined;
  };
  const moved = named(commandLineOf(cmd.manager).dirOptions);
  if (moved !== undefined) return resolve(dir, moved);
  // --filter, -r, -w, --workspace: other packages, whose scripts are not read here.
  return cmd.elsewhere ? undefined : dir;
}

/**
 * The first command that really runs (past the scripts and launchers that only lead to it) installs or fills
 * the store: the pre-run check must not refuse it for a tree it is about to lay out (`"ci": "pnpm install &&
 * turbo run build"`, `pnpm install`, `npm ci`).
 */
export function preparesTreeFirst(steps: readonly Step[]): boolean {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Step;
    const next = steps[i + 1];
    if (step.class?.preparesTree === true) return true;
    // A step followed by a deeper one only led to it (a script, `npx`, `sh -c`): look at what it led to.
    if (next !== undefined && next.via.length > step.via.length) continue;
    return false;
  }
  return false;
}

/**
 * A shell line's commands in order, each with the folder it runs in: `cd <folder>` moves the ones after it
 * (`cd packages/a && npm run build` runs a's script, not the root's: an audit saw the root's turbo planned for
 * it); a `cd` lockguard cannot follow (`cd -`, `cd $DIR`) leaves the folder unknown.
 */
function movedBy(line: string, dir: string | undefined): [readonly string[], string | undefined][] {
  const out: [readonly string[], string | undefined][] = [];
  let here = dir;
  for (const inner of simpleCommands(line)) {
    if (inner[0] !== 'cd') {
      out.push([inner, here]);
      continue;
    }
    const to = inner[1];
    here =
      here === undefined || to === undefined || to.startsWith('-') || to.includes('$') ? undefined : resolve(here, to);
  }
  return out;
}

/** The script `cmd` runs and its pre/post ones (npm), each once per folder (`seen`), with pnpm's forwarded words. */
function scriptLines(
  cmd: CommandClass,
  script: string,
  scripts: Readonly<Record<string, string>>,
  where: string,
  seen: Set<string>,
): { name: string; line: string }[] {
  const names = commandLineOf(cmd.manager).prePostScripts ? [`pre${script}`, script, `post${script}`] : [script];
  const out: { name: string; line: string }[] = [];
  for (const name of names) {
    const body = scripts[name];
    const id = `${where}\0${name}`;
    if (body === undefined || seen.has(id)) continue;
    seen.add(id);
    // pnpm appends the words after the script name to the script it runs (the main one, not pre/post).
    const forwarded = name === script && cmd.forwarded !== undefined && cmd.forwarded.length > 0;
    out.push({ name, line: forwarded ? `${body} ${(cmd.forwarded ?? []).map(quoteWord).join(' ')}` : body });
  }
  return out;
}

export function walkCommand(argv: readonly string[], options: WalkOptions): Step[] {
  const steps: Step[] = [];
  const seen = new Set<string>();
  const visitLine = (line: string, dir: string | undefined, via: readonly string[], depth: number): void => {
    for (const [inner, here] of movedBy(line, dir)) visit(inner, here, via, depth);
  };
  const visit = (words: readonly string[], dir: string | undefined, via: readonly string[], depth: number): void => {
    if (steps.length >= MAX_STEPS) return;
    const argvNow = unwrapCommand(words);
    if (argvNow.length === 0) return;
    const cmd = classifyCommand(argvNow);
    steps.push({ argv: argvNow, dir, via, class: cmd });
    if (depth >= MAX_SCRIPT_DEPTH) return;
    const line = shellLine(argvNow);
    if (line !== undefined) {
      visitLine(line, dir, [...via, 'sh -c'], depth + 1);
      return;
    }
    if (cmd === undefined) return;
    if (cmd.runs !== undefined)
      visit(
        cmd.runs,
        cmd.elsewhere && commandLineOf(cmd.manager).elsewhereFolderUnknown ? undefined : dir,
        [...via, `${cmd.manager} ${cmd.command ?? ''}`.trim()],
        depth + 1,
      );
    if (cmd.runsLine !== undefined)
      visitLine(cmd.runsLine, dir, [...via, `${cmd.manager} ${cmd.command ?? ''} (shell)`], depth + 1);
    if (cmd.script === undefined) return;
    const where = scriptDir(argvNow, cmd, dir);
    if (where === undefined) return;
    const scripts = options.scriptsOf(where);
    if (scripts[cmd.script] === undefined) {
      if (cmd.fallback !== undefined) visit(cmd.fallback, where, via, depth + 1);
      return;
    }
    for (const { name, line } of scriptLines(cmd, cmd.script, scripts, where, seen))
      visitLine(line, where, [...via, `script "${name}"`], depth + 1);
  };
  visit(argv, options.cwd, [], 0);
  return steps;
}
