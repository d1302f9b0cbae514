// May this command line write a fingerprinted file? The install detector behind `lockguard plan`.
//
// Owns: the plan's question only: every simple command the line may start (package-managers/script-walk,
// through the package's own scripts, npm pre/post scripts, exec/dlx/npx and `sh -c`) is asked whether it
// rewrites the lockfile (package-managers/argv), and a pnpm run/exec/<script> counts when the effective
// verifyDepsBeforeRun is `install`. Frozen installs, `npm ci`, `pnpm dlx` and `npx` are no writers.
// `node -e/--eval/-p/--print '<code>'` is read too: the code's string literals, from each one to the last
// joined by spaces, are command lines (`execSync('pnpm --filter b add x')`, `execFileSync('pnpm', ['--filter',
// 'b', 'add', 'x'])`), read only where the code starts processes (child_process); with no such line found
// it is a writer whose installs are unknown, said so: never "none". Code that starts no process is no writer.
// Invariants: pure over its inputs (the scripts are passed in); a command it cannot read is not a writer
// (plans are advice: the watch decides), so the reasons name what was recognized, never guesses.

import { parseCommand } from '../package-managers/argv.js';
import { walkCommand } from '../package-managers/script-walk.js';
import { simpleCommands } from '../package-managers/shell-line.js';

export interface WriteContext {
  /** The scripts of the package the command runs in. */
  readonly scripts: Readonly<Record<string, string>>;
  /** Effective verifyDepsBeforeRun is `install` for pnpm run/exec here. */
  readonly pnpmRunInstalls: boolean;
}

export interface WriteVerdict {
  readonly writes: boolean;
  /** What installs, e.g. "pnpm add" or "pnpm run (verifyDepsBeforeRun: install)" or "script setup: npm install". */
  readonly reason: string | undefined;
}

const HERE = '/lockguard-plan-package';

const EVAL_FLAGS = new Set(['-e', '--eval', '-p', '--print']);
/** How deep `node -e` code inside `node -e` code is read. */
const EVAL_DEPTH = 2;

/** The code of `node -e '<code>'` (or `--eval=<code>`), or undefined for any other command. */
function evalCode(argv: readonly string[]): string | undefined {
  const head = argv[0];
  if (head === undefined || !/^node(js)?$/.test(head.slice(head.lastIndexOf('/') + 1))) return undefined;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i] as string;
    if (EVAL_FLAGS.has(word)) return argv[i + 1];
    const eq = word.indexOf('=');
    if (eq > 0 && EVAL_FLAGS.has(word.slice(0, eq))) return word.slice(eq + 1);
    if (!word.startsWith('-')) return undefined;
  }
  return undefined;
}

/** The string literals of JavaScript `code`, in order (quotes, escapes kept simple: `\x` is x). */
function literalsOf(code: string): string[] {
  const out: string[] = [];
  for (const match of code.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/g))
    out.push((match[1] ?? match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1'));
  return out;
}

/** Whether `node -e` code installs: code that starts no process does not; else a command line among its literals, or unknown. */
function evalWrites(code: string, context: WriteContext, depth: number): WriteVerdict {
  if (!/child_process|\b(exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\s*\(/.test(code))
    return { writes: false, reason: undefined };
  const literals = literalsOf(code);
  for (let i = 0; i < literals.length; i++) {
    const found = commandWrites(literals.slice(i).join(' '), context, depth + 1);
    if (found.writes) return { writes: true, reason: `node -e: ${found.reason ?? 'an install'}` };
  }
  return {
    writes: true,
    reason: 'node -e code that starts other processes: which of them install cannot be read (writers unknown)',
  };
}

/** Does this command line (a script body or a task command) install? */
export function commandWrites(line: string, context: WriteContext, depth = 0): WriteVerdict {
  for (const words of simpleCommands(line)) {
    const steps = walkCommand(words, { cwd: HERE, scriptsOf: (dir) => (dir === HERE ? context.scripts : {}) });
    for (const step of steps) {
      const cmd = step.class;
      const code = cmd === undefined && depth < EVAL_DEPTH ? evalCode(step.argv) : undefined;
      if (code !== undefined) {
        const inner = evalWrites(code, context, depth);
        if (inner.writes) return { writes: true, reason: [...step.via, inner.reason].join(': ') };
      }
      if (cmd === undefined) continue;
      let what: string | undefined;
      if (cmd.writesLockfile) what = `${cmd.manager} ${parseCommand(step.argv)?.typed ?? '(install)'}`;
      else if (cmd.verifiesDepsFirst && context.pnpmRunInstalls)
        what = `pnpm ${cmd.command === 'exec' ? 'exec' : 'run'} (verifyDepsBeforeRun: install)`;
      if (what !== undefined) return { writes: true, reason: [...step.via, what].join(': ') };
    }
  }
  return { writes: false, reason: undefined };
}
