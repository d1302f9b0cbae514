// No function in lib/ is longer than 60 lines: a long function is split along its sections (a helper each,
// named for what it does), so a reader holds one section at a time. A hot parser's split is measured on a
// cold read (callgrind, one read in a fresh process: the CLI's case) before it lands.
// Reads the TypeScript sources (the repo's lib/) with the compiler's parser (the devDependency
// `typescript`), never the build output. A function's length is from its first line (after its doc
// comment) to its closing brace; a nested function counts in its own right and inside its parent.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const LIB = fileURLToPath(new URL('../../../lib/', import.meta.url));
export const MAX_LINES = 60;

export interface FunctionSpan {
  /** `<file under lib/>:<name>`; a method is `Class.method`, an unnamed function `<anonymous>@<line>`. */
  readonly id: string;
  readonly lines: number;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What a function is called where it is written: its own name, its variable's or property's, Class.method. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string | undefined {
  const parent = node.parent;
  let name = ts.isConstructorDeclaration(node) ? 'constructor' : node.name?.getText(file);
  if (
    name === undefined &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  )
    name = parent.name.getText(file);
  if (name !== undefined && ts.isClassLike(parent)) name = `${parent.name?.getText(file) ?? '<class>'}.${name}`;
  return name;
}

/** Every function with a body in `text` and its length in lines. */
export function functionSpans(text: string, path: string): FunctionSpan[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.end).line;
      spans.push({ id: `${path}:${nameOf(node, file) ?? `<anonymous>@${first + 1}`}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return spans;
}

test(`no function in lib/ is over ${MAX_LINES} lines`, () => {
  const over: string[] = [];
  let seen = 0;
  for (const path of sources(LIB)) {
    for (const span of functionSpans(readFileSync(path, 'utf8'), relative(LIB, path).split('\\').join('/'))) {
      seen++;
      if (span.lines > MAX_LINES) over.push(`${span.id} (${span.lines} lines): split it along its sections`);
    }
  }
  assert.ok(seen > 500, `the walk saw the functions (${seen})`);
  assert.deepEqual(over, []);
});

test('the span reader names functions as they are written and counts their lines', () => {
  const text = [
    'function a() {',
    '  return 1;',
    '}',
    'const b = () => {',
    '  const c = function () {};',
    '};',
    'class K {',
    '  m() {',
    '  }',
    '  constructor() {}',
    '}',
    'call(() => 1);',
    '',
  ].join('\n');
  assert.deepEqual(functionSpans(text, 'x.ts'), [
    { id: 'x.ts:a', lines: 3 },
    { id: 'x.ts:b', lines: 3 },
    { id: 'x.ts:c', lines: 1 },
    { id: 'x.ts:K.m', lines: 2 },
    { id: 'x.ts:K.constructor', lines: 1 },
    { id: 'x.ts:<anonymous>@12', lines: 1 },
  ]);
});
