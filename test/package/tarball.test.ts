// The package as a registry would serve it: `npm pack` of the built tree (the suite builds first; `prepack`
// builds in a clean clone, test/docs/package-manifest.test.ts), its file list and size, and the library loaded
// from an unpacked copy of the tarball on every Node the suite runs on (this one and each in .ci/nodes).
// Invariants: no registry (the tarball's three dependencies are linked from this repository's node_modules);
// nothing is written outside the temp folder; the pack skips lifecycle scripts (the build already ran: a
// second one would rewrite dist/ under the other tests).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pinnedNodeBin, pinnedNodes } from '../helpers/ci-nodes.js';
import { isolatedEnv } from '../helpers/env.js';
import { repoRoot } from '../helpers/fixtures.js';
import { mustRun, NPM } from '../helpers/tools.js';
import { tempWorkspace } from '../helpers/workspace.js';

// Half the unpacked size of the package at 2cb271f (15,510,355 bytes, 535 files; 7 MB of it V8 code caches only
// the building Node took): issue 34's budget for the tarball.
const UNPACKED_BUDGET = Math.floor(15_510_355 / 2);

interface Manifest {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, Target>;
  dependencies: Record<string, string>;
}
interface Packed {
  filename: string;
  unpackedSize: number;
  files: { path: string }[];
}

const manifest = (): Manifest => JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as Manifest;

type Target = string | { [condition: string]: Target };

/** Every file `exports` points at (each condition's target, nested ones too), without the leading `./`. */
export function exportTargets(target: Target): string[] {
  return typeof target === 'string' ? [target.replace(/^\.\//, '')] : Object.values(target).flatMap(exportTargets);
}

/** Pack the repository into `dir` and unpack it at `dir/node_modules/lockguard`, its dependencies linked. */
function packAndUnpack(dir: string): Packed {
  const env = isolatedEnv(dir);
  const out = mustRun(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], repoRoot(), env);
  const [packed] = JSON.parse(out.stdout) as Packed[];
  assert.ok(packed !== undefined, out.stdout);
  const into = join(dir, 'node_modules', 'lockguard');
  mkdirSync(into, { recursive: true });
  const tar = spawnSync('tar', ['-xzf', join(dir, packed.filename), '-C', into, '--strip-components=1']);
  assert.equal(tar.status, 0, String(tar.stderr));
  for (const name of Object.keys(manifest().dependencies)) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(repoRoot(), 'node_modules', name), join(dir, 'node_modules', name));
  }
  return packed;
}

/** The Nodes the suite runs on: this one, then each pinned in .ci/nodes (installed by `npm test`'s pretest). */
function nodes(): string[] {
  const others = [...pinnedNodes().keys()].map(pinnedNodeBin);
  for (const node of others) assert.ok(existsSync(node), `${node} (run: node .ci/nodes/ensure.mjs)`);
  return [process.execPath, ...others];
}

// What each Node loads from the unpacked package: the library's names through import and through require
// (require(esm)), the CommonJS-only entry points, and the bin's --version.
const ESM = `const m = await import('lockguard'); const p = await import('lockguard/pnpmfile');
console.log(JSON.stringify({ names: Object.keys(m).sort(), pnpmfile: typeof p.withLockguard }));`;
const CJS = `const m = require('lockguard'); const p = require('lockguard/pnpmfile');
const names = Object.keys(m).filter((k) => k !== '__esModule' && k !== 'module.exports').sort();
console.log(JSON.stringify({ names, pnpmfile: typeof p.withLockguard, yarn: require('lockguard/yarn-plugin').name }));`;

test('the tarball: bin, every exports target and its types, no code cache, no tests, within the size budget', async (t) => {
  const dir = tempWorkspace(t, {}, 'lockguard-pack-');
  const packed = packAndUnpack(dir);
  const files = new Set(packed.files.map((file) => file.path));
  const { bin, exports } = manifest();
  for (const target of [...Object.values(bin), ...exportTargets(exports)]) {
    assert.ok(files.has(target), `the tarball holds ${target}`);
  }
  for (const [entry, target] of Object.entries(exports)) {
    if (entry === './package.json') continue;
    assert.ok(typeof target === 'object' && typeof target['types'] === 'string', `exports["${entry}"] has types`);
  }
  assert.deepEqual(
    [...files].filter((path) => path.endsWith('.v8cache') || /(^|\/)test\/|\.test\.|\.map$/.test(path)),
    [],
    'no code cache, test or source map ships',
  );
  // The CLI ships as its bundles (dist/cli, dist/lockguard.cjs); its ES modules serve no export (layers point down).
  assert.deepEqual(
    [...files].filter((path) => path.startsWith('dist/lib/cli/')),
    [],
    'dist/lib/cli stays out',
  );
  assert.ok(
    packed.unpackedSize <= UNPACKED_BUDGET,
    `unpacked ${packed.unpackedSize} bytes, at most ${UNPACKED_BUDGET} (half of the 15.5 MB of 2cb271f)`,
  );

  const names = Object.keys(await import('../../lib/index.js')).sort();
  const { version } = manifest();
  for (const node of nodes()) {
    const run = (args: string[]) => {
      const result = spawnSync(node, args, { cwd: dir, env: isolatedEnv(dir), encoding: 'utf8', timeout: 30_000 });
      assert.equal(result.status, 0, `${node} ${args.join(' ')}\n${result.stderr}`);
      return result.stdout;
    };
    assert.deepEqual(JSON.parse(run(['--input-type=module', '-e', ESM])), { names, pnpmfile: 'function' }, node);
    assert.deepEqual(
      JSON.parse(run(['-e', CJS])),
      { names, pnpmfile: 'function', yarn: 'lockguard' },
      `${node}: require`,
    );
    assert.equal(run([join(dir, 'node_modules', 'lockguard', 'dist', 'lockguard.cjs'), '--version']), `${version}\n`);
  }
});

// TypeScript as a user's project has it (module node20: require(esm) as on Node >= 20.19; strict: an import
// without types is TS7016), from an ES module and from CommonJS, against the unpacked package: every `exports`
// entry resolves to declarations, and the pnpmfile's CommonJS view has its names.
test('TypeScript finds types for every export, imported (ESM) and required (CommonJS)', (t) => {
  const dir = tempWorkspace(t, {}, 'lockguard-types-');
  packAndUnpack(dir);
  symlinkSync(join(repoRoot(), 'node_modules', '@types'), join(dir, 'node_modules', '@types'));
  const entries = Object.keys(manifest().exports)
    .filter((entry) => entry !== './package.json')
    .map((entry, i) => ({ specifier: entry.replace(/^\./, 'lockguard'), name: `e${i}` }));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const lines = (line: (e: { specifier: string; name: string }) => string) => entries.map(line).join('\n');
  writeFileSync(
    join(dir, 'esm.mts'),
    `${lines((e) => `import * as ${e.name} from '${e.specifier}';`)}\nexport const all = [${entries.map((e) => e.name)}];
import { withLockguard } from 'lockguard/pnpmfile';\nexport const w: (hooks: {}) => unknown = withLockguard;\n`,
  );
  writeFileSync(
    join(dir, 'cjs.cts'),
    `${lines((e) => `import ${e.name} = require('${e.specifier}');`)}\nexport const all = [${entries.map((e) => e.name)}];
import pnpmfile = require('lockguard/pnpmfile');\nexport const w: (hooks: {}) => unknown = pnpmfile.withLockguard;\n`,
  );
  const tsc = join(repoRoot(), 'node_modules', 'typescript', 'bin', 'tsc');
  const options = ['--noEmit', '--strict', '--module', 'node20', '--types', 'node'];
  const result = spawnSync(process.execPath, [tsc, ...options, 'esm.mts', 'cjs.cts'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
});

// TypeScript before `exports` (moduleResolution node10, as older CommonJS projects still configure it): the
// top-level `types` and `typesVersions` give every entry its declarations, as `exports` does for node20.
test('TypeScript with moduleResolution node10 finds types for every export (types and typesVersions)', (t) => {
  const dir = tempWorkspace(t, {}, 'lockguard-types10-');
  packAndUnpack(dir);
  symlinkSync(join(repoRoot(), 'node_modules', '@types'), join(dir, 'node_modules', '@types'));
  const entries = Object.keys(manifest().exports)
    .filter((entry) => entry !== './package.json')
    .map((entry, i) => ({ specifier: entry.replace(/^\./, 'lockguard'), name: `e${i}` }));
  writeFileSync(
    join(dir, 'cjs.ts'),
    `${entries.map((e) => `import * as ${e.name} from '${e.specifier}';`).join('\n')}
export const all = [${entries.map((e) => e.name)}];
import { FingerprintWatch } from 'lockguard';\nexport const watch: unknown = FingerprintWatch;
import { withLockguard } from 'lockguard/pnpmfile';\nexport const w: (hooks: {}) => unknown = withLockguard;\n`,
  );
  const tsc = join(repoRoot(), 'node_modules', 'typescript', 'bin', 'tsc');
  const base = ['--noEmit', '--strict', '--module', 'commonjs', '--moduleResolution', 'node10', '--types', 'node'];
  // As `tsc --init` once wrote it (es2016+ targets, esModuleInterop), and without esModuleInterop or
  // skipLibCheck, TypeScript's defaults (the declarations once imported node:http's default export: TS1192).
  // ES2015 at least: the declarations keep #private fields (TS18028 below it).
  for (const options of [
    [...base, '--target', 'es2022', '--esModuleInterop'],
    [...base, '--target', 'es2015'],
  ]) {
    const result = spawnSync(process.execPath, [tsc, ...options, 'cjs.ts'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, `${options.join(' ')}: ${result.stdout}${result.stderr}`);
  }
});
