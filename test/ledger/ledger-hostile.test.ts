// A hostile ledger: links and files where lockguard's folders belong, forged records and journals, a huge
// event log. Each case: exit 2 naming the path (never 70, never a stack trace), nothing written or read
// outside the workspace, and the stable code through the library call the command makes.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { createRun, loadRun, runIdAt } from '../../lib/ledger/ledger.js';
import { findRun } from '../../lib/ledger/find-run.js';
import { quarantine } from '../../lib/ledger/quarantine/index.js';
import { BIN, cliProcess, type CliResult } from '../helpers/cli.js';
import { scrubbedEnv } from '../helpers/env.js';
import { assertSetupError, codeOf } from '../helpers/errors.js';
import { mountTmpfs } from '../helpers/crash.js';
import { pnpmTree, tempWorkspace } from '../helpers/workspace.js';
import { write } from '../helpers/runner-caches.js';

function run(argv: readonly string[], cwd: string): CliResult {
  const result = cliProcess(argv, cwd, scrubbedEnv(), 20_000);
  assert.equal(result.signal, null, `lockguard ${argv.join(' ')} did not return in time`);
  return result;
}

describe('links and files where the ledger keeps its folders', () => {
  for (const part of ['.lockguard', 'runs', 'blobs', 'live', 'quarantine'] as const) {
    test(`${part} as a symlink: refused (exit 2, ERR_LOCKGUARD_UNSAFE_LEDGER), nothing written through it`, async (t) => {
      const root = tempWorkspace(t, pnpmTree());
      const outside = tempWorkspace(t, {}, 'lockguard-outside-');
      const path = part === '.lockguard' ? join(root, '.lockguard') : join(root, '.lockguard', part);
      if (part !== '.lockguard') mkdirSync(join(root, '.lockguard'));
      symlinkSync(outside, path);
      if (part === 'quarantine') {
        write(join(root, 'cache', 'k.tar.zst'), 'k');
        assertSetupError(run(['quarantine', 'list'], root), path);
        assert.equal(
          await codeOf(() =>
            quarantine(root, 'r1', [
              { runner: 'turbo', key: 'k', cacheDir: join(root, 'cache'), paths: ['k.tar.zst'], reason: 'test' },
            ]),
          ),
          'ERR_LOCKGUARD_UNSAFE_LEDGER',
        );
        assert.ok(existsSync(join(root, 'cache', 'k.tar.zst')), 'the entry stays in its cache');
      } else if (part === 'live') {
        assertSetupError(run(['run', '--no-pre-check', '--', 'true'], root), path);
      } else {
        assertSetupError(run(['snapshot'], root), path);
        assert.equal(
          await codeOf(() =>
            createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) }),
          ),
          'ERR_LOCKGUARD_UNSAFE_LEDGER',
        );
      }
      assert.deepEqual(readdirSync(outside), [], 'nothing was written outside the workspace');
    });
  }

  for (const part of ['runs', 'blobs', 'live'] as const) {
    test(`${part} as a file: exit 2 naming it (ERR_LOCKGUARD_BROKEN_LEDGER), never 70`, async (t) => {
      const root = tempWorkspace(t, pnpmTree());
      const path = join(root, '.lockguard', part);
      write(path, 'not a folder');
      assertSetupError(run(part === 'live' ? ['run', '--no-pre-check', '--', 'true'] : ['snapshot'], root), path);
      if (part !== 'live')
        assert.equal(
          await codeOf(() =>
            createRun({ kind: 'snapshot', table: readWorkspaceFingerprints(root, { scope: 'inputs' }) }),
          ),
          'ERR_LOCKGUARD_BROKEN_LEDGER',
        );
      assert.equal(readFileSync(path, 'utf8'), 'not a folder');
      // A snapshot that failed half way leaves no run behind.
      const runs = join(root, '.lockguard', 'runs');
      if (part !== 'runs' && existsSync(runs)) assert.deepEqual(readdirSync(runs), []);
    });
  }

  test('a run folder that is a symlink is never read', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const taken = JSON.parse(run(['snapshot', '--json'], root).stdout) as { dir: string; run: string };
    const outside = tempWorkspace(t, {}, 'lockguard-outside-');
    writeFileSync(join(outside, 'run.json'), readFileSync(join(taken.dir, 'run.json')));
    rmSync(taken.dir, { recursive: true });
    symlinkSync(outside, taken.dir);
    assertSetupError(run(['verify', '--run', taken.run], root), taken.dir);
    assert.equal(await codeOf(() => findRun(root, taken.run, undefined)), 'ERR_LOCKGUARD_UNSAFE_LEDGER');
  });
});

describe('forged records', () => {
  for (const [what, path] of [
    ['a ".." path', '../outside/secret.txt'],
    ['an absolute path', '/etc/passwd'],
    ['a path that is no entry of the table', 'src/index.ts'],
    ['a NUL byte', 'pnpm-lock.yaml\u0000x'],
  ] as const) {
    test(`run.json listing ${what}: verify and status exit 2 (ERR_LOCKGUARD_BROKEN_LEDGER), the path never read`, async (t) => {
      const root = tempWorkspace(t, pnpmTree());
      const taken = JSON.parse(run(['snapshot', '--json'], root).stdout) as { dir: string };
      const file = join(taken.dir, 'run.json');
      const record = JSON.parse(readFileSync(file, 'utf8')) as { entries: { path: string; kind: string }[] };
      record.entries.push({ ...record.entries[0], path, kind: 'lockfile' } as { path: string; kind: string });
      writeFileSync(file, JSON.stringify(record));
      for (const command of ['verify', 'status']) assertSetupError(run([command], root), file);
      assert.equal(await codeOf(() => loadRun(taken.dir, root)), 'ERR_LOCKGUARD_BROKEN_LEDGER');
    });
  }

  test('a time no Date holds (at: 1e300, finite) and JSON nested 200,000 deep: exit 2 naming the file or the line skipped, never 70', async (t) => {
    // status once printed `at` through toISOString (RangeError, exit 70); status --json walked a deep event line
    // or report.json recursively (stack overflow, exit 70).
    const root = tempWorkspace(t, pnpmTree());
    const taken = JSON.parse(run(['snapshot', '--json'], root).stdout) as { dir: string };
    const file = join(taken.dir, 'run.json');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace(/"at": [0-9.]+/, '"at": 1e300'));
    assert.notEqual(readFileSync(file, 'utf8'), good, 'the record was forged');
    for (const argv of [['status'], ['status', '--json'], ['verify']]) assertSetupError(run(argv, root), file);
    assert.equal(await codeOf(() => loadRun(taken.dir, root)), 'ERR_LOCKGUARD_BROKEN_LEDGER');
    writeFileSync(file, good);

    const deep = (inner: string): string => `${'['.repeat(200_000)}${inner}${']'.repeat(200_000)}`;
    writeFileSync(
      join(taken.dir, 'events.ndjson'),
      `${readFileSync(join(taken.dir, 'events.ndjson'), 'utf8')}{"t":1,"type":"verify","save":true,"moved":${deep('')}}\n`,
    );
    for (const argv of [['status'], ['status', '--json']]) {
      const result = run(argv, root);
      assert.equal(result.code, 0, `${argv.join(' ')}: the deep line is skipped as garbage\n${result.stderr}`);
    }
    const done = tempWorkspace(t, pnpmTree());
    run(['run', '--no-pre-check', '--', 'true'], done);
    const report = join(
      done,
      '.lockguard',
      'runs',
      readdirSync(join(done, '.lockguard', 'runs')).find((id) => id.includes('-run-')) ?? '',
      'report.json',
    );
    writeFileSync(report, deep(''));
    for (const argv of [['status'], ['status', '--json']]) {
      const result = run(argv, done);
      assertSetupError(result, report);
      assert.match(result.stderr, /nested deeper than 64 levels/);
    }
  });

  test('a committed run stamped in the future, or recorded on another host, is never "the latest run" verify and status judge by', (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const taken = JSON.parse(run(['snapshot', '--json'], root).stdout) as { dir: string; run: string };
    const record = JSON.parse(readFileSync(join(taken.dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    // Bait: the lockfile as it will be after the job's install (so a verify judged by it would allow the save).
    writeFileSync(
      join(root, 'pnpm-lock.yaml'),
      `${readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8')}# rewritten by the job\n`,
    );
    const bait = readWorkspaceFingerprints(root, { scope: 'inputs' });
    for (const [id, host] of [
      ['20991231T235959999999Z-snapshot-f00001', record['host']],
      // Newer than the snapshot (a minute from now, within the clock slack), but another host's.
      [runIdAt('snapshot', (Date.now() + 60_000) * 1000, 'f00002'), 'another-host'],
    ] as const) {
      const dir = join(root, '.lockguard', 'runs', id);
      mkdirSync(dir);
      writeFileSync(join(dir, 'events.ndjson'), '');
      writeFileSync(
        join(dir, 'run.json'),
        JSON.stringify({ ...record, id, host, at: Date.now(), key: bait.key, entries: bait.entries }),
      );
    }
    const verify = run(['verify', '--json'], root);
    assert.equal(verify.code, 1, verify.stderr);
    assert.equal(
      (JSON.parse(verify.stdout) as { run: string }).run,
      taken.run,
      'judged by the snapshot this host took',
    );
    assert.equal(findRun(root, undefined, undefined).record.id, taken.run);
  });

  test('a forged journal cannot steer a restore outside the workspace', async (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const target = tempWorkspace(t, {}, 'lockguard-target-');
    write(join(root, 'cache', 'abc.tar.zst'), 'bytes');
    await quarantine(root, 'r1', [
      { runner: 'turbo', key: 'abc', cacheDir: join(root, 'cache'), paths: ['abc.tar.zst'], reason: 'test' },
    ]);
    const journal = join(root, '.lockguard', 'quarantine', 'r1', 'journal.ndjson');
    // Point the entry at another folder (absolute, outside the workspace), and add lines with ".." paths.
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const forged = lines.map((line) => (line['op'] === 'intent' ? { ...line, cacheDir: target } : line));
    forged.push({ ...lines[0], unit: 'turbo/up', key: 'up', paths: ['../../up'], cacheDir: target, t: 1 });
    writeFileSync(journal, `${forged.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const restored = run(['quarantine', 'restore', '--run', 'r1', '--json'], root);
    // Nothing restored, the entry still in quarantine: exit 1 as the help says (it was 0).
    assert.equal(restored.code, 1, restored.stderr);
    const data = JSON.parse(restored.stdout) as { restored: unknown[]; skipped: { reason: string }[] };
    assert.deepEqual(data.restored, []);
    assert.deepEqual(
      data.skipped.map((skip) => skip.reason),
      ['unknown-cache-dir'],
    );
    assert.deepEqual(readdirSync(target), [], 'nothing was created outside the workspace');
    assert.match(run(['quarantine', 'list'], root).stdout, /1 line\(s\) of its journal could not be read/);
  });

  test('a live marker naming a run folder elsewhere, or without a start time, is no live run', (t) => {
    const root = tempWorkspace(t, pnpmTree());
    const outside = tempWorkspace(t, {}, 'lockguard-outside-');
    const taken = JSON.parse(run(['snapshot', '--json'], root).stdout) as { dir: string; run: string };
    mkdirSync(join(root, '.lockguard', 'live'));
    writeFileSync(
      join(root, '.lockguard', 'live', taken.run),
      JSON.stringify({ dir: outside, id: taken.run, pid: process.pid, pidStart: 1, policy: 'refuse' }),
    );
    writeFileSync(
      join(root, '.lockguard', 'live', 'x'),
      JSON.stringify({ dir: join(root, '.lockguard', 'runs', 'x'), id: 'x', pid: process.pid, policy: 'refuse' }),
    );
    // Neither is reported to (a hook would write through them); neither carries this machine's host and
    // boot, so both are foreign: left as they are and reported, nothing recovered from them.
    const status = run(['status'], root);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(readdirSync(outside), []);
    assert.deepEqual(readdirSync(join(root, '.lockguard', 'live')).sort(), [taken.run, 'x'].sort());
    assert.match(
      status.stderr,
      /lockguard: warning: \.lockguard\/ holds 2 records not made on this machine \(live\/\S+, live\/x\): lockguard repairs and recovers nothing from it/,
    );
  });
});

describe('a huge event log', () => {
  test('verify and status read a 256 MB events.ndjson streaming: under 100 MB RSS, and the move at its end counts', async (t) => {
    const base = tempWorkspace(t, {}, 'lockguard-huge-');
    const root = join(base, 'ws');
    const unmount = mountTmpfs(t, root, 'size=400m');
    try {
      writeFileSync(join(root, 'package.json'), '{"name":"root","private":true}\n');
      writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
      writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n");
      const taken = JSON.parse(run(['snapshot', '--json'], root).stdout) as { dir: string; run: string };
      const events = join(taken.dir, 'events.ndjson');
      {
        // 256 MB of hook reports, one 20 MB line (skipped whole), then one recorded move at the very end.
        const line = `${JSON.stringify({ t: 1, type: 'hook', source: 'pnpmfile', command: 'install', pid: 12345, pad: 'x'.repeat(60) })}\n`;
        const block = Buffer.from(line.repeat(Math.floor((1 << 20) / line.length)));
        const fd = openSync(events, 'a');
        for (let i = 0; i < 256; i++) writeSync(fd, block);
        writeSync(fd, Buffer.alloc(20 << 20, 0x61));
        writeSync(
          fd,
          `\n${JSON.stringify({ t: 2, type: 'moved', evidence: 'verify', files: [{ path: 'pnpm-lock.yaml', kind: 'rewritten', was: null, now: null }] })}\n`,
        );
        closeSync(fd);
      }
      const preload = join(base, 'rss.cjs');
      writeFileSync(
        preload,
        "process.on('exit', () => require('fs').writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)));\n",
      );
      const measured = (argv: readonly string[]): { code: number | null; rssMb: number; stderr: string } => {
        const out = join(base, `rss-${argv[0]}`);
        const result = spawnSync(process.execPath, ['--require', preload, BIN, ...argv], {
          cwd: root,
          env: { ...scrubbedEnv(), RSS_OUT: out },
          encoding: 'utf8',
          timeout: 120_000,
          maxBuffer: 64 << 20,
        });
        return { code: result.status, rssMb: Number(readFileSync(out, 'utf8')) / 1024, stderr: result.stderr };
      };
      const verify = measured(['verify', '--run', taken.run]);
      assert.equal(verify.code, 1, `the move recorded at the end of the log counts\n${verify.stderr}`);
      assert.ok(verify.rssMb < 100, `verify peaked at ${verify.rssMb.toFixed(0)} MB RSS`);
      const status = measured(['status', '--run', taken.run, '--json']);
      assert.equal(status.code, 0, status.stderr);
      assert.ok(status.rssMb < 100, `status peaked at ${status.rssMb.toFixed(0)} MB RSS`);
    } finally {
      unmount();
    }
  });
});
