// Running a task runner's own dry run for a plan: one child process, bounded in time and output.
//
// Owns: spawning argv (no shell) in the workspace root with `<root>/node_modules/.bin` first on PATH (as
// `pnpm exec` would), collecting stdout, and turning failure into ERR_LOCKGUARD_PLAN naming the command.
// Invariants: never a hang (timeout, then SIGKILL); never echoes the environment; stderr is quoted only
// by its first meaningful line.

import { delimiter, join } from 'node:path';
import { importExternal } from '../../core/external.js';
import { planError } from './types.js';

export interface SpawnOptions {
  readonly root: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
}

function firstLine(text: string): string {
  const line = text.split('\n').map((part) => part.replace(/\u001b\[[0-9;]*m/g, '').trim()).find((part) => part !== '' && !/^(WARNING|Attention|NX\s*$)/.test(part));
  return (line ?? '').slice(0, 200);
}

export async function runDry(argv: readonly string[], options: SpawnOptions): Promise<string> {
  const [file, ...args] = argv;
  if (file === undefined) throw planError('Expected a runner command after "--".', 'lockguard plan -- turbo run build');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
  const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
  env[pathKey] = [join(options.root, 'node_modules', '.bin'), env[pathKey] ?? ''].join(delimiter);
  const shown = argv.join(' ');
  // execa (loaded here only: it is not on any start-up path) gives the timeout with SIGKILL, the output
  // cap, and a result instead of an exception for a non-zero exit.
  const { execa } = await importExternal('execa');
  const result = await execa(file, args, {
    cwd: options.root,
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: options.timeoutMs ?? 120_000,
    killSignal: 'SIGKILL',
    maxBuffer: 256 * 1024 * 1024,
    stripFinalNewline: false,
  });
  if (result.failed && result.exitCode === undefined && !result.timedOut && result.signal === undefined) {
    const code = (result.cause as NodeJS.ErrnoException | undefined)?.code;
    throw planError(`Could not start "${shown}" for the plan: ${code ?? result.shortMessage}.`, `Install ${file} in the workspace (or put it on PATH), or run lockguard plan from the workspace root.`, options.root);
  }
  if (result.exitCode === 0 && !result.timedOut) return result.stdout;
  const why = result.timedOut ? 'was killed (SIGKILL, timed out)' : result.signal !== undefined ? `was killed (${result.signal})` : `exited with ${String(result.exitCode)}`;
  const detail = firstLine(result.stderr) || firstLine(result.stdout);
  throw planError(`The runner's dry run "${shown}" ${why}${detail === '' ? '' : `: ${detail}`}.`, 'Run that command yourself to see why; lockguard plan needs it to succeed.', options.root);
}
