// Seeded mutants of real lockfiles: what a bad disk, a bad merge, a bad hand edit or a hostile commit leaves.
//
// Owns: the mutators (each a pure function of the text and a generator seeded through test/helpers/prng.ts) and
// `mutant`, which plants a secret near where the damage is and then applies one mutator.
// Invariants: deterministic (the same seed, fixture and index give the same bytes); a mutant is bytes, not
// text (a BOM, invalid UTF-8 and NULs are kept as they are).

import { prng } from '../helpers/prng.js';

export interface Random {
  readonly next: () => number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
}

export function random(seed: number): Random {
  const next = prng(seed);
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
  };
}

export type MutatorName =
  | 'truncate'
  | 'flip'
  | 'delete'
  | 'insert'
  | 'indent'
  | 'tab'
  | 'duplicate-line'
  | 'duplicate-entry'
  | 'nul'
  | 'deep'
  | 'deep-indent'
  | 'bom'
  | 'crlf'
  | 'lone-cr'
  | 'conflict'
  | 'alias'
  | 'alias-bomb'
  | 'invalid-utf8'
  | 'swap-lines';

/** Characters a flip or an insertion draws from: structure-heavy, so the damage lands on syntax. */
const STRUCTURAL = [...' :\'"{}[],-#\t\n&*!|>@%?`\\/.0123456789abcXYZ'];

interface Target {
  /** Where the damage should land (an offset in the text). */
  readonly at: number;
}

type Mutator = (text: string, rng: Random, target: Target, format: 'yaml' | 'json') => string | Buffer;

const lineBounds = (text: string, at: number): [number, number] => {
  const start = text.lastIndexOf('\n', Math.max(0, at - 1)) + 1;
  const end = text.indexOf('\n', at);
  return [start, end === -1 ? text.length : end];
};

const MUTATORS: Record<MutatorName, Mutator> = {
  truncate: (text, _rng, { at }) => text.slice(0, at),
  flip: (text, rng, { at }) => {
    const chars = [...text];
    const count = 1 + rng.int(3);
    for (let i = 0; i < count; i++)
      chars[Math.min(chars.length - 1, Math.max(0, at + rng.int(24) - 12))] = rng.pick(STRUCTURAL);
    return chars.join('');
  },
  delete: (text, rng, { at }) => text.slice(0, at) + text.slice(at + 1 + rng.int(3)),
  insert: (text, rng, { at }) => text.slice(0, at) + rng.pick(STRUCTURAL) + text.slice(at),
  indent: (text, rng, { at }) => {
    const [start] = lineBounds(text, at);
    return rng.int(2) === 0
      ? `${text.slice(0, start)} ${text.slice(start)}`
      : text.slice(0, start) + text.slice(start).replace(/^ /, '');
  },
  tab: (text, _rng, { at }) => {
    const [start] = lineBounds(text, at);
    return text.slice(0, start) + text.slice(start).replace(/^ {1,2}/, '\t');
  },
  'duplicate-line': (text, _rng, { at }) => {
    const [start, end] = lineBounds(text, at);
    return `${text.slice(0, end)}\n${text.slice(start, end)}${text.slice(end)}`;
  },
  'duplicate-entry': (text, _rng, { at }, format) => {
    if (format === 'json') {
      // The member on this line, repeated (valid JSON: npm keeps the last one).
      const [start, end] = lineBounds(text, at);
      const line = text.slice(start, end);
      return `${text.slice(0, start)}${line.trimEnd().endsWith(',') ? line : `${line},`}\n${line}${text.slice(end)}`;
    }
    // A YAML block: the entry (a line at two spaces and what is under it) around `at`, twice.
    const from = text.lastIndexOf('\n  ', at);
    const begin = from === -1 ? 0 : from + 1;
    let stop = text.indexOf('\n\n', at);
    if (stop === -1) stop = text.length;
    return `${text.slice(0, stop)}\n${text.slice(begin, stop)}${text.slice(stop)}`;
  },
  nul: (text, _rng, { at }) => `${text.slice(0, at)}\0${text.slice(at)}`,
  deep: (text, rng, { at }, format) => {
    const depth = rng.pick([65, 1000, 200_000]);
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    if (format === 'json') {
      // A member holding the deep array, first in the next object from `at`.
      const next = text.indexOf('{', at);
      const brace = next === -1 ? text.indexOf('{') : next;
      if (brace === -1) return text + nested;
      const empty = /^\s*\}/.test(text.slice(brace + 1, brace + 64));
      return `${text.slice(0, brace + 1)}"lockguardDeep": ${nested}${empty ? '' : ','}${text.slice(brace + 1)}`;
    }
    const [, end] = lineBounds(text, at);
    return `${text.slice(0, end)}\nlockguardDeep: ${nested}${text.slice(end)}`;
  },
  'deep-indent': (text, rng, { at }) => {
    const levels = rng.pick([65, 2000]);
    const [, end] = lineBounds(text, at);
    const lines = Array.from({ length: levels }, (_, i) => `${' '.repeat(2 * i)}k${i}:`);
    return `${text.slice(0, end)}\n${lines.join('\n')}${text.slice(end)}`;
  },
  bom: (text) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
  crlf: (text) => text.replaceAll('\n', '\r\n'),
  'lone-cr': (text, _rng, { at }) => {
    const nl = text.indexOf('\n', at);
    return nl === -1 ? text : `${text.slice(0, nl)}\r${text.slice(nl + 1)}`;
  },
  conflict: (text, rng, { at }) => {
    const [start] = lineBounds(text, at);
    const [, end] = lineBounds(text, Math.min(text.length, at + 40 + rng.int(200)));
    const ours = text.slice(start, end);
    return `${text.slice(0, start)}<<<<<<< HEAD\n${ours}\n=======\n${ours.replace(/\d/g, (d) => String((Number(d) + 1) % 10))}\n>>>>>>> theirs${text.slice(end)}`;
  },
  alias: (text, rng, { at }) => {
    const [start, end] = lineBounds(text, at);
    const line = text.slice(start, end);
    const withAnchor = line.replace(/: (\S)/, ': &lg $1');
    if (withAnchor === line)
      return `${text.slice(0, end)}\n${/^ */.exec(line)?.[0] ?? ''}lockguardAlias: *lg${text.slice(end)}`;
    const next = text.indexOf('\n', end + 1);
    const at2 = next === -1 ? text.length : next;
    const following = text.slice(end + 1, at2).replace(/: (\S.*)$/, ': *lg');
    return rng.int(2) === 0
      ? `${text.slice(0, start)}${withAnchor}\n${following}${text.slice(at2)}`
      : `${text.slice(0, start)}${withAnchor}${text.slice(end)}`;
  },
  'alias-bomb': (text, _rng, { at }) => {
    const rows = ['lgA: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      rows.push(
        `lg${String.fromCharCode(65 + i)}: &${String.fromCharCode(97 + i)} [${Array.from({ length: 9 }, () => `*${prev}`).join(',')}]`,
      );
    }
    const nl = text.indexOf('\n\n', at);
    const cut = nl === -1 ? text.length : nl;
    return `${text.slice(0, cut)}\n\n${rows.join('\n')}${text.slice(cut)}`;
  },
  'invalid-utf8': (text, _rng, { at }) =>
    Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(at))]),
  'swap-lines': (text, _rng, { at }) => {
    const [start, end] = lineBounds(text, at);
    const [, nextEnd] = lineBounds(text, Math.min(text.length, end + 1));
    if (end >= text.length) return text;
    return `${text.slice(0, start)}${text.slice(end + 1, nextEnd)}\n${text.slice(start, end)}${text.slice(nextEnd)}`;
  },
};

export const YAML_MUTATORS: readonly MutatorName[] = Object.keys(MUTATORS) as MutatorName[];
export const JSON_MUTATORS: readonly MutatorName[] = YAML_MUTATORS.filter(
  (name) => !['alias', 'alias-bomb', 'deep-indent', 'tab', 'indent'].includes(name),
);

export interface Mutant {
  readonly mutator: MutatorName;
  readonly bytes: Buffer;
}

/**
 * One mutant of `text`: the secret planted first (by `plant`, in values no command prints), then one
 * mutator, aimed half the time at the planted secret (so a message quoting the text near a failure would
 * quote it) and otherwise anywhere.
 */
export function mutant(
  text: string,
  rng: Random,
  mutators: readonly MutatorName[],
  format: 'yaml' | 'json',
  plant: (text: string, rng: Random) => { readonly text: string; readonly at: number },
): Mutant {
  const planted = plant(text, rng);
  const mutator = rng.pick(mutators);
  const at =
    rng.int(2) === 0
      ? Math.max(0, Math.min(planted.text.length, planted.at + rng.int(48) - 8))
      : rng.int(planted.text.length + 1);
  const out = MUTATORS[mutator](planted.text, rng, { at }, format);
  return { mutator, bytes: typeof out === 'string' ? Buffer.from(out) : out };
}
