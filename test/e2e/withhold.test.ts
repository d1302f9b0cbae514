// The poisoning scenario (test/helpers/runner-scenario.ts) WITH the withholding pass, as `lockguard run` applies it (test/helpers/
// guarded-run.ts): the entry b saved under S0's key goes to quarantine; back on S0 the runner misses and
// rebuilds b against what is installed (7.0.0). Then the quarantine restore refuses to overwrite the
// fresh entry the rebuild saved under the same key.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { listUnits } from '../../lib/integrations/runners/index.js';
import { listQuarantine, restore } from '../../lib/ledger/quarantine/index.js';
import { trustedPlaces } from '../../lib/ledger/trust.js';
import { guardedRun } from '../helpers/guarded-run.js';
import { installOncePerFile, scenario } from '../helpers/runner-scenario.js';
import type { Tool } from '../helpers/scenario-workspace.js';

// One install per scenario for the file, a private copy per test (runner-scenario.ts).
installOncePerFile();

const B_TASK: Record<Tool, string> = { turbo: 'b#build', nx: 'b:build', 'pnpm-pipeline': 'packages/b#build' };

for (const tool of ['turbo', 'nx', 'pnpm-pipeline'] as const satisfies readonly Tool[]) {
  test(`${tool}: the stale entry is withheld, and going back rebuilds with the installed version`, async (t) => {
    const s = scenario(t, tool);
    const outcome = await guardedRun(s, () => s.runner(), 'run-withhold');
    let bKey: string;
    {
      // The lockfile moved during the run; b's save (after the move) is in quarantine, not in the cache.
      assert.equal(s.out(), '6.0.0');
      assert.notEqual(outcome.movedAt, undefined);
      const withheld = outcome.withheld?.withheld ?? [];
      const saved = outcome.summary?.tasks.find((task) => task.task === B_TASK[tool]);
      assert.equal(saved?.action, 'saved', `summary: ${JSON.stringify(outcome.summary)}`);
      bKey = saved.key;
      const entry = withheld.find((candidate) => candidate.key === bKey);
      assert.ok(entry, `withheld: ${JSON.stringify(withheld.map((w) => w.key))}`);
      assert.equal(entry.task, B_TASK[tool]);
      assert.ok(!(listUnits(outcome.cache) ?? []).some((unit) => unit.key === bKey));
      for (const path of entry.paths)
        assert.ok(
          existsSync(join(s.root, '.lockguard', 'quarantine', 'run-withhold', 'entries', tool, bKey, path)),
          path,
        );
      assert.deepEqual(outcome.withheld?.notMoved, []);
      assert.equal(listQuarantine(s.root)[0]?.manifest?.entries.length, withheld.length);
    }
    {
      // Back on S0 (7.0.0 installed), a no longer installs: b misses and rebuilds against 7.0.0.
      s.goBack();
      s.runner();
      assert.equal(s.installed(), '7.0.0');
      assert.equal(s.out(), '7.0.0');
      assert.ok((listUnits(outcome.cache) ?? []).some((unit) => unit.key === bKey));
    }
    {
      // The rebuild saved a fresh entry under the same key: restoring the stale one does not overwrite it.
      const result = restore(s.root, 'run-withhold', {
        entry: bKey,
        places: trustedPlaces(s.root, [{ runner: outcome.cache.runner, dir: outcome.cache.dir }]),
      });
      assert.deepEqual(result.restored, []);
      assert.equal(result.skipped[0]?.reason, 'already-in-cache');
      assert.ok(
        readdirSync(join(s.root, '.lockguard', 'quarantine', 'run-withhold', 'entries', tool, bKey)).length > 0,
      );
    }
  });
}

test('turbo: nothing moved, nothing withheld, every entry hits next time', async (t) => {
  const s = scenario(t, 'turbo');
  s.sh(['rm', '-f', join(s.base, 'armed')]);
  const first = await guardedRun(s, () => s.runner(), 'run-plain');
  assert.equal(first.movedAt, undefined);
  assert.equal(first.withheld, undefined);
  const keys = (listUnits(first.cache) ?? []).map((unit) => unit.key).sort();
  assert.equal(keys.length, 2);
  const second = s.sh([...s.runnerArgv(), '--output-logs=none']);
  assert.equal(second.status, 0);
  assert.match(second.stdout, /2 cached, 2 total/);
  assert.deepEqual((listUnits(first.cache) ?? []).map((unit) => unit.key).sort(), keys);
  assert.equal(existsSync(join(s.root, '.lockguard', 'quarantine')), false);
});

test('nx with HOME outside /tmp: the entry in the shared ~/.nx/<id>/cache is withheld, the task DB there untouched, nx misses after going back', async (t) => {
  const s = scenario(t, 'nx', { homeOutsideTmp: true });
  const outcome = await guardedRun(s, () => s.runner(), 'run-shared');
  assert.equal(outcome.cache.shared, true);
  assert.ok(outcome.cache.dir.startsWith(join(s.env['HOME'] ?? '', '.nx')), outcome.cache.dir);
  assert.match(outcome.cache.dir, /\/\.nx\/[0-9a-f]{16}\/cache$/);
  const bKey = outcome.summary?.tasks.find((task) => task.task === 'b:build')?.key;
  assert.ok(bKey !== undefined && (outcome.withheld?.withheld ?? []).some((entry) => entry.key === bKey));
  assert.ok(readdirSync(join(outcome.cache.dir, '..', 'databases')).some((name) => name.endsWith('.db')));
  s.goBack();
  s.runner();
  assert.equal(s.out(), '7.0.0');
});
