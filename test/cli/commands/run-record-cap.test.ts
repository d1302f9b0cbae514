// What a run records is bounded (issue 30): a command line past RECORD_VALUE_MAX (a 100 KB `node -e` script, as a
// pull request can make one) is recorded cut, with the marker, in every ledger file; the child gets its argv whole.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { RECORD_VALUE_MAX } from '../../../lib/core/printable.js';
import { cli } from '../../helpers/cli.js';
import { ledgerTexts } from '../../helpers/output-scan.js';
import { pnpmTree, tempWorkspace } from '../../helpers/workspace.js';

test('a 100 KB command is run whole and recorded cut in every ledger file', async (t) => {
  const root = tempWorkspace(t, pnpmTree());
  const script = `/*${'x'.repeat(100_000)}*/ require('fs').writeFileSync('argv-length', String(process.argv[1].length))`;
  const result = await cli(['run', '--no-pre-check', '--', 'node', '-e', script, 'y'.repeat(50_000)], root);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(root, 'argv-length'), 'utf8'), '50000', 'the child got its argv whole');
  const texts = ledgerTexts(root);
  assert.ok(texts.size > 0, 'the run recorded something');
  let cut = 0;
  for (const [path, text] of texts) {
    for (const line of text.split('\n'))
      assert.ok(line.length < 3 * RECORD_VALUE_MAX, `${path.slice(root.length)}: a line of ${line.length}`);
    if (text.includes('more characters)')) cut++;
  }
  assert.ok(cut > 0, 'the command is recorded, cut with the marker');
});
