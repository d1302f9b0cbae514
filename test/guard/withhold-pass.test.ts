// The one withholding pass (lib/guard/withhold-pass.ts) that a live run and a dead run's recovery share: how
// it ends when a stop is requested or the ledger faults, as typed values (PassStop, counts), on real files
// in turbo's layout. The CLI's words for these outcomes are asserted end to end (test/e2e/crash-signals,
// disk-faults); here the values they are rendered from.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsFault } from '../../lib/core/fs-fault.js';
import { LockguardError } from '../../lib/core/errors.js';
import { faultCause, withholdPass, type PassCache, type PassOptions } from '../../lib/guard/withhold-pass.js';
import { cacheState, type RunnerCache } from '../../lib/integrations/runners/index.js';
import { age, turboEntry } from '../helpers/runner-caches.js';
import { tempWorkspace } from '../helpers/workspace.js';

const HOUR = 3_600_000;
const KEYS = ['aaaa000000000001', 'bbbb000000000002', 'cccc000000000003'];

/** Two turbo caches in one workspace, each with three saves after the move (`runStartedAt` an hour ago). */
function twoCaches(root: string): { caches: PassCache[]; options: Omit<PassOptions, 'withhold'> } {
  const runStartedAt = Date.now() - HOUR;
  const caches = ['one', 'two'].map((name): PassCache => {
    const cache: RunnerCache = { runner: 'turbo', root, dir: join(root, name, 'cache'), source: 'default' };
    mkdirSync(cache.dir, { recursive: true });
    const before = cacheState(cache);
    for (const key of KEYS) {
      turboEntry(cache.dir, key);
      age(join(cache.dir, `${key}.tar.zst`), runStartedAt + 5000);
    }
    return { runner: 'turbo', cache, before, started: true };
  });
  return {
    caches,
    options: { movedAt: runStartedAt + 1000, runStartedAt, runEndedAt: Date.now() + 1000, runId: 'r1' },
  };
}

function inCache(cache: PassCache): number {
  return KEYS.filter((key) => existsSync(join(cache.cache.dir, `${key}.tar.zst`))).length;
}

test('a complete pass: no stop, every stale save withheld, every cache reached', async (t) => {
  const root = tempWorkspace(t);
  const { caches, options } = twoCaches(root);
  const outcome = await withholdPass(caches, { ...options, withhold: true });
  assert.equal(outcome.stop, undefined);
  assert.equal(outcome.withheldCount, 6);
  assert.equal(outcome.staleLeft, 0);
  assert.equal(outcome.cachesNotReached, 0);
  assert.deepEqual(caches.map(inCache), [0, 0]);
});

test('a stop requested before the pass: a signal stop, no cache reached, nothing moved', async (t) => {
  const root = tempWorkspace(t);
  const { caches, options } = twoCaches(root);
  const outcome = await withholdPass(caches, { ...options, withhold: true, control: { stopRequested: () => true } });
  assert.deepEqual(outcome.stop, { kind: 'signal' });
  assert.equal(outcome.cachesNotReached, 2);
  assert.deepEqual(
    outcome.caches.map((cache) => cache.reached),
    [false, false],
  );
  assert.equal(outcome.withheldCount, 0);
  assert.deepEqual(caches.map(inCache), [3, 3]);
});

test('a stop requested mid-pass: a signal stop at a safe point; what it did not move is counted and stays; the next cache is not reached', async (t) => {
  const root = tempWorkspace(t);
  const { caches, options } = twoCaches(root);
  let asked = 0;
  const outcome = await withholdPass(caches, {
    ...options,
    withhold: true,
    control: { stopRequested: () => ++asked > 2 },
  });
  assert.deepEqual(outcome.stop, { kind: 'signal' });
  assert.ok(
    outcome.withheldCount > 0 && outcome.withheldCount < 3,
    `withheld ${outcome.withheldCount} of the first cache's 3`,
  );
  assert.equal(
    outcome.withheldCount + outcome.staleLeft,
    3,
    'every stale save of the first cache is withheld or counted as left',
  );
  assert.equal(inCache(caches[0] as PassCache), outcome.staleLeft);
  assert.equal(outcome.cachesNotReached, 1);
  assert.equal(inCache(caches[1] as PassCache), 3);
  assert.match(
    outcome.notes.join('\n'),
    new RegExp(`turbo: ${outcome.staleLeft} stale entries not withheld yet \\(the pass was stopped\\)`),
  );
});

test('a ledger fault: a fault stop with its cause and error, the caches after it not reached, every entry still in its cache', async (t) => {
  const root = tempWorkspace(t);
  const { caches, options } = twoCaches(root);
  // A file where the quarantine folder belongs: the ledger cannot take the entries.
  mkdirSync(join(root, '.lockguard'), { recursive: true });
  writeFileSync(join(root, '.lockguard', 'quarantine'), 'not a folder');
  const outcome = await withholdPass(caches, { ...options, withhold: true });
  assert.equal(outcome.stop?.kind, 'fault');
  if (outcome.stop?.kind !== 'fault') return;
  assert.ok(outcome.stop.error instanceof LockguardError);
  assert.equal(outcome.stop.cause, faultCause(outcome.stop.error));
  assert.equal(outcome.stop.cause, 'ledger');
  assert.equal(outcome.withheldCount, 0);
  assert.equal(outcome.cachesNotReached, 1);
  assert.deepEqual(caches.map(inCache), [3, 3]);
});

test('flag: summaries only, nothing moves, and a stop request does not cut it short', async (t) => {
  const root = tempWorkspace(t);
  const { caches, options } = twoCaches(root);
  const outcome = await withholdPass(caches, { ...options, withhold: false, control: { stopRequested: () => true } });
  assert.equal(outcome.stop, undefined);
  assert.equal(outcome.cachesNotReached, 0);
  assert.deepEqual(caches.map(inCache), [3, 3]);
});

test("a fault's cause comes from its code and errno, never its words", () => {
  const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: some words`), { code });
  assert.equal(faultCause(fsFault(errno('EROFS'), '/w/.lockguard/x', 'write')), 'read-only');
  assert.equal(faultCause(fsFault(errno('ENOSPC'), '/w/.lockguard/x', 'write')), 'full');
  assert.equal(faultCause(fsFault(errno('EACCES'), '/w/.lockguard/x', 'write')), 'access');
  // A message that says "read-only" does not make a full disk read-only.
  assert.equal(
    faultCause(new LockguardError('ERR_LOCKGUARD_DISK', 'read-only, they said', { cause: errno('ENOSPC') })),
    'full',
  );
  assert.equal(faultCause(new LockguardError('ERR_LOCKGUARD_BROKEN_LEDGER', 'x')), 'ledger');
});
