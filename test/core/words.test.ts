// plural: the one counted-word helper every layer's messages use.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plural } from '../../lib/core/words.js';

test('plural: one for exactly 1, the plural otherwise, "s" added unless given', () => {
  assert.equal(plural(1, 'run'), '1 run');
  assert.equal(plural(0, 'run'), '0 runs');
  assert.equal(plural(2, 'cache entry', 'cache entries'), '2 cache entries');
  assert.equal(plural(1, 'cache entry', 'cache entries'), '1 cache entry');
});
