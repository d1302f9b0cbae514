// The real tools as the lockfile oracle: mutants of a lockfile the real yarn 4.18.1, yarn 1.22.22 or bun
// 1.4.5 wrote, each through that tool's frozen install (`yarn install --immutable`, `yarn install
// --frozen-lockfile`, `bun install --frozen-lockfile`) and through lockguard's reader.
//
// Owns: `toolOracle` (a template workspace installed once, offline and isolated: env.ts isolatedEnv, local
// tarballs, yarn's cache inside it), `toolVerdict` (what the tool's output says: it read the lockfile and
// installed; it could not read it; or it read it and found it out of date, "would be modified") and
// `toolOracleRun` (seeded mutants, counted).
// The rule checked: every mutant the tool cannot read, lockguard refuses (ERR_LOCKGUARD_BROKEN_LOCKFILE or
// _UNSUPPORTED_LOCKFILE). A mutant the tool reads but finds out of date is a lockfile lockguard may slice
// (a pull request that edits a manifest without the lockfile is exactly that); one it installs from,
// lockguard should read too (counted: refusing it is the safe direction, but a cost to users).
// Test-only; writes only under the folder it is given.

import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { slicesFromLockfile } from '../../lib/core/slices/index.js';
import { isolatedEnv } from '../helpers/env.js';
import { runTool } from '../helpers/tools.js';
import { cloneEnv, FLAVORS, installTemplate, packDeps, type Flavor, type FlavorSpec } from '../helpers/yarn-bun.js';
import { mutant, random, type MutatorName } from './mutate.js';
import { ORACLE_MUTATORS } from './oracle.js';

export type ToolVerdict = 'installs' | 'cannot-read' | 'out-of-date';

/** What a frozen install's exit code and output say about the lockfile. */
export function toolVerdict(flavor: Flavor, code: number, output: string): ToolVerdict {
  if (code === 0) return 'installs';
  if (flavor === 'bun')
    return /failed to parse lockfile|InvalidLockfile|ParserError|SyntaxError/.test(output)
      ? 'cannot-read'
      : 'out-of-date';
  if (flavor === 'yarn1')
    return /SyntaxError|TypeError|invalid package version|Unknown token|Invalid value type/.test(output)
      ? 'cannot-read'
      : 'out-of-date';
  // yarn 4 reads the lockfile before its first report line: an error before it is a read error.
  return /YN0000: · Yarn \d/.test(output) ? 'out-of-date' : 'cannot-read';
}

export interface ToolOracle {
  readonly spec: FlavorSpec;
  /** The lockfile the real tool wrote. */
  readonly good: string;
  /** The working copy (yarn v1's reader reads its manifests there). */
  readonly root: string;
  verdict(bytes: Buffer): ToolVerdict;
}

/** A template workspace for `flavor` installed under `dir` by the real tool, and a frozen install per lockfile bytes. */
export function toolOracle(flavor: Flavor, dir: string): ToolOracle {
  const spec = FLAVORS.find((candidate) => candidate.flavor === flavor);
  if (spec === undefined) throw new Error(`no flavor ${flavor}`);
  const env = isolatedEnv(dir);
  const { dep7, dep6 } = packDeps(dir, env);
  const template = installTemplate(spec, join(dir, 'template'), env, dep7, dep6);
  // One working copy, its lockfile replaced per mutant (a frozen install writes no lockfile).
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  cpSync(template, work, { recursive: true });
  const own = cloneEnv(spec, work, env);
  return {
    spec,
    good: readFileSync(join(template, spec.lockfile), 'utf8'),
    root: work,
    verdict: (bytes) => {
      writeFileSync(join(work, spec.lockfile), bytes);
      const result = runTool(spec.tool, spec.frozen, work, own, 60_000);
      return toolVerdict(flavor, result.code, `${result.stdout}\n${result.stderr}`);
    },
  };
}

/** lockguard's reader on the bytes: sliced, or the code of its refusal (anything else is a bug: thrown). */
export function lockguardVerdict(spec: FlavorSpec, bytes: Buffer, root: string): 'sliced' | string {
  try {
    slicesFromLockfile(bytes, { lockfile: spec.lockfile, root, names: false });
    return 'sliced';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_LOCKGUARD_')) throw error;
    return code;
  }
}

export interface ToolOracleCounts {
  readonly flavor: Flavor;
  readonly tried: number;
  readonly byVerdict: Readonly<Record<ToolVerdict, number>>;
  /** Mutants the tool cannot read that lockguard sliced: must be 0. */
  readonly cannotReadButSliced: number;
  /** Mutants the tool installs from that lockguard refused (the safe direction, counted). */
  readonly installsButRefused: number;
  /** The mutators of the mutants counted above, for a report. */
  readonly offenders: readonly string[];
}

/** `count` seeded mutants of the tool's own lockfile, each judged by the tool and by lockguard. */
export function toolOracleRun(oracle: ToolOracle, seed: number, count: number): ToolOracleCounts {
  const rng = random(seed);
  const byVerdict: Record<ToolVerdict, number> = { installs: 0, 'cannot-read': 0, 'out-of-date': 0 };
  let cannotReadButSliced = 0;
  let installsButRefused = 0;
  const offenders: string[] = [];
  const syntax = oracle.spec.lockfile === 'bun.lock' ? 'json' : 'yaml';
  const mutators: readonly MutatorName[] = ORACLE_MUTATORS.filter(
    (name) => syntax === 'yaml' || (name !== 'indent' && name !== 'tab'),
  );
  for (let i = 0; i < count; i++) {
    const made = mutant(oracle.good, rng, mutators, syntax, (text) => ({ text, at: rng.int(text.length) }));
    const tool = oracle.verdict(made.bytes);
    const ours = lockguardVerdict(oracle.spec, made.bytes, oracle.root);
    byVerdict[tool]++;
    if (tool === 'cannot-read' && ours === 'sliced')
      cannotReadButSliced++, offenders.push(`cannot read but sliced: ${made.mutator} #${i}`);
    if (tool === 'installs' && ours !== 'sliced')
      installsButRefused++, offenders.push(`installs but refused: ${made.mutator} #${i}`);
  }
  return { flavor: oracle.spec.flavor, tried: count, byVerdict, cannotReadButSliced, installsButRefused, offenders };
}
