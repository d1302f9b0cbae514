// What the lockfile fuzz runs: per lockfile format, its real fixtures, where a secret can be planted, the
// mutators that apply, and the command scenarios that read the lockfile.
//
// To add a format: list it in FORMATS with its fixture(s) under test/fixtures/lockfiles, the
// workspace files around the lockfile (a manifest; install markers for the pre-run check), a `plant` that
// puts the secret in a value no command prints (an integrity, a checksum), and its scenarios
// (COMMON_SCENARIOS fit any format whose lockfile every command reads).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../helpers/fixtures.js';
import type { Tree } from '../helpers/workspace.js';
import { JSON_MUTATORS, YAML_MUTATORS, type MutatorName, type Random } from './mutate.js';

/** One step of a scenario: write the good bytes or the mutant to the lockfile, or run lockguard with argv. */
export type Step = { readonly write: 'good' | 'mutant' } | { readonly argv: readonly string[] };

export interface Scenario {
  readonly name: string;
  readonly steps: readonly Step[];
}

/** `{mutant}` and `{lockfile}` in argv are replaced by the mutant's path (outside the workspace) and the lockfile's. */
export const COMMON_SCENARIOS: readonly Scenario[] = [
  {
    name: 'at rest',
    steps: [
      { write: 'mutant' },
      { argv: ['key'] },
      { argv: ['key', '--projects'] },
      { argv: ['key', '--projects', '--json'] },
      { argv: ['snapshot'] },
      { argv: ['snapshot', '--json'] },
      { argv: ['run', '--', 'true'] },
    ],
  },
  {
    name: 'moved under a snapshot',
    steps: [
      { write: 'good' },
      { argv: ['snapshot'] },
      { write: 'mutant' },
      { argv: ['verify'] },
      { argv: ['verify', '--json'] },
      { argv: ['status'] },
      { argv: ['status', '--json'] },
    ],
  },
  {
    name: 'moved during a run',
    steps: [
      { write: 'good' },
      { argv: ['run', '--no-pre-check', '--', 'cp', '{mutant}', '{lockfile}'] },
      { argv: ['status'] },
      { argv: ['status', '--json'] },
    ],
  },
];

export interface FuzzFormat {
  readonly name: string;
  readonly syntax: 'yaml' | 'json';
  /** The lockfile's name in the workspace root. */
  readonly lockfile: string;
  /** Real lockfiles to mutate, relative to test/fixtures/lockfiles. */
  readonly fixtures: readonly string[];
  /** The files around the lockfile, given the good bytes (manifests, install markers). */
  workspace(good: Buffer): Tree;
  /** The text with `secret` planted where no command prints it; `at` is where it sits. */
  plant(text: string, secret: string, rng: Random): { readonly text: string; readonly at: number };
  readonly mutators: readonly MutatorName[];
  readonly scenarios: readonly Scenario[];
}

/** Replace one of the values matched by `pattern` (its group 1) with `secret`. */
function plantIn(text: string, pattern: RegExp, secret: string, rng: Random, from = 0): { text: string; at: number } {
  const spots = [...text.slice(from).matchAll(pattern)];
  if (spots.length === 0) return { text: `${text}\n`, at: 0 };
  const spot = rng.pick(spots);
  const at = from + (spot.index ?? 0) + spot[0].indexOf(spot[1] ?? '');
  return { text: text.slice(0, at) + secret + text.slice(at + (spot[1] ?? '').length), at };
}

/** The main document of a pnpm lockfile as the pnpm install marker holds it (pnpm writes it in its own layout). */
function pnpmMarker(good: Buffer): string {
  const text = good.toString('utf8');
  const second = text.startsWith('---\n') ? text.indexOf('\n---\n', 3) : -1;
  return second === -1 ? text : text.slice(second + 5);
}

export const FORMATS: readonly FuzzFormat[] = [
  {
    name: 'pnpm',
    syntax: 'yaml',
    lockfile: 'pnpm-lock.yaml',
    fixtures: ['vue-core/pnpm-lock.yaml', 'astro/pnpm-lock.yaml'],
    workspace: (good) => ({
      'package.json': '{"name":"fuzz-root","private":true}\n',
      'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\n',
      'node_modules/.pnpm/lock.yaml': pnpmMarker(good),
    }),
    // An integrity in the main document's packages section: pnpm never prints it, nor does lockguard.
    plant: (text, secret, rng) =>
      plantIn(text, /integrity: sha512-([A-Za-z0-9+/]{16,}=*)/g, secret, rng, text.lastIndexOf('\npackages:')),
    mutators: YAML_MUTATORS,
    scenarios: COMMON_SCENARIOS,
  },
  {
    name: 'npm',
    syntax: 'json',
    lockfile: 'package-lock.json',
    fixtures: ['lit/package-lock.json'],
    workspace: (good) => {
      const lock = JSON.parse(good.toString('utf8')) as { packages: Record<string, unknown> };
      delete lock.packages[''];
      return {
        'package.json': '{"name":"fuzz-root","private":true,"workspaces":["packages/*"]}\n',
        'node_modules/.package-lock.json': `${JSON.stringify(lock, null, 2)}\n`,
      };
    },
    // The whole value of an integrity: a parser's excerpt around a broken quote would show it.
    plant: (text, secret, rng) => plantIn(text, /"integrity": "(sha512-[A-Za-z0-9+/]{16,}=*)"/g, secret, rng),
    mutators: JSON_MUTATORS,
    scenarios: COMMON_SCENARIOS,
  },
  {
    name: 'yarn-berry',
    syntax: 'yaml',
    lockfile: 'yarn.lock',
    fixtures: ['yarn-berry-jest/yarn.lock'],
    workspace: () => ({ 'package.json': '{"name":"fuzz-root","private":true,"workspaces":["packages/*"]}\n' }),
    // A checksum: yarn prints it only when it does not match, lockguard never.
    plant: (text, secret, rng) => plantIn(text, /checksum: 10c0\/([0-9a-f]{24})/g, secret, rng),
    mutators: YAML_MUTATORS,
    scenarios: COMMON_SCENARIOS,
  },
  {
    name: 'yarn-v1',
    syntax: 'yaml',
    lockfile: 'yarn.lock',
    fixtures: ['yarn-v1-webpack/yarn.lock'],
    // webpack's own manifest: yarn v1's importers come from it.
    workspace: () => ({ 'package.json': readFileSync(fixturePath('yarn-v1-webpack/package.json')) }),
    plant: (text, secret, rng) => plantIn(text, /integrity sha512-([A-Za-z0-9+/]{24})/g, secret, rng),
    mutators: YAML_MUTATORS,
    scenarios: COMMON_SCENARIOS,
  },
  {
    name: 'bun',
    syntax: 'json',
    lockfile: 'bun.lock',
    fixtures: ['bun-synthetic/bun.lock', 'bun-workspace/bun.lock'],
    workspace: () => ({ 'package.json': '{"name":"fuzz-root","private":true,"workspaces":["packages/*"]}\n' }),
    plant: (text, secret, rng) => plantIn(text, /"sha512-([A-Za-z0-9+/]{24})/g, secret, rng),
    mutators: JSON_MUTATORS,
    scenarios: COMMON_SCENARIOS,
  },
];

export function fixturePath(fixture: string): string {
  return join(fixturesDir(), fixture);
}

export function formatNamed(name: string): FuzzFormat {
  const format = FORMATS.find((candidate) => candidate.name === name);
  if (format === undefined) throw new Error(`no fuzz format "${name}"`);
  return format;
}
