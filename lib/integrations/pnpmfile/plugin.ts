// The pnpmfile plugin's hooks: report every pnpm command to the live guarded runs of its workspace and,
// under the `refuse` policy, stop lockfile rewrites at the source.
//
// Owns: the hooks object (built once per process, at load time: pnpm reads which hooks exist when it loads
// the pnpmfile, and pnpm 12 loads it afresh in each helper process) and what each hook does.
// Invariants:
// - Node builtins and live.ts only: this runs inside pnpm (bundled into dist/pnpmfile.cjs).
// - Outside a guarded run: updateConfig returns the very config object it got, writes nothing, and the
//   only hook registered is updateConfig (pnpm 11+ keeps its fast up-to-date path).
// - `afterAllResolved` is registered only while a refusing run is live (it costs pnpm 11+ its fast path).
// - Hooks accelerate and refuse; they never decide: the run's table re-check is the verdict.
// - Never throws for a ledger problem; throws only to refuse, with code ERR_LOCKGUARD_REFUSED.
// - After an install run in this very process (pnpm 10 runs hooks in-process; pnpm 12's helpers cannot see
//   the install end: there the root postinstall hook writes them, npm/hook.ts writesSliceFilesNow), the
//   per-project slice files are written at pnpm's exit (slice-files/after-install.ts):
//   only for a command that installs, only where the workspace uses them, and a problem is one warning on
//   stderr, never a failed install. The argv is read from this process, never from /proc, outside a run.

import type { Env } from '../../core/env.js';
import { LockguardError } from '../../core/errors.js';
import { liveRunsFor, reportToRun, type LiveRun } from '../../ledger/live.js';
import { classifyCommand, parseCommand } from '../package-managers/argv.js';
import { inProcessPnpmMajor, pnpmArgv } from './command.js';
import { rootFromConfig, rootFromCwd } from './root.js';
import { writeSliceFilesLazily } from '../slice-files/lazy-writer.js';
import { printableText } from '../../core/printable.js';

/** pnpm's config as `updateConfig` receives it (pnpm 10 and 12 differ in fields; we read a few). */
export type PnpmConfig = Record<string, unknown>;

/** The hooks a pnpmfile exports (only what lockguard registers is typed; the rest passes through). */
export interface PnpmfileHooks {
  updateConfig?: (config: PnpmConfig) => PnpmConfig | Promise<PnpmConfig>;
  afterAllResolved?: (lockfile: unknown, context: unknown) => unknown;
  readonly [hook: string]: unknown;
}

/** What the plugin reads of its process; a parameter so tests can build hooks for any situation. */
export interface PluginContext {
  readonly cwd: string;
  readonly env: Env;
  /** pnpm's argv after the executable, when known; read lazily (pnpm 12: a /proc read), only inside a run. */
  readonly argv: () => readonly string[] | undefined;
  readonly pid: number;
  /** The in-process pnpm's major version (undefined for pnpm 12's helpers); read lazily, only when refusing. */
  readonly pnpmMajor: () => number | undefined;
  /** Whether the hooks run inside pnpm's own process (pnpm 10: its argv is this process's); default no. */
  readonly inProcess?: boolean;
  /** Run `task` with pnpm's exit code when its process exits (after its install); without it, no slice files. */
  readonly atExit?: (task: (code: number) => void) => void;
  /** Where a warning goes (pnpm's stderr). */
  readonly warn?: (line: string) => void;
}

export function processContext(): PluginContext {
  return {
    cwd: process.cwd(),
    env: process.env,
    argv: () => pnpmArgv(),
    pid: process.pid,
    pnpmMajor: () => inProcessPnpmMajor(),
    inProcess: process.argv.length >= 2,
    atExit: (task) => process.once('exit', task),
    warn: (line) => process.stderr.write(printableText(`${line}\n`)),
  };
}

function refusal(command: string | undefined, runs: readonly LiveRun[], root: string): LockguardError {
  const what = command === undefined ? 'this pnpm command' : `"pnpm ${command}"`;
  const ids = runs
    .filter((run) => run.policy === 'refuse')
    .map((run) => run.id)
    .join(', ');
  const hint = 'Run it before or after the guarded run, or guard the run with --policy withhold.';
  const error = new LockguardError(
    'ERR_LOCKGUARD_REFUSED',
    `lockguard refused ${what}: it would rewrite pnpm-lock.yaml in "${root}" during a guarded run under the refuse policy (${ids}) [ERR_LOCKGUARD_REFUSED].`,
    { path: root, hint },
  );
  // pnpm prints the message (pnpm 10: and the hint, not our code; hence the code in the message) or the
  // stack (pnpm 12): make the stack the message and the fix, no frames.
  error.stack = `${error.name}: ${error.message}\n${hint}`;
  return error;
}

/** Live runs of `root`; a ledger problem (say, a stale marker that cannot be removed) is no run, never a throw into pnpm. */
function liveRuns(root: string, env: PluginContext['env']): LiveRun[] {
  try {
    return liveRunsFor(root, env);
  } catch {
    return [];
  }
}

/** The command pnpm runs, named as typed, and whether it rewrites the lockfile whatever frozenLockfile says. */
interface PnpmCommandLine {
  readonly name: string;
  readonly rewritesWhenFrozen: boolean;
  /** May write the installed tree or the lockfile (a frozen install included). */
  readonly installs: boolean;
}

/** Read pnpm's argv (after the executable) through the one owner of what it means. */
function pnpmCommandLine(argv: readonly string[]): PnpmCommandLine | undefined {
  const words = ['pnpm', ...argv];
  const parsed = parseCommand(words);
  if (parsed?.typed === undefined) return undefined;
  const classed = classifyCommand(words);
  return {
    name: parsed.typed,
    rewritesWhenFrozen: classed?.rewritesWhenFrozen === true,
    installs: classed?.installs === true,
  };
}

/** Build the hooks for one process: decided now, because pnpm reads which hooks exist at load time. */
export function createHooks(context: PluginContext): PnpmfileHooks {
  const loadRoot = rootFromCwd(context.cwd);
  const loadRuns = loadRoot === undefined ? [] : liveRuns(loadRoot, context.env);
  const commandLine = commandLineOnce(context);
  const report = reporter(context, commandLine);
  const armSliceFiles = sliceFilesArming(context, commandLine);

  const hooks: PnpmfileHooks = {
    updateConfig(config: PnpmConfig): PnpmConfig {
      const root = rootFromConfig(config) ?? loadRoot;
      if (root === undefined) return config;
      armSliceFiles(root);
      const runs = root === loadRoot ? loadRuns : liveRuns(root, context.env);
      if (runs.length === 0) return config;
      const refusing = runs.some((run) => run.policy === 'refuse');
      report(runs, 'updateConfig', refusing);
      if (!refusing) return config;
      // `add` and friends ignore frozenLockfile (measured in pnpm 10 and 12): refuse them before they start.
      const parsed = commandLine();
      if (parsed !== undefined && parsed.rewritesWhenFrozen) throw refusal(parsed.name, runs, root);
      // Stops `pnpm install` (ERR_PNPM_OUTDATED_LOCKFILE) and the auto-install before run/exec.
      config['frozenLockfile'] = true;
      config['verifyDepsBeforeRun'] = 'error';
      return config;
    },
  };

  // A net while a refusing run is live: a resolution is a rewrite on its way (frozen installs never resolve,
  // so they never get here). Registered where it helps: pnpm <= 10 (in-process: it refuses at the source,
  // measured) and any pnpm whose command could not be named (pnpm 12 off Linux: there it fires after
  // node_modules changed and skips `remove`, but keeps the lockfile). Not otherwise: updateConfig already
  // refused every writer, and the hook costs pnpm 11+ its fast up-to-date path.
  const refusingAtLoad = loadRuns.some((run) => run.policy === 'refuse');
  if (
    loadRoot !== undefined &&
    refusingAtLoad &&
    (commandLine() === undefined || (context.pnpmMajor() ?? Infinity) <= 10)
  ) {
    const root = loadRoot;
    hooks.afterAllResolved = (): never => {
      const runs = liveRuns(root, context.env);
      report(runs, 'afterAllResolved', true);
      throw refusal(commandLine()?.name, runs.length > 0 ? runs : loadRuns, root);
    };
  }
  return hooks;
}

/** The pnpm command line this process runs, parsed on first ask and remembered (undefined when not named). */
function commandLineOnce(context: PluginContext): () => PnpmCommandLine | undefined {
  let named: { parsed: PnpmCommandLine | undefined } | undefined;
  return () => {
    if (named === undefined) {
      const argv = context.argv();
      named = { parsed: argv === undefined ? undefined : pnpmCommandLine(argv) };
    }
    return named.parsed;
  };
}

/** A hook event to each live run: which hook, the command, this pid, whether it refused. */
function reporter(
  context: PluginContext,
  commandLine: () => PnpmCommandLine | undefined,
): (runs: readonly LiveRun[], hook: string, refused: boolean) => void {
  return (runs, hook, refused) => {
    const command = commandLine()?.name;
    for (const run of runs) {
      reportToRun(run, {
        type: 'hook',
        source: 'pnpmfile',
        hook,
        ...(command === undefined ? {} : { command }),
        pid: context.pid,
        ...(refused ? { refused: true } : {}),
      });
    }
  };
}

/** The slice files after an install in this process, armed once (pnpm may call updateConfig more than once). */
function sliceFilesArming(
  context: PluginContext,
  commandLine: () => PnpmCommandLine | undefined,
): (root: string) => void {
  let sliceFilesArmed = false;
  return (root) => {
    const atExit = context.atExit;
    if (sliceFilesArmed || atExit === undefined || context.inProcess !== true || commandLine()?.installs !== true)
      return;
    sliceFilesArmed = true;
    atExit((code) => {
      // A failed install left the tree as it was: the files stay what they were for it.
      if (code !== 0) return;
      const warning = writeSliceFilesLazily(root);
      if (warning !== undefined) context.warn?.(warning);
    });
  };
}
