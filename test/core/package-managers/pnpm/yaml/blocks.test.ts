// yaml/blocks: a mapping's keys are unique as js-yaml compares them, whether the mapping is small
// (offsets) or large (a set), and whether a key is written plain or quoted.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LockguardError } from '../../../../../lib/core/errors.js';
import { Blocks } from '../../../../../lib/core/package-managers/pnpm/yaml/blocks.js';
import type { Fail } from '../../../../../lib/core/package-managers/pnpm/yaml/scalar.js';

const fail: Fail = (_kind, reason, at) => new LockguardError('ERR_LOCKGUARD_BROKEN_LOCKFILE', `${reason} at ${at}`);

/** Add every key of `keys` (written as in `text`, one per line) to one mapping; the error of the first duplicate. */
function firstDuplicate(keys: readonly string[]): string | undefined {
  const text = keys.join('\n');
  const blocks = new Blocks();
  blocks.open(0, 0, false, false);
  let at = 0;
  try {
    for (const key of keys) {
      blocks.addKey(text, 0, at, at + key.length, fail);
      at += key.length + 1;
    }
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

test('plain keys: a repeat is a duplicate, in a small and in a large mapping', () => {
  assert.equal(firstDuplicate(['a', 'b', 'c']), undefined);
  assert.match(firstDuplicate(['a', 'b', 'a']) ?? '', /duplicate key at 4/);
  const many = Array.from({ length: 40 }, (_, i) => `key${i}`);
  assert.equal(firstDuplicate(many), undefined);
  assert.match(firstDuplicate([...many, 'key7']) ?? '', /duplicate key/);
});

test('a quoted key equals its plain spelling; a quoted number is not the number', () => {
  assert.match(firstDuplicate(['lodash', "'lodash'"]) ?? '', /duplicate key/);
  assert.match(firstDuplicate(['"a/b"', 'a/b']) ?? '', /duplicate key/);
  assert.equal(firstDuplicate(["'1'", '2']), undefined);
});
