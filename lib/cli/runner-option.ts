// The options `lockguard run` takes about the wrapped runner (`--runner`, `--remote`) and their resolution.

import { detectRunner, REMOTE_MODES, RUNNER_NAMES, type RemoteMode, type RunnerName } from '../integrations/runners/index.js';
import { oneOf, stringValue, type Options, type Parsed } from './args.js';

export const RUNNER_OPTIONS: Options = { runner: { type: 'string' }, remote: { type: 'string' } };

export const RUNNER_HELP =
  '  --runner turbo|nx|pnpm-pipeline|none\n' +
  '                       the caching runner the command starts; default: read from the command\n' +
  '                       (turbo, npx/pnpm turbo, nx, npx/pnpm nx, pnpm pipeline; "pnpm run <script>" is none)\n' +
  '  --remote auto|off|on the remote cache (also $LOCKGUARD_REMOTE): auto (default) gates it: lockguard\n' +
  '                       serves the runner\'s cache protocol on 127.0.0.1 for this run, forwards to your\n' +
  '                       remote, and refuses restores and uploads once the lockfile moved; where it\n' +
  '                       cannot (Nx Cloud, nx cache plugins, a proxy, a pnpm remote with a token) it\n' +
  '                       turns remote writes off with the runner\'s own switch when the plan shows a task\n' +
  '                       that may install, and says so; off: remote writes off always; on: untouched';

/** `--runner` when given (validated), else what the command's argv shows. */
export function runnerOf(parsed: Parsed, command: readonly string[]): RunnerName {
  const given = stringValue(parsed, 'runner');
  return given === undefined ? detectRunner(command) : oneOf('--runner', given, RUNNER_NAMES);
}

/** `--remote`, else LOCKGUARD_REMOTE, else auto. */
export function remoteOf(parsed: Parsed, env: Readonly<Record<string, string | undefined>>): RemoteMode {
  const given = stringValue(parsed, 'remote');
  if (given !== undefined) return oneOf('--remote', given, REMOTE_MODES);
  const fromEnv = env['LOCKGUARD_REMOTE'];
  return fromEnv === undefined || fromEnv === '' ? 'auto' : oneOf('LOCKGUARD_REMOTE', fromEnv, REMOTE_MODES);
}
