// Deep inputs stop at a depth limit with exit 2 naming the path (never a RangeError, exit 70), and lockfiles
// the real tools refuse are refused, each judged by the real tool in the test itself: bun 1.4.5
// (`bun install --frozen-lockfile`) and yarn 1.22 (`yarn install --frozen-lockfile --offline`), both pinned
// devDependencies, run in a temp workspace with HOME and caches isolated.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { isolatedEnv } from '../helpers/env.js';
import { assertSetupError } from '../helpers/errors.js';
import { BUN, mustRun, runTool, YARN1 } from '../helpers/tools.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('a turbo.json or nx.json nested 10,000 deep: init exits 2 naming it, doctor reports it (never exit 70)', (t) => {
  for (const [file, text] of [
    ['turbo.json', `{"tasks":{"build":{"inputs":${deep(10_000)}}}}`],
    ['nx.json', `{"targetDefaults":${deep(10_000)}}`],
  ] as const) {
    const root = tempWorkspace(t, { ...pnpmTree(), [file]: text });
    assertSetupError(cliProcess(['init', '--sound-keys', '--no-pnpmfile'], root), join(root, file));
    const doctor = cliProcess(['doctor'], root);
    assert.notEqual(doctor.code, 70, doctor.stderr);
    assert.doesNotMatch(doctor.stderr, /RangeError|internal error/);
    if (file === 'turbo.json') assert.match(doctor.stdout, /nested deeper than 1000 levels/);
  }
});

/** A yarn 1 workspace with two file: dependencies (one depends on the other), installed once by yarn 1 itself. */
function yarn1Workspace(t: Parameters<typeof tempWorkspace>[0]): {
  root: string;
  env: Record<string, string>;
  lock: string;
} {
  const tmp = tempWorkspace(t, {}, 'lockguard-yarn1-');
  const root = join(tmp, 'ws');
  mkdirSync(root);
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'root',
      private: true,
      dependencies: { dep: 'file:./vendor/dep', dep2: 'file:./vendor/dep2' },
    }),
  );
  for (const [name, deps] of [
    ['dep', {}],
    ['dep2', { dep: 'file:../dep' }],
  ] as const) {
    mkdirSync(join(root, 'vendor', name), { recursive: true });
    writeFileSync(
      join(root, 'vendor', name, 'package.json'),
      JSON.stringify({ name, version: '1.0.0', dependencies: deps }),
    );
  }
  const env = isolatedEnv(tmp);
  mustRun(YARN1, ['install', '--non-interactive'], root, env);
  return { root, env, lock: readFileSync(join(root, 'yarn.lock'), 'utf8') };
}

test('yarn v1: BOM, trailing garbage and trailing whitespace get the verdict yarn 1.22 gives them; 5,000 levels deep is exit 2', (t) => {
  const { root, env, lock } = yarn1Workspace(t);
  assert.match(lock, /dependencies:/, 'the lockfile has a dependency block, as real ones do');
  const variants: Record<string, string> = {
    bom: `\uFEFF${lock}`,
    'trailing word': `${lock}garbage\n`,
    'trailing braces': `${lock}}}}\n`,
    'trailing spaces': `${lock}   `,
    'trailing space line': `${lock} \n`,
    'trailing tab': `${lock}\t\n`,
    'trailing blank lines': `${lock}\n\n`,
  };
  const verdicts: string[] = [];
  for (const [name, text] of Object.entries(variants)) {
    writeFileSync(join(root, 'yarn.lock'), text);
    rmSync(join(root, 'node_modules'), { recursive: true, force: true });
    const yarn = runTool(YARN1, ['install', '--frozen-lockfile', '--non-interactive'], root, env).code === 0;
    writeFileSync(join(root, 'yarn.lock'), text);
    const ours = cliProcess(['key', '--projects'], root, env);
    assert.ok(ours.code === 0 || ours.code === 2, `${name}: exit ${ours.code}\n${ours.stderr}`);
    assert.equal(
      ours.code === 0,
      yarn,
      `${name}: yarn 1.22 ${yarn ? 'accepts' : 'refuses'} it, lockguard exits ${ours.code}`,
    );
    verdicts.push(`${name}: ${yarn ? 'accepted' : 'refused'}`);
  }
  // Both verdicts occur: the comparison can fail either way.
  assert.ok(
    verdicts.some((v) => v.endsWith('accepted')) && verdicts.some((v) => v.endsWith('refused')),
    verdicts.join('; '),
  );

  // 5,000 levels: yarn's own parser recurses once per level; lockguard stops at its limit with exit 2.
  let nested = '';
  for (let level = 0; level < 5000; level++) nested += `${'  '.repeat(level + 1)}k${level}:\n`;
  writeFileSync(join(root, 'yarn.lock'), lock.replace(/\n"dep@/, `\n"deep@1":\n  version "1.0.0"\n${nested}\n"dep@`));
  for (const argv of [['key', '--projects'], ['key']]) {
    const result = cliProcess(argv, root, env);
    if (argv.length === 2) assertSetupError(result, join(root, 'yarn.lock'));
    else assert.notEqual(result.code, 70, result.stderr);
  }
});

/** A bun workspace (root and packages/a) whose bun.lock bun 1.4.5 wrote. */
function bunWorkspace(t: Parameters<typeof tempWorkspace>[0]): {
  root: string;
  env: Record<string, string>;
  lock: string;
} {
  const tmp = tempWorkspace(t, {}, 'lockguard-bun-');
  const root = join(tmp, 'ws');
  mkdirSync(join(root, 'packages', 'a'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"root","private":true,"workspaces":["packages/*"]}');
  writeFileSync(join(root, 'packages', 'a', 'package.json'), '{"name":"a","version":"1.0.0"}');
  const env = isolatedEnv(tmp);
  mustRun(BUN, ['install'], root, env);
  return { root, env, lock: readFileSync(join(root, 'bun.lock'), 'utf8') };
}

test('bun.lock: lockfileVersion -1, 99, 1e999 and arrays nested past the limit get the verdict bun 1.4.5 gives them', (t) => {
  const { root, env, lock } = bunWorkspace(t);
  assert.match(lock, /"lockfileVersion": \d/);
  const withVersion = (value: string): string => lock.replace(/"lockfileVersion": \d+/, `"lockfileVersion": ${value}`);
  const withExtra = (value: string): string =>
    lock.replace(/"lockfileVersion": (\d+),/, (line) => `${line}\n  "extra": ${value},`);
  const cases: Record<string, string> = {
    'version -1': withVersion('-1'),
    'version 99': withVersion('99'),
    'version 1e999': withVersion('1e999'),
    'version 1.5': withVersion('1.5'),
    'version 1.0': withVersion('1.0'),
    'version 3': withVersion('3'),
    'arrays 60,000 deep': withExtra(deep(60_000)),
    'arrays 10 deep': withExtra(deep(10)),
  };
  for (const [name, text] of Object.entries(cases)) {
    writeFileSync(join(root, 'bun.lock'), text);
    const bun = runTool(BUN, ['install', '--frozen-lockfile'], root, env).code === 0;
    writeFileSync(join(root, 'bun.lock'), text);
    const ours = cliProcess(['key', '--projects'], root, env);
    assert.ok(ours.code === 0 || ours.code === 2, `${name}: exit ${ours.code}\n${ours.stderr}`);
    assert.equal(ours.code === 0, bun, `${name}: bun ${bun ? 'accepts' : 'refuses'} it, lockguard exits ${ours.code}`);
  }
  // 10,000 deep (bun 1.4.5 reads it here: its limit is its stack, about 47,000 levels): refused by lockguard's limit.
  writeFileSync(join(root, 'bun.lock'), withExtra(deep(10_000)));
  assertSetupError(cliProcess(['key', '--projects'], root, env), join(root, 'bun.lock'));
});
