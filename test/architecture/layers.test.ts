// The layer rule, checked: core ← run ← integrations ← guard ← cli, imports pointing down only (type-only
// and dynamic imports count), and no import cycle between lib/'s files (the same imports: a cycle of types
// alone still ties two modules so neither reads without the other). `lib/index.ts` is the public surface
// and may re-export any layer.
// Reads the TypeScript sources (the repo's lib/), never the build output.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('../../../lib/', import.meta.url));
const LAYERS = ['core', 'ledger', 'integrations', 'guard', 'cli'] as const;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier a file names: static imports and re-exports (type-only too) and dynamic import(). */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
  for (const match of code.matchAll(/\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g))
    found.push(match[1] as string);
  for (const match of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1] as string);
  return found;
}

function layerOf(file: string): (typeof LAYERS)[number] | 'index' | undefined {
  const top = relative(LIB, file).split(sep)[0];
  if (top === 'index.ts') return 'index';
  return LAYERS.find((layer) => layer === top);
}

test('layers point down only: core imports no ledger/integrations/guard/cli, ledger no integrations/guard/cli, integrations no guard/cli, guard no cli', () => {
  const violations: string[] = [];
  let checked = 0;
  for (const file of sources(LIB)) {
    const from = layerOf(file);
    if (from === undefined || from === 'index') continue;
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      checked++;
      const to = layerOf(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      if (to === undefined || to === 'index') {
        violations.push(`${relative(LIB, file)} imports ${spec}, outside the layers`);
        continue;
      }
      if (LAYERS.indexOf(to) > LAYERS.indexOf(from))
        violations.push(`${relative(LIB, file)} (${from}) imports ${spec} (${to})`);
    }
  }
  assert.ok(checked > 100, `the walk saw the imports (${checked})`);
  assert.deepEqual(violations, []);
});

test('guard/ sits between integrations/ and cli/: it exists, cli imports it, and only cli may', () => {
  const users = new Set<string>();
  for (const file of sources(LIB)) {
    const from = layerOf(file);
    if (from === undefined || from === 'index' || from === 'guard') continue;
    for (const spec of specifiers(readFileSync(file, 'utf8')))
      if (spec.startsWith('.') && layerOf(resolve(dirname(file), spec.replace(/\.js$/, '.ts'))) === 'guard')
        users.add(from);
  }
  assert.deepEqual([...users], ['cli']);
});

/** The files of `lib/` each file imports (relative specifiers, resolved to their .ts source). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(LIB)) {
    const to = specifiers(readFileSync(file, 'utf8'))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => relative(LIB, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
    graph.set(relative(LIB, file), to);
  }
  return graph;
}

/** One cycle of `graph` per strongly connected part with more than one file (or a file importing itself), as `a -> b -> a`. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (state.get(next) === undefined) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (state.get(file) === undefined) visit(file);
  return found;
}

test('no import cycle between the files of lib/ (type-only and dynamic imports count)', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, `the walk saw the files (${graph.size})`);
  assert.deepEqual(cyclesOf(graph), []);
});

test('the cycle finder finds a cycle (it can fail)', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  assert.deepEqual(cyclesOf(graph), ['a.ts -> b.ts -> c.ts -> a.ts']);
  assert.deepEqual(
    cyclesOf(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
    [],
  );
});

test('the import reader sees type-only, re-export and dynamic imports', () => {
  const text =
    "import type { A } from '../cli/a.js';\nexport { b } from '../ledger/b.js';\nconst c = await import('../integrations/c.js');\n// import x from '../cli/commented.js'\n";
  assert.deepEqual(specifiers(text), ['../cli/a.js', '../ledger/b.js', '../integrations/c.js']);
});
