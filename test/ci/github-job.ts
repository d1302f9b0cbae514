// A GitHub Actions job as the runner runs its `run:` steps, for the CI tests: each step is a bash script
// (`bash --noprofile --norc -eo pipefail`, what `shell: bash` runs) with its own fresh $GITHUB_OUTPUT,
// $GITHUB_ENV and $GITHUB_STEP_SUMMARY files; after the step, what it wrote to $GITHUB_ENV joins the
// environment of every later step, its outputs become `steps.<id>.outputs`, and its summary is appended
// to the job's. Both file forms the runner reads are parsed: `NAME=value` and `NAME<<DELIMITER` blocks.
//
// Invariants: nothing is simulated that lockguard writes: the files are real files the real built bin
// appends to; what the runner itself does (the env hand-over, `if:` conditions, the cache steps) is done
// here, in the open, by the test that names it.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StepResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly outputs: Readonly<Record<string, string>>;
}

export interface GithubJob {
  /** The job's environment: the base, plus every $GITHUB_ENV line written so far. */
  readonly env: Record<string, string>;
  /** `steps.<id>.outputs` of every step that had an id. */
  readonly outputs: Map<string, Readonly<Record<string, string>>>;
  /** Every step's $GITHUB_STEP_SUMMARY, in order. */
  summary: string;
  readonly dir: string;
  steps: number;
  /** What each step printed on stderr, for failure messages. */
  readonly log: string[];
}

export function githubJob(dir: string, env: Record<string, string>): GithubJob {
  mkdirSync(dir, { recursive: true });
  return {
    env: { ...env, GITHUB_ACTIONS: 'true', CI: 'true' },
    outputs: new Map(),
    summary: '',
    dir,
    steps: 0,
    log: [],
  };
}

/** The `NAME=value` and `NAME<<DELIMITER` lines of a runner command file. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line === '') continue;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const [, name = '', delimiter = ''] = heredoc;
      const body: string[] = [];
      while (++index < lines.length && lines[index] !== delimiter) body.push(lines[index] ?? '');
      out[name] = body.join('\n');
      continue;
    }
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`not a command file line: ${JSON.stringify(line)}`);
    out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** Run one `run:` step (shell: bash) in `cwd` with the job's env plus the step's `env:`. */
export function runStep(
  job: GithubJob,
  script: string,
  options: { readonly id?: string; readonly cwd: string; readonly env?: Record<string, string> },
): StepResult {
  const folder = join(job.dir, `step-${++job.steps}`);
  mkdirSync(folder);
  const files = { GITHUB_OUTPUT: 'output', GITHUB_ENV: 'env', GITHUB_STEP_SUMMARY: 'summary' } as const;
  for (const name of Object.values(files)) writeFileSync(join(folder, name), '');
  writeFileSync(join(folder, 'script.sh'), script);
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', join(folder, 'script.sh')], {
    cwd: options.cwd,
    env: {
      ...job.env,
      ...options.env,
      GITHUB_OUTPUT: join(folder, files.GITHUB_OUTPUT),
      GITHUB_ENV: join(folder, files.GITHUB_ENV),
      GITHUB_STEP_SUMMARY: join(folder, files.GITHUB_STEP_SUMMARY),
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
  Object.assign(job.env, parseCommandFile(readFileSync(join(folder, files.GITHUB_ENV), 'utf8')));
  const outputs = parseCommandFile(readFileSync(join(folder, files.GITHUB_OUTPUT), 'utf8'));
  if (options.id !== undefined) job.outputs.set(options.id, outputs);
  job.summary += readFileSync(join(folder, files.GITHUB_STEP_SUMMARY), 'utf8');
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, outputs };
}
