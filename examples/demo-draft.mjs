// DRAFT of `npm run demo` (the lead turns it into examples/demo.mjs around `lockguard run`).
//
// The turbo story, offline, in temp copies of examples/turbo-monorepo/ with HOME, XDG dirs and the pnpm
// store isolated there. Half 1: WITHOUT lockguard, turbo replays a stale build. Half 2: the same run with
// the withholding pass applied the way `lockguard run` applies it (here through the library in dist/;
// the lead swaps it for `lockguard run -- turbo run build`): the entry is withheld, and after going back
// turbo misses and rebuilds against tiny-dep 7.0.0.
//
// Run after `npm run build`. Uses the repo's own pnpm 10 (node_modules/pnpm10) and turbo.

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'lockguard-demo-'));
const home = join(base, 'home');
const keep = process.argv.includes('--keep');
let root = '';

/** A fresh copy of the example (each half starts from S0 with an empty turbo cache). */
function freshCopy(name) {
  root = join(base, name);
  cpSync(join(repo, 'examples', 'turbo-monorepo'), root, { recursive: true, filter: (src) => !/(node_modules|\.turbo|dist|\.lockguard)$/.test(src) });
}

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

/** S0, then run 1 through `runBuild` (a's build rewrites the lockfile), then back to S0; returns S0's files. */
function poisonedRun(runBuild) {
  step('S0: a clean install (tiny-dep 7.0.0), offline');
  sh(['pnpm', 'install', '--frozen-lockfile', '--offline'], { quiet: true });
  console.log(`  installed in b: tiny-dep ${installed()}`);
  const saved = { lockfile: read('pnpm-lock.yaml'), manifest: read('packages/b/package.json') };

  step("Run 1: a's build runs `pnpm --filter b add tiny-dep@6.0.0` while turbo runs (it rewrites pnpm-lock.yaml)");
  writeFileSync(join(root, '.demo-armed'), '');
  runBuild();
  console.log(`  pnpm-lock.yaml changed during the run: ${read('pnpm-lock.yaml') !== saved.lockfile}`);
  console.log(`  b was built against tiny-dep ${built()}; turbo saved it under the key of the OLD lockfile`);

  step('Back to S0 (git checkout would do the same), then a frozen install');
  writeFileSync(join(root, 'pnpm-lock.yaml'), saved.lockfile);
  writeFileSync(join(root, 'packages/b/package.json'), saved.manifest);
  sh(['pnpm', 'install', '--frozen-lockfile', '--offline'], { quiet: true });
  rmSync(join(root, 'packages/b/dist'), { recursive: true, force: true });
  console.log(`  installed in b: tiny-dep ${installed()}`);
}

function verdict() {
  const out = built();
  return `b/dist/out.json says tiny-dep ${out} while ${installed()} is installed: ${out === installed() ? '\u001b[32mcorrect\u001b[0m' : '\u001b[31mSTALE OUTPUT, no warning\u001b[0m'}`;
}

try {
  process.stdout.write('\n\u001b[1m#### Without lockguard\u001b[0m\n');
  freshCopy('without');
  poisonedRun(() => sh(['turbo', 'run', 'build', '--output-logs=new-only']));
  step('Run 2: turbo replays its cache');
  sh(['turbo', 'run', 'build', '--output-logs=none']);
  console.log(`  ${verdict()}`);

  process.stdout.write('\n\u001b[1m#### With the withholding pass (what `lockguard run -- turbo run build` does after the command)\u001b[0m\n');
  freshCopy('with');
  const runners = await import(join(repo, 'dist', 'lib', 'integrations', 'runners', 'index.js'));
  poisonedRun(() => {
    const argv = ['turbo', 'run', 'build', '--summarize', '--output-logs=new-only'];
    const cache = runners.resolveCache(runners.detectRunner(argv), root, argv, env);
    const lockfile = read('pnpm-lock.yaml');
    const before = runners.cacheState(cache);
    const runStartedAt = Date.now();
    sh(argv);
    const runEndedAt = Date.now();
    if (read('pnpm-lock.yaml') === lockfile) return;
    const movedAt = statSync(join(root, 'pnpm-lock.yaml')).ctimeMs;
    const summary = runners.tasksAfterMove(cache, { movedAt, runStartedAt });
    const result = runners.withholdAfterRun(cache, before, summary, { movedAt, runStartedAt, runEndedAt, runId: 'demo' });
    const names = result.withheld.map((entry) => entry.task ?? entry.key).join(', ');
    console.log(`\u001b[33m[lockguard] a task rewrote pnpm-lock.yaml during the run, which every key folds: ${result.withheld.length} cache saves keyed before it were withheld (${names})\u001b[0m`);
    console.log(`  quarantine: ${result.quarantineDir}`);
  });
  step('Run 2: the stale entry is gone, so turbo rebuilds b');
  sh(['turbo', 'run', 'build', '--output-logs=none']);
  console.log(`  ${verdict()}`);
} finally {
  if (keep) console.log(`\n(kept ${base})`);
  else rmSync(base, { recursive: true, force: true });
}
