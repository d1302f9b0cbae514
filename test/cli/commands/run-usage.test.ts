// `lockguard run`'s usage errors name what is wrong: a flag missing its value is named (with the values it
// takes where there is a list), before the missing command is; nothing runs.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT } from '../../../lib/cli/exit-codes.js';
import { cli } from '../../helpers/cli.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

const VALUE_FLAGS = ['--policy', '--fail-on-move', '--runner', '--remote', '--moved-exit-code', '--dir'] as const;

test('a value-taking flag with its value missing is named, with or without the command after --', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  for (const flag of VALUE_FLAGS) {
    for (const argv of [
      ['run', flag],
      ['run', flag, '--', 'true'],
    ]) {
      const result = await cli(argv, root);
      assert.equal(result.code, EXIT.usage, argv.join(' '));
      assert.match(result.stderr, new RegExp(`Option '[^']*${flag}[^']*' argument missing`), argv.join(' '));
      assert.doesNotMatch(result.stderr, /needs the command after/, argv.join(' '));
    }
  }
});

test('the command missing is still said when the options are fine', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const none = await cli(['run', '--policy', 'flag'], root);
  assert.equal(none.code, EXIT.usage);
  assert.match(none.stderr, /lockguard run needs the command after "--"/);
  const empty = await cli(['run', '--policy', 'flag', '--'], root);
  assert.equal(empty.code, EXIT.usage);
  assert.match(empty.stderr, /got no command after "--"/);
});
