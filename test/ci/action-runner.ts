// The composite actions of lib/ci/ (restore, save) run step by step as the GitHub runner runs them, over
// github-job.ts's job: each `run:` step with bash and the real env files; `if:`, `env:`, `with:` and
// `working-directory:` evaluated from the `${{ }}` expressions the actions use; actions/cache/restore and
// actions/cache/save replaced by stand-ins that record what they were asked (and keep a cache of keys, as
// immutable as GitHub's: an existing key is never overwritten).
//
// The expression evaluator reads what these actions write: contexts (inputs, steps.<id>.outputs, runner,
// github, env), string literals, ==, !=, &&, ||, !, parentheses and the status functions. Anything else is
// an error here, so an action that grows past it fails its test instead of being run wrongly.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/tools.js';
import { runStep, type GithubJob } from './github-job.js';

export interface CacheCall {
  readonly action: 'restore' | 'save';
  readonly gate: string;
  readonly key: string;
  readonly path: string;
}

export interface Runner {
  readonly job: GithubJob;
  readonly root: string;
  readonly os: 'Linux' | 'macOS' | 'Windows';
  /** Saved keys (shared across jobs: the repository's cache). */
  readonly cache: Set<string>;
  readonly calls: CacheCall[];
  failed: boolean;
}

interface Step {
  readonly id?: string;
  readonly name?: string;
  readonly if?: string;
  readonly run?: string;
  readonly uses?: string;
  readonly shell?: string;
  readonly env?: Record<string, string>;
  readonly with?: Record<string, string>;
  readonly 'working-directory'?: string;
}

type Context = Record<string, unknown>;

const TOKEN = /\s*('(?:[^']|'')*'|[A-Za-z_][\w.-]*\(\)|[A-Za-z_][\w.-]*|==|!=|&&|\|\||!|\(|\)|\d+)/y;

/** One `${{ }}` expression's value. */
export function evaluate(expression: string, context: Context, failed: boolean): unknown {
  const parts: string[] = [];
  TOKEN.lastIndex = 0;
  const text = expression.trim();
  while (TOKEN.lastIndex < text.length) {
    const match = TOKEN.exec(text);
    if (match === null) throw new Error(`expression not understood: ${expression}`);
    const token = match[1] as string;
    if (token.startsWith("'")) parts.push(JSON.stringify(token.slice(1, -1).replaceAll("''", "'")));
    else if (token === 'true' || token === 'false' || /^\d+$/.test(token)) parts.push(token);
    else if (token.endsWith('()')) parts.push(JSON.stringify(status(token, failed)));
    else if (/^[A-Za-z_]/.test(token)) parts.push(JSON.stringify(lookup(context, token)));
    else parts.push(token === '==' ? '===' : token === '!=' ? '!==' : token);
  }
  return new Function(`return (${parts.join(' ')});`)();
}

function status(call: string, failed: boolean): boolean {
  if (call === 'success()') return !failed;
  if (call === 'failure()') return failed;
  if (call === 'always()') return true;
  if (call === 'cancelled()') return false;
  throw new Error(`unknown function ${call}`);
}

function lookup(context: Context, path: string): string {
  let value: unknown = context;
  for (const part of path.split('.')) value = (value as Context | undefined)?.[part];
  return value === undefined || value === null ? '' : String(value);
}

/** A string with its `${{ }}` parts replaced. */
export function interpolate(text: string, context: Context, failed: boolean): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => String(evaluate(expression, context, failed)));
}

function cacheStandIn(runner: Runner, step: Step, context: Context): Record<string, string> {
  const given = Object.fromEntries(
    Object.entries(step.with ?? {}).map(([name, value]) => [name, interpolate(String(value), context, runner.failed)]),
  );
  const gate = String((context['inputs'] as Context)['name'] ?? '');
  const call = { gate, key: given['key'] ?? '', path: given['path'] ?? '' };
  if (step.uses?.startsWith('actions/cache/save@')) {
    runner.calls.push({ action: 'save', ...call });
    runner.cache.add(call.key);
    return {};
  }
  runner.calls.push({ action: 'restore', ...call });
  const prefixes = (given['restore-keys'] ?? '').split('\n').filter((line) => line.trim() !== '');
  if (runner.cache.has(call.key)) return { 'cache-hit': 'true', 'cache-matched-key': call.key };
  const partial = [...runner.cache].find((key) => prefixes.some((prefix) => key.startsWith(prefix)));
  return partial === undefined ? {} : { 'cache-hit': 'false', 'cache-matched-key': partial };
}

/** `uses: <repo>/lib/ci/<which>` with `inputs`, as the runner runs a composite action; its outputs. */
export function useAction(
  runner: Runner,
  which: 'restore' | 'save',
  inputs: Record<string, string>,
  condition = 'success()',
): Record<string, string> | undefined {
  if (!evaluate(condition, {}, runner.failed)) return undefined;
  const actionPath = join(REPO, 'lib', 'ci', which);
  const action = parse(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: Step[] };
  };
  const withDefaults: Context = {};
  for (const [name, spec] of Object.entries(action.inputs)) withDefaults[name] = inputs[name] ?? spec.default ?? '';
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const context = (): Context => ({
    inputs: withDefaults,
    steps,
    runner: { os: runner.os, temp: runner.job.env['RUNNER_TEMP'] },
    github: { action_path: actionPath },
    env: runner.job.env,
  });
  let failed = runner.failed;
  for (const step of action.runs.steps) {
    if (!evaluate(step.if ?? 'success()', context(), failed)) continue;
    let outputs: Record<string, string> = {};
    if (step.uses !== undefined) outputs = cacheStandIn(runner, step, context());
    else {
      if (step.shell !== 'bash') throw new Error(`${step.name}: a run step without shell: bash`);
      const env = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([name, value]) => [name, interpolate(String(value), context(), failed)]),
      );
      const dir = interpolate(step['working-directory'] ?? '.', context(), failed);
      const result = runStep(runner.job, step.run ?? '', { cwd: join(runner.root, dir), env });
      outputs = { ...result.outputs };
      if (result.code !== 0) failed = true;
      runner.job.log.push(`${which}/${step.name}: exit ${result.code}\n${result.stdout}${result.stderr}`);
    }
    if (step.id !== undefined) steps[step.id] = { outputs };
  }
  runner.failed = failed;
  return Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, interpolate(spec.value, context(), failed)]),
  );
}

const REPO = REPO_ROOT;

/** A `run:` step of the workflow itself (default if: success()). */
export function workflowStep(runner: Runner, script: string): void {
  if (runner.failed) return;
  const result = runStep(runner.job, script, { cwd: runner.root });
  runner.job.log.push(`run ${script}: exit ${result.code}\n${result.stdout}${result.stderr}`);
  if (result.code !== 0) runner.failed = true;
}
