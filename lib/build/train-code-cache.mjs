// Training the V8 code caches of the CLI's bundles (called by lib/build/bundle.mjs): `node train-code-cache.mjs <dist/cli>`.
//
// Loads each bundle exactly as the executable does (lib/cli/bundle-load.ts, compiled from source), runs the
// commands people run many times a day in a throwaway, installed-looking pnpm workspace with turbo and nx
// configured (run, snapshot, verify, key, status, plan against a stand-in turbo, --version, --help; then
// key --write-slices and run again, where slice files are in use), so V8
// has compiled what each calls, then writes every bundle's `<bundle>.v8cache` (header, the bundle's bytes,
// V8's data) atomically next to it. A bundle no step runs gets a cache of its top level (no pre-parse).
// Invariants: the workspace, HOME and XDG folders live in a temp folder removed at the end; every command
// must exit as expected (a training that did not run its path would ship a cache that does not cover it);
// nothing outside that temp folder and the cache files is written.

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const folder = process.argv[2];
if (folder === undefined) throw new Error('usage: train-code-cache.mjs <folder of bundles>');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const lib = (path) => import(pathToFileURL(join(root, 'dist', 'lib', 'cli', path)).href);
const { cacheHeader, cachePathOf, compileBundle } = await lib('bundle-load.js');
const { commandOf } = await lib('command-names.js');

const LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .: {}

  packages/a:
    dependencies:
      tiny:
        specifier: 1.0.0
        version: 1.0.0

packages:

  tiny@1.0.0:
    resolution: {integrity: sha512-AAAA}

snapshots:

  tiny@1.0.0: {}
`;

const DRY = JSON.stringify({ tasks: [{ taskId: 'a#build', command: 'node build.js', directory: 'packages/a', dependencies: [], resolvedTaskDefinition: { cache: true } }] });

function write(path, text, mode) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

const tmp = mkdtempSync(join(tmpdir(), 'lockguard-train-'));
try {
  const ws = join(tmp, 'ws');
  const home = join(tmp, 'home');
  write(join(ws, 'package.json'), '{"name":"train","private":true,"scripts":{"build":"turbo run build"}}\n');
  write(join(ws, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
  write(join(ws, 'pnpm-lock.yaml'), LOCK);
  write(join(ws, 'node_modules', '.pnpm', 'lock.yaml'), LOCK);
  write(join(ws, 'node_modules', '.pnpm', 'tiny@1.0.0', 'node_modules', 'tiny', 'package.json'), '{"name":"tiny","version":"1.0.0"}\n');
  write(join(ws, 'node_modules', '.modules.yaml'), '{"layoutVersion":5,"nodeLinker":"isolated","virtualStoreDir":".pnpm","prunedAt":"x"}\n');
  write(join(ws, 'packages', 'a', 'package.json'), '{"name":"a","dependencies":{"tiny":"1.0.0"}}\n');
  write(join(ws, 'turbo.json'), '{"tasks":{"build":{"outputs":["dist/**"]}}}\n');
  write(join(ws, 'nx.json'), '{"targetDefaults":{"build":{"cache":true}}}\n');
  write(join(ws, '.turbo', 'cache', '0123456789abcdef.tar.zst'), 'x');
  write(join(ws, '.turbo', 'cache', '0123456789abcdef-meta.json'), '{}');
  // A stand-in for turbo as installed: its launcher package and a "native binary" printing a dry run.
  const platform = process.platform === 'win32' ? 'windows' : process.platform === 'android' ? 'linux' : process.platform;
  const arch = process.arch === 'x64' ? '64' : process.arch;
  write(join(ws, 'node_modules', 'turbo', 'package.json'), '{"name":"turbo","version":"2.11.11","bin":{"turbo":"./bin/turbo"}}\n');
  write(join(ws, 'node_modules', 'turbo', 'bin', 'turbo'), '#!/bin/sh\nexit 1\n', 0o755);
  write(join(ws, 'node_modules', '@turbo', `${platform}-${arch}`, 'package.json'), `{"name":"@turbo/${platform}-${arch}","version":"2.11.11"}\n`);
  write(join(ws, 'node_modules', '@turbo', `${platform}-${arch}`, 'bin', 'turbo'), `#!/bin/sh\necho '${DRY}'\n`, 0o755);
  mkdirSync(join(ws, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../turbo/bin/turbo', join(ws, 'node_modules', '.bin', 'turbo'));
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state') };

  const names = readdirSync(folder).filter((name) => name.endsWith('.cjs')).map((name) => name.slice(0, -'.cjs'.length));
  const loaded = new Map();
  const load = (name) => {
    if (!loaded.has(name)) {
      const compiled = compileBundle(join(folder, `${name}.cjs`), { cache: false });
      loaded.set(name, { compiled, exports: compiled.run((specifier) => import(specifier)) });
    }
    return loaded.get(name);
  };
  let out = '';
  const sink = { write: (text) => (out += text), isTTY: false };
  const steps = [
    [['--version'], [0]],
    [['--help'], [0]],
    [['snapshot'], [0]],
    [['verify'], [0]],
    [['key'], [0]],
    [['run', '--', process.execPath, '-e', '0'], [0]],
    [['run', '--', process.execPath, '-e', '0'], [0]],
    [['status'], [0]],
    [['verify', '--json'], [0]],
    [['plan', '--', 'turbo', 'run', 'build'], [0, 1]],
    // Then the workspace uses per-project slice files: a run's check that they are current, too.
    [['key', '--write-slices'], [0]],
    [['run', '--', process.execPath, '-e', '0'], [0]],
    [['run', '--', process.execPath, '-e', '0'], [0]],
  ];
  for (const [argv, expected] of steps) {
    out = '';
    const code = await load(commandOf(argv) ?? 'main').exports.start(argv, { cwd: ws, env, stdout: sink, stderr: sink });
    if (!expected.includes(code)) throw new Error(`train: lockguard ${argv.join(' ')} exited ${code}, expected ${expected.join(' or ')}:\n${out}`);
  }
  for (const name of names) {
    const bundle = join(folder, `${name}.cjs`);
    const source = readFileSync(bundle);
    const data = load(name).compiled.script.createCachedData();
    const target = cachePathOf(bundle);
    const stage = `${target}.${process.pid}.stage`;
    writeFileSync(stage, Buffer.concat([Buffer.from(cacheHeader(source.length, data.length), 'latin1'), source, data]));
    renameSync(stage, target);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
