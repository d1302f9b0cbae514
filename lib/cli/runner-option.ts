// The options `lockguard run` takes about the runners it guards (`--runner`, `--remote`) and their resolution.

import type { Env } from '../core/env.js';
import { REMOTE_MODES, RUNNER_NAMES, type RemoteMode, type RunnerName } from '../integrations/runners/index.js';
import { oneOf, stringValue, type Options, type Parsed } from './args.js';

export const RUNNER_OPTIONS: Options = { runner: { type: 'string' }, remote: { type: 'string' } };

export const RUNNER_HELP =
  '  --runner turbo|nx|pnpm-pipeline|wireit|moon|lage|none\n' +
  "                       guard only this runner's cache (none: no runner cache); default: every runner the\n" +
  '                       workspace is configured for (turbo.json, nx.json, pnpm-workspace.yaml tasks) plus any\n' +
  '                       the command starts, also through root scripts, npx, pnpm exec and sh -c\n' +
  '  --remote auto|off|on the remote cache (also $LOCKGUARD_REMOTE, "remote" in settings): auto (default)\n' +
  "                       gates it: lockguard serves the runner's cache protocol on 127.0.0.1 for this\n" +
  '                       run, forwards to your remote, and refuses restores and uploads once the lockfile\n' +
  '                       moved; where it cannot (Nx Cloud, nx cache plugins, a proxy, a pnpm remote with\n' +
  "                       a token) it turns remote writes off with the runner's own switch when the plan\n" +
  "                       shows a task that may install, and says so; off: remote writes off always (turbo's\n" +
  "                       and nx's switches turn their remote reads off too); on: untouched, not gated (an\n" +
  '                       upload after a move reaches the remote, and the status line does not count it)';

/** `--runner` when given (validated), else undefined (the workspace and the command decide). */
export function runnerOverride(parsed: Parsed): RunnerName | undefined {
  const given = stringValue(parsed, 'runner');
  return given === undefined ? undefined : oneOf('--runner', given, RUNNER_NAMES);
}

/** `--remote`, else LOCKGUARD_REMOTE, else package.json's "lockguard.remote" (`team`), else auto. */
export function remoteOf(parsed: Parsed, env: Env, team?: RemoteMode): RemoteMode {
  const given = stringValue(parsed, 'remote');
  if (given !== undefined) return oneOf('--remote', given, REMOTE_MODES);
  const fromEnv = env['LOCKGUARD_REMOTE'];
  if (fromEnv !== undefined && fromEnv !== '') return oneOf('LOCKGUARD_REMOTE', fromEnv, REMOTE_MODES);
  return team ?? 'auto';
}
