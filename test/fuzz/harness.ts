// The lockfile fuzz: every mutant through every scenario of its format, each call watched for a hang, an
// exit 70, a code outside lockguard's own, and a leak of the planted secret (stdout, stderr, the ledger's
// run records, events and report).
//
// Owns: `runCase` (one mutant, in the calling thread, through an `invoke` that is `main()` in process or the
// real bin) and `fuzz` (many cases in a worker thread, with a per-call watchdog that terminates the worker on
// a hang and goes on with a fresh one).
// Invariants: deterministic per (seed, index); writes only under its own temp folders, removed after each case.

import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CliResult } from '../helpers/cli.js';
import { writeTree } from '../helpers/workspace.js';
import { fixturePath, FORMATS, formatNamed } from './formats.js';
import { mutant, random, type MutatorName } from './mutate.js';

export interface CaseSpec {
  readonly format: string;
  readonly fixture: string;
  readonly seed: number;
  readonly index: number;
}

export interface Failure {
  readonly kind: 'exit-70' | 'unexpected-code' | 'leak' | 'hang' | 'harness-error';
  readonly scenario: string;
  readonly argv: readonly string[];
  readonly code?: number;
  /** Where the secret showed (stdout, stderr, a ledger file), or the head of stderr for a crash. */
  readonly detail: string;
}

export interface CaseResult {
  readonly spec: CaseSpec;
  readonly mutator: MutatorName;
  readonly bytes: number;
  /** Per call: "<scenario> | <argv>" -> exit code. */
  readonly codes: ReadonlyArray<readonly [string, number]>;
  readonly failures: readonly Failure[];
}

export type Invoke = (argv: readonly string[], cwd: string, env: Record<string, string>) => Promise<CliResult>;

/** Exit codes lockguard itself may end these commands with (the children, `true` and `cp`, exit 0). */
const ALLOWED = new Set([0, 1, 2, 3]);
const SECRET_LETTERS = 'GHJKLMNPQRSTUVWXYZ';

/** A seed for one case, mixed from the run's seed, the format, the fixture and the index. */
function caseSeed(spec: CaseSpec): number {
  let h = spec.seed >>> 0;
  for (const char of `${spec.format}/${spec.fixture}/${spec.index}`)
    h = Math.imul(h ^ char.charCodeAt(0), 0x9e3779b1) >>> 0;
  return h;
}

/**
 * Every 6-character window of the secret: a partial quote (a parser's "...near here..." excerpt shows about
 * ten characters) counts as a leak. The secret's letters are not hex, so no digest in the output matches.
 */
function windows(secret: string): string[] {
  return Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));
}

function leakIn(text: string, pieces: readonly string[]): boolean {
  return pieces.some((piece) => text.includes(piece));
}

/** The ledger files that must never hold lockfile bytes (blobs are content-addressed copies by design). */
function ledgerTexts(root: string): [string, string][] {
  const runs = join(root, '.lockguard', 'runs');
  if (!existsSync(runs)) return [];
  const out: [string, string][] = [];
  for (const run of readdirSync(runs)) {
    for (const file of ['run.json', 'events.ndjson', 'report.json']) {
      const path = join(runs, run, file);
      if (existsSync(path)) out.push([`.lockguard/runs/${run}/${file}`, readFileSync(path, 'utf8')]);
    }
  }
  return out;
}

/** One mutant through every scenario of its format. `onCall` is told before each call (the watchdog's heartbeat). */
export async function runCase(
  spec: CaseSpec,
  invoke: Invoke,
  onCall: (label: string) => void = () => undefined,
): Promise<CaseResult> {
  const format = formatNamed(spec.format);
  const rng = random(caseSeed(spec));
  const secret = Array.from({ length: 24 }, () => rng.pick([...SECRET_LETTERS])).join('');
  const good = readFileSync(fixturePath(spec.fixture));
  const made = mutant(good.toString('utf8'), rng, format.mutators, format.syntax, (text, r) =>
    format.plant(text, secret, r),
  );
  const pieces = windows(secret);
  const codes: [string, number][] = [];
  const failures: Failure[] = [];
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lockguard-fuzz-')));
  try {
    const mutantPath = join(tmp, 'mutant');
    writeFileSync(mutantPath, made.bytes);
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: join(tmp, 'home') };
    for (const scenario of format.scenarios) {
      const root = join(tmp, scenario.name.replaceAll(' ', '-'));
      writeTree(root, format.workspace(good));
      for (const step of scenario.steps) {
        if ('write' in step) {
          writeFileSync(join(root, format.lockfile), step.write === 'good' ? good : made.bytes);
          continue;
        }
        const argv = step.argv.map((arg) =>
          arg.replace('{mutant}', mutantPath).replace('{lockfile}', join(root, format.lockfile)),
        );
        const label = `${scenario.name} | ${step.argv.join(' ')}`;
        onCall(label);
        const result = await invoke(argv, root, env);
        codes.push([label, result.code]);
        if (result.code === 70)
          failures.push({
            kind: 'exit-70',
            scenario: scenario.name,
            argv: step.argv,
            code: 70,
            detail: result.stderr.slice(0, 600),
          });
        else if (!ALLOWED.has(result.code))
          failures.push({
            kind: 'unexpected-code',
            scenario: scenario.name,
            argv: step.argv,
            code: result.code,
            detail: result.stderr.slice(0, 600),
          });
        if (leakIn(result.stdout, pieces))
          failures.push({ kind: 'leak', scenario: scenario.name, argv: step.argv, detail: 'stdout' });
        if (leakIn(result.stderr, pieces))
          failures.push({ kind: 'leak', scenario: scenario.name, argv: step.argv, detail: 'stderr' });
      }
      for (const [name, text] of ledgerTexts(root))
        if (leakIn(text, pieces)) failures.push({ kind: 'leak', scenario: scenario.name, argv: [], detail: name });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { spec, mutator: made.mutator, bytes: made.bytes.length, codes, failures };
}

export interface FuzzOptions {
  readonly seed: number;
  readonly count: number;
  /** Formats to fuzz (default: every format in formats.ts), cases spread over them and their fixtures in turn. */
  readonly formats?: readonly string[];
  /** A call that takes longer is a hang (default 20 s: a loaded CI machine is slow, a hang is endless). */
  readonly callTimeoutMs?: number;
  readonly onCase?: (result: CaseResult) => void;
}

export interface FuzzReport {
  readonly cases: number;
  readonly calls: number;
  readonly byMutator: Readonly<Record<string, number>>;
  /** Exit code -> calls. */
  readonly byCode: Readonly<Record<string, number>>;
  readonly failures: ReadonlyArray<Failure & { readonly spec: CaseSpec; readonly mutator?: string }>;
}

/** The cases of a run: formats and their fixtures in turn. */
export function casesOf(options: Pick<FuzzOptions, 'seed' | 'count' | 'formats'>): CaseSpec[] {
  const formats = (options.formats ?? FORMATS.map((format) => format.name)).map(formatNamed);
  const specs: CaseSpec[] = [];
  for (let index = 0; index < options.count; index++) {
    const format = formats[index % formats.length] as (typeof formats)[number];
    const fixture = format.fixtures[Math.floor(index / formats.length) % format.fixtures.length] as string;
    specs.push({ format: format.name, fixture, seed: options.seed, index });
  }
  return specs;
}

type WorkerMessage =
  | { readonly type: 'call'; readonly label: string }
  | { readonly type: 'done'; readonly result: CaseResult }
  | { readonly type: 'error'; readonly message: string };

/**
 * Run the cases in process (through `main`), in a worker thread: a call that does not return within the
 * timeout terminates the worker (a hang is recorded for that call) and the next case gets a new worker.
 */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const timeout = options.callTimeoutMs ?? 20_000;
  const byMutator: Record<string, number> = {};
  const byCode: Record<string, number> = {};
  const failures: (Failure & { spec: CaseSpec; mutator?: string })[] = [];
  let calls = 0;
  let worker: Worker | undefined;
  const workerUrl = new URL('./worker.js', import.meta.url);
  try {
    for (const spec of casesOf(options)) {
      worker ??= new Worker(workerUrl);
      const current = worker;
      const outcome = await new Promise<{ result?: CaseResult; hang?: string; error?: string }>((resolve) => {
        let label = '(start)';
        let timer: NodeJS.Timeout | undefined;
        const finish = (value: { result?: CaseResult; hang?: string; error?: string }): void => {
          clearTimeout(timer);
          current.off('message', onMessage);
          current.off('error', onError);
          resolve(value);
        };
        const onMessage = (message: WorkerMessage): void => {
          if (message.type === 'call') {
            label = message.label;
            clearTimeout(timer);
            timer = setTimeout(() => finish({ hang: label }), timeout);
          } else finish(message.type === 'done' ? { result: message.result } : { error: message.message });
        };
        const onError = (error: unknown): void =>
          finish({ error: error instanceof Error ? error.message : String(error) });
        timer = setTimeout(() => finish({ hang: label }), timeout);
        current.on('message', onMessage);
        current.on('error', onError);
        current.postMessage(spec);
      });
      if (outcome.result !== undefined) {
        const result = outcome.result;
        byMutator[result.mutator] = (byMutator[result.mutator] ?? 0) + 1;
        for (const [, code] of result.codes) byCode[String(code)] = (byCode[String(code)] ?? 0) + 1;
        calls += result.codes.length;
        for (const failure of result.failures) failures.push({ ...failure, spec, mutator: result.mutator });
        options.onCase?.(result);
        continue;
      }
      // A hang or a crash of the harness itself: the worker is gone or stuck; start over with a new one.
      await current.terminate();
      worker = undefined;
      const [scenario = '', argv = ''] = (outcome.hang ?? '').split(' | ');
      if (outcome.hang !== undefined)
        failures.push({
          kind: 'hang',
          scenario,
          argv: argv.split(' '),
          detail: `no answer within ${timeout} ms`,
          spec,
        });
      else failures.push({ kind: 'harness-error', scenario: '', argv: [], detail: outcome.error ?? '', spec });
    }
  } finally {
    await worker?.terminate();
  }
  return { cases: options.count, calls, byMutator, byCode, failures };
}
