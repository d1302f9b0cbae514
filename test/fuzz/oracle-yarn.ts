// The yarn berry parser oracle: does yarn 4 read a yarn.lock (its own parser, @yarnpkg/parsers parseSyml,
// then the checks yarn's Project.setupResolutions makes of every entry), and when it does, do lockguard's
// slices reach what yarn's parse reaches? Cheap enough for many mutants of a large real lockfile (jest's);
// the real yarn judges a few of a small one (oracle-tools.ts).
// Test-only: lockguard's library never loads a yarn parser.

import type { LockfileSlices } from '../../lib/core/slices/slices.js';
import { slicesFromLockfile } from '../../lib/core/slices/index.js';
import { parseSyml, yarnBerryReach } from '../helpers/slices-reach-yarn-bun.js';
import { mutant, random } from './mutate.js';
import { graphReach, ORACLE_MUTATORS } from './oracle.js';

type Parsed = Record<string, Record<string, unknown>>;

/** yarn's strict locator (structUtils.parseLocator(string, true)): a name, `@`, a reference. */
const LOCATOR = /^((?:@[^/]+?\/)?[^/]+?)@(.+)$/;

/** What yarn 4 makes of the text when it reads the project: its parse, or undefined when it throws. */
export function yarnReads(text: string): Parsed | undefined {
  let parsed: Parsed;
  try {
    parsed = parseSyml(text);
  } catch {
    return undefined;
  }
  for (const [key, entry] of Object.entries(parsed)) {
    if (key === '__metadata') continue;
    // `data.resolution` undefined is an assertion; a locator it cannot parse throws; `linkType.toUpperCase()`.
    if (entry === null || typeof entry !== 'object') return undefined;
    const resolution = entry['resolution'];
    if (typeof resolution !== 'string' || !LOCATOR.test(resolution)) return undefined;
    if (typeof entry['linkType'] !== 'string') return undefined;
    const checksum = entry['checksum'];
    if (checksum !== undefined && checksum !== null && typeof checksum !== 'string') return undefined;
  }
  return parsed;
}

/** A node of our graph named as yarnBerryReach names them (resolution, or `missing d`). */
const berryName = (own: string): string =>
  own.startsWith('leaf\n') ? own.slice(5) : (/^ {2}resolution: "?(.*?)"?$/m.exec(own)?.[1] ?? own);

export interface YarnOracleCounts {
  readonly tried: number;
  /** Mutants yarn cannot read... */
  readonly rejected: number;
  /** ...of which lockguard sliced (must be 0). */
  readonly rejectedButSliced: number;
  readonly accepted: number;
  readonly acceptedSameReach: number;
  /** Read by both with another reach: a silent misreading (must be 0). */
  readonly acceptedOtherReach: number;
  /** Read by yarn, refused by lockguard (yarn --immutable refuses most of these too: not its layout). */
  readonly acceptedButRefused: number;
  readonly offenders: readonly string[];
}

/** `count` seeded mutants of `text` judged by yarn's parse and by lockguard's slices. */
export function yarnOracleRun(text: string, seed: number, count: number): YarnOracleCounts {
  const rng = random(seed);
  const counts = {
    tried: 0,
    rejected: 0,
    rejectedButSliced: 0,
    accepted: 0,
    acceptedSameReach: 0,
    acceptedOtherReach: 0,
    acceptedButRefused: 0,
  };
  const offenders: string[] = [];
  for (let i = 0; i < count; i++) {
    counts.tried++;
    const made = mutant(text, rng, ORACLE_MUTATORS, 'yaml', (source) => ({ text: source, at: rng.int(source.length) }));
    const theirs = yarnReads(made.bytes.toString('utf8'));
    let ours: LockfileSlices | undefined;
    try {
      ours = slicesFromLockfile(made.bytes, { lockfile: 'yarn.lock', root: '/nonexistent', names: false });
    } catch (error) {
      if (typeof (error as { code?: unknown }).code !== 'string') throw error;
    }
    if (theirs === undefined) {
      counts.rejected++;
      if (ours !== undefined) counts.rejectedButSliced++, offenders.push(`rejected but sliced: ${made.mutator} #${i}`);
      continue;
    }
    counts.accepted++;
    if (ours === undefined) {
      counts.acceptedButRefused++;
      continue;
    }
    const a = graphReach(ours, berryName);
    const b = yarnBerryReach(theirs);
    const same =
      a.size === b.size &&
      [...b].every(([importer, nodes]) => {
        const mine = a.get(importer);
        return mine !== undefined && mine.size === nodes.size && [...nodes].every((node) => mine.has(node));
      });
    if (same) counts.acceptedSameReach++;
    else counts.acceptedOtherReach++, offenders.push(`other reach: ${made.mutator} #${i}`);
  }
  return { ...counts, offenders };
}
