// Training the V8 code cache of the CLI bundle (called by scripts/build.mjs): `node train-code-cache.mjs <bundle>`.
//
// Loads the bundle exactly as the executable does (lib/cli/bundle-load.ts, compiled from source), runs the
// commands people run many times a day in a throwaway installed-looking pnpm workspace with turbo and nx
// configured (run, snapshot, verify, key, status, --version), so V8 has compiled what they call, then writes
// `<bundle>.v8cache` (header, the bundle's bytes, V8's data) atomically next to the bundle.
// Invariants: the workspace, HOME and XDG folders live in a temp folder removed at the end; every command
// must exit as expected (a training that did not run its path would ship a cache that does not cover it);
// nothing outside that temp folder and the cache file is written.

import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const bundle = process.argv[2];
if (bundle === undefined) throw new Error('usage: train-code-cache.mjs <bundle>');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { cacheHeader, cachePathOf, compileBundle } = await import(pathToFileURL(join(root, 'dist', 'lib', 'cli', 'bundle-load.js')).href);

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

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
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
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_CACHE_HOME: join(home, '.cache'), XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state') };

  const compiled = compileBundle(bundle, { cache: false });
  const cli = compiled.run((specifier) => import(specifier));
  let out = '';
  const sink = { write: (text) => (out += text), isTTY: false };
  const steps = [
    [['--version'], 0],
    [['--help'], 0],
    [['snapshot'], 0],
    [['verify'], 0],
    [['key'], 0],
    [['run', '--', process.execPath, '-e', '0'], 0],
    [['run', '--', process.execPath, '-e', '0'], 0],
    [['status'], 0],
    [['verify', '--json'], 0],
  ];
  for (const [argv, expected] of steps) {
    out = '';
    const code = await cli.main(argv, { cwd: ws, env, stdout: sink, stderr: sink });
    if (code !== expected) throw new Error(`train: lockguard ${argv.join(' ')} exited ${code}, expected ${expected}:\n${out}`);
  }
  const source = readFileSync(bundle);
  const data = compiled.script.createCachedData();
  const target = cachePathOf(bundle);
  const stage = `${target}.${process.pid}.stage`;
  writeFileSync(stage, Buffer.concat([Buffer.from(cacheHeader(source.length, data.length), 'latin1'), source, data]));
  renameSync(stage, target);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
