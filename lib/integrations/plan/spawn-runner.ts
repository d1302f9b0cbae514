// Running a task runner's own dry run for a plan: one child process, bounded in time and output.
//
// Owns: spawning argv (no shell) in the workspace root with `<root>/node_modules/.bin` first on PATH (as
// `pnpm exec` would), collecting stdout, and turning failure into ERR_LOCKGUARD_PLAN naming the command.
// Invariants: never a hang (timeout, then SIGKILL); never echoes the environment; stderr is quoted only
// by its first meaningful line.

import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
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
  return await new Promise<string>((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 256 * 1024 * 1024) out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(planError(`Could not start "${shown}" for the plan: ${(error as NodeJS.ErrnoException).code ?? error.message}.`, `Install ${file} in the workspace (or put it on PATH), or run lockguard plan from the workspace root.`, options.root));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else {
        const why = signal !== null ? `was killed (${signal}${signal === 'SIGKILL' ? ', timed out' : ''})` : `exited with ${code}`;
        const detail = firstLine(Buffer.concat(err).toString('utf8')) || firstLine(Buffer.concat(out).toString('utf8'));
        reject(planError(`The runner's dry run "${shown}" ${why}${detail === '' ? '' : `: ${detail}`}.`, 'Run that command yourself to see why; lockguard plan needs it to succeed.', options.root));
      }
    });
  });
}
