// Package-manager names have a home: a string literal that is a package manager's name ('pnpm', 'npm',
// 'yarn', 'bun') or one of their lockfile names appears only in that manager's folders
// (lib/core/package-managers/<pm>/, lib/integrations/package-managers/<pm>/), in the two registries' own
// files that must name them (the name union, the fallback manager, the refusal gaps' type), and in the
// short allow-list below, each entry with why. A new switch on a name elsewhere fails here: ask the
// registries (core/package-managers/registry.ts, integrations/package-managers/registry.ts) instead.
// Reads the TypeScript sources (the repo's lib/, parsed with `typescript`: literals only, never comments or
// words inside longer strings), never the build output.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const LIB = fileURLToPath(new URL('../../../lib/', import.meta.url));
const MANAGERS = ['pnpm', 'npm', 'yarn', 'bun'];
const LOCKFILES = ['pnpm-lock.yaml', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'bun.lock', 'bun.lockb'];
const NAMES = new Set([...MANAGERS, ...LOCKFILES]);

/** A manager's own folders: everything it knows lives there. */
const HOMES = MANAGERS.flatMap((pm) => [`core/package-managers/${pm}/`, `integrations/package-managers/${pm}/`]);

/**
 * Files outside the homes that may hold a name, with why. Each entry is a whole file or folder (ending in
 * `/`); keep it short: a new entry needs a reason a registry cannot serve.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  'core/package-managers/names.ts': 'the name union itself',
  'core/package-managers/registry.ts': 'the fallback manager of a root that names none',
  'integrations/package-managers/adapter.ts': 'the RefuseGap union, whose words the CLI renders',
  'core/lockfile-errors.ts':
    'the fix for a broken lockfile by file name: a leaf every lockfile reader imports, so it cannot ask the registry (a cycle)',
  'core/lockfile-shape.ts':
    'the byte-level shape check by lockfile name: it runs in the install hooks, where asking the registry would bundle every adapter into them (measured: the pnpmfile 55 KB -> 186 KB)',
  'integrations/pnpmfile/': "pnpm's own plugin (a bundle loaded in pnpm's processes): pnpm is its subject",
  'integrations/plan/': "plans of pnpm's recursive runs (`pnpm -r run`), a runner pnpm is",
  'integrations/runners/':
    "the runners lane's files: the pnpm pipeline runner is pnpm; affected.ts and turbo/doctor.ts name managers (left to that lane)",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every string literal of `text` that is a package-manager or lockfile name, with its line. */
export function nameLiterals(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAMES.has(node.text)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${line + 1}: '${node.text}'`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function allowed(path: string): boolean {
  if (HOMES.some((home) => path.startsWith(home))) return true;
  return Object.keys(ALLOWED).some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));
}

test('a package-manager or lockfile name appears as a literal only in its manager folders and the allow-list', () => {
  const outside: string[] = [];
  let inHomes = 0;
  for (const file of sources(LIB)) {
    const path = relative(LIB, file).split(sep).join('/');
    const literals = nameLiterals(path, readFileSync(file, 'utf8'));
    if (allowed(path)) {
      if (HOMES.some((home) => path.startsWith(home))) inHomes += literals.length;
      continue;
    }
    for (const literal of literals) outside.push(`lib/${path}:${literal}`);
  }
  assert.ok(inHomes > 20, `the walk saw the names in their homes (${inHomes})`);
  assert.deepEqual(outside, []);
});

test('every allow-list entry still exists and still holds a name (a stale entry is removed, not kept)', () => {
  const paths = sources(LIB).map((file) => relative(LIB, file).split(sep).join('/'));
  for (const entry of Object.keys(ALLOWED)) {
    const files = paths.filter((path) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));
    assert.ok(files.length > 0, `${entry} exists`);
    const held = files.some((path) => nameLiterals(path, readFileSync(join(LIB, path), 'utf8')).length > 0);
    assert.ok(held, `${entry} holds a name`);
  }
});

test('the scan finds a switch on a name and a lockfile name, and not the same words in comments or longer text', () => {
  const code = [
    '// a comment about pnpm and "yarn.lock"',
    "const hint = 'run pnpm install';",
    "if (manager === 'bun') lock = `yarn.lock`;",
    'type M = "npm";',
  ].join('\n');
  assert.deepEqual(nameLiterals('x.ts', code), ["3: 'bun'", "3: 'yarn.lock'", "4: 'npm'"]);
});
