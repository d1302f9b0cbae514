// DRAFT of `npm run demo` (the lead turns it into examples/demo.mjs around `lockguard run`).
//
// The turbo story, offline, in a temp copy of examples/turbo-monorepo/ with HOME, XDG dirs and the pnpm
// store isolated there. Half 1 (here): WITHOUT lockguard, turbo replays a stale build. Half 2 (TODO, the
// lead): the same with `lockguard run -- turbo run build`: the status line, the withheld entry, and after
// going back the correct rebuild (tiny-dep 7.0.0).
//
// Uses the repo's own pnpm 10 (node_modules/pnpm10) and turbo (node_modules/.bin/turbo).

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'lockguard-demo-'));
const root = join(base, 'turbo-monorepo');
const home = join(base, 'home');
const keep = process.argv.includes('--keep');

cpSync(join(repo, 'examples', 'turbo-monorepo'), root, { recursive: true, filter: (src) => !/(node_modules|\.turbo|dist|\.lockguard)$/.test(src) });
mkdirSync(join(base, 'bin'), { recursive: true });
writeFileSync(join(base, 'bin', 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" "${join(repo, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs')}" "$@"\n`);
chmodSync(join(base, 'bin', 'pnpm'), 0o755);

const env = {
  PATH: `${join(base, 'bin')}:${join(repo, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
  HOME: home,
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_NO_UPDATE_NOTIFIER: '1',
  DO_NOT_TRACK: '1',
  TERM: process.env.TERM ?? 'dumb',
};

function step(title) {
  process.stdout.write(`\n\u001b[1m== ${title}\u001b[0m\n`);
}

function sh(argv, { quiet = false } = {}) {
  process.stdout.write(`$ ${argv.join(' ')}\n`);
  const result = spawnSync(argv[0], argv.slice(1), { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  if (!quiet) process.stdout.write(result.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => `  ${line}`).join('\n') + '\n');
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    throw new Error(`${argv.join(' ')} exited ${result.status ?? result.signal}`);
  }
  return result;
}

const read = (path) => readFileSync(join(root, path), 'utf8');
const built = () => JSON.parse(read('packages/b/dist/out.json')).tinyDep;
const installed = () => JSON.parse(read('packages/b/node_modules/tiny-dep/package.json')).version;

try {
  step('S0: a clean install (tiny-dep 7.0.0), offline');
  sh(['pnpm', 'install', '--frozen-lockfile', '--offline'], { quiet: true });
  console.log(`  installed in b: tiny-dep ${installed()}`);
  const saved = { lockfile: read('pnpm-lock.yaml'), manifest: read('packages/b/package.json') };

  step("Run 1: a's build runs `pnpm --filter b add tiny-dep@6.0.0` while turbo runs (it rewrites pnpm-lock.yaml)");
  writeFileSync(join(root, '.demo-armed'), '');
  sh(['turbo', 'run', 'build', '--output-logs=new-only']);
  console.log(`  pnpm-lock.yaml changed during the run: ${read('pnpm-lock.yaml') !== saved.lockfile}`);
  console.log(`  b was built against tiny-dep ${built()}, and turbo saved it under the key of the OLD lockfile`);

  step('Back to S0 (git checkout would do the same), then a frozen install');
  writeFileSync(join(root, 'pnpm-lock.yaml'), saved.lockfile);
  writeFileSync(join(root, 'packages/b/package.json'), saved.manifest);
  sh(['pnpm', 'install', '--frozen-lockfile', '--offline'], { quiet: true });
  rmSync(join(root, 'packages/b/dist'), { recursive: true, force: true });
  console.log(`  installed in b: tiny-dep ${installed()}`);

  step('Run 2: turbo replays the cache');
  sh(['turbo', 'run', 'build', '--output-logs=none']);
  const stale = built();
  console.log(`  b/dist/out.json says tiny-dep ${stale} while ${installed()} is installed: ${stale === installed() ? 'correct' : '\u001b[31mSTALE OUTPUT, no warning\u001b[0m'}`);

  // TODO(lead): half 2 with `lockguard run -- turbo run build` in a fresh copy: status line, withheld
  // entry (lockguard quarantine list), back to S0, `turbo run build` misses and rebuilds 7.0.0.
} finally {
  if (keep) console.log(`\n(kept ${base})`);
  else rmSync(base, { recursive: true, force: true });
}
