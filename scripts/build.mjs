// `npm run build`, after `tsc`: the esbuild bundles, then the V8 code cache of the CLI bundle.
//
// Owns: what ships as bundles (package.json "files") and how each is built:
// - dist/lockguard.cjs: the executable, a launcher of a few lines (lib/cli/bin.ts);
// - dist/cli/main.cjs: the CLI (lib/cli/bundle-entry.ts), @pnpm/lockfile-file and execa left external and
//   loaded on demand through the launcher (lib/core/external.ts); no `import()` may remain in it (the build
//   fails on one: code compiled through node:vm cannot import in Node 20);
// - dist/cli/main.cjs.v8cache: its V8 code cache (scripts/train-code-cache.mjs);
// - dist/pnpmfile.cjs, dist/npm-hook.cjs, dist/yarn-plugin.cjs: the install-time hooks, plain CommonJS.
// Invariants: writes only under dist/; the cache is made by the Node that builds (a different V8 rejects it
// and compiles from source, lib/cli/bundle-load.ts), and a failed training fails the build.

import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', absWorkingDir: root };

const cli = join(dist, 'cli', 'main.cjs');
rmSync(join(dist, 'cli'), { recursive: true, force: true });
await Promise.all([
  build({ ...common, entryPoints: ['dist/lib/cli/bin.js'], outfile: 'dist/lockguard.cjs' }),
  build({
    ...common,
    entryPoints: ['dist/lib/cli/bundle-entry.js'],
    outfile: 'dist/cli/main.cjs',
    external: ['@pnpm/lockfile-file', 'execa'],
    // import.meta.url, computed only when asked (version.ts, refuse-env.ts): a URL per start costs.
    define: { 'import.meta.url': '__lockguardMeta.url' },
    banner: { js: "const __lockguardMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
  }),
  build({ ...common, entryPoints: ['dist/lib/integrations/pnpmfile/commonjs.js'], outfile: 'dist/pnpmfile.cjs' }),
  build({ ...common, entryPoints: ['dist/lib/cli/npm-hook-entry.js'], outfile: 'dist/npm-hook.cjs' }),
  build({ ...common, entryPoints: ['dist/lib/integrations/yarn-plugin/commonjs.js'], outfile: 'dist/yarn-plugin.cjs' }),
]);

// The one dynamic import left must be core/external.ts's fallback for the ES modules, never reached in the bundle.
const text = readFileSync(cli, 'utf8');
const imports = text.match(/\bimport\(/g) ?? [];
if (imports.length !== 2 || !text.includes('typeof __lockguardImport === "function"')) {
  throw new Error(`build: ${cli} holds ${imports.length} import() calls; only core/external.ts's two may remain (import through importExternal).`);
}

const trained = spawnSync(process.execPath, [join(root, 'scripts', 'train-code-cache.mjs'), cli], { stdio: 'inherit' });
if (trained.status !== 0) throw new Error(`build: training the code cache of ${cli} failed (exit ${trained.status ?? trained.signal})`);
