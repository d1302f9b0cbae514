// `npm run build`, after `tsc`: the esbuild bundles and the type declarations of the CommonJS entry points.
//
// Owns: what ships as bundles (package.json "files") and how each is built:
// - dist/lockguard.cjs: the executable, a launcher of a few lines (lib/cli/bin.ts) that picks one bundle;
// - dist/cli/<command>.cjs, one per command, and dist/cli/main.cjs (help, --version, an unknown command):
//   each holds lib/cli/main.ts with a table of its one command, and nothing another command needs; the
//   command's own on-demand imports are inlined; @pnpm/lockfile-file and execa stay external and are
//   imported through the launcher (lib/core/external.ts): no `import()` that a bundle can reach may remain in
//   it (the build fails on one: code compiled through node:vm cannot import in Node 20);
// - each CLI bundle written as the function expression the launcher compiles (no CommonJS module of its own);
// - the chunks (lib/core/chunks.ts), left out of every command's bundle and compiled by the launcher only when a
//   run needs one: dist/cli/recover-runs.cjs (dead-run recovery, when a run is dead) and dist/cli/pm-<name>.cjs
//   (a package manager's install check and lockfile readers), each reached through a loader module
//   (CHUNK_LOADERS: guard/recover-load.ts, core/package-managers/chunk-load.ts) replaced in the CLI bundles and
//   chunks by one that requires `lockguard-chunk:<name>`; each chunk takes CHUNK_SHARED from the bundle that
//   loads it (each such bundle exports them as `shared`) and carries its own copy of everything else;
// - no V8 code cache: one only the Node that built it accepts helps no user on another Node (lib/cli/bundle-load.ts);
// - dist/pnpmfile.cjs, dist/npm-hook.cjs, dist/yarn-plugin.cjs: the install-time hooks, plain CommonJS;
//   dist/slice-writer.cjs: the slice-file writer the pnpm plugin requires only after an install (the yarn
//   plugin carries its text, run only after an install: `yarn plugin import` copies that one file).
// - dist/npm-hook.d.cts, dist/yarn-plugin.d.cts, dist/pnpmfile.d.cts: the types of the CommonJS files `exports`
//   names (lib/build/types/; the pnpmfile's `require` condition gets its own, not the ES module's).
// Invariants: no esbuild warning (the build fails on one); every CLI bundle is ASCII (the build fails
// otherwise); writes only under dist/.

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');
// import.meta.url, computed only when asked (version.ts, yarn/plugin-path.ts, yarn/state.ts, lazy-writer.ts): a CommonJS
// bundle has no import.meta, so every bundle gets it from its own file name (a build with no warning); undefined
// where there is none (yarn evaluates its plugins with no __filename), as an empty import.meta gave before.
const META = {
  define: { 'import.meta.url': '__lockguardMeta.url' },
    banner: {
    js: "const __lockguardMeta = { get url() { return typeof __filename === 'string' ? require('node:url').pathToFileURL(__filename).href : undefined; } };",
  },
};
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning', absWorkingDir: root, ...META };
const { COMMAND_NAMES } = await import(pathToFileURL(join(dist, 'lib', 'cli', 'command-names.js')).href);
const { CHUNK_SHARED, CHUNKS } = await import(pathToFileURL(join(dist, 'lib', 'core', 'chunks.js')).href);
// The package managers whose heavy half is a chunk (core/chunks.ts names each as pm-<name>).
const MANAGERS = CHUNKS.filter((name) => name.startsWith('pm-')).map((name) => name.slice('pm-'.length));
/**
 * The loader modules that reach the chunks, and what each becomes in a CLI bundle or chunk: the same exports,
 * each a `require('lockguard-chunk:<name>')` the launcher answers (lib/cli/bin.ts; the launcher compiles the
 * chunk once). The ES modules import the code itself; the pnpm, yarn and npm hooks keep it inline (no launcher
 * loads theirs).
 */
const CHUNK_LOADERS = {
  'dist/lib/guard/recover-load.js': [
    "export async function recoverRunsModule() { return require('lockguard-chunk:recover-runs'); }",
  ],
  'dist/lib/core/package-managers/chunk-load.js': [
    'export function managerChunk(name) {',
    '  switch (name) {',
    ...MANAGERS.map((name) => `    case '${name}': return require('lockguard-chunk:pm-${name}');`),
    '  }',
    '  throw new Error(`lockguard has no package-manager chunk named ${name}`);',
    '}',
    'export function asyncManagerChunk(name) {',
    '  return managerChunk(name);',
    '}',
  ],
};
const asChunks = {
  name: 'as-chunks',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, (args) => {
      const lines = CHUNK_LOADERS[relative(root, args.path).split(sep).join('/')];
      return lines === undefined ? undefined : { loader: 'js', contents: lines.join('\n') };
    });
  },
};

/** The chunk requires CHUNK_SHARED as `lockguard-shared:<path>` (the launcher hands it the host's modules). */
const shareFromHost = {
  name: 'share-from-host',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      const path = relative(join(dist, 'lib'), join(args.resolveDir, args.path)).split(sep).join('/');
      return CHUNK_SHARED.includes(path) ? { path: `lockguard-shared:${path}`, external: true } : undefined;
    });
  },
};

/**
 * The entry of one CLI bundle: main with a table of `name` only (none for the `main` bundle); with `shared`,
 * the modules its chunks take from it, exported as `shared` (lib/cli/bin.ts hands them over).
 */
function entryOf(name, shared = false) {
  const table = name === 'main' ? '{}' : `{ ${JSON.stringify(name)}: async () => command }`;
  return [
    "import { main } from './main.js';",
    "export { exitProcess, processIo } from './io.js';",
    ...(name === 'main' ? [] : [`import { command } from './commands/${name}.js';`]),
    `export function start(argv, io) { return main(argv, io, ${table}); }`,
    ...(shared
      ? [
          ...CHUNK_SHARED.map((path, index) => `import * as shared${index} from '../${path}';`),
          `export const shared = { ${CHUNK_SHARED.map((path, index) => `${JSON.stringify(path)}: shared${index}`).join(', ')} };`,
        ]
      : []),
  ].join('\n');
}

/**
 * The yarn plugin as yarn's own plugins are shipped: `yarn plugin import` evaluates the file in a bare VM
 * context (only `module` and `exports`: no `require`, `process` or `__filename`) to read its name, so the top
 * level only sets `name` and `factory`; the plugin's bundle runs inside `factory`, with yarn's require (Node
 * builtins) or, loaded by Node itself (tests), the module's own. The slice writer's bundle (`writer`, the
 * text of dist/slice-writer.cjs) is in the same file as a string, compiled only after an install in a
 * workspace that uses slice files: a string costs every yarn command a scan, not a parse (require of the
 * file: 1.07 ms, as a function 5.2 ms, the plugin before it carried the writer 1.02 ms; minimum of 20 runs on
 * a loaded machine). The writer must not read `__filename`/`__dirname` (new Function has no module scope).
 */
function yarnPluginText(plugin, writer) {
  return [
    "// lockguard's yarn plugin (lib/integrations/yarn-plugin/plugin.ts), built by lib/build/bundle.mjs.",
    'module.exports = {',
    "  name: 'lockguard',",
    '  factory: function (yarnRequire) {',
    "    var self = typeof __filename === 'string' ? __filename : undefined;",
    "    var load = typeof yarnRequire === 'function' ? yarnRequire : require;",
    '    var writer;',
    '    function loadWriter() {',
    '      if (writer === undefined) {',
    '        var module = { exports: {} };',
    `        new Function('require', 'module', 'exports', ${JSON.stringify(writer)})(load, module, module.exports);`,
    '        writer = module.exports;',
    '      }',
    '      return writer;',
    '    }',
    '    var inner = { exports: {} };',
    `    (function (require, module, exports) {\n${plugin}\n    })(load, inner, inner.exports);`,
    '    return inner.exports.createPlugin(self, loadWriter).factory();',
    '  },',
    '};',
    '',
  ].join('\n');
}

const bundles = ['main', ...COMMAND_NAMES];
// The pnpm plugin loads the slice-file writer from its own bundle, only after an install
// (lib/integrations/slice-files/lazy-writer.ts).
const LAZY_SLICE_WRITER = { define: { __LOCKGUARD_SLICE_WRITER__: '"slice-writer.cjs"', 'import.meta.url': 'undefined' } };
rmSync(join(dist, 'cli'), { recursive: true, force: true });
const cliOptions = {
  ...common,
  external: ['@pnpm/lockfile-file', 'execa', 'lockguard-chunk:*'],
  plugins: [asChunks],
  // Thirteen bundles share most of their code: without indentation and blank lines they are 0.77x the
  // size (the tarball's budget, test/package/tarball.test.ts); names stay, so a bug's stack still reads.
  minifyWhitespace: true,
};
/** One command's bundle; built again with the shared modules exported when it may load a chunk. */
async function cliBundle(name) {
  const options = (shared) => ({
    ...cliOptions,
    stdin: { contents: entryOf(name, shared), resolveDir: join(dist, 'lib', 'cli'), sourcefile: `cli-${name}.js` },
    outfile: `dist/cli/${name}.cjs`,
  });
  const first = await build({ ...options(false), write: false, metafile: true });
  if (!Object.keys(CHUNK_LOADERS).some((loader) => loader in first.metafile.inputs)) {
    writeFileSync(join(dist, 'cli', `${name}.cjs`), first.outputFiles[0].text);
    return first;
  }
  return build(options(true));
}
mkdirSync(join(dist, 'cli'), { recursive: true });
const results = await Promise.all([
  build({ ...common, entryPoints: ['dist/lib/cli/bin.js'], outfile: 'dist/lockguard.cjs' }),
  ...bundles.map(cliBundle),
  build({
    ...cliOptions,
    plugins: [shareFromHost, asChunks],
    entryPoints: ['dist/lib/guard/recover-runs.js'],
    outfile: 'dist/cli/recover-runs.cjs',
  }),
  ...MANAGERS.map((name) =>
    build({
      ...cliOptions,
      plugins: [shareFromHost, asChunks],
      entryPoints: [`dist/lib/core/package-managers/${name}/chunk.js`],
      outfile: `dist/cli/pm-${name}.cjs`,
    }),
  ),
  build({ ...common, ...LAZY_SLICE_WRITER, entryPoints: ['dist/lib/integrations/pnpmfile/commonjs.js'], outfile: 'dist/pnpmfile.cjs' }),
  build({ ...common, entryPoints: ['dist/lib/cli/npm-hook-entry.js'], outfile: 'dist/npm-hook.cjs' }),
  build({ ...common, entryPoints: ['dist/lib/integrations/slice-files/after-install.js'], outfile: 'dist/slice-writer.cjs' }),
]);
// The yarn plugin: its own bundle, with the slice writer's (just written) run only after an install.
{
  const { outputFiles } = await build({ ...common, entryPoints: ['dist/lib/integrations/yarn-plugin/commonjs.js'], write: false, outfile: 'dist/yarn-plugin.cjs' });
  writeFileSync(join(dist, 'yarn-plugin.cjs'), yarnPluginText(outputFiles[0].text, readFileSync(join(dist, 'slice-writer.cjs'), 'utf8')));
}
// A warning is a bundle that behaves otherwise than its source (an empty import.meta, a dropped require): the
// build fails on one rather than printing it on every build.
const warned = results.reduce((count, result) => count + result.warnings.length, 0);
if (warned > 0) throw new Error(`build: esbuild printed ${warned} warning(s) above; a bundle must build without any.`);

// The only dynamic imports left may be core/external.ts's fallback for the ES modules, never reached in a bundle.
// Each bundle is then written as the script the launcher compiles (lib/cli/bundle-load.ts wrapBundle).
const { wrapBundle } = await import(pathToFileURL(join(dist, 'lib', 'cli', 'bundle-load.js')).href);
for (const name of [...bundles, ...CHUNKS]) {
  const file = join(dist, 'cli', `${name}.cjs`);
  const text = readFileSync(file, 'utf8');
  const imports = (text.match(/\bimport\(/g) ?? []).length;
  const external = /typeof __lockguardImport\s*===\s*"function"\)\s*return __lockguardImport\(specifier\)/.test(text);
  if (imports !== (external ? 2 : 0)) throw new Error(`build: ${file} holds ${imports} import() calls; a bundle may import only through core/external.ts's importExternal.`);
  // One non-ASCII character (a `•` in a regular expression: esbuild escapes strings, not regex literals) makes V8
  // hold and scan the whole bundle as two-byte text: +7.5 M instructions on every `lockguard run` (callgrind).
  const wide = /[^\x00-\x7f]/.exec(text);
  if (wide !== null) {
    const line = text.slice(0, wide.index).split('\n').length;
    throw new Error(`build: ${file} line ${line} holds U+${wide[0].codePointAt(0).toString(16).padStart(4, '0')}; write it as a \\u escape in the source so the bundle stays ASCII.`);
  }
  // The build id (the wrapped bundle's content hash) names its code cache on the user's machine
  // (lib/cli/code-cache.ts reads this line): V8 checks a cache only against the source's length.
  const wrapped = wrapBundle(text);
  const id = createHash('sha256').update(wrapped).digest('hex').slice(0, 32);
  writeFileSync(file, `${wrapped}\n//# lockguard-build=${id}\n`);
}

// The types of the exports esbuild writes as CommonJS only (package.json "exports"): declarations kept by hand.
for (const name of ['npm-hook', 'yarn-plugin', 'pnpmfile']) {
  copyFileSync(join(root, 'lib', 'build', 'types', `${name}.d.cts`), join(dist, `${name}.d.cts`));
}
