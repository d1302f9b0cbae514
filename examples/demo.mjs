// `npm run demo`: lockguard's main job on a bundled example, offline, in a temp copy.
//
// The story: a CI job snapshots the lockfile (the cache key), then a build step installs a newer
// dependency. Without lockguard the cache step saves the new build under the old key; with it, the run's
// status line names the rewritten lockfile and `lockguard verify` refuses the save.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = dirname(dirname(fileURLToPath(import.meta.url)));
const lockguard = join(repo, 'dist/lib/cli/bin.js');
const pnpm = join(repo, 'node_modules/pnpm10/bin/pnpm.cjs');
const tmp = mkdtempSync(join(tmpdir(), 'lockguard-demo-'));
const work = join(tmp, 'workspace');
cpSync(join(repo, 'examples/pnpm-workspace'), work, { recursive: true });

// Isolated HOME, XDG folders and store: the demo touches nothing of yours and needs no network.
const env = { ...process.env, HOME: tmp, XDG_CONFIG_HOME: join(tmp, 'config'), XDG_CACHE_HOME: join(tmp, 'cache'), XDG_DATA_HOME: join(tmp, 'data'), XDG_STATE_HOME: join(tmp, 'state'), npm_config_store_dir: join(tmp, 'store'), npm_config_offline: 'true' };
for (const name of Object.keys(env)) if (/^(LOCKGUARD_|CI$|GITHUB_)/.test(name)) delete env[name];

const bold = (text) => (process.stdout.isTTY ? `\u001b[1m${text}\u001b[0m` : text);
function step(title, argv, { expect = 0, quiet = false } = {}) {
  console.log(`\n${bold(`== ${title}`)}\n$ ${argv.map((word) => (/\s/.test(word) ? JSON.stringify(word) : word)).join(' ').replaceAll(repo, '.').replaceAll(tmp, '$TMP')}`);
  const result = spawnSync(argv[0], argv.slice(1), { cwd: work, env, encoding: 'utf8' });
  const out = `${result.stdout}${result.stderr}`.replaceAll(tmp, '$TMP').replaceAll(repo, '.').trimEnd();
  if (!quiet && out !== '') console.log(out);
  console.log(`(exit ${result.status})`);
  if (result.status !== expect) {
    console.error(`demo: expected exit ${expect}, got ${result.status}`);
    process.exit(1);
  }
  return result;
}

try {
  step('1. A fresh clone installs from its lockfile (offline)', [process.execPath, pnpm, 'install', '--frozen-lockfile'], { quiet: true });
  const snapshot = step('2. Job start: lockguard snapshot records the lockfile and prints the cache key', [process.execPath, lockguard, 'snapshot']);
  const key = /key\s+(\w+)/.exec(snapshot.stdout)?.[1];
  step('3. The build runs under lockguard; one of its steps installs a newer dependency', [process.execPath, lockguard, 'run', '--', 'sh', '-c', `node ${pnpm} --filter app add file:../../vendor/is-even-2.0.0 >/dev/null && node ${pnpm} --filter app run build`]);
  const out = readFileSync(join(work, 'packages/app/dist/out.json'), 'utf8').trim();
  console.log(`\nThe build output is ${out}, but the cache key ${key?.slice(0, 12)}... names the lockfile that said is-even 1.0.0.`);
  step('4. Before the cache save: lockguard verify refuses it (exit 1)', [process.execPath, lockguard, 'verify'], { expect: 1 });
  step('5. What happened, from the ledger', [process.execPath, lockguard, 'status']);
  console.log(`\n${bold('Without lockguard')} the cache would now hold ${out} under the old key, and every job that`);
  console.log('restores that key (with is-even 1.0.0 installed) would replay it. With lockguard, the save is refused');
  console.log('and the next run keys on the new lockfile.');
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
