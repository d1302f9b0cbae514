// The status line's outcome clause when a guarded runner version cannot be guarded (lib/cli/run-outcome.ts):
// it says so first, says how many stale saves were left, and never says they were withheld.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outcomeText } from '../../lib/cli/run-outcome.js';
import type { GuardedCache, RunnerOutcome } from '../../lib/guard/runner-guard.js';

const NX: GuardedCache = {
  runner: 'nx',
  cache: { runner: 'nx', root: '/w', dir: '/w/.nx/cache', source: 'default' },
  before: { dir: '/w/.nx/cache', exists: true, takenAt: 0, entries: new Map() },
  started: true,
};

function outcome(withheldCount: number, unguarded: RunnerOutcome['unguarded']): RunnerOutcome {
  return {
    caches: [],
    withheldCount,
    keptBeforeMove: 0,
    spared: 0,
    tasksAfterMove: [],
    notes: [],
    stop: undefined,
    unguarded,
    staleLeft: 0,
    cachesNotReached: 0,
  };
}

test('an nx older than 20: the line names it and what was left, and claims no withholding', () => {
  const line = outcomeText(
    'withhold',
    outcome(0, [{ runner: 'nx', why: 'nx 19.8.15 is older than lockguard can guard (nx 20 to 24)', left: 2 }]),
    [NX],
    'run-1',
  );
  assert.equal(
    line,
    'nx 19.8.15 is older than lockguard can guard (nx 20 to 24): 2 cache saves keyed before it were left in the cache, and it may replay them; nothing was withheld (lockguard status --run run-1 for details)',
  );
  assert.doesNotMatch(line, /saves? made after it (was|were) withheld/);
});

test('a guarded nx: the line is as before', () => {
  assert.equal(
    outcomeText('withhold', outcome(1, []), [NX], 'run-1'),
    '1 cache save made after it was withheld (lockguard status --run run-1 for details)',
  );
  assert.equal(
    outcomeText('withhold', outcome(0, []), [NX], 'run-1'),
    'the nx cache holds no save from after it, so nothing was withheld (lockguard status --run run-1 for details)',
  );
});
