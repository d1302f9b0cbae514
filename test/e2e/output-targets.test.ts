// Outputs are written only where a file belongs (issue 30): `snapshot --key-file`, `--dotenv`, and the
// files GitHub names ($GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_STEP_SUMMARY), through the real CLI. A character
// device made with mknod in the test's folder (never the machine's own), a FIFO, a folder, a link to
// /proc/self/fd/1, a dangling link and a link to a regular file are each refused with exit 2 naming the path,
// and are what they were afterwards; a regular file, or a missing one, takes the output.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliProcess } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';

/** What a target is, to compare before and after: its kind, device number and link text. */
function identity(path: string): string {
  const stats = lstatSync(path);
  const kind = stats.isCharacterDevice()
    ? `char ${stats.rdev}`
    : stats.isFIFO()
      ? 'fifo'
      : stats.isDirectory()
        ? 'folder'
        : stats.isSymbolicLink()
          ? `link -> ${readlinkSync(path)}`
          : `file ${stats.size}`;
  return `${kind} ino ${stats.ino}`;
}

/** The bad targets, made in `dir`: name → what the message says it is. */
function badTargets(dir: string): Record<string, RegExp> {
  execFileSync('mknod', [join(dir, 'full'), 'c', '1', '7']);
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  mkdirSync(join(dir, 'folder'));
  symlinkSync('/proc/self/fd/1', join(dir, 'to-stdout'));
  symlinkSync(join(dir, 'nowhere', 'key'), join(dir, 'dangling'));
  writeFileSync(join(dir, 'regular'), 'kept\n');
  symlinkSync(join(dir, 'regular'), join(dir, 'to-regular'));
  return {
    full: /is a character device/,
    fifo: /is a FIFO/,
    folder: /is a folder/,
    'to-stdout': /is a symbolic link/,
    dangling: /is a symbolic link/,
    'to-regular': /is a symbolic link/,
  };
}

test('snapshot --key-file and --dotenv refuse a device, a FIFO, a folder and links, and leave them as they were', (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const dir = tempWorkspace(t, {}, 'lockguard-targets-');
  const targets = badTargets(dir);
  for (const flag of ['--key-file', '--dotenv']) {
    for (const [name, found] of Object.entries(targets)) {
      const path = join(dir, name);
      const before = identity(path);
      const result = cliProcess(['snapshot', flag, path], root);
      assert.equal(result.code, 2, `${flag} ${name}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`Cannot write ${flag}: "${path}" `), `${flag} ${name}`);
      assert.match(result.stderr, found, `${flag} ${name}`);
      assert.match(result.stderr, /Give .* the path of a regular file/, `${flag} ${name}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(identity(path), before, `${flag} ${name} is what it was`);
      // Nothing written elsewhere: not to stdout (the /proc/self/fd/1 link), not where the dangling link points.
      assert.doesNotMatch(result.stdout, /[0-9a-f]{64}|LOCKGUARD_/, `${flag} ${name}: nothing on stdout`);
      assert.equal(existsSync(join(dir, 'nowhere')), false);
      assert.equal(readFileSync(join(dir, 'regular'), 'utf8'), 'kept\n');
    }
  }
  assert.equal(existsSync(join(root, '.lockguard', 'runs')), false, 'a refused output records no run');
  // A regular file is replaced whole; a missing one in an existing folder is created.
  const keyFile = join(dir, 'regular');
  const ok = cliProcess(['snapshot', '--key-file', keyFile, '--dotenv', join(dir, 'new.env')], root);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(readFileSync(keyFile, 'utf8'), /^[0-9a-f]{64}\n$/);
  assert.match(readFileSync(join(dir, 'new.env'), 'utf8'), /^LOCKGUARD_KEY=[0-9a-f]{64}\n/);
});

test("GitHub's output files ($GITHUB_OUTPUT, $GITHUB_ENV, $GITHUB_STEP_SUMMARY) are appended only when they are regular files", (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const dir = tempWorkspace(t, {}, 'lockguard-targets-');
  const targets = badTargets(dir);
  const good = { out: join(dir, 'out'), env: join(dir, 'env'), summary: join(dir, 'summary') };
  for (const path of Object.values(good)) writeFileSync(path, '');
  const snap = cliProcess(['snapshot'], root);
  assert.equal(snap.code, 0, snap.stderr);
  for (const variable of ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY']) {
    for (const [name, found] of Object.entries(targets)) {
      const path = join(dir, name);
      const before = identity(path);
      const env = scrubbedEnv({
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: good.out,
        GITHUB_ENV: good.env,
        GITHUB_STEP_SUMMARY: good.summary,
        [variable]: path,
      });
      // verify (GitHub's summary is written inside Actions) and snapshot ($GITHUB_ENV) both check first.
      for (const argv of [
        ['verify', '--github-output'],
        ['snapshot', '--github-output'],
      ]) {
        const result = cliProcess(argv, root, env, 10_000);
        assert.equal(result.code, 2, `${argv[0]} ${variable}=${name}: ${result.stderr}`);
        assert.match(result.stderr, new RegExp(`\\$${variable}: "${path}" `));
        assert.match(result.stderr, found);
        assert.equal(identity(path), before, `${variable} ${name} is what it was`);
        assert.doesNotMatch(result.stdout, /[0-9a-f]{64}|save=|key=/, 'nothing on stdout');
      }
    }
  }
  // The good files were never given a verdict or a key (every command stopped before writing), only error answers.
  assert.doesNotMatch(readFileSync(good.out, 'utf8'), /key=|save=true/);
  assert.equal(readFileSync(join(dir, 'regular'), 'utf8'), 'kept\n');
});
