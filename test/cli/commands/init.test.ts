import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXIT } from '../../../lib/cli/exit-codes.js';
import { PNPMFILE_SHIM } from '../../../lib/integrations/pnpmfile/shim.js';
import { HOOK_SCRIPT } from '../../../lib/integrations/npm/scripts.js';
import { cli } from '../../helpers/cli.js';
import { linkPnpmBin } from '../../helpers/tools.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

test('init writes the shim as .pnpmfile.cjs in a pnpm workspace, and a second init changes nothing', async (t) => {
  const root = tempWorkspace(t, { ...pnpmTree(), packages: { b: { 'package.json': '{"name":"b"}\n' } } });
  const lockfile = readFileSync(join(root, 'pnpm-lock.yaml'));
  {
    // From a package folder: the workspace root gets the file.
    const result = await cli(['init'], join(root, 'packages', 'b'));
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(readFileSync(join(root, '.pnpmfile.cjs'), 'utf8'), PNPMFILE_SHIM);
  }
  {
    // Again: already there, nothing to do.
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(readFileSync(join(root, '.pnpmfile.cjs'), 'utf8'), PNPMFILE_SHIM);
  }
  // The one lockfile line init writes: the shim's pnpmfileChecksum, where pnpm writes it (pnpm 10.34.8 and
  // 12.4.2 wrote this very value and place for the shim; test/e2e/pnpmfile-resolution.test.ts).
  assert.equal(
    readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8'),
    lockfile
      .toString()
      .replace('\nimporters:', '\npnpmfileChecksum: sha256-QEbOCfsUO6AOOr/VrvAOMx8FueENNRHQ4w9JzVAXPIY=\n\nimporters:'),
  );
});

test('init leaves a different existing .pnpmfile.cjs alone and says how to compose', async (t) => {
  const own = 'module.exports = { hooks: { readPackage: (p) => p } }\n';
  const root = tempWorkspace(t, { ...pnpmTree(), '.pnpmfile.cjs': own });
  const result = await cli(['init'], root);
  assert.equal(result.code, EXIT.usage);
  assert.match(result.stderr, /withLockguard/);
  assert.equal(readFileSync(join(root, '.pnpmfile.cjs'), 'utf8'), own);
});

test('init --npm-scripts adds lockguard hook to the root scripts of an npm workspace, never touching the lockfile', async (t) => {
  const lock = '{"name":"root","lockfileVersion":3,"requires":true,"packages":{"":{"name":"root"}}}\n';
  const root = tempWorkspace(t, {
    'package.json': '{\n  "name": "root",\n  "workspaces": ["packages/*"]\n}\n',
    'package-lock.json': lock,
  });
  {
    // Without the flag: nothing written, the flag is suggested.
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.ok);
    assert.match(result.stdout, /--npm-scripts/);
    assert.equal(existsSync(join(root, '.pnpmfile.cjs')), false);
  }
  {
    const result = await cli(['init', '--npm-scripts'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.deepEqual(manifest.scripts, { prepare: HOOK_SCRIPT });
    assert.equal(readFileSync(join(root, 'package-lock.json'), 'utf8'), lock);
    assert.equal(existsSync(join(root, '.pnpmfile.cjs')), false);
  }
});

test('init --npm-scripts on a broken root manifest is a usage error naming it', async (t) => {
  const root = tempWorkspace(t, { 'package.json': '{ "workspaces": [', 'package-lock.json': '{}' });
  writeFileSync(join(root, 'package.json'), '{ "workspaces": [');
  const result = await cli(['init', '--npm-scripts'], root);
  assert.equal(result.code, EXIT.usage);
  assert.match(result.stderr, /package\.json/);
});

test('init refuses a .pnpmfile.cjs that is a folder or a FIFO, without blocking on it', async (t) => {
  for (const make of ['folder', 'fifo'] as const) {
    const root = tempWorkspace(t, pnpmTree());
    const path = join(root, '.pnpmfile.cjs');
    if (make === 'folder') mkdirSync(path);
    else execFileSync('mkfifo', [path]);
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.usage, make);
    assert.match(result.stderr, /\.pnpmfile\.cjs/, make);
  }
});

test('init stopped half way names what it changed and uninstall takes it back; a record it cannot write comes before any edit', async (t) => {
  const turbo = '{ "tasks": { "build": {} } }\n';
  const root = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': turbo, '.gitignore': 'dist/\n' });
  // The sound keys and .gitignore are edited before the hook: a folder where the shim goes stops init there.
  mkdirSync(join(root, '.pnpmfile.cjs'));
  const stopped = await cli(['init'], root);
  assert.equal(stopped.code, EXIT.usage, stopped.stderr);
  assert.match(
    stopped.stderr,
    /init stopped after it had changed \.gitignore, turbo\.json: run lockguard init again once that is fixed, or lockguard uninstall to take them back\./,
  );
  assert.notEqual(readFileSync(join(root, 'turbo.json'), 'utf8'), turbo, 'turbo.json was edited');
  fs.rmdirSync(join(root, '.pnpmfile.cjs'));
  const back = await cli(['uninstall'], root);
  assert.equal(back.code, EXIT.ok, back.stderr);
  assert.equal(readFileSync(join(root, 'turbo.json'), 'utf8'), turbo);
  assert.equal(readFileSync(join(root, '.gitignore'), 'utf8'), 'dist/\n');

  // init.json that cannot be written (a folder in its place): init stops before its first edit (the record first).
  const early = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': turbo, '.lockguard': { 'init.json': {} } });
  const none = await cli(['init'], early);
  assert.equal(none.code, EXIT.usage, none.stderr);
  assert.match(none.stderr, /init\.json/);
  assert.doesNotMatch(none.stderr, /init stopped after/);
  assert.equal(readFileSync(join(early, 'turbo.json'), 'utf8'), turbo, 'nothing edited');
  assert.equal(existsSync(join(early, '.gitignore')), false);
  assert.equal(existsSync(join(early, '.pnpmfile.cjs')), false);
});

test('init in a yarn or bun workspace writes no hook file and says why (only .lockguard/ in .gitignore)', async (t) => {
  for (const [lockfile, text, word] of [
    ['yarn.lock', '__metadata:\n  version: 8\n', 'yarn'],
    ['bun.lock', '{\n  "lockfileVersion": 1,\n}\n', 'bun'],
  ] as const) {
    const root = tempWorkspace(t, { 'package.json': '{"name":"root"}', [lockfile]: text });
    const before = fs.readdirSync(root).sort();
    const result = await cli(['init'], root);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`This is a ${word} workspace: no hook file to write`));
    // A yarn berry workspace hears nothing about yarn v1 (it once did).
    assert.doesNotMatch(result.stdout, /yarn v1/);
    // .lockguard/ holds init.json: what init changed, for lockguard uninstall.
    assert.deepEqual(fs.readdirSync(root).sort(), [...before, '.gitignore', '.lockguard'].sort());
  }
  // yarn v1 hears of yarn v1 only; bun with the prepare hook added is not told "no hook file to write".
  const classic = tempWorkspace(t, { 'package.json': '{"name":"root"}', 'yarn.lock': '# yarn lockfile v1\n\n' });
  const v1 = await cli(['init'], classic);
  assert.match(v1.stdout, /This is a yarn v1 workspace: no hook file to write\.\n {2}yarn v1 has no plugins/);
  assert.doesNotMatch(v1.stdout, /refusing run/);
  const bunHooked = tempWorkspace(t, {
    'package.json': '{"name":"root"}',
    'bun.lock': '{\n  "lockfileVersion": 1,\n}\n',
  });
  const hooked = await cli(['init', '--npm-scripts'], bunHooked);
  assert.equal(hooked.code, 0, hooked.stderr);
  assert.match(hooked.stdout, /package\.json: lockguard's hook runs in the root prepare script/);
  assert.doesNotMatch(hooked.stdout, /no hook file to write/);
  assert.match(hooked.stdout, /the root prepare hook above runs after bun install and bun add/);
});

test('init adds .lockguard/ to the workspace .gitignore once (created when absent, appended otherwise, left when already ignored)', async (t) => {
  const root = tempWorkspace(t, { 'package.json': '{"name":"root"}', 'bun.lock': '{\n  "lockfileVersion": 1,\n}\n' });
  const first = await cli(['init'], root);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^\.gitignore: added \.lockguard\/ /m);
  const once = fs.readFileSync(join(root, '.gitignore'), 'utf8');
  assert.match(once, /^\.lockguard\/$/m);
  const again = await cli(['init'], root);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stdout, /\.gitignore/);
  assert.equal(fs.readFileSync(join(root, '.gitignore'), 'utf8'), once, 'idempotent');
  // An existing .gitignore without a final newline is appended to; one that already ignores the folder is left.
  fs.writeFileSync(join(root, '.gitignore'), 'node_modules');
  await cli(['init'], root);
  assert.equal(
    fs
      .readFileSync(join(root, '.gitignore'), 'utf8')
      .split('\n')
      .filter((line) => line === '.lockguard/').length,
    1,
  );
  assert.match(fs.readFileSync(join(root, '.gitignore'), 'utf8'), /^node_modules\n/);
  for (const line of ['/.lockguard', '.lockguard', '/.lockguard/']) {
    fs.writeFileSync(join(root, '.gitignore'), `dist\n${line}\n`);
    await cli(['init'], root);
    assert.equal(fs.readFileSync(join(root, '.gitignore'), 'utf8'), `dist\n${line}\n`, line);
  }
});

/** A pnpm workspace pinned to pnpm 12.4.2 with the real pnpm 10 in node_modules/.bin (what a root script finds first). */
function pnpm10PinnedTo12(t: Parameters<typeof tempWorkspace>[0], extra: Record<string, string> = {}): string {
  const root = tempWorkspace(t, {
    ...pnpmTree(),
    'package.json': '{"name":"root","private":true,"packageManager":"pnpm@12.4.2"}\n',
    ...extra,
  });
  linkPnpmBin(root, 'pnpm10');
  return root;
}

test('init decides on the pnpm that runs: the pin where pnpm 10 switches to it, pnpm 10 itself where managePackageManagerVersions is off', async (t) => {
  {
    const root = pnpm10PinnedTo12(t);
    const result = await cli(['init'], root, { PATH: '' });
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(
      result.stdout.split('\n').find((line) => line.startsWith('pnpm ')),
      'pnpm 12 runs here: no .pnpmfile.cjs written (on pnpm 11+ any pnpmfile slows every pnpm command).',
    );
    assert.equal(existsSync(join(root, '.pnpmfile.cjs')), false);
  }
  for (const extra of [
    { '.npmrc': 'manage-package-manager-versions=false\n' },
    { 'pnpm-workspace.yaml': 'packages:\n  - "packages/*"\nmanagePackageManagerVersions: false\n' },
  ]) {
    const root = pnpm10PinnedTo12(t, extra);
    const result = await cli(['init'], root, { PATH: '' });
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(readFileSync(join(root, '.pnpmfile.cjs'), 'utf8'), PNPMFILE_SHIM, JSON.stringify(extra));
  }
});

test('init names the next steps: adding lockguard only where the root does not depend on it yet', async (t) => {
  const next = async (manifest: object): Promise<string | undefined> => {
    const root = tempWorkspace(t, { ...pnpmTree(), 'package.json': JSON.stringify(manifest) });
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    return result.stdout.split('\n').find((line) => line.startsWith('  next:'));
  };
  assert.equal(
    await next({ name: 'root', private: true }),
    '  next: add lockguard as a root devDependency (pnpm add -D -w lockguard), commit .pnpmfile.cjs and pnpm-lock.yaml.',
  );
  assert.equal(
    await next({ name: 'root', private: true, devDependencies: { lockguard: '^0.1.0' } }),
    '  next: commit .pnpmfile.cjs and pnpm-lock.yaml.',
  );
});

test('init sets sound keys up where turbo or nx is configured and prints each addition; --sound-keys with --no-sound-keys is a usage error; a broken nx.json refuses before any write', async (t) => {
  {
    const root = tempWorkspace(t, {
      ...pnpmTree(),
      'turbo.json': '{ "tasks": { "build": {} } }',
      'nx.json': '{ "namedInputs": { "default": ["{projectRoot}/src/**"] } }',
    });
    const result = await cli(['init', '--no-pnpmfile'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    const lines = result.stdout.split('\n');
    assert.ok(
      lines.includes(
        '  turbo.json: tasks.build.inputs = ["$TURBO_DEFAULT$", ".lockguard-slice"] (it had none: turbo\'s default, plus the slice file)',
      ),
      result.stdout,
    );
    assert.ok(
      lines.includes('  .nxignore: !**/.lockguard-slice (nx skips gitignored files unless un-ignored here)'),
      result.stdout,
    );
    assert.ok(
      lines.some((line) => line.startsWith('  nx.json: namedInputs.default + "{projectRoot}/.lockguard-slice"')),
      result.stdout,
    );
    assert.ok(
      lines.some((line) => line.startsWith('  .gitignore: .lockguard-slice')),
      result.stdout,
    );
    assert.match(readFileSync(join(root, '.gitignore'), 'utf8'), /^\.lockguard-slice$/m);
    assert.match(readFileSync(join(root, '.gitignore'), 'utf8'), /^\.lockguard\/$/m, 'the ledger line too');
  }
  {
    const root = tempWorkspace(t, { ...pnpmTree(), 'turbo.json': '{}' });
    const result = await cli(['init', '--sound-keys', '--no-sound-keys'], root);
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stderr, /--sound-keys or --no-sound-keys, not both/);
  }
  {
    const root = tempWorkspace(t, { ...pnpmTree(), 'nx.json': '{ "targetDefaults": { ' });
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.usage);
    assert.ok(result.stderr.includes(join(root, 'nx.json')), result.stderr);
    assert.match(result.stderr, /--no-sound-keys/, 'the fix names the way around it');
    assert.equal(existsSync(join(root, '.gitignore')), false, 'nothing written');
    assert.equal(existsSync(join(root, '.nxignore')), false, 'nothing written');
  }
});

test('init with sound keys puts in the hook that rewrites the slice files after an install where nothing else does (pnpm 11+, npm, yarn v1, bun: the root prepare), and writes them now; never where one is', async (t) => {
  const turbo = { 'turbo.json': '{ "tasks": { "build": { "outputs": ["dist/**"] } } }' };
  const prepare = (root: string): unknown =>
    (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { prepare?: unknown } }).scripts
      ?.prepare;
  const optOutHint =
    /sound keys: nothing rewrites the \.lockguard-slice files after an install here.*\n.*lockguard init --npm-scripts/;
  const yarnHint = /sound keys: commit lockguard's yarn plugin.*\n {2}yarn plugin import \S+\/dist\/yarn-plugin\.cjs/;
  {
    const root = pnpm10PinnedTo12(t, turbo);
    const result = await cli(['init'], root, { PATH: '' });
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(prepare(root), HOOK_SCRIPT, 'pnpm 12: the root prepare hook, by default');
    assert.match(result.stdout, /--no-npm-scripts leaves it out/);
    assert.match(result.stdout, /sound keys: each project's \.lockguard-slice, written now/);
    assert.ok(existsSync(join(root, '.lockguard-slice')), result.stdout);
  }
  {
    const root = pnpm10PinnedTo12(t, turbo);
    const result = await cli(['init', '--no-npm-scripts'], root, { PATH: '' });
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(prepare(root), undefined);
    assert.match(result.stdout, optOutHint);
  }
  for (const [argv, extra] of [
    [['init', '--no-sound-keys'], turbo],
    [['init'], {}],
  ] as const) {
    const root = pnpm10PinnedTo12(t, extra);
    const result = await cli([...argv], root, { PATH: '' });
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(prepare(root), undefined, argv.join(' '));
    assert.doesNotMatch(result.stdout, /sound keys: nothing rewrites/, argv.join(' '));
  }
  {
    const root = pnpm10PinnedTo12(t, { ...turbo, '.npmrc': 'manage-package-manager-versions=false\n' });
    const result = await cli(['init'], root, { PATH: '' });
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(prepare(root), undefined, 'pnpm 10 writes them from its pnpmfile');
    assert.doesNotMatch(result.stdout, /sound keys: nothing rewrites/);
  }
  for (const [lockfile, text] of [
    ['yarn.lock', '# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n\n'],
    [
      'bun.lock',
      '{\n  "lockfileVersion": 1,\n  "workspaces": {\n    "": {\n      "name": "root",\n    },\n  },\n  "packages": {\n  }\n}\n',
    ],
    ['package-lock.json', '{"name":"root","lockfileVersion":3,"requires":true,"packages":{"":{"name":"root"}}}\n'],
  ] as const) {
    const root = tempWorkspace(t, { 'package.json': '{"name":"root"}\n', [lockfile]: text, ...turbo });
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(prepare(root), HOOK_SCRIPT, `${lockfile}: the root prepare hook\n${result.stdout}`);
    assert.doesNotMatch(result.stdout, /yarn plugin import/, lockfile);
  }
  for (const [extra, wanted] of [
    [turbo, true],
    [{}, false],
  ] as const) {
    const root = tempWorkspace(t, {
      'package.json': '{"name":"root"}',
      'yarn.lock': '__metadata:\n  version: 8\n',
      ...extra,
    });
    const result = await cli(['init'], root);
    assert.equal(result.code, EXIT.ok, result.stderr);
    assert.equal(prepare(root), undefined, 'yarn berry: its plugin writes them');
    if (wanted) assert.match(result.stdout, yarnHint);
    else assert.doesNotMatch(result.stdout, /yarn plugin import/);
  }
});
