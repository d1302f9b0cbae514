// Rush's detection and its switches (integrations/runners/rush.ts): rush.json or a command that starts rush;
// the build cache and pnpm's workspaces read from Rush's JSON-with-comments files (a comment holding the words
// does not switch anything on); the words the run's line and doctor share; the gap doctor warns of where pnpm
// runs without workspaces (measured with Rush 5.179.0: one importer, common/temp).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rushHere, rushWords, rushWorkspacesGap } from '../../../lib/integrations/runners/rush.js';
import { tempWorkspace } from '../../helpers/workspace.js';

const RUSH_JSON = '{ "pnpmVersion": "10.34.8", "projects": [] }';

test('Rush is here by rush.json or by a command that starts rush or rushx; else not, and the steps are not asked', (t) => {
  const plain = tempWorkspace(t, {});
  assert.equal(rushHere(plain), undefined);
  assert.equal(
    rushHere(plain, () => [['turbo', 'run', 'build']]),
    undefined,
  );
  assert.equal(rushHere(plain, () => [['/x/node_modules/.bin/rushx', 'build']])?.evidence, 'the command starts rush');
  const repo = tempWorkspace(t, { 'rush.json': RUSH_JSON });
  const here = rushHere(repo, () => assert.fail('steps are asked only where rush.json is absent'));
  assert.deepEqual(here, { evidence: 'rush.json', buildCache: 'off', workspaces: 'off' });
});

test("Rush's switches: JSON with comments; a comment holding the key switches nothing on", (t) => {
  const on = tempWorkspace(t, {
    'rush.json': RUSH_JSON,
    common: {
      config: {
        rush: {
          'build-cache.json':
            '{\n  // on, locally\n  "buildCacheEnabled": true,\n  "cacheProvider": "local-only",\n}\n',
          'pnpm-config.json': '/* rush init */ { "useWorkspaces": true }',
        },
      },
    },
  });
  assert.deepEqual(rushHere(on), { evidence: 'rush.json', buildCache: 'on', workspaces: 'on' });
  const commented = tempWorkspace(t, {
    'rush.json': RUSH_JSON,
    common: {
      config: {
        rush: {
          'build-cache.json': '{\n  // "buildCacheEnabled": true,\n  "buildCacheEnabled": false\n}\n',
          'pnpm-config.json': '{\n  /* "useWorkspaces": true */\n}\n',
        },
      },
    },
  });
  assert.deepEqual(rushHere(commented), { evidence: 'rush.json', buildCache: 'off', workspaces: 'off' });
});

test('the words: the build cache on, off, unread; never "not guarded"', () => {
  const on = rushWords({ evidence: 'rush.json', buildCache: 'on', workspaces: 'on' });
  assert.match(
    on,
    /^Rush \(rush\.json\): Rush's build cache \(common\/temp\/build-cache\) keys each project on its own dependencies/,
  );
  assert.match(
    on,
    /Rush refuses its installs \(rush install, update, add\) during a build, so there is nothing to withhold/,
  );
  assert.match(rushWords({ evidence: 'rush.json', buildCache: 'off', workspaces: 'on' }), /build cache is off here/);
  assert.match(rushWords({ evidence: 'rush.json', buildCache: 'unread', workspaces: 'on' }), /could not be read/);
  for (const buildCache of ['on', 'off', 'unread'] as const)
    assert.doesNotMatch(rushWords({ evidence: 'rush.json', buildCache, workspaces: 'on' }), /not guarded|unguarded/);
});

test('doctor warns where pnpm runs without workspaces, with the fix; nothing where it does', () => {
  assert.equal(rushWorkspacesGap({ evidence: 'rush.json', buildCache: 'on', workspaces: 'on' }), undefined);
  const gap = rushWorkspacesGap({ evidence: 'rush.json', buildCache: 'on', workspaces: 'off' });
  assert.match(gap?.detail ?? '', /one importer, common\/temp/);
  assert.equal(gap?.fix, 'Set "useWorkspaces": true in common/config/rush/pnpm-config.json, then rush update.');
});
