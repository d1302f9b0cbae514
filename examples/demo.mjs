// `npm run demo`: lockguard's main job on a bundled example, offline, in temp copies.
//
// The turbo story (the poisoning scenario of lib/README.md): in examples/turbo-monorepo/, a's build runs `pnpm add` (it rewrites
// pnpm-lock.yaml mid-run) and b (which depends on a) builds against the new install. turbo keyed b before
// the rewrite, so it files b's output under the OLD lockfile's key.
// Half 1, WITHOUT lockguard: after going back to the old lockfile and a frozen install, turbo replays the
// stale output (FULL TURBO), silently. Half 2, WITH `lockguard run -- turbo run build`: one status line,
// the stale entry is withheld into quarantine, and after going back turbo misses and rebuilds correctly.
//
// HOME, XDG folders and the pnpm store are isolated in the temp folder; the dependencies are vendored
// tarballs, so nothing touches the network. `--keep` keeps the temp folder.

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  cpSync(join(repo, 'examples', 'turbo-monorepo'), root, {
    recursive: true,
    filter: (src) => !/(node_modules|\.turbo|dist|\.lockguard)$/.test(src),
  });
}

mkdirSync(join(base, 'bin'), { recursive: true });
writeFileSync(
  join(base, 'bin', 'pnpm'),
  `#!/bin/sh\nexec "${process.execPath}" "${join(repo, 'node_modules', 'pnpm10', 'bin', 'pnpm.cjs')}" "$@"\n`,
);
chmodSync(join(base, 'bin', 'pnpm'), 0o755);
writeFileSync(
  join(base, 'bin', 'lockguard'),
  `#!/bin/sh\nexec "${process.execPath}" "${join(repo, 'dist', 'lockguard.cjs')}" "$@"\n`,
);
chmodSync(join(base, 'bin', 'lockguard'), 0o755);

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

const tty = process.stdout.isTTY === true && !process.env.NO_COLOR;
const color = (code, text) => (tty ? `\u001b[${code}m${text}\u001b[0m` : text);

function step(title) {
  process.stdout.write(`\n${color(1, `== ${title}`)}\n`);
}

function sh(argv, { quiet = false } = {}) {
  process.stdout.write(`$ ${argv.join(' ')}\n`);
  const result = spawnSync(argv[0], argv.slice(1), { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  if (!quiet)
    process.stdout.write(
      `${result.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => `  ${line}`)
        .join('\n')}\n`,
    );
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
  return `b/dist/out.json says tiny-dep ${out} while ${installed()} is installed: ${out === installed() ? color(32, 'correct') : color(31, 'STALE OUTPUT, no warning')}`;
}

try {
  process.stdout.write(`\n${color(1, '#### Without lockguard')}\n`);
  freshCopy('without');
  poisonedRun(() => sh(['turbo', 'run', 'build', '--output-logs=new-only']));
  step('Run 2: turbo replays its cache');
  sh(['turbo', 'run', 'build', '--output-logs=none']);
  console.log(`  ${verdict()}`);
  if (built() === installed()) throw new Error('the stale replay did not happen: the story is not reproduced');

  process.stdout.write(`\n${color(1, '#### With lockguard: lockguard run -- turbo run build')}\n`);
  freshCopy('with');
  poisonedRun(() => {
    const run = sh(['lockguard', 'run', '--', 'turbo', 'run', 'build', '--summarize', '--output-logs=new-only']);
    for (const line of run.stderr
      .split('\n')
      .filter((text) => text.startsWith('[lockguard]') || /^ {2}\S+ moved: /.test(text)))
      console.log(`  ${color(33, line)}`);
  });
  step('What lockguard withheld (restorable, never deleted)');
  sh(['lockguard', 'quarantine', 'list']);
  step('Run 2: the stale entry is gone, so turbo rebuilds b against what is installed');
  sh(['turbo', 'run', 'build', '--output-logs=none']);
  console.log(`  ${verdict()}`);
  if (built() !== installed()) throw new Error('lockguard did not prevent the stale replay');
} finally {
  if (keep) console.log(`\n(kept ${base})`);
  else rmSync(base, { recursive: true, force: true });
}
