// The options `lockguard run` takes about the wrapped runner (`--runner`, `--remote`) and their resolution.

import { detectRunner, REMOTE_MODES, RUNNER_NAMES, type RemoteMode, type RunnerName } from '../integrations/runners/index.js';
import { oneOf, stringValue, type Options, type Parsed } from './args.js';

export const RUNNER_OPTIONS: Options = { runner: { type: 'string' }, remote: { type: 'string' } };

export const RUNNER_HELP =
  '  --runner turbo|nx|pnpm-pipeline|none\n' +
  '                       the caching runner the command starts; default: read from the command\n' +
  '                       (turbo, npx/pnpm turbo, nx, npx/pnpm nx, pnpm pipeline; "pnpm run <script>" is none)\n' +
  '  --remote auto|off|on remote cache writes (also $LOCKGUARD_REMOTE): auto (default) turns them off, with\n' +
  '                       the runner\'s own switch, when a remote cache is configured and the plan (the\n' +
  '                       runner\'s dry run) shows a task that may install; off always; on never touches them';

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
