// The install hooks' bundles stay lean: they are loaded in the package managers' own processes (the pnpmfile
// in every pnpm command), so what they carry is paid on every install. The package-manager registries hold
// every adapter (their lockfile readers, install checks, doctor checks); a hook that reaches one through a
// live use carries all of them (measured once: the pnpmfile went from 52 KB to 1.5 MB, with
// @pnpm/lockfile-file inlined, when the registry did work at load and held the pnpm 6.x reader).
// Reads the built bundles (dist/, written by `npm run build`; esbuild names each module it inlines in a
// `// <path>` comment line).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../../', import.meta.url));
const HOOKS = ['pnpmfile', 'npm-hook', 'slice-writer', 'yarn-plugin'] as const;

/** The modules esbuild inlined into a bundle, from its `// <path>` lines. */
function inlined(bundle: string): string[] {
  const text = readFileSync(`${DIST}${bundle}.cjs`, 'utf8');
  return [...text.matchAll(/^\/\/ ((?:dist\/lib|node_modules)\/\S+)$/gm)].map((match) => match[1] as string);
}

test("no hook bundle inlines the CLI's external packages (@pnpm/lockfile-file, execa)", () => {
  for (const bundle of HOOKS) {
    const modules = inlined(bundle);
    assert.ok(modules.length > 5, `${bundle}: the scan sees its modules (${modules.length})`);
    assert.deepEqual(
      modules.filter((path) => /^node_modules\/(?:@pnpm\/lockfile-file|execa)\//.test(path)),
      [],
      bundle,
    );
  }
});

test("the pnpmfile carries no package-manager registry, and no adapter's doctor checks", () => {
  const modules = inlined('pnpmfile');
  assert.ok(modules.includes('dist/lib/integrations/package-managers/argv.js'), 'it classifies command lines');
  assert.deepEqual(
    modules.filter((path) => /package-managers\/(?:registry|[a-z]+\/(?:hooks|index))\.js$/.test(path)),
    [],
  );
});
