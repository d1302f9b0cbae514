// JSONC read with positions, and edits that keep everything else of the text: for `init --sound-keys`.
//
// Owns: `parseJsonc` (JSON plus `//` and block comments and trailing commas, as turbo.json and nx.json allow:
// a tree whose every node knows where it starts and ends in the text), and `appendItem` / `addProperty`
// (one insertion each, in the style of what is around it: same line or one more line at the same indent),
// and `removeItem` / `removeProperty`, their inverses (`init --sound-keys=committed` takes back what it added).
// Invariants: an edit inserts text or removes exactly one item or property with the separator before it
// (after it, for the first); comments, order, spacing and every other byte stay as they were;
// a text that is not JSONC is a `JsoncError` with its line and column, never a quote of its bytes.

export type JsonNode =
  | { readonly kind: 'object'; readonly start: number; readonly end: number; readonly props: readonly JsonProp[] }
  | { readonly kind: 'array'; readonly start: number; readonly end: number; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly start: number; readonly end: number; readonly value: string }
  | { readonly kind: 'literal'; readonly start: number; readonly end: number; readonly value: boolean | number | null };

interface JsonProp {
  readonly key: string;
  /** Where the key's opening quote is. */
  readonly start: number;
  readonly value: JsonNode;
}

/** One insertion into the text (or, with `remove`, that many characters at `at` replaced by `insert`). */
export interface TextEdit {
  readonly at: number;
  readonly insert: string;
  readonly remove?: number;
}

export class JsoncError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(what: string, line: number, column: number) {
    super(`${what} at line ${line}, column ${column}`);
    this.line = line;
    this.column = column;
  }
}

const LITERALS: Readonly<Record<string, boolean | null>> = { true: true, false: false, null: null };

/**
 * The deepest nesting of objects and arrays read (the reader recurses once per level): far beyond any real
 * runner config, well within the stack, so a file nested 10,000 deep is a JsoncError, never a RangeError.
 */
const MAX_DEPTH = 1000;

/** The JSONC `text` as a tree with positions; throws JsoncError. */
export function parseJsonc(text: string): JsonNode {
  return new JsoncReader(text).document();
}

/** One pass over a JSONC text: `at` moves forward only; each method reads one construct from it. */
class JsoncReader {
  readonly #text: string;
  #at = 0;
  #depth = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** The whole text: one value, and nothing after it but space and comments. */
  document(): JsonNode {
    const root = this.#value();
    this.#skip();
    if (this.#at < this.#text.length) this.#fail('unexpected text after the value');
    return root;
  }

  /** Throws what was expected, at the line and column `at` is on. */
  #fail(what: string): never {
    const before = this.#text.slice(0, this.#at).split('\n');
    throw new JsoncError(what, before.length, (before.at(-1)?.length ?? 0) + 1);
  }

  /** Past white space, a BOM, line and block comments. */
  #skip(): void {
    const text = this.#text;
    for (;;) {
      const char = text[this.#at];
      if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\uFEFF') this.#at++;
      else if (char === '/' && text[this.#at + 1] === '/') {
        const end = text.indexOf('\n', this.#at);
        this.#at = end === -1 ? text.length : end;
      } else if (char === '/' && text[this.#at + 1] === '*') {
        const end = text.indexOf('*/', this.#at + 2);
        if (end === -1) this.#fail('an unclosed block comment');
        this.#at = end + 2;
      } else return;
    }
  }

  /** A string (at its opening quote), decoded as JSON decodes it. */
  #string(): JsonNode & { kind: 'string' } {
    const text = this.#text;
    const start = this.#at;
    this.#at++;
    while (this.#at < text.length && text[this.#at] !== '"') {
      if (text[this.#at] === '\n') this.#fail('a line break inside a string');
      this.#at += text[this.#at] === '\\' ? 2 : 1;
    }
    if (this.#at >= text.length) this.#fail('an unclosed string');
    this.#at++;
    let value: string;
    try {
      value = JSON.parse(text.slice(start, this.#at)) as string;
    } catch {
      this.#at = start;
      return this.#fail('a malformed string');
    }
    return { kind: 'string', start, end: this.#at, value };
  }

  /** Any value: a string, an object or array, or a literal (true, false, null, a number). */
  #value(): JsonNode {
    this.#skip();
    const start = this.#at;
    const char = this.#text[this.#at];
    if (char === '"') return this.#string();
    if (char === '{' || char === '[') {
      if (this.#depth === MAX_DEPTH) this.#fail(`objects and arrays nested deeper than ${MAX_DEPTH} levels`);
      this.#depth++;
      const node = this.#container(char);
      this.#depth--;
      return node;
    }
    const word = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      this.#text.slice(this.#at, this.#at + 64),
    )?.[0];
    if (word === undefined) return this.#fail('expected a value');
    this.#at += word.length;
    return { kind: 'literal', start, end: this.#at, value: word in LITERALS ? (LITERALS[word] ?? null) : Number(word) };
  }

  /** An object or an array (at its opening bracket), a trailing comma allowed. */
  #container(char: '{' | '['): JsonNode {
    const text = this.#text;
    const start = this.#at;
    const close = char === '{' ? '}' : ']';
    this.#at++;
    const props: JsonProp[] = [];
    const items: JsonNode[] = [];
    for (;;) {
      this.#skip();
      if (text[this.#at] === close) break;
      if (char === '{') {
        if (text[this.#at] !== '"') this.#fail('expected a quoted key');
        const key = this.#string();
        this.#skip();
        if (text[this.#at] !== ':') this.#fail('expected ":"');
        this.#at++;
        props.push({ key: key.value, start: key.start, value: this.#value() });
      } else items.push(this.#value());
      this.#skip();
      if (text[this.#at] === ',') this.#at++;
      else if (text[this.#at] !== close) this.#fail(`expected "," or "${close}"`);
    }
    this.#at++;
    return char === '{'
      ? { kind: 'object', start, end: this.#at, props }
      : { kind: 'array', start, end: this.#at, items };
  }
}

/** The property `key` of an object node, if there is one (the last, as JSON.parse keeps). */
export function prop(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node?.kind !== 'object') return undefined;
  for (let i = node.props.length - 1; i >= 0; i--) if (node.props[i]?.key === key) return node.props[i]?.value;
  return undefined;
}

/** Whether the node is a JSON string equal to `value`. */
export function isString(node: JsonNode, value: string): boolean {
  return node.kind === 'string' && node.value === value;
}

/** The whitespace that starts the line `at` is on. */
function indentAt(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}

/** The insertion after the last of `children` (starting at `firstStart`), or into the empty container. */
function insertAfter(
  text: string,
  container: JsonNode,
  firstStart: number | undefined,
  last: JsonNode | undefined,
  entry: string,
): TextEdit {
  if (firstStart === undefined || last === undefined) {
    const inner = text.slice(container.start + 1, container.end - 1);
    return {
      at: container.start + 1,
      insert: container.kind === 'object' && inner.trim() === '' ? ` ${entry} ` : entry,
    };
  }
  const multiline = text.slice(container.start, firstStart).includes('\n');
  // The file's own line ending: a CRLF file stays CRLF throughout.
  const eol = text.slice(container.start, firstStart).includes('\r\n') ? '\r\n' : '\n';
  return { at: last.end, insert: multiline ? `,${eol}${indentAt(text, firstStart)}${entry}` : `, ${entry}` };
}

/** Append `json` (already JSON text) as the array's last item. */
export function appendItem(text: string, array: JsonNode & { kind: 'array' }, json: string): TextEdit {
  return insertAfter(text, array, array.items[0]?.start, array.items.at(-1), json);
}

/** Add `"key": json` as the object's last property. */
export function addProperty(text: string, object: JsonNode & { kind: 'object' }, key: string, json: string): TextEdit {
  return insertAfter(
    text,
    object,
    object.props[0]?.start,
    object.props.at(-1)?.value,
    `${JSON.stringify(key)}: ${json}`,
  );
}

/** The removal of one child (its `start` and `end` given) with the separator that joins it to its neighbours. */
function removeChild(
  container: JsonNode,
  children: readonly { readonly start: number; readonly end: number }[],
  index: number,
): TextEdit {
  const child = children[index];
  if (child === undefined) throw new RangeError(`no child ${index}`);
  const before = children[index - 1];
  const after = children[index + 1];
  // The only child: the container is left empty, as `[]` / `{}`.
  if (before === undefined && after === undefined)
    return { at: container.start + 1, insert: '', remove: container.end - 1 - (container.start + 1) };
  // The first: up to the next one's start; any other: from the end of the one before (the inverse of insertAfter).
  if (before === undefined && after !== undefined)
    return { at: child.start, insert: '', remove: after.start - child.start };
  const from = before?.end ?? child.start;
  return { at: from, insert: '', remove: child.end - from };
}

/** Remove the array's item at `index`. */
export function removeItem(array: JsonNode & { kind: 'array' }, index: number): TextEdit {
  return removeChild(array, array.items, index);
}

/** Remove the object's property at `index` (its key through its value). */
export function removeProperty(object: JsonNode & { kind: 'object' }, index: number): TextEdit {
  return removeChild(
    object,
    object.props.map((entry) => ({ start: entry.start, end: entry.value.end })),
    index,
  );
}

/** `text` with every edit applied (at distinct, non-overlapping places). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.at - a.at))
    out = out.slice(0, edit.at) + edit.insert + out.slice(edit.at + (edit.remove ?? 0));
  return out;
}
