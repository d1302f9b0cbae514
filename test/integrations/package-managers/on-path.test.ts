// on-path: PATH read whatever its case, empty entries dropped; executability by the X bit (tests run as
// root, for whom access(X_OK) still needs one x bit).

import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import {
  isExecutable,
  pathDirs,
  pathKeyOf,
  withWorkspaceBins,
} from '../../../lib/integrations/package-managers/on-path.js';

test('pathKeyOf and pathDirs: the PATH spelled any way, in order, without empty entries', () => {
  assert.equal(pathKeyOf({ Path: '/a' }), 'Path');
  assert.equal(pathKeyOf({}), 'PATH');
  assert.deepEqual(pathDirs({ Path: ['/a', '', '/b'].join(delimiter) }), ['/a', '/b']);
  assert.deepEqual(pathDirs({}), []);
});

test('isExecutable: a file with an x bit is, one without and a missing one are not', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lockguard-on-path-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tool');
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o644);
  assert.equal(isExecutable(file), false);
  chmodSync(file, 0o755);
  assert.equal(isExecutable(file), true);
  assert.equal(isExecutable(join(dir, 'missing')), false);
});

test("withWorkspaceBins: the bins from the current folder up to the root first; an environment with no PATH keeps execvp's default after them", () => {
  const bins = ['/w/packages/b/node_modules/.bin', '/w/packages/node_modules/.bin', '/w/node_modules/.bin'];
  assert.equal(
    withWorkspaceBins({ PATH: '/usr/bin' }, '/w/packages/b', '/w').PATH,
    [...bins, '/usr/bin'].join(delimiter),
  );
  // No PATH: `lockguard run -- true` must still find true where a plain spawn would (/bin:/usr/bin).
  assert.equal(withWorkspaceBins({}, '/w/packages/b', '/w').PATH, [...bins, '/bin:/usr/bin'].join(delimiter));
  assert.equal(withWorkspaceBins({ PATH: '' }, '/w', '/w').PATH, '/w/node_modules/.bin');
  assert.equal(
    withWorkspaceBins({ Path: '/x' }, '/elsewhere', '/w').Path,
    ['/elsewhere/node_modules/.bin', '/x'].join(delimiter),
  );
});
