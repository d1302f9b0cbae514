// The `--runner` row of the README's run table and of lib/cli/README.md names every runner the flag accepts
// (RUNNER_NAMES): the docs once stopped at moon after lage was added.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { RUNNER_NAMES } from '../../lib/integrations/runners/index.js';
import { repoRoot } from '../helpers/fixtures.js';

test("the docs' --runner rows name every runner the flag accepts, in its order", () => {
  for (const page of ['README.md', join('lib', 'cli', 'README.md')]) {
    const row = readFileSync(join(repoRoot(), page), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('| `--runner '));
    assert.ok(row !== undefined, `${page} has a --runner row`);
    const names = /^\| `--runner ([^`]+)`/.exec(row)?.[1]?.split('\\|');
    assert.deepEqual(names, [...RUNNER_NAMES], page);
  }
});
