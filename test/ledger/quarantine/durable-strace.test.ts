// Durable renames, proven on the system calls (issue 30): every rename a quarantine move or a restore makes is
// followed, before the journal line that says it happened, by an fsync of the folder it left and of the folder
// it entered, so a power cut after the journal line cannot lose the rename the line vouches for. The real CLI
// and library run under strace (-y names each descriptor's path); .ci/run installs strace.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BIN } from '../../helpers/cli.js';
import { scrubbedEnv } from '../../helpers/env.js';
import { turboEntry } from '../../helpers/runner-caches.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const QUARANTINE = fileURLToPath(new URL('../../../lib/ledger/quarantine/index.js', import.meta.url));

type Call =
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'fsync'; path: string }
  | { kind: 'write'; path: string };

/** The successful renames, folder fsyncs and writes of a strace -f -y log, in order. */
function calls(log: string): Call[] {
  const out: Call[] = [];
  for (const line of log.split('\n')) {
    if (!/ = \d+$/.test(line)) continue;
    const rename = /\brename(?:at2?)?\((?:[^,]+, )?"([^"]+)", (?:[^,]+, )?"([^"]+)"/.exec(line);
    if (rename !== null) out.push({ kind: 'rename', from: rename[1] as string, to: rename[2] as string });
    const sync = /\b(?:fsync|fdatasync)\(\d+<([^>]+)>\)/.exec(line);
    if (sync !== null) out.push({ kind: 'fsync', path: sync[1] as string });
    const write = /\b(?:write|pwrite64|writev)\(\d+<([^>]+)>/.exec(line);
    if (write !== null) out.push({ kind: 'write', path: write[1] as string });
  }
  return out;
}

/** Run argv under strace; the parsed calls. */
function traced(argv: readonly string[], cwd: string, out: string): Call[] {
  const result = spawnSync(
    'strace',
    [
      '-f',
      '-qq',
      '-y',
      '-e',
      'trace=rename,renameat,renameat2,fsync,fdatasync,write,pwrite64,writev',
      '-o',
      out,
      ...argv,
    ],
    { cwd, env: scrubbedEnv(), encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(result.status, 0, result.stderr);
  return calls(readFileSync(out, 'utf8'));
}

/**
 * For every rename of an entry between the cache and the quarantine: both folders fsynced after it and before
 * the next write to the journal. Returns how many such renames were checked.
 */
function assertDurable(trace: readonly Call[], cacheDir: string): number {
  let checked = 0;
  trace.forEach((call, at) => {
    if (call.kind !== 'rename') return;
    const ours =
      [call.from, call.to].some((path) => path.startsWith(cacheDir)) && /quarantine/.test(`${call.from} ${call.to}`);
    if (!ours) return;
    const journal = trace.findIndex(
      (next, i) => i > at && next.kind === 'write' && next.path.endsWith('journal.ndjson'),
    );
    assert.ok(journal > at, `a journal line follows the rename of ${call.from}`);
    const synced = new Set(trace.slice(at + 1, journal).flatMap((next) => (next.kind === 'fsync' ? [next.path] : [])));
    for (const folder of [dirname(call.from), dirname(call.to)]) {
      // A folder the step removed (a restore empties the entry's folder): its removal is made durable in the
      // nearest ancestor still there.
      let durable = folder;
      while (!existsSync(durable)) durable = dirname(durable);
      assert.ok(
        synced.has(durable),
        `${durable} is fsynced between the rename and the journal line (${[...synced].join(', ')})`,
      );
    }
    checked++;
  });
  return checked;
}

test('a quarantine move and a restore fsync both folders of each rename before the journal line that commits it', {
  timeout: 120_000,
}, (t) => {
  assert.equal(spawnSync('strace', ['-V']).status, 0, 'strace is required for this test (.ci/run installs it)');
  const root = tempWorkspace(t, pnpmTree());
  const cacheDir = join(root, '.turbo', 'cache');
  turboEntry(cacheDir, 'abc');
  turboEntry(cacheDir, 'def');
  const script = `import(${JSON.stringify(QUARANTINE)}).then((q) => q.quarantine(${JSON.stringify(root)}, 'run-1', [
    { runner: 'turbo', key: 'abc', task: 'a#build', cacheDir: ${JSON.stringify(cacheDir)}, paths: ['abc.tar.zst', 'abc-meta.json'], reason: 'test' },
    { runner: 'turbo', key: 'def', task: 'b#build', cacheDir: ${JSON.stringify(cacheDir)}, paths: ['def.tar.zst', 'def-meta.json'], reason: 'test' },
  ])).then((r) => { if (r.moved === 0 && r.units?.length === 0) process.exit(9); })`;
  const moved = traced([process.execPath, '--input-type=module', '-e', script], root, `${root}.move.strace`);
  t.after(() => spawnSync('rm', ['-f', `${root}.move.strace`, `${root}.restore.strace`]));
  assert.ok(assertDurable(moved, cacheDir) >= 4, 'the four files moved into the quarantine were checked');
  const restored = traced(
    [process.execPath, BIN, 'quarantine', 'restore', '--run', 'run-1'],
    root,
    `${root}.restore.strace`,
  );
  assert.ok(assertDurable(restored, cacheDir) >= 4, 'the four files moved back were checked');
  assert.equal(readFileSync(join(cacheDir, 'abc.tar.zst'), 'utf8'), 'zst:abc');
});
