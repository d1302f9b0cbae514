// Running lockguard's CLI in tests: in-process through `main` (fast, exact exit codes), or as a real
// subprocess of the built bin with a scrubbed environment (env.ts).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../lib/cli/command-table.js';
import { main } from '../../lib/cli/main.js';
import { scrubbedEnv } from './env.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The executable users run: the single-file bundle `npm run build` makes (see package.json). */
export const BIN = fileURLToPath(new URL('../../lockguard.cjs', import.meta.url));

/** Run `main` in-process with captured streams and the given env (nothing inherited). */
export async function cli(
  argv: readonly string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io = {
    cwd,
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  };
  const code = await main(argv, io, COMMANDS);
  return { code, stdout, stderr };
}

/** Run the built bin as a real process (timeout-guarded: a hang fails the test, never the suite). */
export function cliProcess(
  argv: readonly string[],
  cwd: string,
  env: Record<string, string> = scrubbedEnv(),
  timeoutMs = 20_000,
): CliResult & { signal: NodeJS.Signals | null } {
  const result = spawnSync(process.execPath, [BIN, ...argv], { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, signal: result.signal };
}
