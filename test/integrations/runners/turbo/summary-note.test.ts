// turbo's note when it wrote no run summary (`turboSummary`, issue 28): it says only what the missing summary
// hides in this run. Restores after the move always (a restore writes no entry, so only the summary names it);
// the saves after the move only where they have no `-manifest.json` to be named from (turbo before 2.11), with
// their count; a cache shared with other worktrees, which saves are this run's. Entries written before the
// move, or with a manifest, are not counted.

import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { turboSummary } from '../../../../lib/integrations/runners/turbo/cache.js';
import type { RunnerCache } from '../../../../lib/integrations/runners/types.js';
import { tempWorkspace } from '../../../helpers/workspace.js';

const MOVED = Date.parse('2026-12-04T12:00:00Z');

function cacheWith(
  t: Parameters<typeof tempWorkspace>[0],
  entries: readonly { key: string; at: number; manifest: boolean }[],
  shared = false,
): RunnerCache {
  const root = tempWorkspace(t);
  const dir = join(root, '.turbo', 'cache');
  mkdirSync(dir, { recursive: true });
  for (const { key, at, manifest } of entries) {
    const files = [`${key}.tar.zst`, `${key}-meta.json`, ...(manifest ? [`${key}-manifest.json`] : [])];
    for (const name of files) {
      writeFileSync(join(dir, name), '{}');
      utimesSync(join(dir, name), at / 1000, at / 1000);
    }
  }
  return { runner: 'turbo', root, dir, source: 'default', summaries: join(root, '.turbo', 'runs'), shared };
}

const noteOf = (cache: RunnerCache): string | undefined =>
  turboSummary(cache, { movedAt: MOVED, runStartedAt: MOVED - 60_000 }).note;

const RESTORES =
  "turbo wrote no run summary for this run, so lockguard cannot tell which tasks turbo restored from its cache after the move (add --summarize to turbo's command line).";

test('saves after the move named from their manifests, one before it without: the note names restores only', (t) => {
  const cache = cacheWith(t, [
    { key: 'aaaa', at: MOVED + 5_000, manifest: true },
    { key: 'bbbb', at: MOVED - 5_000, manifest: false },
  ]);
  assert.equal(noteOf(cache), RESTORES);
  assert.equal(noteOf(cacheWith(t, [])), RESTORES, 'no saves at all: restores only');
});

test('saves after the move without a manifest (turbo before 2.11): counted, as named by key only', (t) => {
  const cache = cacheWith(t, [
    { key: 'aaaa', at: MOVED + 5_000, manifest: false },
    { key: 'bbbb', at: MOVED + 6_000, manifest: false },
    { key: 'cccc', at: MOVED + 7_000, manifest: true },
  ]);
  assert.equal(
    noteOf(cache),
    "turbo wrote no run summary for this run, so lockguard cannot tell which tasks turbo restored from its cache after the move and the task of the 2 saves after it (this turbo wrote no -manifest.json) (add --summarize to turbo's command line).",
  );
});

test("a cache shared with other worktrees: which saves are this run's own is said lost too", (t) => {
  const cache = cacheWith(t, [{ key: 'aaaa', at: MOVED + 5_000, manifest: false }], true);
  assert.equal(
    noteOf(cache),
    "turbo wrote no run summary for this run, so lockguard cannot tell which tasks turbo restored from its cache after the move, the task of the 1 save after it (this turbo wrote no -manifest.json) and which saves in the shared cache are this run's own (add --summarize to turbo's command line).",
  );
});
