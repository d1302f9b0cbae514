// JSONC read with positions, and edits that keep everything else of the text: for `init --sound-keys`.
//
// Owns: `parseJsonc` (JSON plus `//` and block comments and trailing commas, as turbo.json and nx.json allow:
// a tree whose every node knows where it starts and ends in the text), and `appendItem` / `addProperty`
// (one insertion each, in the style of what is around it: same line or one more line at the same indent).
// Invariants: an edit only inserts text; comments, order, spacing and every other byte stay as they were;
// a text that is not JSONC is a `JsoncError` with its line and column, never a quote of its bytes.

export type JsonNode =
  | { readonly kind: 'object'; readonly start: number; readonly end: number; readonly props: readonly JsonProp[] }
  | { readonly kind: 'array'; readonly start: number; readonly end: number; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly start: number; readonly end: number; readonly value: string }
  | { readonly kind: 'literal'; readonly start: number; readonly end: number; readonly value: boolean | number | null };

export interface JsonProp {
  readonly key: string;
  /** Where the key's opening quote is. */
  readonly start: number;
  readonly value: JsonNode;
}

/** One insertion into the text. */
export interface TextEdit {
  readonly at: number;
  readonly insert: string;
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

/** The JSONC `text` as a tree with positions; throws JsoncError. */
export function parseJsonc(text: string): JsonNode {
  let at = 0;
  const fail = (what: string): never => {
    const before = text.slice(0, at).split('\n');
    throw new JsoncError(what, before.length, (before.at(-1)?.length ?? 0) + 1);
  };
  const skip = (): void => {
    for (;;) {
      const char = text[at];
      if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\uFEFF') at++;
      else if (char === '/' && text[at + 1] === '/') {
        const end = text.indexOf('\n', at);
        at = end === -1 ? text.length : end;
      } else if (char === '/' && text[at + 1] === '*') {
        const end = text.indexOf('*/', at + 2);
        if (end === -1) fail('an unclosed block comment');
        at = end + 2;
      } else return;
    }
  };
  const string = (): JsonNode & { kind: 'string' } => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text[at] === '\n') fail('a line break inside a string');
      at += text[at] === '\\' ? 2 : 1;
    }
    if (at >= text.length) fail('an unclosed string');
    at++;
    let value: string;
    try {
      value = JSON.parse(text.slice(start, at)) as string;
    } catch {
      at = start;
      return fail('a malformed string');
    }
    return { kind: 'string', start, end: at, value };
  };
  const value = (): JsonNode => {
    skip();
    const start = at;
    const char = text[at];
    if (char === '"') return string();
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      at++;
      const props: JsonProp[] = [];
      const items: JsonNode[] = [];
      for (;;) {
        skip();
        if (text[at] === close) break;
        if (char === '{') {
          if (text[at] !== '"') fail('expected a quoted key');
          const key = string();
          skip();
          if (text[at] !== ':') fail('expected ":"');
          at++;
          props.push({ key: key.value, start: key.start, value: value() });
        } else items.push(value());
        skip();
        if (text[at] === ',') at++;
        else if (text[at] !== close) fail(`expected "," or "${close}"`);
      }
      at++;
      return char === '{' ? { kind: 'object', start, end: at, props } : { kind: 'array', start, end: at, items };
    }
    const word = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 64))?.[0];
    if (word === undefined) return fail('expected a value');
    at += word.length;
    return { kind: 'literal', start, end: at, value: word in LITERALS ? (LITERALS[word] ?? null) : Number(word) };
  };
  const root = value();
  skip();
  if (at < text.length) fail('unexpected text after the value');
  return root;
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
  return { at: last.end, insert: multiline ? `,\n${indentAt(text, firstStart)}${entry}` : `, ${entry}` };
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

/** `text` with every edit applied (insertions at distinct offsets). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.at - a.at))
    out = out.slice(0, edit.at) + edit.insert + out.slice(edit.at);
  return out;
}
