// lib/ci/README.md's table is the single source of truth for the CI recipes: each row says where the gate
// stands (`gate`) and links its recipe. This test reads the table and holds every linked recipe to its row,
// on the parsed file (yaml): action-pair (a restore before and a save after the job's steps, one pair per
// cache, each named once), last-step (the job's last line or step is `lockguard verify`, a snapshot before
// the build), before-save (verify the step right before the save). A recipe that changes its gate without
// its row (or the other way round) fails here; each rule is shown to reject a mutant.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/tools.js';

const README = join(REPO_ROOT, 'lib', 'ci', 'README.md');
type Gate = 'action-pair' | 'last-step' | 'before-save' | 'none';

interface Row {
  readonly ci: string;
  readonly gate: Gate;
  readonly recipe: string | undefined;
  /** The row's "lockguard there" cell: what the recipe does. */
  readonly there: string;
}

function table(): Row[] {
  const lines = readFileSync(README, 'utf8').split('\n');
  const head = lines.findIndex((line) => line.startsWith('| CI | key fixed |'));
  assert.ok(head !== -1, 'the table is in lib/ci/README.md');
  const columns = (line: string) => line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim());
  const names = columns(lines[head] ?? '');
  assert.deepEqual(names, ['CI', 'key fixed', 'save decided by', 'lockguard there', 'gate', 'recipe']);
  const rows: Row[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    const cells = columns(line);
    const link = /\]\(([^)]+)\)/.exec(cells[5] ?? '')?.[1];
    rows.push({
      ci: cells[0] ?? '',
      gate: cells[4] as Gate,
      there: cells[3] ?? '',
      recipe: link === undefined ? undefined : resolve(dirname(README), link),
    });
  }
  return rows;
}

type Doc = Record<string, unknown>;
const isVerify = (text: unknown) =>
  /\blockguard\b.* verify\b|\$LOCKGUARD"? verify\b|\$LOCKGUARD verify\b/.test(String(text));
const isSnapshot = (text: unknown) =>
  /\blockguard\b.* snapshot\b|\$LOCKGUARD"? snapshot\b|\$LOCKGUARD snapshot\b/.test(String(text));

/** What breaks `action-pair` in a GitHub workflow (empty: sound). */
function actionPairProblems(doc: Doc): string[] {
  const problems: string[] = [];
  for (const job of Object.values(doc['jobs'] as Record<string, { steps: Doc[] }>)) {
    const steps = job.steps;
    const at = (kind: string) =>
      steps.flatMap((step, index) => (String(step['uses'] ?? '').includes(`/lib/ci/${kind}@`) ? [index] : []));
    const name = (index: number) => String((steps[index]?.['with'] as Doc | undefined)?.['name'] ?? '');
    const restores = at('restore');
    const saves = at('save');
    const lastRun = Math.max(...steps.flatMap((step, index) => (step['run'] === undefined ? [] : [index])));
    if (restores.length === 0) problems.push('no lib/ci/restore step');
    const names = restores.map(name);
    if (new Set(names).size !== names.length || names.includes(''))
      problems.push('a restore gate is unnamed or named twice');
    for (const index of restores) {
      const saved = saves.filter((save) => name(save) === name(index));
      if (saved.length !== 1) problems.push(`gate ${name(index)} has ${saved.length} saves`);
      else if ((saved[0] as number) < lastRun) problems.push(`gate ${name(index)} saves before the job's last step`);
    }
    if (saves.some((save) => !names.includes(name(save)))) problems.push('a save names no restore');
  }
  return problems;
}

/** The commands of a recipe's saving job, in order, for the CIs whose gate is the job's last line or step. */
function commands(ci: string, doc: Doc): string[] {
  if (ci.startsWith('GitLab')) return ((doc['build'] as Doc)['script'] as string[]).map(String);
  if (ci.startsWith('Azure'))
    return (doc['steps'] as Doc[]).map((step) => String(step['bash'] ?? step['script'] ?? step['task'] ?? ''));
  if (ci.startsWith('Buildkite')) return (((doc['steps'] as Doc[])[0]?.['command'] ?? []) as string[]).map(String);
  throw new Error(`no reader for ${ci}`);
}

function lastStepProblems(ci: string, doc: Doc): string[] {
  const lines = commands(ci, doc);
  const problems: string[] = [];
  if (!isVerify(lines.at(-1))) problems.push('lockguard verify is not the last line');
  const snapshot = lines.findIndex(isSnapshot);
  const build = lines.findIndex((line) => /\brun build\b/.test(line));
  if (snapshot === -1 || build === -1 || snapshot > build) problems.push('no lockguard snapshot before the build');
  if (lines.some((line) => /\bnpx\b/.test(line))) problems.push('an npx line');
  return problems;
}

function beforeSaveProblems(doc: Doc): string[] {
  const steps = ((doc['jobs'] as Doc)['build'] as Doc)['steps'] as unknown[];
  const save = steps.findIndex((step) => typeof step === 'object' && step !== null && 'save_cache' in step);
  const before = steps[save - 1] as Doc | undefined;
  return isVerify((before?.['run'] as Doc | undefined)?.['command']) ? [] : ['verify is not right before save_cache'];
}

/** The row says the key is written by `snapshot --key-file` exactly when the recipe (comments dropped) does. */
function keyFileProblems(row: Row, doc: Doc): string[] {
  const said = row.there.includes('--key-file');
  const done = /\bsnapshot\b[^"]*--key-file\b/.test(JSON.stringify(doc));
  if (said === done) return [];
  return [
    said
      ? 'the row says --key-file, the recipe does not use it'
      : 'the recipe uses --key-file, the row does not say it',
  ];
}

function problems(row: Row, text: string): string[] {
  const doc = parse(text) as Doc;
  const keyFile = keyFileProblems(row, doc);
  if (row.gate === 'action-pair') return [...actionPairProblems(doc), ...keyFile];
  if (row.gate === 'last-step') return [...lastStepProblems(row.ci, doc), ...keyFile];
  if (row.gate === 'before-save') return [...beforeSaveProblems(doc), ...keyFile];
  return [`row ${row.ci} links a recipe but has no gate`];
}

test('the table has a row per CI the issue names, each with a gate', () => {
  const rows = table();
  for (const ci of ['GitHub', 'GitLab', 'CircleCI', 'Azure', 'Buildkite', 'Bitbucket', 'Jenkins', 'setup-node'])
    assert.ok(
      rows.some((row) => row.ci.includes(ci)),
      `a row for ${ci}`,
    );
  for (const row of rows) assert.ok(['action-pair', 'last-step', 'before-save', 'none'].includes(row.gate), row.ci);
});

test('every recipe the table links follows its row', () => {
  const linked = table().filter((row) => row.recipe !== undefined);
  assert.ok(linked.length >= 5);
  for (const row of linked) {
    assert.ok(existsSync(row.recipe as string), `${row.ci}: ${row.recipe}`);
    assert.deepEqual(problems(row, readFileSync(row.recipe as string, 'utf8')), [], row.ci);
  }
});

test('each rule rejects a mutant of its recipe', () => {
  const rows = table();
  const row = (ci: string) => rows.find((candidate) => candidate.ci.startsWith(ci)) as Row;
  const text = (ci: string) => readFileSync(row(ci).recipe as string, 'utf8');
  const cases: [string, string, string, string][] = [
    [
      'GitHub Actions, `actions/cache/restore`',
      '        with:\n          name: turbo\n',
      '        with:\n          name: store\n',
      'a restore gate is unnamed or named twice',
    ],
    [
      'GitLab',
      '    - $LOCKGUARD verify --dotenv lockguard.env\n',
      '    - $LOCKGUARD verify --dotenv lockguard.env\n    - pnpm -r run lint\n',
      'lockguard verify is not the last line',
    ],
    [
      'Azure',
      '  - bash: pnpm exec lockguard snapshot\n',
      '  - bash: echo no snapshot\n',
      'no lockguard snapshot before the build',
    ],
    ['Buildkite', '      - pnpm exec lockguard verify\n', '      - npx --yes lockguard@0.1.0 verify\n', 'an npx line'],
    [
      'CircleCI',
      '      - save_cache:',
      '      - run: pnpm -r run lint\n      - save_cache:',
      'verify is not right before save_cache',
    ],
    [
      'CircleCI',
      'snapshot --key-file /tmp/lockguard/cache-key',
      'snapshot',
      'the row says --key-file, the recipe does not use it',
    ],
  ];
  for (const [ci, from, to, problem] of cases) {
    assert.ok(text(ci).includes(from), `${ci} has ${JSON.stringify(from)}`);
    assert.ok(problems(row(ci), text(ci).replace(from, to)).includes(problem), `${ci}: ${problem}`);
  }
});
