// A small reader of a lage.config.js's text: where its `inputs` arrays are and whether each is a plain
// literal, and the keys of its `pipeline` object. Never evaluates anything: a JS config is code, so what is
// not a literal is reported as such (sound-keys.ts refuses to edit it).
//
// Owns: `inputsArrays(text)` (every `inputs:` property outside strings and comments: its `[`/`]` offsets, its
// string items, their quote, whether the array holds only string literals) and `pipelineKeys(text)` (the
// property names of the object after `pipeline:`, e.g. `build`, `b#build`, `#test`).
// Invariants: strings ('…', "…", `…`) and comments are skipped as units; offsets index `text`; a malformed
// text yields what was read so far (never a throw).

export interface InputsArray {
  /** Offsets of `[` and its `]` (when `literal`). */
  readonly open: number;
  readonly close: number;
  readonly items: readonly string[];
  /** The quote of the first item (`'` by default). */
  readonly quote: string;
  readonly literal: boolean;
  /** 1-based line of the `inputs` word. */
  readonly line: number;
}

const WORD = /[A-Za-z0-9_$]/;

/** The offset just past a string, template or comment starting at `i`, or `i` when none starts there. */
function skip(text: string, i: number): number {
  const c = text[i];
  if (c === '/' && text[i + 1] === '/') {
    const end = text.indexOf('\n', i);
    return end === -1 ? text.length : end;
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end === -1 ? text.length : end + 2;
  }
  if (c === "'" || c === '"' || c === '`') {
    let j = i + 1;
    while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  return i;
}

/** The offset of the next non-space, non-comment character from `i`. */
function next(text: string, i: number): number {
  let j = i;
  for (;;) {
    while (j < text.length && /\s/.test(text[j] ?? '')) j++;
    const after = text[j] === '/' && (text[j + 1] === '/' || text[j + 1] === '*') ? skip(text, j) : j;
    if (after === j) return j;
    j = after;
  }
}

/** Each property `name:` outside strings and comments: the offset of its value. */
function propertyValues(text: string, name: string): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < text.length) {
    const skipped = skip(text, i);
    if (skipped !== i) {
      // A quoted key: 'inputs': …
      const quoted = text.slice(i + 1, skipped - 1);
      const colon = next(text, skipped);
      if ((text[i] === "'" || text[i] === '"') && quoted === name && text[colon] === ':')
        out.push(next(text, colon + 1));
      i = skipped;
      continue;
    }
    if (text.startsWith(name, i) && !WORD.test(text[i - 1] ?? '') && !WORD.test(text[i + name.length] ?? '')) {
      const colon = next(text, i + name.length);
      if (text[colon] === ':') out.push(next(text, colon + 1));
      i += name.length;
      continue;
    }
    i++;
  }
  return out;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** The array at `open` read as string literals; `literal: false` at the first thing that is not one. */
function readArray(text: string, open: number): InputsArray {
  const line = lineOf(text, open);
  const opaque = { open, close: open, items: [], quote: "'", literal: false, line };
  if (text[open] !== '[') return opaque;
  const items: string[] = [];
  let quote: string | undefined;
  let i = next(text, open + 1);
  while (i < text.length) {
    const c = text[i];
    if (c === ']') return { open, close: i, items, quote: quote ?? "'", literal: true, line };
    if (c !== "'" && c !== '"') return opaque;
    const end = skip(text, i);
    const raw = text.slice(i + 1, end - 1);
    if (raw.includes('\\')) return opaque;
    items.push(raw);
    quote ??= c;
    i = next(text, end);
    if (text[i] === ',') i = next(text, i + 1);
  }
  return opaque;
}

export function inputsArrays(text: string): InputsArray[] {
  return propertyValues(text, 'inputs').map((at) => readArray(text, at));
}

/** The offset just past the bracketed value starting at `i` (`{`, `[` or `(`), strings and comments skipped. */
function pastValue(text: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const skipped = skip(text, j);
    if (skipped !== j) {
      j = skipped;
      continue;
    }
    const c = text[j];
    if (c === '{' || c === '[' || c === '(') depth++;
    if (c === '}' || c === ']' || c === ')') depth--;
    j++;
    if (depth === 0) return j;
  }
  return j;
}

/** The keys of the first `pipeline: { … }` object (empty when there is none or it is not a literal). */
export function pipelineKeys(text: string): string[] {
  const at = propertyValues(text, 'pipeline')[0];
  if (at === undefined || text[at] !== '{') return [];
  const keys: string[] = [];
  let i = next(text, at + 1);
  while (i < text.length && text[i] !== '}') {
    let key: string;
    const skipped = skip(text, i);
    if (skipped !== i) {
      key = text.slice(i + 1, skipped - 1);
      i = skipped;
    } else {
      let j = i;
      while (j < text.length && WORD.test(text[j] ?? '')) j++;
      if (j === i) return keys;
      key = text.slice(i, j);
      i = j;
    }
    i = next(text, i);
    if (text[i] !== ':') return keys;
    keys.push(key);
    i = next(text, i + 1);
    // The value: a bracketed literal, or anything up to the next comma at this level.
    if (text[i] === '{' || text[i] === '[' || text[i] === '(') i = pastValue(text, i);
    while (i < text.length && text[i] !== ',' && text[i] !== '}') {
      const skippedValue = skip(text, i);
      i =
        skippedValue !== i
          ? skippedValue
          : text[i] === '(' || text[i] === '[' || text[i] === '{'
            ? pastValue(text, i)
            : i + 1;
    }
    if (text[i] === ',') i = next(text, i + 1);
  }
  return keys;
}
