// The trust rule's two questions, one case each: which records and locks were made on this machine (host and
// boot id), and which folders a record may name (the caches handed in, exactly, reached without a link).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isLockguardError } from '../../lib/core/errors.js';
import { acquireLock, deadLocks } from '../../lib/ledger/ledger-lock.js';
import {
  foreignClaims,
  foreignLine,
  machineStamp,
  madeHere,
  madeOnThisHost,
  noPlaces,
  thisMachine,
  trustedCache,
  trustedPlaces,
} from '../../lib/ledger/trust.js';
import { tempWorkspace } from '../helpers/workspace.js';

function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
}

test('made here: this host and this boot id, nothing less', () => {
  const here = thisMachine();
  assert.equal(here.host, hostname());
  assert.equal(here.boot, readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
  assert.equal(madeHere(machineStamp()), true);
  assert.equal(madeHere({ host: here.host, boot: randomUUID() }), false, 'another boot of this host');
  assert.equal(madeHere({ host: 'elsewhere', boot: here.boot }), false, 'another host');
  assert.equal(madeHere({ host: here.host }), false, 'no boot id: lockguard 0.1, or forged');
  assert.equal(madeHere({}), false);
  assert.equal(madeHere(null), false);
  assert.equal(madeHere('x'), false);
  assert.equal(madeOnThisHost({ host: here.host, boot: randomUUID() }), true, 'a restore asks only for the host');
  assert.equal(madeOnThisHost({}), false);
});

test('trusted places: a record names a handed-in cache exactly; never the workspace, an ancestor, the ledger, or a folder behind a link', (t) => {
  const root = tempWorkspace(t, { '.turbo': { cache: {} }, linked: {} });
  const outside = tempWorkspace(t, {}, 'lockguard-outside-');
  symlinkSync(outside, join(root, 'linked', 'cache'));
  const places = trustedPlaces(root, [
    { runner: 'turbo', dir: join(root, '.turbo', 'cache') },
    { runner: 'nx', dir: join(outside, 'nx-cache') },
    { runner: 'turbo', dir: root },
    { runner: 'turbo', dir: '/' },
    { runner: 'turbo', dir: join(root, '..') },
    { runner: 'turbo', dir: join(root, '.lockguard', 'x') },
    { runner: 'turbo', dir: join(root, 'linked', 'cache') },
    { runner: 'turbo', dir: join(root, 'linked', 'cache', 'deeper') },
  ]);
  assert.deepEqual(
    places.caches.map((cache) => cache.dir),
    [join(root, '.turbo', 'cache'), join(outside, 'nx-cache')],
  );
  assert.equal(trustedCache(places, join(root, '.turbo', 'cache'), 'turbo')?.dir, join(root, '.turbo', 'cache'));
  assert.equal(trustedCache(places, join(root, '.turbo', 'cache'), 'nx'), undefined, 'another runner');
  assert.equal(
    trustedCache(places, join(root, '.turbo', 'cache', 'sub')),
    undefined,
    'inside a cache is not the cache',
  );
  assert.equal(trustedCache(places, join(root, '.turbo')), undefined);
  assert.equal(trustedCache(places, `${root}/.turbo/cache/../cache`), undefined, 'not normalized');
  assert.equal(trustedCache(places, '.turbo/cache'), undefined, 'relative');
  assert.equal(trustedCache(places, 42), undefined);
  assert.equal(trustedCache(noPlaces(root), join(root, '.turbo', 'cache')), undefined);
  // A link that appears on the way after the places were made: asked again, refused.
  const later = trustedPlaces(root, [{ runner: 'nx', dir: join(root, 'late', 'cache') }]);
  assert.equal(later.caches.length, 1, 'not there yet: a place');
  symlinkSync(outside, join(root, 'late'));
  assert.equal(trustedCache(later, join(root, 'late', 'cache')), undefined);
});

test('locks: another boot of this host, another host, or no fields: foreign (never dead here, never taken over); an unwritten lock is broken', (t) => {
  const root = tempWorkspace(t);
  const live = join(root, '.lockguard', 'live');
  mkdirSync(live, { recursive: true });
  const dead = { pid: deadPid(), pidStart: 1, t: Date.now() - 60_000 };
  writeFileSync(join(live, '.lock-otherboot'), JSON.stringify({ ...dead, host: hostname(), boot: randomUUID() }));
  writeFileSync(
    join(live, '.lock-otherhost'),
    JSON.stringify({ ...dead, host: 'elsewhere', boot: thisMachine().boot }),
  );
  writeFileSync(join(live, '.lock-nofields'), JSON.stringify(dead));
  writeFileSync(join(live, '.lock-here'), JSON.stringify({ ...dead, ...machineStamp() }));
  assert.deepEqual(deadLocks(['.lock-otherboot', '.lock-otherhost', '.lock-nofields', '.lock-here'], live), ['here']);
  for (const name of ['otherboot', 'otherhost', 'nofields']) {
    assert.throws(
      () => acquireLock(root, name),
      (error: unknown) =>
        isLockguardError(error) && error.code === 'ERR_LOCKGUARD_FOREIGN' && error.message.includes(`.lock-${name}`),
    );
    assert.ok(readFileSync(join(live, `.lock-${name}`), 'utf8').includes(String(dead.pid)), 'left as it was');
  }
  const taken = acquireLock(root, 'here');
  assert.equal(taken.tookOver, true, 'a dead holder of this machine: taken over (its work is repaired)');
  taken.release();
  // The report: the three foreign locks, one line with what to do.
  const claims = foreignClaims(root);
  assert.deepEqual(
    claims.map((claim) => claim.name),
    ['.lock-nofields', '.lock-otherboot', '.lock-otherhost'],
  );
  assert.match(
    foreignLine(claims) ?? '',
    /^\.lockguard\/ holds 3 records not made on this machine \(live\/\.lock-nofields, live\/\.lock-otherboot, live\/\.lock-otherhost\): lockguard repairs and recovers nothing from it; .*remove \.lockguard\//,
  );
  assert.equal(foreignLine([]), undefined);
});

test('foreign claims are never read through a link: a live/ that is one lists nothing', (t) => {
  const root = tempWorkspace(t);
  const outside = tempWorkspace(t, { 'private-name': JSON.stringify({ pid: 1 }) }, 'lockguard-outside-');
  mkdirSync(join(root, '.lockguard'));
  symlinkSync(outside, join(root, '.lockguard', 'live'));
  assert.deepEqual(foreignClaims(root), []);
});
