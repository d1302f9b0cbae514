// Caching runners lockguard does not guard, found so the line can name them instead of implying protection.
//
// Owns: `unguardedRunners(root, steps)`: Rush (`rush.json`), or a command step that starts it; with the file
// that configures it, where its local cache is, and what a user does about a stale save there. What its keys
// fold is measured in FIELD-NOTES ("Other caching runners"). (wireit, moon and lage are guarded since they have
// adapters: runners/wireit/, runners/moon/, runners/lage/.)
// Invariants: a few lstats; never runs anything; never throws;
// an unguarded runner is never counted as guarded and its cache is never touched.

import { join } from 'node:path';
import { executableName } from '../package-managers/argv.js';
import { present } from './workspace-files.js';

type UnguardedName = 'rush';

export interface UnguardedRunner {
  readonly name: UnguardedName;
  /** The runner in words (`moon`, `Rush`). */
  readonly label: string;
  /** What says it is here: the config file, or the command that starts it. */
  readonly evidence: string;
  /** Its local cache, as the user finds it. */
  readonly cache: string;
  /** What to do about a save there keyed before the change. */
  readonly fix: string;
}

interface Known {
  readonly label: string;
  readonly files: readonly string[];
  readonly cache: string;
  readonly fix: string;
}

const KNOWN: Readonly<Record<UnguardedName, Known>> = {
  rush: {
    label: 'Rush',
    files: ['rush.json'],
    cache: 'common/temp/build-cache',
    fix: 'run rush install, then delete common/temp/build-cache before the next build',
  },
};

const ORDER: readonly UnguardedName[] = ['rush'];

/** The command name each runner's binary goes by (`rush` and `rushx` for Rush). */
function startedName(argv: readonly string[]): UnguardedName | undefined {
  const first = argv[0];
  if (first === undefined) return undefined;
  const name = executableName(first);
  if (name === 'rushx') return 'rush';
  return ORDER.find((known) => known === name);
}

/**
 * The unguarded caching runners at `root`, from their config files, plus any of `steps` (the simple commands
 * the guarded command may run: detect.ts stepsOf) starts. Fixed order; each named once.
 */
export function unguardedRunners(root: string, steps: readonly (readonly string[])[] = []): UnguardedRunner[] {
  const found = new Map<UnguardedName, string>();
  for (const name of ORDER) {
    const file = KNOWN[name].files.find((candidate) => present(join(root, candidate)));
    if (file !== undefined && !found.has(name)) found.set(name, file);
  }
  for (const argv of steps) {
    const name = startedName(argv);
    if (name !== undefined && !found.has(name)) found.set(name, `the command starts ${name}`);
  }
  return ORDER.filter((name) => found.has(name)).map((name) => ({
    name,
    label: KNOWN[name].label,
    evidence: found.get(name) ?? '',
    cache: KNOWN[name].cache,
    fix: KNOWN[name].fix,
  }));
}
